"""Lesson 3's exercises (:mod:`ensemble_lib.ui.exercises`): checks that answer back with a hint.

Each check reads the library's numbers (the same functions the lesson and its solutions call) and
returns ``None`` when the answers are right, else a hint that does not give the answer away;
:data:`EXERCISES` is the lesson's ``check("q1")`` … ``check("q5")``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ...inference.evidence import cheap_reestimation, evidence_reestimation
from ...inference.hyperparameters import GammaHyperprior, fit_hyperparameters, gamma_updates
from ...inference.reestimation import HyperparameterConvergenceWarning
from ...models.linear import LinearGaussianPosterior
from ...ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, real, whole_number
from .hyper_reestimation import bumps_posterior
from .bound_panel import BoundPanel
from .hyper_iterations import HyperIterationPanel


#: the lesson's hyperprior (Barber & Bishop's broad Boston choice) and Gaussians the checks try
BOSTON_PRIOR = GammaHyperprior(a=0.25, b=400.0, c=0.05, d=2000.0)
_Q_CASES = ((np.array([0.2, -1.4]), np.array([[0.01, -0.02], [-0.02, 0.3]])),
            (np.array([-0.5, 0.3]), np.diag([0.2, 0.05])), (np.array([1.0, 2.0, -1.0]), 0.1 * np.eye(3)))
_PRIORS = (BOSTON_PRIOR, GammaHyperprior(a=2.0, b=0.5, c=1.0, d=1.0))


def _check_q1(ex1_panel, can_beat_full):
    if not isinstance(ex1_panel, BoundPanel):
        raise AnswerError(f"ex1_panel must be a BoundPanel, got {type(ex1_panel).__name__}")
    beat = boolean("can_beat_full", can_beat_full)
    lap = ex1_panel.fits.laplace
    v = ex1_panel.values()
    if abs(v["mean_u"] - lap.mean[0]) > 0.011 or abs(v["mean_v"] - lap.mean[1]) > 0.011:
        return ("keep Q's mean at Laplace's mode: snap the panel to Laplace (ex1_panel.snap(\"laplace\")), "
                "then move only the s.d. of v and the correlation.")
    st = ex1_panel.compute(**v)
    if not st.kl < 0.5 * lap.kl:
        return (f"KL is {st.kl:.3g} nats, Laplace's is {lap.kl:.3g}: shrink the s.d. of v further and bring "
                "the correlation towards 0 until KL is below half of Laplace's.")
    if beat:
        return ("the full-KL fit minimises KL over every Gaussian the sliders can make: snap to 'KL, full' "
                "and try; does any slider move lower its KL?")
    return None


def _wrong_q1(ns):
    panel = BoundPanel(ns["post"])  # opens at the full-KL fit: not at Laplace's mode
    return {"ex1_panel": panel, "can_beat_full": True}


def _check_q2(alpha_update, alpha_update_printed):
    f = function("alpha_update", alpha_update, "alpha_update(w_bar, C, a, b)")
    g = function("alpha_update_printed", alpha_update_printed, "alpha_update_printed(w_bar, C, a, b)")
    for m, C in _Q_CASES:
        ww = float(m @ m + np.trace(C))
        for prior in _PRIORS:
            R, _ = gamma_updates(_alpha_part(len(m)), m, C, prior, expected_data_error=0.0)
            if not close(real("alpha_update(...)", f(m, C, prior.a, prior.b)), R.mean, 1e-9):
                return ("collect the α terms of (35): (k/2 + a − 1) ln α − α[½(‖w̄‖² + Tr C) + 1/b] is the log of "
                        "a Gamma of shape r and scale s; its mean is r s.")
            printed = (len(m) / 2 + prior.a) / (ww + 1 / prior.b)  # the printed −α‖w‖² of (31)
            if not close(real("alpha_update_printed(...)", g(m, C, prior.a, prior.b)), printed, 1e-9):
                return "redo the same collection with the printed ln p(w|α) = −α‖w‖² + (k/2) ln α: what doubles?"
    return None


def _wrong_q2(ns):
    # the two swapped: the printed (31) taken as the right one, and the ½ dropped from the other
    def right(m, C, a, b):
        return (len(m) / 2 + a) / ((m @ m + np.trace(C)) / 2 + 1 / b)

    return {"alpha_update": lambda m, C, a, b: (len(m) / 2 + a) / (m @ m + np.trace(C) + 1 / b),
            "alpha_update_printed": right}


def _alpha_part(k):
    """A posterior of ``k`` weights for :func:`gamma_updates`' α update, which reads only k (its β
    update, given ⟨E_D⟩ = 0 here, is not used)."""
    return LinearGaussianPosterior(np.eye(k), np.zeros(k), 1.0, 1.0)


def _flat_case():
    rng = np.random.default_rng(29)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([0.8, -0.3, 0.0]) + 0.4 * rng.normal(size=40)
    return LinearGaussianPosterior(X, y, 1.0, 1.0)


def _check_q3(alpha_em, same_fixed_point):
    f = function("alpha_em", alpha_em, "alpha_em(w_bar, C)")
    same = boolean("same_fixed_point", same_fixed_point)
    flat = GammaHyperprior(1e-12, 1e12, 1e-12, 1e12)
    for m, C in _Q_CASES:
        R, _ = gamma_updates(_alpha_part(len(m)), m, C, flat, expected_data_error=0.0)
        if not close(real("alpha_em(...)", f(m, C)), R.mean, 1e-6):
            return ("let a → 0 and b → ∞ in ᾱ = (k/2 + a)/(½(‖w̄‖² + Tr C) + 1/b): Q's covariance stays in "
                    "⟨‖w‖²⟩ = ‖w̄‖² + Tr C.")
    lin = _flat_case()
    ens = fit_hyperparameters(lin, flat, tol=1e-12, max_iter=2000)
    mk = evidence_reestimation(lin, tol=1e-12)
    agree = close(ens.alpha_final, mk.alpha_final, 1e-6) and close(ens.beta_final, mk.beta_final, 1e-6)
    if same != agree:
        return ("run fit_hyperparameters with the flat GammaHyperprior(1e-12, 1e12, 1e-12, 1e12) and "
                "evidence_reestimation on a LinearGaussianPosterior and compare their final α and β.")
    return None


def _wrong_q3(ns):
    return {"alpha_em": lambda m, C: len(m) / (m @ m), "same_fixed_point": False}  # Tr C forgotten


def _check_q4(ex4_panel, ensemble_alpha_larger):
    if not isinstance(ex4_panel, HyperIterationPanel):
        raise AnswerError(f"ex4_panel must be a HyperIterationPanel, got {type(ex4_panel).__name__}")
    larger = boolean("ensemble_alpha_larger", ensemble_alpha_larger)
    v = ex4_panel.values()
    comp = ex4_panel.comp
    if v["method"] != "evidence" or v["iteration"] != comp.evidence.n_iter - 1:
        return "leave the panel on MacKay's method at its last iteration (the slider's right end)."
    if larger != (comp.ensemble.alpha_final > comp.grid.alpha_max):
        return ("compare the ensemble's final ᾱ (the panel's last ensemble iteration) with the exact "
                "maximiser's α in the table of §4.")
    return None


def _wrong_q4(ns):
    panel = HyperIterationPanel(ns["comp"])  # left at iteration 0 of the ensemble
    return {"ex4_panel": panel, "ensemble_alpha_larger": not (ns["comp"].ensemble.alpha_final
                                                              > ns["comp"].grid.alpha_max)}


#: exercise 5: §5's data with noisier targets (s.d. 0.3, not 0.2), the number of far bumps whose α ratio
#: is asked, and the most far bumps the search may try
EX5_NOISE = 0.3
EX5_FAR = 6
EX5_MAX_FAR = 60
#: exercise 5: the (w_MP, E_D, N) the check tries the update on
_CHEAP_CASES = ((np.array([0.5, -1.0]), 0.8, 10), (np.array([0.1, 0.2, 0.0, -0.3]), 2.5, 40),
                (np.array([3.0]), 0.01, 3))


def cheap_converges(n_far: int) -> bool:
    """Whether the cheap run converges with ``n_far`` far bumps (lesson 3, §5's model with noise s.d.
    :data:`EX5_NOISE`), as exercise 5 asks it:
    ``cheap_reestimation(bumps_posterior(n_far, noise=EX5_NOISE), tol=1e-10, max_iter=5000).converged``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        return bool(cheap_reestimation(bumps_posterior(n_far, noise=EX5_NOISE), tol=1e-10, max_iter=5000).converged)


def cheap_fixed_point_exists(post: LinearGaussianPosterior) -> bool:
    """Whether the cheap equations α Σw_MP² = k, 2βE_D = N have a solution, in closed form.

    w_MP = (ΦᵀΦ + rI)⁻¹Φᵀt depends on r = α/β only, so a solution is an r with
    ``r N Σw² / ‖Φw − t‖² = k`` (then β = N/‖Φw − t‖², α = rβ); the left side is scanned over
    ln r ∈ [−25, 25] in the eigenbasis of ΦᵀΦ (no iteration), and a solution exists where it reaches k.
    """
    lam, Q = np.linalg.eigh(post.Phi.T @ post.Phi)
    lam = np.clip(lam, 0.0, None)
    b = Q.T @ (post.Phi.T @ post.t)
    r = np.exp(np.linspace(-25.0, 25.0, 2001))[:, None]
    w = b / (lam + r)
    res2 = float(post.t @ post.t) - 2 * (w @ b) + (w * w) @ lam
    lhs = r[:, 0] * post.n_data * np.sum(w * w, axis=1) / res2
    return bool(np.max(lhs) >= post.dim)


@functools.lru_cache(maxsize=1)
def ex5_numbers() -> tuple[float, int]:
    """Exercise 5's answers from the library: α_cheap/α_MacKay with :data:`EX5_FAR` far bumps (two runs),
    and the fewest far bumps for which the cheap equations have no solution
    (:func:`cheap_fixed_point_exists`, where the cheap run cannot converge)."""
    post = bumps_posterior(EX5_FAR, noise=EX5_NOISE)
    ratio = (cheap_reestimation(post, tol=1e-10, max_iter=5000).alpha_final
             / evidence_reestimation(post, tol=1e-10, max_iter=5000).alpha_final)
    first = next(n for n in range(EX5_MAX_FAR + 1)
                 if not cheap_fixed_point_exists(bumps_posterior(n, noise=EX5_NOISE)))
    return float(ratio), first


def _check_q5(cheap_update, alpha_ratio, n_singular):
    f = function("cheap_update", cheap_update, "cheap_update(w_mp, data_error, n_data) -> (alpha, beta)")
    ratio = real("alpha_ratio", alpha_ratio)
    first = whole_number("n_singular", n_singular)
    for w_mp, ed, n in _CHEAP_CASES:
        out = f(w_mp, ed, n)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise AnswerError(f"cheap_update(...) must return a pair (alpha, beta), got {out!r:.60}")
        a, b = real("alpha", out[0]), real("beta", out[1])
        if not close(a, len(w_mp) / float(w_mp @ w_mp), 1e-9):
            return ("α := k_c / 2E_W^c with E_W = ½ Σ w² (MacKay §9.1): every one of the k weights counts, "
                    "well determined or not. What is 2E_W?")
        if not close(b, n / (2.0 * ed), 1e-9):
            return "β := N / 2E_D: the cheap rule replaces N − γ by N (and data_error is E_D, half the squared error)."
    want_ratio, want_first = ex5_numbers()
    if not close(ratio, want_ratio, 0.01):
        return (f"run cheap_reestimation and evidence_reestimation on bumps_posterior({EX5_FAR}, noise={EX5_NOISE}) "
                "(tol=1e-10, max_iter=5000) and divide their final α; is it k/γ, or more?")
    if first != want_first:
        return (f"loop n_far = 0, 1, 2, … over bumps_posterior(n_far, noise={EX5_NOISE}) and stop at the first "
                "cheap run that does not converge (the table of §5 has less noisy data).")
    return None


def _wrong_q5(ns):
    # E_W taken as Σw² (k/2E_W = k/(2Σw²)), the first-order ratio k/γ, and §5's table's answer (noise 0.2)
    post = bumps_posterior(EX5_FAR, noise=EX5_NOISE)
    mk = evidence_reestimation(post, tol=1e-10, max_iter=5000)
    return {"cheap_update": lambda w, ed, n: (len(w) / (2 * float(w @ w)), n / (2 * ed)),
            "alpha_ratio": post.dim / mk.gamma_final, "n_singular": 24}


#: lesson 3's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("03_bound_and_hyperparameters.ipynb", (
    Exercise("q1", ("ex1_panel", "can_beat_full"), _check_q1, _wrong_q1, uses_panel="bound_panel"),
    Exercise("q2", ("alpha_update", "alpha_update_printed"), _check_q2, _wrong_q2),
    Exercise("q3", ("alpha_em", "same_fixed_point"), _check_q3, _wrong_q3),
    Exercise("q4", ("ex4_panel", "ensemble_alpha_larger"), _check_q4, _wrong_q4, uses_panel="iteration_panel"),
    Exercise("q5", ("cheap_update", "alpha_ratio", "n_singular"), _check_q5, _wrong_q5),
))

__all__ = ["BOSTON_PRIOR", "EX5_FAR", "EX5_MAX_FAR", "EX5_NOISE", "EXERCISES", "ex5_numbers"]
