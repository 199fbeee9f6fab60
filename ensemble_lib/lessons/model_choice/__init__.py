# ruff: noqa: F401
"""Lesson 6: choosing the model — evidence, the strict lower bound, ARD, pruning, committees, priors.

MacKay (1995), "Probable networks", §1.5–1.8 (Occam factors), §3.2 (classes), §4 (eq. 30),
§4.1 (H! 2^H), §5.2.2 (error bars with uncertain α, β), §5.3 (committees), §6 (pruning), §7 (ARD),
§8 (priors over functions); Barber & Bishop (1998) §2.2 (F*, a strict lower bound on ln P(D)).

One module per topic, in the notebook's order (``notebooks/06_choosing_the_model.ipynb``):

==========================  =====================================================================
module                      topic
==========================  =====================================================================
:mod:`.occam`               Occam's razor where everything is exact: polynomials and the toy
:mod:`.occam_store`         its two tables stored (``figures/occam_tables.json``; a command, not imported here)
:mod:`.local_mass`          Laplace's evidence as a basin's mass (§4.1) against the exact mass (the toy)
:mod:`.network_size`        which network size: the stored study on Boston and diabetes
:mod:`.ard_boston`          ARD on Boston, one α per input (the stored study)
:mod:`.committees`          committees of optima beside the ensemble and HMC (the stored study)
:mod:`.hyper_error_bars`    error bars with uncertain α, β (§5.2.2) beside the exact integration
:mod:`.noise_inputs`        ARD with a slider for the number of pure-noise inputs
                            (:class:`NoiseInputsPanel`)
:mod:`.pruning`             pruning by evidence (§6) beside OBD; the stored Boston pruning study
:mod:`.prior_functions`     priors over functions (:class:`PriorFunctionsPanel`)
:mod:`.exercises`           the lesson's exercises and their checks (:data:`EXERCISES`)
:mod:`.figures`             :func:`write_figures`: ``model_size.png``, ``ard_boston.png``,
                            ``occam_polynomial.png``, ``hyper_error_bars.png``,
                            ``pruning_evidence.png``
==========================  =====================================================================

The maths they stage lives in the library (:mod:`ensemble_lib.inference.model_comparison`,
:mod:`ensemble_lib.inference.evidence`, :mod:`ensemble_lib.inference.ard`); every public name is
re-exported here, so ``from ensemble_lib.lessons.model_choice import X`` works for each.
"""

# every name stays importable from here (the figures command, the tests: ruff F401 is off for this
# file); __all__ is what the notebook uses
from .ard_boston import ard_arrays, ard_figure, format_ard_inputs, format_ard_splits, plot_ard
from .committees import committee_rows, format_committees
from .exercises import EXERCISES, ex3_formula_sd, ex4_numbers, ex5_gaps
from .figures import write_figures
from .hyper_error_bars import (X_ERRORBARS, HyperErrorBarDemo, NetworkErrorBars, boston_network_error_bars,
                               format_hyper_error_bars, hyper_error_bar_demo, hyper_error_bar_figure,
                               plot_hyper_error_bars)
from .local_mass import format_local_mass, local_mass_figure, local_mass_rows, local_mass_sentence
from .network_size import format_size, model_size_figure, plot_model_size, size_rows
from .noise_inputs import (ARD_LIMIT, NOISE_MAX, NoiseARDState, NoiseInputsPanel, format_noise_summary, noise_ard,
                           noise_summary, real_inputs_switched_off)
from .occam import (OCCAM_PRIOR, OccamRow, format_occam, occam_figure, plot_occam, polynomial_data,
                    polynomial_design, polynomial_occam, toy_occam)
from .prior_functions import N_FUNCTIONS, X_PRIOR, PriorFunctionsPanel, PriorState, prior_functions
from .pruning import (format_pruning, format_pruning_study, plot_pruning_study, pruning_demo, pruning_network,
                      pruning_study_figure, pruning_study_rows)

__all__ = ["EXERCISES", "ARD_LIMIT", "NOISE_MAX", "N_FUNCTIONS", "OCCAM_PRIOR", "X_ERRORBARS", "X_PRIOR",
           "NoiseInputsPanel", "PriorFunctionsPanel", "ard_arrays", "ard_figure",
           "boston_network_error_bars", "committee_rows", "format_ard_inputs", "format_ard_splits",
           "format_committees", "format_hyper_error_bars", "format_local_mass", "format_noise_summary", "format_occam",
           "format_pruning", "format_pruning_study", "format_size", "hyper_error_bar_demo",
           "hyper_error_bar_figure", "local_mass_figure", "local_mass_rows", "local_mass_sentence",
           "model_size_figure", "noise_summary", "occam_figure",
           "polynomial_occam", "pruning_demo", "pruning_network", "pruning_study_figure",
           "pruning_study_rows", "real_inputs_switched_off", "toy_occam"]
