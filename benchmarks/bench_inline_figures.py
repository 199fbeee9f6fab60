"""Benchmarks of a lesson's figures as the notebook shows them: lesson 6's six figures (issue 30).

A lesson shows a figure by ending a cell with it; IPython's PNG formatter renders it. Two ways,
on the same six figures (made afresh each round, as Run All makes them, from the stored results):

* ``lesson6_six_figures_print_figure``: IPython's own formatter, uncropped
  (``pylabtools.print_figure(fig, "png", bbox_inches=None)``), what the lessons used before.
  matplotlib's ``print_figure`` lays a constrained-layout figure out in a hidden draw (text
  measured, nothing painted), then paints it in a second draw;
* ``lesson6_six_figures_one_draw``: :func:`ensemble_lib.ui.plotting._inline_png`, which
  ``inline_figures()`` registers: layout and paint in one draw, the same pixels
  (``tests/ui/test_plotting_inline.py`` compares every lesson figure).

The issue's target is the whole lesson's Run All in ≤ 5 s on a quiet machine; these cases have
none of their own. ``python -m benchmarks.bench_inline_figures [ROUNDS]`` runs the two ways
alternately (their order swapped each round) and prints each one's CPU time (this thread's), min
and median: a figure's draw takes 0.3–0.5 s here, so pytest-benchmark's budget gives only three
rounds. Timings are reported, never asserted.
"""

from __future__ import annotations

import statistics
import sys
import time

from IPython.core.pylabtools import print_figure

from ensemble_lib.lessons.model_choice import (ard_figure, hyper_error_bar_figure, local_mass_figure, local_mass_rows,
                                               model_size_figure, occam_figure, pruning_study_figure)
from ensemble_lib.studies.model_size import load_result
from ensemble_lib.studies.pruning_evidence import load_result as load_pruning
from ensemble_lib.ui.plotting import _inline_png


def _lesson6_figures():
    """Makers of lesson 6's six figures, in the lesson's order (its results loaded once)."""
    size, pruning, basins = load_result(), load_pruning(), local_mass_rows()
    makers = [lambda: occam_figure()[0], lambda: local_mass_figure(basins), lambda: model_size_figure(size)[0],
              lambda: ard_figure(size)[0], lambda: hyper_error_bar_figure(3)[0],
              lambda: pruning_study_figure(pruning)[0]]
    for make in makers:  # the computations the figures draw from are cached after this
        make()
    return makers


def _case(render):
    def step(makers):
        for make in makers:
            render(make())

    return _lesson6_figures, step, None


CASES = {
    "lesson6_six_figures_print_figure": _case(lambda fig: print_figure(fig, "png", bbox_inches=None)),
    "lesson6_six_figures_one_draw": _case(_inline_png),
}


def alternate(rounds: int = 8) -> dict:
    """``{case: [CPU seconds per round]}``, the two cases run alternately on the same figure makers."""
    makers = _lesson6_figures()
    names = list(CASES)
    times = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 else names[::-1]:
            t0 = time.thread_time()
            CASES[name][1](makers)
            times[name].append(time.thread_time() - t0)
    return times


if __name__ == "__main__":
    for name, ts in alternate(int(sys.argv[1]) if len(sys.argv) > 1 else 8).items():
        print(f"{name}: CPU min {min(ts):.2f} s, median {statistics.median(ts):.2f} s ({len(ts)} rounds)")
