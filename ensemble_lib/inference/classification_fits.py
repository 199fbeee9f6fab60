"""Laplace and ensemble-learning Gaussians for MacKay's single neuron, and its moderated outputs.

For the posterior of :class:`~ensemble_lib.models.classification.LogisticPosterior`
(MacKay (17) with the prior N(0, I/α)) this module fits, with the library's general
:func:`~ensemble_lib.inference.laplace.laplace_fit` and :func:`~ensemble_lib.inference.kl_fit.kl_fit`
(the posterior offers their interface):

* Laplace's Gaussian N(w_MP, A⁻¹) at the mode (B&B (9)–(12)), with its evidence (MacKay (20));
* the KL-optimal diagonal and full Gaussians (B&B (16)–(20)), each with KL(Q‖P) to the exact
  grid posterior and its bound F[Q];

and compares ``ln P(D|α)`` exact, Laplace and F (:class:`ClassificationFits`). Warm starts
(the previous slider step's fits) keep a panel step fast. :func:`predictive_maps` gives the
predictive probability of class 1 over a plane of inputs for the contours of MacKay's Fig. 9:
the best fit σ(w_MP·x), MacKay's moderated output, each Gaussian's predictive and the exact one.

Symbols → code: ``w_MP`` = ``laplace.mean``, A = ``laplace.hessian``, ``a_MP`` = ``a_mp``,
``s²`` = ``s2``, α = ``post.alpha``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import validation as check
from ..models.classification import LogisticPosterior, logistic, moderated_output, predictive_probability
from .kl_fit import KLFit, kl_fit
from .laplace import LaplaceFit, laplace_fit

#: The probability levels of MacKay's Fig. 9 contours.
CONTOUR_LEVELS = (0.1, 0.5, 0.9)


@dataclass(frozen=True)
class ClassificationFits:
    """Laplace's Gaussian and the KL-optimal diagonal and full Gaussians of one posterior.

    Attributes
    ----------
    laplace, diagonal, full : LaplaceFit, KLFit, KLFit
        Each with ``kl`` (KL(Q‖P) to the exact posterior) and ``bound`` (F[Q]).
    log_evidence : float
        The exact ln P(D|α) (grid, :class:`~ensemble_lib.models.classification.ClassificationGrid`).
    log_evidence_laplace : float
        Laplace's approximation (MacKay (20)). Usually below ``log_evidence`` (the likelihood
        flattens away from the mode, so the posterior's tails hold more mass than N(w_MP, A⁻¹)),
        but not always: with nearly separable data and a small α the mode lies far out, the
        curvature σ(a)σ(−a) grows towards the decision boundary, and Laplace overestimates
        (tests/inference/test_classification_fits.py has an example, +0.089 nats).
    alpha : float
        The prior precision the fits are for.
    """

    laplace: LaplaceFit
    diagonal: KLFit
    full: KLFit
    log_evidence: float
    log_evidence_laplace: float
    alpha: float

    @property
    def kls(self) -> dict[str, float]:
        """``{"laplace": …, "diagonal": …, "full": …}``: KL(Q‖P) of each Gaussian."""
        return {"laplace": self.laplace.kl, "diagonal": self.diagonal.kl, "full": self.full.kl}

    @property
    def bounds(self) -> dict[str, float]:
        """F[Q] of each Gaussian (each ≤ :attr:`log_evidence`)."""
        return {"laplace": self.laplace.bound, "diagonal": self.diagonal.bound, "full": self.full.bound}


def fit_classification(post: LogisticPosterior, warm: ClassificationFits | None = None,
                       gtol: float = 1e-8) -> ClassificationFits:
    """Laplace's Gaussian (B&B (9)–(12)) and the KL-optimal diagonal and full Gaussians (B&B (16)–(20)).

    Parameters
    ----------
    post : LogisticPosterior
        MacKay's neuron (MacKay (17)) with its data and α.
    warm : ClassificationFits, optional
        The fits of a nearby problem (the previous slider step) of the same dimension: each
        family starts from its own previous Gaussian (the full family also from this step's
        diagonal fit, so KL(full) ≤ KL(diagonal) always holds).
    gtol : float
        Gradient tolerance of the KL fits (> 0).

    Notes
    -----
    Cold starts: the diagonal fit from the mode with variances 1/A_ii and from the diagonal of
    A⁻¹; the full fit from Laplace's Gaussian and from the diagonal fit. The posterior is
    log-concave, so KL(Q‖P) of a Gaussian has one minimum per family (no mirror modes, unlike
    the regression toy).
    """
    if not isinstance(post, LogisticPosterior):
        raise ValueError(f"post must be a LogisticPosterior, got {type(post).__name__}")
    gtol = check.positive("gtol", gtol, upper=1e-2)
    if warm is not None and (not isinstance(warm, ClassificationFits) or warm.full.mean.shape != (post.dim,)):
        raise ValueError(f"warm must be the ClassificationFits of a posterior with k = {post.dim} weights")
    lap = laplace_fit(post, start=post.mode if warm is None else warm.laplace.mean)
    if warm is None:
        diag_init = [lap.diagonal_start(), (lap.mean, np.diag(np.diag(lap.cov)))]
    else:
        diag_init = [(warm.diagonal.mean, warm.diagonal.cov)]
    diagonal = kl_fit(post, "diagonal", init=diag_init, gtol=gtol, laplace=lap)
    full_init = [(diagonal.mean, diagonal.cov)]
    full_init.append((lap.mean, lap.cov) if warm is None else (warm.full.mean, warm.full.cov))
    full = kl_fit(post, "full", init=full_init, gtol=gtol, laplace=lap)
    return ClassificationFits(lap, diagonal, full, post.log_evidence, lap.log_evidence_laplace, post.alpha)


@dataclass(frozen=True)
class PredictiveMaps:
    """P(t = 1 | x, D) over a plane of inputs, for the 0.1/0.5/0.9 contours of MacKay's Fig. 9.

    Each field has shape ``(len(x2), len(x1))`` (rows x₂, columns x₁), ready for
    ``ax.contour(x1, x2, field, levels=levels)``.

    Attributes
    ----------
    x1, x2 : the input axes
    best_fit : σ(w_MP·x), the most probable weights' output (MacKay Fig. 9b)
    moderated : MacKay's moderated output σ(κ(s) a_MP), s² = xᵀA⁻¹x (MacKay §5.4)
    laplace, diagonal, full : the predictive E_Q[σ(w·x)] of each Gaussian, by 1-D quadrature
    exact : the exact Bayesian predictive on the grid posterior (MacKay Fig. 9f)
    levels : (0.1, 0.5, 0.9)
    """

    x1: np.ndarray
    x2: np.ndarray
    best_fit: np.ndarray
    moderated: np.ndarray
    laplace: np.ndarray
    diagonal: np.ndarray
    full: np.ndarray
    exact: np.ndarray
    levels: tuple = CONTOUR_LEVELS


def gaussian_predictive(mean, cov, x) -> np.ndarray:
    """``P(t = 1 | x, Q) = E_Q[σ(w·x)]`` for Q = N(mean, cov) at inputs x (M, k) (MacKay §5.4).

    ``w·x ~ N(mean·x, xᵀ cov x)`` under Q, so each is the 1-D integral
    :func:`~ensemble_lib.models.classification.predictive_probability`.
    """
    mean = check.finite_vector("mean", mean)
    mean, cov = check.mean_cov(mean, cov, mean.size)
    x = np.atleast_2d(check.finite_array("x", x))
    if x.ndim != 2 or x.shape[1] != mean.size:
        raise ValueError(f"x must have shape (M, {mean.size}) or ({mean.size},), got {x.shape}")
    return predictive_probability(x @ mean, np.maximum(np.einsum("mi,ij,mj->m", x, cov, x), 0.0))


def predictive_maps(post: LogisticPosterior, fits: ClassificationFits, x1, x2,
                    bias: float | None = None, exact: bool = True) -> PredictiveMaps:
    """Every predictive of MacKay §5.4 on the plane ``x1 × x2`` (the contours of MacKay's Fig. 9).

    Parameters
    ----------
    post, fits : the posterior and :func:`fit_classification` of it
    x1, x2 : array_like
        Input axes (finite, at least 2 values each); the plane has ``len(x1) × len(x2)`` points.
    bias : float, optional
        The constant input appended to (x₁, x₂) when ``post`` has a bias weight (k = 3).
    exact : bool
        Also the exact predictive on the grid posterior (the slowest field; nan if False).
    """
    if not isinstance(post, LogisticPosterior):
        raise ValueError(f"post must be a LogisticPosterior, got {type(post).__name__}")
    if not isinstance(fits, ClassificationFits) or fits.full.mean.shape != (post.dim,):
        raise ValueError(f"fits must be the ClassificationFits of this posterior (fit_classification(post)), "
                         f"got {type(fits).__name__}")
    x1 = check.finite_vector("x1", x1, min_len=2)
    x2 = check.finite_vector("x2", x2, min_len=2)
    want_bias = post.dim == 3
    if want_bias != (bias is not None) or post.dim not in (2, 3):
        raise ValueError(f"bias must be given exactly when the neuron has a bias weight (k = 3); "
                         f"this posterior has k = {post.dim}")
    X1, X2 = np.meshgrid(x1, x2)
    cols = [X1.ravel(), X2.ravel()]
    if want_bias:
        cols.append(np.full(X1.size, check.real("bias", bias)))
    X = np.column_stack(cols)
    shape = X1.shape
    lap = fits.laplace
    a_mp = X @ lap.mean
    s2 = np.maximum(np.einsum("mi,ij,mj->m", X, lap.cov, X), 0.0)
    maps = {
        "best_fit": logistic(a_mp),
        "moderated": moderated_output(a_mp, s2),
        "laplace": predictive_probability(a_mp, s2),
        "diagonal": gaussian_predictive(fits.diagonal.mean, fits.diagonal.cov, X),
        "full": gaussian_predictive(fits.full.mean, fits.full.cov, X),
        "exact": post.predictive(X) if check.flag("exact", exact) else np.full(X1.size, np.nan),
    }
    return PredictiveMaps(x1, x2, **{k: v.reshape(shape) for k, v in maps.items()})


__all__ = ["CONTOUR_LEVELS", "ClassificationFits", "PredictiveMaps", "fit_classification", "gaussian_predictive",
           "predictive_maps"]
