"""Which hidden units a fitted network still uses: each unit's share of ⟨f²⟩ on the training inputs.

A variational fit of an erf network often switches hidden units off: the mean output weight
v̄_i goes to ≈ 0 and the unit's input weights u_i return to the prior, because a unit the data do
not need costs KL(Q_i‖prior) nats of the bound and buys nothing (the *over-pruning* of
variational Bayes; MacKay §6 discusses pruning by the evidence instead). The Table-1 study and
lesson 4 report how many units each fit keeps.

The criterion, for Q = N(w̄, C) over w = [u_1, …, u_H, v] (B&B (1)): unit i alone is the
one-unit network f_i(x) = v_i σ(u_iᵀx) with weights (u_i, v_i), whose distribution under Q is the
Gaussian marginal of Q on those weights, so

.. math:: m_i = \\sum_n \\langle f_i(x_n)^2 \\rangle_Q

is exact (B&B (20)–(24) with H = 1). The unit's *share* is m_i / Σ_j m_j, and a unit is
*active* when its share is at least ``threshold`` (default 1 %). A point estimate (the MAP
network) is the special case C = 0.

Symbols → code: w̄, C → ``mean``, ``cov``; H → ``n_hidden``; m_i → ``second_moments``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import validation as check
from ..models.network import network_output, output_moments

#: A unit is active when its share of Σ_n⟨f²⟩ is at least this.
DEFAULT_THRESHOLD = 0.01


@dataclass(frozen=True)
class UnitUsage:
    """Each hidden unit's Σ_n⟨f_i(x_n)²⟩, its share, and which units are active."""

    second_moments: np.ndarray
    shares: np.ndarray
    active: np.ndarray
    threshold: float

    @property
    def n_active(self) -> int:
        return int(np.count_nonzero(self.active))


def unit_indices(n_inputs: int, n_hidden: int, i: int) -> np.ndarray:
    """Positions of unit i's weights (u_i then v_i) in w = [u_1, …, u_H, v] (d inputs incl. bias)."""
    d, H = int(n_inputs), int(n_hidden)
    return np.concatenate([np.arange(i * d, (i + 1) * d), [H * d + i]])


def unit_usage(mean, cov, X, n_hidden: int, threshold: float = DEFAULT_THRESHOLD) -> UnitUsage:
    """Each hidden unit's share of Σ_n⟨f²⟩ under Q = N(mean, cov) on inputs X; active if ≥ threshold.

    Parameters
    ----------
    mean : (k,) array_like
        w̄, packed as :func:`~ensemble_lib.models.network.pack_weights`.
    cov : (k, k) array_like or None
        C; ``None`` (or zeros) for a point estimate such as the MAP network.
    X : (N, d) array_like
        Inputs, with the bias column if the network has one.
    n_hidden : int
        H ≥ 1.
    threshold : float
        Share in (0, 1) at or above which a unit counts as active.

    Returns
    -------
    UnitUsage
    """
    X = check.finite_matrix("X", X)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=64)
    threshold = check.positive("threshold", threshold)
    if threshold >= 1.0:
        raise ValueError(f"threshold must lie in (0, 1), got {threshold}")
    mean = np.asarray(mean, dtype=float)
    d = X.shape[1]
    if mean.shape != (n_hidden * (d + 1),):
        raise ValueError(f"mean must have length H·(d + 1) = {n_hidden * (d + 1)} for X with d = {d} "
                         f"columns and H = {n_hidden}, got shape {mean.shape}")
    cov = np.zeros((mean.size, mean.size)) if cov is None else np.asarray(cov, dtype=float)
    m = np.empty(n_hidden)
    for i in range(n_hidden):
        idx = unit_indices(d, n_hidden, i)
        sub_cov = cov[np.ix_(idx, idx)]
        if not np.any(sub_cov):
            m[i] = float(np.sum(network_output(mean[idx], X, 1) ** 2))
        else:
            m[i] = float(np.sum(output_moments(mean[idx], sub_cov, X, 1)[1]))
    total = float(np.sum(m))
    shares = m / total if total > 0 else np.full(n_hidden, 1.0 / n_hidden)
    return UnitUsage(second_moments=m, shares=shares, active=shares >= threshold,
                     threshold=threshold)


__all__ = ["UnitUsage", "unit_usage"]
