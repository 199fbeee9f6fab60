"""Lesson 9's exercises and their checks (:data:`EXERCISES`)."""

from __future__ import annotations

from ...ui.exercises import AnswerError, Exercise, ExerciseSet, close, real, whole_number
from .estimates import N_OPTIONS
from .panels import LeapfrogPanel, MonteCarloPanel

# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------


def _check_q1(ex1_panel, n_needed):
    if not isinstance(ex1_panel, MonteCarloPanel):
        raise AnswerError("ex1_panel must be the MonteCarloPanel of the lesson (or one of your own)")
    n = whole_number("n_needed", n_needed)
    r = ex1_panel.runs
    target = abs(r.kl_full - r.exact) / 2
    want = next((k for k, s in zip(N_OPTIONS, r.se) if s <= target), None)
    st = getattr(ex1_panel, "state", None)
    if st is None or st.n != n:
        return "leave the panel's slider at your answer, so that the check can read it."
    if n != want:
        return ("read the ± in the readout as you move the slider: the first n (per chain) whose standard "
                "error is at most half the KL Gaussian's error against the exact value.")
    return None


def _wrong_q1(ns):
    p = MonteCarloPanel()  # a panel of its own, left at the start (all draws): the lesson's stays as shown
    p.update()
    return {"ex1_panel": p, "n_needed": p.state.n}


def _check_q2(n_for_quarter_se):
    n = whole_number("n_for_quarter_se", n_for_quarter_se)
    if n != 400 * 16:
        return "the standard error falls as 1/√n: to divide it by 4, how many times more draws?"
    return None


def _wrong_q2(ns):
    return {"n_for_quarter_se": 1600}


def _check_q3(ex3_panel, accept_drawn):
    if not isinstance(ex3_panel, LeapfrogPanel):
        raise AnswerError("ex3_panel must be a LeapfrogPanel")
    a = real("accept_drawn", accept_drawn)
    st = getattr(ex3_panel, "state", None)
    if st is None or (st.eps, st.n_steps) != (0.065, 20):
        return "set the panel to ε = 0.065 and L = 20 and leave it there."
    if not close(a, st.accept_drawn, 1e-3):
        return "Metropolis accepts the end of the trajectory with probability min(1, exp(−ΔH)); ΔH is in the readout."
    return None


def _wrong_q3(ns):
    p = LeapfrogPanel()
    with p.hold():
        p.controls["eps"].value = 0.065
    return {"ex3_panel": p, "accept_drawn": p.state.accept_prob}


#: lesson 9's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("09_monte_carlo.ipynb", (
    Exercise("q1", ("ex1_panel", "n_needed"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("n_for_quarter_se",), _check_q2, _wrong_q2),
    Exercise("q3", ("ex3_panel", "accept_drawn"), _check_q3, _wrong_q3, uses_panel="leap_panel"),
))

__all__ = ["EXERCISES"]
