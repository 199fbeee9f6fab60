"""Feedback from long computations: progress reported (the panels' own feedback: tests/ui/test_panel.py)."""

import numpy as np
import pytest

from ensemble_lib.lessons.bound import compare_hyperparameters, make_toy
from ensemble_lib.lessons.toy_posterior import find_preset, kl_table
from ensemble_lib.core.progress import report
from ensemble_lib.ui.progress import ProgressBar


def test_progress_bar_counts_and_has_a_stable_text_form():
    bar = ProgressBar("fits", display=False)
    assert bar._repr_mimebundle_()["text/plain"] == "ProgressBar('fits')"
    bar(2, 5, what="grid")
    assert (bar.bar.value, bar.bar.max) == (2, 5) and bar.text.value.startswith("grid: 2 of 5 done")
    bar(5, 5)
    assert bar.bar.bar_style == "success" and bar.text.value.startswith("done: 5 of 5")
    report(None, 1, 2)  # no callback: nothing happens


def test_long_library_loops_report_every_step_up_to_the_total():
    calls = []
    rows = kl_table(seeds=range(2), alphas=(1.0,), progress=lambda d, n: calls.append((d, n)))
    assert len(rows) == 2 and calls == [(0, 2), (1, 2), (2, 2)]
    calls.clear()
    find_preset(seeds=range(2), alphas=(0.2, 1.0), progress=lambda d, n: calls.append((d, n)))
    assert calls == [(i, 4) for i in range(5)]


def test_compare_hyperparameters_reports_progress_without_changing_the_result():
    calls = []
    post = make_toy()
    with_bar = compare_hyperparameters(post, n_grid=4, progress=lambda d, n, what=None: calls.append((d, n)))
    without = compare_hyperparameters(post, n_grid=4)
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[0] == 0 and calls[-1] == (3 + 16 + 1, 3 + 16 + 1)
    np.testing.assert_array_equal(with_bar.grid.log_evidence, without.grid.log_evidence)
    assert with_bar.grid.alpha_max == pytest.approx(without.grid.alpha_max, rel=0, abs=0)
