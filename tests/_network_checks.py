"""Helpers the erf network's tests share (tests/models/test_network*.py, test_psi_integral.py).

An explicit loop for f(x, w), random problems (inputs with a bias column, targets, a mean and a full
covariance of Q), central differences in a vector and in a symmetric covariance, and relative errors.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf


def sig(a):
    return erf(np.asarray(a) / np.sqrt(2.0))


def random_problem(rng, H, d, N, scale=1.0):
    """Random inputs (last column a bias), targets, a mean and a full covariance of Q."""
    X = rng.normal(size=(N, d))
    if d > 1:
        X[:, -1] = 1.0
    t = rng.normal(size=N)
    k = H * d + H
    mean = np.concatenate([rng.normal(size=H * d) / np.sqrt(d), 1.5 * rng.normal(size=H)])
    A = rng.normal(size=(k, k)) / np.sqrt(k)
    D = np.diag(np.concatenate([np.full(H * d, scale / np.sqrt(d)), np.full(H, 0.6)]))
    cov = D @ (A @ A.T + 0.3 * np.eye(k)) @ D
    return X, t, mean, 0.5 * (cov + cov.T)


def explicit_output(w, X, H):
    """f(x, w) = Σ_i v_i σ(u_iᵀx) by an explicit loop over units and points."""
    N, d = X.shape
    out = np.zeros(N)
    for n in range(N):
        for i in range(H):
            u_i = w[i * d:(i + 1) * d]
            out[n] += w[H * d + i] * sig(u_i @ X[n])
    return out


def central_grad(fun, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (fun(x + e) - fun(x - e)) / (2 * eps)
    return g


def central_cov_grad(fun, cov, eps=1e-6):
    """Symmetric G with df = Σ G_ij dC_ij, by perturbing C_ij and C_ji together."""
    k = cov.shape[0]
    G = np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            E = np.zeros((k, k))
            E[i, j] = E[j, i] = eps
            dd = (fun(cov + E) - fun(cov - E)) / (2 * eps)
            G[i, j] = G[j, i] = dd if i == j else 0.5 * dd
    return G


def rel_err(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))
