"""Benchmarks of lesson 3: the hyperparameter runs and one slider step of each panel.

Targets (issue 4): a full hyperparameter run on the toy (≤ 50 outer
iterations) ≤ 500 ms; one slider step ≤ 50 ms.
"""

from __future__ import annotations

from ensemble_lib.lessons.bound import HyperIterationPanel, compare_hyperparameters, make_toy
from ensemble_lib.inference.evidence import evidence_reestimation
from ensemble_lib.inference.hyperparameters import GammaHyperprior, fit_hyperparameters

from ._panels import panel_cases


def _toy():
    return make_toy()


def _gamma_run(post):
    fit_hyperparameters(post, GammaHyperprior(), family="full", max_iter=50)


def _evidence_run(post):
    evidence_reestimation(post, alpha0=100.0, beta0=100.0, symmetry_factor=2, max_iter=50)


def _hyper_panel():
    return HyperIterationPanel(compare_hyperparameters(n_grid=3))


CASES = {
    "gamma_run_toy_full": (_toy, _gamma_run, 500.0),
    "evidence_run_toy": (_toy, _evidence_run, 500.0),
    # one slider step of each panel, compute and draw separately (benchmarks._panels)
    **panel_cases("BoundPanel", "bound_panel_mean_u", "mean_u", [-0.25, -0.26], 30.0),
    **panel_cases("BoundPanel", "bound_panel_rho", "rho", [-0.5, -0.6], 30.0),
    **panel_cases("HyperIterationPanel", "iteration_panel", "iteration", [1, 2], 30.0,
                  make_panel=_hyper_panel),
}
