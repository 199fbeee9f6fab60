"""Lesson 7's stored fits (``figures/mixture_ladder.json``, ensemble_lib.lessons.mixture.ladder_store).

* the stored fits are re-derived from their stored configuration (a fresh :func:`compute_ladder`),
  up to what another CPU's floating point changes, and print the same ladder the lesson would compute;
* the stored configuration is ``mixtures_for``'s defaults (the preset the lesson's text describes);
* every stored KL(Q‖P) holds by an independent quadrature: Gauss–Hermite nodes in each component's
  whitened coordinates, SciPy's Gaussian densities for ln Q, and ln Z summed on a grid of the
  posterior's own log density (not the library's entropy rules, bound or ln Z);
* loading the file makes ``mixtures_for()`` (what the panel opens on) answer with the stored fits;
* a stored file of another configuration is not replaced without ``--force``.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from ensemble_lib.lessons import mixture as L
from ensemble_lib.lessons.mixture import ladder_store as st
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    comp = st.load_mixtures()
    yield comp
    L.forget_mixtures()  # later tests fit afresh


def _stored_config():
    return json.loads((FIGURES_DIR / st.LADDER_FILE).read_text())["config"]


def _fits(comp):
    return list(comp.quadrature.fits) + list(comp.bound.fits)


def test_the_stored_fits_rederive_from_their_stored_configuration(stored):
    """BFGS to its tolerance from the same starts: the KLs and bounds to 1e-8 nats, the Gaussians to
    1e-5; the ladder the lesson prints (4 decimals) is the same text."""
    fresh = st.ladder_from_result(st.compute_ladder(_stored_config()))
    assert [(f.K, f.entropy) for f in _fits(fresh)] == [(f.K, f.entropy) for f in _fits(stored)]
    for a, b in zip(_fits(fresh), _fits(stored)):
        for name in ("kl", "kl_bound", "F", "bound"):
            assert getattr(a, name) == pytest.approx(getattr(b, name), abs=1e-8), name
        for name in ("weights", "means", "covs"):
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-5)
    assert fresh.single.kl == pytest.approx(stored.single.kl, abs=1e-10)
    np.testing.assert_allclose(fresh.single.mean, stored.single.mean, rtol=0, atol=1e-7)
    assert L.format_ladder(fresh) == L.format_ladder(stored)


def test_the_stored_configuration_is_mixtures_fors_defaults():
    config = _stored_config()
    assert config == st.ladder_config()
    params = inspect.signature(L.mixtures_for).parameters
    assert config == {"alpha": params["alpha"].default, "seed": params["seed"].default, "K_max": L.K_MAX}


def _independent_kl(post, weights, means, covs, log_z, n_nodes=200):
    """KL(Q‖P) = Σ_i π_i ∫ N_i (ln Q − ln P*) + ln Z by tensor Gauss–Hermite nodes of each component
    (200 per axis: where components of one mode overlap, ln Q bends sharply and 48 nodes miss by 1e-4)."""
    x, w = np.polynomial.hermite_e.hermegauss(n_nodes)  # ∫ e^{−z²/2} f(z) dz
    w = w / np.sqrt(2 * np.pi)
    Z = np.stack(np.meshgrid(x, x, indexing="ij"), axis=-1).reshape(-1, 2)
    W = np.outer(w, w).ravel()
    dens = [multivariate_normal(m, C) for m, C in zip(means, covs)]
    total = 0.0
    for pi, m, C in zip(weights, means, covs):
        pts = m + Z @ np.linalg.cholesky(C).T
        log_q = logsumexp(np.stack([np.log(p) + d.logpdf(pts) for p, d in zip(weights, dens)]), axis=0)
        total += pi * float(W @ (log_q - post.log_unnorm(pts)))
    return total + log_z


def _grid_log_z(post, half, n_u, n_v):
    """ln ∫ P* on a trapezoid grid over [−half, half]² (the posterior's own density, no 1-D reduction)."""
    u, v = np.linspace(-half, half, n_u), np.linspace(-half, half, n_v)
    U, V = np.meshgrid(u, v, indexing="ij")
    lp = post.log_unnorm(np.stack([U, V], axis=-1))
    wu, wv = np.full(n_u, u[1] - u[0]), np.full(n_v, v[1] - v[0])
    wu[[0, -1]] /= 2
    wv[[0, -1]] /= 2
    return float(logsumexp(lp + np.log(wu)[:, None] + np.log(wv)[None, :]))


def test_every_stored_kl_matches_an_independent_quadrature(stored):
    post = stored.posterior
    s = stored.single
    # the posterior's tails reach as far as the prior's (v is free where u ≈ 0): a box of 9 prior s.d.,
    # checked against one of 12 at the same spacing (0.01 in u, where the ridges are narrow; 0.05 in v)
    half = 9.0 / np.sqrt(post.alpha)
    log_z = _grid_log_z(post, half, 4001, 801)
    assert _grid_log_z(post, 4 * half / 3, 5335, 1068) == pytest.approx(log_z, abs=1e-6)
    assert _independent_kl(post, [1.0], [s.mean], [s.cov], log_z) == pytest.approx(s.kl, abs=1e-5)
    for f in _fits(stored):
        got = _independent_kl(post, f.weights, f.means, f.covs, log_z)
        assert got == pytest.approx(f.kl, abs=1e-5), (f.K, f.entropy, got, f.kl)
    # the K = 1 → 2 drop of the quadrature fits is ln 2 to within the modes' overlap (lesson 7's §3 reading)
    kl = [f.kl for f in stored.quadrature.fits]
    assert kl[0] - kl[1] == pytest.approx(np.log(2), abs=1e-6)
    assert all(a > b for a, b in zip(kl, kl[1:]))


def test_loading_makes_the_panel_open_on_the_stored_fits(stored):
    L.forget_mixtures()
    comp = st.load_mixtures()
    assert L.mixtures_for() is comp
    config = _stored_config()
    state = L.MixtureExplorer().compute(2, config["alpha"], config["seed"])  # the panel's step at its defaults
    assert state.comparison is comp


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path):
    path = tmp_path / st.LADDER_FILE
    path.write_text(json.dumps({"config": {"alpha": 1.0}}))
    with pytest.raises(FileExistsError, match="--force"):
        st.save_ladder(path)
    done = subprocess.run([sys.executable, "-m", "ensemble_lib.lessons.mixture.ladder_store", "--out", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "--force" in done.stderr, done.stdout + done.stderr
    assert json.loads(path.read_text()) == {"config": {"alpha": 1.0}}
    st.save_ladder(path, force=True)
    assert json.loads(path.read_text())["config"] == st.ladder_config()
