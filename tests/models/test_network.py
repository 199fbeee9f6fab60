"""The erf network's posterior (Barber & Bishop §2.1, App. A): ensemble_lib.models.network.

The data error's gradient and exact Hessian against central differences, the covariance families'
fits against each other, and bad input refused. The network itself, Ψ and the moments under Q are
tested in tests/models/test_network_function.py, test_psi_integral.py and test_network_moments.py.
"""

from __future__ import annotations


import numpy as np
import pytest

from ensemble_lib.inference.kl_fit import kl_fit
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.models.network import NetworkPosterior
from ensemble_lib.models.network_function import add_bias, network_output
from ensemble_lib.models.network_moments import (_moments, expected_data_error, predictive_mean,
                                                 predictive_variance)

from _network_checks import central_grad, explicit_output, random_problem, rel_err


@pytest.mark.parametrize("H,d", [(1, 1), (2, 3), (3, 2)])
def test_data_error_gradient_and_exact_hessian(H, d):
    rng = np.random.default_rng(3 + H)
    X, t, mean, _ = random_problem(rng, H, d, 9)
    post = NetworkPosterior(X, t, H, alpha=0.7, beta=3.0)
    w = mean + 0.3 * rng.normal(size=post.dim)
    # E_D vectorised over leading axes agrees with the explicit loop
    W = np.stack([w, -w, 2 * w])
    ed = post.data_error(W)
    for s in range(3):
        r = explicit_output(W[s], X, H) - t
        assert ed[s] == pytest.approx(0.5 * r @ r, rel=1e-13)
    g = post.data_error_grad(w)
    assert rel_err(g, central_grad(lambda ww: float(post.data_error(ww)), w)) < 1e-8
    Hs = post.data_error_hessian(w)
    Hfd = np.stack([central_grad(lambda ww: post.data_error_grad(ww)[i], w) for i in range(post.dim)])
    assert rel_err(Hs, Hfd) < 1e-7
    np.testing.assert_allclose(Hs, Hs.T, atol=1e-12)


# ---------------------------------------------------------------------------
# fits with the three covariance families (eq. 26)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_fit_problem():
    rng = np.random.default_rng(11)
    x = np.linspace(-2, 2, 10)
    t = np.sin(1.3 * x) + 0.1 * rng.normal(size=x.size)
    X = add_bias(x[:, None])
    post = NetworkPosterior(X, t, 2, alpha=1.0, beta=25.0)
    lap = laplace_fit(post, start=0.5 * rng.normal(size=post.dim), compute_kl=False)
    return post, [(lap.mean, lap.cov)]


def test_factor_with_k_minus_1_factors_reaches_full_bound(small_fit_problem):
    post, init = small_fit_problem
    full = kl_fit(post, "full", init=init)
    fac = kl_fit(post, "factor", rank=post.dim - 1, init=init)
    assert full.converged and fac.converged
    assert fac.bound == pytest.approx(full.bound, abs=1e-6)
    np.testing.assert_allclose(fac.mean, full.mean, atol=1e-4)


def test_zero_factors_is_the_diagonal_family_and_bound_grows_with_s(small_fit_problem):
    post, init = small_fit_problem
    diag = kl_fit(post, "diagonal", init=init)
    fac0 = kl_fit(post, "factor", rank=0, init=init)
    assert fac0.bound == pytest.approx(diag.bound, abs=1e-9)
    np.testing.assert_allclose(fac0.cov, np.diag(np.diag(fac0.cov)), atol=0)
    fac1 = kl_fit(post, "factor", rank=1, init=init)
    full = kl_fit(post, "full", init=init)
    assert diag.bound <= fac1.bound + 1e-8 <= full.bound + 2e-8
    # every fitted Q is a better bound than Laplace's Gaussian at the mode
    mean0, cov0 = init[0]
    assert full.bound > post.bound(mean0, cov0)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def test_bad_input_raises_clear_errors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 2))
    t = rng.normal(size=5)
    w = rng.normal(size=6)
    cov = np.eye(6)
    with pytest.raises(ValueError, match="n_hidden"):
        network_output(w, X, 0)
    with pytest.raises(ValueError, match="n_hidden"):
        NetworkPosterior(X, t, 0, 1.0, 1.0)
    with pytest.raises(ValueError, match="n_hidden"):
        network_output(w, X, 2.5)
    with pytest.raises(ValueError, match="X must be a 2-D"):
        network_output(w, X[:, 0], 2)
    with pytest.raises(ValueError, match="w must have last dimension"):
        network_output(w[:-1], X, 2)
    Xbad = X.copy()
    Xbad[1, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        NetworkPosterior(Xbad, t, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        network_output(w, np.where(X > 0, np.inf, X), 2)
    with pytest.raises(ValueError, match="t must"):
        NetworkPosterior(X, t[:-1], 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        expected_data_error(w, cov, X, np.full(5, np.nan), 2)
    with pytest.raises(ValueError, match="alpha"):
        NetworkPosterior(X, t, 2, -1.0, 1.0)
    with pytest.raises(ValueError, match="cov must have shape"):
        expected_data_error(w, np.eye(5), X, t, 2)
    with pytest.raises(ValueError, match="positive definite"):
        expected_data_error(w, -np.eye(6), X, t, 2)
    with pytest.raises(ValueError, match="mean must have shape"):
        predictive_mean(w[:4], cov, X, 2)
    with pytest.raises(ValueError, match="n_quad"):
        expected_data_error(w, cov, X, t, 2, n_quad=2)
    with pytest.raises(ValueError, match="beta"):
        predictive_variance(w, cov, X, 2, beta=0.0)
    post = NetworkPosterior(X, t, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="mean must have shape"):
        post.expected_data_error(w[:5], cov)
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=post.dim, init=[(w, cov)])
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=-1, init=[(w, cov)])


def test_the_posterior_keeps_its_own_read_only_inputs_so_its_kept_products_stay_true():
    """NetworkPosterior keeps x_n x_nᵀ between evaluations; changing the caller's X later changes nothing."""
    rng = np.random.default_rng(5)
    X = add_bias(rng.standard_normal((12, 2)))
    t = rng.standard_normal(12)
    post = NetworkPosterior(X, t, 2, alpha=1.0, beta=3.0)
    mean, cov = 0.3 * rng.standard_normal(post.dim), 0.05 * np.eye(post.dim)
    before = post.expected_data_error(mean, cov)
    X[:] = 0.0  # the caller's array
    again = post.expected_data_error(mean, cov)
    assert again.value == before.value
    np.testing.assert_array_equal(again.d_cov, before.d_cov)
    with pytest.raises(ValueError):
        post.X[0, 0] = 1.0
    fresh = NetworkPosterior(add_bias(rng.standard_normal((12, 2))), t, 2, alpha=1.0, beta=3.0)
    e = fresh.expected_data_error(mean, cov)
    ref = _moments(mean, cov, fresh.X, fresh.t, 2, fresh.n_quad, grad=True)[2]  # x_n x_nᵀ formed afresh
    assert e.value == ref.value  # another posterior's kept products are its own
    np.testing.assert_array_equal(e.d_cov, ref.d_cov)
