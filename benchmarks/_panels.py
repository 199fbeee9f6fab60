"""One slider step of a lesson panel, timed three ways (issue: "compute and draw separately").

For a panel of the registry :data:`ensemble_lib.lessons.PANELS` and one of its
controls, the cases alternate the control between neighbouring values, so that
every round really recomputes (no memoised result is timed twice in a row):

* ``<prefix>_compute``: ``panel.compute(**values)`` alone (the library's work);
* ``<prefix>_draw``: ``panel.draw(state)`` + the render and encoding (``panel.render()``: PNG or JPEG);
* ``<prefix>_step``: setting ``control.value``, which runs the panel's whole
  callback as the kernel does when a student drags the slider (compute, draw,
  render, readout): the issue's target applies.

Every panel in the registry must have cases (``tests/project/test_benchmarks.py``).
"""

from __future__ import annotations

from ensemble_lib.lessons import PANELS

#: names (keys of PANELS) of the panels that have cases
BENCHED: set[str] = set()


def panel_cases(name: str, prefix: str, control: str, values, target_ms: float,
                make_panel=None) -> dict:
    """The three cases for moving ``control`` of the registered panel ``name`` between ``values``.

    Parameters
    ----------
    name : str
        A key of :data:`~ensemble_lib.lessons.PANELS`; recorded in :data:`BENCHED`.
    prefix : str
        Start of the three case names.
    control : str
        The control moved.
    values : sequence
        The values it alternates between.
    target_ms : float
        Target of the whole step (the ``_step`` case).
    make_panel : callable, optional
        Builds the panel (default: the registered class with no arguments).
    """
    if name not in PANELS:
        raise KeyError(f"{name!r} is not in ensemble_lib.lessons.PANELS")
    values = list(values)
    make_panel = PANELS[name][0] if make_panel is None else make_panel
    BENCHED.add(name)

    def setup():
        panel = make_panel()
        panel.update()
        return {"panel": panel, "i": 0}

    def setup_draw():  # the states drawn, computed beforehand (only the draw case needs them)
        ctx = setup()
        panel = ctx["panel"]
        ctx["states"] = [panel.compute(**{**panel.values(), control: v}) for v in values]
        return ctx

    setup_draw.base = setup  # the same panel set-up (benchmarks.run.quick_skips)

    def _next(ctx) -> int:
        ctx["i"] = (ctx["i"] + 1) % len(values)
        return ctx["i"]

    def compute(ctx):
        panel = ctx["panel"]
        panel.compute(**{**panel.values(), control: values[_next(ctx)]})

    def draw(ctx):
        panel = ctx["panel"]
        panel.draw(ctx["states"][_next(ctx)])
        panel.render()

    def step(ctx):
        ctx["panel"].controls[control].value = values[_next(ctx)]

    return {
        f"{prefix}_compute": (setup, compute, None),
        f"{prefix}_draw": (setup_draw, draw, None),
        f"{prefix}_step": (setup, step, target_ms),
    }
