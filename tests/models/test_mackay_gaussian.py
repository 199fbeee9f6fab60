"""MacKay (1995) §2–3: every formula against an independent reference.

References used: numpy's std (ddof 0/1); scipy.stats.norm log densities of
the raw data; brute-force quadrature (scipy.integrate.quad, fine trapezoid
grids) of the likelihood times the prior; numerical optimisation
(scipy.optimize); Monte Carlo with its standard error.
"""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from ensemble_lib.models.mackay_gaussian import (FIG1, MAX_ITER, MacKayGaussian,
                                                  gaussian_log_likelihood)


def _data(rng, n, mu=0.7, sd=1.3):
    return rng.normal(mu, sd, size=n)


def _raw_loglik(x, mu, sigma):
    """Σ_n ln Normal(x_n; μ, σ²) by scipy, broadcast over mu and sigma grids."""
    mu, sigma = np.broadcast_arrays(np.asarray(mu, float), np.asarray(sigma, float))
    out = np.zeros(mu.shape)
    for xn in x:
        out += stats.norm.logpdf(xn, loc=mu, scale=sigma)
    return out


def _ll(x, mu, s):
    """Scalar eq. (6) straight from the raw points (fast inside scalar quadrature);
    checked against scipy in test_eq6_eq7_and_scipy_agree."""
    return -len(x) * math.log(math.sqrt(2 * math.pi) * s) - sum((xn - mu) ** 2 for xn in x) / (2 * s * s)


# ---------------------------------------------------------------------------
# Estimators and likelihood, eqs (4)-(7)
# ---------------------------------------------------------------------------

def test_sufficient_statistics_and_estimators_match_numpy():
    rng = np.random.default_rng(1)
    x = _data(rng, 9)
    g = MacKayGaussian.from_data(x)
    assert g.N == 9
    assert g.xbar == pytest.approx(np.mean(x), rel=1e-14)
    assert g.sigma_N == pytest.approx(np.std(x, ddof=0), rel=1e-13)
    assert g.sigma_N1 == pytest.approx(np.std(x, ddof=1), rel=1e-13)


def test_fig1_estimators_are_the_captions_values():
    # caption: sigma_N = 0.45, sigma_{N-1} = 0.50 for N = 5, S = 1 (its "S^2" is a typo for S)
    assert round(FIG1.sigma_N, 2) == 0.45
    assert round(FIG1.sigma_N1, 2) == 0.50
    assert FIG1.sigma_N == pytest.approx(1 / math.sqrt(5), rel=1e-15)


def test_eq6_eq7_and_scipy_agree():
    rng = np.random.default_rng(2)
    x = _data(rng, 7)
    g = MacKayGaussian.from_data(x)
    mu = rng.normal(0.5, 1.0, size=20)
    sigma = rng.uniform(0.2, 3.0, size=20)
    ref = _raw_loglik(x, mu, sigma)
    np.testing.assert_allclose([_ll(list(x), a, b) for a, b in zip(mu, sigma)], ref, rtol=1e-12)
    np.testing.assert_allclose(gaussian_log_likelihood(x, mu, sigma), ref, rtol=1e-12)
    np.testing.assert_allclose(g.log_likelihood(mu, sigma), ref, rtol=1e-12)


def test_maximum_likelihood_is_xbar_sigma_N():
    g = MacKayGaussian(6, -0.4, 2.3)
    res = optimize.minimize(lambda p: -g.log_likelihood(p[0], math.exp(p[1])), [0.0, 0.0],
                            method="Nelder-Mead", options={"xatol": 1e-11, "fatol": 1e-14, "maxiter": 5000})
    assert res.x[0] == pytest.approx(g.xbar, abs=1e-7)
    assert math.exp(res.x[1]) == pytest.approx(g.sigma_N, rel=1e-7)


# ---------------------------------------------------------------------------
# Evidence and normalisation, eqs (8)-(9), (13)-(14)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed,n", [(3, 5), (4, 2), (5, 12)])
def test_log_evidence_matches_brute_force_double_quadrature(seed, n):
    x = _data(np.random.default_rng(seed), n)
    g = MacKayGaussian.from_data(x)
    # P(D) = ∫∫ L(mu, sigma) (1/sigma) dmu dsigma = ∫∫ L dmu d(ln sigma); scale out the peak
    x = list(x)
    top = _ll(x, g.xbar, g.sigma_N)

    def inner(u):
        s = math.exp(u)
        f = lambda mu: math.exp(_ll(x, mu, s) - top)
        return integrate.quad(f, g.xbar - 40 * s, g.xbar + 40 * s, points=[g.xbar],
                              epsabs=0, epsrel=1e-11)[0]

    # ln sigma from far below sigma_N (e^{-S/2sigma^2} kills it) to where the e^{-(N-1)u} tail is < 1e-15
    u0 = math.log(g.sigma_N)
    val, err = integrate.quad(inner, u0 - 6, u0 + 36 / (n - 1), epsabs=0, epsrel=1e-10, limit=400)
    assert g.log_evidence == pytest.approx(top + math.log(val), abs=1e-7)


def test_evidence_for_sigma_eq14_is_the_mu_integral_of_the_likelihood():
    x = _data(np.random.default_rng(6), 5)
    g = MacKayGaussian.from_data(x)
    for s in (0.3, 0.8, 1.3, 4.0):
        f = lambda mu: math.exp(float(_raw_loglik(x, mu, s)) - float(_raw_loglik(x, g.xbar, s)))
        val = integrate.quad(f, -np.inf, np.inf, epsrel=1e-12)[0]
        ref = float(_raw_loglik(x, g.xbar, s)) + math.log(val)
        assert g.log_evidence_sigma(s) == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("N,S", [(5, 1.0), (2, 0.3), (17, 40.0)])
def test_evidence_maximiser_is_sigma_N1_and_likelihood_maximiser_is_sigma_N(N, S):
    g = MacKayGaussian(N, 0.2, S)
    r = optimize.minimize_scalar(lambda u: -g.log_evidence_sigma(math.exp(u)),
                                 bracket=(math.log(g.sigma_N1) - 1, math.log(g.sigma_N1) + 1),
                                 method="brent", tol=1e-13)
    assert math.exp(r.x) == pytest.approx(g.sigma_N1, rel=1e-8)
    r2 = optimize.minimize_scalar(lambda u: -g.log_likelihood(g.xbar, math.exp(u)),
                                  bracket=(-1.0, 1.0), method="brent", tol=1e-13)
    assert math.exp(r2.x) == pytest.approx(g.sigma_N, rel=1e-8)


def test_log_posterior_integrates_to_one_and_marginal_sigma_is_its_projection():
    g = MacKayGaussian(4, 1.5, 2.0)
    # the sigma-marginal (13) integrates to 1 ...
    tot = integrate.quad(lambda s: math.exp(g.log_marginal_sigma(s)), 0, np.inf, epsrel=1e-11)[0]
    assert tot == pytest.approx(1.0, abs=1e-9)
    # ... and equals the mu-integral of the joint (8)-(9) at several sigma
    for s in (0.4, 0.9, 2.5):
        proj = integrate.quad(lambda mu: math.exp(g.log_posterior(mu, s)), -np.inf, np.inf, epsrel=1e-12)[0]
        assert math.exp(g.log_marginal_sigma(s)) == pytest.approx(proj, rel=1e-9)


def test_conditional_of_mu_given_sigma_is_normal_xbar_sigma2_over_N():
    x = _data(np.random.default_rng(7), 6)
    g = MacKayGaussian.from_data(x)
    s = 0.9
    w = lambda mu: math.exp(float(_raw_loglik(x, mu, s) - _raw_loglik(x, g.xbar, s)))
    Z = integrate.quad(w, -np.inf, np.inf, epsrel=1e-12)[0]
    mean = integrate.quad(lambda mu: mu * w(mu), -np.inf, np.inf, epsrel=1e-12)[0] / Z
    var = integrate.quad(lambda mu: (mu - mean) ** 2 * w(mu), -np.inf, np.inf, epsrel=1e-12)[0] / Z
    cond = g.conditional_mu(s)
    assert cond.mean() == pytest.approx(mean, abs=1e-10)
    assert cond.var() == pytest.approx(var, rel=1e-9)
    assert var == pytest.approx(s**2 / g.N, rel=1e-9)


# ---------------------------------------------------------------------------
# Student-t marginal (16) and the grid
# ---------------------------------------------------------------------------

def test_student_t_marginal_is_normalised_proportional_to_eq16_and_the_sigma_integral_of_the_joint():
    g = MacKayGaussian(5, 1.0, 1.0)
    t = g.marginal_mu()
    assert integrate.quad(t.pdf, -np.inf, np.inf, epsrel=1e-12)[0] == pytest.approx(1.0, abs=1e-10)
    mus = np.array([-0.5, 0.3, 1.0, 1.4, 3.0])
    # eq. (16): proportional to (N(mu - xbar)^2 + S)^(-N/2)
    ratio = t.pdf(mus) * (g.N * (mus - g.xbar) ** 2 + g.S) ** (g.N / 2)
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
    for mu in mus:
        proj = integrate.quad(lambda s: math.exp(g.log_posterior(mu, s)), 0, np.inf, epsrel=1e-12)[0]
        assert t.pdf(mu) == pytest.approx(proj, rel=1e-9)


@pytest.mark.parametrize("N,xbar,S", [(5, 1.0, 1.0), (10, -2.0, 7.0)])
def test_grid_normaliser_and_marginals_match_the_closed_forms(N, xbar, S):
    g = MacKayGaussian(N, xbar, S)
    grid = g.posterior_grid(n_mu=601, n_log_sigma=601)
    assert grid.log_Z == pytest.approx(g.log_evidence, abs=1e-5)
    assert np.trapezoid(np.trapezoid(np.exp(grid.log_density), grid.mu, axis=1), grid.log_sigma) \
        == pytest.approx(1.0, abs=1e-12)
    # mu-marginal on the grid vs the normalised Student t (16)
    np.testing.assert_allclose(grid.marginal_mu(), g.marginal_mu().pdf(grid.mu), atol=1e-4 * g.marginal_mu().pdf(xbar))
    # ln sigma-marginal: density sigma * p(sigma | D); and via beta ~ Gamma((N-1)/2, rate S/2)
    s = grid.sigma
    closed = s * np.exp(g.log_marginal_sigma(s))
    np.testing.assert_allclose(grid.marginal_log_sigma(), closed, atol=1e-4 * closed.max())
    beta_side = stats.gamma(a=(N - 1) / 2, scale=2 / S).pdf(s**-2) * 2 * s**-2
    np.testing.assert_allclose(closed, beta_side, rtol=1e-10, atol=1e-300)


# ---------------------------------------------------------------------------
# The separable ensemble, section 3
# ---------------------------------------------------------------------------

def _kl_by_quadrature(x, it):
    """KL(Q‖P) on a fine (mu, ln sigma) grid; P normalised by its own quadrature, Q from scipy."""
    xbar = np.mean(x)
    mu = np.linspace(xbar - 12, xbar + 12, 1601)
    u = np.linspace(-4.0, 4.0, 1601)
    MU, U = np.meshgrid(mu, u)
    beta = np.exp(-2 * U)
    # Q as a density in (mu, ln sigma): |d beta / d ln sigma| = 2 beta
    lq = (stats.norm.logpdf(MU, it.m, math.sqrt(it.sigma_mu2))
          + stats.gamma.logpdf(beta, a=it.c, scale=it.b) + np.log(2 * beta))
    # P in (mu, ln sigma) is the likelihood (the 1/sigma prior is flat in ln sigma)
    lp_joint = _raw_loglik(x, MU, np.exp(U))
    lp = lp_joint - lp_joint.max()
    lp -= math.log(np.trapezoid(np.trapezoid(np.exp(lp), mu, axis=1), u))
    q = np.exp(lq)
    mass = np.trapezoid(np.trapezoid(q, mu, axis=1), u)
    kl = np.trapezoid(np.trapezoid(q * (lq - lp), mu, axis=1), u)
    # F (17) = ∫ Q ln(Q / P(D, μ, ln σ)), the unnormalised joint (flat prior in μ and ln σ)
    free_energy = np.trapezoid(np.trapezoid(q * (lq - lp_joint), mu, axis=1), u)
    return kl, mass, free_energy


def test_kl_of_iterates_matches_brute_force_quadrature_against_the_exact_posterior():
    x = _data(np.random.default_rng(8), 5)
    g = MacKayGaussian.from_data(x)
    run = g.ensemble_iterations(beta0=3.0 / g.S, n_iter=6)
    for k in (0, 1, 6):
        kl, mass, free_energy = _kl_by_quadrature(x, run[k])
        assert mass == pytest.approx(1.0, abs=1e-6)
        assert run[k].kl == pytest.approx(kl, abs=2e-5)
        # and the free energy by the same grid, with the raw joint in place of the normalised P
        assert run[k].free_energy == pytest.approx(free_energy, abs=2e-5)


def test_free_energy_matches_monte_carlo_with_standard_error():
    rng = np.random.default_rng(9)
    x = _data(rng, 8)
    g = MacKayGaussian.from_data(x)
    it = g.ensemble_iterations(beta0=0.5, n_iter=2)[2]
    M = 200_000
    mu = rng.normal(it.m, math.sqrt(it.sigma_mu2), M)
    beta = rng.gamma(shape=it.c, scale=it.b, size=M)
    sigma = beta**-0.5
    # integrand of (17) in (mu, beta) coordinates; the prior 1/sigma dsigma is (1/2) beta^-1 dbeta
    lnQ = stats.norm.logpdf(mu, it.m, math.sqrt(it.sigma_mu2)) + stats.gamma.logpdf(beta, a=it.c, scale=it.b)
    lnL = np.sum(stats.norm.logpdf(x[:, None], loc=mu[None, :], scale=sigma[None, :]), axis=0)
    f = lnQ - lnL - (math.log(0.5) - np.log(beta))
    se = f.std(ddof=1) / math.sqrt(M)
    assert abs(f.mean() - it.free_energy) < 4 * se


def test_each_half_step_is_the_exact_minimiser_of_F():
    g = MacKayGaussian(6, 0.3, 2.5)
    m, s2 = g.xbar, 0.21
    b, c = g.update_sigma(m, s2)
    res = optimize.minimize(lambda p: g.free_energy(m, s2, math.exp(p[0]), math.exp(p[1])),
                            [0.0, 0.0], method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000})
    assert math.exp(res.x[0]) == pytest.approx(b, rel=1e-6)
    assert math.exp(res.x[1]) == pytest.approx(c, rel=1e-6)
    assert c == g.N / 2
    m_opt, s2_opt = g.update_mu(b * c)
    res = optimize.minimize(lambda p: g.free_energy(p[0], math.exp(p[1]), b, c), [0.0, 0.0],
                            method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000})
    assert res.x[0] == pytest.approx(m_opt, abs=1e-6)
    assert math.exp(res.x[1]) == pytest.approx(s2_opt, rel=1e-6)
    assert s2_opt == pytest.approx(1 / (g.N * b * c), rel=1e-15)


def test_free_form_optimum_of_Q_sigma_is_the_gamma_of_section_3_2():
    # ln Q_opt(beta) = E_{Q_mu}[ln P(D|mu,beta)] + ln P(beta) + const, with E over mu by quadrature
    rng = np.random.default_rng(10)
    x = _data(rng, 5)
    g = MacKayGaussian.from_data(x)
    m, s2 = g.xbar, 0.07
    b, c = g.update_sigma(m, s2)
    betas = np.linspace(0.1, 6.0, 9)
    vals = []
    for be in betas:
        f = lambda mu: stats.norm.pdf(mu, m, math.sqrt(s2)) * float(_raw_loglik(x, mu, be**-0.5))
        e = integrate.quad(f, m - 12 * math.sqrt(s2), m + 12 * math.sqrt(s2), epsrel=1e-12)[0]
        vals.append(e + math.log(0.5) - math.log(be))
    diff = np.array(vals) - stats.gamma.logpdf(betas, a=c, scale=b)
    np.testing.assert_allclose(diff, diff[0], atol=1e-9)


@pytest.mark.parametrize("N,S", [(5, 1.0), (2, 0.5), (3, 10.0), (30, 4.0)])
def test_fixed_point_from_several_starts_and_contraction_by_one_over_N(N, S):
    g = MacKayGaussian(N, 0.0, S)
    v_star = S / (N - 1)
    for beta0 in (1e-3, 0.3 / v_star, 1.0 / v_star * 1.7, 50.0 / v_star, 1e3):
        run = g.ensemble_iterations(beta0, 80)
        assert 1 / run[-1].beta_bar == pytest.approx(v_star, rel=1e-12, abs=0)
        assert math.sqrt(run[-1].sigma_mu2) == pytest.approx(g.sigma_N1 / math.sqrt(N), rel=1e-12)
        err = 1 / run.beta_bar - v_star
        big = np.abs(err[:-1]) > 1e-8 * v_star
        if big.sum() > 1:
            ratios = err[1:][big] / err[:-1][big]
            np.testing.assert_allclose(ratios, 1.0 / N, rtol=1e-6)


def test_fixed_point_beta_bar_equals_the_exact_posterior_mean_of_beta():
    # an independent route to (19): E_P[beta] by quadrature of the joint in (mu, beta)
    x = _data(np.random.default_rng(11), 7)
    g = MacKayGaussian.from_data(x)
    x = list(x)
    top = _ll(x, g.xbar, g.sigma_N)
    w = lambda be: integrate.quad(
        lambda mu: math.exp(_ll(x, mu, be**-0.5) - top) / be, -np.inf, np.inf, epsrel=1e-12)[0]
    Z = integrate.quad(w, 0, np.inf, epsrel=1e-11, limit=200)[0]
    Eb = integrate.quad(lambda be: be * w(be), 0, np.inf, epsrel=1e-11, limit=200)[0] / Z
    run = g.ensemble_iterations(1.0, 60)
    assert run[-1].beta_bar == pytest.approx(Eb, rel=1e-8)
    assert 1 / Eb == pytest.approx(g.S / (g.N - 1), rel=1e-8)


@pytest.mark.parametrize("beta0", [1e-3, 0.25, 4.0, 1e3])
def test_free_energy_never_increases_so_the_bound_never_decreases_and_KL_is_nonnegative(beta0):
    """MacKay's free energy (17) is −F, F the lower bound on ln P(D) of the other lessons."""
    for g in (FIG1, MacKayGaussian(2, 3.0, 0.1), MacKayGaussian(40, -1.0, 25.0)):
        run = g.ensemble_iterations(beta0, 30)
        free = run.free_energy
        assert np.all(np.diff(free) <= 1e-12 * np.maximum(1.0, np.abs(free[1:])))
        np.testing.assert_array_equal(run.bound, -free)
        assert [it.bound for it in run] == list(-free)
        np.testing.assert_allclose(run.kl, run.log_evidence - run.bound, rtol=0, atol=1e-12 * abs(run.log_evidence))
        assert np.all(run.kl >= 0)
        # half-steps decrease F as well: (Q_mu_k, Q_sigma_k) -> (Q_mu_k, Q_sigma_{k+1}) -> (Q_mu_{k+1}, Q_sigma_{k+1})
        for a, b in zip(run.iterates[:-1], run.iterates[1:]):
            mid = g.free_energy(a.m, a.sigma_mu2, b.b, b.c)
            tol = 1e-12 * max(1.0, abs(mid))
            assert b.free_energy <= mid + tol <= a.free_energy + 2 * tol


def test_kl_at_convergence_is_positive_because_the_posterior_is_not_separable():
    run = FIG1.ensemble_iterations(1.0, 50)
    assert run[-1].kl > 0.05   # mu and sigma are dependent in (8)-(9): the skewed peak
    big = MacKayGaussian(500, 1.0, 499.0).ensemble_iterations(1.0, 50)
    assert 0 < big[-1].kl < run[-1].kl   # more data, more nearly separable


def test_q_log_density_is_normalised_and_matches_scipy():
    it = FIG1.ensemble_iterations(2.0, 1)[1]
    mu, s = 1.1, 0.6
    ref = (stats.norm.logpdf(mu, it.m, math.sqrt(it.sigma_mu2))
           + stats.gamma.logpdf(s**-2, a=it.c, scale=it.b) + math.log(2 * s**-3))
    assert FIG1.q_log_density(it, mu, s) == pytest.approx(ref, rel=1e-13)
    tot = integrate.dblquad(lambda s, mu: math.exp(FIG1.q_log_density(it, mu, s)), -np.inf, np.inf,
                            0, np.inf, epsrel=1e-10)[0]
    assert tot == pytest.approx(1.0, abs=1e-7)


# ---------------------------------------------------------------------------
# The conjugate Normal-Gamma contrast
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("N,S", [(5, 1.0), (2, 0.5), (12, 3.0)])
def test_conjugate_vague_prior_converges_to_S_over_N(N, S):
    g = MacKayGaussian(N, 0.4, S)
    for beta0 in (1e-2, 1.0, 1e2):
        run = g.conjugate_iterations(beta0, 80)
        assert 1 / run[-1].beta_bar == pytest.approx(S / N, rel=1e-12)
        assert np.all(np.diff(run.free_energy) <= 1e-12 * np.maximum(1, np.abs(run.free_energy[1:])))
        assert np.all(run.kl >= 0)
        err = np.abs(1 / run.beta_bar - S / N)
        big = err[:-1] > 1e-8 * S / N
        if big.sum() > 1:
            np.testing.assert_allclose(err[1:][big] / err[:-1][big], 1 / (N + 1), rtol=1e-6)


def test_conjugate_kl_against_brute_force_quadrature_with_a_proper_prior():
    rng = np.random.default_rng(12)
    x = _data(rng, 6)
    g = MacKayGaussian.from_data(x)
    mu0, lambda0, a0, b0 = 0.3, 2.0, 1.5, 0.7
    run = g.conjugate_iterations(0.4, 40, mu0=mu0, lambda0=lambda0, a0=a0, b0=b0)
    # exact posterior built by brute force from the normalised prior (scipy) times the likelihood
    mu = np.linspace(-8, 8, 1201)
    beta = np.linspace(1e-6, 12, 1601)
    MU, B = np.meshgrid(mu, beta)
    lp = (stats.norm.logpdf(MU, mu0, 1 / np.sqrt(lambda0 * B)) + stats.gamma.logpdf(B, a=a0, scale=1 / b0)
          + _raw_loglik(x, MU, 1 / np.sqrt(B)))
    lp -= lp.max()
    lp -= math.log(np.trapezoid(np.trapezoid(np.exp(lp), mu, axis=1), beta))
    Eb = np.trapezoid(np.trapezoid(B * np.exp(lp), mu, axis=1), beta)
    for it in (run[0], run[3], run[-1]):
        lq = stats.norm.logpdf(MU, it.m, math.sqrt(it.sigma_mu2)) + stats.gamma.logpdf(B, a=it.c, scale=it.b)
        q = np.exp(lq)
        kl = np.trapezoid(np.trapezoid(q * (lq - lp), mu, axis=1), beta)
        assert it.kl == pytest.approx(kl, abs=1e-4)
    # the fixed point is (2 b0 + S')/(N + 2 a0) and equals 1 / E_P[beta]
    S_eff = g.S + lambda0 * g.N / (lambda0 + g.N) * (g.xbar - mu0) ** 2
    assert 1 / run[-1].beta_bar == pytest.approx((2 * b0 + S_eff) / (g.N + 2 * a0), rel=1e-12)
    assert run[-1].beta_bar == pytest.approx(Eb, rel=1e-5)


def test_the_prior_matters_S_over_N_vs_S_over_N_minus_1():
    g = FIG1
    v_mackay = 1 / g.ensemble_iterations(1.0, 60)[-1].beta_bar
    v_conj = 1 / g.conjugate_iterations(1.0, 60)[-1].beta_bar
    assert v_mackay == pytest.approx(g.sigma_N1**2, rel=1e-12)
    assert v_conj == pytest.approx(g.sigma_N**2, rel=1e-12)
    # the textbook run's limit is its own exact posterior mean of beta (prior ∝ beta^(-1/2)):
    # E[beta] = (N/2) / (S/2) by the Gamma(N/2, rate S/2) it implies; check by quadrature
    w = lambda be: be ** (g.N / 2 - 1) * math.exp(-be * g.S / 2)
    Eb = integrate.quad(lambda be: be * w(be), 0, np.inf)[0] / integrate.quad(w, 0, np.inf)[0]
    assert 1 / Eb == pytest.approx(v_conj, rel=1e-9)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("args,match", [
    ((1, 0.0, 1.0), "N must be an integer >= 2"),
    ((0, 0.0, 1.0), "N must be"),
    ((2.5, 0.0, 1.0), "N must be an integer"),
    ((5, float("nan"), 1.0), "xbar must be a finite"),
    ((5, float("inf"), 1.0), "xbar must be a finite"),
    ((5, 0.0, 0.0), "S must be a finite number > 0"),
    ((5, 0.0, -1.0), "S must be a finite number > 0"),
    ((5, 0.0, float("inf")), "S must be a finite number > 0"),
])
def test_bad_constructor_arguments_are_refused(args, match):
    with pytest.raises(ValueError, match=match):
        MacKayGaussian(*args)


@pytest.mark.parametrize("x,match", [
    ([1.0], "at least 2"),
    ([1.0, float("nan"), 2.0], "finite"),
    ([1.0, float("inf")], "finite"),
    ([2.0, 2.0, 2.0], "all points equal"),
    ([[1.0, 2.0]], "1-D"),
])
def test_bad_data_is_refused(x, match):
    with pytest.raises(ValueError, match=match):
        MacKayGaussian.from_data(x)


def test_bad_iteration_arguments_are_refused():
    for beta0 in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="beta0 must be a finite number > 0"):
            FIG1.ensemble_iterations(beta0, 3)
    for n in (-1, 2.5, MAX_ITER + 1):
        with pytest.raises(ValueError, match="n_iter must be an integer"):
            FIG1.ensemble_iterations(1.0, n)
    with pytest.raises(ValueError, match="lambda0 must be a finite number >= 0"):
        FIG1.conjugate_iterations(1.0, 3, lambda0=-1.0)
    with pytest.raises(ValueError, match="a0 must be"):
        FIG1.conjugate_iterations(1.0, 3, a0=float("nan"))
    with pytest.raises(ValueError, match="sigma must be finite and > 0"):
        FIG1.log_likelihood(0.0, -1.0)
    with pytest.raises(ValueError, match="sigma_mu2 must be a finite number > 0"):
        FIG1.free_energy(0.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="mu_lim must be two finite numbers"):
        FIG1.posterior_grid(mu_lim=(1.0, 0.0))


def test_zero_iterations_returns_just_the_start():
    run = FIG1.ensemble_iterations(2.0, 0)
    assert len(run) == 1
    assert run[0].beta_bar == 2.0
    assert run[0].sigma_mu2 == pytest.approx(1 / (5 * 2.0))
    assert run[0].c == 2.5 and run[0].b * run[0].c == pytest.approx(2.0, rel=1e-15)
