"""A lesson's result table: an HTML table in a notebook, the same fixed-width text in a terminal.

Issue 29, item 6: results a lesson used to print as text tables render as HTML tables that fit
JupyterLab's default layout (cells never wrap mid-number), while ``repr`` keeps the text table,
so a terminal, a doctest and nbval's comparison of ``text/plain`` see the same characters as before.
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


__all__ = ["Table"]
