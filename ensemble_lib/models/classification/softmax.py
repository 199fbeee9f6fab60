"""Several classes: the softmax (MacKay (16)) and its log likelihood with the gradient."""

from __future__ import annotations


import numpy as np
from scipy.special import logsumexp

from ...core import validation as check

# ---------------------------------------------------------------------------
# Multi-class: the softmax (MacKay (16))
# ---------------------------------------------------------------------------


def log_softmax(a) -> np.ndarray:
    """``ln y_i = a_i − ln Σ_i' exp(a_i')`` over the last axis (MacKay (16)), stable for any finite a."""
    a = check.finite_array("a", a)
    if a.ndim == 0:
        raise ValueError("a must have at least one axis (the classes are its last axis), got a number")
    return a - logsumexp(a, axis=-1, keepdims=True)


def softmax_log_likelihood(W, x, T) -> tuple[float, np.ndarray]:
    """``G(W) = Σ_m Σ_i t_i ln y_i(x_m; W)`` with the softmax of MacKay (16) and its gradient.

    Activations ``a_i = W[:, i]·x`` (a linear softmax network, I classes).

    Parameters
    ----------
    W : array_like, shape (k, I)
        Weights, one column per class (I ≥ 2), finite.
    x : array_like, shape (N, k)
        Inputs, finite, N ≥ 1.
    T : array_like, shape (N, I)
        One-hot targets: each row has a single 1 and zeros elsewhere (MacKay §2.4).

    Returns
    -------
    value : float
    grad : ndarray, shape (k, I)
        ``∂G/∂W = xᵀ (T − Y)``.

    Notes
    -----
    For I = 2, ``y_1 = σ(a_1 − a_0)``: MacKay (17) with ``w = W[:, 1] − W[:, 0]``.
    """
    x = check.finite_matrix("x", x, shape="(N, k)")
    W = check.finite_matrix("W", W, shape="(k, I)")
    if W.shape[0] != x.shape[1] or W.shape[1] < 2:
        raise ValueError(f"W must have shape ({x.shape[1]}, I) with I ≥ 2 classes, got {W.shape}")
    T = check.finite_matrix("T", T, shape="(N, I)")
    if T.shape != (x.shape[0], W.shape[1]):
        raise ValueError(f"T must have shape {(x.shape[0], W.shape[1])} (one row per input, one "
                         f"column per class), got {T.shape}")
    if not (np.all((T == 0.0) | (T == 1.0)) and np.all(T.sum(axis=1) == 1.0)):
        raise ValueError("T must be one-hot: each row a single 1 and zeros elsewhere")
    log_y = x @ W
    log_y = log_y - logsumexp(log_y, axis=-1, keepdims=True)
    value = float(np.sum(T * log_y))
    grad = x.T @ (T - np.exp(log_y))
    return value, grad


__all__ = ["log_softmax", "softmax_log_likelihood"]
