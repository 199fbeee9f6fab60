"""Results tables that a notebook shows as HTML tables and a terminal as text (issue 29, item 6).

Two forms, one look (cells that never wrap mid-number, so a table fits JupyterLab's default layout;
tabular figures):

* :class:`Table` — rows of already formatted cells under a header, laid out as fixed-width text;
* :class:`TextTable` — a study's fixed-width text table as it is (a ``str``), cut into cells by its
  columns' widths.

In both, ``repr`` (so a terminal, a doctest and nbval's comparison of ``text/plain``) is the text
table and ``_repr_html_`` the HTML one, with the same digits.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """Rows of already formatted cells under a header.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of sequences of str
        One sequence per row, as many cells as ``header``; each cell is shown as given.
    widths : sequence of int, optional
        Text-table column widths (right-aligned; a negative width left-aligns); default: each
        column as wide as its widest cell.
    rule : bool
        A line of ``-`` under the text header.
    caption : str
        Shown above the HTML table (not in the text).
    """

    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    widths: Sequence[int] | None = None
    rule: bool = False
    caption: str = ""

    def __post_init__(self):
        n = len(self.header)
        if any(len(r) != n for r in self.rows):
            raise ValueError(f"every row must have {n} cells, like the header")

    def _widths(self) -> list[int]:
        if self.widths is not None:
            return list(self.widths)
        return [max(len(str(c)) for c in col) for col in zip(self.header, *self.rows)]

    def text(self) -> str:
        """The fixed-width text table."""
        widths = self._widths()

        def line(cells):
            return " ".join(f"{c:<{-w}}" if w < 0 else f"{c:>{w}}" for c, w in zip(cells, widths))

        head = line(self.header)
        out = [head] + (["-" * len(head)] if self.rule else []) + [line(r) for r in self.rows]
        return "\n".join(x.rstrip() for x in out)

    def __repr__(self) -> str:
        return self.text()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        widths = self._widths()

        def align(j):
            return "left" if widths[j] < 0 or j == 0 else "right"

        style = "white-space:nowrap;padding:1px 8px;text-align:"
        head = "".join(f'<th style="{style}{align(j)}">{html.escape(str(c))}</th>'
                       for j, c in enumerate(self.header))
        body = "".join("<tr>" + "".join(f'<td style="{style}{align(j)}">{html.escape(str(c))}</td>'
                                         for j, c in enumerate(r)) + "</tr>" for r in self.rows)
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (f'<table class="lesson-table" style="width:auto;font-variant-numeric:tabular-nums">'
                f"{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


class TextTable(str):
    """A fixed-width text table (its ``str``) that a notebook shows as an HTML table."""

    header: tuple
    rows: tuple

    def __new__(cls, text: str, header, rows):
        if not isinstance(text, str):
            raise ValueError(f"text must be a str (the fixed-width table), got {type(text).__name__}")
        try:
            header, rows = tuple(header), [tuple(r) for r in rows]
        except TypeError:
            raise ValueError("header must be a sequence of cells and rows a sequence of such sequences") from None
        obj = super().__new__(cls, text)
        obj.header, obj.rows = tuple(header), tuple(tuple(r) for r in rows)
        return obj

    @classmethod
    def from_columns(cls, text: str, widths) -> TextTable:
        """Cut each line of ``text`` (fields of ``widths`` characters, one space apart) into cells.

        The first line is the header; a line shorter than the columns gets empty cells.
        """
        try:
            widths = [int(w) for w in widths]
        except (TypeError, ValueError):
            raise ValueError(f"widths must be positive column widths, got {widths!r}") from None
        if not widths or min(widths) < 1:
            raise ValueError(f"widths must be positive column widths, got {widths!r}")

        def cut(line):
            cells, at = [], 0
            for w in widths:
                cells.append(line[at: at + w].strip())
                at += w + 1
            return cells
        lines = str(text).split("\n")
        return cls(text, cut(lines[0]), [cut(line) for line in lines[1:]])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        td = 'style="white-space: nowrap; text-align: {}; padding: 1px 6px"'

        def row(cells, tag):
            return "<tr>" + "".join(
                f"<{tag} {td.format('left' if j == 0 else 'right')}>{html.escape(c)}</{tag}>"
                for j, c in enumerate(cells)) + "</tr>"
        return ('<table style="font-variant-numeric: tabular-nums; border-collapse: collapse; '
                'font-size: 12px">'
                f"<thead>{row(self.header, 'th')}</thead><tbody>"
                + "".join(row(r, "td") for r in self.rows) + "</tbody></table>")


__all__ = ["Table", "TextTable"]
