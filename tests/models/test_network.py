"""Tests of the erf network and its expected error under a Gaussian Q (Barber & Bishop §2.1, App. A).

Every formula is checked against something independent: an explicit loop
over hidden units, Monte Carlo with its standard error, the toy posterior's
own 1-D quadrature, the paper's eq. (50) integrated by scipy, scipy's
bivariate normal c.d.f., and central differences for every gradient.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import erf

from ensemble_lib.models import network as nw
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_fit, kl_objective
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.models.toy import ToyPosterior


def sig(a):
    return erf(np.asarray(a) / np.sqrt(2.0))


def random_problem(rng, H, d, N, scale=1.0):
    """Random inputs (last column a bias), targets, a mean and a full covariance of Q."""
    X = rng.normal(size=(N, d))
    if d > 1:
        X[:, -1] = 1.0
    t = rng.normal(size=N)
    k = H * d + H
    mean = np.concatenate([rng.normal(size=H * d) / np.sqrt(d), 1.5 * rng.normal(size=H)])
    A = rng.normal(size=(k, k)) / np.sqrt(k)
    D = np.diag(np.concatenate([np.full(H * d, scale / np.sqrt(d)), np.full(H, 0.6)]))
    cov = D @ (A @ A.T + 0.3 * np.eye(k)) @ D
    return X, t, mean, 0.5 * (cov + cov.T)


def explicit_output(w, X, H):
    """f(x, w) = Σ_i v_i σ(u_iᵀx) by an explicit loop over units and points."""
    N, d = X.shape
    out = np.zeros(N)
    for n in range(N):
        for i in range(H):
            u_i = w[i * d:(i + 1) * d]
            out[n] += w[H * d + i] * sig(u_i @ X[n])
    return out


def central_grad(fun, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (fun(x + e) - fun(x - e)) / (2 * eps)
    return g


def central_cov_grad(fun, cov, eps=1e-6):
    """Symmetric G with df = Σ G_ij dC_ij, by perturbing C_ij and C_ji together."""
    k = cov.shape[0]
    G = np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            E = np.zeros((k, k))
            E[i, j] = E[j, i] = eps
            dd = (fun(cov + E) - fun(cov - E)) / (2 * eps)
            G[i, j] = G[j, i] = dd if i == j else 0.5 * dd
    return G


def rel_err(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


# ---------------------------------------------------------------------------
# the network (eq. 1) and its packing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("H,d", [(1, 1), (2, 3), (4, 14)])
def test_network_output_matches_explicit_loop(H, d):
    rng = np.random.default_rng(10 + H + d)
    X = rng.normal(size=(7, d))
    k = nw.n_weights(d, H)
    assert k == H * d + H
    W = rng.normal(size=(3, k))
    out = nw.network_output(W, X, H)
    assert out.shape == (3, 7)
    for s in range(3):
        np.testing.assert_allclose(out[s], explicit_output(W[s], X, H), rtol=1e-13, atol=1e-14)


def test_packing_round_trip_and_bias_column():
    rng = np.random.default_rng(1)
    U, v = rng.normal(size=(3, 5)), rng.normal(size=3)
    w = nw.pack_weights(U, v)
    assert w.shape == (18,)
    np.testing.assert_array_equal(w[:5], U[0])  # u_1 first, then u_2, …, then v
    np.testing.assert_array_equal(w[-3:], v)
    U2, v2 = nw.unpack_weights(w, 3)
    np.testing.assert_array_equal(U2, U)
    np.testing.assert_array_equal(v2, v)
    Xb = nw.add_bias(rng.normal(size=(4, 2)))
    assert Xb.shape == (4, 3) and np.all(Xb[:, -1] == 1.0)


def test_jacobian_matches_central_differences():
    rng = np.random.default_rng(2)
    H, d = 3, 4
    X = rng.normal(size=(6, d))
    w = rng.normal(size=H * d + H)
    J = nw.network_jacobian(w, X, H)
    Jfd = np.stack([central_grad(lambda ww: nw.network_output(ww, X, H)[n], w) for n in range(6)])
    assert rel_err(J, Jfd) < 1e-8


@pytest.mark.parametrize("H,d", [(1, 1), (2, 3), (3, 2)])
def test_data_error_gradient_and_exact_hessian(H, d):
    rng = np.random.default_rng(3 + H)
    X, t, mean, _ = random_problem(rng, H, d, 9)
    post = nw.NetworkPosterior(X, t, H, alpha=0.7, beta=3.0)
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
# the reduced 2-D integral Ψ = ⟨σ(a_1)σ(a_2)⟩
# ---------------------------------------------------------------------------


def psi_paper_eq50(m1, m2, S11, S12, S22):
    """The paper's eq. (50): whiten (a_1, a_2), integrate one direction by (49), the other by quad."""
    # a_1 = m1 + ℓ z, a_2 = m2 + κ z + τ z2 with z, z2 ~ N(0, 1)
    ell = np.sqrt(S11)
    kappa = S12 / ell
    tau2 = S22 - kappa**2
    f = lambda z: (  # noqa: E731
        np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
        * sig(m1 + ell * z) * sig((m2 + kappa * z) / np.sqrt(1.0 + tau2))
    )
    val, _ = integrate.quad(f, -40, 40, points=[-m1 / ell], epsabs=1e-14, epsrel=1e-13, limit=400)
    return val


def psi_scipy_mvn(m1, m2, S11, S12, S22):
    """⟨σσ⟩ = 4Φ₂(h, k; ρ) − 2Φ(h) − 2Φ(k) + 1 with scipy's bivariate normal c.d.f."""
    l1, l2 = np.sqrt(1 + S11), np.sqrt(1 + S22)
    h, k, rho = m1 / l1, m2 / l2, S12 / (l1 * l2)
    P = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([h, k])
    return 4 * P - 2 * stats.norm.cdf(h) - 2 * stats.norm.cdf(k) + 1


PSI_CASES = [
    (0.3, -0.5, 1.0, 0.5, 2.0),
    (1.0, 2.0, 100.0, 90.0, 100.0),
    (2.0, -3.0, 50.0, -49.9, 50.0),
    (0.1, 3.0, 400.0, 399.0, 400.0),
    (-0.7, 0.4, 0.05, -0.01, 3.0),
    (1.5, 1.5, 2.0, 2.0, 2.0),  # a_1 = a_2 (the i = j terms)
]


@pytest.mark.parametrize("case", PSI_CASES)
def test_psi_agrees_with_paper_eq50_and_bivariate_normal_cdf(case):
    D = nw._psi_derivatives(*[np.array([c]) for c in case], max_order=0, n_quad=48)
    val = float(D[(0, 0)][0])
    if case[2] * case[4] - case[3] ** 2 > 1e-9:  # eq. (50) needs a non-degenerate pair
        assert val == pytest.approx(psi_paper_eq50(*case), abs=1e-10)
    assert val == pytest.approx(psi_scipy_mvn(*case), abs=1e-6)  # scipy's c.d.f. is ~1e-7


@pytest.mark.parametrize("case", PSI_CASES)
def test_psi_mean_derivatives_and_heat_equation(case):
    """∂^p_m1 ∂^q_m2 Ψ (p + q ≤ 4) by central differences; ∂Ψ/∂S = ½∇∇Ψ (Price's theorem)."""
    args = [np.array([c]) for c in case]
    D = nw._psi_derivatives(*args, max_order=4, n_quad=48)
    eps = 1e-4

    def shifted(d1, d2, order):
        a = list(args)
        a[0], a[1] = a[0] + d1, a[1] + d2
        return nw._psi_derivatives(*a, max_order=order, n_quad=48)

    for (p, q), val in D.items():
        if p + q == 0:
            continue
        if p > 0:
            plus, minus = shifted(eps, 0, 3), shifted(-eps, 0, 3)
            fd = (plus[(p - 1, q)] - minus[(p - 1, q)]) / (2 * eps)
        else:
            plus, minus = shifted(0, eps, 3), shifted(0, -eps, 3)
            fd = (plus[(p, q - 1)] - minus[(p, q - 1)]) / (2 * eps)
        assert float(val[0]) == pytest.approx(float(fd[0]), rel=1e-6, abs=1e-8)
    # heat equation: derivatives w.r.t. the covariance entries
    m1, m2, S11, S12, S22 = case
    h = 1e-5
    psi = lambda *a: float(nw._psi_derivatives(*[np.array([x]) for x in a], 0, 48)[(0, 0)][0])  # noqa: E731
    d_s11 = (psi(m1, m2, S11 + h, S12, S22) - psi(m1, m2, S11 - h, S12, S22)) / (2 * h)
    d_s22 = (psi(m1, m2, S11, S12, S22 + h) - psi(m1, m2, S11, S12, S22 - h)) / (2 * h)
    if case[2] * case[4] - case[3] ** 2 > 1e-9:
        d_s12 = (psi(m1, m2, S11, S12 + h, S22) - psi(m1, m2, S11, S12 - h, S22)) / (2 * h)
        assert d_s12 == pytest.approx(float(D[(1, 1)][0]), rel=1e-6, abs=1e-9)
    assert d_s11 == pytest.approx(0.5 * float(D[(2, 0)][0]), rel=1e-6, abs=1e-9)
    assert d_s22 == pytest.approx(0.5 * float(D[(0, 2)][0]), rel=1e-6, abs=1e-9)


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
        f = nw.network_output(W, X, H)
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
    f1, f2 = nw.output_moments(mean, cov, X, H)
    ed = nw.expected_data_error(mean, cov, X, t, H)
    mf, se_f, mf2, se_f2, me, se_e = monte_carlo(mean, cov, X, t, H, rng)
    assert np.all(np.abs(f1 - mf) < 4 * se_f), (f1, mf, se_f)
    assert np.all(np.abs(f2 - mf2) < 4 * se_f2), (f2, mf2, se_f2)
    assert abs(ed - me) < 4 * se_e, (ed, me, se_e)
    # the closed-form predictive mean is the same ⟨f⟩, and the variance is ⟨f²⟩ − ⟨f⟩²
    np.testing.assert_allclose(nw.predictive_mean(mean, cov, X, H), f1, rtol=1e-12, atol=1e-14)
    var = nw.predictive_variance(mean, cov, X, H)
    np.testing.assert_allclose(var, f2 - f1**2, rtol=1e-10, atol=1e-13)
    # with a noise precision β the predictive variance gains exactly 1/β
    np.testing.assert_allclose(
        nw.predictive_variance(mean, cov, X, H, beta=4.0), var + 0.25, rtol=1e-12
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
    f1, f2 = nw.output_moments(mean, cov, x[None, :], H)
    assert f1[0] == pytest.approx(ref[0], abs=1e-8)
    assert f2[0] == pytest.approx(ref[1], abs=1e-8)
    t = np.array([0.4])
    ed = nw.expected_data_error(mean, cov, x[None, :], t, H)
    assert ed == pytest.approx(0.5 * (ref[1] - 2 * t[0] * ref[0] + t[0] ** 2), abs=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_single_unit_agrees_with_toy_quadrature(seed):
    """H = 1, d = 1, no bias: the toy of §2.1, whose ⟨E_D⟩ is a separate 1-D Gauss–Hermite rule."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, 6)
    t = -2.5 * sig(-0.13 * x) + 0.1 * rng.normal(size=6)
    toy = ToyPosterior(x, t, alpha=1.0, beta=100.0, n_quad=150)
    net = nw.NetworkPosterior(x[:, None], t, 1, alpha=1.0, beta=100.0)
    mean = rng.normal(size=2)
    A = rng.normal(size=(2, 2)) * 0.6
    cov = A @ A.T + 0.05 * np.eye(2)
    a, b = toy.expected_data_error(mean, cov), net.expected_data_error(mean, cov)
    assert b.value == pytest.approx(a.value, abs=1e-8)
    np.testing.assert_allclose(b.d_mean, a.d_mean, atol=1e-8)
    np.testing.assert_allclose(b.d_cov, a.d_cov, atol=1e-8)
    assert nw.expected_data_error(mean, cov, x[:, None], t, 1) == pytest.approx(a.value, abs=1e-8)
    assert net.bound(mean, cov) == pytest.approx(toy.bound(mean, cov), abs=1e-8)


def test_small_covariance_limit_is_taylor_expansion_with_exact_hessian():
    """⟨E_D⟩ = E_D(w̄) + ½Tr(C∇∇E_D) + O(‖C‖²) and ∂⟨E_D⟩/∂C → ½∇∇E_D as C → 0."""
    rng = np.random.default_rng(7)
    H, d = 3, 3
    X, t, mean, cov = random_problem(rng, H, d, 6)
    post = nw.NetworkPosterior(X, t, H, 1.0, 1.0)
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
    post = nw.NetworkPosterior(X, t, H, 1.0, 1.0)
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
    post = nw.NetworkPosterior(X, t, H, alpha=0.5, beta=2.0)
    fam = CovarianceFamily.make(family, post.dim, rank)
    theta = fam.pack(mean, cov) + 0.01 * rng.normal(size=fam.n_params)
    f, g = kl_objective(post, fam, theta)
    assert np.isfinite(f)
    g_fd = central_grad(lambda th: kl_objective(post, fam, th)[0], theta)
    assert rel_err(g, g_fd) < 1e-6


# ---------------------------------------------------------------------------
# fits with the three covariance families (eq. 26)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_fit_problem():
    rng = np.random.default_rng(11)
    x = np.linspace(-2, 2, 10)
    t = np.sin(1.3 * x) + 0.1 * rng.normal(size=x.size)
    X = nw.add_bias(x[:, None])
    post = nw.NetworkPosterior(X, t, 2, alpha=1.0, beta=25.0)
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
        nw.network_output(w, X, 0)
    with pytest.raises(ValueError, match="n_hidden"):
        nw.NetworkPosterior(X, t, 0, 1.0, 1.0)
    with pytest.raises(ValueError, match="n_hidden"):
        nw.network_output(w, X, 2.5)
    with pytest.raises(ValueError, match="X must be a 2-D"):
        nw.network_output(w, X[:, 0], 2)
    with pytest.raises(ValueError, match="w must have last dimension"):
        nw.network_output(w[:-1], X, 2)
    Xbad = X.copy()
    Xbad[1, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        nw.NetworkPosterior(Xbad, t, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        nw.network_output(w, np.where(X > 0, np.inf, X), 2)
    with pytest.raises(ValueError, match="t must"):
        nw.NetworkPosterior(X, t[:-1], 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        nw.expected_data_error(w, cov, X, np.full(5, np.nan), 2)
    with pytest.raises(ValueError, match="alpha"):
        nw.NetworkPosterior(X, t, 2, -1.0, 1.0)
    with pytest.raises(ValueError, match="cov must have shape"):
        nw.expected_data_error(w, np.eye(5), X, t, 2)
    with pytest.raises(ValueError, match="positive definite"):
        nw.expected_data_error(w, -np.eye(6), X, t, 2)
    with pytest.raises(ValueError, match="mean must have shape"):
        nw.predictive_mean(w[:4], cov, X, 2)
    with pytest.raises(ValueError, match="n_quad"):
        nw.expected_data_error(w, cov, X, t, 2, n_quad=2)
    with pytest.raises(ValueError, match="beta"):
        nw.predictive_variance(w, cov, X, 2, beta=0.0)
    post = nw.NetworkPosterior(X, t, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="mean must have shape"):
        post.expected_data_error(w[:5], cov)
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=post.dim, init=[(w, cov)])
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=-1, init=[(w, cov)])
