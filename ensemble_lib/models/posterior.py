"""The Bayesian regression posterior and the variational bound, model-agnostic.

Barber & Bishop (1998), §1.1 and §2: with Gaussian noise of precision β and an
isotropic Gaussian prior of precision α (``A = αI``),

.. math::
    \\ln P(\\mathbf w, D) = -\\beta E_D(\\mathbf w) - \\tfrac{\\alpha}{2}\\|\\mathbf w\\|^2
        - \\ln Z_D - \\ln Z_P,\\qquad Z_D = (2\\pi/\\beta)^{N/2},\\ Z_P = (2\\pi/\\alpha)^{k/2}

(B&B (3)–(6)). For a Gaussian ``Q = N(w_bar, C)`` the bound (15)/(17) is

.. math::
    F[Q] = H[Q] - \\beta\\langle E_D\\rangle - \\tfrac{\\alpha}{2}(\\|\\bar w\\|^2 + \\operatorname{Tr} C)
           - \\ln Z_D - \\ln Z_P

using the corrected prior term ½ Tr(CA) of eq. (19) (see INDEX.md), and
``KL(Q‖P) = ln P(D) − F[Q]`` (B&B (16)) where ``ln P(D) = ln Z − ln Z_D − ln Z_P``
and ``Z = ∫ exp(−βE_D − (α/2)‖w‖²) dw`` (B&B (7)).

A concrete model subclasses :class:`RegressionPosterior` and supplies the
data error ``E_D`` (B&B (4)), its gradient and Hessian, its expectation under Q
with gradients, and (where it can be computed) the exact ``ln Z``.

Code names: ``alpha`` = α, ``beta`` = β, ``dim`` = k, ``n_data`` = N,
``mean`` = w̄, ``cov`` = C. "Energy" is ``βE_D + (α/2)‖w‖²`` (minus the
unnormalised log posterior).
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..core import validation as check
from ..core.gaussian import LOG_2PI, gaussian_entropy


@dataclass(frozen=True)
class Expectation:
    """An expectation under Q = N(mean, cov) with its gradients.

    ``d_cov`` is the symmetric matrix G with ``df = Σ_ij G_ij dC_ij``.
    """

    value: float
    d_mean: np.ndarray
    d_cov: np.ndarray


def _checked_w(method, single: bool):
    """``method(self, w)`` after ``w`` is checked (real, finite, last dimension k)."""
    @functools.wraps(method)
    def checked(self, w):
        return method(self, self._w(w, single=single))
    return checked


def _mean_cov(post, mean, cov):
    mean, cov = check.mean_cov_shapes(mean, cov, post.dim)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("mean and cov must contain only finite values (no NaN or inf)")
    return mean, cov


def _checked_mean_cov(method):
    """``method(self, mean, cov)`` after the shapes and finiteness of ``mean`` and ``cov`` are checked."""
    @functools.wraps(method)
    def checked(self, mean, cov):
        return method(self, *_mean_cov(self, mean, cov))
    return checked


class RegressionPosterior:
    """Posterior over weights of a Gaussian-noise regression model with prior N(0, I/α).

    Parameters
    ----------
    alpha, beta : float
        Prior precision α and noise precision β, each in [1e-8, 1e8]
        (:data:`ensemble_lib.core.validation.PRECISION_RANGE`; outside it the exact
        ln Z of the toy under- or overflows). A value outside, or not a finite
        real number, raises ``ValueError`` naming ``alpha`` or ``beta``; so does
        :meth:`with_hyperparameters`.
    """

    dim: int
    n_data: int

    def __init_subclass__(cls, **kwargs):
        """Wrap a subclass's own data-error methods with the argument checks of the interface."""
        super().__init_subclass__(**kwargs)
        for name, single in (("data_error", False), ("data_error_grad", True), ("data_error_hessian", True)):
            if name in cls.__dict__:
                setattr(cls, name, _checked_w(cls.__dict__[name], single))
        if "expected_data_error" in cls.__dict__:
            setattr(cls, "expected_data_error", _checked_mean_cov(cls.__dict__["expected_data_error"]))

    def __init__(self, alpha, beta):
        if type(self) is RegressionPosterior:
            raise ValueError("RegressionPosterior is abstract: construct a model's posterior (ToyPosterior, "
                             "LinearGaussianPosterior, NetworkPosterior)")
        self.alpha = check.precision("alpha", alpha)
        self.beta = check.precision("beta", beta)

    def with_hyperparameters(self, alpha=None, beta=None):
        """A copy of this posterior with new α and/or β (same data and model)."""
        new = copy.copy(self)
        # drop cached properties (functools.cached_property stores in __dict__)
        for klass in type(self).__mro__:
            for name, v in vars(klass).items():
                if isinstance(v, cached_property):
                    new.__dict__.pop(name, None)
        if alpha is not None:
            new.alpha = check.precision("alpha", alpha)
        if beta is not None:
            new.beta = check.precision("beta", beta)
        return new

    # -- to be supplied by the model (checked by the wrappers __init_subclass__ puts on them) ------
    def data_error(self, w) -> np.ndarray:
        """E_D(w) = ½ Σ (f(x_n, w) − t_n)² (B&B (4)), vectorised over leading axes of w (finite, (..., k))."""
        self._w(w)
        raise NotImplementedError

    def data_error_grad(self, w) -> np.ndarray:
        """∇E_D at one finite ``w`` of shape (k,)."""
        self._w(w, single=True)
        raise NotImplementedError

    def data_error_hessian(self, w) -> np.ndarray:
        """∇∇E_D at one finite ``w`` of shape (k,)."""
        self._w(w, single=True)
        raise NotImplementedError

    def expected_data_error(self, mean, cov) -> Expectation:
        """⟨E_D⟩ under N(mean, cov) with gradients (B&B (20)–(21)); mean (k,), cov (k, k), finite."""
        _mean_cov(self, mean, cov)
        raise NotImplementedError

    @property
    def log_Z(self) -> float:  # pragma: no cover - abstract
        """ln ∫ exp(−βE_D − (α/2)‖w‖²) dw (B&B (7)), exact."""
        raise NotImplementedError

    # -- the unnormalised log posterior (B&B (6)) ---------------------------
    def _w(self, w, single: bool = False) -> np.ndarray:
        """``w`` checked: real, last dimension k (a single vector if ``single``)."""
        w = check.real_array("w", w)
        if w.ndim == 0 or w.shape[-1] != self.dim or (single and w.ndim != 1):
            want = f"({self.dim},)" if single else f"(..., {self.dim})"
            raise ValueError(f"w must have last dimension {self.dim}: shape {want}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("w must contain only finite values (no NaN or inf)")
        return w

    def log_unnorm(self, w) -> np.ndarray:
        """``−βE_D(w) − (α/2)‖w‖²`` (B&B (6)), vectorised over leading axes of ``w``."""
        w = self._w(w)
        return -self.beta * self.data_error(w) - 0.5 * self.alpha * np.sum(w * w, axis=-1)

    def grad(self, w) -> np.ndarray:
        """Gradient of :meth:`log_unnorm` at a single ``w``."""
        w = self._w(w, single=True)
        return -self.beta * self.data_error_grad(w) - self.alpha * w

    def hessian(self, w) -> np.ndarray:
        """Hessian of :meth:`log_unnorm` at a single ``w`` (minus the H of eq. 11)."""
        w = self._w(w, single=True)
        return -self.beta * self.data_error_hessian(w) - self.alpha * np.eye(self.dim)

    # -- expectations under Q ---------------------------------------------
    def expected_energy(self, mean, cov) -> Expectation:
        """⟨βE_D + (α/2)‖w‖²⟩_Q = β⟨E_D⟩ + (α/2)(‖w̄‖² + Tr C), with gradients."""
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        ed = self.expected_data_error(mean, cov)
        value = self.beta * ed.value + 0.5 * self.alpha * (mean @ mean + np.trace(cov))
        d_mean = self.beta * ed.d_mean + self.alpha * mean
        d_cov = self.beta * ed.d_cov + 0.5 * self.alpha * np.eye(self.dim)
        return Expectation(float(value), d_mean, d_cov)

    @property
    def log_normalisers(self) -> float:
        """``ln Z_D + ln Z_P = (N/2) ln(2π/β) + (k/2) ln(2π/α)`` (B&B (3), (5))."""
        return 0.5 * self.n_data * (LOG_2PI - np.log(self.beta)) + 0.5 * self.dim * (
            LOG_2PI - np.log(self.alpha)
        )

    @property
    def log_evidence(self) -> float:
        """ln P(D | α, β) = ln Z − ln Z_D − ln Z_P (B&B (13)), exact where ln Z is."""
        return self.log_Z - self.log_normalisers

    def bound(self, mean, cov) -> float:
        """The lower bound F[Q] of B&B (15), B&B (17)–(20) for Q = N(mean, cov)."""
        mean, cov = check.mean_cov(mean, cov, self.dim)
        return float(gaussian_entropy(cov) - self.expected_energy(mean, cov).value - self.log_normalisers)

    def kl(self, mean, cov) -> float:
        """KL(Q‖P) (B&B (16)) of Q = N(mean, cov) from the exact normalised posterior."""
        return float(self.log_evidence - self.bound(mean, cov))


__all__ = ["Expectation", "RegressionPosterior"]
