"""Laplace's method: a Gaussian at a mode with covariance H⁻¹ (Barber & Bishop 1998, eqs 9–12).

``φ(w) = βE_D + (α/2)‖w‖²`` is minimised to find a mode ``w*``; the Hessian
``H = ∇∇φ(w*)`` (eq. 11) gives ``Q_Laplace = N(w*, H⁻¹)`` (eq. 12). The log
evidence in the Laplace approximation (MacKay 1995, "Probable networks", eq. 20)
is ``ln P(D) ≈ −φ(w*) + (k/2) ln 2π − ½ ln|H| − ln Z_D − ln Z_P``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .gaussian import LOG_2PI


@dataclass(frozen=True)
class LaplaceFit:
    """Result of :func:`laplace_fit`.

    Attributes
    ----------
    mean : the mode w* (eq. 10)
    cov : H⁻¹ (eq. 12)
    hessian : H = −∇∇ ln P at w* (eq. 11)
    kl : KL(Q‖P) against the exact posterior (nan where ln Z is not computable)
    bound : F[Q] for this Q (eq. 17)
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


def find_mode(post, start) -> tuple[np.ndarray, int]:
    """Minimise φ = −ln(unnormalised posterior) from ``start`` with exact derivatives."""
    res = optimize.minimize(
        lambda w: -float(post.log_unnorm(w)),
        np.asarray(start, dtype=float),
        jac=lambda w: -post.grad(w),
        hess=lambda w: -post.hessian(w),
        method="trust-exact",
        options={"gtol": 1e-10, "maxiter": 500},
    )
    return res.x, int(res.nit)


def laplace_fit(post, start=None, quadrant=None, compute_kl: bool = True) -> LaplaceFit:
    """Gaussian approximation at a mode of the posterior (eqs 9–12).

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
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the mode search ended where the Hessian is not positive definite "
            "(a saddle point); try another start"
        ) from None
    Linv = np.linalg.solve(L, np.eye(post.dim))
    cov = Linv.T @ Linv
    half_logdet_H = float(np.sum(np.log(np.diag(L))))
    log_ev = float(
        post.log_unnorm(w_star) + 0.5 * post.dim * LOG_2PI - half_logdet_H - post.log_normalisers
    )
    bound = post.bound(w_star, cov)
    kl = float("nan")
    if compute_kl:
        try:
            kl = float(post.log_evidence - bound)
        except NotImplementedError:  # no exact ln Z for this model
            pass
    return LaplaceFit(w_star, cov, H, kl, bound, log_ev, n_iter)
