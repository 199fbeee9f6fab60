"""Results tables that a notebook shows as HTML tables and a terminal as text (issue 29, item 6).

Two forms, one rendering (cells that never wrap mid-number, so a table fits JupyterLab's default
layout; tabular figures):

* :class:`TextTable` — a study's fixed-width text table as it is (a ``str``);
* :class:`CellTable` — a table built from already formatted cells, whose text form is laid out
  from them.

In both, ``print``, the terminal and nbval (which compares ``text/plain``) see the text and the
HTML shows the same digits.

:class:`TextTable` is the text table itself — a ``str``, so ``print``, the terminal and nbval (which
compares ``text/plain``) see exactly the text a study's format function wrote — with a
``_repr_html_`` that renders it as an HTML table whose cells never wrap mid-number, so it fits
JupyterLab's default layout. :meth:`TextTable.from_columns` cuts the fixed-width lines into cells
by the columns' widths.
"""

from __future__ import annotations

import html
from dataclasses import dataclass


class TextTable(str):
    """A fixed-width text table (its ``str``) that a notebook shows as an HTML table."""

    header: tuple
    rows: tuple

    def __new__(cls, text: str, header, rows):
        obj = super().__new__(cls, text)
        obj.header, obj.rows = tuple(header), tuple(tuple(r) for r in rows)
        return obj

    @classmethod
    def from_columns(cls, text: str, widths) -> TextTable:
        """Cut each line of ``text`` (fields of ``widths`` characters, one space apart) into cells.

        The first line is the header; a line shorter than the columns gets empty cells.
        """
        widths = [int(w) for w in widths]
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


@dataclass(frozen=True)
class CellTable:
    """A results table from formatted cells: HTML in a notebook (``_repr_html_``), fixed-width text
    elsewhere (``repr``). ``rows`` hold already formatted strings, so both show the same digits."""

    header: tuple
    rows: tuple

    def __repr__(self) -> str:
        cols = list(zip(self.header, *self.rows))
        widths = [max(len(str(c)) for c in col) for col in cols]

        def line(row):
            return " ".join(f"{str(c):>{w}}" for c, w in zip(row, widths))
        return "\n".join([line(self.header), "-" * len(line(self.header)), *map(line, self.rows)])

    def _repr_html_(self) -> str:
        return TextTable("", self.header, self.rows)._repr_html_()


__all__ = ["CellTable", "TextTable"]
