"""Regression pin: the erf network's ⟨E_D⟩ and gradient as they were before the speed-up of issue 30.

A frozen copy of the pre-speed-up code of ``ensemble_lib/models/network.py`` (commit d20d646):
``_psi_derivatives`` (Ψ's mean-derivatives by Gauss–Legendre quadrature of the Wick monomials
in the angle θ, Barber & Bishop (1998) eqs 46–50 in Sheppard's angle form), ``_projected_moments``
(the ``einsum`` projections of Q onto each data point's (a, v)) and ``_moments`` (⟨f⟩, ⟨f²⟩ and the
gradient of ⟨E_D⟩ = ½Σ_n l_n, eqs 20–24, with ``np.add.at`` scatters). It is not used by the
library: the tests check the faster implementation against it (to 1e-10 relative) and
``benchmarks/bench_network_fits.py`` times the two side by side. Do not edit it to follow the
library; it pins what the library computed before.

:class:`ReferenceNetworkPosterior` is a :class:`~ensemble_lib.models.network.NetworkPosterior`
whose ``expected_data_error`` uses this copy, so a ``CollapsedBound`` or ``kl_objective`` built on it
evaluates the old bound and gradient.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np
from numpy.polynomial.legendre import leggauss

from ensemble_lib.models.erf_network import SQRT_2_OVER_PI, sigma
from ensemble_lib.models.network import NetworkPosterior
from ensemble_lib.models.posterior import Expectation
from ensemble_lib.core import validation as check


@lru_cache(maxsize=16)
def _legendre01(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [0, 1]."""
    x, w = leggauss(n)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w



def _sigma_derivatives(h, order: int) -> list[np.ndarray]:
    """[σ(h), σ'(h), …, σ^(order)(h)]; σ^(p) = (−1)^(p−1) He_(p−1)(h) σ'(h) for p ≥ 1."""
    out = [sigma(h)]
    if order >= 1:
        s1 = SQRT_2_OVER_PI * np.exp(-0.5 * h * h)
        he_prev, he = np.zeros_like(h), np.ones_like(h)  # He_{p-2}, He_{p-1} at p = 1
        for p in range(1, order + 1):
            out.append((-1) ** (p - 1) * he * s1)
            he_prev, he = he, h * he - (p - 1) * he_prev  # He_p = h He_{p-1} − (p−1) He_{p-2}
    return out



def _hermite_terms(p: int, q: int) -> list[tuple[int, int, int, int, int, int]]:
    """Wick expansion of ∂_h^p ∂_k^q exp(−½zᵀPz) = (−1)^(p+q) H_pq(y, P) exp(…), y = Pz.

    Returns terms (coef, j11, j12, j22, e1, e2) meaning
    coef·P11^j11·P12^j12·P22^j22·y1^e1·y2^e2 (the sign (−1)^(pairs) included).
    """
    terms = []
    for j12 in range(min(p, q) + 1):
        for j11 in range((p - j12) // 2 + 1):
            for j22 in range((q - j12) // 2 + 1):
                n11 = comb(p, 2 * j11) * _double_factorial(2 * j11 - 1)
                n12 = comb(p - 2 * j11, j12) * comb(q, j12) * _factorial(j12)
                n22 = comb(q - j12, 2 * j22) * _double_factorial(2 * j22 - 1)
                sign = (-1) ** (j11 + j12 + j22)
                terms.append(
                    (sign * n11 * n12 * n22, j11, j12, j22, p - 2 * j11 - j12, q - j12 - 2 * j22)
                )
    return terms


def _factorial(n: int) -> int:
    out = 1
    for i in range(2, n + 1):
        out *= i
    return out


def _double_factorial(n: int) -> int:
    out = 1
    while n > 1:
        out *= n
        n -= 2
    return out


_HERMITE = {(p, q): _hermite_terms(p, q) for p in range(5) for q in range(5) if p + q <= 4}


#: rows (data points × pairs) of :func:`_psi_derivatives` done at once
_CHUNK_ROWS = 1024


def _psi_derivatives(m1, m2, S11, S12, S22, max_order: int, n_quad: int) -> dict:
    """∂^p_{m1}∂^q_{m2} Ψ for p + q ≤ max_order, Ψ = ⟨σ(a_1)σ(a_2)⟩, (a_1, a_2) ~ N(m, S).

    Vectorised over the (common) shape of the arguments. Returns a dict
    (p, q) → array. See the module docstring for the angle form of Ψ.

    The integrals of the Wick monomials (:func:`_angle_integrals`) are done
    on blocks of rows, each monomial written into a reused buffer: the same
    floating-point operations as one block of everything, so the same result
    bit for bit, without tens of megabytes of fresh memory per call.
    """
    m1, m2, S11, S12, S22 = np.broadcast_arrays(
        *[np.asarray(a, dtype=float) for a in (m1, m2, S11, S12, S22)]
    )
    l1 = np.sqrt(1.0 + S11)
    l2 = np.sqrt(1.0 + S22)
    h, k = m1 / l1, m2 / l2
    rho = np.minimum(np.maximum(S12 / (l1 * l2), -1.0 + 1e-15), 1.0 - 1e-15)
    theta_max = np.arcsin(rho)
    keys, tree = _monomial_tree(max_order)
    integral = {}
    for key, flat in _angle_integrals(h.ravel(), k.ravel(), theta_max.ravel(), keys, tree, n_quad).items():
        # in θ_max's memory layout, as a sum over the nodes of (…, n) arrays would give:
        # the layout decides which BLAS kernel the products with these arrays use later
        integral[key] = np.empty_like(theta_max)
        integral[key][...] = flat.reshape(theta_max.shape)
    sh = _sigma_derivatives(h, max_order)
    sk = _sigma_derivatives(k, max_order)
    out = {}
    for (p, q), terms in _HERMITE.items():
        if p + q > max_order:
            continue
        total = 0.0
        for coef, j11, j12, j22, e1, e2 in terms:
            total = total + coef * integral[(j11 + j22, j12, e1, e2)]
        sign = -1.0 if (p + q) % 2 else 1.0
        out[(p, q)] = (sh[p] * sk[q] + sign * theta_max * total) / (l1**p * l2**q)
    return out


def _parent(key):
    """The monomial ``key`` is built from: one power less of its last factor present."""
    j = next(i for i in (3, 2, 1, 0) if key[i] > 0)
    return key[:j] + (key[j] - 1,) + key[j + 1:], j


@lru_cache(maxsize=8)
def _monomial_tree(max_order: int):
    """Monomials (powers of P11, P12, y1, y2; P22 = P11) whose integrals Ψ's derivatives need,
    and the tree that builds each from its parent by one product: key → [(child, factor), …]."""
    keys = set()
    for (p, q), terms in _HERMITE.items():
        if p + q <= max_order:
            keys.update((j11 + j22, j12, e1, e2) for _, j11, j12, j22, e1, e2 in terms)
    tree = {}
    todo = list(keys)
    while todo:
        key = todo.pop()
        if key == (0, 0, 0, 0):
            continue
        parent, j = _parent(key)
        children = tree.setdefault(parent, [])
        if (key, j) not in children:
            children.append((key, j))
            todo.append(parent)
    return frozenset(keys), {key: tuple(sorted(ch)) for key, ch in tree.items()}


def _angle_integrals(h, k, theta_max, keys, tree, n_quad: int) -> dict:
    """Σ_nodes kernel·monomial for every monomial in ``keys`` (1-D inputs of length M)."""
    x, wq = _legendre01(n_quad)
    M = h.size
    out = {key: np.empty(M) for key in keys}
    depth = 1 + max(sum(key) for key in keys)
    for start in range(0, M, _CHUNK_ROWS):
        sl = slice(start, start + _CHUNK_ROWS)
        th = theta_max[sl, None] * x  # (rows, n)
        s, c2 = np.sin(th), np.cos(th) ** 2
        hh, kk = h[sl, None], k[sl, None]
        P11 = 1.0 / c2
        P12 = -s / c2
        y1 = (hh - s * kk) / c2
        y2 = (kk - s * hh) / c2
        kernel = np.exp(-0.5 * (hh * y1 + kk * y2)) * ((2.0 / np.pi) * wq)
        factors = (P11, P12, y1, y2)
        # depth-first over the tree: one buffer per level holds the monomial
        # times the weighted kernel on the path from the root
        level = [kernel] + [np.empty_like(kernel) for _ in range(depth - 1)]

        def visit(key, d):
            if key in out:
                np.sum(level[d], axis=-1, out=out[key][sl])
            for child, j in tree.get(key, ()):
                np.multiply(level[d], factors[j], out=level[d + 1])
                visit(child, d + 1)

        visit((0, 0, 0, 0), 0)
    return out


def _single_derivatives(m, S, max_order: int) -> list[np.ndarray]:
    """∂^p_m ⟨σ(a)⟩ for a ~ N(m, S): ⟨σ(a)⟩ = σ(m/√(1+S)) (B&B (49))."""
    lam = np.sqrt(1.0 + S)
    sd = _sigma_derivatives(m / lam, max_order)
    return [sd[p] / lam**p for p in range(max_order + 1)]


# ---------------------------------------------------------------------------
# Per-data-point moments of y = (a, v) and the expected error
# ---------------------------------------------------------------------------


def _projected_moments(mean, cov, X, n_hidden):
    """Mean and covariance blocks of y_n = (a_1..a_H, v_1..v_H) = P_n w under N(mean, cov)."""
    N, d = X.shape
    H = n_hidden
    hd = H * d
    Ubar = mean[:hd].reshape(H, d)
    m_a = X @ Ubar.T  # (N, H)
    m_v = mean[hd:]  # (H,)
    Cuu = cov[:hd, :hd].reshape(H, d, H, d)
    Cuv = cov[:hd, hd:].reshape(H, d, H)
    S_aa = np.einsum("nd,idje,ne->nij", X, Cuu, X, optimize=True)  # Cov(a_i, a_j)
    S_av = np.einsum("nd,idj->nij", X, Cuv, optimize=True)  # Cov(a_i, v_j)
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


def _moments(mean, cov, X, t, n_hidden, n_quad, grad: bool):
    """Core: ⟨f⟩_n, ⟨f²⟩_n and (if grad) the gradient of ½Σ_n l_n w.r.t. mean and cov."""
    N, d = X.shape
    H = n_hidden
    m_a, m_v, S_aa, S_av, S_vv = _projected_moments(mean, cov, X, H)
    I, J, om = _pairs(H)
    # pair quantities, shape (N, P)
    m1, m2 = m_a[:, I], m_a[:, J]
    S11, S22, S12 = S_aa[:, I, I], S_aa[:, J, J], S_aa[:, I, J]
    mu1, mu2 = m_v[I], m_v[J]
    K = S_vv[I, J]
    c1 = (S_av[:, I, I], S_av[:, J, I])  # Cov(v_i, a_i), Cov(v_i, a_j)
    c2 = (S_av[:, I, J], S_av[:, J, J])  # Cov(v_j, a_i), Cov(v_j, a_j)
    D = _psi_derivatives(m1, m2, S11, S12, S22, 4 if grad else 2, n_quad)
    A0 = mu1 * mu2 + K
    B = (mu1 * c2[0] + mu2 * c1[0], mu1 * c2[1] + mu2 * c1[1])
    Q11, Q22 = c1[0] * c2[0], c1[1] * c2[1]
    Q12 = c1[0] * c2[1] + c1[1] * c2[0]

    def T(a, b):
        """T shifted by a, b extra mean-derivatives in (a_i, a_j)."""
        return (
            A0 * D[(a, b)] + B[0] * D[(a + 1, b)] + B[1] * D[(a, b + 1)]
            + Q11 * D[(a + 2, b)] + Q12 * D[(a + 1, b + 1)] + Q22 * D[(a, b + 2)]
        )

    T00 = T(0, 0)
    f2 = T00 @ om  # ⟨f²⟩_n, shape (N,)
    # linear terms M_i = ⟨v_i σ(a_i)⟩ (B&B (60))
    c_ii = np.einsum("nii->ni", S_av)
    s_ii = np.einsum("nii->ni", S_aa)
    D1 = _single_derivatives(m_a, s_ii, 3 if grad else 1)
    M = m_v * D1[0] + c_ii * D1[1]
    f1 = M.sum(axis=1)
    if not grad:
        return f1, f2, None
    value = 0.5 * float(np.sum(f2 - 2.0 * t * f1 + t * t))
    # gradients of ½Σ_n(Σ_ij T_ij − 2t_n Σ_i M_i) with respect to the blocks of y's moments
    half_om = 0.5 * om
    gm_a = np.zeros((N, H))
    G_aa = np.zeros((N, H, H))
    G_av = np.zeros((N, H, H))  # [n, a-index, v-index]
    np.add.at(gm_a, (slice(None), I), half_om * T(1, 0))
    np.add.at(gm_a, (slice(None), J), half_om * T(0, 1))
    g20, g11, g02 = 0.5 * T(2, 0), 0.5 * T(1, 1), 0.5 * T(0, 2)
    np.add.at(G_aa, (slice(None), I, I), half_om * g20)
    np.add.at(G_aa, (slice(None), J, J), half_om * g02)
    np.add.at(G_aa, (slice(None), I, J), half_om * g11)
    np.add.at(G_aa, (slice(None), J, I), half_om * g11)
    d10, d01 = D[(1, 0)], D[(0, 1)]
    d20, d11, d02 = D[(2, 0)], D[(1, 1)], D[(0, 2)]
    g_mu1 = (mu2 * D[(0, 0)] + c2[0] * d10 + c2[1] * d01).sum(axis=0) * half_om
    g_mu2 = (mu1 * D[(0, 0)] + c1[0] * d10 + c1[1] * d01).sum(axis=0) * half_om
    g_K = D[(0, 0)].sum(axis=0) * half_om
    # ∂T/∂c1 = μ2∇Ψ + ∇∇Ψ c2, ∂T/∂c2 = μ1∇Ψ + ∇∇Ψ c1; symmetric G takes half of each
    g_c1a = 0.5 * half_om * (mu2 * d10 + d20 * c2[0] + d11 * c2[1])
    g_c1b = 0.5 * half_om * (mu2 * d01 + d11 * c2[0] + d02 * c2[1])
    g_c2a = 0.5 * half_om * (mu1 * d10 + d20 * c1[0] + d11 * c1[1])
    g_c2b = 0.5 * half_om * (mu1 * d01 + d11 * c1[0] + d02 * c1[1])
    np.add.at(G_av, (slice(None), I, I), g_c1a)
    np.add.at(G_av, (slice(None), J, I), g_c1b)
    np.add.at(G_av, (slice(None), I, J), g_c2a)
    np.add.at(G_av, (slice(None), J, J), g_c2b)
    gm_v = np.zeros(H)
    np.add.at(gm_v, I, g_mu1)
    np.add.at(gm_v, J, g_mu2)
    G_vv = np.zeros((H, H))
    np.add.at(G_vv, (I, J), 0.5 * g_K)
    np.add.at(G_vv, (J, I), 0.5 * g_K)
    # −t_n Σ_i M_i (the ½ and the 2 cancel)
    tt = t[:, None]
    gm_v -= np.sum(tt * D1[0], axis=0)
    gm_a -= tt * (m_v * D1[1] + c_ii * D1[2])
    idx = np.arange(H)
    G_aa[:, idx, idx] -= tt * 0.5 * (m_v * D1[2] + c_ii * D1[3])
    G_av[:, idx, idx] -= tt * 0.5 * D1[1]
    # back to w = (u, v): d_mean = Σ P_nᵀ g_n, d_cov = Σ P_nᵀ G_n P_n
    k = H * d + H
    hd = H * d
    d_mean = np.empty(k)
    d_mean[:hd] = (gm_a.T @ X).ravel()
    d_mean[hd:] = gm_v
    d_cov = np.empty((k, k))
    d_cov[:hd, :hd] = np.einsum("nij,nd,ne->idje", G_aa, X, X, optimize=True).reshape(hd, hd)
    uv = np.einsum("nij,nd->idj", G_av, X, optimize=True).reshape(hd, H)
    d_cov[:hd, hd:] = uv
    d_cov[hd:, :hd] = uv.T
    d_cov[hd:, hd:] = G_vv
    return f1, f2, Expectation(value, d_mean, d_cov)



def expected_data_error(mean, cov, X, t, n_hidden, n_quad=48) -> Expectation:
    """⟨E_D⟩ under N(mean, cov) with its gradient, by the pre-speed-up code."""
    return _moments(np.asarray(mean, float), np.asarray(cov, float), X, t, n_hidden, n_quad, grad=True)[2]


class ReferenceNetworkPosterior(NetworkPosterior):
    """A NetworkPosterior whose ⟨E_D⟩ and gradient come from the frozen pre-speed-up code."""

    def expected_data_error(self, mean, cov) -> Expectation:
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        return _moments(mean, cov, self.X, self.t, self.n_hidden, self.n_quad, grad=True)[2]
