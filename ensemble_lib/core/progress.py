"""The library's one progress-callback shape: ``progress(done, total, what=None)``.

A library function that loops over many fits takes ``progress=None``; after
each unit of work it calls :func:`report`, which calls the callback (if any)
with the number of units done, the total and, optionally, a short name of the
step now running. :class:`ensemble_lib.ui.progress.ProgressBar` is such a
callback; so is any ``lambda done, total, what=None: ...``.
"""

from __future__ import annotations

from . import validation as check

from typing import Callable, Optional

#: ``progress(done, total, what=None)``: ``done`` of ``total`` units finished; ``what`` names the step
Progress = Callable[..., None]


def report(progress: Optional[Progress], done: int, total: int, what: str | None = None) -> None:
    """Call ``progress(done, total[, what])`` if a progress callback was given.

    ``progress`` is ``None`` or a callable; ``0 <= done <= total``; ``what`` is ``None`` or a str.
    """
    if progress is not None:
        check.callback("progress", progress)
        total = check.integer("total", total, low=0)
        check.integer("done", done, low=0, high=total)
        if what is not None and not isinstance(what, str):
            raise ValueError(f"what must be a str or None, got {type(what).__name__}")
        if what is None:
            progress(done, total)
        else:
            progress(done, total, what=what)


__all__ = ["report"]
