"""Lesson 6's stored §1 tables (``figures/occam_tables.json``, ensemble_lib.lessons.model_choice.occam_store).

* the stored tables are re-derived from their stored configuration (a fresh :func:`compute_occam`),
  up to what another CPU's floating point changes, and print the same table the lesson would compute;
* the stored configuration is the functions' defaults, the ones the lesson's text describes;
* the stored exact evidences hold by an independent quadrature: for the polynomial models, ln P(D)
  as a 2-D integral over (ln α, ln β) of SciPy's Gaussian density of the targets times the Gamma
  hyperpriors (not the library's evidence code), and every bound lies below its exact evidence;
* a stored file of another configuration is not replaced without ``--force``.
"""

from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp
from scipy.stats import multivariate_normal

from ensemble_lib.lessons import model_choice as L
from ensemble_lib.lessons.model_choice import occam_store as st
from ensemble_lib.lessons.model_choice.occam import OCCAM_PRIOR, polynomial_data, polynomial_design
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    return st.load_occam()


def _stored_config():
    return json.loads((FIGURES_DIR / st.OCCAM_FILE).read_text())["config"]


def test_the_stored_tables_rederive_from_their_stored_configuration(stored):
    """The exact evidences are quadratures and the bounds fits to gtol 1e-8: 1e-8 nats; the table the
    lesson prints (4 decimals) is the same text."""
    fresh = st.occam_from_result(st.compute_occam(_stored_config()))
    for rows_fresh, rows_stored in zip(fresh, stored):
        assert [(r.label, r.k) for r in rows_fresh] == [(r.label, r.k) for r in rows_stored]
        for name in ("log_evidence_exact", "log_evidence_laplace", "bound"):
            np.testing.assert_allclose([getattr(r, name) for r in rows_fresh],
                                       [getattr(r, name) for r in rows_stored], rtol=0, atol=1e-8)
        assert str(L.format_occam(rows_fresh)) == str(L.format_occam(rows_stored))


def test_the_stored_configuration_is_the_functions_defaults():
    config = _stored_config()
    assert config == st.occam_config()
    poly = inspect.signature(L.polynomial_occam.__wrapped__).parameters
    toy = inspect.signature(L.toy_occam.__wrapped__).parameters
    assert config["polynomial"] == {"degrees": list(poly["degrees"].default), "n": poly["n"].default,
                                    "seed": poly["seed"].default}
    assert config["toy"] == {"alphas": list(toy["alphas"].default), "seed": toy["seed"].default}


def _log_gamma_density_of_log(x, shape, scale):
    """ln p(ln λ) for λ ~ Gamma(shape, scale): shape·ln λ − λ/scale − ln Γ(shape) − shape·ln scale."""
    return shape * x - np.exp(x) / scale - gammaln(shape) - shape * math.log(scale)


@pytest.mark.parametrize("degree", [1, 3])
def test_the_stored_exact_evidence_matches_an_independent_quadrature(stored, degree):
    """ln P(D) = ln ∫∫ N(t; 0, I/β + ΦΦᵀ/α) p(ln α) p(ln β) d ln α d ln β on a 241 × 241 grid
    (trapezoid in log space; the integrand is smooth and confined well inside the ranges), the
    density in the eigenbasis of ΦΦᵀ (checked against SciPy's at one point), not the library's code."""
    c = _stored_config()["polynomial"]
    x, t = polynomial_data(c["n"], c["seed"])
    Phi = polynomial_design(x, degree)
    la = np.linspace(-12.0, 10.0, 241)
    lb = np.linspace(-4.0, 8.0, 241)
    # N(t; 0, I/β + ΦΦᵀ/α) on the whole grid from one eigendecomposition ΦΦᵀ = U diag(s) Uᵀ
    s, U = np.linalg.eigh(Phi @ Phi.T)
    z2 = (U.T @ t) ** 2
    var = 1.0 / np.exp(lb)[None, :, None] + np.clip(s, 0.0, None)[None, None, :] / np.exp(la)[:, None, None]
    logf = -0.5 * np.sum(np.log(2 * np.pi * var) + z2 / var, axis=2)
    # spot-check the closed form against SciPy's density at one grid point
    i, j = 100, 150
    cov = np.eye(t.size) / np.exp(lb[j]) + Phi @ Phi.T / np.exp(la[i])
    assert logf[i, j] == pytest.approx(multivariate_normal(np.zeros(t.size), cov).logpdf(t), abs=1e-8)
    logf += _log_gamma_density_of_log(la, OCCAM_PRIOR.a, OCCAM_PRIOR.b)[:, None]
    logf += _log_gamma_density_of_log(lb, OCCAM_PRIOR.c, OCCAM_PRIOR.d)[None, :]
    wa, wb = np.full(la.size, la[1] - la[0]), np.full(lb.size, lb[1] - lb[0])
    wa[[0, -1]] /= 2
    wb[[0, -1]] /= 2
    lnp = float(logsumexp(logf + np.log(wa)[:, None] + np.log(wb)[None, :]))
    row = next(r for r in stored[0] if r.label == f"degree {degree}")
    assert row.log_evidence_exact == pytest.approx(lnp, abs=1e-4), (row.log_evidence_exact, lnp)
    assert row.bound < row.log_evidence_exact


def test_every_stored_bound_is_below_its_exact_evidence(stored):
    assert all(r.bound < r.log_evidence_exact for rows in stored for r in rows)


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path):
    path = tmp_path / st.OCCAM_FILE
    path.write_text(json.dumps({"config": {"toy": {}}}))
    with pytest.raises(FileExistsError, match="--force"):
        st.save_occam(path)
    done = subprocess.run([sys.executable, "-m", "ensemble_lib.lessons.model_choice.occam_store", "--out", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "--force" in done.stderr, done.stdout + done.stderr
    assert json.loads(path.read_text()) == {"config": {"toy": {}}}
