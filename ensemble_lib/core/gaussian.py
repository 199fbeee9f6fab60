"""Gaussians, Gauss–Hermite quadrature and the covariance families of Q.

Barber & Bishop (1998) fit a Gaussian ``Q(w) = N(w_bar, C)``; this module
holds what every model needs of it:

* ``gauss_hermite(n)``: nodes and weights for expectations under N(0, 1);
* ``gaussian_entropy(C)``: B&B (18), ``H[Q] = ½ ln|C| + (k/2)(1 + ln 2π)``;
* ``kl_gaussians``: closed-form KL between two Gaussians (used to check
  fits against exactly Gaussian targets);
* the three covariance families of §2.1 as parameter maps with their
  chain rules: ``"full"`` (Cholesky factor, log-diagonal),
  ``"factor"`` (B&B (26), ``C = diag(d²) + Σ_{i≤s} s_i s_iᵀ``) and
  ``"diagonal"`` (eq. 26 with ``s = 0``, Hinton & van Camp 1993).

Symbols: ``k`` = dimension of w, ``w_bar``/``mean`` = mean of Q,
``C``/``cov`` = covariance of Q, ``s``/``rank`` = number of factors.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.linalg import lapack
from scipy.special import roots_hermitenorm

from . import validation as check

LOG_2PI = float(np.log(2.0 * np.pi))


#: Gauss–Hermite rules up to this many nodes come from numpy, larger ones from scipy
_NUMPY_NODES = 150


@lru_cache(maxsize=32)
def gauss_hermite(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``z`` and weights ``p`` with ``Σ p_i g(z_i) ≈ E[g(z)]``, z ~ N(0, 1).

    Probabilists' Gauss–Hermite rule, exact for polynomials of degree
    ``2n − 1``, for ``n`` from 1 to 2000. Weights sum to one.

    Notes
    -----
    Up to 150 nodes, numpy's ``hermegauss``; above, scipy's ``roots_hermitenorm``
    (an asymptotic O(n) method), because numpy's weights overflow to NaN from
    371 nodes. The two agree to round-off where both are finite.
    """
    n = check.integer("n", n, low=1, high=2000)
    if n <= _NUMPY_NODES:
        z, p = hermegauss(n)
    else:
        z, p = roots_hermitenorm(n)
    p = p / p.sum()
    z.setflags(write=False)
    p.setflags(write=False)
    return z, p


class GaussianFactor:
    """One Cholesky factorisation of a covariance (or precision) matrix, reused for everything.

    In the spirit of scipy.stats' ``_PSD``: the matrix ``M = L Lᵀ`` is factorised
    once, and its log-determinant, solves ``M⁻¹ b``, quadratic forms
    ``bᵀ M⁻¹ b``, inverse and — when ``M`` is a covariance — the Gaussian
    entropy (B&B (18)) all come from the same ``L``.

    Parameters
    ----------
    matrix : (k, k) array_like
        Symmetric positive definite (symmetric to a relative 1e-10; the
        factorisation reads its lower triangle, as ``numpy.linalg.cholesky`` does).
    name : str
        The argument's name, used in the error message.

    Attributes
    ----------
    matrix : (k, k) ndarray
        ``M`` as given (as a float array, not copied).
    L : (k, k) ndarray
        The lower-triangular Cholesky factor, ``M = L Lᵀ``.
    dim : int
        ``k``.

    Raises
    ------
    ValueError
        If ``matrix`` is not a non-empty square real matrix, not finite, not
        symmetric or not positive definite; the message names ``name``
        (never numpy's ``LinAlgError``).

    Examples
    --------
    >>> f = GaussianFactor([[2.0, 0.5], [0.5, 1.0]], "cov")
    >>> round(f.log_det, 6), f.solve([1.0, 0.0]).round(6).tolist()
    (0.559616, [0.571429, -0.285714])
    """

    __slots__ = ("matrix", "L", "dim", "_log_det")

    def __init__(self, matrix, name: str = "matrix"):
        M = np.atleast_2d(check.real_array(name, matrix))
        if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
            raise ValueError(f"{name} must be a non-empty square matrix, got shape {M.shape}")
        scale = float(np.abs(M).max())  # NaN or inf propagate into both reductions
        if not (np.isfinite(scale) and float(np.abs(M - M.T).max()) <= 1e-10 * scale):
            if not np.all(np.isfinite(M)):
                raise ValueError(f"{name} must be finite (no NaN or inf)")
            raise ValueError(f"{name} must be symmetric")
        try:
            L = np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            raise ValueError(f"{name} must be positive definite") from None
        if not np.all(np.isfinite(L)):  # entries near 1e308: the factorisation overflows
            raise ValueError(f"{name} is too large: its Cholesky factor overflows "
                             f"(entries must stay well below 1e300 in size)")
        self.matrix, self.L, self.dim = M, L, M.shape[0]
        self._log_det = None

    @property
    def log_det(self) -> float:
        """``ln|M| = 2 Σ ln L_ii``."""
        if self._log_det is None:
            self._log_det = float(2.0 * np.log(self.L.diagonal()).sum())
        return self._log_det

    def _rhs(self, b, name: str = "b") -> np.ndarray:
        b = check.real_array(name, b)
        if b.ndim not in (1, 2) or b.shape[0] != self.dim:
            raise ValueError(f"{name} must have shape ({self.dim},) or ({self.dim}, m), got {b.shape}")
        if not np.all(np.isfinite(b)):
            raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
        return b

    def solve(self, b) -> np.ndarray:
        """``M⁻¹ b`` by two triangular solves (``b`` of shape (k,) or (k, m))."""
        return lapack.dpotrs(self.L, self._rhs(b), lower=1)[0]

    def whiten(self, b) -> np.ndarray:
        """``L⁻¹ b``, so that ``‖L⁻¹ b‖² = bᵀ M⁻¹ b``."""
        return lapack.dtrtrs(self.L, self._rhs(b), lower=1)[0]

    def quad(self, b) -> np.ndarray | float:
        """``bᵀ M⁻¹ b`` (per column of ``b`` if 2-D)."""
        z = self.whiten(b)
        return float(z @ z) if z.ndim == 1 else np.sum(z * z, axis=0)

    def inverse(self) -> np.ndarray:
        """``M⁻¹ = L⁻ᵀ L⁻¹``, exactly symmetric (only where the whole inverse is needed)."""
        W = lapack.dtrtri(self.L, lower=1)[0]  # L⁻¹ (L is nonsingular: its diagonal is positive)
        return W.T @ W

    def trace_solve(self, B) -> float:
        """``Tr(M⁻¹ B)`` (``B`` of shape (k, k))."""
        B = self._rhs(B, "B")
        if B.shape != (self.dim, self.dim):
            raise ValueError(f"B must have shape ({self.dim}, {self.dim}), got {B.shape}")
        return float(np.trace(lapack.dpotrs(self.L, B, lower=1)[0]))

    def entropy(self) -> float:
        """Entropy of N(·, M) with ``M`` as covariance: ``½ ln|M| + (k/2)(1 + ln 2π)`` (B&B (18))."""
        return 0.5 * self.log_det + 0.5 * self.dim * (1.0 + LOG_2PI)


def gaussian_entropy(cov) -> float:
    """Entropy of N(·, C): ``½ ln|C| + (k/2)(1 + ln 2π)`` (B&B (18))."""
    return GaussianFactor(cov, "cov").entropy()


def kl_gaussians(m0, C0, m1, C1) -> float:
    """Closed-form ``KL(N(m0, C0) ‖ N(m1, C1))``.

    .. math:: \\tfrac12\\left[\\operatorname{Tr}(C_1^{-1}C_0) + (m_1-m_0)^T C_1^{-1}(m_1-m_0)
              - k + \\ln|C_1| - \\ln|C_0|\\right]
    """
    F1, F0 = GaussianFactor(C1, "C1"), GaussianFactor(C0, "C0")
    if F0.dim != F1.dim:
        raise ValueError(f"C0 and C1 must have the same shape, got {F0.matrix.shape} and {F1.matrix.shape}")
    m0, m1 = (_mean(name, m, F0.dim) for name, m in (("m0", m0), ("m1", m1)))
    A = F1.whiten(F0.L)  # L1⁻¹ L0: Tr(C1⁻¹C0) = ‖A‖²
    with np.errstate(over="ignore", invalid="ignore"):
        d = F1.whiten(check.finite_result(m1 - m0, "m0, m1", "m1 - m0"))
        kl = 0.5 * (np.sum(A * A) + d @ d - F0.dim + F1.log_det - F0.log_det)
    return float(check.finite_result(kl, "m0, C0, m1, C1", "KL(N(m0, C0) ‖ N(m1, C1))"))


def _mean(name: str, m, k: int) -> np.ndarray:
    """A finite mean vector of shape (k,)."""
    m = check.real_array(name, m)
    if m.shape != (k,):
        raise ValueError(f"{name} must have shape ({k},), got {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return m


def ellipse_geometry(cov, n_sigma: float = 1.0) -> tuple[float, float, float]:
    """Width, height (full axes) and angle in degrees of the n-σ ellipse of a 2-D Gaussian.

    ``cov`` must be a finite symmetric positive-definite (2, 2) matrix and ``n_sigma`` > 0.
    """
    n_sigma = check.positive("n_sigma", n_sigma)
    cov = GaussianFactor(cov, "cov").matrix
    if cov.shape != (2, 2):
        raise ValueError(f"cov must have shape (2, 2), got {cov.shape}")
    vals, vecs = np.linalg.eigh(cov)
    vals = np.clip(vals, 0.0, None)
    angle = float(np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1])))
    width = 2.0 * n_sigma * float(np.sqrt(vals[1]))
    height = 2.0 * n_sigma * float(np.sqrt(vals[0]))
    return width, height, angle


# ---------------------------------------------------------------------------
# Covariance families: parameter vector theta -> (mean, C) and the chain rule
# ---------------------------------------------------------------------------

FAMILIES = ("diagonal", "full", "factor")


@dataclass(frozen=True)
class CovarianceFamily:
    """A parametrisation of Q = N(mean, C) by one unconstrained vector ``theta`` (B&B (26)).

    ``theta = [mean (k), covariance parameters]``.

    * ``full``: lower-triangular Cholesky factor L (C = L Lᵀ) with its
      diagonal stored as logarithms; k(k+1)/2 parameters.
    * ``factor``: B&B (26), ``C = diag(d²) + S Sᵀ`` with S of shape (k, s);
      ``ln d`` (k) then S row-major (k·s); k(s+1) parameters, of which
      k(s+1) − s(s−1)/2 are identifiable (rotations of the s columns
      leave C unchanged, which the optimiser tolerates).
    * ``diagonal``: ``factor`` with s = 0.
    """

    name: str
    dim: int
    rank: int = 0

    @staticmethod
    def make(family: str, dim: int, rank: int | None = None) -> "CovarianceFamily":
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
        dim = check.integer("dim", dim, low=1)
        if family == "factor":
            if rank is None:
                rank = 1 if dim > 1 else 0
            rank = check.integer("rank", rank, low=0, high=dim - 1)
        elif rank not in (None, 0) and family == "diagonal":
            raise ValueError(f"rank must be 0 (or None) for the diagonal family, got {rank!r}")
        elif family == "full":
            if rank is not None and rank != dim - 1:
                check.integer("rank", rank, low=0, high=dim - 1)
            rank = dim - 1
        else:
            rank = 0
        return CovarianceFamily(family, dim, rank)

    @property
    def n_params(self) -> int:
        k = self.dim
        if self.name == "full":
            return k + k * (k + 1) // 2
        return k + k + k * self.rank

    def unpack(self, theta) -> tuple[np.ndarray, np.ndarray]:
        """theta → (mean, C)."""
        k = self.dim
        theta = self._theta(theta)
        mean = theta[:k]
        if self.name == "full":
            L = self._lower(theta[k:])
            return mean, L @ L.T
        d, S = self._factor(theta[k:])
        return mean, np.diag(d * d) + S @ S.T

    def unpack_lower(self, theta) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """theta → (mean, C, L): :meth:`unpack` and, for ``"full"``, the L with C = L Lᵀ (else None)."""
        k = self.dim
        theta = self._theta(theta)
        if self.name != "full":
            return (*self.unpack(theta), None)
        L = self._lower(theta[k:])
        return theta[:k], L @ L.T, L

    def pack(self, mean, cov) -> np.ndarray:
        """(mean, C) → theta; for ``factor`` the s leading eigen-directions of C."""
        k = self.dim
        mean = _mean("mean", mean, k)
        cov = check.real_array("cov", cov)
        if cov.shape != (k, k):
            raise ValueError(f"cov must have shape ({k}, {k}), got {cov.shape}")
        if not np.all(np.isfinite(cov)):
            raise ValueError("cov must be finite (no NaN or inf)")
        if self.name == "full":
            L = GaussianFactor(cov, "cov").L
            tri = L[tril_positions(k)].copy()
            diag_pos = diag_positions(k)
            tri[diag_pos] = np.log(np.diag(L))
            return np.concatenate([mean, tri])
        s = self.rank
        vals, vecs = np.linalg.eigh(cov)
        vals, vecs = vals[::-1], vecs[:, ::-1]
        floor = 1e-3 * max(vals.min(), 1e-12)
        S = vecs[:, :s] * np.sqrt(np.clip(vals[:s] - floor, 0.0, None))[None, :]
        d2 = np.clip(np.diag(cov) - np.sum(S * S, axis=1), 1e-3 * np.diag(cov), None)
        return np.concatenate([mean, 0.5 * np.log(d2), S.ravel()])

    def chain(self, theta, g_mean, g_cov, *, lower=None) -> np.ndarray:
        """Gradient w.r.t. theta from ∂f/∂mean and the symmetric ∂f/∂C.

        For a symmetric perturbation, ``df = Σ_ij G_ij dC_ij``; with
        C = L Lᵀ this gives ∂f/∂L = 2 G L, and with C = diag(d²) + S Sᵀ it
        gives ∂f/∂ln d_j = 2 d_j² G_jj and ∂f/∂S = 2 G S. ``lower``: for ``"full"``, the L of
        these ``theta`` (:meth:`unpack_lower`), if the caller has it (it is not read again).
        """
        k = self.dim
        theta = self._theta(theta) if lower is None else theta
        g_mean = check.finite_array("g_mean", g_mean)
        g_cov = check.finite_array("g_cov", g_cov)
        if g_mean.shape != (k,) or g_cov.shape != (k, k):
            raise ValueError(f"g_mean must have shape ({k},) and g_cov shape ({k}, {k}), "
                             f"got {g_mean.shape} and {g_cov.shape}")
        G = 0.5 * (g_cov + g_cov.T)
        if self.name == "full":
            L = self._lower(theta[k:]) if lower is None else lower
            gL = 2.0 * G @ L
            g_tri = gL[tril_positions(k)].copy()
            diag_pos = diag_positions(k)
            g_tri[diag_pos] *= np.diag(L)
            return np.concatenate([g_mean, g_tri])
        d, S = self._factor(theta[k:])
        g_logd = 2.0 * d * d * np.diag(G)
        g_S = 2.0 * G @ S
        return np.concatenate([g_mean, g_logd, g_S.ravel()])

    def lower(self, theta) -> np.ndarray:
        """The lower-triangular ``L`` with ``C = L Lᵀ`` for the parameters ``theta``.

        Read off ``theta`` for ``"full"`` (the stored factor) and ``"diagonal"``
        (``diag(d)``); for ``"factor"`` the Cholesky factor of ``diag(d²) + S Sᵀ``.
        """
        k = self.dim
        theta = self._theta(theta)
        if self.name == "full":
            return self._lower(theta[k:])
        if self.name == "diagonal":
            return np.diag(np.exp(theta[k:2 * k]))
        return GaussianFactor(self.unpack(theta)[1], "cov").L

    # -- helpers ---------------------------------------------------------
    def _theta(self, theta) -> np.ndarray:
        theta = check.real_array("theta", theta)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have shape ({self.n_params},) for the {self.name} family "
                             f"(k = {self.dim}, s = {self.rank}), got {theta.shape}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must contain only finite values (no NaN or inf)")
        return theta

    def _lower(self, tri) -> np.ndarray:
        k = self.dim
        tri = np.array(tri, dtype=float)
        diag_pos = diag_positions(k)
        tri[diag_pos] = np.exp(tri[diag_pos])
        L = np.zeros((k, k))
        L[tril_positions(k)] = tri
        return L

    def _factor(self, params) -> tuple[np.ndarray, np.ndarray]:
        k, s = self.dim, self.rank
        d = np.exp(np.asarray(params[:k], dtype=float))
        S = np.asarray(params[k:], dtype=float).reshape(k, s)
        return d, S


@lru_cache(maxsize=64)
def tril_positions(k: int) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.tril_indices(k)
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


@lru_cache(maxsize=64)
def diag_positions(k: int) -> np.ndarray:
    rows, cols = tril_positions(k)
    return np.flatnonzero(rows == cols)


__all__ = ["CovarianceFamily", "GaussianFactor", "ellipse_geometry", "gauss_hermite",
           "gaussian_entropy", "kl_gaussians"]
