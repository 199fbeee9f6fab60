"""MacKay's evidence framework: Laplace at the mode and re-estimation of α and β.

MacKay (1995), "Probable networks and plausible predictions", §3, eqs (18)–(25).
With the Gaussian approximation (19) at the most probable weights w_MP,
``A = ∇∇M(w_MP)``, ``M = βE_D + αE_W``, ``E_W = ½‖w‖²``, the log evidence is

.. math::
    \\ln P(D\\mid\\alpha,\\beta) \\simeq -M(w_{MP}) - \\tfrac12\\ln\\det(A/2\\pi)
        - \\ln Z_W(\\alpha) - \\ln Z_D(\\beta)                              \\quad (20)

``= best-fit log likelihood + log Occam factor`` (MacKay (7)), with
``ln(best fit likelihood) = −βE_D(w_MP) − ln Z_D`` and
``ln(Occam factor) = −αE_W(w_MP) − ln Z_W − ½ ln det(A/2π)``
(the log of posterior accessible volume over prior accessible volume).
The evidence maximum satisfies

.. math::
    \\gamma = k - \\alpha\\operatorname{Tr}(A^{-1}) \\quad (23), \\qquad
    \\alpha = \\gamma / \\textstyle\\sum_i w_i^2 \\quad (22), \\qquad
    \\beta = (N - \\gamma) / (2E_D) \\quad (24),

used here as re-estimation formulae, alternating with a new Laplace fit,
until α and β settle (the iteration is :func:`~ensemble_lib.inference.reestimation.reestimate`;
this module supplies its update step). The error bars of (25), ``σ²_{ln α} ≈ 2/γ`` and
``σ²_{ln β} ≈ 2/(N − γ)``, are returned too.

**Cheap and cheerful re-estimation** (MacKay §9.1, :func:`cheap_reestimation`). Neglecting the
distinction between well and poorly determined parameters (γ → k in (22), (24)):

.. math::
    \\alpha := k / 2E_W = k / \\textstyle\\sum_i w_i^2, \\qquad \\beta := N / 2E_D ,

"expected to give singular behaviour when there are a large number of poorly determined
parameters": each of the k − γ poorly determined weights is counted in the numerator while the
prior has shrunk it to ≈ 0 in Σ w², so α overshoots, shrinks w_MP further and overshoots again.
Its fixed point (if any) solves ``α Σ w_MP(α, β)² = k`` and ``2β E_D(w_MP(α, β)) = N``.

For a network with H hidden units, each mode has ``H! 2^H`` equivalent
copies (§4.1); ``symmetry_factor`` adds its logarithm to (20). For the toy
``f = v σ(u x)`` (H = 1) the factor is 2, the mirror mode (−u, −v).

Symbols → code: α, β → ``alpha``, ``beta``; γ → ``gamma``; w_MP → ``mean``;
A → ``hessian``; A⁻¹ → ``cov``; k → ``post.dim``; N → ``post.n_data``.

Generic for any :class:`~ensemble_lib.models.posterior.RegressionPosterior`
(needs ``data_error``, its gradient and Hessian, ``with_hyperparameters``).
:func:`evidence_grid` adds the brute-force reference: the exact
ln P(D | α, β) on a grid of (ln α, ln β) and its refined maximiser, for
models whose ln Z is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..core.gaussian import LOG_2PI
from .laplace import laplace_diagonal_start, laplace_fit
from .reestimation import ReestimationStep, reestimate

#: re-estimated α, β are kept inside [1/_LIMIT, _LIMIT] by default (the posteriors' allowed range,
#: :data:`~ensemble_lib.core.validation.PRECISION_RANGE`); leaving it is explained
_LIMIT = check.PRECISION_RANGE[1]


@dataclass(frozen=True)
class EvidenceState:
    """One Laplace evaluation of the evidence (20) at fixed α, β."""

    alpha: float
    beta: float
    mean: np.ndarray
    cov: np.ndarray
    hessian: np.ndarray
    gamma: float
    data_error: float
    sum_w2: float
    log_likelihood: float
    log_occam: float
    log_evidence: float

    def diagonal_start(self) -> tuple[np.ndarray, np.ndarray]:
        """``(w_MP, diag(1/A_ii))``: :func:`~ensemble_lib.inference.laplace.laplace_diagonal_start` here."""
        return laplace_diagonal_start(self.mean, self.hessian)


def laplace_evidence(post, start=None, symmetry_factor: int = 1) -> EvidenceState:
    """Laplace at the mode and the quantities of MacKay (20)–(24) at the posterior's α, β.

    Parameters
    ----------
    post : RegressionPosterior
    start : array_like, optional
        Start of the mode search (default: :func:`~ensemble_lib.laplace_fit`'s).
    symmetry_factor : int
        Number of equivalent modes (≥ 1), e.g. ``H! 2^H`` (§4.1); its log is
        added to the log evidence and the log Occam factor.
    """
    post = check.posterior("post", post)
    symmetry_factor = check.integer("symmetry_factor", symmetry_factor, low=1)
    lap = laplace_fit(post, start=start, compute_kl=False)
    k, N = post.dim, post.n_data
    alpha, beta = post.alpha, post.beta
    w = lap.mean
    half_logdet_A = 0.5 * lap.hessian_factor.log_det  # the Cholesky laplace_fit already made
    sum_w2 = float(w @ w)
    ed = float(post.data_error(w))
    gamma = k - alpha * float(np.trace(lap.cov))
    log_lik = -beta * ed - 0.5 * N * (LOG_2PI - math.log(beta))
    log_occam = (
        -0.5 * alpha * sum_w2 - 0.5 * k * (LOG_2PI - math.log(alpha))
        - (half_logdet_A - 0.5 * k * LOG_2PI) + math.log(symmetry_factor)
    )
    return EvidenceState(
        alpha=alpha, beta=beta, mean=w, cov=lap.cov, hessian=lap.hessian, gamma=gamma,
        data_error=ed, sum_w2=sum_w2, log_likelihood=log_lik, log_occam=log_occam,
        log_evidence=log_lik + log_occam,
    )


@dataclass(frozen=True)
class EvidenceRun:
    """Result of :func:`evidence_reestimation`: the trajectory and the final state.

    ``alpha[i]``, ``beta[i]`` are the values at which the i-th Laplace fit
    was made; ``alpha[0]``, ``beta[0]`` are the starting values. ``final``
    is the last :class:`EvidenceState` (a fixed point of (22)–(24) within
    ``tol`` if ``converged``). ``log_evidence_exact`` is the exact
    ln P(D | α_i, β_i) where the model has an exact ln Z, else nan.
    """

    alpha: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray
    log_evidence: np.ndarray
    log_occam: np.ndarray
    log_evidence_exact: np.ndarray
    means: np.ndarray = field(repr=False)
    covs: np.ndarray = field(repr=False)
    final: EvidenceState = field(repr=False)
    symmetry_factor: int
    converged: bool
    tol_reached: float
    notes: tuple = ()
    n_data: int = 0
    #: every restart of :func:`~ensemble_lib.inference.network_fits.fit_evidence` (empty otherwise)
    restarts: tuple = field(default=(), repr=False)
    #: the update rule: ``"mackay"`` (22)–(24) or ``"cheap"`` (§9.1, γ replaced by k)
    rule: str = "mackay"

    @property
    def n_iter(self) -> int:
        return int(self.alpha.size)

    @property
    def alpha_final(self) -> float:
        return self.final.alpha

    @property
    def beta_final(self) -> float:
        return self.final.beta

    @property
    def gamma_final(self) -> float:
        return self.final.gamma

    @property
    def log_alpha_error(self) -> float:
        """σ_{ln α|D} ≈ √(2/γ) (MacKay (25))."""
        return math.sqrt(2.0 / self.final.gamma) if self.final.gamma > 0 else math.inf

    @property
    def log_beta_error(self) -> float:
        """σ_{ln β|D} ≈ √(2/(N − γ)) (MacKay (25))."""
        n_minus = self.n_data - self.final.gamma
        return math.sqrt(2.0 / n_minus) if n_minus > 0 else math.inf


def _exact_log_evidence(post) -> float:
    try:
        return float(post.log_evidence)
    except NotImplementedError:
        return math.nan


def evidence_reestimation(
    post,
    alpha0: float | None = None,
    beta0: float | None = None,
    tol: float = 1e-8,
    max_iter: int = 200,
    symmetry_factor: int = 1,
    start=None,
    limits: tuple[float, float] = (1.0 / _LIMIT, _LIMIT),
    exact: bool = True,
) -> EvidenceRun:
    """MacKay's evidence framework: iterate Laplace + MacKay (22)–(24) to a fixed point.

    Parameters
    ----------
    post : RegressionPosterior
        Model and data.
    alpha0, beta0 : float, optional
        Starting α, β (> 0); default the posterior's own.
    tol : float
        Stop when max(|Δ ln α|, |Δ ln β|) of an update is below ``tol`` (> 0).
    max_iter : int
        At most this many Laplace fits (1 to 100 000); if reached, a
        :class:`~ensemble_lib.inference.reestimation.HyperparameterConvergenceWarning`
        states the tolerance reached.
    symmetry_factor : int
        Equivalent modes (MacKay §4.1), 2 for the toy.
    start : array_like, optional
        Start of the first mode search; later ones start at the previous mode.
    limits : (float, float)
        α and β are kept in [low, high] (1e-8 ≤ low < high ≤ 1e8, the range a
        posterior accepts, :data:`~ensemble_lib.core.validation.PRECISION_RANGE`). A re-estimate that
        leaves this range (α or β running to 0 or ∞) stops the iteration with
        a warning explaining why, and the result's ``notes`` say so.
    exact : bool
        Also record the exact ln P(D | α, β) (if the model's ln Z is exact).

    Notes
    -----
    α → ∞ happens when the data do not determine any weight (γ → 0 and
    w_MP → 0: the evidence keeps growing as the prior shrinks w to zero);
    β → ∞ when the model interpolates the data (E_D → 0 or N − γ → 0).
    """
    return _reestimation("mackay", post, alpha0, beta0, tol, max_iter, symmetry_factor, start, limits, exact)


def cheap_reestimation(
    post,
    alpha0: float | None = None,
    beta0: float | None = None,
    tol: float = 1e-8,
    max_iter: int = 200,
    symmetry_factor: int = 1,
    start=None,
    limits: tuple[float, float] = (1.0 / _LIMIT, _LIMIT),
    exact: bool = True,
) -> EvidenceRun:
    """Cheap and cheerful re-estimation, MacKay §9.1: Laplace + ``α := k/Σw²``, ``β := N/2E_D``.

    The same iteration as :func:`evidence_reestimation` (same arguments, same checks, same
    :func:`~ensemble_lib.inference.reestimation.reestimate` driver) with γ replaced by the number
    of parameters k: no Hessian trace is needed. The result's ``rule`` is ``"cheap"``; its
    ``gamma`` column still records MacKay's γ (23) at each fit, so ``k − γ`` says how many
    parameters the cheap rule wrongly counted as well determined.

    Parameters
    ----------
    post, alpha0, beta0, tol, max_iter, symmetry_factor, start, limits, exact
        As for :func:`evidence_reestimation`.

    Returns
    -------
    EvidenceRun

    Notes
    -----
    MacKay (1995), "Probable networks", §9.1: ``α_c := k_c/2E_W^c``, ``β := N/2E_D``, "expected to
    give singular behaviour when there are a large number of poorly determined parameters". Its
    fixed point solves ``α Σ w_MP(α, β)² = k`` and ``β · 2E_D(w_MP(α, β)) = N``; it agrees with the
    evidence maximum (22)–(24) when γ ≈ k (and N − γ ≈ N). When ``α Σ w_MP²`` stays below k for
    every α the iteration has no fixed point: α rises at every step (``α' = α·k/(αΣw²) > α``), w_MP
    shrinks to 0 and the run stops at the limit with a note saying so (the singular behaviour).
    """
    return _reestimation("cheap", post, alpha0, beta0, tol, max_iter, symmetry_factor, start, limits, exact)


def _reestimation(rule, post, alpha0, beta0, tol, max_iter, symmetry_factor, start, limits, exact) -> EvidenceRun:
    """The body of :func:`evidence_reestimation` (``rule="mackay"``) and :func:`cheap_reestimation`
    (``rule="cheap"``): checks, the update step and the :func:`reestimate` call."""
    post = check.posterior("post", post)
    exact = check.flag("exact", exact)
    if start is not None:
        start = check.finite_array("start", start)
        if start.shape != (post.dim,) or not np.all(np.isfinite(start)):
            raise ValueError(f"start must have shape ({post.dim},) and be finite, got shape {start.shape}")
    alpha = post.alpha if alpha0 is None else check.positive("alpha0", alpha0)
    beta = post.beta if beta0 is None else check.positive("beta0", beta0)
    tol = check.positive("tol", tol)
    max_iter = check.integer("max_iter", max_iter, low=1, high=100_000)
    symmetry_factor = check.integer("symmetry_factor", symmetry_factor, low=1)
    try:
        lo, hi = (float(x) for x in limits)
    except (TypeError, ValueError):
        raise ValueError(f"limits must be a pair (low, high) with 0 < low < high, got {limits!r}") from None
    if not (0.0 < lo < hi < math.inf):
        raise ValueError(f"limits must be a pair (low, high) with 0 < low < high < inf, got {limits!r}")
    if lo < 1.0 / _LIMIT or hi > _LIMIT:
        raise ValueError(f"limits must lie within [{1.0 / _LIMIT:g}, {_LIMIT:g}] (the range of alpha and "
                         f"beta a posterior accepts), got {limits!r}")
    if not (lo <= alpha <= hi and lo <= beta <= hi):
        raise ValueError(f"alpha0 and beta0 must lie within limits [{lo:g}, {hi:g}], got {alpha:g}, {beta:g}")
    N, k = post.n_data, post.dim
    w = start  # each mode search starts at the previous mode

    def update(hyper) -> ReestimationStep:
        """A Laplace fit at (α, β) and MacKay (22), (24): α = γ / Σ w², β = (N − γ) / 2E_D; or §9.1
        (``rule="cheap"``): α = k / Σ w², β = N / 2E_D."""
        nonlocal w
        alpha, beta = hyper
        p = post.with_hyperparameters(alpha=alpha, beta=beta)
        state = laplace_evidence(p, start=w, symmetry_factor=symmetry_factor)
        w = state.mean
        record = {"alpha": alpha, "beta": beta, "gamma": state.gamma, "logev": state.log_evidence,
                  "occam": state.log_occam, "exact": _exact_log_evidence(p) if exact else math.nan,
                  "m": state.mean, "C": state.cov, "state": state}
        num_a, num_b = (state.gamma, N - state.gamma) if rule == "mackay" else (float(k), float(N))
        with np.errstate(divide="ignore", invalid="ignore"):
            a_new = num_a / state.sum_w2 if state.sum_w2 > 0 else math.inf
            b_new = num_b / (2.0 * state.data_error) if state.data_error > 0 else math.inf
        notes = []
        if not (lo <= a_new <= hi):
            if rule == "mackay":
                what = f"gamma/sum w^2 = {state.gamma:.3g}/{state.sum_w2:.3g}"
                why = ("The data determine no weight well (gamma -> 0) and the evidence keeps rising as the "
                       "prior shrinks w_MP to zero: the best model here has no weights.")
            else:
                what = f"k/sum w^2 = {k}/{state.sum_w2:.3g}"
                why = (f"The cheap rule (MacKay 9.1) counts all k = {k} parameters as well determined, but "
                       f"only gamma = {state.gamma:.3g} are: alpha overshoots, shrinks w_MP and overshoots "
                       "again (the singular behaviour with many poorly determined parameters).")
            notes.append(
                f"alpha ran to {'infinity' if not a_new < hi else 0}: the re-estimate {what} "
                f"left [{lo:g}, {hi:g}]. "
                + (why if not a_new < hi else
                   f"The weights are so large relative to {'gamma' if rule == 'mackay' else 'k'} that the "
                   "prior is pushed to be flat.")
            )
        if not (lo <= b_new <= hi):
            notes.append(
                f"beta ran to {'infinity' if not b_new < hi else 0}: the re-estimate "
                f"{'(N - gamma)' if rule == 'mackay' else 'N'}/(2 E_D) = "
                f"({N}{f' - {state.gamma:.3g}' if rule == 'mackay' else ''})/(2 * {state.data_error:.3g}) "
                f"left [{lo:g}, {hi:g}]. "
                + ("The model interpolates the data (E_D -> 0), so the inferred noise vanishes."
                   if not b_new < hi else
                   "N - gamma is not positive: there are at least as many well-determined "
                   "parameters as data points, so no noise level is identifiable.")
            )
        return ReestimationStep(new=(a_new, b_new), record=record, notes=tuple(notes))

    name = "evidence_reestimation" if rule == "mackay" else "cheap_reestimation"
    run = reestimate(update, (alpha, beta), tol, max_iter, name=name, stacklevel=3)
    col = run.column
    return EvidenceRun(
        alpha=col("alpha"), beta=col("beta"), gamma=col("gamma"), log_evidence=col("logev"),
        log_occam=col("occam"), log_evidence_exact=col("exact"), means=col("m"), covs=col("C"),
        final=run.history[-1]["state"], symmetry_factor=symmetry_factor, converged=run.converged,
        tol_reached=run.tol_reached, notes=run.notes, n_data=N, rule=rule,
    )


@dataclass(frozen=True)
class EvidenceGrid:
    """Exact ln P(D | α, β) on a (ln α, ln β) grid and its refined maximiser.

    ``log_evidence[j, i]`` is at ``(log_alpha[i], log_beta[j])`` (rows are β).
    """

    log_alpha: np.ndarray
    log_beta: np.ndarray
    log_evidence: np.ndarray
    alpha_max: float
    beta_max: float
    log_evidence_max: float


def evidence_grid(post, log_alpha, log_beta, refine: bool = True) -> EvidenceGrid:
    """Brute force: the exact ln P(D | α, β) on a grid of (ln α, ln β), and its maximiser.

    Parameters
    ----------
    post : RegressionPosterior
        A model with an exact ``log_Z`` (e.g. the toy or the linear model).
    log_alpha, log_beta : array_like
        Increasing grids of natural logarithms (at least 3 points each, finite).
    refine : bool
        Polish the best grid point with Nelder–Mead on the exact log evidence
        (the grid's own maximiser is reported if the polish does not improve it).
    """
    post = check.posterior("post", post)
    refine = check.flag("refine", refine)
    la = check.finite_vector("log_alpha", log_alpha, min_len=3)
    lb = check.finite_vector("log_beta", log_beta, min_len=3)
    for name, g in (("log_alpha", la), ("log_beta", lb)):
        if np.any(np.diff(g) <= 0):
            raise ValueError(f"{name} must be strictly increasing")
        if np.max(np.abs(g)) > math.log(_LIMIT):
            raise ValueError(f"{name} must lie within [-{math.log(_LIMIT):.4g}, {math.log(_LIMIT):.4g}]")

    def f(x):
        if np.max(np.abs(x)) > math.log(_LIMIT):  # the polish may step outside the allowed range
            return -math.inf
        return float(post.with_hyperparameters(alpha=math.exp(x[0]), beta=math.exp(x[1])).log_evidence)

    table = np.array([[f((a, b)) for a in la] for b in lb])
    j, i = np.unravel_index(int(np.argmax(table)), table.shape)
    best = np.array([la[i], lb[j]])
    best_val = float(table[j, i])
    if refine:
        res = optimize.minimize(lambda x: -f(x), best, method="Nelder-Mead",
                                options={"xatol": 1e-9, "fatol": 1e-13, "maxiter": 2000})
        if np.isfinite(res.fun) and -res.fun >= best_val:
            best, best_val = res.x, float(-res.fun)
    return EvidenceGrid(la, lb, table, float(math.exp(best[0])), float(math.exp(best[1])), best_val)


__all__ = ["EvidenceGrid", "EvidenceRun", "EvidenceState", "cheap_reestimation", "evidence_grid",
           "evidence_reestimation", "laplace_evidence"]
