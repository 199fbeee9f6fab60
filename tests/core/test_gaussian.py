"""Gauss–Hermite rules, Gaussian entropy/KL and the covariance families' chain rules.

References: closed-form Gaussian moments, Monte Carlo with stated standard
errors, and central differences.
"""

import numpy as np
import pytest

from ensemble_lib.core.gaussian import (CovarianceFamily, ellipse_geometry, gauss_hermite,
                                              gaussian_entropy, kl_gaussians)


def random_spd(rng, k, scale=1.0):
    A = rng.standard_normal((k, k))
    return scale * (A @ A.T + 0.5 * np.eye(k))


@pytest.mark.parametrize("n", [5, 20, 96])
def test_gauss_hermite_integrates_normal_moments_exactly(n):
    z, p = gauss_hermite(n)
    # E[z^(2j)] = (2j-1)!! for z ~ N(0,1); exact up to degree 2n-1
    for j in range(0, n):
        deg = 2 * j
        if deg > 2 * n - 1:
            break
        exact = float(np.prod(np.arange(deg - 1, 0, -2, dtype=float))) if deg else 1.0
        assert p @ z**deg == pytest.approx(exact, rel=1e-9)
        assert abs(p @ z ** (deg + 1)) < 1e-8 * max(1.0, exact)


def test_gauss_hermite_matches_closed_form_for_smooth_function():
    # E[cos(a z)] = exp(-a²/2) for z ~ N(0, 1)
    z, p = gauss_hermite(60)
    for a in (0.3, 1.0, 3.0):
        assert p @ np.cos(a * z) == pytest.approx(np.exp(-0.5 * a * a), abs=1e-12)


def test_entropy_matches_monte_carlo():
    rng = np.random.default_rng(1)
    C = random_spd(rng, 3)
    L = np.linalg.cholesky(C)
    w = rng.standard_normal((400_000, 3)) @ L.T
    logq = -0.5 * np.sum(np.linalg.solve(L, w.T) ** 2, axis=0) - np.sum(np.log(np.diag(L))) - 1.5 * np.log(2 * np.pi)
    mc, se = -logq.mean(), logq.std() / np.sqrt(logq.size)
    assert abs(gaussian_entropy(C) - mc) < 4 * se


def test_kl_gaussians_matches_monte_carlo_and_is_zero_on_itself():
    rng = np.random.default_rng(2)
    k = 2
    m0, m1 = rng.standard_normal(k), rng.standard_normal(k)
    C0, C1 = random_spd(rng, k, 0.5), random_spd(rng, k)
    assert kl_gaussians(m0, C0, m0, C0) == pytest.approx(0.0, abs=1e-12)

    def logpdf(w, m, C):
        L = np.linalg.cholesky(C)
        r = np.linalg.solve(L, (w - m).T)
        return -0.5 * np.sum(r * r, axis=0) - np.sum(np.log(np.diag(L))) - 0.5 * k * np.log(2 * np.pi)

    w = m0 + rng.standard_normal((400_000, k)) @ np.linalg.cholesky(C0).T
    d = logpdf(w, m0, C0) - logpdf(w, m1, C1)
    assert abs(kl_gaussians(m0, C0, m1, C1) - d.mean()) < 4 * d.std() / np.sqrt(d.size)


def test_ellipse_geometry_axes_are_eigen_directions():
    C = np.array([[4.0, 0.0], [0.0, 1.0]])
    w, h, ang = ellipse_geometry(C, 2.0)
    assert (w, h) == pytest.approx((8.0, 4.0))
    assert ang % 180 == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("family,rank", [("full", None), ("diagonal", None), ("factor", 0), ("factor", 1),
                                         ("factor", 2)])
def test_pack_unpack_round_trip(family, rank):
    rng = np.random.default_rng(3)
    k = 3
    fam = CovarianceFamily.make(family, k, rank)
    theta = rng.standard_normal(fam.n_params) * 0.3
    mean, cov = fam.unpack(theta)
    assert np.all(np.linalg.eigvalsh(cov) > 0)
    if family in ("full",) or (family == "diagonal"):
        m2, c2 = fam.unpack(fam.pack(mean, cov))
        np.testing.assert_allclose(m2, mean, atol=1e-12)
        np.testing.assert_allclose(c2, cov, atol=1e-12)


@pytest.mark.parametrize("family,rank", [("full", None), ("diagonal", None), ("factor", 1), ("factor", 2)])
def test_chain_rule_matches_central_differences(family, rank):
    """f(m, C) = Σ sin(m) + Tr(B C) + ½ ln|C|: ∂f/∂m = cos m, ∂f/∂C = B + ½ C⁻¹."""
    rng = np.random.default_rng(4)
    k = 3
    B = rng.standard_normal((k, k))
    B = B + B.T
    fam = CovarianceFamily.make(family, k, rank)

    def f(theta):
        m, C = fam.unpack(theta)
        return np.sum(np.sin(m)) + np.sum(B * C) + 0.5 * np.linalg.slogdet(C)[1]

    theta = rng.standard_normal(fam.n_params) * 0.4
    m, C = fam.unpack(theta)
    g = fam.chain(theta, np.cos(m), B + 0.5 * np.linalg.inv(C))
    eps = 1e-6
    num = np.array([(f(theta + eps * e) - f(theta - eps * e)) / (2 * eps) for e in np.eye(theta.size)])
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


def test_family_arguments_are_checked():
    with pytest.raises(ValueError, match="family"):
        CovarianceFamily.make("banded", 2)
    with pytest.raises(ValueError, match="rank"):
        CovarianceFamily.make("factor", 2, rank=2)
    with pytest.raises(ValueError, match="rank"):
        CovarianceFamily.make("factor", 3, rank=-1)
    with pytest.raises(ValueError, match="n"):
        gauss_hermite(0)
