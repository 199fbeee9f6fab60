"""An independent reference for KL(Q‖P) on the toy: brute-force 2-D quadrature (:func:`kl_by_quadrature`), for a
Gaussian or a mixture Q."""

from __future__ import annotations


import numpy as np
from scipy import integrate

from ...core import validation as check
from ...core.gaussian import LOG_2PI


# ---------------------------------------------------------------------------
# An independent reference for KL(Q‖P): brute-force 2-D quadrature
# ---------------------------------------------------------------------------

def kl_by_quadrature(post, mean, cov, weights=None, n: int = 401, z_max: float = 8.0) -> float:
    """KL(Q‖P) = ∫ Q ln(Q/P) dw by brute-force 2-D quadrature, Q a Gaussian or a mixture of them.

    The lessons' and the tests' independent check of the library's KL (B&B (16)) for a single
    Gaussian Q = N(w̄, C) and for a mixture Q = Σ_i π_i N(w̄_i, C_i) (B&B (39)).

    Parameters
    ----------
    post : ToyPosterior
        The posterior P (any 2-parameter :class:`~ensemble_lib.models.posterior.RegressionPosterior`
        with ``log_unnorm`` and an exact ``log_Z``).
    mean, cov : array_like, shapes (2,) and (2, 2), or (K, 2) and (K, 2, 2)
        One Gaussian, or the K components of a mixture.
    weights : array_like, shape (K,), optional
        The mixture weights π_i (positive, summing to 1); required with K components, ``None``
        (or ``[1]``) for one Gaussian.
    n : int
        Simpson nodes per axis, in [3, 2001] (odd for Simpson's rule proper).
    z_max : float
        Half-width of each grid in its component's standard deviations (mass outside below
        e^{−z_max²/2}); in (0, 40].

    Returns
    -------
    float
        The KL divergence computed without the library's bound.

    Raises
    ------
    ValueError
        If ``post`` has no ``log_unnorm``/``log_Z``, the Gaussians are not 2-D with positive-definite
        covariances, the weights are not K positive numbers summing to 1, or ``n``, ``z_max`` are
        outside their ranges.

    Notes
    -----
    ``KL = Σ_i π_i ∫ N(z|0, I) [ln Q(w̄_i + L_i z) − ln P(w̄_i + L_i z | D)] dz`` (``C_i = L_i L_iᵀ``,
    Cholesky), each integral by Simpson's rule on an n×n grid of ``|z| ≤ z_max`` in the component's
    whitened coordinates; ``ln Q`` is the mixture's log density summed directly and
    ``ln P(w|D) = −βE_D(w) − (α/2)‖w‖² − ln Z`` is evaluated pointwise (B&B (6)). Nothing of the
    library's ``bound``/``kl`` is used: not the entropy formula or its bound, not the 1-D rule for
    ⟨E_D⟩, not ``ln Z_D``, ``ln Z_P``; only ``post.log_Z``, the exact normaliser (itself checked
    against 2-D adaptive quadrature in ``tests/models/test_toy.py``). So it agrees with ``post.kl`` only
    if F[Q] (B&B (17)–(20)) and KL = ln P(D) − F (B&B (16)) are right.
    """
    if not (hasattr(post, "log_unnorm") and hasattr(post, "log_Z")):
        raise ValueError(f"post must be a 2-parameter posterior with log_unnorm and an exact log_Z "
                         f"(e.g. a ToyPosterior), got {type(post).__name__}")
    n = check.integer("n", n, low=3, high=2001)
    z_max = check.positive("z_max", z_max, upper=40.0)
    mean, cov = check.finite_array("mean", mean), check.finite_array("cov", cov)
    single = mean.ndim == 1
    means, covs = (mean[None], cov[None]) if single else (mean, cov)
    if means.ndim != 2 or covs.ndim != 3 or len(covs) != len(means):
        raise ValueError(f"mean and cov must have shapes (2,) and (2, 2), or (K, 2) and (K, 2, 2), "
                         f"got {mean.shape} and {cov.shape}")
    K = len(means)
    gaussians = [check.mean_cov(m, C, 2, (f"mean[{i}]", f"cov[{i}]")) for i, (m, C) in enumerate(zip(means, covs))]
    if weights is None:
        if K != 1:
            raise ValueError(f"weights must be given for a mixture of K = {K} components")
        weights = np.ones(1)
    weights = check.finite_array("weights", weights)
    if (weights.shape != (K,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0)
            or abs(weights.sum() - 1.0) > 1e-9):
        raise ValueError(f"weights must be {K} positive numbers summing to 1, got {weights}")
    z = np.linspace(-z_max, z_max, n)
    Z = np.stack(np.meshgrid(z, z, indexing="ij"), axis=-1)
    zz = np.sum(Z * Z, axis=-1)
    phi = np.exp(-0.5 * zz) / (2.0 * np.pi)
    Ls = [np.linalg.cholesky(C) for _, C in gaussians]
    half_logdets = [np.sum(np.log(np.diag(L))) for L in Ls]
    total = 0.0
    for i, (p, (m, _), L) in enumerate(zip(weights, gaussians, Ls)):
        W = m + Z @ L.T
        terms = []
        for j, (pj, (mj, _), Lj) in enumerate(zip(weights, gaussians, Ls)):
            if j == i:  # in its own whitened coordinates the component's Mahalanobis distance is |z|²
                yy = zz
            else:
                y = np.linalg.solve(Lj, (W - mj).reshape(-1, 2).T).T.reshape(W.shape)
                yy = np.sum(y * y, axis=-1)
            terms.append(np.log(pj) - 0.5 * yy - LOG_2PI - half_logdets[j])
        log_q = terms[0] if K == 1 else np.logaddexp.reduce(np.stack(terms), axis=0)
        log_p = post.log_unnorm(W) - post.log_Z
        f = phi * (log_q - log_p)
        total += p * float(integrate.simpson(integrate.simpson(f, x=z, axis=1), x=z))
    return total


__all__ = ["kl_by_quadrature"]
