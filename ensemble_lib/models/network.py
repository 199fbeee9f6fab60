"""The two-layer erf network and its expected error under a Gaussian Q, without sampling.

Barber & Bishop (1998), §1.1 and §2.1, Appendix A. The network (eq. 1) is

.. math:: f(\\mathbf x, \\mathbf w) = \\sum_{i=1}^H v_i\\,\\sigma(\\mathbf u_i^T\\mathbf x),
          \\qquad \\sigma(a) = \\operatorname{erf}(a/\\sqrt2)\\ \\text{(B&B (2))},

with a hidden-unit bias obtained by appending a constant input 1 (:func:`add_bias`).

Packing of the weights
----------------------
``w`` is one vector of length ``k = H·d + H`` (``d`` = number of inputs
*including* any appended bias column)::

    w = [u_1 (d entries), u_2 (d), …, u_H (d), v_1, …, v_H]

i.e. ``w[:H*d].reshape(H, d)`` holds the input-to-hidden weights, row ``i``
being ``u_i``, and ``w[H*d:]`` the hidden-to-output weights ``v``
(:func:`pack_weights`, :func:`unpack_weights`). For ``H = d = 1`` this is the
toy's ``w = (u, v)``. (Appendix A.3 of the paper orders w the other way,
``({v_k}, {u_k})``; only the documented packing here matters.)

The expected error under Q = N(w̄, C) (B&B (20)–(24))
--------------------------------------------------
``⟨E_D⟩ = ½ Σ_n l(x_n, t_n)`` with ``l = ⟨f²⟩ − 2t⟨f⟩ + t²`` (B&B (20)–(21)) and
``⟨f²⟩ = Σ_ij ⟨v_i v_j σ(a_i) σ(a_j)⟩`` (B&B (22)), ``a_i = u_iᵀx``. For one
data point the vector ``y = (a_1..a_H, v_1..v_H) = P_n w`` is Gaussian with mean
``P_n w̄`` and covariance ``P_n C P_nᵀ``; each pair term needs only the 4-D
marginal of ``(a_i, a_j, v_i, v_j)``. The v's are integrated analytically
(B&B (23), here by Gaussian integration by parts):

.. math:: \\langle v_i v_j g(\\mathbf a)\\rangle = (\\bar v_i\\bar v_j + K_{ij})\\Psi
          + (\\bar v_i\\mathbf c_j + \\bar v_j\\mathbf c_i)^T\\nabla\\Psi
          + \\mathbf c_i^T\\,\\nabla\\nabla\\Psi\\,\\mathbf c_j,

where ``Ψ(m, S) = ⟨σ(a_i)σ(a_j)⟩`` over the 2-D Gaussian of ``(a_i, a_j)``,
``∇`` differentiates with respect to the means ``m = (ā_i, ā_j)``, ``c_i`` is
the covariance of ``v_i`` with ``(a_i, a_j)`` and ``K_ij = Cov(v_i, v_j)``.
``Ψ`` is the paper's integral (46)–(50). Writing σ = 2Φ − 1 (Φ the normal
c.d.f.) turns it into a bivariate normal probability, and Sheppard's formula
reduces it to one integral over a finite angle,

.. math:: \\Psi = \\sigma(h)\\sigma(k) + \\frac2\\pi\\int_0^{\\arcsin\\rho}
          \\exp\\Big\\{-\\frac{h^2 + k^2 - 2hk\\sin\\theta}{2\\cos^2\\theta}\\Big\\}\\,d\\theta,

``h = ā_i/√(1+S_ii)``, ``k = ā_j/√(1+S_jj)``, ``ρ = S_ij/√((1+S_ii)(1+S_jj))``
(``|ρ| < 1`` for every covariance, so the integrand is smooth and bounded).
It is evaluated by Gauss–Legendre quadrature in θ. (The paper's form (50) is a
Gauss–Hermite integral over a pre-activation; its integrand has a kink of
width ``1/√S_ii`` in the Hermite variable, so it loses accuracy when a
pre-activation's variance is large — e.g. for a pruned hidden unit whose u
stays at its broad prior. The angle form has no such case; the tests check
it against the paper's form, brute-force quadrature and Monte Carlo.)
The mean-derivatives of Ψ needed above are exact derivatives of the same
rule (Hermite polynomials of the Gaussian kernel); how their integrals reduce to nine
moments per pair and data point is in the comment above ``_SERIES_TERMS``. ``⟨v_i σ(a_i)⟩`` is
closed form (B&B (49), (60)).

Gradients (Appendix A.3, re-derived)
------------------------------------
For a Gaussian expectation ``⟨g⟩`` with mean ``m`` and covariance ``S``,
``∂⟨g⟩/∂m = ⟨∇g⟩`` and ``∂⟨g⟩/∂S = ½⟨∇∇g⟩`` (Price's theorem; the heat
equation), so every derivative of ``Ψ`` with respect to ``S`` is half a
second mean-derivative; up to fourth mean-derivatives of ``Ψ`` give all
gradients of ``⟨E_D⟩``. The gradient with respect to C is
``Σ_n P_nᵀ G_n P_n`` where ``G_n`` is the symmetric gradient with respect to
the covariance of ``y``. (The appendix's change of variables ``C⁻¹(w − m)``
and its ``|C|^{1/2}`` are slips, see INDEX.md; the formulas here are derived
independently and checked against central differences in the tests.)

Code names: ``n_hidden`` = H, ``X`` = inputs (N × d), ``t`` = targets,
``w`` = weights, ``mean``/``w_mean`` = w̄, ``cov``/``w_cov`` = C,
``alpha`` = α, ``beta`` = β, ``n_quad`` = Gauss–Legendre nodes in θ.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from fractions import Fraction
from math import comb, factorial

import numpy as np
from numpy.polynomial.legendre import leggauss

from ..core import validation as check
from .erf_network import SQRT_2_OVER_PI, sigma
from .posterior import Expectation, RegressionPosterior

#: default number of Gauss–Legendre nodes for the angle integral of Ψ
N_QUAD_DEFAULT = 48
_MAX_HIDDEN = 1000


# ---------------------------------------------------------------------------
# Packing, validation and the network itself (B&B (1))
# ---------------------------------------------------------------------------


def add_bias(X) -> np.ndarray:
    """Append a column of ones to X (N × d → N × (d+1)): the hidden-unit bias of §1.1."""
    X = _check_inputs(X, name="X")
    return np.hstack([X, np.ones((X.shape[0], 1))])


def n_weights(n_inputs: int, n_hidden: int) -> int:
    """k = H·d + H, the length of ``w`` for ``d`` inputs (incl. bias) and ``H`` hidden units."""
    n_inputs = check.integer("n_inputs", n_inputs, low=1)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
    return n_hidden * n_inputs + n_hidden


def pack_weights(U, v) -> np.ndarray:
    """w = [u_1, …, u_H, v] from ``U`` (H × d, row i = u_i) and ``v`` (H,)."""
    U = check.finite_array("U", U)
    v = check.finite_array("v", v)
    if U.ndim != 2 or v.shape != (U.shape[0],):
        raise ValueError(f"U must have shape (H, d) and v shape (H,), got {U.shape} and {v.shape}")
    return np.concatenate([U.ravel(), v])


def unpack_weights(w, n_hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """(U, v) from ``w`` (…, k): ``U`` of shape (…, H, d), ``v`` of shape (…, H)."""
    w = check.finite_array("w", w)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
    k = w.shape[-1] if w.ndim else 0
    if w.ndim == 0 or k % n_hidden or k // n_hidden < 2:
        raise ValueError(
            f"w must have last dimension k = H·(d + 1) with H = n_hidden = {n_hidden} and d ≥ 1, "
            f"got shape {w.shape}"
        )
    d = k // n_hidden - 1
    U = w[..., : n_hidden * d].reshape(w.shape[:-1] + (n_hidden, d))
    return U, w[..., n_hidden * d:]


def _check_inputs(X, name: str = "X") -> np.ndarray:
    return check.finite_matrix(name, X, hint=" (use x[:, None] for one input)")


def _check_w(w, d: int, n_hidden: int) -> np.ndarray:
    w = check.finite_array("w", w)
    k = n_hidden * d + n_hidden
    if w.ndim == 0 or w.shape[-1] != k:
        raise ValueError(
            f"w must have last dimension k = H·d + H = {k} (H = {n_hidden}, d = {d} inputs incl. "
            f"bias), got shape {w.shape}"
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("w must contain only finite values (no NaN or inf)")
    return w


def network_output(w, X, n_hidden: int) -> np.ndarray:
    """f(x, w) = Σ_i v_i σ(u_iᵀx) (B&B (1)) for every row of X.

    Parameters
    ----------
    w : array_like, shape (..., k)
        Weights packed as ``[u_1, …, u_H, v_1, …, v_H]`` with each ``u_i`` of
        length d, so ``k = H·d + H``; leading axes are broadcast (e.g. samples).
    X : array_like, shape (N, d)
        Inputs, including a bias column if wanted (:func:`add_bias`).
    n_hidden : int
        Number of hidden units H ≥ 1.

    Returns
    -------
    ndarray, shape (..., N)
    """
    X = _check_inputs(X)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
    w = _check_w(w, X.shape[1], n_hidden)
    return _forward(w, X, n_hidden)[0]


def _forward(w, X, n_hidden):
    U, v = unpack_weights(w, n_hidden)
    A = np.einsum("...hd,nd->...nh", U, X)  # pre-activations a_i = u_iᵀx
    S = sigma(A)
    return np.einsum("...nh,...h->...n", S, v), A, S, U, v


def network_jacobian(w, X, n_hidden: int) -> np.ndarray:
    """∂f(x_n, w)/∂w for every row of X, shape (N, k) (same packing as ``w``).

    ``∂f/∂u_i = v_i σ'(u_iᵀx) x`` and ``∂f/∂v_i = σ(u_iᵀx)``; used for the
    Laplace predictive variance ``gᵀA⁻¹g`` (MacKay 1995) and the Hessian.
    """
    X = _check_inputs(X)
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
    w = _check_w(w, X.shape[1], n_hidden)
    if w.ndim != 1:
        raise ValueError(f"w must be a single weight vector of shape (k,), got {w.shape}")
    _, A, S, _, v = _forward(w, X, n_hidden)
    dS = SQRT_2_OVER_PI * np.exp(-0.5 * A * A)
    gu = (dS * v)[:, :, None] * X[:, None, :]  # (N, H, d)
    return np.concatenate([gu.reshape(X.shape[0], -1), S], axis=1)


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


#: rows (data points × pairs) done at once: the node arrays of a block stay in cache
_CHUNK_ROWS = 256

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
    if np.prod(shape) > _SCRATCH_MAX:
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
    ``total`` the Wick sum of the comment above. Done on blocks of :data:`_CHUNK_ROWS` rows, with
    the node arrays of a block written into buffers reused from block to block (and from call to
    call, :func:`_scratch`). ``out``: where to write the result (a fresh array if None).
    """
    orders, feats, moments, pairs, coef, p_idx, q_idx, sign, f_idx, j_idx = _psi_coefficients(max_order)
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
    rows = min(M, _CHUNK_ROWS)
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
        total = coef @ Z  # (orders, r)
        total *= sign
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


def _moments(mean, cov, X, t, n_hidden, n_quad, grad: bool):
    """Core: ⟨f⟩_n, ⟨f²⟩_n and (if grad) the gradient of ½Σ_n l_n w.r.t. mean and cov."""
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
    XX = (X[:, :, None] * X[:, None, :]).reshape(N, d * d)
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


# ---------------------------------------------------------------------------
# The posterior of the network's weights
# ---------------------------------------------------------------------------


class NetworkPosterior(RegressionPosterior):
    """Posterior over the weights of the erf network (B&B (1)) with prior N(0, I/α), noise β.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Inputs including any bias column (:func:`add_bias`).
    t : array_like, shape (N,)
        Targets.
    n_hidden : int
        Hidden units H ≥ 1; the weight vector has ``k = H·d + H`` entries,
        packed ``[u_1, …, u_H, v_1, …, v_H]``.
    alpha, beta : float
        Prior precision α > 0 and noise precision β > 0.
    n_quad : int
        Gauss–Legendre nodes for the angle integral in ⟨E_D⟩ (4 to 1000).

    Notes
    -----
    ``data_error`` is eq. (4); ``expected_data_error`` is eqs (20)–(24) with
    exact gradients (module docstring). ``log_Z`` is not computable for
    H·d > 1, so ``kl`` is unavailable but ``bound`` (B&B (17)) is.
    """

    def __init__(self, X, t, n_hidden: int, alpha, beta, n_quad: int = N_QUAD_DEFAULT):
        super().__init__(alpha, beta)
        X = _check_inputs(X)
        t = check.finite_vector("t", t)
        if t.size != X.shape[0]:
            raise ValueError(f"t must have length N = {X.shape[0]} (rows of X), got {t.size}")
        self.X, self.t = X, t
        self.n_hidden = check.integer("n_hidden", n_hidden, low=1, high=_MAX_HIDDEN)
        self.n_data, self.n_inputs = X.shape
        self.dim = self.n_hidden * (self.n_inputs + 1)
        self.n_quad = check.integer("n_quad", n_quad, low=4, high=1000)

    def __repr__(self) -> str:
        return (
            f"NetworkPosterior(N={self.n_data}, d={self.n_inputs}, H={self.n_hidden}, "
            f"k={self.dim}, alpha={self.alpha:g}, beta={self.beta:g})"
        )

    def output(self, w) -> np.ndarray:
        """f(x_n, w) for the training inputs, vectorised over leading axes of w."""
        return network_output(w, self.X, self.n_hidden)

    def data_error(self, w) -> np.ndarray:
        r = self.output(w) - self.t
        return 0.5 * np.sum(r * r, axis=-1)

    def data_error_grad(self, w) -> np.ndarray:
        w = _check_w(w, self.n_inputs, self.n_hidden)
        r = network_output(w, self.X, self.n_hidden) - self.t
        return r @ network_jacobian(w, self.X, self.n_hidden)

    def data_error_hessian(self, w) -> np.ndarray:
        """Exact Hessian ``Σ_n [g_n g_nᵀ + r_n ∇∇f_n]`` of E_D at a single w."""
        w = _check_w(w, self.n_inputs, self.n_hidden)
        if w.ndim != 1:
            raise ValueError(f"w must be a single weight vector of shape (k,), got {w.shape}")
        X, H, d = self.X, self.n_hidden, self.n_inputs
        f, A, _, _, v = _forward(w, X, H)
        r = f - self.t
        Jac = network_jacobian(w, X, H)
        hess = Jac.T @ Jac
        s1 = SQRT_2_OVER_PI * np.exp(-0.5 * A * A)
        s2 = -A * s1  # σ''
        hd = H * d
        # ∂²f/∂u_i∂u_i = v_i σ''(a_i) x xᵀ
        wgt = r[:, None] * s2 * v  # (N, H)
        blocks = np.einsum("nh,nd,ne->hde", wgt, X, X)
        for i in range(H):
            sl = slice(i * d, (i + 1) * d)
            hess[sl, sl] += blocks[i]
        # ∂²f/∂u_i∂v_i = σ'(a_i) x
        cross = np.einsum("nh,nd->hd", r[:, None] * s1, X)
        for i in range(H):
            sl = slice(i * d, (i + 1) * d)
            hess[sl, hd + i] += cross[i]
            hess[hd + i, sl] += cross[i]
        return hess

    def expected_data_error(self, mean, cov) -> Expectation:
        """⟨E_D⟩ under N(mean, cov) with its gradients (mean and symmetric d_cov), B&B (20)–(24)."""
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
            raise ValueError("mean and cov must be finite (no NaN or inf)")
        return _moments(mean, cov, self.X, self.t, self.n_hidden, self.n_quad, grad=True)[2]

    def predictive_mean(self, mean, cov, X) -> np.ndarray:
        """⟨f(x)⟩ under Q at new inputs X (same columns as the training X)."""
        return predictive_mean(mean, cov, X, self.n_hidden)

    def predictive_variance(self, mean, cov, X, beta=None) -> np.ndarray:
        """⟨f²⟩ − ⟨f⟩² (+ 1/β if given) under Q at new inputs X."""
        return predictive_variance(mean, cov, X, self.n_hidden, beta, self.n_quad)


__all__ = ["NetworkPosterior", "add_bias", "expected_data_error", "n_weights", "network_jacobian",
           "network_output", "output_moments", "pack_weights", "predictive_mean", "predictive_variance",
           "unpack_weights"]
