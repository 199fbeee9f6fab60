# ruff: noqa: F401
"""Lesson 7: a mixture of Gaussians as Q — closing the two-mode gap on the toy (B&B §3, eq. 39).

One module per part, in the notebook's order (``notebooks/07_mixture_of_gaussians.ipynb``):

==========================  =====================================================================
module                      part
==========================  =====================================================================
:mod:`.comparison`          :func:`fit_mixtures` fits mixtures of K = 1 … 4 full-covariance
                            Gaussians to one toy posterior twice — minimising KL(Q‖P) with the
                            entropy by quadrature, and with its Bhattacharyya lower bound
                            (:mod:`ensemble_lib.inference.mixture`); :func:`iter_mixtures` gives
                            the same fits as they come (the panel streams them); the tables
                            (:func:`format_ladder`, :func:`ladder_table`, :func:`entropy_table`),
                            the notebook's independent check of a mixture's KL
                            (:func:`mixture_kl_by_quadrature`), :func:`plot_mixture` and
                            :func:`plot_ladder`
:mod:`.explorer`            the interactive panel :class:`MixtureExplorer` (K, α, data seed): K
                            redraws over a kept image of the rest; a new α or seed shows the exact
                            posterior first, then the K = 1 fits and the ladders as they fill in
:mod:`.symmetry`            the stretch: a small network's symmetric modes
                            (:func:`network_symmetry_demo`)
:mod:`.exercises`           the lesson's exercises and their checks (:data:`EXERCISES`)
:mod:`.figures`             :func:`write_figures`: ``figures/mixture_fits.png``
==========================  =====================================================================

Fits are shown as they come out; the posterior is symmetric under (u, v) → (−u, −v), so a
fit's mirror image has the same KL. Every name stays importable from here
(``from ensemble_lib.lessons.mixture import X``).
"""

# every name stays importable from here (the figures command, the tests, the benchmarks: ruff F401
# is off for this file); __all__ is what the notebook uses
from .comparison import (ALPHA_RANGE, COLOR_BOUND, COLOR_QUADRATURE, ENTROPY_SEPARATIONS, K_MAX, LADDER_CURVES,
                         LN2_LINE, PANEL_REACH, SEED_RANGE, MixtureComparison, _REMEMBERED, entropy_table,
                         fit_mixtures, forget_mixtures, format_ladder, iter_mixtures, kl_check_table, ladder_table,
                         mixture_kl_by_quadrature, mixtures_for, panel_extent, plot_ladder, plot_mixture,
                         posterior_only, two_gaussians, view_extent)
from .exercises import EX1_ALPHA, EX1_SEED, EX2_NOISE, EX2_POSTERIOR, EX4_LAMBDAS, EXERCISES
from .explorer import LN2_TOLERANCE, MixtureExplorer, MixtureState, off_story_note
from .figures import mixtures_figure, plot_comparison, write_figures
from .symmetry import NetworkSymmetryDemo, network_demo_data, network_symmetry_demo, symmetry_maps, symmetry_table

#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["EXERCISES", "EX1_ALPHA", "EX1_SEED", "K_MAX", "LN2_TOLERANCE", "MixtureExplorer", "MixtureState",
           "entropy_table", "fit_mixtures", "forget_mixtures", "kl_check_table", "ladder_table",
           "mixtures_for", "network_symmetry_demo", "plot_comparison", "symmetry_table"]
