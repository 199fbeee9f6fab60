"""Benchmarks of lesson 3: the hyperparameter runs and one slider step of each panel.

Targets (issue 4): a full hyperparameter run on the toy (≤ 50 outer
iterations) ≤ 500 ms; one slider step ≤ 50 ms.
"""

from __future__ import annotations

from ensemble_lib.bound_lesson import BoundPanel, HyperIterationPanel, compare_hyperparameters, make_toy
from ensemble_lib.evidence import evidence_reestimation
from ensemble_lib.hyperparameters import GammaHyperprior, fit_hyperparameters


def _toy():
    return make_toy()


def _gamma_run(post):
    fit_hyperparameters(post, GammaHyperprior(), family="full", max_iter=50)


def _evidence_run(post):
    evidence_reestimation(post, alpha0=100.0, beta0=100.0, symmetry_factor=2, max_iter=50)


def _bound_panel():
    panel = BoundPanel()
    panel.update()
    return {"panel": panel, "k": 0}


def _bound_step(ctx):
    ctx["k"] += 1
    ctx["panel"].controls["mean_u"].value = -0.25 - 0.01 * (ctx["k"] % 2)


def _hyper_panel():
    panel = HyperIterationPanel(compare_hyperparameters(n_grid=3))
    panel.update()
    return {"panel": panel, "k": 0}


def _hyper_step(ctx):
    ctx["k"] += 1
    ctx["panel"].controls["iteration"].value = ctx["k"] % 2 + 1


CASES = {
    "gamma_run_toy_full": (_toy, _gamma_run, 500.0),
    "evidence_run_toy": (_toy, _evidence_run, 500.0),
    "bound_panel_step": (_bound_panel, _bound_step, 50.0),
    "iteration_panel_step": (_hyper_panel, _hyper_step, 50.0),
}
