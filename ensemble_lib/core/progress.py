"""The library's one progress-callback shape: ``progress(done, total, what=None)``.

A library function that loops over many fits takes ``progress=None``; after
each unit of work it calls :func:`report`, which calls the callback (if any)
with the number of units done, the total and, optionally, a short name of the
step now running. :class:`ensemble_lib.ui.progress.ProgressBar` is such a
callback; so is any ``lambda done, total, what=None: ...``.
"""

from __future__ import annotations

from typing import Callable, Optional

#: ``progress(done, total, what=None)``: ``done`` of ``total`` units finished; ``what`` names the step
Progress = Callable[..., None]


def report(progress: Optional[Progress], done: int, total: int, what: str | None = None) -> None:
    """Call ``progress(done, total[, what])`` if a progress callback was given."""
    if progress is not None:
        if what is None:
            progress(done, total)
        else:
            progress(done, total, what=what)


__all__ = ["report"]
