"""Exercise solutions that stay folded when they run.

A solution cell is stored without outputs and opens collapsed (code and output), but JupyterLab
expands a collapsed output as soon as the cell runs, and Run All runs every cell: the answer
would then show under its exercise. So a solution prints inside :func:`solution`; what it prints
is shown in a closed ``<details>`` block, "Solution (click to show)", that a student opens on
purpose. (The Voilà apps leave the solution cells out altogether; ``make student`` removes them.)

A panel the solution builds of its own (so that the lesson's panel stays where the text left it)
is built inside :func:`~ensemble_lib.ui.panel_canvas.unseen_panels`: nobody sees it, so it renders
no image unless it is displayed or its image read, which then shows it at once.
"""

from __future__ import annotations

import contextlib
import html
import io
from collections.abc import Iterator

from .panel_canvas import unseen_panels  # panels a solution builds render only when shown

#: the visible line of a folded solution (the browser suite looks for it)
SUMMARY = "click to show"


def folded_html(text: str, title: str = "Solution") -> str:
    """``text`` in a closed ``<details>`` block whose summary says ``title (click to show)``."""
    for name, value in (("text", text), ("title", title)):
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a str, got {type(value).__name__}")
    return (f"<details class='ensemble-solution'><summary>{html.escape(title)} ({SUMMARY})</summary>"
            f"<pre>{html.escape(text)}</pre></details>")


@contextlib.contextmanager
def solution(title: str = "Solution") -> Iterator[None]:
    """Collect what the block prints and show it folded (also if the block raises).

    >>> with solution("Solution 1"):          # doctest: +SKIP
    ...     print("the answer")
    """
    from IPython.display import HTML, display  # only where a solution is shown

    if not isinstance(title, str):
        raise ValueError(f"title must be a str, got {type(title).__name__}")
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), unseen_panels():
            yield
    finally:
        display(HTML(folded_html(buf.getvalue(), title)))


__all__ = ["SUMMARY", "folded_html", "solution"]
