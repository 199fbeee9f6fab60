"""⟨E_D⟩, ⟨f⟩, ⟨f²⟩ under a Gaussian Q (B&B §2.1, B&B (20)–(24)): ensemble_lib.models.network_moments.

Against Monte Carlo with its standard error, brute-force 2-D quadrature, the toy posterior's own 1-D
quadrature, the small-covariance Taylor expansion, and central differences for every gradient.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.models.toy import ToyPosterior
from ensemble_lib.models.network import NetworkPosterior
from ensemble_lib.models.network_function import network_output
from ensemble_lib.models.network_moments import (expected_data_error, output_moments, predictive_mean,
                                                 predictive_variance)

from _network_checks import central_cov_grad, central_grad, random_problem, rel_err, sig


# ---------------------------------------------------------------------------
# ⟨E_D⟩, ⟨f⟩, ⟨f²⟩ against Monte Carlo and the toy's quadrature
# ---------------------------------------------------------------------------


def monte_carlo(mean, cov, X, t, H, rng, n_samples=1_000_000, chunk=100_000):
    """Sample means and standard errors of f_n, f_n² and E_D under N(mean, cov)."""
    L = np.linalg.cholesky(cov)
    N = X.shape[0]
    s1 = np.zeros((3, N))  # Σ f, Σ f², Σ f⁴
    e1 = e2 = 0.0
    for _ in range(n_samples // chunk):
        W = mean + rng.standard_normal((chunk, mean.size)) @ L.T
        f = network_output(W, X, H)
        f2 = f * f
        s1 += np.stack([f.sum(0), f2.sum(0), (f2 * f2).sum(0)])
        ed = 0.5 * np.sum((f - t) ** 2, axis=1)
        e1 += ed.sum()
        e2 += (ed * ed).sum()
    n = n_samples
    mf, mf2, mf4 = s1 / n
    se_f = np.sqrt((mf2 - mf**2) / n)
    se_f2 = np.sqrt((mf4 - mf2**2) / n)
    me = e1 / n
    se_e = np.sqrt((e2 / n - me**2) / n)
    return mf, se_f, mf2, se_f2, me, se_e


@pytest.mark.parametrize("H", [1, 2, 4])
@pytest.mark.parametrize("d", [1, 3, 14])
def test_expectations_agree_with_monte_carlo(H, d):
    rng = np.random.default_rng(100 * H + d)
    X, t, mean, cov = random_problem(rng, H, d, 4)
    f1, f2 = output_moments(mean, cov, X, H)
    ed = expected_data_error(mean, cov, X, t, H)
    mf, se_f, mf2, se_f2, me, se_e = monte_carlo(mean, cov, X, t, H, rng)
    assert np.all(np.abs(f1 - mf) < 4 * se_f), (f1, mf, se_f)
    assert np.all(np.abs(f2 - mf2) < 4 * se_f2), (f2, mf2, se_f2)
    assert abs(ed - me) < 4 * se_e, (ed, me, se_e)
    # the closed-form predictive mean is the same ⟨f⟩, and the variance is ⟨f²⟩ − ⟨f⟩²
    np.testing.assert_allclose(predictive_mean(mean, cov, X, H), f1, rtol=1e-12, atol=1e-14)
    var = predictive_variance(mean, cov, X, H)
    np.testing.assert_allclose(var, f2 - f1**2, rtol=1e-10, atol=1e-13)
    # with a noise precision β the predictive variance gains exactly 1/β
    np.testing.assert_allclose(
        predictive_variance(mean, cov, X, H, beta=4.0), var + 0.25, rtol=1e-12
    )


@pytest.mark.parametrize("a_scale", [0.7, 5.0])
def test_two_units_agree_with_brute_force_2d_quadrature(a_scale):
    """H = 2 at one input: integrate v exactly given (a_1, a_2), then (a_1, a_2) by scipy's dblquad.

    Independent of the library's reduction (no integration by parts, no angle form); the
    covariance couples v and a strongly so every term of the reduction matters.
    """
    rng = np.random.default_rng(17)
    H, d = 2, 3
    x = np.array([0.8, -1.1, 1.0])
    k = H * d + H
    mean = np.concatenate([0.6 * rng.normal(size=H * d), [1.2, -0.8]])
    A = rng.normal(size=(k, k))
    A[: H * d] *= a_scale / np.sqrt(d)
    cov = A @ A.T / k + 0.05 * np.eye(k)
    P = np.zeros((2 * H, k))  # y = (a_1, a_2, v_1, v_2) = P w
    for i in range(H):
        P[i, i * d:(i + 1) * d] = x
        P[H + i, H * d + i] = 1.0
    m, S = P @ mean, P @ cov @ P.T
    Saa, Sva, Svv = S[:H, :H], S[H:, :H], S[H:, H:]
    B = Sva @ np.linalg.inv(Saa)
    K = Svv - B @ Sva.T  # Cov(v | a)
    sd = np.sqrt(np.diag(Saa))
    # N(a | m_a, Saa) written out in scalars (scipy.stats' pdf costs more than the rest of the
    # integrand per call, and dblquad makes ~10⁵ calls); checked against scipy.stats below
    P_aa = np.linalg.inv(Saa)
    p11, p12, p22 = P_aa[0, 0], P_aa[0, 1], P_aa[1, 1]
    norm = 1.0 / (2.0 * np.pi * np.sqrt(np.linalg.det(Saa)))
    m1, m2 = m[0], m[1]
    c = m[H:] - B @ m[:H]  # E[v | a] = c + B a
    b11, b12, b21, b22 = B[0, 0], B[0, 1], B[1, 0], B[1, 1]
    k11, k12, k22 = K[0, 0], K[0, 1], K[1, 1]
    root2 = np.sqrt(2.0)

    def density(a1, a2):
        d1, d2 = a1 - m1, a2 - m2
        return norm * math.exp(-0.5 * (p11 * d1 * d1 + 2.0 * p12 * d1 * d2 + p22 * d2 * d2))

    probe = np.array([m1 + 0.3 * sd[0], m2 - 0.7 * sd[1]])
    assert density(*probe) == pytest.approx(stats.multivariate_normal(m[:H], Saa).pdf(probe), rel=1e-12)

    def cond(a1, a2, which):
        s1, s2 = math.erf(a1 / root2), math.erf(a2 / root2)
        f1 = (c[0] + b11 * a1 + b12 * a2) * s1 + (c[1] + b21 * a1 + b22 * a2) * s2  # E[v | a] · σ(a)
        val = f1 if which == 1 else f1 * f1 + k11 * s1 * s1 + 2.0 * k12 * s1 * s2 + k22 * s2 * s2
        return val * density(a1, a2)

    lims = [(m[i] - 12 * sd[i], m[i] + 12 * sd[i]) for i in range(H)]
    ref = [
        integrate.dblquad(lambda a2, a1: cond(a1, a2, w), *lims[0], *lims[1],
                          epsabs=1e-11, epsrel=1e-10)[0]
        for w in (1, 2)
    ]
    f1, f2 = output_moments(mean, cov, x[None, :], H)
    assert f1[0] == pytest.approx(ref[0], abs=1e-8)
    assert f2[0] == pytest.approx(ref[1], abs=1e-8)
    t = np.array([0.4])
    ed = expected_data_error(mean, cov, x[None, :], t, H)
    assert ed == pytest.approx(0.5 * (ref[1] - 2 * t[0] * ref[0] + t[0] ** 2), abs=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_single_unit_agrees_with_toy_quadrature(seed):
    """H = 1, d = 1, no bias: the toy of §2.1, whose ⟨E_D⟩ is a separate 1-D Gauss–Hermite rule."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, 6)
    t = -2.5 * sig(-0.13 * x) + 0.1 * rng.normal(size=6)
    toy = ToyPosterior(x, t, alpha=1.0, beta=100.0, n_quad=150)
    net = NetworkPosterior(x[:, None], t, 1, alpha=1.0, beta=100.0)
    mean = rng.normal(size=2)
    A = rng.normal(size=(2, 2)) * 0.6
    cov = A @ A.T + 0.05 * np.eye(2)
    a, b = toy.expected_data_error(mean, cov), net.expected_data_error(mean, cov)
    assert b.value == pytest.approx(a.value, abs=1e-8)
    np.testing.assert_allclose(b.d_mean, a.d_mean, atol=1e-8)
    np.testing.assert_allclose(b.d_cov, a.d_cov, atol=1e-8)
    assert expected_data_error(mean, cov, x[:, None], t, 1) == pytest.approx(a.value, abs=1e-8)
    assert net.bound(mean, cov) == pytest.approx(toy.bound(mean, cov), abs=1e-8)


def test_small_covariance_limit_is_taylor_expansion_with_exact_hessian():
    """⟨E_D⟩ = E_D(w̄) + ½Tr(C∇∇E_D) + O(‖C‖²) and ∂⟨E_D⟩/∂C → ½∇∇E_D as C → 0."""
    rng = np.random.default_rng(7)
    H, d = 3, 3
    X, t, mean, cov = random_problem(rng, H, d, 6)
    post = NetworkPosterior(X, t, H, 1.0, 1.0)
    hess = post.data_error_hessian(mean)
    for eps in (1e-2, 1e-3):
        C = eps**2 * cov
        e = post.expected_data_error(mean, C)
        taylor = float(post.data_error(mean)) + 0.5 * np.sum(C * hess)
        assert abs(e.value - taylor) < 50 * eps**4
        np.testing.assert_allclose(e.d_mean, post.data_error_grad(mean), atol=50 * eps**2)
        np.testing.assert_allclose(e.d_cov, 0.5 * hess, atol=50 * eps**2)


# ---------------------------------------------------------------------------
# gradients against central differences
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("H,d,scale", [(1, 2, 1.0), (2, 3, 1.0), (3, 2, 4.0), (4, 4, 0.3)])
def test_expected_data_error_gradients_match_central_differences(H, d, scale):
    rng = np.random.default_rng(20 + H * d)
    X, t, mean, cov = random_problem(rng, H, d, 5, scale=scale)
    post = NetworkPosterior(X, t, H, 1.0, 1.0)
    e = post.expected_data_error(mean, cov)
    g_mean = central_grad(lambda m: post.expected_data_error(m, cov).value, mean)
    g_cov = central_cov_grad(lambda C: post.expected_data_error(mean, C).value, cov)
    assert rel_err(e.d_mean, g_mean) < 1e-6
    assert rel_err(e.d_cov, g_cov) < 1e-6
    np.testing.assert_allclose(e.d_cov, e.d_cov.T, atol=1e-14)


@pytest.mark.parametrize("family,rank", [("full", None), ("factor", 2), ("diagonal", None)])
def test_kl_objective_gradient_matches_central_differences(family, rank):
    rng = np.random.default_rng(5)
    H, d = 2, 3
    X, t, mean, cov = random_problem(rng, H, d, 6)
    post = NetworkPosterior(X, t, H, alpha=0.5, beta=2.0)
    fam = CovarianceFamily.make(family, post.dim, rank)
    theta = fam.pack(mean, cov) + 0.01 * rng.normal(size=fam.n_params)
    f, g = kl_objective(post, fam, theta)
    assert np.isfinite(f)
    g_fd = central_grad(lambda th: kl_objective(post, fam, th)[0], theta)
    assert rel_err(g, g_fd) < 1e-6
