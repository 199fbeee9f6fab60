"""What a panel shows around its figure: the style sheet, readout tables and status-line messages.

* :data:`PANEL_CSS`: a compact layout, so that a panel with its controls, figure, readout and
  status line fits on a 1366 × 768 screen in JupyterLab (see :mod:`ensemble_lib.ui.panel`);
* :func:`readout_table`: the HTML table of a panel's readout;
* :func:`note_html`, :func:`refusal_html`, :func:`error_html`: the status line's three kinds of
  message (a note on a typed value, a value the library refused, a bug).
"""

from __future__ import annotations

import html
import traceback
from collections.abc import Iterable, Sequence

import numpy as np

#: The panels' style sheet, in a hidden HTML widget of each panel (ipywidgets gives no other way
#: to style a widget's inside; it works alike in JupyterLab, Voilà and the classic notebook).
#: Everything is scoped to the class ``ensemble-panel``. Sizes are in em of the widgets' font
#: (JupyterLab's 13 px), which is never made smaller.
PANEL_CSS = """
.ensemble-panel > .panel-controls { flex-wrap: wrap; column-gap: 1em; }
.ensemble-panel > .panel-controls > * { flex: 1 1 auto; min-width: 0; }
.ensemble-panel > .panel-controls > .panel-slider > .widget-slider { flex: 1 1 auto; width: auto; min-width: 0; }
.ensemble-panel > .panel-controls > .panel-slider .slider-container { flex: 1 1 8em; min-width: 5em; }
.ensemble-panel > .panel-controls > .panel-slider > .panel-value-box { flex: 0 0 6em; width: 6em; }
.ensemble-panel > .panel-controls > .widget-toggle-buttons { display: flex; align-items: baseline;
  flex: 0 0 auto; width: auto; }
.ensemble-panel > .panel-controls > .widget-toggle-buttons > div { display: flex; flex-wrap: nowrap; }
.ensemble-panel > .panel-controls .widget-toggle-button { width: auto; padding: 0 0.8em; }
.ensemble-panel > .panel-controls > .widget-checkbox, .ensemble-panel > .panel-controls > .widget-dropdown {
  flex: 0 1 auto; width: auto; }
.ensemble-panel > .panel-controls > .widget-dropdown > select { flex: 0 1 auto; }
.ensemble-panel > .panel-controls > .panel-reset { flex: 0 0 auto; width: auto; padding: 0 1em; }
.ensemble-panel > .panel-readout > .widget-html-content,
.ensemble-panel > .panel-status > .widget-html-content { line-height: 1.35; }
.ensemble-panel > .panel-status > .widget-html-content { min-height: 1.35em; }
.ensemble-panel .panel-readout table { border-collapse: collapse; margin: 0.15em 0 0.25em; }
.ensemble-panel .panel-readout th, .ensemble-panel .panel-readout td {
  padding: 0.05em 1.2em 0.05em 0; text-align: left; vertical-align: top; }
.ensemble-panel .panel-readout th { font-weight: 600; }
.ensemble-panel .panel-readout td.panel-pair { padding-left: 1.2em; border-left: 1px solid #ddd; }
.ensemble-panel.panel-readout-beside { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  column-gap: 1.5em; align-items: start; }
.ensemble-panel.panel-readout-beside > :not(.widget-image):not(.panel-readout) { grid-column: 1 / -1; }
"""

#: Width (CSS px) of a notebook's output area on a 1366 px wide screen in JupyterLab with its file
#: browser open (measured: 934 px); a readout narrower than this less the figure goes beside it.
OUTPUT_WIDTH_PX = 930
#: The narrowest readout column (CSS px) beside a figure (:attr:`FigurePanel.readout_beside`).
READOUT_BESIDE_MIN_PX = 340


def readout_table(rows: Iterable[Sequence], header: Sequence | None = None, pairs: int | None = None) -> str:
    """An HTML table: an optional header row, then one row per item of ``rows``.

    Every cell is converted with ``str`` and HTML-escaped. Label/value pairs (``rows`` of
    two cells, no ``header``) are set ``pairs`` to a table row, in columns (the first
    half of ``rows`` down the left, the rest down the right): by default two when there
    are four or more, which halves the readout's height (:data:`PANEL_CSS`).
    """
    def cells(row, tag, first=""):
        return "".join(f"<{tag}{first if i == 0 else ''}>{html.escape(str(c))}</{tag}>"
                       for i, c in enumerate(row))

    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise ValueError(f"rows must be a sequence of rows (each a sequence of cells), got {type(rows).__name__}")
    if header is not None and (isinstance(header, (str, bytes)) or not hasattr(header, "__iter__")):
        raise ValueError(f"header must be a sequence of cells or None, got {type(header).__name__}")
    rows = list(rows)
    for i, r in enumerate(rows):
        if isinstance(r, (str, bytes)) or not hasattr(r, "__iter__"):
            raise ValueError(f"rows[{i}] must be a sequence of cells, got {type(r).__name__}")
    rows = [tuple(r) for r in rows]
    if pairs is not None and (isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs < 1):
        raise ValueError(f"pairs must be an integer >= 1 or None, got {pairs!r}")
    if pairs is None:
        pairs = 2 if header is None and len(rows) >= 4 and all(len(r) == 2 for r in rows) else 1
    pairs = max(1, int(pairs))
    head = f"<tr>{cells(header, 'th')}</tr>" if header else ""
    n = -(-len(rows) // pairs)  # table rows
    body = "".join(
        "<tr>" + "".join(cells(rows[k * n + i], "td", ' class="panel-pair"' if k else "")
                         for k in range(pairs) if k * n + i < len(rows)) + "</tr>"
        for i in range(n))
    return f"<table>{head}{body}</table>"


def note_html(text: str) -> str:
    """A note for the status line (not an error: the figure is current)."""
    return "<span style='color:#7a4b00'>" + html.escape(text) + "</span>"


def refusal_html(exc: BaseException) -> str:
    """A value the library refused, for the status line (the previous figure stays)."""
    return "<span style='color:#b00020'>Not updated: " + html.escape(str(exc)) + "</span>"


def error_html(exc: BaseException) -> str:
    """An unexpected error for the status line: its type, message and the line that raised it."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (in {frames[-1].name}, line {frames[-1].lineno})" if frames else ""
    return ("<span style='color:#b00020'>Error — the figure was not updated: "
            + html.escape(f"{type(exc).__name__}: {exc}{where}") + "</span>")


__all__ = ["OUTPUT_WIDTH_PX", "PANEL_CSS", "READOUT_BESIDE_MIN_PX", "readout_table"]
