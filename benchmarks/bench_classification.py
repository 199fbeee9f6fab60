"""Benchmarks of lesson 8: MacKay's single neuron (MacKay §2.3–2.5, §5.4).

* one slider step of :class:`~ensemble_lib.lessons.classification.NeuronPanel` (N across its range,
  α across its stored values), with the panel's memory of shown settings switched off so every
  step reads its setting from the stored slider grid
  (``figures/classification_neuron_fits.npz``), builds the posterior, its 61 × 61 contour grid,
  the contours, the ellipses and the readout; target 30 ms (issue 33);
* the same setting fitted now (:func:`~ensemble_lib.inference.classification_fits.fit_classification`,
  warm-started from the neighbouring N, plus the exact grid's ln Z): what a value typed between
  the slider's stored values costs, and what every step cost before the store;
* one step of :class:`~ensemble_lib.lessons.classification.ModeratedPanel` (the test point moved
  along the 0.9 contour: the stored exact predictive, one marker redrawn over the kept image).
"""

from __future__ import annotations

from ensemble_lib.inference.classification_fits import fit_classification
from ensemble_lib.lessons.classification import NeuronPanel
from ensemble_lib.studies.classification_demo import neuron_posterior

from ._panels import panel_cases

PANEL_TARGET_MS = 30.0


class _NoMemo(NeuronPanel):
    """The lesson's panel without its memory of shown settings: every step reads the store."""

    MEMO_SIZE = 0


def _live_fit_case():
    def setup():
        return {"warm": fit_classification(neuron_posterior(9, 1.0, 0)), "i": 0}

    def step(ctx):
        ctx["i"] += 1
        post = neuron_posterior(10, 1.0 + 1e-6 * ctx["i"], 0)  # a new α each round: nothing remembered
        fit_classification(post, warm=ctx["warm"])

    return setup, step, None


CASES = {
    **panel_cases("NeuronPanel", "neuron_panel_n", "n", list(range(1, 31)), PANEL_TARGET_MS, make_panel=_NoMemo),
    **panel_cases("NeuronPanel", "neuron_panel_alpha", "alpha", [10 ** (k / 2) for k in range(-2, 3)],
                  PANEL_TARGET_MS, make_panel=_NoMemo),
    "neuron_fit_now_warm": _live_fit_case(),
    **panel_cases("ModeratedPanel", "moderated_panel_distance", "distance", [0.25 * k for k in range(25)],
                  PANEL_TARGET_MS),
}
