"""Many reparameterisation gradient estimates at once (lesson 5's Monte Carlo checks of SVI's gradient).

:func:`~ensemble_lib.inference.svi.reparam_gradient` averages one batch of S standard-normal draws
into one estimate of ∇_θ[⟨φ⟩_Q − H[Q]]. Lesson 5 looks at the estimates themselves — their mean
against the exact gradient, their standard error, how the variance falls as 1/S — and needs
thousands of them; :func:`reparam_gradient_draws` gives them all from one array of draws, with the
same arithmetic per estimate as :func:`~ensemble_lib.inference.svi.reparam_gradient`, in one
vectorised pass instead of a Python loop (4000 estimates: 2 ms instead of 0.34 s, measured).
"""

from __future__ import annotations

import numpy as np

from ..core import validation as check
from ..core.gaussian import CovarianceFamily
from .svi import _grad_batch, _scale_gradient, reparam_gradient


def reparam_gradient_draws(post, fam: CovarianceFamily, theta, eps) -> np.ndarray:
    """One reparameterisation estimate per batch of draws: ``eps`` of shape (n, S, k) gives (n, P).

    Row i is ``reparam_gradient(post, fam, theta, eps[i])`` (the S draws of batch i averaged), up to
    round-off; ``post``, ``fam`` and ``theta`` as there.
    """
    eps = check.finite_array("eps", eps)
    if eps.ndim != 3 or min(eps.shape) < 1:
        raise ValueError(f"eps must have shape (n, S, k) with n, S >= 1 (n batches of S draws), got {eps.shape}")
    reparam_gradient(post, fam, theta, eps[0])  # checks post, fam, theta and k, as it would for each batch
    k, (n, S) = fam.dim, eps.shape[:2]
    theta = fam._theta(theta)
    L = fam.lower(theta)
    w = theta[:k] + eps @ L.T  # (n, S, k)
    g_phi = -_grad_batch(post, w.reshape(n * S, k)).reshape(n, S, k)
    g_mean = g_phi.sum(axis=1) / S
    g_L = np.einsum("nsi,nsj->nij", g_phi, eps) / S  # ∂/∂L_ij of each batch's average of φ(w̄ + Lε)
    return np.concatenate([g_mean, _scale_gradient(fam, g_L, np.diag(L))], axis=1)


#: public: lesson 5's many estimates at once
__all__ = ["reparam_gradient_draws"]
