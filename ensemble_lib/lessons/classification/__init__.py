# ruff: noqa: F401
"""Lesson 8: classification with an exact answer — MacKay's single neuron (MacKay §2.3–2.5, §5.4).

The sequel of lesson 1 for a classifier: the exact posterior of MacKay's neuron (MacKay (17), two
weights, no bias, prior N(0, I/α)) on a grid with its normaliser, Laplace's Gaussian and the
KL-optimal diagonal and full Gaussians on it (B&B (9)–(20)), and the predictive probabilities of
MacKay's Fig. 9 (a neuron with a bias): best fit, exact, MacKay's moderated output and each
Gaussian's.

One module per part, in the notebook's order (``notebooks/08_classification.ipynb``):

==========================  =====================================================================
module                      part
==========================  =====================================================================
:mod:`.neuron`              :func:`neuron_state`: the data as they arrive (the first ``n`` of one
                            draw, :func:`~ensemble_lib.studies.classification_demo.neuron_data`) and
                            the posterior with its three Gaussians; :func:`plot_arrival` (Fig. 7:
                            the posterior concentrating as data arrive); :class:`NeuronPanel`
                            (sliders N, α, seed; contours, ellipses, KL and F live)
:mod:`.fig9`                :func:`fig9_state`, :func:`plot_fig9` and :class:`ModeratedPanel`:
                            Fig. 9's contours (stored exact predictive,
                            :mod:`ensemble_lib.studies.classification_demo`) and a test point moved
                            along the best fit's 0.9 contour away from the data
:mod:`.softmax`             several classes: :func:`softmax_demo` (MacKay (16))
:mod:`.exercises`           :data:`EXERCISES`: the lesson's four exercises
:mod:`.figures`             :func:`write_figures`: ``figures/classification_fig7.png`` and
                            ``classification_fig9.png``
==========================  =====================================================================

Every name stays importable from here (``from ensemble_lib.lessons.classification import X``).
"""

# every name stays importable from here (the figures command, the tests, the benchmarks: ruff F401
# is off for this file); __all__ is what the notebook uses
from .exercises import EXERCISES
from .fig9 import (B_DISTANCE, DISTANCE_STEP, PREDICTIVE_LABELS, PREDICTIVES, SHORT_LABELS, Fig9State, ModeratedPanel,
                   ModeratedState, fig9_figure, fig9_sentence, fig9_state, fig9_table, plot_fig9, predictive_at)
from .figures import write_figures
from .neuron import (ALPHA_RANGE, ARRIVAL_NS, BOUNDARY_STYLE, DEFAULTS, INPUT_SD, N_RANGE, SEED_RANGE, W_LIMITS,
                     X_LIMITS, X_TITLE, NeuronPanel, NeuronState, arrival_figure, evidence_sentence, fits_table,
                     kl_ranking, neuron_figure, neuron_state, plot_arrival, plot_neuron)
from .softmax import softmax_demo

#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["DEFAULTS", "EXERCISES", "ModeratedPanel", "NeuronPanel", "arrival_figure", "evidence_sentence",
           "fig9_figure", "fig9_sentence", "fig9_state", "fig9_table", "fits_table", "neuron_figure",
           "neuron_state", "softmax_demo"]
