"""Lesson 2's exercises (:mod:`ensemble_lib.ui.exercises`): checks that answer back with a hint."""

from __future__ import annotations


import numpy as np


from ...models.mackay_gaussian import FIG1, MacKayGaussian
from ...ui.exercises import (AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real,
                             whole_number)
from .ensemble_panel import EnsemblePanel
from .plots import DEFAULTS, K_RANGE, _rel_error

# ---------------------------------------------------------------------------
# The exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: the error exercise 1 asks for, and the start β̄₀ it sets
_EX1_TOL, _EX1_BETA0 = 1e-12, 100.0


def first_sweep_below(N: int, xbar: float, S: float, beta0: float, tol: float = _EX1_TOL) -> int | None:
    """The first sweep k whose relative error |1/β̄_k − S/(N−1)| / (S/(N−1)) is below ``tol``
    (the panel's middle plot), or None within K_RANGE's sweeps."""
    rel = _rel_error(MacKayGaussian(N, xbar, S).ensemble_iterations(beta0, K_RANGE[1]))
    below = np.flatnonzero(rel < tol)
    return int(below[0]) if below.size else None


def _check_q1(ex1_panel, sweeps_N50, xbar_changes_kl):
    if not isinstance(ex1_panel, EnsemblePanel):
        raise AnswerError("ex1_panel must be the lesson's panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    v = ex1_panel.values()
    n50 = whole_number("sweeps_N50", sweeps_N50)
    changes = boolean("xbar_changes_kl", xbar_changes_kl)
    if v["N"] != 2 or not close(v["beta0"], _EX1_BETA0, 1e-6):
        return ("the panel should be at N = 2 and start β̄₀ = 100 (the right end of its slider); "
                "then move sweep k.")
    if v["k"] != first_sweep_below(2, v["xbar"], v["S"], v["beta0"]):
        return ("leave the panel at the FIRST sweep whose error in the middle plot is below 1e-12 "
                "(the readout's 1/β̄_k and S/(N−1) agree there to about 12 digits, one sweep earlier they do not).")
    if n50 != first_sweep_below(50, v["xbar"], v["S"], v["beta0"]):
        return ("count sweeps_N50 the same way at N = 50 (same x̄, S and β̄₀ as the panel): the error "
                "shrinks by a factor N per sweep.")
    if changes:
        return ("move x̄ and watch the readout's KL and F: does the posterior's shape depend on where "
                "the data sit, or only on N and S?")
    return None


def _wrong_q1(ns):
    panel = EnsemblePanel()  # a panel of its own: the lesson's stays as shown
    with panel.hold(update=False):
        panel.controls["N"].value, panel.controls["beta0"].value = 2, _EX1_BETA0
        panel.controls["k"].value = first_sweep_below(2, DEFAULTS["xbar"], DEFAULTS["S"], _EX1_BETA0) - 1
    return {"ex1_panel": panel, "sweeps_N50": 6, "xbar_changes_kl": True}  # one sweep short; x̄ "matters"


_Q2_CASES = ((0.4, 7, 3.0), (2.5, 3, 0.5), (0.01, 50, 20.0), (7.0, 2, 0.05))


def _check_q2(v_next, rate):
    got = function_values("v_next", function("v_next", v_next, "v_next(v, N, S)"), _Q2_CASES)
    want = [1 / MacKayGaussian(N, 0.0, S).ensemble_iterations(1 / v, 1)[1].beta_bar for v, N, S in _Q2_CASES]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("write β̄′ = b′c′ with 1/b′ = ½(Nσ²_(μ|D) + S), c′ = N/2 and σ²_(μ|D) = 1/(Nβ̄), then "
                "v′ = 1/β̄′; compare with one sweep of MacKayGaussian(N, 0, S).ensemble_iterations(1/v, 1).")
    Ns = (2, 5, 50)
    got = function_values("rate", function("rate", rate, "rate(N)"), [(N,) for N in Ns])
    if not all(close(g, MacKayGaussian(N, 0.0, 1.0).ensemble_iterations(1.0, 1).rate, 1e-9)
               for g, N in zip(got, Ns)):
        return "the rate is dv′/dv at the fixed point (the map is affine in v, so it is the same everywhere)."
    return None


def _wrong_q2(ns):
    # the conjugate iteration's shape (N + 1)/2 in place of MacKay's N/2
    return {"v_next": lambda v, N, S: (v + S) / (N + 1), "rate": lambda N: 1 / (N + 1)}


#: (N, S, a₀, b₀): the library's conjugate iteration allows a₀, b₀ ≥ 0
_Q3_CASES = ((5, 1.0, 0.0, 0.0), (3, 2.0, 1.5, 0.7), (20, 0.3, 0.25, 2.0))


def _check_q3(a0_mackay, fixed_point_conj):
    a0 = real("a0_mackay", a0_mackay)
    f = function("fixed_point_conj", fixed_point_conj, "fixed_point_conj(N, S, a0, b0)")
    got = function_values("fixed_point_conj", f, _Q3_CASES)
    want = [MacKayGaussian(N, 0.0, S).conjugate_iterations(1.0, 1, a0=a, b0=b).fixed_point
            for N, S, a, b in _Q3_CASES]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("set v′ = v in the conjugate update v′ = (2b₀ + S + v)/(2a₀ + N + 1) and solve for v; "
                "MacKayGaussian(N, 0, S).conjugate_iterations(1, 60, a0=…, b0=…) converges to it.")
    # MacKay's S/(N − 1) for every N, from the library's separable ensemble (a₀ < 0 is outside the
    # conjugate iteration's domain, so the student's formula is compared with it directly)
    models = [MacKayGaussian(N, 0.0, S) for N, S in ((2, 1.0), (5, 1.0), (30, 4.0))]
    if not all(close(real("fixed_point_conj(...)", f(m.N, m.S, a0, 0.0)),
                     m.ensemble_iterations(1.0, 1).fixed_point, 1e-9) for m in models):
        return "choose a₀ so that your fixed point with b₀ = 0 equals S/(N − 1) for every N."
    return None


def _wrong_q3(ns):
    # the textbook "vague" a0 = 0 and the shape without the ½ from Q_μ
    return {"a0_mackay": 0.0, "fixed_point_conj": lambda N, S, a0, b0: (2 * b0 + S) / (2 * a0 + N + 1)}


def _q_and_exact_var_beta(model: MacKayGaussian = FIG1):
    it = model.ensemble_iterations(1.0, K_RANGE[1])[-1]
    return it.b ** 2 * it.c, model.marginal_beta().var()


def _check_q4(var_ratio, q_narrower):
    ratio, narrower = real("var_ratio", var_ratio), boolean("q_narrower", q_narrower)
    q_var, exact_var = _q_and_exact_var_beta()
    if not close(ratio, q_var / exact_var, 1e-6):
        return ("var_ratio is Var_Q[β] / Var_P[β] at convergence on Fig. 1's data: a Gamma of shape c and "
                "scale b has variance b²c (the iterate's .b and .c); the exact one is fig1.marginal_beta().")
    if narrower != (q_var < exact_var):
        return "compare the two variances: which distribution is wider, and which way does KL(Q‖P) push?"
    return None


def _wrong_q4(ns):
    q_var, exact_var = _q_and_exact_var_beta()
    return {"var_ratio": exact_var / q_var, "q_narrower": False}  # the ratio upside down


#: lesson 2's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("02_mackay_gaussian_mean_sigma.ipynb", (
    Exercise("q1", ("ex1_panel", "sweeps_N50", "xbar_changes_kl"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("v_next", "rate"), _check_q2, _wrong_q2),
    Exercise("q3", ("a0_mackay", "fixed_point_conj"), _check_q3, _wrong_q3),
    Exercise("q4", ("var_ratio", "q_narrower"), _check_q4, _wrong_q4),
))


__all__ = ["EXERCISES"]
