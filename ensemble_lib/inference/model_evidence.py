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

Symbols → code: W_α, W_β → ``log_alpha_width``, ``log_beta_width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..core import validation as check
from .hyperparameters import GammaHyperprior

#: default width of the flat prior over ln α and over ln β: the library's precision range
DEFAULT_LOG_WIDTH = math.log(check.PRECISION_RANGE[1] / check.PRECISION_RANGE[0])
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


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


def exact_log_evidence(post, prior, half_width: float = 8.0, n_grid: int = 161) -> float:
    """ln P(D) = ln ∫∫ P(D | α, β) p(α) p(β) dα dβ with Gamma hyperpriors, by 2-D quadrature.

    For a posterior with an exact ``log_evidence`` (the toy, the linear model). The integrand in
    (ln α, ln β) is ``exp(ln P(D|α,β) + ln p(ln α) + ln p(ln β))``; its maximum is found first
    (Nelder–Mead from the posterior's own α, β) and the trapezoidal rule on an ``n_grid`` ×
    ``n_grid`` grid of ± ``half_width`` in each log around it integrates it (clipped to the allowed
    precision range; the integrand is smooth and decays on both sides, where the rule converges
    geometrically). The reference the lesson compares eq. (30) and the bound F* with.
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
    la = np.linspace(max(la0 - half_width, -lim), min(la0 + half_width, lim), n_grid)
    lb = np.linspace(max(lb0 - half_width, -lim), min(lb0 + half_width, lim), n_grid)
    lf = log_evidence_on_grid(post, la, lb) + log_prior(la[:, None], lb[None, :])
    m = float(np.max(lf))
    val = np.trapezoid(np.trapezoid(np.exp(lf - m), lb, axis=1), la)
    return float(m + math.log(val))


__all__ = ["ModelEvidence", "exact_log_evidence", "model_log_evidence"]
