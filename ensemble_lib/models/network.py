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
moments per pair and data point is in :mod:`ensemble_lib.models.psi_integral`. ``⟨v_i σ(a_i)⟩`` is
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

Its parts live in three modules, whose public names this one re-exports; the posterior of the
network's weights, :class:`NetworkPosterior`, is here:

* :mod:`ensemble_lib.models.network_function` — the network, its weights' packing and Jacobian;
* :mod:`ensemble_lib.models.psi_integral` — Ψ and its mean-derivatives by the angle rule;
* :mod:`ensemble_lib.models.network_moments` — ⟨E_D⟩, ⟨f⟩, ⟨f²⟩ under Q with their gradients.
"""

from __future__ import annotations

import numpy as np

from ..core import validation as check
from .erf_network import SQRT_2_OVER_PI
from .posterior import Expectation, RegressionPosterior
from .network_function import (_MAX_HIDDEN, _check_inputs, _check_w, _forward, add_bias, n_weights,
                               network_jacobian, network_output, pack_weights, unpack_weights)
from .network_moments import (N_QUAD_DEFAULT, _moments, _outer_rows, expected_data_error, output_moments,
                              predictive_mean, predictive_variance)


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
        X = np.array(X, dtype=float)  # its own copy, read-only: the x_n x_nᵀ kept below stay true
        X.setflags(write=False)
        self.X, self.t = X, t
        self._XX = None
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
        if self._XX is None:
            self._XX = _outer_rows(self.X)
        return _moments(mean, cov, self.X, self.t, self.n_hidden, self.n_quad, grad=True, XX=self._XX)[2]

    def predictive_mean(self, mean, cov, X) -> np.ndarray:
        """⟨f(x)⟩ under Q at new inputs X (same columns as the training X)."""
        return predictive_mean(mean, cov, X, self.n_hidden)

    def predictive_variance(self, mean, cov, X, beta=None) -> np.ndarray:
        """⟨f²⟩ − ⟨f⟩² (+ 1/β if given) under Q at new inputs X."""
        return predictive_variance(mean, cov, X, self.n_hidden, beta, self.n_quad)


__all__ = ["NetworkPosterior", "add_bias", "expected_data_error", "n_weights", "network_jacobian",
           "network_output", "output_moments", "pack_weights", "predictive_mean", "predictive_variance",
           "unpack_weights"]
