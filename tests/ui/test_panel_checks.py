"""A panel's hooks refuse what the panel does not have, by name (ensemble_lib/ui/panel_checks.py)."""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets
import pytest

from ensemble_lib.ui import panel_checks
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.plotting import new_figure


@dataclass(frozen=True)
class _State:
    x: float


class _Panel(FigurePanel):
    def __init__(self):
        fig, self.ax = new_figure(2, 2)
        (self.line,) = self.ax.plot([0, 1], [0, 0])
        self.drawn = []
        super().__init__({"x": widgets.FloatSlider(value=0.5, min=0.0, max=1.0)}, fig)

    def compute(self, x):
        return _State(float(x))

    def draw(self, state: _State) -> None:
        self.drawn.append(state)
        self.line.set_ydata([state.x, state.x])

    def format_readout(self, state: _State) -> str:
        return f"x = {state.x}"

    def link_controls(self, name, value):
        self.linked = (name, value)


@pytest.fixture(scope="module")
def panel():
    return _Panel()


def test_the_hooks_of_a_subclass_are_wrapped_and_keep_their_names_and_signatures():
    for hook in ("compute", "draw", "format_readout", "link_controls"):
        func = _Panel.__dict__[hook]
        assert func.__guarded__ and func.__name__ == hook and func.__wrapped__.__qualname__ == f"_Panel.{hook}"
    assert panel_checks.state_type(_Panel.__dict__["draw"].__wrapped__) is _State


def test_good_calls_pass_through(panel):
    assert panel.compute(x=0.25) == _State(0.25)
    assert panel.format_readout(_State(1.0)) == "x = 1.0"
    assert panel.update() == _State(0.5) and panel.drawn[-1] == _State(0.5)
    assert list(panel.compute_stream(x=0.1)) == [_State(0.1)]
    assert panel.inactive_controls(x=0.2) == set()


@pytest.mark.parametrize("call, pattern", [
    (lambda p: p.compute(y=1.0), r"values must be the panel's control values by name \(the panel's controls: x\)"),
    (lambda p: p.compute(), r"values must be the panel's control values by name.*missing"),
    (lambda p: p.compute(x=1.0, y=2.0), r"unexpected keyword argument 'y'"),
    (lambda p: p.compute_stream(y=1.0), r"values must be the panel's control values"),
    (lambda p: p.inactive_controls(z=1.0), r"values must be the panel's control values"),
    (lambda p: p.draw(None), r"state must be a _State \(what the panel's compute returns\), got None"),
    (lambda p: p.draw("x"), r"state must be a _State"),
    (lambda p: p.format_readout(3), r"state must be a _State"),
    (lambda p: p.link_controls("nope", 1), r"name must be one of the panel's controls \('x',\)"),
])
def test_a_hook_called_with_what_the_panel_lacks_is_refused_by_name(panel, call, pattern):
    n = len(panel.drawn)
    with pytest.raises(ValueError, match=pattern):
        call(panel)
    assert len(panel.drawn) == n  # nothing was drawn


def test_a_hook_without_a_state_annotation_still_refuses_none():
    def draw(self, state):  # pragma: no cover - never called
        return None

    assert panel_checks.state_type(draw) is None
    with pytest.raises(ValueError, match=r"state must be a state"):
        panel_checks.check_state(draw, None)
    panel_checks.check_state(draw, object())
