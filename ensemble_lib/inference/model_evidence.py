"""The evidence for a model, ln P(D|H): MacKay (30), with the exact ln P(D) where it exists.

MacKay (1995), "Probable networks".

**The evidence for a model** (30). With a prior on ln α and ln β that is flat over widths
``W_α``, ``W_β`` (density ``1/W``) and a separable Gaussian approximation of
``P(ln α, ln β | D)`` with the error bars (25),

.. math::
    \\ln P(D\\mid\\mathcal H) \\simeq \\ln P(D\\mid\\alpha_{MP},\\beta_{MP},\\mathcal H)
        + \\sum_c\\big[\\ln(\\sqrt{2\\pi}\\,\\sigma_{\\ln\\alpha_c}) - \\ln W_\\alpha\\big]
        + \\ln(\\sqrt{2\\pi}\\,\\sigma_{\\ln\\beta}) - \\ln W_\\beta,               \\quad (30)

``σ²_{ln α_c} = 2/γ_c``, ``σ²_{ln β} = 2/(N − γ)``. ``ln P(D|α, β, H)`` is (20), which already
carries ``ln(H! 2^H)`` (§4.1) when the run was made with that symmetry factor: each local optimum
is its own "model" (§4.1). The default widths are those of the precisions the library allows,
``W = ln(1e8/1e-8)`` (:data:`~ensemble_lib.core.validation.PRECISION_RANGE`).

**Error bars on ln α, drawn against the exact curve** (:func:`log_alpha_posterior`). Eq. (25)'s
``σ²_{ln α|D} ≈ 2/γ`` is a Gaussian approximation of ``P(ln α | D, β) ∝ P(D | α, β)`` (flat prior on
ln α) from its curvature at the maximum. For a linear model the curve is exact in closed form, so
its exact curvature and its exact posterior s.d. (by quadrature) can be set beside 2/γ.

Symbols → code: W_α, W_β → ``log_alpha_width``, ``log_beta_width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..models.linear import LinearGaussianPosterior
from .hyperparameters import GammaHyperprior

#: default width of the flat prior over ln α and over ln β: the library's precision range
DEFAULT_LOG_WIDTH = math.log(check.PRECISION_RANGE[1] / check.PRECISION_RANGE[0])
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_LIMIT = math.log(check.PRECISION_RANGE[1])


@dataclass(frozen=True)
class ModelEvidence:
    """ln P(D|H) of MacKay (30) and its terms.

    ``log_evidence_mp`` is ln P(D | α_MP, β_MP, H) (MacKay (20), with the symmetry factor);
    ``log_alpha_errors`` σ_{ln α_c}, ``log_beta_error`` σ_{ln β} (MacKay (25)); ``log_hyper_occam`` the
    sum of the hyperparameters' Occam factors ``ln(√(2π) σ / W)``; ``log_evidence`` their sum.
    """

    log_evidence: float
    log_evidence_mp: float
    log_hyper_occam: float
    log_alpha_errors: np.ndarray
    log_beta_error: float
    symmetry_factor: int


def _log_gamma_density_of_log(x: float, shape: float, scale: float) -> float:
    """ln p(ln x) for x ~ Gamma(shape, scale): ``shape ln x − x/scale − ln Γ(shape) − shape ln scale``."""
    return shape * math.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)


def model_log_evidence(run, log_alpha_width: float = DEFAULT_LOG_WIDTH,
                       log_beta_width: float = DEFAULT_LOG_WIDTH, prior=None) -> ModelEvidence:
    """ln P(D|H) by MacKay (30) from a converged evidence run.

    Parameters
    ----------
    run : EvidenceRun or ClassEvidenceRun
        :func:`~ensemble_lib.inference.evidence.evidence_reestimation` (one α),
        :func:`~ensemble_lib.inference.ard.class_evidence_reestimation` (one α per class) or a
        ``fit_*evidence`` result. Its ``final`` state's log evidence is used.
    log_alpha_width, log_beta_width : float
        Widths (> 0) of the flat priors over each ln α_c and over ln β.
    prior : GammaHyperprior, optional
        Instead of flat priors, Gamma hyperpriors on α (each α_c) and β (B&B (27)–(28)):
        ``P(ln α_MP)`` in (30) is then the Gamma density of ln α at α_MP (the widths are ignored).

    Raises
    ------
    ValueError
        If ``run`` is not an evidence run, or some γ_c ≤ 0 or N − γ ≤ 0 (MacKay (25) undefined).
    """
    if not hasattr(run, "final") or not hasattr(run, "log_beta_error"):
        raise ValueError(f"run must be an evidence run (EvidenceRun or ClassEvidenceRun), "
                         f"got {type(run).__name__}")
    wa = check.positive("log_alpha_width", log_alpha_width)
    wb = check.positive("log_beta_width", log_beta_width)
    if hasattr(run, "log_alpha_errors"):
        sa = np.asarray(run.log_alpha_errors, dtype=float)
    else:
        sa = np.array([run.log_alpha_error])
    sb = float(run.log_beta_error)
    if not (np.all(np.isfinite(sa)) and math.isfinite(sb)):
        raise ValueError("run has gamma_c <= 0 or N - gamma <= 0: the error bars (25) and eq. (30) "
                         "are undefined (a class or the noise is not determined by the data)")
    if prior is None:
        log_pa = np.full(sa.size, -math.log(wa))
        log_pb = -math.log(wb)
    else:
        if not isinstance(prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior or None, got {type(prior).__name__}")
        alphas = np.atleast_1d(getattr(run.final, "alphas", getattr(run.final, "alpha", None)))
        log_pa = np.array([_log_gamma_density_of_log(float(a), prior.a, prior.b) for a in alphas])
        log_pb = _log_gamma_density_of_log(float(run.final.beta), prior.c, prior.d)
    occam = float(np.sum(_HALF_LOG_2PI + np.log(sa) + log_pa)) + _HALF_LOG_2PI + math.log(sb) + log_pb
    mp = float(run.final.log_evidence)
    return ModelEvidence(log_evidence=mp + occam, log_evidence_mp=mp, log_hyper_occam=occam,
                         log_alpha_errors=sa, log_beta_error=sb,
                         symmetry_factor=int(run.symmetry_factor))


def log_evidence_on_grid(post, la, lb) -> np.ndarray:
    """ln P(D | α, β) on the grid ``la × lb`` of (ln α, ln β).

    Parameters
    ----------
    post : RegressionPosterior
        A posterior with an exact ``log_evidence`` (the linear model, the toy).
    la, lb : array_like, 1-D
        Grid values of ln α (rows of the result) and ln β (columns).

    Returns
    -------
    ndarray, shape (len(la), len(lb))

    Notes
    -----
    For a linear model (one α) in closed form from the eigenvalues λ_i of ΦᵀΦ and
    ``b = Qᵀ Φᵀ t`` (MacKay (20), exact for a linear model):
    ``ln P(D|α,β) = (k/2) ln α + (N/2) ln β − (N/2) ln 2π − ½ Σ ln(α + βλ_i) − (β/2) tᵀt
    + (β²/2) Σ b_i²/(α + βλ_i)``; for any other posterior one exact evaluation per point.
    """
    A, B = np.exp(la)[:, None], np.exp(lb)[None, :]
    Phi = getattr(post, "Phi", None)
    if Phi is not None and not hasattr(post, "alpha_vector"):
        lam, Qm = np.linalg.eigh(Phi.T @ Phi)
        b2 = (Qm.T @ (Phi.T @ post.t)) ** 2
        tt = float(post.t @ post.t)
        N, k = post.n_data, post.dim
        D = A[..., None] + B[..., None] * lam  # (na, nb, k)
        return (0.5 * k * np.log(A) + 0.5 * N * np.log(B) - 0.5 * N * math.log(2 * math.pi)
                - 0.5 * np.sum(np.log(D), axis=-1) - 0.5 * B * tt
                + 0.5 * B**2 * np.sum(b2 / D, axis=-1))
    return np.array([[float(post.with_hyperparameters(alpha=math.exp(x), beta=math.exp(y)).log_evidence)
                      for y in lb] for x in la])


#: :func:`exact_log_evidence` widens its box until the integrand at every side is this many nats below
#: its peak (e^-30 ≈ 1e-13 of it), by ``half_width`` at a time, at most ``_MAX_WIDENINGS`` times
EDGE_DROP = 30.0
_MAX_WIDENINGS = 12


def exact_log_evidence(post, prior, half_width: float = 8.0, n_grid: int = 161) -> float:
    """ln P(D) = ln ∫∫ P(D | α, β) p(α) p(β) dα dβ with Gamma hyperpriors, by 2-D quadrature.

    For a posterior with an exact ``log_evidence`` (the toy, the linear model). The integrand in
    (ln α, ln β) is ``exp(ln P(D|α,β) + ln p(ln α) + ln p(ln β))``; its maximum is found first
    (Nelder–Mead from the posterior's own α, β) and the trapezoidal rule on a grid of ± ``half_width``
    in each log around it, with ``n_grid`` points a side, integrates it; a side of the box where the
    integrand has not fallen :data:`EDGE_DROP` nats below its peak moves out by ``half_width`` (the
    spacing kept) until it has, or until it reaches the allowed precision range (a model whose data
    barely fix its weights has a heavy tail towards small α: a fixed ± 8 cut 2.2 × 10⁻³ nats off the
    constant model of lesson 6). The integrand is smooth and decays on both sides, where the rule
    converges geometrically. The reference the lesson compares MacKay's eq. (30) and the bound F* with.
    """
    post = check.posterior("post", post)
    if not isinstance(prior, GammaHyperprior):
        raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
    half_width = check.positive("half_width", half_width, upper=30.0)
    n_grid = check.integer("n_grid", n_grid, low=21, high=5001)
    lim = math.log(check.PRECISION_RANGE[1])

    def log_prior(la, lb):
        return (prior.a * la - np.exp(la) / prior.b - math.lgamma(prior.a) - prior.a * math.log(prior.b)
                + prior.c * lb - np.exp(lb) / prior.d - math.lgamma(prior.c) - prior.c * math.log(prior.d))

    def neg(x):
        if np.max(np.abs(x)) > lim:
            return math.inf
        ev = post.with_hyperparameters(alpha=math.exp(x[0]), beta=math.exp(x[1])).log_evidence
        return -(float(ev) + float(log_prior(x[0], x[1])))

    x0 = np.array([math.log(post.alpha), math.log(post.beta)])
    la0, lb0 = optimize.minimize(neg, x0, method="Nelder-Mead",
                                 options={"xatol": 1e-6, "fatol": 1e-10, "maxiter": 2000}).x
    # each side of the box widens (its grid spacing kept) until the integrand there is e^-EDGE_DROP
    # below its peak or the side reaches the allowed precision range: a heavy tail in ln α (a model
    # whose data barely fix its weights, e.g. a constant) is not cut short
    lo, hi = [la0 - half_width, lb0 - half_width], [la0 + half_width, lb0 + half_width]
    step = 2.0 * half_width / (n_grid - 1)
    for _ in range(_MAX_WIDENINGS + 1):
        la = np.arange(max(lo[0], -lim), min(hi[0], lim) + 0.5 * step, step)
        lb = np.arange(max(lo[1], -lim), min(hi[1], lim) + 0.5 * step, step)
        lf = log_evidence_on_grid(post, la, lb) + log_prior(la[:, None], lb[None, :])
        m = float(np.max(lf))
        edges = ((0, 0, lf[0, :], lo[0] > -lim), (0, 1, lf[-1, :], hi[0] < lim),
                 (1, 0, lf[:, 0], lo[1] > -lim), (1, 1, lf[:, -1], hi[1] < lim))
        open_sides = [(axis, side) for axis, side, edge, inside in edges if inside and np.max(edge) > m - EDGE_DROP]
        if not open_sides:
            break
        for axis, side in open_sides:
            if side == 0:
                lo[axis] -= half_width
            else:
                hi[axis] += half_width
    val = np.trapezoid(np.trapezoid(np.exp(lf - m), lb, axis=1), la)
    return float(m + math.log(val))


@dataclass(frozen=True)
class LogAlphaPosterior:
    """The exact posterior of ln α at fixed β (flat prior on ln α), beside MacKay's (25).

    ``density[i]`` is p(ln α = ``log_alpha[i]`` | D, β), normalised by the trapezoidal rule over the
    grid; ``mode`` its maximiser (polished), ``mean`` and ``sd`` its moments by quadrature;
    ``curvature_sd`` = (−∂² ln P(D|α,β)/∂(ln α)²)^(−1/2) at the mode (exact, closed form);
    ``gamma`` = γ (23) at the mode and ``mackay_sd`` = √(2/γ) (MacKay (25)); ``log_beta`` the ln β held.
    """

    log_alpha: np.ndarray
    density: np.ndarray
    log_beta: float
    mode: float
    mean: float
    sd: float
    curvature_sd: float
    gamma: float
    mackay_sd: float


def log_alpha_posterior(post, log_alpha_range=(-_LOG_LIMIT, _LOG_LIMIT), n_grid: int = 4001) -> LogAlphaPosterior:
    """The exact p(ln α | D, β) of a linear model at its own β, its moments and the width of MacKay (25).

    Parameters
    ----------
    post : LinearGaussianPosterior
        The model and data; its ``beta`` is held fixed (pass the posterior at β_MP to hold β at
        its optimum). Its ``alpha`` is not used.
    log_alpha_range : (float, float)
        The flat prior's support in ln α, within the library's precision range
        ``[ln 1e-8, ln 1e8]`` (the default: all of it). As α → ∞ the evidence tends to that of the
        model with no weights, a positive constant, so the density is only proper on a finite range.
    n_grid : int
        Trapezoid nodes over the range, in [101, 200 001].

    Returns
    -------
    LogAlphaPosterior

    Raises
    ------
    ValueError
        If ``post`` is not a linear model, or the range or ``n_grid`` are outside their bounds.

    Notes
    -----
    With λ_i the eigenvalues of ΦᵀΦ, ``d_i = α + βλ_i`` and the weights ``w_i = βb_i/d_i`` in the
    eigenbasis (``b = QᵀΦᵀt``), ``L(ln α) = ln P(D|α,β)`` (:func:`log_evidence_on_grid`) has

    .. math::
        \\frac{\\partial L}{\\partial\\ln\\alpha} = \\tfrac12(\\gamma - \\alpha\\textstyle\\sum w_i^2),\\qquad
        \\frac{\\partial^2 L}{\\partial(\\ln\\alpha)^2} = -\\tfrac12\\sum_i\\frac{\\alpha\\beta\\lambda_i}{d_i^2}
            - \\tfrac12\\alpha\\sum_i w_i^2 + \\alpha^2\\sum_i\\frac{w_i^2}{d_i},

    so at the maximum (αΣw² = γ, MacKay (22)) the curvature is ``−γ/2`` plus two terms that MacKay's
    (25) drops; they vanish when every eigendirection is either well determined (βλ_i ≫ α) or not
    at all (βλ_i ≪ α). MacKay (1995), "Probable networks", eqs (22)–(25).
    """
    post = check.posterior("post", post)
    if not isinstance(post, LinearGaussianPosterior):
        raise ValueError(f"post must be a LinearGaussianPosterior, got {type(post).__name__}")
    try:
        lo, hi = (float(x) for x in log_alpha_range)
    except (TypeError, ValueError):
        raise ValueError(f"log_alpha_range must be a pair (low, high) of numbers, got {log_alpha_range!r}") from None
    if not (-_LOG_LIMIT <= lo < hi <= _LOG_LIMIT):
        raise ValueError(f"log_alpha_range must satisfy {-_LOG_LIMIT:.4g} <= low < high <= {_LOG_LIMIT:.4g}, "
                         f"got {log_alpha_range!r}")
    n_grid = check.integer("n_grid", n_grid, low=101, high=200_001)
    lb = np.array([math.log(post.beta)])
    la = np.linspace(lo, hi, n_grid)
    L = log_evidence_on_grid(post, la, lb)[:, 0]
    i = int(np.argmax(L))
    j0, j1 = max(i - 1, 0), min(i + 1, n_grid - 1)
    res = optimize.minimize_scalar(lambda a: -float(log_evidence_on_grid(post, np.array([a]), lb)[0, 0]),
                                   bounds=(la[j0], la[j1]), method="bounded", options={"xatol": 1e-10})
    mode = float(res.x) if -res.fun >= L[i] else float(la[i])
    lam, Qm = np.linalg.eigh(post.Phi.T @ post.Phi)
    lam = np.clip(lam, 0.0, None)
    b = Qm.T @ (post.Phi.T @ post.t)
    alpha, beta = math.exp(mode), post.beta
    d = alpha + beta * lam
    w2 = (beta * b / d) ** 2
    gamma = float(np.sum(beta * lam / d))
    curv = float(-0.5 * np.sum(alpha * beta * lam / d**2) - 0.5 * alpha * np.sum(w2) + alpha**2 * np.sum(w2 / d))
    p = np.exp(L - L[i])
    p /= np.trapezoid(p, la)
    mean = float(np.trapezoid(p * la, la))
    sd = math.sqrt(float(np.trapezoid(p * (la - mean) ** 2, la)))
    return LogAlphaPosterior(
        log_alpha=la, density=p, log_beta=float(lb[0]), mode=mode, mean=mean, sd=sd,
        curvature_sd=1.0 / math.sqrt(-curv) if curv < 0 else math.inf, gamma=gamma,
        mackay_sd=math.sqrt(2.0 / gamma) if gamma > 0 else math.inf,
    )


__all__ = ["LogAlphaPosterior", "ModelEvidence", "exact_log_evidence", "log_alpha_posterior", "model_log_evidence"]
