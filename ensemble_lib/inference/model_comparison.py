"""Comparing models: the evidence ln P(D|H) (MacKay (30)), pruning by evidence (§6), committees (§5.3).

MacKay (1995), "Probable networks", §4–6.

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

**Deleting parameters** (§6). At fixed α, β, setting the parameters s to zero changes the
log evidence by

.. math::
    \\ln P(D\\mid\\mathcal H) - \\ln P(D\\mid\\mathcal H_{\\bar s})
      = \\tfrac12\\mathbf w_s^T\\Sigma_s^{-1}\\mathbf w_s
      + \\ln\\frac{\\det^{1/2}\\Sigma_s}{\\prod_{i\\in s}\\sigma_{w,i}},

``Σ_s`` the block of A⁻¹ for s and ``σ_{w,i}² = 1/α`` the prior variance. The first term is the
"optimal brain surgeon" saliency (ΔM_MP; Hassibi & Stork), the second the Occam term; "optimal
brain damage" (LeCun et al.) uses ``½ A_ss w_s²`` instead, which ignores the correlations.
A positive difference means deleting makes the model *less* probable (:func:`deletion_evidence`).

**Error bars with uncertain hyperparameters** (§5.2.2). With the output linearised about the mode,
``y(x, w) ≈ y(x, w_MP) + gᵀ(w − w_MP)``, the predictive variance at fixed α, β is
``gᵀA⁻¹g + 1/β`` (§5.2). Integrating over ln α and ln β with the separable Gaussian of (25) moves
the mean ``y(x, w_MP(α, β))`` and, to leading order in 1/γ, adds its spread:

.. math::
    \\sigma_t^2 = \\mathbf g^T\\big(A^{-1} + (\\sigma^2_{\\ln\\alpha} + \\sigma^2_{\\ln\\beta})
        \\mathbf w'_{MP}\\mathbf w'^T_{MP}\\big)\\mathbf g + \\sigma_\\nu^2,\\qquad
    \\mathbf w'_{MP} = \\partial\\mathbf w_{MP}/\\partial\\ln\\alpha = -\\alpha A^{-1}\\mathbf w_{MP}.

The sensitivities follow from the stationarity ``∇M(w_MP) = 0`` (implicit differentiation):
``∂w_MP/∂ln α_c = −α_c A⁻¹ P_c w_MP`` for a class c (P_c keeps the class's weights) and
``∂w_MP/∂ln β = −β A⁻¹ ∇E_D = A⁻¹ (α ∘ w_MP)``, so with one class ``∂w/∂ln β = −∂w/∂ln α`` and the
two variances add as in MacKay's formula; with several classes each ln α_c contributes
``σ²_{ln α_c}(gᵀ w'_c)²`` (:func:`hyperparameter_error_bars`). MacKay's sign ``+αA⁻¹w`` does not
matter (the term is a square). What the formula leaves out — the change of ``gᵀA⁻¹g`` and of
``1/β`` over the spread of ln α, ln β — is of the same order in 1/γ; lesson 6 shows how large it is
where everything is exact.

The exact counterpart where everything is Gaussian — the predictive of a linear model integrated
over (ln α, ln β) on a grid (:func:`integrated_predictive`) — measures what the formula leaves out.

**Committees** (§5.3): the predictions of several optima m weighted by their posterior
probabilities ``p_m ∝ exp(ln P(D|H_m))``; the predictive variance of the mixture is
``Σ_m p_m σ_m² + Σ_m p_m (μ_m − μ̄)²`` (within plus between members; :func:`committee`).

Symbols → code: W_α, W_β → ``log_alpha_width``, ``log_beta_width``; Σ_s → block of ``cov``;
σ_w² → ``prior_variances``; g → rows of ``G``; w'_MP → ``sensitivities``; σ_ν² = 1/β →
``noise_variance``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..models.linear import LinearGaussianPosterior
from ..models.posterior import Expectation, RegressionPosterior
from ..core.gaussian import GaussianFactor
from .ard import check_classes
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


# ---------------------------------------------------------------------------
# Pruning (§6)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Deletion:
    """The §6 evidence change for deleting the parameters ``indices``.

    ``evidence_change`` = ln P(D|H) − ln P(D|H_s̄) = ``saliency`` + ``occam``; ``obd`` is the
    optimal-brain-damage saliency ½ Σ_i A_ii w_i² for comparison; ``new_mean`` the predicted
    optimum of the reduced model (w_MP − A⁻¹ E_s Σ_s⁻¹ w_s, zero at s).
    """

    indices: np.ndarray
    saliency: float
    occam: float
    evidence_change: float
    obd: float
    new_mean: np.ndarray


def deletion_evidence(mean, cov, prior_variances, indices, hessian=None) -> Deletion:
    """MacKay §6: the change in log evidence when the parameters ``indices`` are set to zero.

    Parameters
    ----------
    mean : (k,) array_like
        w_MP.
    cov : (k, k) array_like
        A⁻¹ (Laplace covariance), symmetric positive definite.
    prior_variances : float or (k,) array_like
        σ_w² = 1/α of each parameter (one number for all, or per parameter, e.g.
        ``1/ClassPriorPosterior.alpha_vector``).
    indices : int or sequence of int
        The parameter(s) to delete (distinct, in [0, k)).
    hessian : (k, k) array_like, optional
        A, for the OBD saliency (default: the inverse of ``cov``).
    """
    mean, cov = check.mean_cov(mean, cov, np.size(mean), ("mean", "cov"))
    k = mean.size
    pv = check.finite_array("prior_variances", prior_variances)
    if pv.ndim == 0:
        pv = np.full(k, float(pv))
    if pv.shape != (k,) or not np.all(np.isfinite(pv) & (pv > 0)):
        raise ValueError(f"prior_variances must be a positive number or {k} positive numbers, "
                         f"got shape {pv.shape}")
    idx = np.atleast_1d(np.asarray(indices))
    if idx.size == 0 or idx.dtype.kind not in "iu":
        raise ValueError(f"indices must be one or more integer indices in [0, {k - 1}], got {indices!r}")
    if np.any((idx < 0) | (idx >= k)) or np.unique(idx).size != idx.size:
        raise ValueError(f"indices must be distinct integers in [0, {k - 1}], got {idx.tolist()}")
    A = np.linalg.inv(cov) if hessian is None else check.finite_array("hessian", hessian)
    if A.shape != (k, k):
        raise ValueError(f"hessian must have shape ({k}, {k}), got {A.shape}")
    Sig = GaussianFactor(cov[np.ix_(idx, idx)], "cov block")
    ws = mean[idx]
    saliency = 0.5 * float(Sig.quad(ws))
    occam = 0.5 * Sig.log_det - 0.5 * float(np.sum(np.log(pv[idx])))
    obd = 0.5 * float(np.sum(np.diag(A)[idx] * ws * ws))
    new_mean = mean - cov[:, idx] @ Sig.solve(ws)
    new_mean[idx] = 0.0
    return Deletion(indices=idx, saliency=saliency, occam=occam, evidence_change=saliency + occam,
                    obd=obd, new_mean=new_mean)


class SubsetPosterior(RegressionPosterior):
    """The posterior of a model with some parameters deleted (held at zero): MacKay's H_s̄.

    The reduced weight vector holds the parameters ``keep`` of ``base``; the others are zero.
    Data error, gradient, Hessian and ⟨E_D⟩ are the base model's restricted to ``keep`` (the
    prior on the kept weights is the base's N(0, 1/α) — for a
    :class:`~ensemble_lib.inference.ard.ClassPriorPosterior` base its per-weight α).
    """

    def __init__(self, base, keep):
        base = check.posterior("base", base)
        idx = np.atleast_1d(np.asarray(keep))
        if idx.size == 0 or idx.dtype.kind not in "iu" or np.any((idx < 0) | (idx >= base.dim)) \
                or np.unique(idx).size != idx.size:
            raise ValueError(f"keep must be distinct integer indices in [0, {base.dim - 1}], "
                             f"at least one, got {keep!r}")
        self.base, self.keep = base, np.sort(idx)
        super().__init__(base.alpha, base.beta)
        self.dim, self.n_data = self.keep.size, base.n_data
        self._alpha_vec = getattr(base, "alpha_vector", np.full(base.dim, base.alpha))[self.keep]

    def embed(self, w) -> np.ndarray:
        w = self._w(w)
        full = np.zeros(w.shape[:-1] + (self.base.dim,))
        full[..., self.keep] = w
        return full

    def data_error(self, w):
        return self.base.data_error(self.embed(w))

    def data_error_grad(self, w):
        return self.base.data_error_grad(self.embed(w))[self.keep]

    def data_error_hessian(self, w):
        return self.base.data_error_hessian(self.embed(w))[np.ix_(self.keep, self.keep)]

    def expected_data_error(self, mean, cov):
        full_cov = np.zeros((self.base.dim, self.base.dim))
        full_cov[np.ix_(self.keep, self.keep)] = cov
        ed = self.base.expected_data_error(self.embed(mean), full_cov)
        return Expectation(ed.value, ed.d_mean[self.keep], ed.d_cov[np.ix_(self.keep, self.keep)])

    def log_unnorm(self, w):
        w = self._w(w)
        return -self.beta * self.data_error(w) - 0.5 * np.sum(self._alpha_vec * w * w, axis=-1)

    def grad(self, w):
        w = self._w(w, single=True)
        return -self.beta * self.data_error_grad(w) - self._alpha_vec * w

    def hessian(self, w):
        w = self._w(w, single=True)
        return -self.beta * self.data_error_hessian(w) - np.diag(self._alpha_vec)

    def expected_energy(self, mean, cov) -> Expectation:
        ed = self.expected_data_error(mean, cov)
        value = self.beta * ed.value + 0.5 * float(np.sum(self._alpha_vec * (mean * mean + np.diag(cov))))
        return Expectation(float(value), self.beta * ed.d_mean + self._alpha_vec * mean,
                           self.beta * ed.d_cov + 0.5 * np.diag(self._alpha_vec))

    @property
    def log_normalisers(self) -> float:
        return float(0.5 * self.n_data * (math.log(2 * math.pi) - math.log(self.beta))
                     + 0.5 * np.sum(math.log(2 * math.pi) - np.log(self._alpha_vec)))


# ---------------------------------------------------------------------------
# Error bars with uncertain hyperparameters (§5.2.2)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HyperErrorBars:
    """Predictive variances at M inputs (MacKay §5.2, §5.2.2), term by term.

    ``variance = weight_variance + hyper_variance + noise_variance``: ``weight_variance`` is
    gᵀA⁻¹g, ``noise_variance`` 1/β, ``hyper_variance`` the extra Σ_h σ_h² (gᵀ w'_h)² of uncertain
    hyperparameters (``per_hyper[h]`` its share from each; ``names[h]`` says which:
    ``"ln alpha"`` or ``"ln alpha_c"``, then ``"ln beta"``). ``sensitivities[h]`` = ∂w_MP/∂h and
    ``log_errors[h]`` = σ_h (MacKay (25)).
    """

    weight_variance: np.ndarray
    hyper_variance: np.ndarray
    noise_variance: float
    variance: np.ndarray
    per_hyper: np.ndarray
    sensitivities: np.ndarray
    log_errors: np.ndarray
    names: tuple


def mode_sensitivities(state, classes=None) -> np.ndarray:
    """∂w_MP/∂ln α_c for each class and ∂w_MP/∂ln β at a mode (MacKay §5.2.2), rows in that order.

    Differentiating the stationarity condition ``β∇E_D(w_MP) + α ∘ w_MP = 0`` (α ∘ w: each weight
    times its class's α) gives ``∂w_MP/∂ln α_c = −α_c A⁻¹ P_c w_MP`` and
    ``∂w_MP/∂ln β = −βA⁻¹∇E_D = A⁻¹(α ∘ w_MP)`` (their sum is zero: scaling α and β together
    leaves the mode where it is).

    Parameters
    ----------
    state : EvidenceState or ClassEvidenceState
        A Laplace evaluation at the mode (``mean`` w_MP, ``cov`` A⁻¹, ``alpha`` or ``alphas``).
    classes : sequence of index sequences, optional
        The weight classes of ``state.alphas`` (required with a ``ClassEvidenceState``).

    Returns
    -------
    ndarray (n_classes + 1, k)
    """
    if not (hasattr(state, "mean") and hasattr(state, "cov") and hasattr(state, "beta")):
        raise ValueError(f"state must be an EvidenceState or ClassEvidenceState, got {type(state).__name__}")
    w = np.asarray(state.mean, dtype=float)
    C = np.asarray(state.cov, dtype=float)
    k = w.size
    if hasattr(state, "alphas"):
        if classes is None:
            raise ValueError("classes must be given with a ClassEvidenceState (the partition of its alphas)")
        classes = check_classes(classes, k)
        alphas = np.asarray(state.alphas, dtype=float)
        if alphas.size != len(classes):
            raise ValueError(f"classes must have one class per alpha ({alphas.size}), got {len(classes)}")
    else:
        classes, alphas = (np.arange(k),), np.array([float(state.alpha)])
    rows = []
    for a, idx in zip(alphas, classes):
        pw = np.zeros(k)
        pw[idx] = w[idx]
        rows.append(-a * (C @ pw))
    rows.append(-np.sum(rows, axis=0))
    return np.array(rows)


def hyperparameter_error_bars(run, G) -> HyperErrorBars:
    """Predictive error bars with the extra variance of uncertain α, β (MacKay §5.2.2).

    .. math::
        \\sigma_t^2 = \\mathbf g^T A^{-1}\\mathbf g
            + \\textstyle\\sum_h \\sigma_h^2 (\\mathbf g^T\\mathbf w'_h)^2 + 1/\\beta,

    h running over ln α (or each ln α_c) and ln β, σ_h from MacKay (25) (``σ²_{ln α_c} = 2/γ_c``,
    ``σ²_{ln β} = 2/(N − γ)``), ``w'_h = ∂w_MP/∂h`` (:func:`mode_sensitivities`). With one α this
    is MacKay's ``gᵀ(A⁻¹ + (σ²_{ln α} + σ²_{ln β}) w'w'ᵀ)g + σ_ν²``.

    Parameters
    ----------
    run : EvidenceRun or ClassEvidenceRun
        A converged evidence run (:func:`~ensemble_lib.inference.evidence.evidence_reestimation`,
        :func:`~ensemble_lib.inference.ard.class_evidence_reestimation`, ``fit_*evidence``) of any
        regression posterior: only its final state (mode, A⁻¹, α, β, γ) is used.
    G : (M, k) array_like
        The sensitivities g = ∂y/∂w of the outputs at M inputs, at w_MP (for a linear model the
        features φ(x); for a network :func:`~ensemble_lib.models.network.network_jacobian`).

    Raises
    ------
    ValueError
        If ``run`` is not an evidence run, some γ_c ≤ 0 or N − γ ≤ 0 (the error bars (25) are
        undefined, e.g. a class ARD switched off), or ``G`` is not a finite (M, k) matrix.
    """
    if not hasattr(run, "final") or not hasattr(run, "log_beta_error"):
        raise ValueError(f"run must be an evidence run (EvidenceRun or ClassEvidenceRun), "
                         f"got {type(run).__name__}")
    st = run.final
    k = np.asarray(st.mean).size
    G = check.real_array("G", G)  # its own check below names G and its range
    if G.ndim == 1:
        G = G[None, :]
    if G.ndim != 2 or G.shape[1] != k or G.shape[0] < 1 or not np.all(np.isfinite(G)):
        raise ValueError(f"G must be a finite (M, {k}) matrix of output sensitivities dy/dw, got shape {G.shape}")
    classes = getattr(run, "classes", None)
    if hasattr(run, "log_alpha_errors"):
        sa = np.asarray(run.log_alpha_errors, dtype=float)
        names = tuple(f"ln alpha_{c}" for c in range(sa.size)) + ("ln beta",)
    else:
        sa = np.array([run.log_alpha_error])
        names = ("ln alpha", "ln beta")
    errors = np.append(sa, float(run.log_beta_error))
    if not np.all(np.isfinite(errors)):
        bad = [names[i] for i in np.flatnonzero(~np.isfinite(errors))]
        raise ValueError(f"run has gamma_c <= 0 or N - gamma <= 0 for {bad}: the error bars (MacKay (25)) "
                         "and the extra variance are undefined (a class or the noise is not determined)")
    S = mode_sensitivities(st, classes)
    per = errors[:, None] ** 2 * (S @ G.T) ** 2  # (n_hyper, M)
    wv = np.einsum("mi,ij,mj->m", G, np.asarray(st.cov, dtype=float), G)
    hv = per.sum(axis=0)
    nv = 1.0 / float(st.beta)
    return HyperErrorBars(weight_variance=wv, hyper_variance=hv, noise_variance=nv, variance=wv + hv + nv,
                          per_hyper=per, sensitivities=S, log_errors=errors, names=names)


class IntegratedPredictive(NamedTuple):
    """The predictive moments of :func:`integrated_predictive`, per output.

    ``mean`` the mean over (ln α, ln β); ``spread`` the variance of the mean ``G w_MP(α, β)`` over
    (ln α, ln β) (what MacKay §5.2.2 approximates); ``expected`` the mean of ``gᵀA⁻¹g + 1/β``. The
    predictive variance is ``spread + expected``.
    """

    mean: np.ndarray
    spread: np.ndarray
    expected: np.ndarray


def integrated_predictive(post, G, half_width: float = 8.0, n_grid: int = 201) -> IntegratedPredictive:
    """The predictive mean and variance of a linear model integrated over ln α, ln β (flat prior).

    The exact counterpart of MacKay's §5.2.2 error bars (:func:`hyperparameter_error_bars`), which
    integrate over the hyperparameters only to leading order in 1/γ.

    Parameters
    ----------
    post : LinearGaussianPosterior
        The linear model at the evidence maximum α_MP, β_MP (the grid is centred on its α, β).
    G : (M, k) array_like
        Features of the M outputs ``y = G w``.
    half_width : float
        Half-width of the grid in each of ln α, ln β, in error bars (25); in (0, 20].
    n_grid : int
        Trapezoid nodes per axis, in [11, 2001].

    Returns
    -------
    IntegratedPredictive
        ``(mean, spread, expected)``: the mixture's mean, the variance of the means and the mean
        of the variances.

    Raises
    ------
    ValueError
        If ``post`` is not a linear model, ``G`` is not a finite (M, k) matrix, or ``half_width``,
        ``n_grid`` are outside their ranges.

    Notes
    -----
    ``p(ln α, ln β | D) ∝ P(D | α, β)`` (MacKay (20), exact for a linear model;
    :func:`log_evidence_on_grid`) on a grid of ± ``half_width`` error bars
    ``σ_{ln α} = √(2/γ)``, ``σ_{ln β} = √(2/(N − γ))`` (MacKay (25)) around the posterior's own
    α, β, trapezoidal rule; at each grid point the exact Gaussian predictive of ``y = Gw``: mean
    ``G w_MP(α, β)``, variance ``G A⁻¹ Gᵀ + 1/β`` with ``A = αI + βΦᵀΦ`` (one eigendecomposition
    of ΦᵀΦ serves every point). MacKay (1995), "Probable networks", §5.2, §5.2.2.
    """
    post = check.posterior("post", post)
    if not isinstance(post, LinearGaussianPosterior):
        raise ValueError(f"post must be a LinearGaussianPosterior, got {type(post).__name__}")
    G = check.finite_matrix("G", G, shape="(M, k)")
    if G.shape[1] != post.dim:
        raise ValueError(f"G must have k = {post.dim} columns, got {G.shape[1]}")
    half_width = check.positive("half_width", half_width, upper=20.0)
    n_grid = check.integer("n_grid", n_grid, low=11, high=2001)
    lam, Q = np.linalg.eigh(post.Phi.T @ post.Phi)
    b = Q.T @ (post.Phi.T @ post.t)
    GQ = G @ Q
    gamma = float(np.sum(post.beta * lam / (post.alpha + post.beta * lam)))
    sa, sb = math.sqrt(2.0 / gamma), math.sqrt(2.0 / (post.n_data - gamma))
    la = math.log(post.alpha) + half_width * sa * np.linspace(-1.0, 1.0, n_grid)
    lb = math.log(post.beta) + half_width * sb * np.linspace(-1.0, 1.0, n_grid)
    logp = log_evidence_on_grid(post, la, lb)
    p = np.exp(logp - logp.max())
    A, B = np.exp(la)[:, None, None], np.exp(lb)[None, :, None]
    D = A + B * lam  # (na, nb, k): eigenvalues of A(α, β)
    mu = np.einsum("mk,ijk->ijm", GQ, B * b / D)
    var = np.einsum("mk,ijk->ijm", GQ**2, 1.0 / D) + 1.0 / B

    def integrate(f):
        return np.trapezoid(np.trapezoid(f, lb, axis=1), la, axis=0)

    norm = integrate(p)
    pw = p[..., None]
    m = integrate(pw * mu) / norm
    return IntegratedPredictive(m, integrate(pw * (mu - m) ** 2) / norm, integrate(pw * var) / norm)


# ---------------------------------------------------------------------------
# Committees (§5.3)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Committee:
    """Evidence-weighted committee: ``weights`` p_m, predictive ``mean`` and ``variance``
    (= ``within`` Σ p_m σ_m² + ``between`` Σ p_m (μ_m − μ̄)²)."""

    weights: np.ndarray
    mean: np.ndarray
    variance: np.ndarray
    within: np.ndarray
    between: np.ndarray


def committee(means, variances, log_evidences) -> Committee:
    """A committee (MacKay §5.3): the predictive Gaussians N(μ_m, σ_m²) of M optima, weights ∝ exp(ln P(D|H_m)).

    Parameters
    ----------
    means, variances : (M, P) array_like
        Each member's predictive mean and variance at P inputs (variances ≥ 0).
    log_evidences : (M,) array_like
        Each member's log evidence (e.g. :func:`model_log_evidence`), finite.
    """
    mu = check.finite_array("means", means)
    var = check.finite_array("variances", variances)
    le = check.finite_vector("log_evidences", log_evidences)
    if mu.ndim == 1:
        mu, var = mu[:, None], var.reshape(-1, 1) if var.ndim == 1 else var
    if mu.ndim != 2 or mu.shape[0] != le.size:
        raise ValueError(f"means must have shape (M, P) with M = {le.size} members, got {mu.shape}")
    if var.shape != mu.shape:
        raise ValueError(f"variances must have the shape of means {mu.shape}, got {var.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(var)) and np.all(var >= 0)):
        raise ValueError("means must be finite and variances finite and >= 0")
    p = np.exp(le - le.max())
    p /= p.sum()
    mbar = p @ mu
    within = p @ var
    between = p @ (mu - mbar) ** 2
    return Committee(weights=p, mean=mbar, variance=within + between, within=within, between=between)


def distinct_optima(means, log_evidences, *, atol: float = 1e-3, evidence_atol: float = 1e-2) -> np.ndarray:
    """Indices of the distinct optima among M fitted members, the first of each group of copies.

    Restarts often reach the same optimum, or one of its H! 2^H symmetric copies (MacKay §4.1), which give
    the same predictions. A committee must count each optimum once: the symmetry factor in its
    evidence already counts the copies, and counting a copy twice would double its weight. Two members
    are copies when their predictions differ by at most ``atol`` everywhere and their log evidences
    by at most ``evidence_atol`` nats (restarts stopped by a gradient tolerance agree to about that).

    Parameters
    ----------
    means : (M, P) array_like
        Each member's predictive mean at P inputs, finite.
    log_evidences : (M,) array_like
        Each member's log evidence, finite.
    atol, evidence_atol : float
        The tolerances (> 0).
    """
    mu = check.finite_array("means", means)
    le = check.finite_vector("log_evidences", log_evidences)
    if mu.ndim != 2 or mu.shape[0] != le.size:
        raise ValueError(f"means must have shape (M, P) with M = {le.size} members, got {mu.shape}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("means must be finite")
    check.positive("atol", atol)
    check.positive("evidence_atol", evidence_atol)
    keep: list[int] = []
    for m in range(le.size):
        if not any(abs(le[m] - le[k]) <= evidence_atol and np.max(np.abs(mu[m] - mu[k])) <= atol
                   for k in keep):
            keep.append(m)
    return np.array(keep, dtype=int)


__all__ = ["Committee", "Deletion", "HyperErrorBars", "IntegratedPredictive", "ModelEvidence",
           "SubsetPosterior", "committee", "deletion_evidence", "distinct_optima", "exact_log_evidence",
           "hyperparameter_error_bars", "integrated_predictive", "mode_sensitivities",
           "model_log_evidence"]
