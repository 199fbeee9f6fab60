"""The two-layer erf network f(x, w) (Barber & Bishop (1998), §1.1, B&B (1)), its weights and Jacobian.

.. math:: f(\\mathbf x, \\mathbf w) = \\sum_{i=1}^H v_i\\,\\sigma(\\mathbf u_i^T\\mathbf x),
          \\qquad \\sigma(a) = \\operatorname{erf}(a/\\sqrt2)\\ \\text{(B&B (2))},

with a hidden-unit bias obtained by appending a constant input 1 (:func:`add_bias`).
``w`` is one vector of length ``k = H·d + H`` (``d`` = number of inputs *including* any
appended bias column), ``w = [u_1 (d entries), …, u_H (d), v_1, …, v_H]``
(:func:`pack_weights`, :func:`unpack_weights`); :mod:`ensemble_lib.models.network` says more.

Code names: ``n_hidden`` = H, ``X`` = inputs (N × d), ``w`` = weights.
"""

from __future__ import annotations


import numpy as np

from ..core import validation as check
from .erf_network import SQRT_2_OVER_PI, sigma

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


__all__ = ["add_bias", "n_weights", "network_jacobian", "network_output", "pack_weights", "unpack_weights"]
