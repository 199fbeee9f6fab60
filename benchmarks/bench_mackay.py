"""Benchmarks of lesson 2 (MacKay 1995, the Gaussian's mean and σ).

* one slider step of :class:`~ensemble_lib.mackay_lesson.EnsemblePanel`
  (recompute + redraw + PNG, as the kernel does it when a slider moves), for
  the sweep slider k and for the data sliders N and S (target ≤ 30 ms);
* the compute alone (two 15-sweep runs: MacKay's and the conjugate one);
* the exact posterior on a 201 × 201 grid in (μ, ln σ), normalised by quadrature;
* a long run of the separable ensemble (1000 sweeps).
"""

from __future__ import annotations

from ensemble_lib.mackay_gaussian import FIG1
from ensemble_lib.mackay_lesson import EnsemblePanel

#: the issue's target for one slider step
STEP_TARGET_MS = 30.0


def _slider_case(name, values):
    """Each step moves ``name`` to the next of ``values`` (so every step really recomputes)."""

    def setup():
        panel = EnsemblePanel()
        panel.update()
        return {"panel": panel, "i": 0}

    def step(ctx):
        ctx["i"] += 1
        ctx["panel"].controls[name].value = values[ctx["i"] % len(values)]

    return setup, step, STEP_TARGET_MS


def _compute_setup():
    panel = EnsemblePanel()
    return panel, panel.values()


def _compute(ctx):
    panel, values = ctx
    panel.compute(**values)


CASES = {
    "panel_step_k": _slider_case("k", [1, 2, 3, 0]),
    "panel_step_N": _slider_case("N", [5, 6, 7, 8]),
    "panel_step_S": _slider_case("S", [1.0, 2.0, 0.5]),
    "panel_compute_only": (_compute_setup, _compute, None),
    "posterior_grid_201x201": (lambda: FIG1, lambda m: m.posterior_grid(201, 201), None),
    "ensemble_1000_sweeps": (lambda: FIG1, lambda m: m.ensemble_iterations(1.0, 1000), None),
}
