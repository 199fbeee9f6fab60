"""A mixture of Gaussians as Q: Barber & Bishop (1998), §3, eq. (39).

B&B end by naming the single Gaussian's limit — it cannot model a multi-modal
posterior — and propose the mixture

.. math:: Q(\\mathbf w) = \\sum_{i=1}^K \\pi_i\\, N(\\mathbf w \\mid \\bar{\\mathbf w}_i, \\mathbf C_i) \\tag{39}

with adaptive means, covariances and mixing coefficients. As they say, the data
and prior terms of the bound (17) are linear combinations of the single-Gaussian
results,

.. math:: \\langle \\beta E_D + \\tfrac\\alpha2\\|\\mathbf w\\|^2\\rangle_Q
          = \\sum_i \\pi_i \\langle \\beta E_D + \\tfrac\\alpha2\\|\\mathbf w\\|^2\\rangle_{Q_i},

(each term from the model's ``expected_energy``, with its gradients), while the
entropy ``H[Q] = −∫Q ln Q`` has no closed form. This module computes it two ways:

* **quadrature** (:func:`mixture_entropy`): ``H[Q] = −Σ_i π_i E_{Q_i}[ln Q(w)]``,
  each expectation by a tensor Gauss–Hermite rule in the component's whitened
  coordinates ``w = w̄_i + L_i z`` (``C_i = L_i L_iᵀ``), by the trapezoid rule on a
  grid in z (the toy has two parameters, so the grid is 2-D). The fits use a coarse
  grid (their gradient is the exact gradient of that rule, nodes fixed in z); the
  reported KL a fine one (error below 1e-12 on the toy's fits);
* **a lower bound** (:func:`entropy_lower_bound`), the pairwise-distance bound of
  Kolchinsky & Tracey (2017) with the Bhattacharyya distance ``D_ij``:

  .. math:: H[Q] \\ge \\sum_i \\pi_i H[Q_i] - \\sum_i \\pi_i \\ln \\sum_j \\pi_j e^{-D_{ij}},

  in closed form for Gaussians. It comes from Jensen's inequality applied
  component by component (the "Jensen on the components" family). We use it
  rather than the plainer Jensen bound ``−Σ_i π_i ln Σ_j π_j ∫Q_iQ_j`` (Huber et al.
  2008), because that one is not tight even for K = 1 (it is ``(k/2)(1 − ln 2)``
  below the true entropy of a single Gaussian: 0.307 nats for k = 2), and rather
  than Jaakkola & Jordan's (1998) mutual-information bound, which needs a further
  set of variational "smoothing" distributions R_i and multipliers λ_i to
  be more than ``H ≥ Σ π_i H[Q_i]`` (which loses the whole ln 2 of two separated
  modes). The Bhattacharyya bound has no extra parameters, is exact for K = 1
  (``D_ii = 0``) and becomes exact as the components separate
  (``e^{−D_ij} → 0``: the bound → ``Σπ_i H[Q_i] + H(π)``, the true entropy). So a
  fit that maximises the bounded F (:func:`mixture_fit` with
  ``entropy="bound"``) keeps a rigorous lower bound on ln P(D), as B&B ask.

Minimising ``KL(Q‖P) = ⟨energy⟩_Q − H[Q] + ln Z`` (B&B (16)) over the K
components is done by ``scipy.optimize`` (BFGS) with exact gradients. Parameters
θ: ``K − 1`` softmax logits of π (the last is 0: π stays on the simplex), then
per component the mean and the Cholesky factor of C (log-diagonal), exactly
:class:`~ensemble_lib.core.gaussian.CovarianceFamily` ``"full"``'s layout.

Starts (:func:`mixture_ladder`): K = 1 is the full-covariance KL fit
(:func:`~ensemble_lib.inference.kl_fit.kl_fit`); each K is warm-started from the
K − 1 fit by adding, with weight 1/K, the single-Gaussian fit's mirror image
``(−w̄, C)`` (for K = 2: the toy's posterior is symmetric under w → −w) or the
single-Gaussian fit itself (K ≥ 3), or by splitting the heaviest component in two
along its long axis; the best wins, and if none beats the
K − 1 fit that fit is kept (written with K components: one component split in two
identical halves is the same Q), so the fitted KL never rises with K.

Code names: ``weights`` = π, ``means`` = w̄_i, ``covs`` = C_i, ``K`` = number of
components.

References: Barber & Bishop (1998), §3, eq. (39); A. Kolchinsky & B. D. Tracey
(2017), "Estimating mixture entropy with pairwise distances", *Entropy* 19, 361;
T. Jaakkola & M. I. Jordan (1998), "Improving the mean field approximation via
the use of mixture distributions"; M. F. Huber, T. Bailey, H. Durrant-Whyte,
U. D. Hanebeck (2008), "On entropy approximation for Gaussian mixture random
vectors".
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import optimize
from scipy.special import logsumexp

from ..core import validation as check
from ..core.gaussian import LOG_2PI, CovarianceFamily
from .kl_fit import KLFit, KLFitWarning, kl_fit

#: grid spacing (in a component's standard deviations) of the entropy's trapezoid rule in the fits
#: (about 1100 nodes per component: entropy error about 1e-5 on the toy's fits; cheap)
FIT_SPACING = 0.35
#: ... and of the entropy a fit reports (KL, F): error below 1e-12 on the toy's fitted mixtures,
#: below 1e-6 on random ones whose components differ greatly in shape (:func:`mixture_entropy`)
REPORT_SPACING = 0.1
#: the reported rule covers |z| ≤ 8.5 (N(0, I₂) mass outside: e^{-36} = 2e-16), the fits' |z| ≤ 6.5
#: (e^{-21} = 7e-10: the fits need less)
_Z_RADIUS = 8.5
_FIT_RADIUS = 6.5
#: the largest number of components the fits accept
K_MAX = 8
#: a K-component fit beats the K − 1 fit outright when its objective is lower by more than this
#: (the same Q written with K components differs from the K − 1 fit by round-off only)
_SAME_Q_TOL = 1e-9
#: a mixing weight below this is "off the simplex" for :func:`check_mixture` (all must be > 0)
_WEIGHT_TOL = 1e-9
ENTROPIES = ("quadrature", "bound")


# ---------------------------------------------------------------------------
# The mixture: validation and parameters
# ---------------------------------------------------------------------------

def check_mixture(weights, means, covs, dim: int | None = None):
    """Validate a mixture: ``weights`` (K,) on the simplex, ``means`` (K, k), ``covs`` (K, k, k).

    Returns float arrays ``(weights, means, covs)`` (covariances symmetrised).

    Raises
    ------
    ValueError
        Naming the argument: ``weights`` not finite, not > 0 or not summing to 1
        (to 1e-9), ``K`` not in [1, :data:`K_MAX`], shapes that disagree, a
        covariance not symmetric positive definite.
    """
    weights = check.real_array("weights", weights)  # NaN: refused as off the simplex
    if weights.ndim != 1 or not 1 <= weights.size <= K_MAX:
        raise ValueError(f"weights must be a 1-D array of K mixing weights with K in [1, {K_MAX}], "
                         f"got shape {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights <= 0.0) or abs(weights.sum() - 1.0) > _WEIGHT_TOL:
        raise ValueError("weights must lie on the simplex: every weight in (0, 1] and their sum 1 "
                         f"(to 1e-9), got {np.array2string(weights, precision=6)}")
    K = weights.size
    means = check.finite_array("means", means)
    k = means.shape[-1] if means.ndim == 2 else -1
    if means.ndim != 2 or means.shape[0] != K or (dim is not None and k != dim):
        want = f"({K}, {dim if dim is not None else 'k'})"
        raise ValueError(f"means must have shape {want} (one mean per weight), got {means.shape}")
    covs = check.finite_array("covs", covs)
    if covs.shape != (K, k, k):
        raise ValueError(f"covs must have shape ({K}, {k}, {k}) (one covariance per weight), got {covs.shape}")
    out = np.empty_like(covs)
    for i in range(K):
        _, out[i] = check.mean_cov(means[i], covs[i], k, (f"means[{i}]", f"covs[{i}]"))
    return weights / weights.sum(), means, out


class MixtureParams:
    """The packing θ ↔ (π, w̄_i, C_i) of a K-component mixture in k dimensions.

    θ = ``[a_1 … a_{K−1}, θ_1, …, θ_K]``: softmax logits (``a_K = 0``) and each
    component's :class:`~ensemble_lib.core.gaussian.CovarianceFamily` ``"full"``
    parameters (mean, then the Cholesky factor's lower triangle with log-diagonal).
    """

    def __init__(self, K: int, dim: int):
        self.K = check.integer("K", K, low=1, high=K_MAX)
        self.dim = dim = check.integer("dim", dim, low=1)
        self.fam = CovarianceFamily.make("full", dim)
        self.per = self.fam.n_params
        self.n_params = self.K - 1 + self.K * self.per

    def _theta(self, theta) -> np.ndarray:
        """``theta`` as a real array of shape (n_params,) (finiteness is the objective's business:
        it returns inf for an iterate that gives no proper mixture)."""
        theta = check.real_array("theta", theta)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have shape ({self.n_params},) for K = {self.K} components "
                             f"of dimension {self.dim}, got {theta.shape}")
        return theta

    def components(self, theta) -> list[np.ndarray]:
        theta = self._theta(theta)
        off = self.K - 1
        return [theta[off + i * self.per: off + (i + 1) * self.per] for i in range(self.K)]

    def weights(self, theta) -> np.ndarray:
        a = np.concatenate([self._theta(theta)[: self.K - 1], [0.0]])
        return np.exp(a - logsumexp(a))

    def unpack(self, theta):
        theta = self._theta(theta)
        pis = self.weights(theta)
        parts = [self.fam.unpack(t) for t in self.components(theta)]
        return pis, np.array([m for m, _ in parts]), np.array([c for _, c in parts])

    def lowers(self, theta) -> list[np.ndarray]:
        return [self.fam.lower(t) for t in self.components(theta)]

    def pack(self, weights, means, covs) -> np.ndarray:
        if check_mixture(weights, means, covs, dim=self.dim)[0].size != self.K:  # checked, used as given
            raise ValueError(f"weights must have K = {self.K} entries, got {np.size(weights)}")
        weights = np.asarray(weights, float)
        logits = np.log(weights[:-1]) - np.log(weights[-1])
        return np.concatenate([logits] + [self.fam.pack(m, c) for m, c in zip(means, covs)])

    def chain_weights(self, pis, g_pi) -> np.ndarray:
        """∂f/∂a_k (k < K) from ∂f/∂π (softmax)."""
        pis, g_pi = check.real_array("pis", pis), check.real_array("g_pi", g_pi)
        if pis.shape != (self.K,) or g_pi.shape != (self.K,):
            raise ValueError(f"pis and g_pi must have shape ({self.K},), got {pis.shape} and {g_pi.shape}")
        g = pis * (g_pi - pis @ g_pi)
        return g[: self.K - 1]


def _tri_grad(L: np.ndarray, gL: np.ndarray) -> np.ndarray:
    """Gradient w.r.t. the ``full`` family's Cholesky parameters from ∂f/∂L (lower part used)."""
    k = L.shape[0]
    rows, cols = np.tril_indices(k)
    g = gL[rows, cols].copy()
    diag = rows == cols
    g[diag] *= np.diag(L)
    return g


# ---------------------------------------------------------------------------
# The entropy, two ways
# ---------------------------------------------------------------------------

@lru_cache(maxsize=16)
def _nodes(dim: int, spacing: float, radius: float = _Z_RADIUS):
    """The trapezoid rule for E[f(z)], z ~ N(0, I_dim): grid points of the given spacing in the
    ball |z| ≤ ``radius`` (default :data:`_Z_RADIUS`: N(0, I) mass outside below 1e-15 for
    dim ≤ 3), weights ``φ(z) spacing^dim``. Returns ``(Z, W)``."""
    g = np.arange(-np.floor(radius / spacing), np.floor(radius / spacing) + 1) * spacing
    Z = np.stack([x.ravel() for x in np.meshgrid(*([g] * dim), indexing="ij")], axis=-1)
    zz = np.sum(Z * Z, axis=1)
    Z = Z[zz <= radius**2]
    W = np.exp(-0.5 * zz[zz <= radius**2] - 0.5 * dim * LOG_2PI) * spacing**dim
    Z.setflags(write=False)
    W.setflags(write=False)
    return Z, W


@lru_cache(maxsize=16)
def _monomials(spacing: float, radius: float):
    """The 2-D rule's nodes as monomials: ``(F, FW)``, ``F[:, m] = z^(m)`` for the six monomials
    ``1, z₁, z₂, z₁², z₁z₂, z₂²`` (shape (6, n)) and ``FW = F·W`` (transposed, (n, 6))."""
    Z, W = _nodes(2, spacing, radius)
    z1, z2 = Z[:, 0], Z[:, 1]
    F = np.stack([np.ones_like(z1), z1, z2, z1 * z1, z1 * z2, z2 * z2])
    FW = np.ascontiguousarray((F * W).T)
    F.setflags(write=False)
    FW.setflags(write=False)
    return F, FW


#: multiply–adds above which :func:`_product` avoids BLAS (OpenBLAS's own threshold for threads)
_BLAS_MAX = 2**18


def _product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` for the rule's products, whose inner or outer dimension is six (monomials).

    Large ones (the reporting rule's) by ``einsum``'s own loop: a multithreaded BLAS on a
    busy machine can take twenty times longer than the single-threaded work, for no gain.
    """
    if A.shape[0] * A.shape[1] * B.shape[1] <= _BLAS_MAX:
        return A @ B
    return np.einsum("ik,kj->ij", A, B)


def _lse(a: np.ndarray, axis: int) -> np.ndarray:
    """ln Σ exp(a) along ``axis`` (max subtracted; the inputs here are finite)."""
    top = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(a - top), axis=axis))


def _entropy_quadrature(pis, means, Ls, spacing: float, grad: bool, radius: float = _Z_RADIUS):
    """H[Q] by the trapezoid rule, and (if ``grad``) ∂H/∂π, ∂H/∂w̄_j, ∂H/∂C_j, ∂H/∂L_j (node part).

    Two dimensions (the toy). Indices (i, j, n): i the component whose nodes
    ``x_in = w̄_i + L_i z_n`` are used, j the component evaluated there, n the node.
    In component j's whitened coordinates a node of component i is affine in z,

    .. math:: \\mathbf y_{ijn} = \\mathbf L_j^{-1}(\\mathbf x_{in} - \\bar{\\mathbf w}_j)
              = \\mathbf b_{ij} + \\mathbf G_{ij}\\mathbf z_n,\\quad
              \\mathbf G_{ij} = \\mathbf L_j^{-1}\\mathbf L_i,\\
              \\mathbf b_{ij} = \\mathbf L_j^{-1}(\\bar{\\mathbf w}_i - \\bar{\\mathbf w}_j),

    so ``ln π_j N_j(x_in)`` is a quadratic in z: one product of a (K², 6) coefficient
    matrix with the nodes' six monomials gives all of them. Every term of the gradient is
    a sum over nodes of a responsibility ``r_ijn`` times a polynomial of degree ≤ 2 in z,
    so it follows from the six weighted moments ``Σ_n W_n r_ijn z_n^(m)`` (a second product).
    """
    K = means.shape[0]
    F, FW = _monomials(float(spacing), float(radius))
    W = FW[:, 0]
    Ls = np.asarray(Ls)
    l11, l21, l22 = Ls[:, 0, 0], Ls[:, 1, 0], Ls[:, 1, 1]
    a, c = 1.0 / l11, 1.0 / l22  # L⁻¹ = [[a, 0], [b, c]]
    b = -l21 / (l11 * l22)
    log_norm = np.log(pis) - np.log(l11 * l22) - LOG_2PI  # ln π_j − ½ ln|C_j| − ln 2π
    # y = b_ij + G_ij z, G lower triangular (i, j) arrays
    du = means[:, None, 0] - means[None, :, 0]
    dv = means[:, None, 1] - means[None, :, 1]
    b1 = a[None, :] * du
    b2 = b[None, :] * du + c[None, :] * dv
    g11 = a[None, :] * l11[:, None]
    g21 = b[None, :] * l11[:, None] + c[None, :] * l21[:, None]
    g22 = c[None, :] * l22[:, None]
    # ln π_j N_j(x_in) = log_norm_j − ½|y|², as coefficients of 1, z₁, z₂, z₁², z₁z₂, z₂²
    coef = np.stack([log_norm[None, :] - 0.5 * (b1 * b1 + b2 * b2), -(b1 * g11 + b2 * g21), -b2 * g22,
                     -0.5 * (g11 * g11 + g21 * g21), -g21 * g22, -0.5 * g22 * g22], axis=-1)
    ell = _product(coef.reshape(K * K, 6), F).reshape(K, K, -1)
    top = np.max(ell, axis=1)  # (i, n)
    e = np.exp(ell - top[:, None, :])
    s = np.sum(e, axis=1)
    lnQ = top + np.log(s)
    E = np.einsum("in,n->i", lnQ, W)  # E_{Q_i}[ln Q]
    H = float(-pis @ E)
    if not grad:
        return H
    r = e / s[:, None, :]  # responsibilities r_j(x_in)
    mom = _product(r.reshape(K * K, -1), FW).reshape(K, K, 6)  # Σ_n W_n r_ijn z_n^(m)
    # S_ij = Σ_n W_n r_ijn ζ_n ζ_nᵀ, ζ = (1, z₁, z₂)
    S = np.empty((K, K, 3, 3))
    S[..., 0, 0] = mom[..., 0]
    S[..., 0, 1] = S[..., 1, 0] = mom[..., 1]
    S[..., 0, 2] = S[..., 2, 0] = mom[..., 2]
    S[..., 1, 1] = mom[..., 3]
    S[..., 1, 2] = S[..., 2, 1] = mom[..., 4]
    S[..., 2, 2] = mom[..., 5]
    # p = C_j⁻¹δ = L_j⁻ᵀ y = A_ij ζ: A = L_j⁻ᵀ [b_ij, G_ij]  (i, j, 2, 3)
    A = np.empty((K, K, 2, 3))
    A[..., 0, 0] = a[None, :] * b1 + b[None, :] * b2
    A[..., 0, 1] = a[None, :] * g11 + b[None, :] * g21
    A[..., 0, 2] = b[None, :] * g22
    A[..., 1, 0] = c[None, :] * b2
    A[..., 1, 1] = c[None, :] * g21
    A[..., 1, 2] = c[None, :] * g22
    AS = np.einsum("ijab,ijbc->ijac", A, S)  # Σ_n W r p ζᵀ  (i, j, 2, 3)
    wr_j = pis @ mom[..., 0]  # Σ_{i,n} π_i W_n r_ijn
    g_pi = -E - wr_j / pis  # ∂ln Q/∂π_j = r_j/π_j
    # x fixed: ∂ln Q/∂w̄_j = r_j C_j⁻¹δ, ∂ln Q/∂C_j = ½ r_j (C_j⁻¹δδᵀC_j⁻¹ − C_j⁻¹)
    g_m = -np.einsum("i,ija->ja", pis, AS[..., 0])
    Qj = np.einsum("i,ijac,ijbc->jab", pis, AS, A)  # Σ_{i,n} π_i W r p pᵀ
    P11, P12, P22 = a * a + b * b, b * c, c * c  # C_j⁻¹
    g_C = np.empty((K, 2, 2))
    g_C[:, 0, 0] = -0.5 * (Qj[:, 0, 0] - wr_j * P11)
    g_C[:, 0, 1] = g_C[:, 1, 0] = -0.5 * (Qj[:, 0, 1] - wr_j * P12)
    g_C[:, 1, 1] = -0.5 * (Qj[:, 1, 1] - wr_j * P22)
    # the nodes move with their component, x = w̄_i + L_i z; ∇ₓ ln Q = −Σ_j r_j p_j
    T = AS.sum(axis=1)  # Σ_j Σ_n W r p ζᵀ  (i, 2, 3) = −Σ_n W ∇ₓln Q ζᵀ
    g_m += pis[:, None] * T[:, :, 0]
    g_L = np.zeros((K, 2, 2))
    g_L[:, 0, 0] = pis * T[:, 0, 1]
    g_L[:, 1, 0] = pis * T[:, 1, 1]
    g_L[:, 1, 1] = pis * T[:, 1, 2]
    return H, g_pi, g_m, g_C, g_L


def _entropy_bound(pis, means, covs, grad: bool):
    """The Bhattacharyya lower bound on H[Q] and its gradients ∂/∂π, ∂/∂w̄_j, ∂/∂C_j.

    ``D_ij = ⅛ ΔᵀS⁻¹Δ + ½ ln|S| − ¼ ln|C_i| − ¼ ln|C_j|`` with ``Δ = w̄_i − w̄_j``,
    ``S = (C_i + C_j)/2``; all pairs at once.
    """
    K, k = means.shape
    logdet = np.linalg.slogdet(covs)[1]
    H_i = 0.5 * logdet + 0.5 * k * (1.0 + LOG_2PI)
    S = 0.5 * (covs[:, None] + covs[None, :])  # (i, j, k, k)
    d = means[:, None, :] - means[None, :, :]
    Sinv = np.linalg.inv(S)
    Sd = np.einsum("ijkl,ijl->ijk", Sinv, d)
    D = (0.125 * np.sum(d * Sd, axis=-1) + 0.5 * np.linalg.slogdet(S)[1]
         - 0.25 * logdet[:, None] - 0.25 * logdet[None, :])
    D[np.diag_indices(K)] = 0.0
    b = pis[None, :] * np.exp(-D)  # b_ij = π_j e^{−D_ij}
    B = b.sum(axis=1)
    value = float(pis @ H_i - pis @ np.log(B))
    if not grad:
        return value
    # T = Σ_i π_i ln B_i: ∂T/∂π_k = ln B_k + Σ_i π_i e^{−D_ik}/B_i; ∂T/∂D_ij = −π_i b_ij/B_i
    g_pi = H_i - np.log(B) - (pis / B) @ np.exp(-D)
    c = (pis / B)[:, None] * b  # −∂T/∂D_ij (H = Σπ_i H_i − T)
    c[np.diag_indices(K)] = 0.0
    # ∂D_ij/∂w̄_i = ¼S⁻¹Δ = −∂D_ij/∂w̄_j; ∂D_ij/∂C_i = ½(−⅛S⁻¹ΔΔᵀS⁻¹ + ½S⁻¹) − ¼C_i⁻¹
    g_m = 0.25 * (np.einsum("ij,ijk->ik", c, Sd) - np.einsum("ij,ijk->jk", c, Sd))
    gS = 0.5 * (-0.125 * np.einsum("ijk,ijl->ijkl", Sd, Sd) + 0.5 * Sinv)
    Cinv = np.linalg.inv(covs)
    g_C = (0.5 * pis[:, None, None] * Cinv
           + np.einsum("ij,ijkl->ikl", c, gS) + np.einsum("ij,ijkl->jkl", c, gS)
           - 0.25 * (c.sum(axis=1) + c.sum(axis=0))[:, None, None] * Cinv)
    return value, g_pi, g_m, g_C


def _spacing(spacing) -> float:
    return check.positive("spacing", spacing, lower=0.02, upper=0.5)


def mixture_entropy(weights, means, covs, spacing: float = REPORT_SPACING) -> float:
    """H[Q] = −∫Q ln Q of a Gaussian mixture, by the trapezoid rule on each component.

    ``H = −Σ_i π_i Σ_n W_n ln Q(w̄_i + L_i z_n)``, the grid ``z_n`` of spacing
    ``spacing`` (0.02 to 0.5, in the component's standard deviations) over the ball
    ``|z| ≤ 8.5``. For a Gaussian weight the trapezoid rule converges exponentially
    as the spacing shrinks (much faster, per node, than a Gauss–Hermite rule here, whose
    error where two components cross decays only slowly). How fine the grid must be
    depends on how sharply ln Q switches from one component to another: at the default
    0.1 the error is below 1e-12 on the toy's fitted mixtures (components of similar
    shape) and reaches 5e-7 on random mixtures whose components differ in aspect
    ratio by 10 or more (0.03 brings that below 1e-8; ``tests/inference/test_mixture.py``
    checks both against adaptive cubature). Exact (to round-off) for K = 1, where
    ln Q is quadratic.
    """
    pis, means, covs = check_mixture(weights, means, covs, dim=2)
    spacing = _spacing(spacing)
    Ls = [np.linalg.cholesky(C) for C in covs]
    return _entropy_quadrature(pis, means, Ls, spacing, grad=False)


def entropy_lower_bound(weights, means, covs) -> float:
    """The Bhattacharyya lower bound on a Gaussian mixture's entropy (Kolchinsky & Tracey 2017).

    .. math:: H[Q] \\ge \\sum_i \\pi_i H[Q_i] - \\sum_i \\pi_i \\ln\\sum_j \\pi_j e^{-D_{ij}},\\quad
              D_{ij} = \\tfrac18 \\Delta^T\\bar{\\mathbf C}^{-1}\\Delta
                       + \\tfrac12\\ln\\frac{|\\bar{\\mathbf C}|}{\\sqrt{|\\mathbf C_i||\\mathbf C_j|}}

    with ``Δ = w̄_i − w̄_j`` and ``C̄ = (C_i + C_j)/2``. Equal to H[Q] for K = 1, and
    tends to it as the components separate.
    """
    pis, means, covs = check_mixture(weights, means, covs)
    return _entropy_bound(pis, means, covs, grad=False)


# ---------------------------------------------------------------------------
# The objective
# ---------------------------------------------------------------------------

def _unpack2(K: int, theta: np.ndarray):
    """θ → (π, means (K, 2), L entries l11, l21, l22, covs (K, 2, 2)) for k = 2, vectorised."""
    a = np.zeros(K)
    a[: K - 1] = theta[: K - 1]
    pis = np.exp(a - _lse(a, axis=0))
    T = theta[K - 1:].reshape(K, 5)
    l11, l21, l22 = np.exp(T[:, 2]), T[:, 3], np.exp(T[:, 4])
    covs = np.empty((K, 2, 2))
    covs[:, 0, 0] = l11 * l11
    covs[:, 0, 1] = covs[:, 1, 0] = l11 * l21
    covs[:, 1, 1] = l21 * l21 + l22 * l22
    return pis, T[:, :2], l11, l21, l22, covs


def _objective_bound_any_dim(post, params: MixtureParams, theta) -> tuple[float, np.ndarray]:
    """:func:`mixture_objective` with the entropy's lower bound, for any number of parameters k."""
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(theta)):
            return np.inf, np.zeros_like(theta)
        try:
            pis, means, covs = params.unpack(theta)
            energies = [post.expected_energy(m, C) for m, C in zip(means, covs)]
            H, g_pi_H, g_m_H, g_C_H = _entropy_bound(pis, means, covs, grad=True)
        except (ValueError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        e_val = np.array([e.value for e in energies])
        value = float(pis @ e_val - H)
        g = [params.chain_weights(pis, e_val - g_pi_H)]
        for i, (e, t) in enumerate(zip(energies, params.components(theta))):
            g.append(params.fam.chain(t, pis[i] * e.d_mean - g_m_H[i], pis[i] * e.d_cov - g_C_H[i]))
        g = np.concatenate(g)
    if not (np.isfinite(value) and np.all(np.isfinite(g))):
        return np.inf, np.zeros_like(theta)
    return value, g


def mixture_objective(post, params: MixtureParams, theta, entropy: str = "quadrature",
                      spacing: float = FIT_SPACING) -> tuple[float, np.ndarray]:
    """``Σ_i π_i ⟨energy⟩_{Q_i} − H`` (KL(Q‖P) − ln Z, or its upper bound) and its gradient in θ.

    ``H`` is the quadrature entropy (trapezoid rule of spacing ``spacing``) or its
    Bhattacharyya lower bound (``entropy="bound"``); the gradient is exact for the
    rule used (its nodes move with the components). The quadrature needs a
    two-parameter posterior; the bound works for any (a network's).
    Returns ``(inf, 0)`` where θ gives no proper mixture (a line search then backs off).
    """
    post = check.posterior("post", post)
    if not isinstance(params, MixtureParams) or params.dim != post.dim:
        raise ValueError(f"params must be a MixtureParams of dimension {post.dim}, got {params!r}")
    theta = params._theta(theta)
    entropy = _check_entropy(entropy)
    K = params.K
    if params.dim != 2:
        return _objective_bound_any_dim(post, params, theta)
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(theta)):
            return np.inf, np.zeros_like(theta)
        pis, means, l11, l21, l22, covs = _unpack2(K, theta)
        if not (np.all(pis > 0) and np.all(l11 > 0) and np.all(l22 > 0) and np.all(np.isfinite(covs))):
            return np.inf, np.zeros_like(theta)
        Ls = np.zeros((K, 2, 2))
        Ls[:, 0, 0], Ls[:, 1, 0], Ls[:, 1, 1] = l11, l21, l22
        try:
            energies = [post.expected_energy(m, C) for m, C in zip(means, covs)]
            if entropy == "quadrature":
                H, g_pi_H, g_m_H, g_C_H, g_L_H = _entropy_quadrature(pis, means, Ls, spacing, True, _FIT_RADIUS)
            else:
                H, g_pi_H, g_m_H, g_C_H = _entropy_bound(pis, means, covs, grad=True)
                g_L_H = np.zeros_like(g_C_H)
        except (ValueError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        e_val = np.array([e.value for e in energies])
        value = float(pis @ e_val - H)
        g_pi = e_val - g_pi_H
        g_mean = pis[:, None] * np.array([e.d_mean for e in energies]) - g_m_H
        G = pis[:, None, None] * np.array([e.d_cov for e in energies]) - g_C_H
        G = G + np.swapaxes(G, 1, 2)  # ∂/∂L of f(C = LLᵀ) is 2GL for symmetric G
        g = np.empty((K, 5))
        g[:, :2] = g_mean
        g[:, 2] = (G[:, 0, 0] * l11 + G[:, 0, 1] * l21 - g_L_H[:, 0, 0]) * l11  # log-diagonal
        g[:, 3] = G[:, 1, 0] * l11 + G[:, 1, 1] * l21 - g_L_H[:, 1, 0]
        g[:, 4] = (G[:, 1, 1] * l22 - g_L_H[:, 1, 1]) * l22
        g = np.concatenate([params.chain_weights(pis, g_pi), g.ravel()])
    if not (np.isfinite(value) and np.all(np.isfinite(g))):
        return np.inf, np.zeros_like(theta)
    return value, g


# ---------------------------------------------------------------------------
# Fits
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MixtureFit:
    """A K-component mixture Q fitted by minimising KL(Q‖P) (B&B (39)), or its bounded version.

    Attributes
    ----------
    weights, means, covs : ndarray
        π (K,), w̄_i (K, k), C_i (K, k, k).
    kl : float
        KL(Q‖P) with the entropy by quadrature at :data:`REPORT_SPACING`, whichever
        entropy the fit minimised.
    kl_bound : float
        ``ln P(D) − bound``: KL(Q‖P) with the entropy's lower bound, so
        ``kl ≤ kl_bound`` (equal for K = 1).
    F : float
        The bound F[Q] (B&B (17)) with the quadrature entropy: ``ln P(D) − kl``.
    bound : float
        F[Q] with the entropy's lower bound: a rigorous lower bound on ln P(D)
        (F is the lower bound everywhere), ``≤ F``.
    entropy : str
        What the fit minimised with: ``"quadrature"`` or ``"bound"``.
    n_iter, grad_norm, converged :
        BFGS iterations, ``max |∂objective/∂θ|`` at the end, and whether that is
        within ten times the tolerance.
    """

    weights: np.ndarray
    means: np.ndarray
    covs: np.ndarray
    kl: float
    kl_bound: float
    F: float
    bound: float
    entropy: str
    n_iter: int
    grad_norm: float
    converged: bool
    theta: np.ndarray = field(repr=False)

    @property
    def K(self) -> int:
        return int(self.weights.size)

    @property
    def objective(self) -> float:
        """What the fit minimised, at the reporting accuracy, less ln Z: ``−F`` or ``−bound``.

        (``kl − ln P(D)`` or ``kl_bound − ln P(D)``; defined also where ln Z is not known.)
        """
        return -self.F if self.entropy == "quadrature" else -self.bound


def _evaluate(post, params, theta, entropy, spacing, n_iter, gtol, g=None) -> MixtureFit:
    """The :class:`MixtureFit` at θ: KL with the reporting rule and with the bound; the fit's gradient
    (``g``, the gradient of the fit's objective at θ, if the optimiser has it already).

    Where the posterior has no exact ln Z (a network), ``kl`` and ``kl_bound`` are nan; where it
    has more than two parameters, the quadrature entropy is not computed (``kl``, ``F`` nan).
    """
    theta = np.asarray(theta, dtype=float)
    pis, means, covs = params.unpack(theta)
    if g is None:
        g = mixture_objective(post, params, theta, entropy, spacing)[1]
    energy = sum(p * post.expected_energy(m, C).value for p, m, C in zip(pis, means, covs))
    if params.dim == 2:
        H = _entropy_quadrature(pis, means, params.lowers(theta), REPORT_SPACING, grad=False)
    else:
        H = float("nan")
    H_lb = _entropy_bound(pis, means, covs, grad=False)
    try:
        log_Z = post.log_Z
    except NotImplementedError:
        log_Z = float("nan")
    norm = post.log_normalisers
    gmax = float(np.max(np.abs(g))) if g.size else 0.0
    return MixtureFit(
        weights=pis, means=means, covs=covs, kl=float(energy - H + log_Z),
        kl_bound=float(energy - H_lb + log_Z), F=float(H - energy - norm), bound=float(H_lb - energy - norm),
        entropy=entropy, n_iter=int(n_iter), grad_norm=gmax, converged=bool(gmax <= 10 * gtol),
        theta=theta,
    )


def _check_entropy(entropy) -> str:
    return check.choice("entropy", entropy, ENTROPIES)


def _check_options(post, entropy, spacing, gtol, maxiter):
    post = check.posterior("post", post)
    entropy = _check_entropy(entropy)
    if post.dim != 2 and entropy == "quadrature":
        raise ValueError(f"post must be a 2-parameter posterior (e.g. the toy's) for entropy='quadrature', "
                         f"got dim = {post.dim}; use entropy='bound'")
    return (post, entropy, _spacing(spacing),
            check.positive("gtol", gtol), check.integer("maxiter", maxiter, low=1, high=100_000))


def mixture_fit(post, init, entropy: str = "quadrature", spacing: float = FIT_SPACING,
                gtol: float = 1e-6, maxiter: int = 2000) -> MixtureFit:
    """One fit of a K-component mixture Q by minimising KL(Q‖P) from a given start (B&B (39)).

    Parameters
    ----------
    post : RegressionPosterior
        The target, with an exact ``log_Z`` (e.g. a :class:`~ensemble_lib.ToyPosterior`).
    init : tuple (weights, means, covs)
        The start: K components (:func:`check_mixture`); K is the size of the fit.
    entropy : {"quadrature", "bound"}
        Minimise with the quadrature entropy (:func:`mixture_entropy`) or with its
        Bhattacharyya lower bound (:func:`entropy_lower_bound`; the fit then
        maximises a rigorous lower bound on ln P(D)).
    spacing : float
        Spacing of the entropy's trapezoid rule during the fit (0.02 to 0.5
        standard deviations; the reported KL always uses :data:`REPORT_SPACING`).
    gtol : float
        BFGS gradient tolerance (> 0).
    maxiter : int
        BFGS iterations (1 to 100 000).

    Returns
    -------
    MixtureFit
        The end point; the start itself if BFGS found nothing lower.
    """
    post, entropy, spacing, gtol, maxiter = _check_options(post, entropy, spacing, gtol, maxiter)
    if not (isinstance(init, (tuple, list)) and len(init) == 3):
        raise ValueError(f"init must be a (weights, means, covs) triple, got {check._describe(init)}")
    weights, means, covs = check_mixture(*init, dim=post.dim)
    params = MixtureParams(weights.size, post.dim)
    return _optimise(post, params, params.pack(weights, means, covs), entropy, spacing, gtol, maxiter)


def _minimise(post, params, theta0, entropy, spacing, gtol, maxiter):
    """BFGS from θ₀: ``(θ, objective, iterations, gradient)``; θ₀ itself if BFGS found nothing lower.

    (The objective and gradient at θ₀ are computed once: BFGS's first evaluation is remembered.)
    """
    theta0 = np.asarray(theta0, dtype=float)
    first = []

    def fun(th):
        out = mixture_objective(post, params, th, entropy, spacing)
        if not first and np.array_equal(th, theta0):
            first.append(out)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = optimize.minimize(fun, theta0, jac=True, method="BFGS",
                                options={"gtol": gtol, "maxiter": maxiter})
    f0, g0 = first[0] if first else mixture_objective(post, params, theta0, entropy, spacing)
    if np.isfinite(res.fun) and res.fun <= f0:
        return res.x, float(res.fun), int(res.nit), np.asarray(res.jac, dtype=float)
    return theta0, float(f0), int(res.nit), g0


def _optimise(post, params, theta0, entropy, spacing, gtol, maxiter) -> MixtureFit:
    theta, _, nit, g = _minimise(post, params, theta0, entropy, spacing, gtol, maxiter)
    return _evaluate(post, params, theta, entropy, spacing, nit, gtol, g)


def _split(weights, means, covs, i):
    """Component i split in two along its long axis (means ±½ s.d., that variance × ¾), half weight each."""
    vals, vecs = np.linalg.eigh(covs[i])
    step = 0.5 * np.sqrt(vals[-1]) * vecs[:, -1]
    C = covs[i] - 0.25 * vals[-1] * np.outer(vecs[:, -1], vecs[:, -1])
    w = np.concatenate([np.delete(weights, i), [weights[i] / 2, weights[i] / 2]])
    m = np.concatenate([np.delete(means, i, axis=0), [means[i] + step, means[i] - step]])
    c = np.concatenate([np.delete(covs, i, axis=0), [C, C]])
    return w, m, c


def _add(weights, means, covs, mean, cov):
    """A new component (mean, cov) with weight 1/K; the others scaled by (K − 1)/K."""
    K = weights.size + 1
    return (np.concatenate([weights * (K - 1) / K, [1.0 / K]]), np.vstack([means, mean]),
            np.concatenate([covs, [cov]]))


def embed(fit: MixtureFit):
    """The same Q with one more component: the heaviest split into two identical halves."""
    if not isinstance(fit, MixtureFit):
        raise ValueError(f"fit must be a MixtureFit, got {type(fit).__name__}")
    i = int(np.argmax(fit.weights))
    w = np.concatenate([fit.weights, [fit.weights[i] / 2]])
    w[i] /= 2
    return w, np.vstack([fit.means, fit.means[i]]), np.concatenate([fit.covs, [fit.covs[i]]])


def starts_from(previous: MixtureFit, single: KLFit) -> list:
    """Starts for K + 1 components from the K-component fit ``previous``.

    The single-Gaussian fit's mirror image ``(−w̄, C)`` (for K = 1, the other mode
    of the toy's symmetric posterior) or, from K = 2 on, the single-Gaussian fit
    itself, added with weight 1/(K + 1); and the heaviest component split in two
    along its long axis.
    """
    if not isinstance(previous, MixtureFit):
        raise ValueError(f"previous must be a MixtureFit, got {type(previous).__name__}")
    if not isinstance(single, KLFit) or single.mean.shape != previous.means.shape[1:]:
        raise ValueError(f"single must be a KLFit of the same posterior (a single-Gaussian fit), "
                         f"got {type(single).__name__}")
    w, m, c = previous.weights, previous.means, previous.covs
    new = -single.mean if previous.K == 1 else single.mean
    i = int(np.argmax(w))
    return [_add(w, m, c, new, single.cov), _split(w, m, c, i)]


@dataclass(frozen=True)
class MixtureLadder:
    """Mixture fits for K = 1 … K_max, each warm-started from K − 1 (:func:`mixture_ladder`)."""

    single: KLFit
    fits: tuple  # MixtureFit for K = 1, 2, ...
    entropy: str

    @property
    def kl(self) -> np.ndarray:
        return np.array([f.kl for f in self.fits])

    @property
    def kl_bound(self) -> np.ndarray:
        return np.array([f.kl_bound for f in self.fits])


def _check_ladder(post, K_max, entropy, single, spacing, gtol, maxiter):
    post, entropy, spacing, gtol, maxiter = _check_options(post, entropy, spacing, gtol, maxiter)
    K_max = check.integer("K_max", K_max, low=1, high=K_MAX)
    if single is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KLFitWarning)
            single = kl_fit(post, "full")
    elif not isinstance(single, KLFit) or single.mean.shape != (post.dim,):
        raise ValueError(f"single must be a KLFit of this posterior (a single-Gaussian fit), "
                         f"got {type(single).__name__}")
    return post, K_max, entropy, single, spacing, gtol, maxiter


def _ladder_steps(post, K_max, entropy, single, spacing, gtol, maxiter) -> Iterator[MixtureLadder]:
    """:func:`iter_mixture_ladder` on checked arguments."""
    params = MixtureParams(1, post.dim)
    fits = [_optimise(post, params, params.pack([1.0], [single.mean], [single.cov]), entropy, spacing,
                      gtol, maxiter)]
    yield MixtureLadder(single=single, fits=tuple(fits), entropy=entropy)
    for K in range(2, K_max + 1):
        params = MixtureParams(K, post.dim)
        runs = [_minimise(post, params, params.pack(*start), entropy, spacing, gtol, maxiter)
                for start in starts_from(fits[-1], single)]
        theta, value, nit, g = min(runs, key=lambda run: run[1])  # the best by the fit's own objective
        best = _evaluate(post, params, theta, entropy, spacing, nit, gtol, g)
        # the K − 1 fit written with K components is the same Q: its objective is the K − 1 fit's
        # (to round-off, ~1e-14), so it is evaluated only when the comparison is that close
        if not best.objective < fits[-1].objective - _SAME_Q_TOL:
            kept = _evaluate(post, params, params.pack(*embed(fits[-1])), entropy, spacing, 0, gtol)
            best = best if best.objective < kept.objective else kept
        fits.append(best)
        yield MixtureLadder(single=single, fits=tuple(fits), entropy=entropy)


def iter_mixture_ladder(post, K_max: int = 4, entropy: str = "quadrature", single: KLFit | None = None,
                        spacing: float = FIT_SPACING, gtol: float = 1e-6,
                        maxiter: int = 2000) -> Iterator[MixtureLadder]:
    """:func:`mixture_ladder` as it goes: the ladder K = 1 … k after each k = 1 … ``K_max``.

    Arguments are checked (and ``single`` fitted, if not given) at the call; the
    fits are made as the iterator is advanced. The last item is :func:`mixture_ladder`'s
    result, and each earlier one is the start of it (the same fit objects' values).
    """
    return _ladder_steps(*_check_ladder(post, K_max, entropy, single, spacing, gtol, maxiter))


def mixture_ladder(post, K_max: int = 4, entropy: str = "quadrature", single: KLFit | None = None,
                   spacing: float = FIT_SPACING, gtol: float = 1e-6, maxiter: int = 2000) -> MixtureLadder:
    """Fits for K = 1 … ``K_max`` (1 to :data:`K_MAX`), each K warm-started from K − 1.

    K = 1 starts from the full-covariance fit ``single`` (default
    ``kl_fit(post, "full")``), which it reproduces. For K ≥ 2 every start of
    :func:`starts_from` is optimised and the lowest :attr:`MixtureFit.objective`
    wins; if none is below the K − 1 fit's (written with K components by
    :func:`embed`: the same Q), that one is kept, so the objective never rises with K.
    (:func:`iter_mixture_ladder` gives the ladder after each K.)
    """
    ladder = None
    for ladder in iter_mixture_ladder(post, K_max, entropy, single, spacing, gtol, maxiter):
        pass
    return ladder


def mixture_kl(post, weights, means, covs, entropy: str = "quadrature") -> float:
    """KL(Q‖P) of a given mixture (no fit): ``Σ π_i ⟨energy⟩_{Q_i} − H[Q] + ln Z``.

    ``entropy="quadrature"`` uses :func:`mixture_entropy` at :data:`REPORT_SPACING`;
    ``"bound"`` its lower bound, which gives an upper bound on the KL.
    """
    post = _check_options(post, "quadrature", REPORT_SPACING, 1.0, 1)[0]
    entropy = _check_entropy(entropy)
    pis, means, covs = check_mixture(weights, means, covs, dim=2)
    energy = sum(p * post.expected_energy(m, C).value for p, m, C in zip(pis, means, covs))
    if entropy == "quadrature":
        H = _entropy_quadrature(pis, means, [np.linalg.cholesky(C) for C in covs], REPORT_SPACING, grad=False)
    else:
        H = _entropy_bound(pis, means, covs, grad=False)
    return float(energy - H + post.log_Z)


def mirror_overlap(mean, cov) -> float:
    """Bhattacharyya coefficient ρ = ∫√(Q Q') of N(w̄, C) and its mirror image N(−w̄, C).

    ``ρ = exp(−½ w̄ᵀC⁻¹w̄)``. For a posterior symmetric under w → −w and its best
    single Gaussian Q (KL₁), the mixture ½(Q + Q') has KL = KL₁ − ln 2 + δ with
    ``0 ≤ δ = E_Q[ln(1 + Q'/Q)] ≤ ρ`` (``ln(1 + x) ≤ √x``); so the best symmetric
    two-component fit lies in ``[KL₁ − ln 2, KL₁ − ln 2 + ρ]``.
    """
    mean, cov = check.mean_cov(mean, cov, len(np.atleast_1d(mean)))
    return float(np.exp(-0.5 * mean @ np.linalg.solve(cov, mean)))


__all__ = ["ENTROPIES", "FIT_SPACING", "K_MAX", "REPORT_SPACING", "MixtureFit", "MixtureLadder",
           "MixtureParams", "check_mixture", "embed", "entropy_lower_bound", "iter_mixture_ladder", "mirror_overlap",
           "mixture_entropy", "mixture_fit", "mixture_kl", "mixture_ladder", "mixture_objective", "starts_from"]
