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
from ensemble_lib.inference.evidence import evidence_reestimation
from ensemble_lib.inference.toy_fits import fit_all
from ensemble_lib.lessons import bound as bl
from ensemble_lib.models.toy import kl_by_quadrature

NB = "03_bound_and_hyperparameters.ipynb"
PRIOR = bl.GammaHyperprior(a=0.25, b=400.0, c=0.05, d=2000.0)


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
    assert bl.iteration_notes(panel.compute("ensemble", 0)) == []  # where the panel opens: the story holds


def test_the_printed_31_roughly_halves_alpha_bar(comp):
    """Exercise 2's solution says the printed −α‖w‖² of (31) would roughly halve ᾱ (a solution comment)."""
    run = comp.ensemble
    ww = run.mean @ run.mean + np.trace(run.cov)
    k = comp.posterior.dim
    right = (k / 2 + PRIOR.a) / (ww / 2 + 1 / PRIOR.b)
    printed = (k / 2 + PRIOR.a) / (ww + 1 / PRIOR.b)
    R, _ = bl.gamma_updates(comp.posterior, run.mean, run.cov, PRIOR)
    assert R.mean == pytest.approx(right, rel=1e-12)
    assert 0.45 < printed / right < 0.55
