"""Benchmarks of the toy fits (Barber & Bishop 1998, §2.1, Fig. 2), the lesson panels and SVI.

* the fits of lesson 1 to convergence on the 6-point paper-like preset:
  Laplace (eqs 9–12), diagonal, full and factor (s = 1, eq. 26) KL fits
  (the issue's target: ≤ 5 ms for diagonal and full);
* one slider step of lesson 1's :class:`~ensemble_lib.lessons.toy_posterior.ToyExplorer`
  (α and the data seed) and of lesson 5's :class:`~ensemble_lib.lessons.stochastic_vi.SVIExplorer`
  (step size), compute and draw timed separately and together
  (:mod:`benchmarks._panels`; target ≤ 50 ms per step);
* SVI runs (:func:`~ensemble_lib.svi.svi_fit`): the panel's run and the
  notebook's 3000-step runs with S = 1 and 16.
"""

from __future__ import annotations

import numpy as np

from ensemble_lib.inference.kl_fit import kl_fit
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.svi import svi_fit
from ensemble_lib.lessons.stochastic_vi import (DEFAULT_KAPPA, DEFAULT_STEP, DEFAULT_TAU,
                                                LESSON_START, N_ITER)
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

from ._panels import panel_cases

#: the issue's targets
FIT_TARGET_MS = 5.0
PANEL_TARGET_MS = 50.0


def _posterior():
    return make_posterior(**PAPER_PRESET)


def _fit_case(family, rank=None, target=None):
    def step(post):
        kl_fit(post, family, rank=rank)

    return _posterior, step, target


def _laplace_step(post):
    laplace_fit(post)


def _svi_case(n_samples, schedule, n_iter):
    def step(post):
        svi_fit(post, "full", rng=np.random.default_rng(0), n_samples=n_samples, step_size=DEFAULT_STEP,
                schedule=schedule, n_iter=n_iter, tau=DEFAULT_TAU, kappa=DEFAULT_KAPPA,
                kl_every=n_iter, init=LESSON_START)

    return _posterior, step, None


CASES = {
    # lesson 1's fits to convergence on the preset (N = 6, β = 100, α = 0.2)
    "fit_laplace": (_posterior, _laplace_step, None),
    "fit_diagonal": _fit_case("diagonal", target=FIT_TARGET_MS),
    "fit_full": _fit_case("full", target=FIT_TARGET_MS),
    "fit_factor_s1": _fit_case("factor", rank=1),
    # one slider step of each panel
    **panel_cases("ToyExplorer", "toy_explorer_alpha", "alpha", [0.2, 0.2 * 10**0.05], PANEL_TARGET_MS),
    **panel_cases("ToyExplorer", "toy_explorer_seed", "seed", [25, 26], PANEL_TARGET_MS),
    **panel_cases("SVIExplorer", "svi_explorer_step_size", "step_size",
                  [DEFAULT_STEP, DEFAULT_STEP * 10**0.1], PANEL_TARGET_MS),
    # SVI runs (exact KL recorded only at the end)
    f"svi_full_S1_decaying_{N_ITER}": _svi_case(1, "decaying", N_ITER),
    f"svi_full_S16_decaying_{N_ITER}": _svi_case(16, "decaying", N_ITER),
}
