"""Ψ(m, S) = ⟨σ(a_1)σ(a_2)⟩ over a 2-D Gaussian and its mean-derivatives (Barber & Bishop (1998), Appendix A).

Ψ is the paper's integral B&B (46)–(50). Writing σ = 2Φ − 1 turns it into a bivariate normal
probability, and Sheppard's formula reduces it to one integral over a finite angle,

.. math:: \\Psi = \\sigma(h)\\sigma(k) + \\frac2\\pi\\int_0^{\\arcsin\\rho}
          \\exp\\Big\\{-\\frac{h^2 + k^2 - 2hk\\sin\\theta}{2\\cos^2\\theta}\\Big\\}\\,d\\theta,

``h = ā_1/√(1+S_11)``, ``k = ā_2/√(1+S_22)``, ``ρ = S_12/√((1+S_11)(1+S_22))``, evaluated by
Gauss–Legendre quadrature in θ. The mean-derivatives (up to fourth order) are exact derivatives
of the same rule (Hermite polynomials of the Gaussian kernel); how their integrals reduce to nine
moments per pair and data point is in the comment above ``_SERIES_TERMS``. The one-unit case
``⟨σ(a)⟩ = σ(m/√(1+S))`` is closed form (B&B (49)). Everything here is private to the models
floor: :mod:`ensemble_lib.models.network_moments` builds ⟨E_D⟩, ⟨f⟩ and ⟨f²⟩ from it, and
:mod:`ensemble_lib.models.network` tells the whole story.

Code names: ``n_quad`` = Gauss–Legendre nodes in θ.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from fractions import Fraction
from math import comb, factorial

import numpy as np
from numpy.polynomial.legendre import leggauss
from scipy.special import erf

from .erf_network import SQRT_2_OVER_PI


# ---------------------------------------------------------------------------
# The reduced integrals: Ψ = ⟨σ(a_1)σ(a_2)⟩ and its mean-derivatives
# ---------------------------------------------------------------------------


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
    out = [erf(h / np.sqrt(2.0))]  # σ(h) (B&B (2)); h comes from checked means and variances
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


# ---------------------------------------------------------------------------
# The angle integrals of Ψ's derivatives, reduced to nine moments per row
# ---------------------------------------------------------------------------
#
# With s = sinθ, c² = cos²θ, a = 1/(1 + s), b = 1/(1 − s) (so ab = 1/c² = (a + b)/2) and
# u = (h + k)/2, v = (h − k)/2, the Wick factors are P11 = P22 = ab, P12 = −s/c² = (a − b)/2,
# y1 = ua + vb, y2 = ua − vb, and the kernel is exp{−(u²a + v²b)}. A monomial in them is a
# polynomial in u, v, a, b; with ab = (a + b)/2 (positive coefficients, no cancellation) every
# product of powers of a and b becomes a sum of pure powers. So the angle integral of any
# derivative of Ψ is Σ coef·u^α v^β J, with the moments
#
#     J = (2/π) Σ_nodes w_j kernel_j a_j^i  (i ≤ max_order),   (2/π) Σ_nodes w_j kernel_j b_j^i  (1 ≤ i),
#
# and exact dyadic coefficients worked out once below (:func:`_psi_coefficients`). Per row that
# is eight products and one matrix–vector product over the nodes instead of 29 monomials, each a
# product and a sum. (The same quantities in h, k and 1/c² would cancel: y1 = (h − ks)/c² is a
# small difference of large numbers when s → 1.) sinθ and cosθ at the nodes θ_j = θ_max x_j come
# from their Taylor series in θ_max as one matrix product each (|θ| < π/2; 12 terms leave
# < 1e-19), not from np.sin/np.cos, which cost ~30 products per element here.

#: Taylor terms of sin and cos at the nodes (|θ| ≤ π/2: the first term left out is < 1e-19)
_SERIES_TERMS = 12
#: The kernel's exponent is cut at −600 and moments below 1e-200 are set to 0: arithmetic on
#: subnormal numbers (below 2.2e-308, as exp(−720) is) runs ~100× slower on x86, and where the
#: kernel is that small the whole term is: the change is below 1e-200 absolute, far below round-off
#: of Ψ's derivatives (each is σ^(p)σ^(q)/(λ^p λ^q) plus θ_max times these moments).
_LOG_TINY, _TINY = -600.0, 1e-200


def _poly_mul(p1: dict, p2: dict) -> dict:
    """Product of polynomials {(α, β, i, j): coef} in u^α v^β a^i b^j, reduced by ab = (a + b)/2."""
    out = {}
    for (a1, b1, i1, j1), c1 in p1.items():
        for (a2, b2, i2, j2), c2 in p2.items():
            todo = [((a1 + a2, b1 + b2, i1 + i2, j1 + j2), c1 * c2)]
            while todo:
                (al, be, i, j), c = todo.pop()
                if i and j:  # a^i b^j = a^(i−1) b^(j−1) (a + b)/2
                    todo += [((al, be, i, j - 1), c / 2), ((al, be, i - 1, j), c / 2)]
                else:
                    out[(al, be, i, j)] = out.get((al, be, i, j), 0) + c
    return {key: c for key, c in out.items() if c}


@lru_cache(maxsize=8)
def _psi_coefficients(max_order: int):
    """The exact map from the moments and the features u^α v^β to Ψ's derivative integrals.

    Returns ``(orders, feats, moments, pairs, coef, p_idx, q_idx, sign, f_idx, j_idx)``:

    * ``orders``: the (p, q) with p + q ≤ max_order;
    * ``feats``: the (α, β) that occur; ``moments``: the (i, j) that occur (a power of a or
      of b, the other 0); ``pairs``: the (feature index, moment index) products that occur;
    * ``coef`` (len(orders) × len(pairs), dyadic rationals, exact in floating point): the Wick
      sum Σ_terms coef·∫kernel·monomial of derivative (p, q) is ``coef @ (u^α v^β · J)[pairs]``;
    * the same as arrays: ``p_idx``, ``q_idx`` the orders' p and q, ``sign`` (−1)^(p+q) as a
      column, ``f_idx``, ``j_idx`` the pairs' feature and moment indices.
    """
    one = {(0, 0, 0, 0): Fraction(1)}
    half = Fraction(1, 2)
    factors = {"P11": {(0, 0, 1, 0): half, (0, 0, 0, 1): half},
               "P12": {(0, 0, 1, 0): half, (0, 0, 0, 1): -half},
               "y1": {(1, 0, 1, 0): Fraction(1), (0, 1, 0, 1): Fraction(1)},
               "y2": {(1, 0, 1, 0): Fraction(1), (0, 1, 0, 1): Fraction(-1)}}

    def power(name, n):
        out = one
        for _ in range(n):
            out = _poly_mul(out, factors[name])
        return out

    orders = [pq for pq in _HERMITE if sum(pq) <= max_order]
    totals = []
    for p, q in orders:
        acc = {}
        for c, j11, j12, j22, e1, e2 in _HERMITE[(p, q)]:
            mono = _poly_mul(_poly_mul(power("P11", j11 + j22), power("P12", j12)),
                             _poly_mul(power("y1", e1), power("y2", e2)))
            for key, v in mono.items():
                acc[key] = acc.get(key, 0) + c * v
        totals.append({key: v for key, v in acc.items() if v})
    feats = sorted({key[:2] for tot in totals for key in tot})
    moments = sorted({key[2:] for tot in totals for key in tot})
    pairs = sorted({(feats.index(key[:2]), moments.index(key[2:])) for tot in totals for key in tot})
    coef = np.zeros((len(orders), len(pairs)))
    for row, tot in enumerate(totals):
        for key, v in tot.items():
            coef[row, pairs.index((feats.index(key[:2]), moments.index(key[2:])))] = float(v)
    p_idx = np.array([p for p, _ in orders])
    q_idx = np.array([q for _, q in orders])
    sign = np.where((p_idx + q_idx) % 2, -1.0, 1.0)[:, None]
    f_idx = np.array([f for f, _ in pairs])
    j_idx = np.array([j for _, j in pairs])
    for arr in (coef, p_idx, q_idx, sign, f_idx, j_idx):
        arr.setflags(write=False)
    return tuple(orders), tuple(feats), tuple(moments), tuple(pairs), coef, p_idx, q_idx, sign, f_idx, j_idx


@lru_cache(maxsize=8)
def _signed_coefficients(max_order: int) -> np.ndarray:
    """``sign * coef`` of :func:`_psi_coefficients`: the Wick sums with their (−1)^(p+q) (exact)."""
    coef, sign = _psi_coefficients(max_order)[4], _psi_coefficients(max_order)[7]
    out = sign * coef
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _node_series(n_quad: int) -> tuple[np.ndarray, np.ndarray]:
    """V_s, V_c (terms × n): sin(θ x_j) = Σ_t θ^(2t+1) V_s[t, j], cos(θ x_j) = Σ_t θ^(2t) V_c[t, j]."""
    x, _ = _legendre01(n_quad)
    t = np.arange(_SERIES_TERMS)
    inv_fact = np.array([1.0 / factorial(i) for i in range(2 * _SERIES_TERMS)])
    sign = np.where(t % 2, -1.0, 1.0)[:, None]
    Vs = sign * inv_fact[2 * t + 1, None] * x ** (2 * t + 1)[:, None]
    Vc = sign * inv_fact[2 * t, None] * x ** (2 * t)[:, None]
    for arr in (Vs, Vc):
        arr.setflags(write=False)
    return Vs, Vc


#: the five node arrays of a block of rows (data points × pairs) take at most this many bytes, so
#: they stay in a core's cache (2 MiB of L2 here) while the block is done; the rows are split into
#: blocks of equal size (Boston, N = 128, H = 4, 48 nodes: 2 blocks of 640 rows, which measured
#: ~10 % faster per evaluation than blocks of 256; blocks of all 1280 rows spill and were ~25 % slower)
_BLOCK_BYTES = 5 * 640 * 48 * 8


def _block_rows(M: int, n_quad: int) -> int:
    """Rows per block: as few equal blocks as keep the node arrays within :data:`_BLOCK_BYTES`."""
    most = max(1, _BLOCK_BYTES // (5 * 8 * n_quad))
    n_blocks = -(-M // most)
    return -(-M // n_blocks)

_WORKSPACE = threading.local()
#: largest scratch array kept between calls (entries; 8 MB)
_SCRATCH_MAX = 1 << 20


def _scratch(name: str, shape: tuple) -> np.ndarray:
    """A scratch array of this thread, kept from call to call (contents undefined).

    Fresh arrays of a few hundred kB are mapped from the system page by page on every call
    (malloc returns them on free), which cost as much as the arithmetic here; a kept buffer
    does not. Only arrays that never leave :func:`_moments` are scratch; arrays of more than
    :data:`_SCRATCH_MAX` entries are not kept (fresh ones cost little beside their arithmetic).
    """
    if math.prod(shape) > _SCRATCH_MAX:
        return np.empty(shape)
    bufs = _WORKSPACE.__dict__.setdefault("bufs", {})
    buf = bufs.get(name)
    if buf is None or buf.shape != shape:
        buf = bufs[name] = np.empty(shape)
    return buf


def _psi_stack(h, k, theta_max, unit1, unit2, max_order: int, n_quad: int, out=None):
    """Ψ's mean-derivatives for p + q ≤ max_order on 1-D rows: ``(orders, array (len(orders), M))``.

    ``unit1 = (σ^(p)(h)/l1^p, l1^(−p))`` for p = 0..max_order, stacked (2, max_order + 1, M), and
    ``unit2`` the same for k, l2: D_pq = σ^(p)(h)σ^(q)(k)/(l1^p l2^q) + (−1)^(p+q) θ_max·total/(l1^p l2^q),
    ``total`` the Wick sum of the comment above. Done on equal blocks of rows (:func:`_block_rows`), with
    the node arrays of a block written into buffers reused from block to block (and from call to
    call, :func:`_scratch`). ``out``: where to write the result (a fresh array if None).
    """
    orders, feats, moments, pairs, _, p_idx, q_idx, _, f_idx, j_idx = _psi_coefficients(max_order)
    coef_signed = _signed_coefficients(max_order)
    M = h.size
    u, v = 0.5 * (h + k), 0.5 * (h - k)
    uu, vv = -u * u, -v * v
    # θ_max^(2t) and θ_max^(2t+1) for the Taylor series of sinθ, cosθ at the nodes
    even = _scratch("even", (_SERIES_TERMS, M))
    even[0] = 1.0
    t2 = theta_max * theta_max
    for t in range(1, _SERIES_TERMS):
        np.multiply(even[t - 1], t2, out=even[t])
    odd = np.multiply(even, theta_max, out=_scratch("odd", (_SERIES_TERMS, M)))
    # features u^α v^β
    up, vp = [np.ones(M), u], [np.ones(M), v]
    for _ in range(2, max_order + 1):
        up.append(up[-1] * u)
        vp.append(vp[-1] * v)
    F = _scratch("features", (len(feats), M))
    for row, (al, be) in enumerate(feats):
        np.multiply(up[al], vp[be], out=F[row])
    Vs, Vc = _node_series(n_quad)
    _, wq = _legendre01(n_quad)
    wq = (2.0 / np.pi) * wq
    a_pows = [(i, 0) for i in range(1, max_order + 1) if (i, 0) in moments]
    b_pows = [(0, i) for i in range(1, max_order + 1) if (0, i) in moments]
    index = {key: moments.index(key) for key in moments}
    rows = _block_rows(M, n_quad)
    s_buf, a_buf, b_buf, k_buf, c_buf = (_scratch(f"node{i}", (rows, n_quad)) for i in range(5))
    J = _scratch("moments", (len(moments), rows))
    if out is None:
        out = np.empty((len(orders), M))
    for start in range(0, M, rows):
        sl = slice(start, start + rows)
        r = min(rows, M - start)
        one_p, a, b, kern, cur = s_buf[:r], a_buf[:r], b_buf[:r], k_buf[:r], c_buf[:r]
        np.matmul(odd[:, sl].T, Vs, out=one_p)
        one_p += 1.0  # 1 + sinθ
        np.divide(1.0, one_p, out=a)
        np.matmul(even[:, sl].T, Vc, out=b)
        b *= b
        np.divide(one_p, b, out=b)  # (1 + sinθ)/cos²θ = 1/(1 − sinθ)
        # kernel exp{−(u²a + v²b)}, then kernel·aⁱ and kernel·bⁱ, each summed over the nodes
        np.multiply(a, uu[sl, None], out=kern)
        np.multiply(b, vv[sl, None], out=one_p)
        kern += one_p
        np.maximum(kern, _LOG_TINY, out=kern)  # no subnormal numbers (module comment above)
        np.exp(kern, out=kern)
        Jb = J[:, :r]
        np.matmul(kern, wq, out=Jb[index[(0, 0)]])
        for fac, keys in ((a, a_pows), (b, b_pows)):
            prev = kern
            for key in keys:
                np.multiply(prev, fac, out=cur)
                np.matmul(cur, wq, out=Jb[index[key]])
                prev = cur
        Jb[Jb < _TINY] = 0.0  # J ≥ 0; products of the features with subnormal J would be slow
        # the Wick sums, then D_pq
        Z = F[f_idx, sl]
        Z *= Jb[j_idx]
        total = coef_signed @ Z  # (orders, r), times (−1)^(p+q)
        total *= theta_max[sl]
        total *= unit1[1][p_idx, sl]
        total *= unit2[1][q_idx, sl]
        blk = out[:, sl]
        np.multiply(unit1[0][p_idx, sl], unit2[0][q_idx, sl], out=blk)
        blk += total
    return orders, out


def _units(h, lam, max_order: int) -> np.ndarray:
    """(σ^(p)(h)/λ^p, λ^(−p)) for p = 0..max_order, shape (2, max_order + 1, …)."""
    il = 1.0 / lam
    out = np.empty((2, max_order + 1) + h.shape)
    out[1, 0] = 1.0
    for p in range(1, max_order + 1):
        np.multiply(out[1, p - 1], il, out=out[1, p])
    out[0] = _sigma_derivatives(h, max_order)
    out[0] *= out[1]
    return out


def _psi_derivatives(m1, m2, S11, S12, S22, max_order: int, n_quad: int) -> dict:
    """∂^p_{m1}∂^q_{m2} Ψ for p + q ≤ max_order, Ψ = ⟨σ(a_1)σ(a_2)⟩, (a_1, a_2) ~ N(m, S).

    Vectorised over the (common) shape of the arguments. Returns a dict
    (p, q) → array. See the module docstring for the angle form of Ψ and the
    comment above :data:`_SERIES_TERMS` for how the integrals are done.
    """
    m1, m2, S11, S12, S22 = np.broadcast_arrays(
        *[np.asarray(a, dtype=float) for a in (m1, m2, S11, S12, S22)]
    )
    shape = m1.shape
    m1, m2, S11, S12, S22 = (a.ravel() for a in (m1, m2, S11, S12, S22))
    l1 = np.sqrt(1.0 + S11)
    l2 = np.sqrt(1.0 + S22)
    h, k = m1 / l1, m2 / l2
    rho = np.minimum(np.maximum(S12 / (l1 * l2), -1.0 + 1e-15), 1.0 - 1e-15)
    orders, out = _psi_stack(h, k, np.arcsin(rho), _units(h, l1, max_order), _units(k, l2, max_order),
                             max_order, n_quad)
    return {pq: out[row].reshape(shape) for row, pq in enumerate(orders)}


def _single_derivatives(m, S, max_order: int) -> list[np.ndarray]:
    """∂^p_m ⟨σ(a)⟩ for a ~ N(m, S): ⟨σ(a)⟩ = σ(m/√(1+S)) (B&B (49))."""
    lam = np.sqrt(1.0 + S)
    sd = _sigma_derivatives(m / lam, max_order)
    return [sd[p] / lam**p for p in range(max_order + 1)]


#: nothing here is public: :mod:`.network_moments` builds the network's moments from it
__all__: list[str] = []
