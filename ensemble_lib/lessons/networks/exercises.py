"""Lesson 4's exercises (:mod:`ensemble_lib.ui.exercises`): ``check("q1")`` … ``check("q5")`` in the lesson."""

import math

import numpy as np

from ...core.gaussian import CovarianceFamily
from ...models.network import predictive_mean
from ...studies.network_demo import DEMO_NOISE_SD
from ...studies.retraining_demo import N_MACKAY, X_GAP, retraining_summary
from ...studies.table1 import load_table
from ...ui.exercises import (AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real,
                             whole_number)
from .demo_panel import Network1DPanel


# ---------------------------------------------------------------------------
# Exercises (ensemble_lib.ui.exercises): check("q1") … check("q4") in the lesson
# ---------------------------------------------------------------------------

#: exercise 1's panel setting (H, s, adapted) and the α's it compares
_EX1_SETTING = {"n_hidden": 4, "rank": 0, "adapt": True}
_EX1_ALPHAS = (0.01, 100.0)


def _ex1_bars(panel: Network1DPanel) -> tuple[float, float]:
    """The ensemble's error bar at x = 0 at H = 2, diagonal, fixed α = 0.01 and α = 100."""
    out = []
    for a in _EX1_ALPHAS:
        s = panel.compute(n_hidden=2, rank=0, alpha=a, adapt=False)
        out.append(float(s.ens_sd[s.x_grid.size // 2]))
    return out[0], out[1]


def _check_q1(ex1_panel, noise_sd, bar_shrinks):
    if not isinstance(ex1_panel, Network1DPanel):
        raise AnswerError("ex1_panel must be the lesson's panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    noise = real("noise_sd", noise_sd)
    shrinks = boolean("bar_shrinks", bar_shrinks)
    v = ex1_panel.values()
    if (v["n_hidden"], v["rank"], bool(v["adapt"])) != (4, 0, True):
        return "leave the panel at H = 4, s = 0 (diagonal), with \"adapt hyperparameters\" ticked."
    state = ex1_panel.compute(**v)
    if not close(noise, 1.0 / math.sqrt(state.ens_beta), 0.02):
        return ("the noise s.d. the ensemble infers is 1/√β̄, with β̄ the ensemble's beta in the readout "
                "(not the s.d. the data were made with).")
    lo, hi = _ex1_bars(ex1_panel)
    if shrinks != (hi < lo):
        return ("untick \"adapt\", set H = 2 and s = 0, and compare the ensemble's error bar at x = 0 in the "
                "readout at the left and the right end of the α slider.")
    return None


def _wrong_q1(ns):
    panel = Network1DPanel()  # a panel of its own: the lesson's stays as shown
    with panel.hold(update=False):
        for name, value in _EX1_SETTING.items():
            panel.controls[name].value = value
    lo, hi = _ex1_bars(panel)
    return {"ex1_panel": panel, "noise_sd": DEMO_NOISE_SD, "bar_shrinks": not hi < lo}  # the data's noise


_Q2_CASES = ((0.4, -1.2, 2.0, 0.6), (-1.0, 0.5, 0.3, -0.2), (2.0, 1.5, 5.0, 1.1), (0.0, -0.7, 0.1, 0.05))


def _q2_library(a_bar, v_bar, var_a, c):
    """⟨v σ(a)⟩ from the library: a one-unit network with weights (u, v) = (a, v) on the input 1."""
    cov = np.array([[var_a, c], [c, 1.0]])
    return float(predictive_mean(np.array([a_bar, v_bar]), cov, np.ones((1, 1)), 1)[0])


def _check_q2(v_sigma_mean):
    f = function("v_sigma_mean", v_sigma_mean, "v_sigma_mean(a_bar, v_bar, var_a, c)")
    got = function_values("v_sigma_mean", f, _Q2_CASES)
    want = [_q2_library(*case) for case in _Q2_CASES]
    if all(close(g, w_, 1e-8) for g, w_ in zip(got, want)):
        return None
    if all(close(g, w_, 1e-8) for g, w_ in zip(got, [_q2_library(a, v, va, 0.0) for a, v, va, _ in _Q2_CASES])):
        return "your c-term is missing or zero: Stein's lemma turns the part of v correlated with a into c⟨σ′(a)⟩."
    return ("σ(a) = erf(a/√2); ⟨σ(a)⟩ = σ(ā/λ), and ⟨σ′(a)⟩ is the derivative of ⟨σ(a)⟩ with respect to ā "
            "(the chain rule through ā/λ).")


def _wrong_q2(ns):
    def forgot_lambda(a_bar, v_bar, var_a, c):
        lam = math.sqrt(1 + var_a)
        return v_bar * math.erf(a_bar / lam / math.sqrt(2)) + c * math.sqrt(2 / math.pi) * math.exp(
            -0.5 * (a_bar / lam) ** 2)  # the chain rule's 1/λ forgotten
    return {"v_sigma_mean": forgot_lambda}


_Q3_CASES = ((60, 0), (60, 1), (60, 4), (6, 2), (48, 3))


def _family_params(k: int, s: int) -> int:
    return CovarianceFamily.make("diagonal" if s == 0 else "factor", k, None if s == 0 else s).n_params


def _check_q3(n_params, n_full_boston):
    f = function("n_params", n_params, "n_params(k, s)")
    got = [whole_number(f"n_params{case}", f(*case)) for case in _Q3_CASES]
    full = whole_number("n_full_boston", n_full_boston)
    if got != [_family_params(k, s) for k, s in _Q3_CASES]:
        return ("count every number Q is made of: the mean w̄ (k numbers) as well as the k diagonal "
                "entries d_j and the s factor vectors s_i (k numbers each).")
    if full != CovarianceFamily.make("full", 60).n_params:
        return "the full family: the mean (k numbers) and a symmetric k × k C (its upper triangle)."
    return None


def _wrong_q3(ns):
    return {"n_params": lambda k, s: k * (s + 1), "n_full_boston": 60 * 61 // 2}  # the covariance alone


_PAPER_ORDER = ("ensemble_s1", "ensemble_diagonal", "laplace_evidence")


def _q4_truth() -> tuple[np.ndarray, int]:
    """s = 1's test errors over the stored Boston splits, and the splits with the paper's order."""
    boston = load_table("boston")
    vals = np.array([s["methods"]["ensemble_s1"]["test_mse"] for s in boston["splits"]])
    order = [tuple(sorted(_PAPER_ORDER, key=lambda k: s["methods"][k]["test_mse"])) for s in boston["splits"]]
    return vals, sum(o == _PAPER_ORDER for o in order)


def _check_q4(sd_s1, paper_order_splits):
    sd = real("sd_s1", sd_s1)
    n = whole_number("paper_order_splits", paper_order_splits)
    vals, want = _q4_truth()
    if not any(close(sd, vals.std(ddof=dd), 0.01) for dd in (0, 1)):
        if close(sd, vals.std(ddof=1) / math.sqrt(vals.size), 0.01):
            return "that is the standard error of the mean; the question asks for the spread of the single splits."
        return ("take s = 1's test error on each of the stored splits (boston[\"splits\"][i][\"methods\"]) and "
                "their standard deviation.")
    if n != want:
        return ("on each split, sort the three methods of the paper by their test error and count the splits "
                "where s = 1 < diagonal < Laplace.")
    return None


def _wrong_q4(ns):
    vals, want = _q4_truth()
    return {"sd_s1": vals.std(ddof=1) / math.sqrt(vals.size), "paper_order_splits": want + 1}



def _q5_truth() -> tuple[list[float], bool]:
    s = retraining_summary()
    j = int(np.argmin(np.abs(s.x_grid - X_GAP)))
    f12 = s.curves["prior"][:N_MACKAY, j]
    sds = [math.sqrt(f12.var(ddof=dd) + 1.0 / s.beta) for dd in (0, 1)]
    return sds, bool(s.at("retrain", X_GAP) > s.at("retrain_no_prior", X_GAP))


def _check_q5(sd_gap, prior_widens):
    sd = real("sd_gap", sd_gap)
    widens = boolean("prior_widens", prior_widens)
    sds, want = _q5_truth()
    if not any(close(sd, w, 1e-3) for w in sds):
        s = retraining_summary()
        f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
        if any(close(sd, f12.std(ddof=dd), 1e-3) for dd in (0, 1)):
            return ("that is the spread of the networks' outputs f(0, w_j) alone; a new target also carries the "
                    "noise, of variance 1/β.")
        return ("take the first twelve rows of cheap.curves[\"prior\"] at the grid point x = 0, their variance, "
                "add the noise variance 1/β (cheap.beta) and take the square root.")
    if widens != want:
        return "compare the two retrained rows of the table at x = 0 (prior mean perturbed, and fixed at 0)."
    return None


def _wrong_q5(ns):
    s = retraining_summary()
    f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
    return {"sd_gap": float(f12.std(ddof=1)), "prior_widens": not _q5_truth()[1]}  # the noise forgotten


EXERCISES = ExerciseSet("04_ensemble_learning_for_networks.ipynb", (
    Exercise("q1", ("ex1_panel", "noise_sd", "bar_shrinks"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("v_sigma_mean",), _check_q2, _wrong_q2),
    Exercise("q3", ("n_params", "n_full_boston"), _check_q3, _wrong_q3),
    Exercise("q4", ("sd_s1", "paper_order_splits"), _check_q4, _wrong_q4),
    Exercise("q5", ("sd_gap", "prior_widens"), _check_q5, _wrong_q5),
))


__all__ = ["EXERCISES"]
