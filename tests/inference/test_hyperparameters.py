"""Tests of the bound ln P(D) = F[Q] + KL (eqs 15–16) and the Gamma hyperparameter updates (27)–(38).

Every quantity is compared with something computed independently:
brute-force 2-D quadrature (scipy.integrate) of the unnormalised posterior
and of q ln(q/p); quadrature of F over (α, β) with scipy.stats Gamma
densities; the free-form optimum ln ∫ exp(⟨ln P⟩) dα by scipy.integrate.quad;
a direct numerical maximisation; and scikit-learn's BayesianRidge.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats
from scipy.special import gammaln
from sklearn.linear_model import BayesianRidge

from ensemble_lib import LinearGaussianPosterior, ToyPosterior, toy_data
from ensemble_lib.inference.hyperparameters import (GammaHyperprior, GammaPosterior,
                                                    HyperparameterConvergenceWarning,
                                                    fit_hyperparameters, full_bound, gamma_updates)

SEED = 20240604


@pytest.fixture(scope="module")
def log_Z_ref(toy):
    return _log_Z_bruteforce(toy)


@pytest.fixture(scope="module")
def toy():
    d = toy_data(np.random.default_rng(0))
    return ToyPosterior(d.x, d.t, alpha=1.0, beta=100.0)


def _log_Z_bruteforce(post, h=0.006):
    """ln ∫∫ exp(−βE_D − α‖w‖²/2) du dv on a fine tensor grid (Simpson), no analytic reduction.

    Since E_D ≥ 0 the integrand is below exp(−α‖w‖²/2); outside the box of
    radius R its mass is below (2π/α) exp(−αR²/2), negligible for αR² = 100.
    """
    R = math.sqrt(100.0 / post.alpha)
    n = int(2 * R / h) | 1
    g = np.linspace(-R, R, n)
    # the same (u, v) grid, evaluated 64 rows of u at a time: at once, the 10⁷ points' per-point,
    # per-datum intermediates (about 0.5 GB each) made the evaluation memory-bound, 3x slower
    logp = np.concatenate([post.log_unnorm(np.stack(np.broadcast_arrays(g[i:i + 64, None], g), axis=-1))
                           for i in range(0, n, 64)])
    top = logp.max()
    inner = integrate.simpson(np.exp(logp - top), x=g, axis=1)
    return float(top + np.log(integrate.simpson(inner, x=g)))


def _kl_quadrature(post, log_Z, mean, cov):
    """KL(Q‖P) = ∫ q ln(q/p) by scipy dblquad in Q's whitened coordinates w = m + L z."""
    L = np.linalg.cholesky(cov)
    log_det_L = float(np.log(L[0, 0] * L[1, 1]))

    x, t, beta, alpha = post.x, post.t, post.beta, post.alpha
    root2 = math.sqrt(2.0)

    def f(z2, z1):
        u = mean[0] + L[0, 0] * z1
        v = mean[1] + L[1, 0] * z1 + L[1, 1] * z2
        log_q = -0.5 * (z1 * z1 + z2 * z2) - math.log(2 * math.pi) - log_det_L
        r = v * special.erf(u * x / root2) - t  # B&B (4)-(6) written out, not the library's E_D
        log_p = -0.5 * beta * (r @ r) - 0.5 * alpha * (u * u + v * v) - log_Z
        return math.exp(-0.5 * (z1 * z1 + z2 * z2)) / (2 * math.pi) * (log_q - log_p)

    val, err = integrate.dblquad(f, -9, 9, -9, 9, epsabs=1e-11, epsrel=1e-12)
    return val


def _random_gaussian(rng, centre):
    sd = np.exp(rng.uniform(np.log(0.03), np.log(0.4), size=2))
    rho = rng.uniform(-0.9, 0.9)
    cov = np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])
    mean = np.asarray(centre) + rng.normal(scale=0.2, size=2)
    return mean, cov


def test_bruteforce_log_Z_agrees(toy, log_Z_ref):
    # the reference used below must itself be sound: two grid spacings agree
    a, b = log_Z_ref, _log_Z_bruteforce(toy, 0.008)
    assert abs(a - b) < 1e-9
    assert abs(a - toy.log_Z) < 1e-9


def test_log_evidence_minus_bound_is_independent_kl(toy, log_Z_ref):
    """Eq. (16): ln P(D) − F[Q] = KL(Q‖P) to 1e-8, KL by brute-force quadrature of q ln(q/p)."""
    rng = np.random.default_rng(SEED)
    log_Z = log_Z_ref
    mode = np.array([-0.44, -0.9])
    for j in range(4):
        mean, cov = _random_gaussian(rng, mode if j % 2 == 0 else -mode)
        kl_quad = _kl_quadrature(toy, log_Z, mean, cov)
        kl_code = toy.log_evidence - toy.bound(mean, cov)
        assert abs(kl_code - kl_quad) < 1e-8 * max(1.0, kl_quad), (kl_code, kl_quad)
        assert abs(toy.kl(mean, cov) - kl_quad) < 1e-8 * max(1.0, kl_quad)


def test_bound_never_exceeds_log_evidence(toy):
    """Jensen (15): F[Q] ≤ ln P(D) for any Gaussian Q, including far-off and very broad/narrow ones."""
    rng = np.random.default_rng(SEED + 1)
    log_ev = toy.log_evidence
    for _ in range(300):
        sd = np.exp(rng.uniform(np.log(1e-3), np.log(3.0), size=2))
        rho = rng.uniform(-0.99, 0.99)
        cov = np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])
        mean = rng.uniform(-3, 3, size=2)
        F = toy.bound(mean, cov)
        assert np.isfinite(F) and F <= log_ev


def _random_q_rs(rng, post):
    mean, cov = _random_gaussian(rng, [-0.44, -0.9])
    R = GammaPosterior(rng.uniform(1.2, 5.0), rng.uniform(0.2, 3.0))
    S = GammaPosterior(rng.uniform(3.0, 8.0), rng.uniform(5.0, 30.0))
    return mean, cov, R, S


def test_full_bound_matches_quadrature_over_alpha_beta(toy):
    """F[Q, R, S] (33) equals ∫∫ R S {F_{α,β}[Q] + ln p(α)p(β) − ln R S} dα dβ by dblquad,
    with every density from scipy.stats and F_{α,β}[Q] the model's fixed-hyperparameter bound."""
    rng = np.random.default_rng(SEED + 2)
    prior = GammaHyperprior(0.25, 400.0, 0.05, 2000.0)
    pb = stats.gamma(prior.c, scale=prior.d)
    k, N = toy.dim, toy.n_data
    for _ in range(2):
        mean, cov, R, S = _random_q_rs(rng, toy)
        rd = stats.gamma(R.shape, scale=R.scale)
        sd = stats.gamma(S.shape, scale=S.scale)
        # F_{α,β}[Q] = ⟨ln N(t | f, 1/β)⟩_Q + ⟨ln N(w | 0, I/α)⟩_Q + H[Q]; the model's bound()
        # gives it at any (α, β): read off its linear form from three evaluations, check a fourth
        ed = toy.expected_data_error(mean, cov).value
        ww = float(mean @ mean + np.trace(cov))
        H_Q = stats.multivariate_normal(mean, cov).entropy()

        def F_q(alpha, beta):
            return (H_Q - beta * ed + 0.5 * N * math.log(beta / (2 * np.pi))
                    - 0.5 * alpha * ww + 0.5 * k * math.log(alpha / (2 * np.pi)))

        for alpha, beta in [(0.3, 7.0), (4.0, 150.0)]:
            assert toy.with_hyperparameters(alpha=alpha, beta=beta).bound(mean, cov) == pytest.approx(
                F_q(alpha, beta), abs=1e-10)

        # the textbook Gamma log density (fast scalar form), checked against scipy.stats once
        def lg(x, shape, scale):
            return (shape - 1) * math.log(x) - x / scale - shape * math.log(scale) - gammaln(shape)

        assert lg(2.5, R.shape, R.scale) == pytest.approx(rd.logpdf(2.5), abs=1e-12)
        assert lg(2.5, prior.c, prior.d) == pytest.approx(pb.logpdf(2.5), abs=1e-12)

        def f(beta, alpha):
            lr, ls = lg(alpha, R.shape, R.scale), lg(beta, S.shape, S.scale)
            return math.exp(lr + ls) * (
                F_q(alpha, beta) + lg(alpha, prior.a, prior.b) + lg(beta, prior.c, prior.d) - lr - ls
            )

        a_lo, a_hi = rd.ppf(1e-15), rd.ppf(1 - 1e-15)
        b_lo, b_hi = sd.ppf(1e-15), sd.ppf(1 - 1e-15)
        ref, _ = integrate.dblquad(f, a_lo, a_hi, b_lo, b_hi, epsabs=1e-11, epsrel=1e-11)
        got = full_bound(toy, mean, cov, R, S, prior)
        assert abs(got - ref) < 1e-8 * max(1.0, abs(ref)), (got, ref)


def test_gamma_updates_are_the_free_form_optimum(toy):
    """For fixed Q, max over ALL R, S of F is H[Q] + ln∫e^{φ_α}dα + ln∫e^{φ_β}dβ (by quad),
    attained at R ∝ e^{φ_α}; eqs (35)–(38) must reach it and R must be that density."""
    rng = np.random.default_rng(SEED + 3)
    prior = GammaHyperprior(0.25, 400.0, 0.05, 2000.0)
    k, N = toy.dim, toy.n_data
    for _ in range(3):
        mean, cov, _, _ = _random_q_rs(rng, toy)
        ww = float(mean @ mean + np.trace(cov))
        ed = toy.expected_data_error(mean, cov).value
        H_Q = 0.5 * np.linalg.slogdet(2 * np.pi * np.e * cov)[1]

        def phi_a(a):  # ⟨ln p(w|α)⟩_Q + ln p(α), with the −(α/2)‖w‖² of the corrected (31)
            return -0.5 * a * ww + 0.5 * k * np.log(a / (2 * np.pi)) + stats.gamma.logpdf(a, prior.a, scale=prior.b)

        def phi_b(b):
            return -b * ed + 0.5 * N * np.log(b / (2 * np.pi)) + stats.gamma.logpdf(b, prior.c, scale=prior.d)

        def log_int(phi, peak_guess):
            top = -optimize.minimize_scalar(lambda x: -phi(math.exp(x)),
                                            bracket=(np.log(peak_guess) - 1, np.log(peak_guess) + 1)).fun
            val, _ = integrate.quad(lambda x: math.exp(phi(math.exp(x)) + x - top), -40, 40,
                                    points=[np.log(peak_guess)], epsabs=0, epsrel=1e-13, limit=400)
            return top + math.log(val)

        R, S = gamma_updates(toy, mean, cov, prior)
        ref = H_Q + log_int(phi_a, R.mean) + log_int(phi_b, S.mean)
        assert abs(full_bound(toy, mean, cov, R, S, prior) - ref) < 1e-9 * max(1.0, abs(ref))
        # the optimal R is the normalised e^{φ_α}: compare densities at a few points
        logZa = log_int(phi_a, R.mean)
        for x in R.mean * np.array([0.3, 1.0, 2.5]):
            assert abs(phi_a(x) - logZa - stats.gamma.logpdf(x, R.shape, scale=R.scale)) < 1e-9


def test_gamma_updates_match_numerical_maximisation(toy):
    """Maximising F numerically over Gamma R, S (4 log-parameters) gives ᾱ = rs, β̄ = uv (37–38)."""
    rng = np.random.default_rng(SEED + 4)
    prior = GammaHyperprior(0.25, 400.0, 0.05, 2000.0)
    mean, cov, _, _ = _random_q_rs(rng, toy)
    ed = toy.expected_data_error(mean, cov).value

    def neg(x):
        R = GammaPosterior(math.exp(x[0]), math.exp(x[1]))
        S = GammaPosterior(math.exp(x[2]), math.exp(x[3]))
        return -full_bound(toy, mean, cov, R, S, prior, ed)

    res = optimize.minimize(neg, np.zeros(4), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000, "maxfev": 40000})
    res = optimize.minimize(neg, res.x, method="BFGS", options={"gtol": 1e-10})
    R, S = gamma_updates(toy, mean, cov, prior)
    alpha_num = math.exp(res.x[0] + res.x[1])
    beta_num = math.exp(res.x[2] + res.x[3])
    assert alpha_num == pytest.approx(R.mean, rel=1e-5)
    assert beta_num == pytest.approx(S.mean, rel=1e-5)
    assert -res.fun <= full_bound(toy, mean, cov, R, S, prior) + 1e-10


@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_every_half_step_increases_the_full_bound(toy, family):
    run = fit_hyperparameters(toy, family=family)
    assert run.converged
    seq = np.ravel(np.column_stack([run.bound, run.bound_after_update]))
    assert np.all(np.diff(seq) >= -1e-9), np.diff(seq).min()
    assert run.bound[-1] > run.bound[0]
    # started at the hyperprior means (B&B: "using the mean of the hyperprior distributions")
    assert run.alpha[0] == pytest.approx(0.25 * 400) and run.beta[0] == pytest.approx(0.05 * 2000)


def test_recorded_quantities_are_at_the_recorded_hyperparameters(toy):
    run = fit_hyperparameters(toy)
    for i in (0, run.n_iter - 1):
        # at (ᾱ_i, β̄_i): ln P(D) from the brute-force ln Z and the normalisers of (3), (5);
        # KL by quadrature of q ln(q/p); F (15) as their difference — none of it from the library
        p = ToyPosterior(toy.x, toy.t, alpha=run.alpha[i], beta=run.beta[i])
        log_Z = _log_Z_bruteforce(p)
        log_ev = log_Z - 0.5 * p.n_data * math.log(2 * math.pi / p.beta) - math.log(2 * math.pi / p.alpha)
        kl = _kl_quadrature(p, log_Z, run.means[i], run.covs[i])
        assert run.log_evidence[i] == pytest.approx(log_ev, abs=1e-8)
        assert run.kl[i] == pytest.approx(kl, abs=1e-8)
        assert run.bound_q[i] == pytest.approx(log_ev - kl, abs=1e-8)
        assert kl >= 0
    # the final R, S are the Gamma updates of the final Q, at ᾱ = rs, β̄ = uv
    R, S = gamma_updates(toy.with_hyperparameters(run.alpha[-1], run.beta[-1]), run.mean, run.cov, run.prior)
    assert run.alpha_final == pytest.approx(R.mean, rel=1e-12)
    assert run.beta_final == pytest.approx(S.mean, rel=1e-12)
    assert abs(math.log(run.alpha_final / run.alpha[-1])) < 1e-6


def test_flat_hyperprior_on_linear_model_reaches_the_evidence_maximum():
    """With a, c → 0 and b, d → ∞ and an exact Q, the Gamma iteration is EM for ln P(D|α, β):
    it must converge to scikit-learn BayesianRidge's type-II ML (lambda_ = α, alpha_ = β)."""
    rng = np.random.default_rng(SEED + 5)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([0.8, -0.3, 0.0]) + 0.4 * rng.normal(size=40)
    lin = LinearGaussianPosterior(X, y, 1.0, 1.0)
    run = fit_hyperparameters(lin, GammaHyperprior(1e-12, 1e12, 1e-12, 1e12), tol=1e-12, max_iter=2000)
    br = BayesianRidge(alpha_1=1e-12, alpha_2=1e-12, lambda_1=1e-12, lambda_2=1e-12,
                       fit_intercept=False, tol=1e-15, max_iter=100000).fit(X, y)
    assert run.converged
    assert run.alpha_final == pytest.approx(br.lambda_, rel=1e-6)
    assert run.beta_final == pytest.approx(br.alpha_, rel=1e-6)
    assert run.kl[-1] == pytest.approx(0.0, abs=1e-8)  # a full Gaussian is exact here


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, "1", None])
@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_non_positive_hyperprior_constants_rejected(name, bad):
    with pytest.raises(ValueError, match=name):
        GammaHyperprior(**{name: bad})


def test_bad_arguments_rejected(toy):
    with pytest.raises(ValueError, match="tol"):
        fit_hyperparameters(toy, tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        fit_hyperparameters(toy, max_iter=0)
    with pytest.raises(ValueError, match="prior"):
        fit_hyperparameters(toy, prior=(1, 2, 3, 4))
    with pytest.raises(ValueError, match="family"):
        fit_hyperparameters(toy, family="banana")
    with pytest.raises(ValueError, match="cov"):
        gamma_updates(toy, [0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], GammaHyperprior())


def test_non_convergence_warns_with_reached_tolerance(toy):
    with pytest.warns(HyperparameterConvergenceWarning, match=r"max_iter = 2.*was [0-9.e+-]+ > tol"):
        run = fit_hyperparameters(toy, max_iter=2, tol=1e-12)
    assert not run.converged and run.n_iter == 2
    assert run.tol_reached > 1e-12 and np.isfinite(run.tol_reached)
    assert np.all(np.isfinite(run.alpha)) and np.all(np.isfinite(run.bound))


def test_alpha_running_to_infinity_is_explained_and_finite():
    """Targets orthogonal to every basis function: the data support no weights, so α grows
    until the hyperprior holds it; it stays below the ceiling (k/2 + a) b and the run says why."""
    rng = np.random.default_rng(SEED + 6)
    X = rng.normal(size=(20, 2))
    t = rng.normal(size=20)
    t -= X @ np.linalg.lstsq(X, t, rcond=None)[0]
    lin = LinearGaussianPosterior(X, t, 1.0, 1.0)
    prior = GammaHyperprior(a=0.25, b=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        run = fit_hyperparameters(lin, prior, max_iter=200)
    assert np.isfinite(run.alpha_final) and 0 < run.alpha_final < (1 + prior.a) * prior.b
    assert any("alpha" in n and "infinity" in n for n in run.notes)


def test_beta_running_to_infinity_is_explained_and_finite():
    """Noise-free targets: β → ∞ is stopped by the hyperprior ceiling (N/2 + c) d and explained."""
    rng = np.random.default_rng(SEED + 7)
    X = rng.normal(size=(20, 2))
    lin = LinearGaussianPosterior(X, X @ np.array([1.0, -2.0]), 1.0, 1.0)
    prior = GammaHyperprior()
    run = fit_hyperparameters(lin, prior, max_iter=200)
    assert np.isfinite(run.beta_final) and run.beta_final < (10 + prior.c) * prior.d
    assert any("beta" in n and "infinity" in n for n in run.notes)
