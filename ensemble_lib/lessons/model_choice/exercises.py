"""Lesson 6's exercises (:mod:`ensemble_lib.ui.exercises`): checks that answer back with a hint.

Each check reads the library's numbers (the same functions the lesson and its solutions call) and
returns ``None`` when the answers are right, else a hint that does not give the answer away;
:data:`EXERCISES` is the lesson's ``check("q1")`` … ``check("q6")`` (q6 is declared with its section in
:mod:`.local_mass`).
"""

from __future__ import annotations

import math

import numpy as np

from ...inference.function_prior import prior_output_sd
from ...inference.model_comparison import deletion_evidence
from ...ui.exercises import (AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real,
                             whole_number)
from .hyper_error_bars import boston_network_error_bars
from .local_mass import LOCAL_MASS_EXERCISE
from .noise_inputs import NoiseInputsPanel, noise_ard
from .occam import polynomial_occam
from .prior_functions import PriorFunctionsPanel
from .pruning import pruning_network

#: exercise 1: the larger data set
EX1_N = 60
#: exercise 2: the weights deleted together (the noise input's and the bias weight)
EX2_GROUP = (2, 3)
#: exercise 3: the widths and the network sizes compared
EX3_SD_IN, EX3_SD_BIAS, EX3_SCALE, EX3_H = 2.0, 2.0, 1.0, (1, 100)
#: exercise 5: the number of noise inputs and the panel's seeds
EX5_NOISE = 30


# -- exercise 1: the polynomial table with N = 60 -------------------------------------------------

def _gap3(rows) -> float:
    r = next(r for r in rows if r.label == "degree 3")
    return r.log_evidence_exact - r.bound


def _check_q1(best_degree_60, gap_shrinks):
    best, shrinks = whole_number("best_degree_60", best_degree_60), boolean("gap_shrinks", gap_shrinks)
    rows = polynomial_occam(tuple(range(8)), n=EX1_N)
    want = int(max(rows, key=lambda r: r.log_evidence_exact).label.split()[-1])
    if best != want:
        return ("best_degree_60 is the degree whose exact ln P(D) (first column) is largest in the N = 60 table; "
                "it need not be the generating degree 3.")
    if shrinks != (_gap3(rows) < _gap3(polynomial_occam())):
        return "compare the column exact − F* at degree 3 in the N = 20 table (section 1) and the N = 60 one."
    return None


def _wrong_q1(ns):
    return {"best_degree_60": 3, "gap_shrinks": False}  # the generating degree; "more data, looser bound"


# -- exercise 2: deleting a group of weights -------------------------------------------------------

def _pair_change() -> float:
    net, st = pruning_network()
    return float(deletion_evidence(st.mean, st.cov, 1.0 / net.alpha, list(EX2_GROUP)).evidence_change)


def _check_q2(change_pair, keep_pair):
    change, keep = real("change_pair", change_pair), boolean("keep_pair", keep_pair)
    if not close(change, _pair_change(), 1e-4):
        return ("delete both weights in ONE call, deletion_evidence(state.mean, state.cov, 1/net.alpha, [2, 3]), "
                "and take its .evidence_change: adding the two single changes ignores their correlation in A⁻¹.")
    if keep != (change > 0):
        return "a positive change ln P(D|H) − ln P(D|H without them) means the bigger model is more probable."
    return None


def _wrong_q2(ns):
    net, st = pruning_network()
    singles = sum(deletion_evidence(st.mean, st.cov, 1.0 / net.alpha, [i]).evidence_change for i in EX2_GROUP)
    return {"change_pair": float(singles), "keep_pair": True}  # the two single deletions added


# -- exercise 3: §8's scaling by Monte Carlo -------------------------------------------------------

def ex3_formula_sd() -> float:
    """The arcsine formula's s.d. of f(0) at exercise 3's widths (σ_out√H = 1, so every H)."""
    return float(prior_output_sd(0.0, EX3_SD_IN, EX3_SD_BIAS, EX3_SCALE))


def _check_q3(sd_H1, sd_H100, kurt_H1, kurt_H100):
    sd1, sd100 = real("sd_H1", sd_H1), real("sd_H100", sd_H100)
    k1, k100 = real("kurt_H1", kurt_H1), real("kurt_H100", kurt_H100)
    want = ex3_formula_sd()
    # 4000 draws: the s.d.'s standard error is about sd·√((kurtosis − 1)/(4·4000)) < 1.5 %
    if not (abs(sd1 / want - 1) < 0.05 and abs(sd100 / want - 1) < 0.05):
        return ("with σ_out·√H = 1 the output weights' s.d. is 1/√H, i.e. alphas = [1/σ_in², 1/σ_bias², H]; "
                "each s.d. should then match prior_output_sd(0, 2, 2, 1) to within Monte Carlo error.")
    if not (k1 > k100 and 3.4 < k1 < 6.0 and 2.6 < k100 < 3.5):
        return ("kurtosis is E[(f − mean)⁴] / Var(f)² over the 4000 draws of f(0) (a Gaussian has 3): "
                "compute it for each H from the same draws.")
    return None


def _wrong_q3(ns):
    # the output weights left at s.d. 1 (not scaled by 1/√H): the s.d. grows like √H
    sd = ex3_formula_sd()
    return {"sd_H1": sd, "sd_H100": 10 * sd, "kurt_H1": 4.2, "kurt_H100": 3.0}


# -- exercise 4: §5.2.2 on a Boston network --------------------------------------------------------

def _rank(v) -> np.ndarray:
    return np.argsort(np.argsort(v))


def ex4_numbers() -> dict:
    """Exercise 4's numbers from :func:`boston_network_error_bars`: the extra term over gᵀA⁻¹g (median,
    max) and the rank correlation of the extra term with leverage."""
    e = boston_network_error_bars()
    ratio = e.bars.hyper_variance / e.bars.weight_variance
    return {"median_ratio": float(np.median(ratio)), "max_ratio": float(ratio.max()),
            "rank_corr": float(np.corrcoef(_rank(e.bars.hyper_variance), _rank(e.leverage))[0, 1])}


def _check_q4(median_ratio, max_ratio, largest_far_from_data):
    med, top = real("median_ratio", median_ratio), real("max_ratio", max_ratio)
    far = boolean("largest_far_from_data", largest_far_from_data)
    want = ex4_numbers()
    if not (close(med, want["median_ratio"], 1e-3) and close(top, want["max_ratio"], 1e-3)):
        return ("the ratio is bars.hyper_variance / bars.weight_variance (MacKay's extra term over gᵀA⁻¹g, not "
                "over the whole predictive variance), one value per test input; take its median and its max.")
    if far != (want["rank_corr"] > 0.5):
        return ("rank both the extra variance and the leverage over the test inputs and correlate the ranks: "
                "a strong relation would give a rank correlation near 1.")
    return None


def _wrong_q4(ns):
    e = boston_network_error_bars()
    r = e.bars.hyper_variance / e.bars.variance  # over the whole predictive variance
    return {"median_ratio": float(np.median(r)), "max_ratio": float(r.max()), "largest_far_from_data": True}


# -- exercise 5: the noise-inputs panel ------------------------------------------------------------

def ex5_gaps(n_noise: int = EX5_NOISE) -> list[float]:
    """One α's test MSE minus ARD's, per noise seed, at ``n_noise`` noise inputs."""
    return [noise_ard(n_noise, s).one_alpha_test_mse - noise_ard(n_noise, s).test_mse for s in range(5)]


def _check_q5(ex5_panel, mse_gap):
    if not isinstance(ex5_panel, NoiseInputsPanel):
        raise AnswerError("ex5_panel must be a noise-inputs panel (ex5_panel = NoiseInputsPanel(), its sliders "
                          f"set), got {type(ex5_panel).__name__}")
    gap = real("mse_gap", mse_gap)
    v = ex5_panel.values()
    if v["n_noise"] != EX5_NOISE:
        return "set the panel's pure-noise inputs to 30 (the slider's right end), then move the noise seed."
    gaps = ex5_gaps()
    if v["seed"] != int(np.argmin(gaps)):
        return ("read both test MSEs in the readout for each of the 5 noise seeds and leave the panel at the seed "
                "where one α's MSE exceeds ARD's by the LEAST.")
    state = ex5_panel.state
    if not math.isclose(gap, state.one_alpha_test_mse - state.test_mse, abs_tol=2e-4):
        return "mse_gap is the readout's test MSE of one α minus ARD's, at the panel's setting."
    return None


def _wrong_q5(ns):
    panel = NoiseInputsPanel()  # a panel of its own; the seed where ARD gains MOST
    with panel.hold():
        panel.controls["n_noise"].value = EX5_NOISE
        panel.controls["seed"].value = int(np.argmax(ex5_gaps()))
    return {"ex5_panel": panel, "mse_gap": float(max(ex5_gaps()))}


# -- exercise 7: the prior over functions as H grows (§8, the panel of section 6) -------------------

#: exercise 7's move: H from EX7_H[0] to EX7_H[1] with σ_out fixed (the box unticked), the other
#: sliders where the panel opens
EX7_H = (10, 40)
_EX7_FIXED = {"sd_in": 2.0, "sd_bias": 2.0, "sd_out": 1.0}
_EX7_CASES = ((10, 40), (1, 100), (4, 9), (400, 25))


def _prior_sd_f0(H):
    # MacKay §8's arcsine formula at x = 0 with σ_out fixed at 1 (not scaled): it takes σ_out √H
    return float(prior_output_sd(0.0, _EX7_FIXED["sd_in"], _EX7_FIXED["sd_bias"], math.sqrt(H)))


def _check_q7(ex7_panel, growth, factor):
    if not isinstance(ex7_panel, PriorFunctionsPanel):
        raise AnswerError("ex7_panel must be the lesson's prior panel (ex7_panel = panel), "
                          f"got {type(ex7_panel).__name__}")
    g = real("growth", growth)
    f = function("factor", factor, "factor(H_from, H_to)")
    v = ex7_panel.values()
    if v["scale_out"]:
        return "untick the box 'σ_out ∝ 1/√H' (σ_out then stays at the slider's value as H moves)."
    if any(not close(v[k], x, 1e-6) for k, x in _EX7_FIXED.items()):
        return "leave σ_in, σ_bias and the output scale where the panel opens (2, 2 and 1)."
    if v["H"] != EX7_H[1]:
        return f"move H to {EX7_H[1]} and leave the panel there."
    want = _prior_sd_f0(EX7_H[1]) / _prior_sd_f0(EX7_H[0])
    if not close(g, want, 2e-3):
        return ("growth is the readout's prior s.d. of f(0) at H = 40 divided by the one at H = 10, both with "
                "the box unticked.")
    got = function_values("factor", f, _EX7_CASES)
    if not all(close(x, _prior_sd_f0(b) / _prior_sd_f0(a), 1e-9) for x, (a, b) in zip(got, _EX7_CASES)):
        return ("in the formula Var f(x) = H σ_out² (2/π) arcsin(s²/(1 + s²)) only H changes here: how does "
                "the s.d. scale with it?")
    return None


def _wrong_q7(ns):
    # H moved with the box still ticked: nothing grows, and a factor linear in H
    panel = PriorFunctionsPanel()  # a panel of its own: the lesson's stays as shown
    panel.set_values({"H": EX7_H[1]})
    return {"ex7_panel": panel, "growth": 1.0, "factor": lambda a, b: b / a}


#: lesson 6's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("06_choosing_the_model.ipynb", (
    Exercise("q1", ("best_degree_60", "gap_shrinks"), _check_q1, _wrong_q1),
    Exercise("q2", ("change_pair", "keep_pair"), _check_q2, _wrong_q2),
    Exercise("q3", ("sd_H1", "sd_H100", "kurt_H1", "kurt_H100"), _check_q3, _wrong_q3),
    Exercise("q4", ("median_ratio", "max_ratio", "largest_far_from_data"), _check_q4, _wrong_q4),
    Exercise("q5", ("ex5_panel", "mse_gap"), _check_q5, _wrong_q5, uses_panel="noise_panel"),
    LOCAL_MASS_EXERCISE,  # q6: Laplace's local mass (§1)
    Exercise("q7", ("ex7_panel", "growth", "factor"), _check_q7, _wrong_q7, uses_panel="panel"),
))

__all__ = ["EXERCISES", "EX1_N", "EX2_GROUP", "EX3_H", "EX5_NOISE", "EX7_H"]
