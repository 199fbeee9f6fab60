"""Benchmarks of lesson 2 (MacKay 1995, the Gaussian's mean and σ).

* one slider step of :class:`~ensemble_lib.lessons.mean_sigma.EnsemblePanel`
  (recompute + redraw + PNG, as the kernel does it when a slider moves), for
  the sweep slider k and for the data sliders N and S (target ≤ 30 ms);
  with the compute (two 15-sweep runs: MacKay's and the conjugate one) and the
  draw timed separately (:mod:`benchmarks._panels`);
* the exact posterior on a 201 × 201 grid in (μ, ln σ), normalised by quadrature;
* a long run of the separable ensemble (1000 sweeps).
"""

from __future__ import annotations

from ensemble_lib.models.mackay_gaussian import FIG1

from ._panels import panel_cases

#: the issue's target for one slider step
STEP_TARGET_MS = 30.0


CASES = {
    **panel_cases("EnsemblePanel", "panel_k", "k", [1, 2, 3, 0], STEP_TARGET_MS),
    **panel_cases("EnsemblePanel", "panel_N", "N", [5, 6, 7, 8], STEP_TARGET_MS),
    **panel_cases("EnsemblePanel", "panel_S", "S", [1.0, 2.0, 0.5], STEP_TARGET_MS),
    "posterior_grid_201x201": (lambda: FIG1, lambda m: m.posterior_grid(201, 201), None),
    "ensemble_1000_sweeps": (lambda: FIG1, lambda m: m.ensemble_iterations(1.0, 1000), None),
}
