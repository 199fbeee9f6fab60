"""The mixture's objective KL(Q‖P) − ln Z and its gradient (Barber & Bishop 1998, §3, eq. 39):
ensemble_lib.inference.mixture_fit.

* gradients against central differences (the toy with both entropies, and a network with the bound);
* KL(Q‖P) of random mixtures never negative; the mirror overlap against its cubature.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from ensemble_lib.inference import mixture_fit as M
from ensemble_lib.inference.mixture_entropy import ENTROPIES, REPORT_SPACING, MixtureParams

from _mixture_reference import _box, central_difference, network_and_single, preset_posterior, random_mixture


@pytest.fixture(scope="module")
def preset():
    return preset_posterior()


@pytest.fixture(scope="module")
def network():
    return network_and_single()


# ---------------------------------------------------------------------------
# gradients
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("entropy", ENTROPIES)
@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_objective_gradient_matches_central_differences(preset, entropy, K):
    rng = np.random.default_rng(K)
    params = MixtureParams(K, 2)
    theta = 0.5 * rng.standard_normal(params.n_params)
    theta[K - 1:].reshape(K, 5)[:, 2:5:2] -= 1.5  # sds about e^-1.5 ≈ 0.2: a posterior-sized Q
    f, g = M.mixture_objective(preset, params, theta, entropy)
    g_num = central_difference(lambda th: M.mixture_objective(preset, params, th, entropy)[0], theta)
    np.testing.assert_allclose(g, g_num, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(g).max()))


def test_objective_gradient_on_the_fine_rule_matches_central_differences(preset):
    """The reporting rule's products are large enough to be summed without BLAS: its gradient too."""
    rng = np.random.default_rng(9)
    params = MixtureParams(4, 2)
    theta = 0.5 * rng.standard_normal(params.n_params)
    theta[3:].reshape(4, 5)[:, 2:5:2] -= 1.5
    fun = lambda th: M.mixture_objective(preset, params, th, "quadrature", REPORT_SPACING)  # noqa: E731
    g = fun(theta)[1]
    np.testing.assert_allclose(g, central_difference(lambda th: fun(th)[0], theta), rtol=1e-6,
                               atol=1e-6 * max(1.0, np.abs(g).max()))


def test_kl_of_random_mixtures_is_never_negative(preset):
    rng = np.random.default_rng(11)
    for trial in range(40):
        K = 1 + trial % 4
        w, m, C = random_mixture(rng, K, scale=0.3)
        params = MixtureParams(K, 2)
        value = M.mixture_objective(preset, params, params.pack(w, m, C), "quadrature", REPORT_SPACING)[0]
        assert value + preset.log_Z >= 0


def test_mirror_overlap_matches_the_bhattacharyya_coefficient_by_quadrature():
    m, C = np.array([0.3, -0.8]), np.array([[0.05, 0.02], [0.02, 0.2]])
    lo, hi = _box(np.array([m, -m]), np.array([C, C]))
    q = stats.multivariate_normal(m, C)
    qm = stats.multivariate_normal(-m, C)
    ref = integrate.cubature(lambda W: np.sqrt(q.pdf(W) * qm.pdf(W)), lo, hi, rtol=0, atol=1e-12).estimate
    assert M.mirror_overlap(m, C) == pytest.approx(ref, abs=1e-9)


# ---------------------------------------------------------------------------
# the bound on a network (any number of parameters)
# ---------------------------------------------------------------------------

def test_bound_objective_gradient_on_a_network_matches_central_differences(network):
    post, single = network
    params = MixtureParams(2, post.dim)
    theta = params.pack([0.3, 0.7], [single.mean, -0.8 * single.mean], [single.cov, 1.5 * single.cov])
    f, g = M.mixture_objective(post, params, theta, "bound")
    g_num = central_difference(lambda th: M.mixture_objective(post, params, th, "bound")[0], theta)
    np.testing.assert_allclose(g, g_num, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(g).max()))
