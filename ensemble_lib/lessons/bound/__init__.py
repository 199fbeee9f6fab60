"""Lesson 3: the lower bound, and learning α and β — ensemble learning vs MacKay's evidence.

Barber & Bishop (1998), §2 eqs (15)–(16), Fig. 1 and §2.2 eqs (27)–(38); MacKay (1995),
"Probable networks", §3 eqs (18)–(25) and §9.1.

One module per part, in the notebook's order (``notebooks/03_bound_and_hyperparameters.ipynb``):

==========================  =====================================================================
module                      topic
==========================  =====================================================================
:mod:`.bound_panel`         §1–2 on the toy: the bound and KL(Q‖P) (:class:`BoundPanel`) and Fig. 1
:mod:`.hyper_iterations`    §3–4 on the toy: the Gamma-hyperprior and evidence iterations beside the
                            exact maximiser (:class:`HyperIterationPanel`) and their figure
:mod:`.hyper_reestimation`  §5 on a linear model: cheap and cheerful re-estimation (MacKay §9.1)
                            and the error bars on ln α (MacKay (25)) against the exact curve
:mod:`.cheap_sweep`         §5's sweep stored (``figures/cheap_sweep.json``, ``load_cheap_comparison``)
                            and the command that recomputes it (not imported here: it is a command)
:mod:`.exercises`           the lesson's exercises and their checks (:data:`EXERCISES`)
:mod:`.figures`             :func:`write_figures`: ``bound_fig1.png``, ``hyperparameter_trajectories.png``,
                            ``cheap_reestimation.png``
==========================  =====================================================================

Every public name (what the notebook uses) is re-exported here, so ``from ensemble_lib.lessons.bound import X``
works for each; the modules' own helpers (``plot_bound_bars``, ``plot_cheap``, …) are imported from them.
"""

from .bound_panel import (LOG10_SD_RANGE, METHOD_COLORS, METHOD_STYLES, RHO_MAX, SNAP_CHOICES, BoundDecomposition,
                          BoundPanel, bound_decomposition, bound_figure, decomposition_table, gaussian_from_sliders,
                          make_toy, sliders_from_gaussian)
from .exercises import BOSTON_PRIOR, EXERCISES
from .figures import write_figures  # noqa: F401 - the figures command's (lessons.figures), not in __all__
from .hyper_iterations import (HyperIterationPanel, HyperparameterComparison, IterationState, compare_hyperparameters,
                               trajectories_figure)
from .hyper_reestimation import (CHEAP_CASE, ERRORBAR_CASES, FAR_COUNTS, CheapComparison, LogAlphaCase,
                                 bumps_posterior, cheap_comparison, cheap_table, log_alpha_cases, log_alpha_table,
                                 reestimation_figure)

__all__ = ["BOSTON_PRIOR", "CHEAP_CASE", "ERRORBAR_CASES", "EXERCISES", "FAR_COUNTS", "LOG10_SD_RANGE",
           "METHOD_COLORS", "METHOD_STYLES", "RHO_MAX", "SNAP_CHOICES", "BoundDecomposition", "BoundPanel",
           "CheapComparison", "HyperIterationPanel", "HyperparameterComparison", "IterationState", "LogAlphaCase",
           "bound_decomposition", "bound_figure", "bumps_posterior", "cheap_comparison", "cheap_table",
           "compare_hyperparameters", "decomposition_table", "gaussian_from_sliders", "log_alpha_cases",
           "log_alpha_table", "make_toy", "reestimation_figure", "sliders_from_gaussian", "trajectories_figure"]
