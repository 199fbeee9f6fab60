"""Lesson 5's quantitative sentences, each asserted on numbers the library computes here afresh
(tests/_claims.py: the sentence is found word for word, then what it says is checked)."""

from __future__ import annotations

import numpy as np
import pytest

from _claims import sentence
from ensemble_lib import reparam_gradient, svi_fit
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.lessons import stochastic_vi as L

NB = "05_deterministic_vs_stochastic_vi.ipynb"
SEED = 5  # the lesson's


@pytest.fixture(scope="module")
def post():
    return L.lesson_posterior()


@pytest.fixture(scope="module")
def lesson_run(post):
    """The lesson's §3 draws and §3–4 comparison, from its seed, in its order."""
    rng = np.random.default_rng(SEED)
    fam = CovarianceFamily.make("full", 2)
    theta = fam.pack(*L.LESSON_START)
    draws = np.array([reparam_gradient(post, fam, theta, rng.standard_normal((1, 2))) for _ in range(4000)])
    comp = L.run_comparison(post, "full", rng=rng, step_size=L.DEFAULT_STEP, n_iter=L.N_ITER)
    return kl_objective(post, fam, theta)[1], draws, comp


def test_the_exact_fit_converges_in_a_few_dozen_iterations(post):
    sentence(NB, "converges in a few dozen iterations")
    assert 12 <= L.exact_fit(post, "full").n_iter < 100


def test_the_mc_mean_is_within_a_few_standard_errors_and_one_draw_is_63_times_noisier(lesson_run):
    sentence(NB, "agrees with the exact gradient within a few standard errors in every component")
    sentence(NB, "$\\sqrt{4000}\\approx 63$ times the standard error")
    sentence(NB, "the stochastic gradient is unbiased for it")
    exact, draws, _ = lesson_run
    z = (draws.mean(axis=0) - exact) / (draws.std(axis=0, ddof=1) / np.sqrt(len(draws)))
    assert np.all(np.abs(z) < 4)
    assert round(np.sqrt(4000)) == 63


def test_curvature_of_the_mean_differs_by_about_140(post):
    sentence(NB, "the curvature along the two directions of the mean differs by a factor of about 140")
    # at the KL optimum ∂²KL/∂w̄² = <∇∇φ>_Q = C⁻¹ (the fixed point of the covariance); checked here by
    # central differences of the exact gradient
    fit = L.exact_fit(post, "full")
    fam = CovarianceFamily.make("full", 2)
    H = np.array([(kl_objective(post, fam, fit.theta + 1e-5 * e)[1][:2]
                   - kl_objective(post, fam, fit.theta - 1e-5 * e)[1][:2]) / 2e-5 for e in np.eye(5)[:2]])
    ev = np.linalg.eigvalsh(0.5 * (H + H.T))
    assert 120 < ev[-1] / ev[0] < 170
    assert np.isclose(ev[-1] / ev[0], np.linalg.cond(fit.cov), rtol=1e-3)


def test_the_schedule_constants_are_the_ones_the_text_gives():
    sentence(NB, "Here $a = 0.05$, $\\tau = 200$, $\\kappa = 1$.")
    sentence(NB, "(fixed or decaying, $\\tau = 200$, $\\kappa = 1$)")
    sentence(NB, "Each change runs 1000 SVI steps from the common start")
    assert (L.DEFAULT_STEP, L.DEFAULT_TAU, L.DEFAULT_KAPPA, L.PANEL_N_ITER) == (0.05, 200.0, 1.0, 1000)


def test_all_runs_fall_fast_fixed_ones_settle_at_a_floor_that_S16_lowers_and_decaying_gets_closer(lesson_run):
    sentence(NB, "All four runs fall quickly at first")
    sentence(NB, "More draws per step ($S = 16$) lower the floor but do not remove it")
    sentence(NB, "more draws per step lower it")
    _, _, comp = lesson_run
    for h in comp.runs.values():
        assert h.kl[h.iterations <= 300][-1] < 0.05 * h.kl[0]
    f = comp.floors(0.5)
    for S in (1, 16):
        assert comp.runs[(S, "fixed")].settling(0.5).settled
        assert f[(S, "decaying")] < f[(S, "fixed")]
    assert f[(16, "fixed")] < f[(1, "fixed")] and f[(16, "fixed")] > max(f[(1, "decaying")], f[(16, "decaying")])


def test_the_quoted_numpyro_and_pymc_figures_are_the_ones_printed():
    sentence(NB, "NumPyro ≈ 1 s end to end with a 0.02–0.08 nat noise floor at fixed step size; PyMC ADVI 2–6 s")
    assert (L.NUMPYRO_SECONDS, L.NUMPYRO_FLOOR, L.PYMC_ADVI_SECONDS) == (1.0, (0.02, 0.08), (2.0, 6.0))


def test_the_exact_fit_takes_milliseconds(lesson_run):
    sentence(NB, "the exact fit takes milliseconds, to full precision")
    _, _, comp = lesson_run
    assert comp.exact_seconds < 0.5 and comp.exact.grad_norm <= 1e-9


def test_where_the_panel_opens(post):
    sentence(NB, "The exact KL of the common start is 210.3718; after 1000 SVI steps it is 1.6475, "
                 "against the quadrature optimum 1.5513")
    h = svi_fit(post, "full", rng=np.random.default_rng(0), n_samples=1, step_size=L.DEFAULT_STEP, schedule="fixed",
                n_iter=L.PANEL_N_ITER, tau=L.DEFAULT_TAU, kappa=L.DEFAULT_KAPPA, kl_every=10, init=L.LESSON_START)
    shown = (f"{h.kl[0]:.4f}", f"{h.final_kl:.4f}", f"{L.exact_fit(post, 'full').kl:.4f}")
    assert shown == ("210.3718", "1.6475", "1.5513")


def test_exercise_1_facts_floor_grows_with_a_and_small_a_decaying_stops_short(post):
    sentence(NB, "move $a$ through 0.005, 0.01, 0.02, 0.05, 0.1 and 0.2")
    assert L.STEP_RANGE[0] <= min(L.EX1_STEPS) and max(L.EX1_STEPS) <= L.STEP_RANGE[1]
    opt = L.exact_fit(post, "full").kl

    def run(a, schedule):
        return svi_fit(post, "full", rng=np.random.default_rng(0), n_samples=1, step_size=a, schedule=schedule,
                       n_iter=L.PANEL_N_ITER, tau=L.DEFAULT_TAU, kappa=L.DEFAULT_KAPPA, kl_every=10,
                       init=L.LESSON_START)
    settled = [(a, run(a, "fixed")) for a in (0.05, 0.1, 0.2)]
    assert all(h.settling(0.5).settled for _, h in settled)
    gaps = [h.tail_kl(0.5) - opt for _, h in settled]
    assert L.EX1_FLOOR_GROWS_WITH_A == bool(np.all(np.diff(gaps) > 0))
    assert not run(0.01, "fixed").settling(0.5).settled  # exercise 1's plausible wrong answer fails
    short = run(0.005, "decaying").tail_kl(0.5) > run(0.005, "fixed").tail_kl(0.5)
    assert L.EX1_DECAYING_SMALL_A_STOPS_SHORT == short
