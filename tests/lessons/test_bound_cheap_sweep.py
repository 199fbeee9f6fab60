"""Lesson 3's stored §5 sweep (``figures/cheap_sweep.json``, ensemble_lib.lessons.bound.cheap_sweep).

* the stored sweep is re-derived from its stored configuration (a fresh :func:`compute_sweep`), up to
  what another CPU's floating point changes;
* the stored configuration is the one ``cheap_comparison()`` uses by default, so the lesson shows
  what it would compute;
* its answers hold by an independent computation (the evidence as a Gaussian density of the targets,
  SciPy's, not the library's): the exact maximiser has zero gradient in (ln α, ln β) by central
  differences, and every converged cheap entry is a fixed point of α = k/Σw², β = N/2E_D;
* a stored file of another configuration is not replaced without ``--force``, and the command
  refuses it before any work.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from ensemble_lib.lessons.bound import bumps_posterior, cheap_comparison
from ensemble_lib.lessons.bound import cheap_sweep as cs
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    return cs.load_cheap_comparison()


def _stored_config():
    return json.loads((FIGURES_DIR / cs.SWEEP_FILE).read_text())["config"]


def _targets_and_design(n_far):
    post = bumps_posterior(n_far, **_stored_config()["case"])
    return np.asarray(post.t, dtype=float), np.asarray(post.Phi, dtype=float)


def _log_evidence(t, Phi, alpha, beta):
    """ln P(t | α, β) = ln N(t; 0, I/β + ΦΦᵀ/α): the linear model's evidence as a density of the targets."""
    cov = np.eye(t.size) / beta + Phi @ Phi.T / alpha
    return float(multivariate_normal(np.zeros(t.size), cov).logpdf(t))


def test_the_stored_sweep_rederives_from_its_stored_configuration(stored):
    """MacKay's and the cheap fixed points stop at tol 1e-10: 1e-8 relative; the exact maximiser is a
    Nelder–Mead polish's end point on a flat top (its ln P moves by < 1e-12 over 1e-7 in α): 1e-6
    relative. Where the cheap rule has no fixed point its last α is where a diverging run stopped,
    which the lesson never shows (the table says → ∞): only the flag is compared there."""
    fresh = cs.comparison_from_result(cs.compute_sweep(_stored_config()))
    for name in ("n_far", "k", "cheap_converged"):
        np.testing.assert_array_equal(getattr(fresh, name), getattr(stored, name))
    assert fresh.n_data == stored.n_data
    for name in ("gamma", "alpha_mackay", "beta_mackay"):
        np.testing.assert_allclose(getattr(fresh, name), getattr(stored, name), rtol=1e-8)
    for name in ("alpha_exact", "beta_exact"):
        np.testing.assert_allclose(getattr(fresh, name), getattr(stored, name), rtol=1e-6)
    ok = stored.cheap_converged
    np.testing.assert_allclose(fresh.alpha_cheap[ok], stored.alpha_cheap[ok], rtol=1e-8)
    np.testing.assert_allclose(fresh.beta_cheap[ok], stored.beta_cheap[ok], rtol=1e-8)


def test_the_stored_configuration_is_the_lessons_default():
    config = _stored_config()
    assert config == cs.sweep_config()
    defaults = inspect.signature(cheap_comparison).parameters
    assert tuple(config["far_counts"]) == tuple(defaults["far_counts"].default)
    assert defaults["case"].default is None  # None: CHEAP_CASE, which sweep_config() records


@pytest.mark.parametrize("index", [0, 4, 12])
def test_the_stored_exact_maximiser_has_zero_gradient_of_the_evidence(stored, index):
    t, Phi = _targets_and_design(int(stored.n_far[index]))
    la, lb = np.log(stored.alpha_exact[index]), np.log(stored.beta_exact[index])

    def lnp(da, db):
        return _log_evidence(t, Phi, np.exp(la + da), np.exp(lb + db))

    h = 1e-3
    g = [(lnp(h, 0) - lnp(-h, 0)) / (2 * h), (lnp(0, h) - lnp(0, -h)) / (2 * h)]
    assert np.max(np.abs(g)) < 1e-4, g
    # and it is a maximum: a step of 0.05 in either direction lowers ln P
    for da, db in ((0.05, 0), (-0.05, 0), (0, 0.05), (0, -0.05)):
        assert lnp(da, db) < lnp(0, 0)


def test_every_converged_cheap_entry_is_a_fixed_point_of_the_cheap_rule(stored):
    """α = k/Σw², β = N/2E_D at w_MP(α, β) = β(βΦᵀΦ + αI)⁻¹Φᵀt, solved here; the first entry that
    does not converge is where the lesson says the rule turns singular (24 far bumps)."""
    for i in np.flatnonzero(stored.cheap_converged):
        t, Phi = _targets_and_design(int(stored.n_far[i]))
        a, b = stored.alpha_cheap[i], stored.beta_cheap[i]
        w = np.linalg.solve(b * Phi.T @ Phi + a * np.eye(Phi.shape[1]), b * Phi.T @ t)
        assert Phi.shape[1] / (w @ w) == pytest.approx(a, rel=1e-6)
        assert t.size / np.sum((t - Phi @ w) ** 2) == pytest.approx(b, rel=1e-6)
    assert stored.n_far[stored.first_singular] == 24


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path):
    path = tmp_path / cs.SWEEP_FILE
    path.write_text(json.dumps({"config": {"far_counts": [0]}}))
    with pytest.raises(FileExistsError, match="--force"):
        cs.save_sweep(path)
    assert json.loads(path.read_text()) == {"config": {"far_counts": [0]}}
    done = subprocess.run([sys.executable, "-m", "ensemble_lib.lessons.bound.cheap_sweep", "--out", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "--force" in done.stderr, done.stdout + done.stderr
    assert json.loads(path.read_text()) == {"config": {"far_counts": [0]}}


def test_the_command_writes_the_sweep_it_stores(tmp_path):
    path = tmp_path / cs.SWEEP_FILE
    done = subprocess.run([sys.executable, "-m", "ensemble_lib.lessons.bound.cheap_sweep", "--out", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    written = cs.load_cheap_comparison(tmp_path)
    np.testing.assert_array_equal(written.cheap_converged, cs.load_cheap_comparison().cheap_converged)
    np.testing.assert_allclose(written.alpha_mackay, cs.load_cheap_comparison().alpha_mackay, rtol=1e-8)
