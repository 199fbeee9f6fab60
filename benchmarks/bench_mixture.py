"""Benchmarks of lesson 7: a mixture of Gaussians as Q on the toy (Barber & Bishop 1998, §3, eq. 39).

* one mixture fit (:func:`~ensemble_lib.inference.mixture.mixture_fit`) for K = 2, 3, 4, with the
  entropy by quadrature and with its lower bound, on the paper-like preset, from one of the
  ladder's starts (K = 2: the mirror image added to the K = 1 fit; K = 3, 4: the K − 1 fit's
  heaviest component split in two); the issue's target: ≤ 100 ms for K ≤ 4;
* the whole ladder K = 1 … 4 (what the panel computes for a new α or seed, per entropy; left out
  of quick mode, as the other fits to convergence are);
* one slider step of :class:`~ensemble_lib.lessons.mixture.MixtureExplorer`: K (the fits for an
  (α, seed) are remembered, so this redraws the ellipses, the curves and the title over a kept
  image of the rest), and α with nothing remembered, set by code (``update()``: both ladders
  refitted before anything is shown); target 30 ms (issue 14);
* α moved in a browser, which streams (:meth:`MixtureExplorer.compute_stream`): the first frame
  (since issue 30 the exact posterior alone, before any fit: compute, draw, render, readout; target
  30 ms), the frame after it (both K = 1 fits, the first the student sees fitted) and the whole
  stream with every state drawn (the panel itself draws only one about every 50 ms).

Before and after the speed work (issue 17), side by side on the 2-core machine shared with
other sessions, whose load (1-minute load average, in brackets) changes the times by 3× from
minute to minute; medians:

=============================================  ==================  ==================
case                                           before (ms)         after (ms)
=============================================  ==================  ==================
fit K = 2 / 3 / 4, entropy by quadrature [4]   5.5 / 38 / 63       4.0 / 28 / 43
fit K = 2 / 3 / 4, entropy by quadrature [7]   14 / 89 / 137       7.9 / 64 / 88
fit K = 2 / 3 / 4, entropy's bound [4]         4.8 / 29 / 45       3.9 / 26 / 36
fit K = 2 / 3 / 4, entropy's bound [7]         6.9 / 42 / 72       5.3 / 34 / 57
ladder K = 1 … 4, quadrature / bound [4]       269 / 179           178 / 144
ladder K = 1 … 4, quadrature / bound [7]       571 / 313           308 / 186
panel: K step [7–9]                            110 / 111           12.6 / 11.8
panel: α by code, both ladders, drawn [7–9]    920 / 870           682 / 606
panel: α streamed, first frame [7–9]           (no stream)         169 / 166
panel: α streamed, every state drawn [7–9]     (no stream)         678 / 657
=============================================  ==================  ==================

The fits were timed in one process alternating the old module and the new; the panel in
alternating processes (two runs each). The first frame is mostly the single full-covariance fit
(``kl_fit(post, "full")``, which tries several starts: most of the compute), ``ln Z`` and the one
full draw of the figure per posterior (contours, ticks, legends); later frames and K steps
draw only the ellipses, curves and title over the kept image.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from ensemble_lib.inference.kl_fit import kl_fit
from ensemble_lib.inference.mixture import mixture_fit, mixture_ladder, starts_from
from ensemble_lib.lessons.mixture import MixtureExplorer, MixtureState, fit_mixtures, forget_mixtures
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

from ._panels import panel_cases

FIT_TARGET_MS = 100.0
PANEL_TARGET_MS = 30.0
FIRST_FRAME_TARGET_MS = 30.0  # issue 30: the α first frame ≤ 30 ms, the rest streamed


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


#: α values a stream alternates between (each round forgets the fits first)
_STREAM_ALPHAS = (0.2, 0.2 * 10**0.05)


def _stream_case(whole: bool, frames: int = 1):
    """α moved in a browser: the first ``frames`` frames of the stream, or (``whole``) every state drawn."""

    def setup():
        panel = MixtureExplorer()
        panel.update()
        return {"panel": panel, "i": 0}

    def step(ctx):
        panel = ctx["panel"]
        ctx["i"] = (ctx["i"] + 1) % len(_STREAM_ALPHAS)
        forget_mixtures()
        states = panel.compute_stream(**{**panel.values(), "alpha": _STREAM_ALPHAS[ctx["i"]]})
        for n, state in enumerate(states, 1):
            panel.draw(state)
            panel.render()
            panel.format_readout(state)
            if not whole and n == frames:
                break

    return setup, step, FIRST_FRAME_TARGET_MS if not whole and frames == 1 else None


CASES = {
    **{f"fit_K{K}_{e}": _fit_case(K, e) for e in ("quadrature", "bound") for K in (2, 3, 4)},
    "ladder_K1_to_4_quadrature_to_convergence": _ladder_case("quadrature"),
    "ladder_K1_to_4_bound_to_convergence": _ladder_case("bound"),
    **panel_cases("MixtureExplorer", "mixture_explorer_K", "K", [2, 4], PANEL_TARGET_MS),
    **panel_cases("MixtureExplorer", "mixture_explorer_alpha_refit", "alpha",
                  [0.2, 0.2 * 10**0.05], PANEL_TARGET_MS, make_panel=_RefitEveryStep),
    "mixture_explorer_alpha_stream_first_frame": _stream_case(whole=False),
    "mixture_explorer_alpha_stream_to_k1_fits": _stream_case(whole=False, frames=2),
    "mixture_explorer_alpha_stream_complete": _stream_case(whole=True),
}
