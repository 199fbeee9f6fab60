"""⟨E_D⟩, ⟨f⟩ and ⟨f²⟩ of the erf network under a Gaussian Q = N(w̄, C), without sampling (B&B (20)–(24)).

``⟨E_D⟩ = ½ Σ_n l(x_n, t_n)`` with ``l = ⟨f²⟩ − 2t⟨f⟩ + t²`` (B&B (20)–(21)) and
``⟨f²⟩ = Σ_ij ⟨v_i v_j σ(a_i) σ(a_j)⟩`` (B&B (22)), ``a_i = u_iᵀx``. For one data point the vector
``y = (a_1..a_H, v_1..v_H) = P_n w`` is Gaussian; the v's are integrated analytically (B&B (23),
by Gaussian integration by parts), leaving Ψ = ⟨σ(a_i)σ(a_j)⟩ and its mean-derivatives
(:mod:`ensemble_lib.models.psi_integral`). ``⟨v_i σ(a_i)⟩`` is closed form (B&B (49), (60)).
Gradients with respect to w̄ and C follow from Price's theorem (``∂⟨g⟩/∂S = ½⟨∇∇g⟩``), and
``∂/∂C = Σ_n P_nᵀ G_n P_n``. The derivation is in :mod:`ensemble_lib.models.network`'s docstring.

Code names: ``n_hidden`` = H, ``X`` = inputs (N × d), ``t`` = targets, ``w_mean`` = w̄,
``w_cov`` = C, ``n_quad`` = Gauss–Legendre nodes in θ.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core import validation as check
from .posterior import Expectation
from .network_function import _MAX_HIDDEN, _check_inputs
from .psi_integral import _psi_coefficients, _psi_stack, _scratch, _single_derivatives, _units

#: default number of Gauss–Legendre nodes for the angle integral of Ψ
N_QUAD_DEFAULT = 48


# ---------------------------------------------------------------------------

# Per-data-point moments of y = (a, v) and the expected error
# ---------------------------------------------------------------------------


def _projected_moments(mean, cov, X, n_hidden):
    """Mean and covariance blocks of y_n = (a_1..a_H, v_1..v_H) = P_n w under N(mean, cov).

    ``S_aa[n, i, j] = x_nᵀ C_{u_i u_j} x_n`` and ``S_av[n, i, j] = x_nᵀ C_{u_i v_j}`` as matrix
    products: ``X`` times the covariance blocks arranged (d, …), then the second ``x_n``.
    """
    N, d = X.shape
    H = n_hidden
    hd = H * d
    m_a = X @ mean[:hd].reshape(H, d).T  # (N, H)
    m_v = mean[hd:]  # (H,)
    Cuu = cov[:hd, :hd].reshape(H, d, H, d).transpose(1, 0, 2, 3).reshape(d, H * H * d)
    XC = (X @ Cuu).reshape(N, H * H, d)  # [n, (i, j), e] = Σ_d x_nd C[u_i d, u_j e]
    S_aa = np.einsum("nce,ne->nc", XC, X).reshape(N, H, H)  # Cov(a_i, a_j)
    S_av = (X @ cov[:hd, hd:].reshape(H, d, H).transpose(1, 0, 2).reshape(d, H * H)).reshape(N, H, H)
    S_vv = cov[hd:, hd:]
    return m_a, m_v, S_aa, S_av, S_vv


@lru_cache(maxsize=64)
def _pairs(H: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unordered pairs i ≤ j and their multiplicity in Σ_ij (1 on the diagonal, 2 off it)."""
    I, J = np.triu_indices(H)
    w = np.where(I == J, 1.0, 2.0)
    for a in (I, J, w):
        a.setflags(write=False)
    return I, J, w


@lru_cache(maxsize=64)
def _scatter(H: int) -> dict:
    """0/1 matrices (P × H or P × H²) that add a pair quantity into entry i, j, (i, i), (i, j), …

    Products with them replace ``np.add.at`` over the pairs (P = H(H+1)/2); each matrix is
    scaled by ½ω (ω the pair's multiplicity), the factor every pair gradient carries.
    """
    I, J, om = _pairs(H)
    P = I.size
    half_om = 0.5 * om[:, None]
    out = {}
    for name, rows, cols in (("I", I, None), ("J", J, None), ("II", I, I), ("JJ", J, J),
                             ("IJ", I, J), ("JI", J, I)):
        m = np.zeros((P, H) if cols is None else (P, H * H))
        m[np.arange(P), rows if cols is None else rows * H + cols] = 1.0
        out[name] = half_om * m
    out["IJ+JI"] = out["IJ"] + out["JI"]
    for names in ("I;J", "II;IJ+JI;JJ", "II;JI", "IJ;JJ"):
        out[names] = np.stack([out[name] for name in names.split(";")])
    for a in out.values():
        a.setflags(write=False)
    return out


@lru_cache(maxsize=4)
def _shift_rows(max_order: int):
    """Rows of Ψ's derivative stack (:func:`_psi_stack`) that the pair terms combine.

    ``T_idx[t, c]``: for T(a, b), (a, b) = (0,0), (1,0), (0,1), (2,0), (1,1), (0,2) (only the
    first without gradients), the row of ∂^(a+i)∂^(b+j)Ψ for the coefficient c of
    (A0, B1, B2, Q11, Q12, Q22) at (i, j) = (0,0), (1,0), (0,1), (2,0), (1,1), (0,2);
    ``U_idx[t, c]``: for (a, b) = (0,0), (1,0), (0,1), the rows at (a, b) + (0,0), (1,0), (0,1);
    ``row00``: the row of Ψ itself.
    """
    row = {pq: i for i, pq in enumerate(_psi_coefficients(max_order)[0])}
    shifts = ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2))
    T_idx = np.array([[row[(a + i, b + j)] for i, j in shifts] for a, b in shifts[:6 if max_order >= 4 else 1]])
    U_idx = None
    if max_order >= 3:
        U_idx = np.array([[row[(a + i, b + j)] for i, j in shifts[:3]] for a, b in shifts[:3]])
    return T_idx, U_idx, row[(0, 0)]


def _combine(Dst, idx, coefs) -> np.ndarray:
    """``out[t] = Σ_c coefs[c]·Dst[idx[t, c]]`` (coefficients broadcast against Dst's rows)."""
    out = coefs[0] * Dst[idx[:, 0]]
    for c in range(1, idx.shape[1]):
        out += coefs[c] * Dst[idx[:, c]]
    return out


def _outer_rows(X) -> np.ndarray:
    """``x_n x_nᵀ`` of every row of X, flattened: shape (N, d²) (the covariance gradient's Σ_n P_nᵀ G_n P_n)."""
    N, d = X.shape
    return (X[:, :, None] * X[:, None, :]).reshape(N, d * d)


def _moments(mean, cov, X, t, n_hidden, n_quad, grad: bool, XX=None):
    """Core: ⟨f⟩_n, ⟨f²⟩_n and (if grad) the gradient of ½Σ_n l_n w.r.t. mean and cov.

    ``XX``: :func:`_outer_rows` of ``X`` if the caller keeps it (a posterior's X is fixed).
    """
    N, d = X.shape
    H = n_hidden
    m_a, m_v, S_aa, S_av, S_vv = _projected_moments(mean, cov, X, H)
    I, J, om = _pairs(H)
    P = I.size
    order = 4 if grad else 2
    # per hidden unit: λ_i = √(1 + Var a_i), h_i = ā_i/λ_i and σ^(p)(h_i)/λ_i^p (B&B (49)),
    # shared by the linear terms and by both members of every pair
    diag = np.arange(H) * (H + 1)
    c_ii = S_av.reshape(N, H * H)[:, diag]
    lam = np.sqrt(1.0 + S_aa.reshape(N, H * H)[:, diag])
    h_unit = m_a / lam
    units = _units(h_unit, lam, order)  # (2, order + 1, N, H)
    # pair quantities, shape (N, P)
    mu1, mu2 = m_v[I], m_v[J]
    K = S_vv[I, J]
    c1 = (S_av[:, I, I], S_av[:, J, I])  # Cov(v_i, a_i), Cov(v_i, a_j)
    c2 = (S_av[:, I, J], S_av[:, J, J])  # Cov(v_j, a_i), Cov(v_j, a_j)
    rho = np.minimum(np.maximum(S_aa[:, I, J] / (lam[:, I] * lam[:, J]), -1.0 + 1e-15), 1.0 - 1e-15)
    n_rows = len(_psi_coefficients(order)[0])
    orders, Dst = _psi_stack(h_unit[:, I].ravel(), h_unit[:, J].ravel(), np.arcsin(rho).ravel(),
                             units[:, :, :, I].reshape(2, order + 1, N * P),
                             units[:, :, :, J].reshape(2, order + 1, N * P), order, n_quad,
                             out=_scratch("psi", (n_rows, N * P)))
    Dst = Dst.reshape(len(orders), N, P)
    T_idx, U_idx, row00 = _shift_rows(order)
    # T_ij = ⟨v_i v_j σ(a_i)σ(a_j)⟩ = A0 Ψ + B·∇Ψ + Q:∇∇Ψ (module docstring) and its shifts
    # T(a, b) by a, b extra mean-derivatives in (a_i, a_j): rows of Ψ's stack times coefficients
    coef_T = (mu1 * mu2 + K, mu1 * c2[0] + mu2 * c1[0], mu1 * c2[1] + mu2 * c1[1],
              c1[0] * c2[0], c1[0] * c2[1] + c1[1] * c2[0], c1[1] * c2[1])
    T = _combine(Dst, T_idx, coef_T)  # T(0,0), T(1,0), T(0,1), T(2,0), T(1,1), T(0,2)
    f2 = T[0] @ om  # ⟨f²⟩_n, shape (N,)
    # linear terms M_i = ⟨v_i σ(a_i)⟩ (B&B (60)); D1[p] = ∂^p_m ⟨σ(a_i)⟩
    D1 = units[0]
    M = m_v * D1[0] + c_ii * D1[1]
    f1 = M.sum(axis=1)
    if not grad:
        return f1, f2, None
    value = 0.5 * float(np.sum(f2 - 2.0 * t * f1 + t * t))
    # gradients of ½Σ_n(Σ_ij T_ij − 2t_n Σ_i M_i) with respect to the blocks of y's moments;
    # the scatter matrices add each pair's share (times ½ω) into its entries
    sc = _scatter(H)
    gm_a = (T[1:3] @ sc["I;J"]).sum(axis=0)
    G_aa = 0.5 * (T[3:6] @ sc["II;IJ+JI;JJ"]).sum(axis=0)  # (N, H²)
    # ∂T/∂μ1 = μ2Ψ + c2·∇Ψ and ∂T/∂c1 = μ2∇Ψ + ∇∇Ψ c2 (U1), the same with 1 ↔ 2 (U2);
    # the symmetric G takes half of each
    U1 = _combine(Dst, U_idx, (mu2, *c2))
    U2 = _combine(Dst, U_idx, (mu1, *c1))
    G_av = 0.5 * ((U1[1:] @ sc["II;JI"]).sum(axis=0) + (U2[1:] @ sc["IJ;JJ"]).sum(axis=0))
    gm_v = U1[0].sum(axis=0) @ sc["I"] + U2[0].sum(axis=0) @ sc["J"]
    G_vv = (0.5 * Dst[row00].sum(axis=0) @ sc["IJ+JI"]).reshape(H, H)
    # −t_n Σ_i M_i (the ½ and the 2 cancel)
    tt = t[:, None]
    gm_v -= np.sum(tt * D1[0], axis=0)
    gm_a -= tt * (m_v * D1[1] + c_ii * D1[2])
    G_aa[:, diag] -= tt * 0.5 * (m_v * D1[2] + c_ii * D1[3])
    G_av[:, diag] -= tt * 0.5 * D1[1]
    # back to w = (u, v): d_mean = Σ P_nᵀ g_n, d_cov = Σ P_nᵀ G_n P_n
    k = H * d + H
    hd = H * d
    d_mean = np.empty(k)
    d_mean[:hd] = (gm_a.T @ X).ravel()
    d_mean[hd:] = gm_v
    d_cov = np.empty((k, k))
    if XX is None:
        XX = _outer_rows(X)
    uu = (G_aa.T @ XX).reshape(H, H, d, d).transpose(0, 2, 1, 3).reshape(hd, hd)
    d_cov[:hd, :hd] = uu
    d_cov[:hd, :hd] += uu.T
    d_cov[:hd, :hd] *= 0.5  # symmetric to the last bit
    uv = (X.T @ G_av).reshape(d, H, H).transpose(1, 0, 2).reshape(hd, H)
    d_cov[:hd, hd:] = uv
    d_cov[hd:, :hd] = uv.T
    d_cov[hd:, hd:] = G_vv
    return f1, f2, Expectation(value, d_mean, d_cov)


def _check_problem(w_mean, w_cov, X, n_hidden, t=None, n_quad=N_QUAD_DEFAULT):
    X = _check_inputs(X)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
    k = n_hidden * X.shape[1] + n_hidden
    mean, cov = check.mean_cov(w_mean, w_cov, k, ("w_mean", "w_cov"))
    n_quad = check.integer("n_quad", n_quad, low=4, high=1000)
    if t is not None:
        t = check.finite_vector("t", t)
        if t.size != X.shape[0]:
            raise ValueError(f"t must have length N = {X.shape[0]} (rows of X), got {t.size}")
    return mean, cov, X, n_hidden, t, n_quad


def expected_data_error(w_mean, w_cov, X, t, n_hidden: int, n_quad: int = N_QUAD_DEFAULT) -> float:
    """⟨E_D⟩ = ½ Σ_n ⟨(f(x_n, w) − t_n)²⟩ under Q = N(w_mean, w_cov) (B&B (20)–(24)), no sampling.

    Parameters
    ----------
    w_mean : array_like, shape (k,)
        Mean w̄ of Q, packed as ``[u_1, …, u_H, v_1, …, v_H]`` (each ``u_i``
        of length d), ``k = H·d + H``.
    w_cov : array_like, shape (k, k)
        Covariance C of Q (symmetric positive definite), same packing.
    X : array_like, shape (N, d)
        Inputs (with a bias column if wanted, :func:`add_bias`).
    t : array_like, shape (N,)
        Targets.
    n_hidden : int
        Number of hidden units H ≥ 1.
    n_quad : int
        Gauss–Legendre nodes for the one remaining integral (4 to 1000).

    Notes
    -----
    See the module docstring: the v's are integrated analytically and each
    pair term ⟨v_i v_j σ(a_i)σ(a_j)⟩ is reduced to one integral over a finite
    angle (the paper's eqs 22–24, 46–50, 60).
    """
    mean, cov, X, n_hidden, t, n_quad = _check_problem(w_mean, w_cov, X, n_hidden, t, n_quad)
    f1, f2, _ = _moments(mean, cov, X, t, n_hidden, n_quad, grad=False)
    return float(0.5 * np.sum(f2 - 2.0 * t * f1 + t * t))


def output_moments(w_mean, w_cov, X, n_hidden: int, n_quad: int = N_QUAD_DEFAULT):
    """(⟨f(x_n)⟩, ⟨f(x_n)²⟩) under Q = N(w_mean, w_cov) for every row of X (packing as above)."""
    mean, cov, X, n_hidden, _, n_quad = _check_problem(w_mean, w_cov, X, n_hidden, None, n_quad)
    f1, f2, _ = _moments(mean, cov, X, None, n_hidden, n_quad, grad=False)
    return f1, f2


def predictive_mean(w_mean, w_cov, X, n_hidden: int) -> np.ndarray:
    """⟨f(x)⟩ under Q = N(w_mean, w_cov) for every row of X, in closed form (B&B (49), (60)).

    ``⟨v_i σ(a_i)⟩ = v̄_i σ(ā_i/λ_i) + Cov(v_i, a_i) σ'(ā_i/λ_i)/λ_i``,
    ``λ_i = √(1 + Var a_i)``. Packing of ``w_mean`` as in :func:`expected_data_error`.
    """
    mean, cov, X, n_hidden, _, _ = _check_problem(w_mean, w_cov, X, n_hidden)
    m_a, m_v, S_aa, S_av, _ = _projected_moments(mean, cov, X, n_hidden)
    D1 = _single_derivatives(m_a, np.einsum("nii->ni", S_aa), 1)
    return np.sum(m_v * D1[0] + np.einsum("nii->ni", S_av) * D1[1], axis=1)


def predictive_variance(
    w_mean, w_cov, X, n_hidden: int, beta=None, n_quad: int = N_QUAD_DEFAULT
) -> np.ndarray:
    """``⟨f²⟩ − ⟨f⟩²`` under Q for every row of X, plus the noise variance 1/β if ``beta`` is given.

    Parameters
    ----------
    beta : float, optional
        Noise precision β̄ > 0; when given the result is the variance of a
        new target, ``⟨f²⟩ − ⟨f⟩² + 1/β`` (Barber & Bishop §2.3).
    """
    f1, f2 = output_moments(w_mean, w_cov, X, n_hidden, n_quad)
    var = np.maximum(f2 - f1 * f1, 0.0)
    if beta is not None:
        var = var + 1.0 / check.positive("beta", beta)
    return var


__all__ = ["N_QUAD_DEFAULT", "expected_data_error", "output_moments", "predictive_mean", "predictive_variance"]
