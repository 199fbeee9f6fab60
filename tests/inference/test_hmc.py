"""HMC ground truth (NumPyro NUTS): checks against exact posteriors and the library's network.

Skipped as a whole when NumPyro is not installed (the ``reference`` extra).
Settings are small so the module runs in about a minute on two cores. The reference command built on
it (``ensemble_lib.studies.hmc_reference``): tests/studies/test_hmc_reference.py.
"""

import math
import sys

import numpy as np
import pytest

pytest.importorskip("numpyro")

from scipy import stats  # noqa: E402

import _jax_cache  # noqa: E402
from ensemble_lib.inference import hmc  # noqa: E402
from ensemble_lib.inference.hyperparameters import GammaHyperprior  # noqa: E402
from ensemble_lib.models.linear import LinearGaussianPosterior  # noqa: E402
from ensemble_lib.models.network import add_bias, network_output, pack_weights  # noqa: E402
from ensemble_lib.models.toy import make_posterior  # noqa: E402

P_MIN = 1e-3  # smallest acceptable p-value of the distribution tests


# the module's own persistent JAX compilation cache (tests/_jax_cache.py)
compilation_cache = pytest.fixture(scope="module", autouse=True)(_jax_cache.compilation_cache)


def _grid_cdf(values, density):
    """Normalised CDF (trapezoid) of a density tabulated on increasing ``values``."""
    c = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(values))])
    c /= c[-1]
    return lambda q: np.interp(q, values, c)


def _thin(x, ess):
    """Every m-th draw with m = ceil(len/ESS), so the kept draws are roughly independent."""
    return x[:: max(1, math.ceil(x.size / ess))]


@pytest.fixture(scope="module")
def toy():
    post = make_posterior(0, alpha=1.0, noise_sd=0.3, n=6)
    return post, hmc.sample_toy(post, seed=0, num_warmup=500, num_samples=1500, num_chains=2)


def test_toy_marginals_match_the_exact_grid(toy):
    """Folded NUTS marginals of the toy agree with the exact grid marginals (KS, p > 0.001).

    The posterior is symmetric under (u, v) → (−u, −v) and a chain may stay in
    one of the two mirror modes, so every draw is reflected into the half-plane
    u ≥ 0: (|u|, sign(u)·v). By the symmetry this folded distribution is exactly
    twice the posterior on u ≥ 0, whichever mode the chains visited. Its
    marginals are compared with those of ``ToyPosterior.grid`` by
    Kolmogorov–Smirnov tests on draws thinned to about one per effective sample;
    each p-value must exceed 0.001.
    """
    from numpyro.diagnostics import effective_sample_size

    post, res = toy
    assert res.chain_w.shape == (2, 1500, 2)
    assert res.n_divergences <= 3
    s = np.where(res.chain_w[..., 0] < 0, -1.0, 1.0)
    folded = {"u": np.abs(res.chain_w[..., 0]), "v": s * res.chain_w[..., 1]}
    g = post.grid(n=1201, extent=post.extent(1.0))
    P = g.density
    right = g.u >= 0.0
    cdfs = {"u": _grid_cdf(g.u[right], 2.0 * np.trapezoid(P[:, right], g.v, axis=0)),
            "v": _grid_cdf(g.v, 2.0 * np.trapezoid(P[:, right], g.u[right], axis=1))}
    for name, draws in folded.items():
        ess = float(effective_sample_size(draws))
        assert ess > 300, (name, ess)
        kept = _thin(draws.reshape(-1), ess)
        p = stats.kstest(kept, cdfs[name]).pvalue
        print(f"{name}: KS p = {p:.3g} on {kept.size} thinned draws (ESS {ess:.0f})")
        assert p > P_MIN, (name, p, kept.size)


def test_toy_result_fields(toy):
    post, res = toy
    assert res.model == "toy" and not res.sampled_hyperparameters
    assert np.all(res.alpha == post.alpha) and np.all(res.beta == post.beta)
    assert res.r_hat_max < 1.01 and res.ess_min > 500
    assert res.settings["seed"] == 0 and res.settings["num_chains"] == 2
    mean, sd = res.predictive(post.x)
    F = res.outputs(post.x)
    np.testing.assert_allclose(mean, F.mean(axis=0))
    np.testing.assert_allclose(sd**2, F.var(axis=0) + 1.0 / post.beta)


def test_linear_moments_match_the_closed_form():
    """NUTS mean and covariance of the linear model agree with N(A⁻¹βΦᵀt, A⁻¹) within 4 s.e.

    The standard error of each mean is sd/√ESS, that of each covariance entry
    the s.d. of the centred products over √ESS of those products (ESS from
    ``numpyro.diagnostics.effective_sample_size`` over both chains).
    """
    from numpyro.diagnostics import effective_sample_size

    rng = np.random.default_rng(1)
    Phi = rng.standard_normal((20, 3))
    t = Phi @ np.array([1.0, -0.5, 0.2]) + 0.5 * rng.standard_normal(20)
    post = LinearGaussianPosterior(Phi, t, alpha=1.0, beta=4.0)
    res = hmc.sample_linear(post, seed=np.random.default_rng(7), num_warmup=200,
                            num_samples=800, num_chains=2)
    W = res.chain_w  # (2, 800, 3)
    sd = np.sqrt(np.diag(post.cov))
    se_mean = sd / np.sqrt(res.ess["w"])
    assert np.all(np.abs(res.w.mean(axis=0) - post.mean) < 4.0 * se_mean)
    centred = W - post.mean
    for i in range(3):
        for j in range(i, 3):
            prod = centred[..., i] * centred[..., j]
            se = prod.std() / math.sqrt(float(effective_sample_size(prod)))
            assert abs(prod.mean() - post.cov[i, j]) < 4.0 * se, (i, j)
    assert res.r_hat_max < 1.01
    assert res.n_divergences == 0


@pytest.fixture(scope="module")
def network():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2.0, 2.0, 20)
    y = np.sin(1.5 * x) + 0.1 * rng.standard_normal(20)
    X = add_bias(x[:, None])
    res = hmc.sample_network(X, y, 2, GammaHyperprior(), seed=3, num_warmup=300,
                             num_samples=300, num_chains=2)
    return X, y, res


def test_network_runs_and_mixes(network):
    X, y, res = network
    assert res.model == "network" and res.sampled_hyperparameters and res.n_hidden == 2
    assert res.chain_w.shape == (2, 300, 2 * 2 + 2)
    assert res.chain_alpha.shape == res.chain_beta.shape == (2, 300)
    assert np.all(res.alpha > 0) and np.all(res.beta > 0)
    assert res.r_hat_max < 1.1
    Xt = add_bias(np.linspace(-3.0, 3.0, 31)[:, None])
    mean, sd = res.predictive(Xt)
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(sd))
    assert np.all(sd**2 >= np.mean(1.0 / res.beta))
    # the fit is sensible: training residuals near the noise level
    assert np.mean((res.predictive(X)[0] - y) ** 2) < 0.05
    for c in range(2):
        assert np.all(np.isfinite(res.predictive(Xt, chain=c)[0]))


def test_network_weight_ordering_matches_the_library(network):
    """At a draw, the NumPyro model's mean of y equals the library's ``network_output``."""
    import jax.numpy as jnp
    from numpyro import handlers

    X, y, res = network
    w, alpha = res.chain_w[1, 17], res.chain_alpha[1, 17]
    z = w * np.sqrt(alpha)
    model = handlers.substitute(handlers.seed(hmc.network_model, 0),
                                data={"alpha": jnp.asarray(alpha), "beta": jnp.asarray(1.0),
                                      "z": jnp.asarray(z)})
    tr = handlers.trace(model).get_trace(X, None, 2, 0.25, 400.0, 0.05, 2000.0)
    np.testing.assert_allclose(np.asarray(tr["w"]["value"]), w, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tr["y"]["fn"].mean), network_output(w, X, 2),
                               rtol=1e-12, atol=1e-12)
    # and the packing itself: u_i are rows of U, then v
    U = np.array([[1.0, -2.0], [0.5, 0.3]])
    v = np.array([2.0, -1.0])
    wp = pack_weights(U, v)
    np.testing.assert_allclose(np.asarray(hmc.network_mean(wp, X, 2)), network_output(wp, X, 2),
                               rtol=1e-12, atol=1e-12)


def test_missing_numpyro_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[reference\]'"):
        hmc._jax()
