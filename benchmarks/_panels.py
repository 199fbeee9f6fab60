"""One slider step of a lesson panel, timed three ways (issue: "compute and draw separately").

For a :class:`~ensemble_lib.ui.panel.FigurePanel` and one of its sliders, the
cases alternate the slider between two neighbouring values, so that every
round really recomputes (no memoised result is timed twice in a row):

* ``<prefix>_compute``: ``panel.compute(**values)`` alone (the library's work);
* ``<prefix>_draw``: ``panel.draw(state)`` + the PNG render (the figure's work);
* ``<prefix>_step``: setting ``slider.value``, which runs the panel's whole
  callback as the kernel does when a student drags the slider (compute, draw,
  render, readout, enabling/disabling the controls): the issue's target applies.
"""

from __future__ import annotations

from ensemble_lib.ui.plotting import fast_png


#: every panel class that has cases (a test checks that no lesson panel is missing)
BENCHED: set[type] = set()


def panel_cases(panel_class, prefix: str, control: str, values, target_ms: float,
                make_panel=None) -> dict:
    """The three cases for moving ``control`` of ``make_panel()`` between ``values``.

    ``make_panel`` (default ``panel_class``) builds the panel; ``panel_class``
    is recorded in :data:`BENCHED`.
    """
    values = list(values)
    make_panel = panel_class if make_panel is None else make_panel
    BENCHED.add(panel_class)

    def setup():
        panel = make_panel()
        panel.update()
        states = [panel.compute(**{**panel.values(), control: v}) for v in values]
        return {"panel": panel, "states": states, "i": 0}

    def _next(ctx) -> int:
        ctx["i"] = (ctx["i"] + 1) % len(values)
        return ctx["i"]

    def compute(ctx):
        panel = ctx["panel"]
        panel.compute(**{**panel.values(), control: values[_next(ctx)]})

    def draw(ctx):
        panel = ctx["panel"]
        panel.draw(ctx["states"][_next(ctx)])
        fast_png(panel.fig)

    def step(ctx):
        ctx["panel"].controls[control].value = values[_next(ctx)]

    return {
        f"{prefix}_compute": (setup, compute, None),
        f"{prefix}_draw": (setup, draw, None),
        f"{prefix}_step": (setup, step, target_ms),
    }
