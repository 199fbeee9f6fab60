"""Feedback from the panels and long computations: errors shown in the panel, progress reported."""

import gc

import ipywidgets as w
import numpy as np
import pytest

from ensemble_lib.lessons.bound import compare_hyperparameters, make_toy
from ensemble_lib.lessons.toy_posterior import find_preset, kl_table
from ensemble_lib._progress import report
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.progress import ProgressBar
from ensemble_lib.ui.plotting import new_figure


def _panel_class():
    """A one-slider panel whose compute fails on purpose at chosen values.

    Made per test and collected afterwards (see the fixture): a FigurePanel
    subclass that outlives its test would count as a lesson panel elsewhere
    (the benchmark and browser suites walk ``FigurePanel.__subclasses__()``).
    """

    class _Panel(FigurePanel):
        def __init__(self):
            fig, ax = new_figure(2.0, 2.0)
            (self.line,) = ax.plot([0, 1], [0, 0])
            super().__init__({"x": w.IntSlider(value=0, min=0, max=10)}, fig)

        def compute(self, x):
            if x == 3:
                raise ValueError("x = 3 is refused")
            if x == 4:
                raise KeyError("a bug")
            return x

        def draw(self, state):
            self.line.set_ydata([0, state])

        def format_readout(self, state):
            return f"x = {state}"

    return _Panel


@pytest.fixture
def Panel():
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    yield _panel_class()
    # close the test's widgets (the registry keeps them, their observers keep the panel and its
    # class), then drop the test's subclasses from FigurePanel.__subclasses__()
    for key in set(_instances) - before:
        _instances[key].close()
    gc.collect()


def test_a_refused_value_is_shown_in_the_status_line_and_keeps_the_figure(Panel):
    p = Panel()
    p.update()
    png = p.image.value
    p.controls["x"].value = 3
    assert "Not updated: x = 3 is refused" in p.status.value
    assert p.image.value == png and p.readout.value == "x = 0"
    assert not p.controls["x"].disabled


def test_an_unexpected_error_in_a_callback_is_shown_in_the_panel_not_lost(Panel):
    p = Panel()
    p.update()
    p.controls["x"].value = 4  # the observer runs the callback; nothing may escape it
    assert "KeyError" in p.status.value and "a bug" in p.status.value and "compute" in p.status.value
    assert p.last_error.startswith("KeyError")
    assert not p.controls["x"].disabled
    p.controls["x"].value = 5  # and the panel still works
    assert p.status.value == "" and p.readout.value == "x = 5"


def test_controls_are_disabled_while_a_step_runs(Panel):
    seen = []

    class Spy(Panel):
        def compute(self, x):
            seen.append(self.controls["x"].disabled)
            return x

    p = Spy()
    p.update()
    assert seen == [True] and not p.controls["x"].disabled


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


def test_test_panels_do_not_outlive_their_tests():
    from ensemble_lib.ui.panel import FigurePanel as Base

    gc.collect()
    stack, names = [Base], set()
    while stack:
        for sub in stack.pop().__subclasses__():
            names.add(sub.__qualname__)
            stack.append(sub)
    assert not {n for n in names if "<locals>" in n}, names


def test_a_control_the_values_make_irrelevant_is_shown_disabled(Panel):
    class WithSwitch(Panel):
        def __init__(self):
            super().__init__()
            self.controls["auto"] = w.Checkbox(value=True)
            self.controls["auto"].observe(self._on_change, names="value")
            self._set_disabled(False)

        def compute(self, x, auto=True):
            return x

        def inactive_controls(self, x, auto=True):
            return {"x"} if auto else set()

    p = WithSwitch()
    assert p.controls["x"].disabled and not p.controls["auto"].disabled
    p.controls["auto"].value = False  # the step runs, then x is enabled again
    assert not p.controls["x"].disabled
    p.controls["auto"].value = True
    assert p.controls["x"].disabled
