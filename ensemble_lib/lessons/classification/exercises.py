"""Lesson 8's four exercises (:mod:`ensemble_lib.ui.exercises`): ``check("q1")`` … ``check("q4")``."""

from __future__ import annotations


import numpy as np

from ...models.classification import LogisticPosterior, moderated_output, softmax_log_likelihood
from ...ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real
from .fig9 import B_DISTANCE, ModeratedPanel, fig9_state, predictive_at
from .neuron import NeuronPanel


# ---------------------------------------------------------------------------
# The exercises
# ---------------------------------------------------------------------------

_EX1 = {"n": 30, "alpha": 1.0, "seed": 0}


def _check_q1(ex1_panel, kl_full, laplace_below):
    if not isinstance(ex1_panel, NeuronPanel):
        raise AnswerError("ex1_panel must be the lesson's neuron panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    kl = real("kl_full", kl_full)
    below = boolean("laplace_below", laplace_below)
    v = ex1_panel.values()
    if v["n"] != _EX1["n"] or v["seed"] != _EX1["seed"] or not close(v["alpha"], _EX1["alpha"], 1e-6):
        return "set the panel to N = 30 (the slider's right end), α = 1 and data seed 0, and leave it there."
    f = ex1_panel.update()
    if abs(kl - f.kls["full"]) > 6e-5:  # the readout's 4 decimals
        return "read KL(Q‖P) of the full Gaussian (the 'KL, full' row of the readout), to 4 decimals."
    if below != (f.log_evidence_laplace < f.log_evidence):
        return "compare the readout's ln P(D | α): is Laplace's number smaller than the exact one?"
    return None


def _wrong_q1(ns):
    p = NeuronPanel()  # a panel of its own (at the start values): the lesson's stays as shown
    st = p.update()
    return {"ex1_panel": p, "kl_full": st.kls["laplace"], "laplace_below": False}


_S2_CASES = ((0.0,), (0.5,), (2.0,), (10.0,), (100.0,))


def _check_q2(kappa, p_moderated_B):
    got = function_values("kappa", function("kappa", kappa, "kappa(s2)"), _S2_CASES)
    # the library's ψ at a_MP = 1 is σ(κ(s)): its logit is κ, so the check does not restate the formula
    want = [float(np.log(p / (1.0 - p))) for p in (moderated_output(1.0, s2) for (s2,) in _S2_CASES)]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("κ(s) is the factor that multiplies a_MP inside σ; it is 1 at s² = 0 and shrinks like "
                "1/s for large s (MacKay §5.4, the probit with the sigmoid's slope at 0).")
    p = real("p_moderated_B", p_moderated_B)
    want_b = predictive_at(fig9_state(), B_DISTANCE)["moderated"]
    if not close(p, want_b, 1e-6):
        return ("p_moderated_B is σ(κ(s) a_MP) at B with a_MP = w_MP·(x_B, 1) and s² = (x_B, 1)ᵀ A⁻¹ (x_B, 1) "
                "from the Laplace Gaussian (fig9.gaussians['laplace']); the panel's readout at the slider's "
                "right end shows it.")
    return None


def _wrong_q2(ns):
    # κ without the square root, and the best fit's 0.9 at B
    return {"kappa": lambda s2: 1.0 / (1.0 + np.pi * s2 / 8.0), "p_moderated_B": 0.9}


def _check_q3(w_equiv):
    f = function("w_equiv", w_equiv, "w_equiv(W)")
    rng = np.random.default_rng(8)
    for _ in range(3):
        x = rng.normal(size=(7, 2))
        W = rng.normal(size=(2, 2))
        t = rng.integers(0, 2, size=7)
        w = np.asarray(f(W), dtype=float)
        if w.shape != (2,):
            raise AnswerError(f"w_equiv(W) must return 2 numbers (one weight per input), got shape {w.shape}")
        soft = softmax_log_likelihood(W, x, np.eye(2)[t])[0]
        if not close(float(LogisticPosterior(x, t, 1.0).log_likelihood(w)), soft, 1e-9):
            return ("with two classes y₁ = e^{a₁}/(e^{a₀} + e^{a₁}): divide top and bottom by e^{a₁} and "
                    "compare with σ(w·x); which combination of W's columns is w?")
    return None


def _wrong_q3(ns):
    return {"w_equiv": lambda W: np.asarray(W)[:, 1]}  # the class-1 column alone


#: exercise 4: the exact predictive's level the test point is moved to, and the approximations compared
_EX4_LEVEL = 0.7
_EX4_CHOICES = ("moderated", "laplace", "diagonal", "full")


def _check_q4(ex4_panel, d_07, closest):
    if not isinstance(ex4_panel, ModeratedPanel):
        raise AnswerError("ex4_panel must be the lesson's moderated-output panel (ex4_panel = mod_panel), "
                          f"got {type(ex4_panel).__name__}")
    d = real("d_07", d_07)
    if not isinstance(closest, str) or closest not in _EX4_CHOICES:
        raise AnswerError(f"closest must be one of {', '.join(repr(c) for c in _EX4_CHOICES)}, got {closest!r}")
    st = ex4_panel.fig9
    exact = [predictive_at(st, x)["exact"] for x in st.distances]
    below = [x for x, e in zip(st.distances, exact) if e < _EX4_LEVEL]
    want = float(below[0])
    at = ex4_panel.values()["distance"]
    if not close(at, want, 1e-9):
        if at < want:
            return ("move the test point further out: the readout's exact P(t = 1 | x, D) at ★ is still "
                    "0.7 or more there.")
        return ("move the test point back: the exact predictive at ★ is already below 0.7 one step "
                "nearer to A; leave it at the first stored distance where it is.")
    if not close(d, want, 1e-9):
        return "d_07 is the test point's distance from A, the number in the readout's first line."
    p = predictive_at(st, want)
    best = min(_EX4_CHOICES, key=lambda k: abs(p[k] - p["exact"]))
    if closest != best:
        return ("compare the column ★ − exact of the readout: the approximation with the smallest "
                "difference in size, whatever its sign, is the closest.")
    return None


def _wrong_q4(ns):
    # the slider's right end (B) and the approximation MacKay recommends
    p = ModeratedPanel()  # a panel of its own: the lesson's stays as shown
    p.set_values({"distance": B_DISTANCE})
    return {"ex4_panel": p, "d_07": B_DISTANCE, "closest": "moderated"}


#: lesson 8's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("08_classification.ipynb", (
    Exercise("q1", ("ex1_panel", "kl_full", "laplace_below"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("kappa", "p_moderated_B"), _check_q2, _wrong_q2),
    Exercise("q3", ("w_equiv",), _check_q3, _wrong_q3),
    Exercise("q4", ("ex4_panel", "d_07", "closest"), _check_q4, _wrong_q4, uses_panel="mod_panel"),
))


__all__ = ["EXERCISES"]
