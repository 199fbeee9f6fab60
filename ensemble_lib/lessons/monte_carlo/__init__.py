"""Lesson 9: Monte Carlo as an inference method (``notebooks/09_monte_carlo.ipynb``).

Barber & Bishop (1998) §1.3 (eq. 14) write the predictive distribution as an
integral over the posterior, ``P(t | x, D) = ∫ P(t | x, w) P(w | D) dw``, and
name three ways to do it: Laplace's Gaussian, ensemble learning, and Monte
Carlo — averaging over draws from the posterior. MacKay's "Probable networks"
§4.1 warns that a network posterior has many modes and §5.4 mentions Monte
Carlo for predictions.

One module per part:

==================  =============================================================================
module              topic
==================  =============================================================================
:mod:`.estimates`   the exact and Gaussian answers (:func:`exact_predictive_mean`,
                    :func:`gaussian_predictive_mean`), the draws against the exact posterior
                    (:func:`fold`, :func:`marginal_tests`), the running estimate, ArviZ's
                    :func:`diagnostics`, the :func:`leapfrog` and the stored runs (:func:`toy_runs`)
:mod:`.panels`      :class:`MonteCarloPanel`, :class:`LeapfrogPanel` and :func:`where_it_opens`
:mod:`.tables`      the lesson's tables, :func:`plot_draws`, :func:`plot_boston_traces` and
                    :func:`write_figures` (``monte_carlo_draws.png``)
:mod:`.exercises`   the lesson's exercises and their checks (:data:`EXERCISES`)
==================  =============================================================================

Every public name (what the notebook uses) is re-exported here, so ``from ensemble_lib.lessons.monte_carlo
import X`` works for each; the modules' own helpers (``folded_marginals``, ``leap_state``) are imported from them.
"""

from ...studies.toy_hmc import SWEEP_LENGTHS, SWEEP_STEPS  # noqa: F401 - the panels' stored settings
from .estimates import (LEAP_MOMENTUM, LEAP_START, N_OPTIONS, ToyRuns, diagnostics, draws_needed,
                        exact_predictive_mean, fold, gaussian_predictive_mean, leapfrog, marginal_tests,
                        running_estimate, toy_runs)
from .exercises import EXERCISES
from .panels import LeapfrogPanel, LeapState, MCState, MonteCarloPanel, where_it_opens
from .tables import (chain_table, cost_summary, cost_table, diagnostics_table, estimate_table, plot_boston_traces,
                     plot_draws, replicate_table, sweep_table)
from .tables import write_figures  # noqa: F401 - the figures command's (lessons.figures), not in __all__

__all__ = ["EXERCISES", "chain_table", "cost_summary", "cost_table", "diagnostics_table", "estimate_table",
           "replicate_table", "sweep_table", "LEAP_MOMENTUM", "LEAP_START", "LeapState", "LeapfrogPanel", "MCState",
           "MonteCarloPanel", "N_OPTIONS", "ToyRuns", "diagnostics", "draws_needed",
           "exact_predictive_mean", "fold", "gaussian_predictive_mean", "leapfrog",
           "marginal_tests", "plot_boston_traces", "plot_draws", "running_estimate", "toy_runs",
           "where_it_opens"]
