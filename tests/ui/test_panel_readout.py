"""What a panel shows around its figure (``ensemble_lib.ui.panel_readout``): the readout table and the
status line's three kinds of message, each escaped. (A panel's use of them: tests/ui/test_panel.py.)
"""

import html

import pytest

from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.panel_readout import error_html, note_html, readout_table, refusal_html


def test_readout_table_escapes_every_cell():
    assert FigurePanel.readout_table([("a < b", 1.5), ("c", "x & y")], header=("name", "value")) == (
        "<table><tr><th>name</th><th>value</th></tr><tr><td>a &lt; b</td><td>1.5</td></tr>"
        "<tr><td>c</td><td>x &amp; y</td></tr></table>")
    assert FigurePanel.readout_table([]) == "<table></table>"


def test_readout_table_sets_label_value_pairs_two_to_a_row_down_the_columns():
    rows = [(f"k{i}", i) for i in range(5)]
    two = FigurePanel.readout_table(rows)  # five pairs: three table rows, the first three down the left
    assert two == ('<table><tr><td>k0</td><td>0</td><td class="panel-pair">k3</td><td>3</td></tr>'
                   '<tr><td>k1</td><td>1</td><td class="panel-pair">k4</td><td>4</td></tr>'
                   "<tr><td>k2</td><td>2</td></tr></table>")
    one = FigurePanel.readout_table(rows, pairs=1)
    assert one.count("<tr>") == 5 and "panel-pair" not in one
    # fewer than four pairs, a header or rows of other lengths: one item per row, as given
    for args in ((rows[:3],), (rows, ("key", "value")), ([(1, 2, 3)] * 4,)):
        assert "panel-pair" not in FigurePanel.readout_table(*args)


def test_the_panels_readout_table_is_the_modules():
    rows = [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert FigurePanel.readout_table(rows) == readout_table(rows)


def test_numbers_are_written_as_str_writes_them():
    values = [0.1 + 0.2, 1e-300, -0.0, float("nan"), 12345678901234567890, True]
    table = readout_table([(repr(v), v) for v in values], header=("v", "shown"))
    for v in values:
        assert f"<td>{html.escape(repr(v))}</td><td>{v}</td>" in table
    assert "<td>0.30000000000000004</td>" in table  # not rounded


@pytest.mark.parametrize("make, colour, prefix", [
    (note_html, "#7a4b00", ""),
    (lambda text: refusal_html(ValueError(text)), "#b00020", "Not updated: "),
])
def test_a_note_and_a_refusal_escape_their_text_in_their_colour(make, colour, prefix):
    text = "alpha must be in [1e-08, 1e+08], got <script>&"
    assert make(text) == (f"<span style='color:{colour}'>{prefix}"
                          "alpha must be in [1e-08, 1e+08], got &lt;script&gt;&amp;</span>")


def _raise_here():
    raise ZeroDivisionError("a < b")


def test_an_error_names_its_type_message_and_the_function_and_line_that_raised_it():
    try:
        _raise_here()
    except ZeroDivisionError as exc:
        caught = exc
    line = _raise_here.__code__.co_firstlineno + 1
    assert error_html(caught) == ("<span style='color:#b00020'>Error — the figure was not updated: "
                                  f"ZeroDivisionError: a &lt; b (in _raise_here, line {line})</span>")
    assert error_html(KeyError("k")).endswith("KeyError: &#x27;k&#x27;</span>")  # never raised: no place
