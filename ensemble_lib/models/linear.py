"""An exactly Gaussian posterior: a model linear in its weights, ``f(x; w) = φ(x)ᵀw``.

With ``E_D = ½‖Φw − t‖²`` and prior N(0, I/α) the posterior is
``N(A⁻¹βΦᵀt, A⁻¹)`` with ``A = αI + βΦᵀΦ`` (Bishop 1995; MacKay 1992).
Everything the toy computes by quadrature is closed form here, which makes
it the reference case: Laplace's Gaussian, the full-covariance KL fit and the
exact posterior coincide, with KL = 0; a diagonal Q has variances 1/A_ii.

Code names: ``Phi`` = design matrix Φ (N × k), ``t`` = targets, ``A`` = posterior precision.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..core import validation as check
from ..core.gaussian import LOG_2PI, GaussianFactor
from .posterior import Expectation, RegressionPosterior


class LinearGaussianPosterior(RegressionPosterior):
    """Posterior of a linear-in-w model with Gaussian noise and prior: exactly Gaussian."""

    def __init__(self, Phi, t, alpha, beta):
        super().__init__(alpha, beta)
        Phi = check.finite_matrix("Phi", Phi, shape="(N, k)")
        t = check.finite_vector("t", t)
        if t.size != Phi.shape[0]:
            raise ValueError(f"t must have length N = {Phi.shape[0]}, got {t.size}")
        self.Phi, self.t = Phi, t
        self.n_data, self.dim = Phi.shape

    @cached_property
    def precision(self) -> np.ndarray:
        """A = αI + βΦᵀΦ."""
        return self.alpha * np.eye(self.dim) + self.beta * self.Phi.T @ self.Phi

    @cached_property
    def precision_factor(self) -> GaussianFactor:
        """The one Cholesky factorisation of A, shared by the mean, A⁻¹ and ln|A|."""
        return GaussianFactor(self.precision, "precision")

    @cached_property
    def mean(self) -> np.ndarray:
        """Posterior mean A⁻¹βΦᵀt."""
        return self.precision_factor.solve(self.beta * self.Phi.T @ self.t)

    @cached_property
    def cov(self) -> np.ndarray:
        """Posterior covariance A⁻¹."""
        return self.precision_factor.inverse()

    def data_error(self, w) -> np.ndarray:
        r = np.asarray(w, dtype=float) @ self.Phi.T - self.t
        return 0.5 * np.sum(r * r, axis=-1)

    def data_error_grad(self, w) -> np.ndarray:
        return self.Phi.T @ (self.Phi @ np.asarray(w, dtype=float) - self.t)

    def data_error_hessian(self, w) -> np.ndarray:
        return self.Phi.T @ self.Phi

    def expected_data_error(self, mean, cov) -> Expectation:
        """⟨E_D⟩ = ½‖Φw̄ − t‖² + ½ Tr(ΦᵀΦ C), exactly."""
        mean = np.asarray(mean, dtype=float)
        cov = np.asarray(cov, dtype=float)
        PtP = self.Phi.T @ self.Phi
        r = self.Phi @ mean - self.t
        return Expectation(0.5 * float(r @ r) + 0.5 * float(np.sum(PtP * cov)), self.Phi.T @ r, 0.5 * PtP)

    @cached_property
    def log_Z(self) -> float:
        """ln ∫ exp(−βE_D − (α/2)‖w‖²) dw, completing the square."""
        m = self.mean
        phi_min = self.beta * self.data_error(m) + 0.5 * self.alpha * float(m @ m)
        return float(-phi_min + 0.5 * self.dim * LOG_2PI - 0.5 * self.precision_factor.log_det)


__all__ = ["LinearGaussianPosterior"]
