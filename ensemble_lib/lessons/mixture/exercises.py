"""Lesson 7's exercises (:mod:`ensemble_lib.ui.exercises`): checks that answer back with a hint."""

from __future__ import annotations


import numpy as np

from ...inference.kl_fit import kl_fit
from ...inference.mixture import entropy_lower_bound, mirror_overlap, mixture_entropy, mixture_kl
from ...models.toy import make_posterior
from ...core.gaussian import gaussian_entropy
from ...ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real
from ...ui.memo import LRUMemo
from .comparison import ALPHA_RANGE, MixtureComparison, fit_mixtures
from .explorer import MixtureExplorer


# ---------------------------------------------------------------------------
# the exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: exercise 1's panel setting: the strongest prior of the slider and a data seed whose modes merge
EX1_ALPHA, EX1_SEED = ALPHA_RANGE[1], 24
#: exercise 2's noisier data: (seed, α) and the two noise s.d.s
EX2_POSTERIOR, EX2_NOISE = (25, 1.0), (0.3, 0.5)
#: exercise 4's width ratios λ
EX4_LAMBDAS = (1.0, 2.0, 5.0, 20.0)


def _check_q1(ex1_panel, drop_12, single_at_origin):
    if not isinstance(ex1_panel, MixtureExplorer):
        raise AnswerError("ex1_panel must be a MixtureExplorer (the lesson's panel, or one of your own), "
                          f"got {type(ex1_panel).__name__}")
    drop, origin = real("drop_12", drop_12), boolean("single_at_origin", single_at_origin)
    v, st = ex1_panel.values(), getattr(ex1_panel, "state", None)
    if not close(v["alpha"], EX1_ALPHA, 1e-6) or v["seed"] != EX1_SEED:
        return f"set the panel's α to {EX1_ALPHA:g} (the right end of its slider) and the data seed to {EX1_SEED}."
    if st is None or not st.complete or st.comparison.posterior.alpha != v["alpha"]:
        return "let the panel finish fitting (the readout stops saying 'fitting K = …'), then answer."
    comp = st.comparison
    if not close(drop, comp.quadrature.kl[0] - comp.quadrature.kl[1], 1e-3):
        return ("drop_12 is KL(K=1) − KL(K=2) from the readout's column 'H by quadrature'; compare it with "
                "ln 2 = 0.6931.")
    if origin != bool(np.allclose(comp.single.mean, 0.0, atol=1e-6)):
        return "look at the left plot at K = 1 (or the readout's ρ): where does the single Gaussian sit?"
    return None


def _wrong_q1(ns):
    panel = MixtureExplorer()  # a panel of its own: the lesson's stays as shown
    with panel.hold():
        panel.controls["alpha"].value, panel.controls["seed"].value = EX1_ALPHA, EX1_SEED
    return {"ex1_panel": panel, "drop_12": float(np.log(2.0)), "single_at_origin": False}  # the story's ln 2


_EX2_MEMO = LRUMemo(4)


def _ex2_fits(noise_sd: float) -> MixtureComparison:
    """K = 1, 2 fits to exercise 2's data with noise s.d. ``noise_sd`` (the check's reference, kept)."""
    return _EX2_MEMO.get(noise_sd, lambda: fit_mixtures(make_posterior(*EX2_POSTERIOR, noise_sd), K_max=2))


def _check_q2(rho_03, rho_05, drop_03, merged_05):
    r3, r5, d3 = real("rho_03", rho_03), real("rho_05", rho_05), real("drop_03", drop_03)
    merged = boolean("merged_05", merged_05)
    c3, c5 = (_ex2_fits(sd) for sd in EX2_NOISE)
    if not (close(r3, c3.rho, 1e-3) and close(r5, c5.rho, 1e-3)):
        return ("ρ is the overlap of the single fit and its mirror image: the comparison's .rho, or "
                "mirror_overlap(mean, cov) of kl_fit(post, 'full').")
    if not close(d3, c3.quadrature.kl[0] - c3.quadrature.kl[1], 1e-4):
        return "drop_03 is KL(K=1) − KL(K=2) of the fits with H by quadrature (.quadrature.kl) at s.d. 0.3."
    if merged != bool(np.allclose(c5.single.mean, 0.0, atol=1e-6)):
        return "print the single fit's mean at s.d. 0.5 (.single.mean): where is it, and what does ρ = 1 mean?"
    return None


def _wrong_q2(ns):
    c3, c5 = (_ex2_fits(sd) for sd in EX2_NOISE)
    return {"rho_03": c3.rho, "rho_05": c5.rho, "drop_03": float(np.log(2.0)), "merged_05": True}  # "exactly ln 2"


def _ex3_delta() -> tuple[float, float]:
    post = make_posterior(*EX2_POSTERIOR, EX2_NOISE[0])
    f = kl_fit(post, "full")
    kl2 = mixture_kl(post, [0.5, 0.5], [f.mean, -f.mean], [f.cov, f.cov])
    return kl2 - (f.kl - np.log(2.0)), mirror_overlap(f.mean, f.cov)


def _check_q3(delta_03, delta_le_rho):
    d, le = real("delta_03", delta_03), boolean("delta_le_rho", delta_le_rho)
    delta, rho = _ex3_delta()
    if not close(d, delta, 1e-6):
        return ("δ = KL(½Q₁ + ½Q₁′) − (KL₁ − ln 2), with Q₁ = kl_fit(post, 'full') and the mixture's KL from "
                "mixture_kl(post, [0.5, 0.5], [m, −m], [C, C]); it cannot be negative.")
    if le != bool(delta <= rho):
        return "compare your δ with ρ = mirror_overlap(m, C): does (39d) hold?"
    return None


def _wrong_q3(ns):
    delta, rho = _ex3_delta()
    return {"delta_03": -delta, "delta_le_rho": True}  # the difference the wrong way round


def _ex4_gaps() -> list[float]:
    out = []
    for lam in EX4_LAMBDAS:
        w, mu, Cs = [0.5, 0.5], [[0.0, 0.0], [0.0, 0.0]], [np.eye(2), lam ** 2 * np.eye(2)]
        out.append(mixture_entropy(w, mu, Cs, spacing=0.05) - entropy_lower_bound(w, mu, Cs))
    return out


def _check_q4(gap_5, largest_gap_lambda):
    g5, lam = real("gap_5", gap_5), real("largest_gap_lambda", largest_gap_lambda)
    gaps = _ex4_gaps()
    if not close(g5, gaps[EX4_LAMBDAS.index(5.0)], 1e-4):
        return ("gap_5 is H[Q] − bound at λ = 5: mixture_entropy(w, means, covs, spacing=0.05) minus "
                "entropy_lower_bound(w, means, covs); a bound is below the truth, so the gap is ≥ 0.")
    if lam not in EX4_LAMBDAS or gaps[EX4_LAMBDAS.index(lam)] != max(gaps):
        return f"largest_gap_lambda is the λ among {EX4_LAMBDAS} whose gap is largest: print all four."
    return None


def _wrong_q4(ns):
    gaps = _ex4_gaps()
    return {"gap_5": -gaps[2], "largest_gap_lambda": EX4_LAMBDAS[-1]}  # bound − H; "grows with λ"


#: covariances exercise 5's function is tried on (k = 1, 2, 3)
_Q5_COVS = (np.array([[0.4]]), np.array([[0.3, 0.1], [0.1, 0.2]]), np.diag([2.0, 0.5, 1.5]) + 0.1)


def _plain_jensen(C) -> float:
    """−ln N(m | m, 2C): the plain Jensen bound for one Gaussian (computed independently of the answer)."""
    k = C.shape[0]
    return 0.5 * k * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(2 * C)[1]


def _check_q5(jensen_bound, gap_per_dimension):
    f = function("jensen_bound", jensen_bound, "jensen_bound(C)")
    got = function_values("jensen_bound", f, [(C,) for C in _Q5_COVS])
    if not all(close(g, _plain_jensen(C), 1e-8) for g, C in zip(got, _Q5_COVS)):
        return ("for K = 1 the bound is −ln ∫Q₁Q₁ = −ln N(m | m, 2C): the density of N(0, 2C) at its mean "
                "(scipy.stats.multivariate_normal, or by hand with the log-determinant of 2C).")
    gap = real("gap_per_dimension", gap_per_dimension)
    if not close(gap, (gaussian_entropy(_Q5_COVS[1]) - _plain_jensen(_Q5_COVS[1])) / 2, 1e-8):
        return "gap_per_dimension is (H − bound)/k: subtract, with H = gaussian_entropy(C), and divide by k."
    return None


def _wrong_q5(ns):
    # N(m | m, C) in place of 2C: ∫Q₁Q₁ needs the covariances added
    return {"jensen_bound": lambda C: 0.5 * C.shape[0] * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(C)[1],
            "gap_per_dimension": 0.5}


#: lesson 7's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("07_mixture_of_gaussians.ipynb", (
    Exercise("q1", ("ex1_panel", "drop_12", "single_at_origin"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("rho_03", "rho_05", "drop_03", "merged_05"), _check_q2, _wrong_q2),
    Exercise("q3", ("delta_03", "delta_le_rho"), _check_q3, _wrong_q3),
    Exercise("q4", ("gap_5", "largest_gap_lambda"), _check_q4, _wrong_q4),
    Exercise("q5", ("jensen_bound", "gap_per_dimension"), _check_q5, _wrong_q5),
))


__all__ = ["EXERCISES", "EX1_ALPHA", "EX1_SEED"]
