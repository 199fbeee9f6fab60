"""Lesson 2's quantitative sentences, each found word for word and asserted on numbers computed here
(tests/_claims.py). The iteration's numbers come from the library's MacKayGaussian; the independent
references are scipy's optimiser and quadrature, and the closed forms written out below."""

import math

import numpy as np
import pytest
from _claims import sentence
from scipy import integrate, optimize, stats

from ensemble_lib.lessons import mean_sigma as ml
from ensemble_lib.models.mackay_gaussian import MacKayGaussian
from ensemble_lib.ui.panel_controls import grid_value

NB = "02_mackay_gaussian_mean_sigma.ipynb"
FIG1 = MacKayGaussian(5, 1.0, 1.0)


def test_fig1_uses_n5_mean1_s1():
    sentence(NB, "Fig. 1 of the paper uses $N = 5$, $\\bar x = 1.0$ and $S = \\sum(x-\\bar x)^2 = 1.0$")
    assert (ml.FIG1.N, ml.FIG1.xbar, ml.FIG1.S) == (5, 1.0, 1.0)


def test_evidence_is_finite_for_n_at_least_2_and_matches_its_closed_form():
    sentence(NB, "finite for $N\\ge2$")
    for N, S in ((2, 0.3), (5, 1.0), (40, 7.0)):
        m = MacKayGaussian(N, 0.4, S)
        closed = (math.log(0.5) - (N - 1) / 2 * math.log(2 * math.pi) - 0.5 * math.log(N)
                  + math.lgamma((N - 1) / 2) + (N - 1) / 2 * math.log(2 / S))
        assert np.isfinite(m.log_evidence) and m.log_evidence == pytest.approx(closed, rel=1e-12)


def test_likelihood_section_peaks_at_sigma_n_and_evidence_at_sigma_n1():
    sentence(NB, "A vertical section at $\\mu=\\bar x$\npeaks at $\\sigma_N$; the evidence for $\\sigma$ "
                 "(μ marginalised) peaks at $\\sigma_{N-1}$")
    for m in (FIG1, MacKayGaussian(3, -1.0, 2.5)):
        lik = optimize.minimize_scalar(lambda u: -m.log_likelihood(m.xbar, math.exp(u)), bracket=(-2, 0), tol=1e-12)
        ev = optimize.minimize_scalar(lambda u: -m.log_evidence_sigma(math.exp(u)), bracket=(-2, 0), tol=1e-12)
        assert math.exp(lik.x) == pytest.approx(math.sqrt(m.S / m.N), rel=1e-6)
        assert math.exp(ev.x) == pytest.approx(math.sqrt(m.S / (m.N - 1)), rel=1e-6)
        assert math.exp(ev.x) > math.exp(lik.x)


def test_student_t_marginal_is_heavier_tailed_than_a_gaussian():
    sentence(NB, "heavier-tailed than any Gaussian")
    t = FIG1.marginal_mu()
    g = stats.norm(FIG1.xbar, t.std() if np.isfinite(t.std()) else 1.0)
    far = FIG1.xbar + 10 * FIG1.t_scale
    assert t.pdf(far) / t.pdf(FIG1.xbar) > g.pdf(FIG1.xbar + 10 * g.std()) / g.pdf(FIG1.xbar)
    assert integrate.quad(t.pdf, -np.inf, np.inf)[0] == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("N", [2, 5, 50])
def test_error_shrinks_by_exactly_1_over_n_per_sweep(N):
    sentence(NB, "The error therefore\nshrinks by a factor $N$ every sweep — fast for large $N$, "
                 "slowest ($\\times\\tfrac12$) at $N=2$")
    run = MacKayGaussian(N, 0.0, 1.7).ensemble_iterations(3.0, 4)
    v = 1 / run.beta_bar
    v_star = 1.7 / (N - 1)  # (19), written out
    ratios = (v[1:] - v_star) / (v[:-1] - v_star)
    assert np.allclose(ratios, 1 / N, rtol=1e-9)
    assert max(1 / n for n in range(2, 51)) == 0.5  # slowest at N = 2


def test_bound_rises_every_sweep_and_kl_settles_positive():
    sentence(NB, "$F$ rises at every sweep")
    sentence(NB, "settles at a **positive** value")
    run = FIG1.ensemble_iterations(1.0, 40)
    assert np.all(np.diff(run.bound) > -1e-12) and run.bound[1] > run.bound[0]
    grid = FIG1.posterior_grid(n_mu=301, n_log_sigma=301)
    assert grid.log_Z - run[-1].bound == pytest.approx(run[-1].kl, abs=1e-4)  # KL = ln P(D) − F, by quadrature
    assert run[-1].kl > 0.1


def test_conjugate_iteration_converges_to_s_over_n_at_rate_1_over_n_plus_1():
    sentence(NB, "$$v^* = S/N = \\sigma_N^2 \\quad\\text{at rate } 1/(N+1).$$")
    for N, S in ((5, 1.0), (3, 2.0)):
        conj = MacKayGaussian(N, 0.0, S).conjugate_iterations(1.0, 60)
        v = 1 / conj.beta_bar
        assert v[-1] == pytest.approx(S / N, rel=1e-12)
        assert (v[2] - S / N) / (v[1] - S / N) == pytest.approx(1 / (N + 1), rel=1e-9)


def test_both_iterations_converge_to_the_exact_posterior_mean_of_beta_under_their_prior():
    sentence(NB, "Both iterations converge to the exact posterior mean of $\\beta$ *under their own prior*")
    sentence(NB, "At convergence, $\\bar\\beta$ equals the exact posterior mean of $\\beta$")
    # β | D under 1/σ (β^-1): Gamma((N−1)/2, rate S/2); under β^-1/2: Gamma(N/2, rate S/2)
    N, S = FIG1.N, FIG1.S
    assert FIG1.ensemble_iterations(1.0, 60)[-1].beta_bar == pytest.approx((N - 1) / S, rel=1e-12)
    assert FIG1.marginal_beta().mean() == pytest.approx((N - 1) / S, rel=1e-12)
    assert FIG1.conjugate_iterations(1.0, 60)[-1].beta_bar == pytest.approx(N / S, rel=1e-12)


def test_where_it_opens_the_first_sweep_lies_above_both_limits():
    said = sentence(NB, "1/β̄₁ = 0.4, above both limits: MacKay's S/(N − 1) = 0.25, which the sweeps approach "
                        "from above, and the conjugate S/N = 0.2")
    run = MacKayGaussian(ml.DEFAULTS["N"], ml.DEFAULTS["xbar"], ml.DEFAULTS["S"]).ensemble_iterations(
        ml.DEFAULTS["beta0"], 40)
    v = 1 / run.beta_bar
    N, S = ml.DEFAULTS["N"], ml.DEFAULTS["S"]
    v1, mackay, conj = v[ml.DEFAULTS["k"]], S / (N - 1), S / N
    assert f"= {v1:.6g}," in said and f"= {mackay:.6g}," in said and f"= {conj:.6g};" in said
    assert v1 > mackay > conj
    assert np.all(np.diff(v) <= 0) and np.all(v >= mackay)  # approached from above


def test_the_s_slider_shows_and_holds_exactly_the_texts_s_equals_1():
    sentence(NB, "$S = \\sum(x-\\bar x)^2 = 1.0$")
    panel = ml.EnsemblePanel()
    s = panel.controls["S"]
    assert s.value == 1.0 and grid_value(s, 1.0) == 1.0  # the front end sends back exactly 1
    assert grid_value(panel.controls["beta0"], 1.0) == 1.0 and grid_value(panel.controls["beta0"], 100.0) == 100.0


def test_exercise_1s_start_is_the_slider_right_end_and_the_error_bottoms_out_at_rounding():
    sentence(NB, "the start $\\bar\\beta_0 = 100$ (the\nslider's right end)")
    sentence(NB, "(it bottoms out at machine precision)")
    assert ml.BETA0_RANGE[1] == 100.0 and ml.N_RANGE[0] <= 2
    k = ml.first_sweep_below(2, 1.0, 1.0, 100.0)
    assert k is not None and k < ml.K_RANGE[1]  # the slider reaches it
    rel = MacKayGaussian(2, 1.0, 1.0).ensemble_iterations(100.0, ml.K_RANGE[1])
    assert (rel.error / rel.fixed_point)[-1] < 1e-14


def test_readout_says_why_when_the_error_stops_shrinking_or_the_start_is_the_fixed_point():
    panel = ml.EnsemblePanel()
    assert ml.story_notes(panel.compute(**panel.values())) == []  # the opening follows the story
    with panel.hold(update=False):
        panel.controls["N"].value, panel.controls["beta0"].value, panel.controls["k"].value = 2, 100.0, 60
    notes = ml.story_notes(panel.compute(**panel.values()))
    assert len(notes) == 1 and "rounding" in notes[0] and "stops shrinking" in notes[0]
    st = panel.compute(**{**panel.values(), "beta0": 1.0})  # N = 2, S = 1: 1/β̄₀ = S/(N − 1)
    assert "already the fixed point" in ml.story_notes(st)[0]
    assert "already the fixed point" in panel.format_readout(st)


def test_occam_factor_grows_with_sigma():
    sentence(NB, "The last term, the Occam factor, grows with $\\sigma$")
    s = np.linspace(0.1, 3, 50)
    occam = FIG1.log_evidence_sigma(s) - (FIG1.log_likelihood(FIG1.xbar, s))  # (14) minus the best fit
    assert np.all(np.diff(occam) > 0)
    assert np.allclose(occam, np.log(np.sqrt(2 * np.pi) * s / np.sqrt(FIG1.N)), atol=1e-12)


def test_q_sigma_is_narrower_by_the_factor_n_minus_1_over_n():
    """Exercise 4's solution says Var_Q[β] / Var_P[β] = (N − 1)/N (a comment in a solution cell)."""
    for N, S in ((5, 1.0), (3, 2.0), (20, 0.4)):
        m = MacKayGaussian(N, 0.0, S)
        it = m.ensemble_iterations(1.0, 60)[-1]
        exact = stats.gamma((N - 1) / 2, scale=2 / S)  # β | D, written out
        assert it.b ** 2 * it.c / exact.var() == pytest.approx((N - 1) / N, rel=1e-9)
        assert m.marginal_beta().var() == pytest.approx(exact.var(), rel=1e-12)
