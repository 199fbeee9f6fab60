"""Mixture fits for K = 1, 2, … components, each warm-started from K − 1 (Barber & Bishop (1998), §3).

K = 1 is the full-covariance KL fit (:func:`~ensemble_lib.inference.kl_fit.kl_fit`); each K is
warm-started from the K − 1 fit by adding, with weight 1/K, the single-Gaussian fit's mirror
image ``(−w̄, C)`` (for K = 2: the toy's posterior is symmetric under w → −w) or the
single-Gaussian fit itself (K ≥ 3), or by splitting the heaviest component in two along its
long axis (:func:`starts_from`); the best wins, and if none beats the K − 1 fit that fit is kept
(written with K components by :func:`embed`: one component split in two identical halves is
the same Q), so the fitted KL never rises with K. Each fit is
:func:`~ensemble_lib.inference.mixture_fit.mixture_fit`'s.

Code names: ``weights`` = π, ``means`` = w̄_i, ``covs`` = C_i, ``K`` = number of
components.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..core import validation as check
from .kl_fit import KLFit, KLFitWarning, kl_fit
from .mixture_entropy import FIT_SPACING, K_MAX, MixtureParams
from .mixture_fit import MixtureFit, _check_options, _evaluate, _minimise, _optimise

#: a K-component fit beats the K − 1 fit outright when its objective is lower by more than this
#: (the same Q written with K components differs from the K − 1 fit by round-off only)
_SAME_Q_TOL = 1e-9


def _split(weights, means, covs, i):
    """Component i split in two along its long axis (means ±½ s.d., that variance × ¾), half weight each."""
    vals, vecs = np.linalg.eigh(covs[i])
    step = 0.5 * np.sqrt(vals[-1]) * vecs[:, -1]
    C = covs[i] - 0.25 * vals[-1] * np.outer(vecs[:, -1], vecs[:, -1])
    w = np.concatenate([np.delete(weights, i), [weights[i] / 2, weights[i] / 2]])
    m = np.concatenate([np.delete(means, i, axis=0), [means[i] + step, means[i] - step]])
    c = np.concatenate([np.delete(covs, i, axis=0), [C, C]])
    return w, m, c


def _add(weights, means, covs, mean, cov):
    """A new component (mean, cov) with weight 1/K; the others scaled by (K − 1)/K."""
    K = weights.size + 1
    return (np.concatenate([weights * (K - 1) / K, [1.0 / K]]), np.vstack([means, mean]),
            np.concatenate([covs, [cov]]))


def embed(fit: MixtureFit):
    """The same Q with one more component: the heaviest split into two identical halves."""
    if not isinstance(fit, MixtureFit):
        raise ValueError(f"fit must be a MixtureFit, got {type(fit).__name__}")
    i = int(np.argmax(fit.weights))
    w = np.concatenate([fit.weights, [fit.weights[i] / 2]])
    w[i] /= 2
    return w, np.vstack([fit.means, fit.means[i]]), np.concatenate([fit.covs, [fit.covs[i]]])


def starts_from(previous: MixtureFit, single: KLFit) -> list:
    """Starts for K + 1 components from the K-component fit ``previous``.

    The single-Gaussian fit's mirror image ``(−w̄, C)`` (for K = 1, the other mode
    of the toy's symmetric posterior) or, from K = 2 on, the single-Gaussian fit
    itself, added with weight 1/(K + 1); and the heaviest component split in two
    along its long axis.
    """
    if not isinstance(previous, MixtureFit):
        raise ValueError(f"previous must be a MixtureFit, got {type(previous).__name__}")
    if not isinstance(single, KLFit) or single.mean.shape != previous.means.shape[1:]:
        raise ValueError(f"single must be a KLFit of the same posterior (a single-Gaussian fit), "
                         f"got {type(single).__name__}")
    w, m, c = previous.weights, previous.means, previous.covs
    new = -single.mean if previous.K == 1 else single.mean
    i = int(np.argmax(w))
    return [_add(w, m, c, new, single.cov), _split(w, m, c, i)]


@dataclass(frozen=True)
class MixtureLadder:
    """Mixture fits for K = 1 … K_max, each warm-started from K − 1 (:func:`mixture_ladder`)."""

    single: KLFit
    fits: tuple  # MixtureFit for K = 1, 2, ...
    entropy: str

    @property
    def kl(self) -> np.ndarray:
        return np.array([f.kl for f in self.fits])

    @property
    def kl_bound(self) -> np.ndarray:
        return np.array([f.kl_bound for f in self.fits])


def _check_ladder(post, K_max, entropy, single, spacing, gtol, maxiter):
    post, entropy, spacing, gtol, maxiter = _check_options(post, entropy, spacing, gtol, maxiter)
    K_max = check.integer("K_max", K_max, low=1, high=K_MAX)
    if single is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KLFitWarning)
            single = kl_fit(post, "full")
    elif not isinstance(single, KLFit) or single.mean.shape != (post.dim,):
        raise ValueError(f"single must be a KLFit of this posterior (a single-Gaussian fit), "
                         f"got {type(single).__name__}")
    return post, K_max, entropy, single, spacing, gtol, maxiter


def _ladder_steps(post, K_max, entropy, single, spacing, gtol, maxiter) -> Iterator[MixtureLadder]:
    """:func:`iter_mixture_ladder` on checked arguments."""
    params = MixtureParams(1, post.dim)
    fits = [_optimise(post, params, params.pack([1.0], [single.mean], [single.cov]), entropy, spacing,
                      gtol, maxiter)]
    yield MixtureLadder(single=single, fits=tuple(fits), entropy=entropy)
    for K in range(2, K_max + 1):
        params = MixtureParams(K, post.dim)
        runs = [_minimise(post, params, params.pack(*start), entropy, spacing, gtol, maxiter)
                for start in starts_from(fits[-1], single)]
        theta, value, nit, g = min(runs, key=lambda run: run[1])  # the best by the fit's own objective
        best = _evaluate(post, params, theta, entropy, spacing, nit, gtol, g)
        # the K − 1 fit written with K components is the same Q: its objective is the K − 1 fit's
        # (to round-off, ~1e-14), so it is evaluated only when the comparison is that close
        if not best.objective < fits[-1].objective - _SAME_Q_TOL:
            kept = _evaluate(post, params, params.pack(*embed(fits[-1])), entropy, spacing, 0, gtol)
            best = best if best.objective < kept.objective else kept
        fits.append(best)
        yield MixtureLadder(single=single, fits=tuple(fits), entropy=entropy)


def iter_mixture_ladder(post, K_max: int = 4, entropy: str = "quadrature", single: KLFit | None = None,
                        spacing: float = FIT_SPACING, gtol: float = 1e-6,
                        maxiter: int = 2000) -> Iterator[MixtureLadder]:
    """:func:`mixture_ladder` as it goes: the ladder K = 1 … k after each k = 1 … ``K_max``.

    Arguments are checked (and ``single`` fitted, if not given) at the call; the
    fits are made as the iterator is advanced. The last item is :func:`mixture_ladder`'s
    result, and each earlier one is the start of it (the same fit objects' values).
    """
    return _ladder_steps(*_check_ladder(post, K_max, entropy, single, spacing, gtol, maxiter))


def mixture_ladder(post, K_max: int = 4, entropy: str = "quadrature", single: KLFit | None = None,
                   spacing: float = FIT_SPACING, gtol: float = 1e-6, maxiter: int = 2000) -> MixtureLadder:
    """Fits for K = 1 … ``K_max`` (1 to :data:`K_MAX`), each K warm-started from K − 1.

    K = 1 starts from the full-covariance fit ``single`` (default
    ``kl_fit(post, "full")``), which it reproduces. For K ≥ 2 every start of
    :func:`starts_from` is optimised and the lowest :attr:`MixtureFit.objective`
    wins; if none is below the K − 1 fit's (written with K components by
    :func:`embed`: the same Q), that one is kept, so the objective never rises with K.
    (:func:`iter_mixture_ladder` gives the ladder after each K.)
    """
    ladder = None
    for ladder in iter_mixture_ladder(post, K_max, entropy, single, spacing, gtol, maxiter):
        pass
    return ladder


__all__ = ["MixtureLadder", "embed", "iter_mixture_ladder", "mixture_ladder", "starts_from"]
