"""Lesson 3's quantitative sentences, each found word for word and asserted on numbers computed here
(tests/_claims.py): the library's runs recomputed, with brute-force quadrature, scikit-learn and the
hyperprior's closed-form means as the independent references."""

import inspect
import math

import numpy as np
import pytest
from _claims import sentence
from sklearn.linear_model import BayesianRidge

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.inference.evidence import cheap_reestimation, evidence_grid, evidence_reestimation
from ensemble_lib.inference.hyperparameters import GammaHyperprior, gamma_updates
from ensemble_lib.inference.model_evidence import log_evidence_on_grid
from ensemble_lib.inference.toy_fits import fit_all
from ensemble_lib.lessons import bound as bl
from ensemble_lib.lessons.bound import hyper_iterations
from ensemble_lib.models.toy import kl_by_quadrature

NB = "03_bound_and_hyperparameters.ipynb"
PRIOR = GammaHyperprior(a=0.25, b=400.0, c=0.05, d=2000.0)


@pytest.fixture(scope="module")
def comp():
    return bl.compare_hyperparameters(bl.make_toy(), PRIOR, n_grid=9)  # the max is polished: 9 is enough


@pytest.fixture(scope="module")
def fits():
    return fit_all(bl.make_toy())


def test_the_gap_is_kl_to_1e_8_by_brute_force_quadrature(fits):
    sentence(NB, "checks the toy's $\\ln P(D) - \\mathcal F[Q]$ against a brute-force 2-D quadrature of "
                 "$q\\ln(q/p)$ to $10^{-8}$")
    for key in ("laplace", "diagonal", "full"):
        f = getattr(fits, key)
        d = bl.bound_decomposition(fits.posterior, f.mean, f.cov)
        assert d.kl == pytest.approx(kl_by_quadrature(fits.posterior, f.mean, f.cov), abs=1e-8)


def test_laplace_pays_a_huge_kl(fits):
    sentence(NB, "and pays for it with a huge KL")
    assert fits.laplace.kl > 10 * fits.diagonal.kl > 10 * fits.full.kl


def test_where_the_bound_panel_opens(fits):
    said = sentence(NB, "At the full-KL Gaussian: ln P(D | α, β) = −1.281489 = F[Q] (−2.832798) + KL(Q‖P) (1.551309)")
    d = bl.bound_decomposition(fits.posterior, fits.full.mean, fits.full.cov)
    for x in (d.log_evidence, d.bound, d.kl):
        assert f"{x:.6f}".replace("-", "−") in said
    assert d.log_evidence == pytest.approx(d.bound + d.kl, abs=1e-12)


def test_broad_hyperpriors_start_both_at_100_and_the_bound_only_rises(comp):
    sentence(NB, "$a = 0.25$, $b = 400$, $c = 0.05$, $d = 2000$ (so both start at 100)")
    sentence(NB, "Both are exact coordinate ascents, so $\\mathcal F[Q,R,S]$ can only rise")
    assert PRIOR.a * PRIOR.b == 100 and PRIOR.c * PRIOR.d == 100  # Gamma(shape, scale) means
    run = comp.ensemble
    assert run.alpha[0] == pytest.approx(100) and run.beta[0] == pytest.approx(100)
    seq = np.ravel(np.column_stack([run.bound, run.bound_after_update]))
    assert np.all(np.diff(seq) >= -1e-9)


def test_full_bound_sits_well_below_the_evidence(comp):
    sentence(NB, "The full bound $\\mathcal F[Q,R,S]$ sits well below $\\ln P(D\\mid\\bar\\alpha,\\bar\\beta)$")
    run = comp.ensemble
    assert np.all(run.bound < run.log_evidence - 1.0)


def test_mackay_starts_at_100_with_symmetry_factor_2(comp):
    sentence(NB, "MacKay's symmetry factor $H!\\,2^H = 2$")
    sentence(NB, "We start it at the same point, $\\alpha = \\beta = 100$")
    H = 1
    assert math.factorial(H) * 2 ** H == 2
    assert comp.evidence.alpha[0] == pytest.approx(100) and comp.evidence.beta[0] == pytest.approx(100)
    assert inspect.signature(bl.compare_hyperparameters).parameters["n_grid"].default == 25
    sentence(NB, "the exact log evidence on a $25\\times25$ grid")


def test_where_the_iteration_panel_opens(comp):
    said = sentence(NB, "Iteration 0, at α = β = 100: exact ln P(D | α, β) = −20.96465, F[Q] = −21.66921 and "
                        "KL(Q‖P) = 0.70455")
    run = comp.ensemble
    for x in (run.log_evidence[0], run.bound_q[0], run.kl[0]):
        assert f"{x:.5f}".replace("-", "−") in said


def test_mackay_lands_close_to_the_exact_maximiser_and_the_ensemble_visibly_shifted(comp):
    sentence(NB, "on the toy it lands close to the exact maximiser of $\\ln P(D\\mid\\alpha,\\beta)$")
    sentence(NB, "visibly shift the ensemble's $\\bar\\alpha, \\bar\\beta$ away from the evidence maximum")
    rows = {r["method"].split(" (")[0].split(",")[0]: r for r in comp.table()}
    best, mackay, ens = rows["exact maximiser"], rows["MacKay evidence"], rows["ensemble"]
    assert best["log_evidence"] - mackay["log_evidence"] < 0.05  # nats below the maximum
    assert best["log_evidence"] - ens["log_evidence"] > 2 * (best["log_evidence"] - mackay["log_evidence"])
    assert abs(math.log(ens["alpha"] / best["alpha"])) > abs(math.log(mackay["alpha"] / best["alpha"]))
    # exercise 4's answer: the ensemble ends at a larger α, its numerator k/2 + a = 1.25 beats γ/2 < 1
    assert comp.ensemble.alpha_final > comp.grid.alpha_max
    assert comp.posterior.dim / 2 + PRIOR.a == 1.25 and comp.evidence.gamma_final / 2 < 1


def test_on_a_linear_model_mackay_reproduces_bayesian_ridge():
    sentence(NB, "on a linear model it reproduces scikit-learn's `BayesianRidge` exactly")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = X @ np.array([1.0, -0.5, 0.0]) + 0.3 * rng.normal(size=30)
    run = evidence_reestimation(LinearGaussianPosterior(X, y, 1.0, 1.0), tol=1e-12)
    br = BayesianRidge(alpha_1=1e-10, alpha_2=1e-10, lambda_1=1e-10, lambda_2=1e-10,
                       fit_intercept=False, tol=1e-15, max_iter=100000).fit(X, y)
    assert run.alpha_final == pytest.approx(br.lambda_, rel=1e-6)
    assert run.beta_final == pytest.approx(br.alpha_, rel=1e-6)


def test_readout_says_why_laplace_evidence_overshoots_the_exact_one(comp):
    panel = bl.HyperIterationPanel(comp)
    last = panel.compute("evidence", comp.evidence.n_iter - 1)
    assert comp.evidence.log_evidence[-1] > comp.evidence.log_evidence_exact[-1]
    assert "not a lower bound" in panel.format_readout(last)
    # where the panel opens: the story holds
    assert hyper_iterations.iteration_notes(panel.compute("ensemble", 0)) == []


def test_the_printed_31_roughly_halves_alpha_bar(comp):
    """Exercise 2's solution says the printed −α‖w‖² of (31) would roughly halve ᾱ (a solution comment)."""
    run = comp.ensemble
    ww = run.mean @ run.mean + np.trace(run.cov)
    k = comp.posterior.dim
    right = (k / 2 + PRIOR.a) / (ww / 2 + 1 / PRIOR.b)
    printed = (k / 2 + PRIOR.a) / (ww + 1 / PRIOR.b)
    R, _ = gamma_updates(comp.posterior, run.mean, run.cov, PRIOR)
    assert R.mean == pytest.approx(right, rel=1e-12)
    assert 0.45 < printed / right < 0.55


# --- §5: cheap and cheerful re-estimation (MacKay §9.1) and the error bars on ln α (eq. 25) ---------------


@pytest.fixture(scope="module")
def cheap():
    return bl.cheap_comparison()


@pytest.fixture(scope="module")
def errorbars():
    return bl.log_alpha_cases()


def test_section5_describes_its_model(cheap):
    sentence(NB, "Gaussian bumps fitted to 30 noisy points of $\\sin 2\\pi x$ on $[0, 1]$, five bumps over the data")
    sentence(NB, "Each far bump adds one parameter the data do not determine: $k$ grows, $\\gamma$ does not")
    post = bl.bumps_posterior(0)
    assert post.Phi.shape == (30, 5)
    assert np.ptp(cheap.gamma) < 1e-3 * cheap.gamma[0] and np.all(np.diff(cheap.k) == 2)


def test_mackay_does_not_move_and_equals_the_exact_maximiser(cheap):
    sentence(NB, "MacKay's $\\alpha$, $\\beta$ and $\\gamma$ do not move as far bumps are added")
    sentence(NB, "they agree with the exact maximiser to at least four significant digits")
    for x in (cheap.alpha_mackay, cheap.beta_mackay, cheap.gamma):
        assert np.ptp(x) < 1e-3 * x[0]
    # the exact maximiser recomputed on a finer grid, independently of the sweep's own 5 x 5 one
    for i in (0, len(cheap.n_far) - 1):
        post = bl.bumps_posterior(int(cheap.n_far[i]))
        g = evidence_grid(post, np.linspace(-3, 3, 13), np.linspace(1, 6, 11))
        assert g.alpha_max == pytest.approx(cheap.alpha_mackay[i], rel=1e-4)
        assert g.beta_max == pytest.approx(cheap.beta_mackay[i], rel=1e-4)
    np.testing.assert_allclose(cheap.alpha_exact, cheap.alpha_mackay, rtol=1e-4)


def test_cheap_agrees_when_gamma_is_close_to_k(cheap):
    said = sentence(NB, "With no far bumps $k - \\gamma = 0.36$ and the cheap rule is within 8 % of the exact "
                        "$\\alpha$")
    assert "within 20 % in $\\beta$" in said
    assert f"{cheap.poorly_determined[0]:.2f}" == "0.36"
    assert 1 < cheap.alpha_cheap[0] / cheap.alpha_exact[0] < 1.08
    assert 1 < cheap.beta_cheap[0] / cheap.beta_exact[0] < 1.20
    # the β gap is N/(N − γ) to first order
    assert cheap.beta_cheap[0] / cheap.beta_exact[0] == pytest.approx(30 / (30 - cheap.gamma[0]), rel=0.02)


def test_cheap_overshoots_by_more_than_k_over_gamma(cheap):
    said = sentence(NB, "with 8 far bumps it is 3.08 times the exact $\\alpha$, where $k/\\gamma = 2.80$")
    assert "once far bumps are added the cheap $\\alpha$ overshoots by more than the first-order factor" in said
    i = int(np.flatnonzero(cheap.n_far == 8)[0])
    ratio, first = cheap.alpha_cheap[i] / cheap.alpha_exact[i], cheap.k[i] / cheap.gamma[i]
    assert f"{ratio:.2f}" in said and f"{first:.2f}" in said and ratio > first
    ok = cheap.cheap_converged & (cheap.n_far > 0)
    assert np.all(cheap.alpha_cheap[ok] / cheap.alpha_exact[ok] > cheap.k[ok] / cheap.gamma[ok])


def test_cheap_is_singular_from_24_far_bumps(cheap):
    said = sentence(NB, "From 24 far bumps on it has no fixed point")
    assert "each step raises $\\alpha$" in said
    assert cheap.n_far[cheap.first_singular] == 24 and not cheap.cheap_converged[cheap.first_singular:].any()
    assert cheap.cheap_converged[:cheap.first_singular].all()
    # 23 (not in the sweep) still has one, so 24 is the first
    assert cheap_reestimation(bl.bumps_posterior(23), tol=1e-10, max_iter=5000).converged
    # "alpha sum w_MP(alpha)^2 stays below k for every alpha" at the cheap beta's end state: a scan in ln(alpha/beta)
    post = bl.bumps_posterior(24)
    lam, Q = np.linalg.eigh(post.Phi.T @ post.Phi)
    b = Q.T @ (post.Phi.T @ post.t)
    for log_r in np.linspace(-12, 12, 241):  # w_MP depends on r = alpha/beta only; the cheap pair needs
        r = math.exp(log_r)                   # alpha = k/sum w^2 and beta = N/|res|^2 with alpha/beta = r
        w = b / (lam + r)
        res2 = float(post.t @ post.t - 2 * (b @ w) + w @ (lam * w))
        assert r * post.n_data / res2 * float(w @ w) < post.dim  # alpha sum w^2 < k wherever beta is cheap's


def test_section5_holds_beta_at_its_optimum_with_a_flat_prior(errorbars):
    sentence(NB, "with $\\beta$ **held at its optimum** $\\beta_{MP}$, normalised as a density in $\\ln\\alpha$ "
                 "(flat prior on $\\ln\\alpha$ over the library's range $10^{-8}$ to $10^{8}$)")
    for c in errorbars.values():
        r = c.posterior
        assert r.log_alpha[0] == pytest.approx(math.log(1e-8)) and r.log_alpha[-1] == pytest.approx(math.log(1e8))
        run = evidence_reestimation(bl.bumps_posterior(0, **bl.ERRORBAR_CASES[c.name]), tol=1e-12, max_iter=5000)
        assert r.log_beta == pytest.approx(math.log(run.beta_final), abs=1e-9)


def test_eq25_within_10_percent_when_gamma_is_large(errorbars):
    said = sentence(NB, "With $\\gamma = 15.4$ the width of (25) is within 10 % of the exact posterior's s.d. "
                        "(0.360 against 0.396)")
    r = errorbars["large"].posterior
    assert f"{r.gamma:.1f}" == "15.4" and f"{r.mackay_sd:.3f}" in said and f"{r.sd:.3f}" in said
    assert abs(r.mackay_sd / r.sd - 1) < 0.10
    assert f"gives {r.curvature_sd:.3f}" in sentence(NB, "and the exact curvature at the peak gives 0.390")


def test_eq25_a_third_too_narrow_when_gamma_is_small(errorbars):
    said = sentence(NB, "With $\\gamma = 1.82$, (25) is a third too narrow (1.05 against 1.56)")
    r = errorbars["small"].posterior
    assert f"{r.gamma:.2f}" == "1.82" and f"{r.mackay_sd:.2f}" in said and f"{r.sd:.2f}" in said
    assert 0.6 < r.mackay_sd / r.sd < 0.72
    # skewed: a long tail to small alpha (mean below the mode) and a plateau towards large alpha
    assert r.mean < r.mode - 0.2
    top = r.density.max()
    assert r.density[-1] > 1e-5 * top  # the no-weights model's evidence: no Gaussian tail at ln alpha = ln 1e8
    assert errorbars["small"].k == 2 and errorbars["small"].n_data == 20
    assert errorbars["large"].k == 30 and errorbars["large"].n_data == 200


def test_eq25_for_ln_beta_within_4_percent_in_both_regimes():
    said = sentence(NB, "at $\\alpha_{MP}$, $N - \\gamma$ is 18.2 and 184.6, and "
                        "$\\sigma_{\\ln\\beta}\\simeq\\sqrt{2/(N-\\gamma)}$ is within 4 % of the exact s.d.")
    for name in ("small", "large"):
        post = bl.bumps_posterior(0, **bl.ERRORBAR_CASES[name])
        run = evidence_reestimation(post, tol=1e-12, max_iter=5000)
        n_minus = post.n_data - run.gamma_final
        assert f"{n_minus:.1f}" in said
        lb = math.log(run.beta_final) + np.linspace(-8.0, 8.0, 16001)
        L = log_evidence_on_grid(post, np.array([math.log(run.alpha_final)]), lb)[0]
        p = np.exp(L - L.max())
        assert p[0] < 1e-12 and p[-1] < 1e-12
        p /= np.trapezoid(p, lb)
        m = np.trapezoid(p * lb, lb)
        sd = math.sqrt(np.trapezoid(p * (lb - m) ** 2, lb))
        assert abs(math.sqrt(2 / n_minus) / sd - 1) < 0.04
