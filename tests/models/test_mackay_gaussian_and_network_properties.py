"""Property-based tests (hypothesis) of two models over their documented input domains.

* MacKay's Gaussian (``models/mackay_gaussian.py``; MacKay 1995, §2–3): for any data
  (N ≥ 2 finite points, not all equal) and any start β̄₀ > 0, σ_N and σ_{N−1} are numpy's
  ``std`` with ddof 0 and 1, the evidence for σ (14) peaks at σ_{N−1}, the ensemble's 1/β̄
  reaches S/(N−1) (19), KL(Q‖P) ≥ 0 by an independent quadrature (scipy entropies, a
  Gauss–Hermite × scipy ``gamma.expect`` expectation of the log likelihood, and ln P(D) by
  ``scipy.integrate.quad``), so −F ≤ ln P(D), and F (17) matches Monte Carlo.
* The erf network's ⟨E_D⟩ (``models/network.py``, B&B (20)–(24)): for any shape (H, d, N),
  mean and positive definite covariance, it matches Monte Carlo within 5 standard errors,
  its gradients match central differences, it is ≥ ½Σ(⟨f⟩ − t)² (Jensen, with ⟨f⟩ from the
  closed form (49)), and it is finite and non-negative with finite gradients even for
  extreme weights and covariances.

Derandomised (tests/conftest.py's profile, restated here) with few examples each, so the file
runs in a few seconds; every Monte Carlo draw uses a numpy Generator with an explicit seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from ensemble_lib.models.mackay_gaussian import MacKayGaussian
from ensemble_lib.models.network import NetworkPosterior, expected_data_error, network_output, predictive_mean

FAST = settings(derandomize=True, deadline=None, database=None, max_examples=25)

# ---------------------------------------------------------------------------
# MacKay's Gaussian: data of 2 to 30 finite points, not all equal; starts β̄₀ > 0
# ---------------------------------------------------------------------------

data_sets = st.lists(st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False), min_size=2, max_size=30) \
    .map(np.array).filter(lambda x: np.ptp(x) > 1e-2)
starts = st.floats(1e-3, 1e3)


def _log_evidence_by_quadrature(N, S):
    """ln ∫∫ P(D|μ, σ) (1/σ) dμ dσ with μ integrated in closed form and σ by scipy quad over ln σ."""
    def log_g(u):  # ln[∫ P(D|μ, σ) dμ] with σ = e^u; the prior 1/σ dσ is du
        return (-0.5 * N * (math.log(2 * math.pi) + 2 * u) - 0.5 * S * math.exp(-2 * u)
                + 0.5 * (math.log(2 * math.pi / N) + 2 * u))

    u0 = 0.5 * math.log(S / (N - 1))  # the peak of log_g; it falls as e^{-(N-1)(u-u0)} above, faster below
    top = log_g(u0)
    val, _ = integrate.quad(lambda u: math.exp(log_g(u) - top), u0 - 10, u0 + 60, points=[u0], epsabs=0,
                            epsrel=1e-12, limit=200)
    return top + math.log(val)


def _kl_by_quadrature(g, it):
    """KL(Q‖P) = −H[Q_μ] − H[Q_β] − E_Q[ln P(D|μ, β) + ln P(μ, β)] + ln P(D), each term independently:
    scipy entropies, Gauss–Hermite over μ (exact: quadratic in μ) inside scipy's gamma.expect over β."""
    q_mu = stats.norm(it.m, math.sqrt(it.sigma_mu2))
    q_beta = stats.gamma(it.c, scale=it.b)
    z, wz = np.polynomial.hermite_e.hermegauss(8)
    wz = wz / wz.sum()
    mu = it.m + math.sqrt(it.sigma_mu2) * z
    x_sq = g.S + g.N * (mu - g.xbar) ** 2  # Σ(x_n − μ)² from the sufficient statistics

    def log_joint(beta):  # E over Q_μ of ln L(μ, β) + ln(½ β⁻¹), the prior 1/σ dσ in (μ, β)
        log_lik = 0.5 * g.N * math.log(beta / (2 * math.pi)) - 0.5 * beta * x_sq
        return float(wz @ log_lik) + math.log(0.5) - math.log(beta)

    e_log_joint = q_beta.expect(log_joint, epsabs=0, epsrel=1e-12, limit=200)
    return -q_mu.entropy() - q_beta.entropy() - e_log_joint + _log_evidence_by_quadrature(g.N, g.S)


@FAST
@given(x=data_sets)
def test_sigma_estimators_are_numpys_std_and_the_evidence_for_sigma_peaks_at_sigma_n_minus_1(x):
    g = MacKayGaussian.from_data(x)
    assert g.sigma_N == pytest.approx(np.std(x, ddof=0), rel=1e-9)
    assert g.sigma_N1 == pytest.approx(np.std(x, ddof=1), rel=1e-9)
    assert g.sigma_N < g.sigma_N1  # the ML estimate is biased low (MacKay Fig. 1)
    r = optimize.minimize_scalar(lambda u: -g.log_evidence_sigma(math.exp(u)),
                                 bracket=(math.log(g.sigma_N1) - 1, math.log(g.sigma_N1) + 1), tol=1e-12)
    assert math.exp(r.x) == pytest.approx(g.sigma_N1, rel=1e-6)


@FAST
@given(x=data_sets, beta0=starts)
def test_ensemble_fixed_point_is_sigma_n_minus_1_squared_for_any_data_and_start(x, beta0):
    g = MacKayGaussian.from_data(x)
    run = g.ensemble_iterations(beta0=beta0 / g.S, n_iter=80)  # the error contracts by 1/N ≤ 1/2 per sweep
    assert 1 / run[-1].beta_bar == pytest.approx(np.var(x, ddof=1), rel=1e-9)
    assert run[-1].sigma_mu2 == pytest.approx(np.var(x, ddof=1) / len(x), rel=1e-9)
    assert run[-1].m == pytest.approx(np.mean(x), rel=1e-12, abs=1e-12)


@FAST
@given(N=st.integers(2, 40), xbar=st.floats(-1e3, 1e3), S=st.floats(1e-3, 1e3), beta0=starts,
       n_iter=st.integers(0, 5))
def test_ensemble_kl_is_nonnegative_by_independent_quadrature_so_minus_f_bounds_the_evidence(
        N, xbar, S, beta0, n_iter):
    g = MacKayGaussian(N, xbar, S)
    it = g.ensemble_iterations(beta0=beta0 / S, n_iter=n_iter)[n_iter]
    log_ev = _log_evidence_by_quadrature(N, S)
    kl = _kl_by_quadrature(g, it)
    assert g.log_evidence == pytest.approx(log_ev, abs=1e-8 * max(1.0, abs(log_ev)))
    assert it.kl == pytest.approx(kl, abs=1e-7 * max(1.0, abs(log_ev)))
    assert kl >= -1e-9
    assert -it.free_energy <= log_ev + 1e-9 * max(1.0, abs(log_ev))


@settings(FAST, max_examples=8)
@given(x=data_sets, beta0=starts, seed=st.integers(0, 2**32 - 1))
def test_free_energy_matches_monte_carlo_within_five_standard_errors(x, beta0, seed):
    g = MacKayGaussian.from_data(x)
    it = g.ensemble_iterations(beta0=beta0 / g.S, n_iter=1)[1]
    rng = np.random.default_rng(seed)
    M = 20_000
    mu = rng.normal(it.m, math.sqrt(it.sigma_mu2), M)
    beta = rng.gamma(shape=it.c, scale=it.b, size=M)
    lnQ = stats.norm.logpdf(mu, it.m, math.sqrt(it.sigma_mu2)) + stats.gamma.logpdf(beta, a=it.c, scale=it.b)
    lnL = np.sum(stats.norm.logpdf(x[:, None], loc=mu, scale=beta**-0.5), axis=0)
    f = lnQ - lnL - (math.log(0.5) - np.log(beta))  # the prior 1/σ dσ = ½ β⁻¹ dβ
    se = f.std(ddof=1) / math.sqrt(M)
    assert abs(f.mean() - it.free_energy) < 5 * se


# ---------------------------------------------------------------------------
# The erf network's ⟨E_D⟩: H ≥ 1 hidden units, d inputs, N points, any mean, any SPD covariance
# ---------------------------------------------------------------------------

@st.composite
def network_problems(draw, mean_scale=(0.0, 2.0), cov_scale=(1e-3, 1.0)):
    """(post, mean, cov) with shapes drawn by hypothesis and entries from a seeded Generator."""
    H, d, N = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    m_scale = draw(st.floats(*mean_scale))
    c_scale = draw(st.floats(*cov_scale))
    rho = draw(st.floats(0.0, 0.95))  # how far from diagonal C is
    rng = np.random.default_rng(seed)
    X, t = rng.normal(size=(N, d)) * 1.5, rng.normal(size=N)
    k = H * d + H
    mean = m_scale * rng.normal(size=k)
    A = rng.normal(size=(k, k)) / math.sqrt(k)
    B = rho * A @ A.T + (1 - rho) * np.diag(rng.uniform(0.2, 1.0, k))
    cov = c_scale * (B + B.T) / 2
    return NetworkPosterior(X, t, H, alpha=1.0, beta=1.0), mean, cov


@settings(FAST, max_examples=10)
@given(problem=network_problems(), seed=st.integers(0, 2**32 - 1))
def test_expected_data_error_matches_monte_carlo_within_five_standard_errors(problem, seed):
    post, mean, cov = problem
    rng = np.random.default_rng(seed)
    W = rng.multivariate_normal(mean, cov, size=20_000)
    e = post.data_error(W)
    se = e.std(ddof=1) / math.sqrt(e.size)
    value = expected_data_error(mean, cov, post.X, post.t, post.n_hidden)
    assert abs(value - e.mean()) < 5 * se + 1e-12
    assert post.expected_data_error(mean, cov).value == pytest.approx(value, rel=1e-12, abs=1e-12)


@settings(FAST, max_examples=8)
@given(problem=network_problems())
def test_expected_data_error_gradients_match_central_differences(problem):
    post, mean, cov = problem
    ex = post.expected_data_error(mean, cov)
    f = lambda m, c: post.expected_data_error(m, c).value  # noqa: E731
    scale = max(1.0, abs(ex.value))
    eps = 1e-5
    k = mean.size
    for i in range(k):
        e = np.zeros(k)
        e[i] = eps
        num = (f(mean + e, cov) - f(mean - e, cov)) / (2 * eps)
        assert ex.d_mean[i] == pytest.approx(num, rel=1e-5, abs=1e-6 * scale)
    eps_c = 1e-5 * float(np.min(np.linalg.eigvalsh(cov)))  # keeps C ± eps dC positive definite
    for i, j in [(0, 0), (k - 1, k - 1), (0, k - 1)] if k > 1 else [(0, 0)]:
        dC = np.zeros((k, k))
        dC[i, j] = dC[j, i] = 1.0
        num = (f(mean, cov + eps_c * dC) - f(mean, cov - eps_c * dC)) / (2 * eps_c)
        assert np.sum(ex.d_cov * dC) == pytest.approx(num, rel=1e-4, abs=1e-6 * scale + 1e-13 * scale / eps_c)


@FAST
@given(problem=network_problems())
def test_expected_data_error_is_at_least_the_error_of_the_mean_prediction(problem):
    """Jensen: ⟨(f − t)²⟩ ≥ (⟨f⟩ − t)², with ⟨f⟩ from the closed form (49)."""
    post, mean, cov = problem
    f1 = predictive_mean(mean, cov, post.X, post.n_hidden)
    value = post.expected_data_error(mean, cov).value
    assert value >= 0.5 * np.sum((f1 - post.t) ** 2) - 1e-10 * max(1.0, value)


@FAST
@given(problem=network_problems(mean_scale=(0.0, 50.0), cov_scale=(1e-10, 1e3)))
def test_expected_data_error_and_gradients_are_finite_and_nonnegative_at_extremes(problem):
    post, mean, cov = problem
    ex = post.expected_data_error(mean, cov)
    assert np.isfinite(ex.value) and ex.value >= 0
    assert np.all(np.isfinite(ex.d_mean)) and np.all(np.isfinite(ex.d_cov))
    # a near-point-mass Q gives back E_D at its mean
    if np.max(np.linalg.eigvalsh(cov)) < 1e-8:
        r = network_output(mean, post.X, post.n_hidden) - post.t
        assert ex.value == pytest.approx(0.5 * r @ r, rel=1e-3, abs=1e-6)
