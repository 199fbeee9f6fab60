"""Benchmarks of lesson 7: a mixture of Gaussians as Q on the toy (Barber & Bishop 1998, §3, eq. 39).

* one mixture fit (:func:`~ensemble_lib.inference.mixture.mixture_fit`) for K = 2, 3, 4, with the
  entropy by quadrature and with its lower bound, on the paper-like preset, from one of the
  ladder's starts (K = 2: the mirror image added to the K = 1 fit; K = 3, 4: the K − 1 fit's
  heaviest component split in two); the issue's target: ≤ 100 ms for K ≤ 4;
* the whole ladder K = 1 … 4 (what the panel computes for a new α or seed, per entropy; left out
  of quick mode, as the other fits to convergence are);
* one slider step of :class:`~ensemble_lib.lessons.mixture.MixtureExplorer`: K (the fits for an
  (α, seed) are remembered, so this redraws only) and α with nothing remembered (a panel whose
  compute refits both ladders every time, as for an (α, seed) not seen before); target 50 ms,
  as for the other panels.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from ensemble_lib.inference.kl_fit import kl_fit
from ensemble_lib.inference.mixture import mixture_fit, mixture_ladder, starts_from
from ensemble_lib.lessons.mixture import MixtureExplorer, MixtureState, fit_mixtures
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

from ._panels import panel_cases

FIT_TARGET_MS = 100.0
PANEL_TARGET_MS = 50.0


@lru_cache(maxsize=2)
def _base(entropy: str):
    """(posterior, its single full-covariance fit, the ladder K = 1 … 3): shared by the fit cases."""
    post = make_posterior(**PAPER_PRESET)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = kl_fit(post, "full")
    return post, single, mixture_ladder(post, 3, entropy, single=single)


def _start(K: int, entropy: str):
    """(posterior, a start of the K-component fit): for K = 2 the mirror image added to the K = 1
    fit (the start that wins), for K = 3, 4 the K − 1 fit's heaviest component split in two."""
    post, single, lad = _base(entropy)
    starts = starts_from(lad.fits[K - 2], single)
    return post, starts[0] if K == 2 else starts[1]


def _fit_case(K: int, entropy: str):
    def setup():
        return _start(K, entropy)

    def step(ctx):
        post, start = ctx
        mixture_fit(post, start, entropy)

    return setup, step, FIT_TARGET_MS


def _ladder_case(entropy: str):
    def setup():
        post = make_posterior(**PAPER_PRESET)
        return post, kl_fit(post, "full")

    def step(ctx):
        post, single = ctx
        mixture_ladder(post, 4, entropy, single=single)

    return setup, step, None


class _RefitEveryStep(MixtureExplorer):
    """The lesson's panel without its memory of earlier (α, seed): every step refits."""

    def compute(self, K, alpha, seed):
        post = make_posterior(seed, alpha, PAPER_PRESET["noise_sd"], PAPER_PRESET["n"])
        return MixtureState(fit_mixtures(post), K)


CASES = {
    **{f"fit_K{K}_{e}": _fit_case(K, e) for e in ("quadrature", "bound") for K in (2, 3, 4)},
    "ladder_K1_to_4_quadrature_to_convergence": _ladder_case("quadrature"),
    "ladder_K1_to_4_bound_to_convergence": _ladder_case("bound"),
    **panel_cases("MixtureExplorer", "mixture_explorer_K", "K", [2, 4], PANEL_TARGET_MS),
    **panel_cases("MixtureExplorer", "mixture_explorer_alpha_refit", "alpha",
                  [0.2, 0.2 * 10**0.05], PANEL_TARGET_MS, make_panel=_RefitEveryStep),
}
