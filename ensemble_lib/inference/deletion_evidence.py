"""Deleting parameters by evidence (MacKay §6), beside the saliencies of OBS and OBD.

MacKay (1995), "Probable networks".

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

Symbols → code: Σ_s → block of ``cov``; σ_w² → ``prior_variances``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import validation as check
from ..models.posterior import Expectation, RegressionPosterior
from ..core.gaussian import GaussianFactor


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


__all__ = ["Deletion", "SubsetPosterior", "deletion_evidence"]
