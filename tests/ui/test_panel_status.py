"""A panel's typed values, status line and step acknowledgement (ensemble_lib.ui.panel_status).

A value typed into a slider's box is set, clamped and said, or refused and said (issue 15 item 5);
every finished step is acknowledged in the page with its number and the value-box texts it was
computed from, which the real-browser tests read.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from ensemble_lib.lessons.toy_posterior import ToyExplorer
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.panel_status import PanelStatus


def _reference(name: str, value) -> ToyExplorer:
    """A fresh explorer updated once, by code, to ``value``."""
    ref = ToyExplorer()
    ref.controls[name].value = float(value)
    return ref


def test_the_panel_has_its_status_from_the_mixin():
    assert issubclass(FigurePanel, PanelStatus)
    assert FigurePanel._publish_step is PanelStatus._publish_step


def test_a_step_is_acknowledged_with_its_number_and_the_boxes_escaped():
    p = ToyExplorer()
    p.update()
    n0 = p.n_published
    p._publish_step(['<1> & "2"', "3"])
    assert p.n_published == n0 + 1
    m = re.fullmatch(r'<span data-step="(\d+)" data-boxes="([^"]*)"></span>', p.step_mark.value)
    assert m is not None, p.step_mark.value
    assert int(m.group(1)) == n0 + 1
    assert json.loads(html.unescape(m.group(2))) == ['<1> & "2"', "3"]
    # the boxes' texts of the current values, in the boxes' order
    assert p._box_texts()[: len(p.boxes)] == [box.value for box in p.boxes.values()]


# ---------------------------------------------------------------------------
# typed values (issue 15 item 5): a refused or clamped value is said in the status line
# ---------------------------------------------------------------------------

def _type(panel, name, text):
    panel.boxes[name].set_state({"value": text})  # as the front end sends an edited box


def test_a_typed_value_out_of_range_is_clamped_and_said():
    p = ToyExplorer()
    p.update()
    _type(p, "alpha", "99999")
    assert p.controls["alpha"].value == pytest.approx(10.0)
    assert "prior precision α must be in [0.01, 10]; set to 10" in p.status.value
    assert p.boxes["alpha"].value == FigurePanel._formatted(p.controls["alpha"])
    assert p.last_error is None and p.readout.value == _reference("alpha", 10.0).readout.value
    _type(p, "alpha", "1e-9")
    assert p.controls["alpha"].value == pytest.approx(0.01) and "set to 0.01" in p.status.value
    p.controls["alpha"].value = 1.0  # the next step clears the note
    assert p.status.value == ""


def test_a_typed_value_that_is_not_a_number_is_refused_and_said():
    p = ToyExplorer()
    p.update()
    png, value, n0 = p.image.value, p.controls["alpha"].value, p.n_updates
    _type(p, "alpha", "abc")
    assert p.controls["alpha"].value == value and p.image.value == png and p.n_updates == n0
    assert "“abc” is not a number" in html.unescape(p.status.value)
    assert p.boxes["alpha"].value == FigurePanel._formatted(p.controls["alpha"])


def test_a_typed_value_in_range_is_set_and_whole_numbers_are_said():
    p = ToyExplorer()
    p.update()
    _type(p, "alpha", " 2.5 ")
    assert p.controls["alpha"].value == 2.5 and p.status.value == ""
    _type(p, "n", "7.6")
    assert p.controls["n"].value == 8 and "data points N takes whole numbers; set to 8" in p.status.value
    _type(p, "n", "−3")  # a typographic minus is read as one: below the range
    assert p.controls["n"].value == 1 and "must be in [1, 50]; set to 1" in p.status.value
