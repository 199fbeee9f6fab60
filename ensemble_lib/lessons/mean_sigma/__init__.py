# ruff: noqa: F401
"""Lesson 2: MacKay (1995) — a Gaussian's mean and σ, σ_N vs σ_{N−1}, and the separable ensemble.

Plot helpers and the interactive panel for ``notebooks/02_mackay_gaussian_mean_sigma.ipynb``;
the maths is in :mod:`ensemble_lib.models.mackay_gaussian`. One module per part:

==========================  =====================================================================
module                      part
==========================  =====================================================================
:mod:`.plots`               :func:`plot_fig1a` (Fig. 1a: contours of the log likelihood (7) in
                            (μ, σ), the skewed peak); :func:`plot_fig1b` (Fig. 1b: P(D | μ = x̄, σ)
                            and the evidence P(D | σ) (14), maxima at σ_N and σ_{N−1});
                            :func:`plot_ensemble_contours` (the exact posterior (8)–(9) with one
                            iterate Q_μ Q_σ of §3 over it); :func:`plot_convergence`,
                            :func:`plot_kl`, :func:`plot_trajectories` (1/β̄ → S/(N−1) at rate 1/N,
                            KL(Q‖P) per sweep, and MacKay's iteration against the textbook
                            conjugate one, → S/N)
:mod:`.ensemble_panel`      :class:`EnsemblePanel`: sliders for the sweep k, N, x̄, S and β̄₀
:mod:`.exercises`           :data:`EXERCISES`: the lesson's four exercises and their checks
                            (``check("q1")`` in the lesson, ``grader.check("q1")`` in the student
                            copy; :mod:`ensemble_lib.ui.exercises`)
:mod:`.figures`             :func:`write_figures`: ``figures/mackay_fig1a.png``, ``mackay_fig1b.png``,
                            ``mackay_iterations.png``
==========================  =====================================================================

Every name stays importable from here (``from ensemble_lib.lessons.mean_sigma import X``).
"""

# every name stays importable from here (the figures command, the tests, the benchmarks: ruff F401
# is off for this file); __all__ is what the notebook uses
from ...models.mackay_gaussian import FIG1
from .ensemble_panel import (_ERR_YLIM, _KL_YLIM, ROUNDING_FLOOR, EnsemblePanel, EnsembleState, iteration_table,
                             story_notes)
from .exercises import EXERCISES, first_sweep_below
from .figures import fig1a_figure, fig1b_figure, iterations_figure, write_figures
from .plots import (BETA0_RANGE, CONJ_COLOR, DEFAULTS, K_RANGE, N_RANGE, Q_COLOR, S_RANGE, XBAR_RANGE, ensemble_limits,
                    fig1_limits, plot_convergence, plot_ensemble_contours, plot_fig1a, plot_fig1b, plot_kl,
                    plot_trajectories)

#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["EXERCISES", "K_RANGE", "EnsemblePanel", "iteration_table", "iterations_figure", "plot_fig1a",
           "plot_fig1b"]
