"""Lesson 6's text tables, shown as HTML tables in a notebook (issue 29, item 6).

:class:`Table` is the text table itself (a ``str``: ``print`` and the terminal see the same text as
before, and so does nbval, which compares ``text/plain``) with a ``_repr_html_`` that renders it
as an HTML table whose cells never wrap mid-number. A format function cuts its fixed-width lines
into cells by its columns' widths (:meth:`Table.from_columns`).
"""

from __future__ import annotations

import html


class Table(str):
    """A fixed-width text table that a notebook shows as an HTML table."""

    header: tuple
    rows: tuple

    def __new__(cls, text: str, header, rows):
        obj = super().__new__(cls, text)
        obj.header, obj.rows = tuple(header), tuple(tuple(r) for r in rows)
        return obj

    @classmethod
    def from_columns(cls, text: str, widths) -> Table:
        """Cut each line of ``text`` (fields of ``widths`` characters, one space apart) into cells."""
        def cut(line):
            cells, at = [], 0
            for w in widths:
                cells.append(line[at: at + w].strip())
                at += w + 1
            return cells
        lines = text.split("\n")
        return cls(text, cut(lines[0]), [cut(line) for line in lines[1:]])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        td = 'style="white-space: nowrap; text-align: {}; padding: 1px 8px"'

        def row(cells, tag):
            return "<tr>" + "".join(
                f"<{tag} {td.format('left' if j == 0 else 'right')}>{html.escape(c)}</{tag}>"
                for j, c in enumerate(cells)) + "</tr>"
        return ('<table style="font-variant-numeric: tabular-nums; border-collapse: collapse">'
                f"<thead>{row(self.header, 'th')}</thead><tbody>"
                + "".join(row(r, "td") for r in self.rows) + "</tbody></table>")


__all__ = ["Table"]
