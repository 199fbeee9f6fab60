# ruff: noqa: F401
"""Lesson 4: ensemble learning for real networks — the 1-D demo panel, its figure, and Table 1's figures.

Barber & Bishop (1998) §2.1–2.3; MacKay (1995) "Probable networks" §5.2
(predictive error bars gᵀA⁻¹g + 1/β). The fits live in
:mod:`ensemble_lib.inference.network_fits`, the demo's data, fits and stored fits in
:mod:`ensemble_lib.studies.network_demo`, the Table-1 study in :mod:`ensemble_lib.studies.table1`.

One module per part, in the notebook's order (``notebooks/04_ensemble_learning_for_networks.ipynb``):

==========================  =====================================================================
module                      part
==========================  =====================================================================
:mod:`.demo_panel`          :class:`Network1DPanel` (:func:`~ensemble_lib.studies.network_demo.demo_fit`):
                            the 1-D regression demo (sliders H, s, α or "adapt hyperparameters"),
                            ensemble vs Laplace error bars; its figure and readout
:mod:`.table1_plots`        :func:`table_figure`, :func:`pruning_figure`: the stored Table-1 study
                            re-plotted
:mod:`.sentences`           :func:`opening_sentence`, :func:`hmc_convergence_note`,
                            :func:`table1_text`: the lesson's sentences and tables written from the
                            computed values when the lesson runs (issue 29)
:mod:`.retraining`          :func:`retraining_table`, :func:`retraining_figure`: §8, cheap predictive
                            distributions by noisy retraining (MacKay §9.2), from
                            :mod:`ensemble_lib.studies.retraining_demo`
:mod:`.exercises`           :data:`EXERCISES`: the lesson's five exercises and their checks
:mod:`.figures`             :func:`write_figures`: ``network_1d_demo.png``, ``boston_table1.png``,
                            ``table1_pruning.png``
==========================  =====================================================================

Every name stays importable from here (``from ensemble_lib.lessons.networks import X``). A test that
replaces a function the panel calls replaces it in :mod:`.demo_panel`, where the panel looks it up.
"""

# every name stays importable from here (the figures command, the tests, the benchmarks: ruff F401
# is off for this file); __all__ is what the notebook uses
# the demo's names a lesson-4 reader finds here (they live in ensemble_lib.studies.network_demo)
from ...studies.network_demo import (DEMO_BETA, DEMO_DEFAULTS, DEMO_NOISE_SD, DEMO_SEED, DEMO_STORE_FILE, H_RANGE,
                                     LOG10_ALPHA_RANGE, S_RANGE, DemoState, demo_data, demo_fit, load_demo_store)
from .demo_panel import (MISFIT_FACTOR, Network1DPanel, data_misfit, demo_figure, explain_note, format_demo_readout,
                         load_hmc_demo, misfit_note)
from .exercises import EXERCISES
from .figures import write_figures
from .retraining import plot_retraining, retraining_figure, retraining_table
from .sentences import R_HAT_CONVERGED, hmc_convergence_note, opening_sentence, table1_text
from .table1_plots import FAMILY_STYLES, TABLE_BARS, plot_pruning, plot_table, pruning_figure, table_figure

#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["DEMO_BETA", "DEMO_DEFAULTS", "DEMO_NOISE_SD", "DEMO_SEED", "DEMO_STORE_FILE", "EXERCISES",
           "H_RANGE", "LOG10_ALPHA_RANGE", "MISFIT_FACTOR", "R_HAT_CONVERGED", "S_RANGE", "DemoState",
           "Network1DPanel", "demo_data", "demo_fit", "demo_figure", "hmc_convergence_note",
           "load_demo_store", "opening_sentence", "pruning_figure", "retraining_figure", "retraining_table",
           "table1_text", "table_figure"]
