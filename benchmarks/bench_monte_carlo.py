"""Lesson 9's panels (:mod:`ensemble_lib.lessons.monte_carlo`): one slider step of each.

* :class:`~ensemble_lib.lessons.monte_carlo.MonteCarloPanel`: the draws per chain moved across the stored
  running estimates (the dots and the marker are redrawn over a cached background);
* :class:`~ensemble_lib.lessons.monte_carlo.LeapfrogPanel`: the step size moved across the stored library
  runs (the leapfrog trajectory is integrated live, at most 20 gradient evaluations).

Issue 32's target: each step ≤ 30 ms.
"""

from __future__ import annotations

from ensemble_lib.lessons.monte_carlo import N_OPTIONS
from ensemble_lib.studies.toy_hmc import SWEEP_STEPS

from ._panels import panel_cases

PANEL_TARGET_MS = 30.0

CASES = {
    **panel_cases("MonteCarloPanel", "mc_panel_n", "n", list(N_OPTIONS), PANEL_TARGET_MS),
    **panel_cases("LeapfrogPanel", "leapfrog_panel_eps", "eps", list(SWEEP_STEPS), PANEL_TARGET_MS),
}
