"""A progress bar for the notebooks' longer computations.

A computation in a notebook that takes more than about a second reports its
progress through :class:`ProgressBar` (a bar and a status text, displayed
where the cell runs), passed as the ``progress`` callback of the library
function doing the work. The callback shape is the library's one shape,
``progress(done, total, what=None)`` (:data:`ensemble_lib.core.progress.Progress`).
"""

from __future__ import annotations

import time

import ipywidgets as widgets


class ProgressBar:
    """A progress bar with a status text, for a computation that takes more than about a second.

    Displayed where it is created (the running cell's output); call it as
    ``progress(done, total)`` after each unit of work. Library functions that
    loop over many fits take it as their ``progress`` argument::

        rows = kl_table(progress=ProgressBar("KL table"))

    The bar's saved text form is fixed (``ProgressBar(<description>)``), so a
    cell that shows one still compares equal under nbval.

    Parameters
    ----------
    description : str
        What is being computed, shown to the left of the bar.
    display : bool
        Show the bar now (default). ``False`` builds it without displaying
        (tests, or to place ``.widget`` yourself).
    """

    def __init__(self, description: str, display: bool = True):
        if not isinstance(description, str):
            raise ValueError(f"description must be a str, got {type(description).__name__}")
        if not isinstance(display, bool):
            raise ValueError(f"display must be True or False, got {display!r}")
        self.description = description
        self.bar = widgets.IntProgress(value=0, min=0, max=1, description=description,
                                       style={"description_width": "initial"})
        self.text = widgets.Label(value="starting…")
        self.widget = widgets.HBox([self.bar, self.text])
        self.done = 0
        self.total = None
        self._t0 = time.perf_counter()
        if display:
            from IPython.display import display as _display  # only where a bar is shown (IPython is optional)

            _display(self)

    def __call__(self, done: int, total: int, what: str | None = None) -> None:
        """Record ``done`` of ``total`` units finished; ``what`` names the step now running."""
        self.done, self.total = int(done), int(total)
        self.bar.max = max(self.total, 1)
        self.bar.value = min(self.done, self.bar.max)
        elapsed = time.perf_counter() - self._t0
        if self.done >= self.total:
            self.bar.bar_style = "success"
            self.text.value = f"done: {self.total} of {self.total} in {elapsed:.1f} s"
        else:
            now = f"{what}: " if what else ""
            self.text.value = f"{now}{self.done} of {self.total} done ({elapsed:.1f} s)"

    def __repr__(self) -> str:
        return f"ProgressBar({self.description!r})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = repr(self)  # stable text form: nbval compares it
        return bundle


__all__ = ["ProgressBar"]
