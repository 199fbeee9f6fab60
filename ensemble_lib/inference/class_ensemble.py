"""The ensemble bound with one Gamma posterior per class of weights (Barber & Bishop (1998) §2.2, extended).

B&B (27)–(38) with one Gamma posterior ``R_c(α_c) = Gamma(r_c, s_c)`` per class (the classes
and prior of :mod:`ensemble_lib.inference.class_prior`), with ``r_c = k_c/2 + a`` and
``1/s_c = W_c/2 + 1/b``, ``W_c = Σ_{i∈c}(w̄_i² + C_ii)``, so ``ᾱ_c = r_c s_c``. Substituting the
optimal R_c and S gives the collapsed bound

.. math::
    F^*(Q) = H[Q] - \\textstyle\\sum_c r_c\\ln(\\tfrac12 W_c + \\tfrac1b)
             - u\\ln(\\langle E_D\\rangle + \\tfrac1d) + c_0,

``c_0 = Σ_c[ln Γ(r_c) − ln Γ(a) − a ln b] + ln Γ(u) − ln Γ(c) − c ln d − ((N+k)/2) ln 2π``
(:class:`ClassCollapsedBound`: :class:`~.network_fits.CollapsedBound`, the one-class case, with one
``r_c``, ``W_c`` and ``ᾱ_c`` per class), maximised over Gaussian Q by :func:`fit_class_ensemble`.

Symbols → code: a, b, c, d → :class:`~.hyperparameters.GammaHyperprior`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.gaussian import CovarianceFamily
from .hyperparameters import GammaHyperprior
from .network_fits import CollapsedBound, fit_family
from .class_prior import check_classes

# ---------------------------------------------------------------------------
# The ensemble bound with one Gamma posterior per class
# ---------------------------------------------------------------------------


class ClassCollapsedBound(CollapsedBound):
    """F*(Q) = max over R_c(α_c), S(β) of F[Q, {R_c}, S] (module docstring), in ``kl_fit``'s interface.

    :class:`~ensemble_lib.inference.network_fits.CollapsedBound` with one Gamma posterior
    R_c per class: ``r``, ``W`` and ᾱ (:meth:`hyperparameters`) have one entry per class, and
    ``expected_energy`` is ``Σ_c r_c ln(W_c/2 + 1/b) + u ln(⟨E_D⟩ + 1/d)``, ``log_normalisers = −c_0``,
    so ``kl_fit(...).bound`` and :meth:`bound` are F*(Q). With one class it is ``CollapsedBound``.
    """

    def __init__(self, post, classes, prior: GammaHyperprior | None = None):
        super().__init__(post, GammaHyperprior() if prior is None else prior)
        self.classes = check_classes(classes, self.dim)
        self.n_classes = len(self.classes)
        self.sizes = np.array([c.size for c in self.classes])
        self.r = 0.5 * self.sizes + self.prior.a

    def _W(self, mean, cov) -> np.ndarray:
        """``W_c = Σ_{i∈c}(w̄_i² + C_ii)``, one per class."""
        d = np.diag(cov)
        return np.array([float(mean[idx] @ mean[idx] + np.sum(d[idx])) for idx in self.classes])

    def _alpha_per_weight(self, alpha) -> np.ndarray:
        avec = np.empty(self.dim)
        for a, idx in zip(alpha, self.classes):
            avec[idx] = a
        return avec


@dataclass(frozen=True)
class ClassEnsembleFit:
    """An ensemble fit with one Gamma posterior per weight class (``alphas`` = ᾱ_c)."""

    mean: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    alphas: np.ndarray
    beta: float
    bound: float
    family: str
    rank: int
    converged: bool
    n_iter: int
    theta: np.ndarray = field(repr=False, default=None)
    at_limit: bool = False


def fit_class_ensemble(post, classes, prior: GammaHyperprior | None = None, family: str = "diagonal",
                       rank: int | None = None, init=None, warm=None, gtol: float = 1e-6,
                       maxiter: int = 3000, rng: np.random.Generator | None = None
                       ) -> ClassEnsembleFit:
    """Maximise the multi-class bound F* over Gaussian Q of a family (:class:`ClassCollapsedBound`).

    Arguments as :func:`~ensemble_lib.inference.network_fits.fit_ensemble`, plus ``classes``.
    """
    cb = ClassCollapsedBound(post, classes, prior)
    CovarianceFamily.make(family, cb.dim, rank)
    fit = fit_family(cb, family, rank, init=init, warm=warm, gtol=gtol, maxiter=maxiter, rng=rng)
    alphas, beta = cb.hyperparameters(fit.mean, fit.cov)
    return ClassEnsembleFit(mean=fit.mean, cov=fit.cov, alphas=np.asarray(alphas), beta=float(beta),
                            bound=float(fit.bound), family=fit.family, rank=fit.rank,
                            converged=fit.converged, n_iter=fit.n_iter, theta=fit.theta,
                            at_limit=fit.at_limit)


__all__ = ["ClassCollapsedBound", "ClassEnsembleFit", "fit_class_ensemble"]
