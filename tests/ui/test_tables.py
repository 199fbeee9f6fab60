"""Results tables (``ensemble_lib.ui.tables``): the text a terminal and nbval see, the HTML a notebook shows."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from ensemble_lib.ui.tables import Table, TextTable

TEXT = "method      KL    F\nlaplace  41.25 -3.0\nfull      1.55 -1.2"


class _Cells(HTMLParser):
    """Every cell's text and its style, read back from the HTML (independent of how it was written)."""

    def __init__(self):
        super().__init__()
        self.cells, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"):
            self._open = [tag, dict(attrs).get("style", ""), ""]

    def handle_data(self, data):
        if self._open is not None:
            self._open[2] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._open is not None:
            self.cells.append(tuple(self._open))
            self._open = None


def _cells(html: str):
    parser = _Cells()
    parser.feed(html)
    return parser.cells


def test_a_text_table_is_its_text_for_print_and_repr():
    table = TextTable.from_columns(TEXT, (7, 6, 4))
    assert str(table) == TEXT and repr(table) == TEXT


def test_a_text_table_is_cut_into_the_cells_its_columns_hold():
    table = TextTable.from_columns(TEXT, (7, 6, 4))
    assert table.header == ("method", "KL", "F")
    assert table.rows == (("laplace", "41.25", "-3.0"), ("full", "1.55", "-1.2"))


def test_every_cell_of_the_html_shows_the_texts_digits_and_never_wraps():
    table = TextTable.from_columns(TEXT, (7, 6, 4))
    cells = _cells(table._repr_html_())
    assert [c[2] for c in cells] == ["method", "KL", "F", "laplace", "41.25", "-3.0", "full", "1.55", "-1.2"]
    assert all("white-space: nowrap" in c[1] for c in cells)
    assert [c[0] for c in cells[:3]] == ["th"] * 3


def test_html_escapes_what_a_cell_holds():
    table = TextTable("x", ("a<b",), [("<script>",)])
    html = table._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_bad_column_widths_are_refused():
    with pytest.raises(ValueError, match="widths"):
        TextTable.from_columns(TEXT, (0, 3))


def test_a_table_of_cells_lays_out_its_cells_as_right_aligned_text_with_the_same_digits():
    table = Table(("K", "KL"), (("1", "1.5513"), ("2", "0.8582")), rule=True)
    lines = repr(table).splitlines()
    assert lines[0].split() == ["K", "KL"] and set(lines[1]) == {"-"}
    assert [line.split() for line in lines[2:]] == [["1", "1.5513"], ["2", "0.8582"]]
    assert len({len(line) for line in lines}) == 1  # one width: the columns line up
    digits = [c[2] for c in _cells(table._repr_html_())]
    assert digits == ["K", "KL", "1", "1.5513", "2", "0.8582"]
    assert re.findall(r"\d+\.\d+", repr(table)) == [d for d in digits if "." in d]
