"""Laplace's method: a Gaussian at a mode with covariance H⁻¹ (Barber & Bishop 1998, eqs 9–12).

``φ(w) = βE_D + (α/2)‖w‖²`` is minimised to find a mode ``w*``; the Hessian
``H = ∇∇φ(w*)`` (B&B (11)) gives ``Q_Laplace = N(w*, H⁻¹)`` (B&B (12)). The log
evidence in the Laplace approximation (MacKay 1995, "Probable networks", eq. 20)
is ``ln P(D) ≈ −φ(w*) + (k/2) ln 2π − ½ ln|H| − ln Z_D − ln Z_P``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..models.toy import ToyPosterior
from ..core.gaussian import LOG_2PI, GaussianFactor
from .toy_objective import toy_energy_terms


def laplace_diagonal_start(mean, hessian) -> tuple[np.ndarray, np.ndarray]:
    """A narrow Gaussian at a mode, ``(mean, diag(1/H_ii))``: the usual start of a KL fit.

    Each variance is that of the Laplace Gaussian of one coordinate with the
    others held fixed, ``1/H_ii ≤ (H⁻¹)_ii``, so the start is never wider
    than Laplace's. Diagonal entries below 1e-12 are raised to 1e-12.

    Parameters
    ----------
    mean : array_like, shape (k,)
        The mode w* (Laplace) or w_MP (evidence).
    hessian : array_like, shape (k, k)
        H = −∇∇ ln P at the mode (B&B (11)), or MacKay's A; its diagonal must be positive.

    Returns
    -------
    (mean, cov) : ndarrays of shapes (k,) and (k, k)

    Raises
    ------
    ValueError
        If the shapes disagree or the Hessian's diagonal is not positive and finite.
    """
    mean = np.asarray(mean, dtype=float)
    H = np.asarray(hessian, dtype=float)
    k = mean.size
    if mean.shape != (k,) or H.shape != (k, k):
        raise ValueError(f"mean must have shape (k,) and hessian (k, k), got {mean.shape} and {H.shape}")
    h = np.diag(H)
    if not np.all(np.isfinite(h) & (h > 0)):
        raise ValueError("hessian must have a positive, finite diagonal (a mode's Hessian is positive definite)")
    return mean, np.diag(1.0 / np.clip(h, 1e-12, None))


@dataclass(frozen=True)
class LaplaceFit:
    """Result of :func:`laplace_fit`.

    Attributes
    ----------
    mean : the mode w* (B&B (10))
    cov : H⁻¹ (B&B (12))
    hessian : H = −∇∇ ln P at w* (B&B (11))
    kl : KL(Q‖P) against the exact posterior (nan where ln Z is not computable)
    bound : F[Q] for this Q (B&B (17))
    log_evidence_laplace : the Laplace approximation to ln P(D | α, β)
    n_iter : optimiser iterations
    """

    mean: np.ndarray
    cov: np.ndarray
    hessian: np.ndarray
    kl: float
    bound: float
    log_evidence_laplace: float
    n_iter: int
    #: the Cholesky factorisation of ``hessian`` (ln|H|, solves); made once by :func:`laplace_fit`
    hessian_factor: GaussianFactor | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        f = self.hessian_factor
        if f is None or f.matrix is not self.hessian:  # absent, or stale after dataclasses.replace
            object.__setattr__(self, "hessian_factor", GaussianFactor(self.hessian, "hessian"))

    def diagonal_start(self) -> tuple[np.ndarray, np.ndarray]:
        """``(mean, diag(1/H_ii))``: :func:`laplace_diagonal_start` at this mode."""
        return laplace_diagonal_start(self.mean, self.hessian)


def find_mode(post, start) -> tuple[np.ndarray, int]:
    """Minimise φ = −ln(unnormalised posterior) from ``start`` with exact derivatives.

    For the toy, φ, its gradient and Hessian come from one evaluation per point
    (:func:`~ensemble_lib.inference.toy_objective.toy_energy_terms`, the same functions).
    """
    if type(post) is ToyPosterior:
        cache = {}

        def terms(w):
            key = w.tobytes()
            if key not in cache:
                cache.clear()
                cache[key] = toy_energy_terms(post, w)
            return cache[key]

        # copies: the optimiser may change the arrays it is given
        fun, jac, hess = (lambda w: terms(w)[0]), (lambda w: terms(w)[1].copy()), (
            lambda w: terms(w)[2].copy())
    else:
        fun, jac, hess = (lambda w: -float(post.log_unnorm(w))), (lambda w: -post.grad(w)), (
            lambda w: -post.hessian(w))
    res = optimize.minimize(fun, np.asarray(start, dtype=float), jac=jac, hess=hess,
                            method="trust-exact", options={"gtol": 1e-10, "maxiter": 500})
    return res.x, int(res.nit)


def laplace_fit(post, start=None, quadrant=None, compute_kl: bool = True) -> LaplaceFit:
    """Gaussian approximation at a mode of the posterior (B&B (9)–(12)).

    Parameters
    ----------
    post : RegressionPosterior
        E.g. a :class:`~ensemble_lib.ToyPosterior`.
    start : array_like, optional
        Starting point of the mode search.
    quadrant : tuple of two signs, optional
        For the 2-parameter toy: start in this (sign u, sign v) quadrant.
        Default (−1, −1), the quadrant of the generating parameters
        (u, v) = (−0.13, −2.5) of Fig. 2; the mirror mode is (+, +).
    compute_kl : bool
        Also compute KL(Q‖P) (needs the model's exact ln Z; nan where it has none).
    """
    post = check.posterior("post", post)
    compute_kl = check.flag("compute_kl", compute_kl)
    if quadrant is not None and (isinstance(quadrant, str) or not hasattr(quadrant, "__len__")
                                 or len(quadrant) != 2):
        raise ValueError(f"quadrant must be a pair of signs (±1, ±1), got {quadrant!r}")
    if start is not None:
        start = check.finite_array("start", start)
        if start.shape != (post.dim,) or not np.all(np.isfinite(start)):
            raise ValueError(f"start must have shape ({post.dim},) and be finite, got shape {start.shape}")
    if start is None:
        if post.dim == 2:
            su, sv = (-1.0, -1.0) if quadrant is None else quadrant
            if su not in (-1, 1) or sv not in (-1, 1):
                raise ValueError(f"quadrant must be a pair of signs (±1, ±1), got {quadrant!r}")
            start = np.array([su, sv], dtype=float)
        else:
            start = np.zeros(post.dim)
    w_star, n_iter = find_mode(post, start)
    H = -post.hessian(w_star)
    H = 0.5 * (H + H.T)
    try:
        factor = GaussianFactor(H, "hessian")
    except ValueError:
        if not np.all(np.isfinite(H)):
            raise
        raise ValueError(
            "the mode search ended where the Hessian is not positive definite "
            "(a saddle point); try another start"
        ) from None
    cov = factor.inverse()
    log_ev = float(
        post.log_unnorm(w_star) + 0.5 * post.dim * LOG_2PI - 0.5 * factor.log_det - post.log_normalisers
    )
    bound = post.bound(w_star, cov)
    kl = float("nan")
    if compute_kl:
        try:
            kl = float(post.log_evidence - bound)
        except NotImplementedError:  # no exact ln Z for this model
            pass
    return LaplaceFit(w_star, cov, H, kl, bound, log_ev, n_iter, factor)


__all__ = ["LaplaceFit", "laplace_fit"]
