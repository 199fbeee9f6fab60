"""Committees of optima weighted by their evidence (MacKay §5.3), each optimum counted once (MacKay §4.1).

MacKay (1995), "Probable networks".

**Committees** (§5.3): the predictions of several optima m weighted by their posterior
probabilities ``p_m ∝ exp(ln P(D|H_m))``; the predictive variance of the mixture is
``Σ_m p_m σ_m² + Σ_m p_m (μ_m − μ̄)²`` (within plus between members; :func:`committee`).

"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import validation as check


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


__all__ = ["Committee", "committee", "distinct_optima"]
