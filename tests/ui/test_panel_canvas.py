"""Blitting with kept backgrounds (``ensemble_lib.ui.panel_canvas.BlitCanvas``), on a tiny figure.

A blitted draw is compared pixel for pixel with a plain Agg draw of the same figure (matplotlib's
own renderer, independent of the cache); the full draws are counted. (The registered panels that
blit, each against its full redraw: tests/ui/test_panel.py.)
"""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ensemble_lib.ui.panel_canvas import BlitCanvas


def _build(fig, y=0.5, top=1.0, legend=True):
    """A static curve, a legend over the data (opaque) and one moving line at height ``y``."""
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], color="k", label="static")
    (line,) = ax.plot([0, 1], [y, y], color="r", lw=6, label="moving")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, top)
    return ax, line, (ax.legend(loc="center", framealpha=1.0) if legend else None)


def _full_redraw(y, top=1.0, legend=True) -> np.ndarray:
    """The same scene drawn whole on a fresh figure by matplotlib's plain Agg canvas."""
    fig = Figure(figsize=(2.0, 1.5), dpi=50)
    _build(fig, y, top, legend)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].astype(float)


#: at most this fraction of pixels may differ: the moving line's antialiased edge may fall a pixel
#: apart (about 60 of the 7500 pixels); a missing legend or line, or a stale background, is 3-8 %
SAME = 0.012


def _differ(a, b) -> float:
    """Fraction of pixels off by more than 40 in a channel."""
    return float(np.mean(np.any(np.abs(a - b) > 40, axis=2)))


class _Scene:
    """The scene on a BlitCanvas: the moving line is redrawn over the cached rest."""

    def __init__(self, key=None, legend=True):
        self.fig = Figure(figsize=(2.0, 1.5), dpi=50)
        self.ax, self.line, self.legend = _build(self.fig, legend=legend)
        self.canvas = BlitCanvas(self.fig, lambda: [self.line], lambda: [self.legend], key=key)

    def move(self, y):
        self.line.set_ydata([y, y])

    def blitted(self) -> np.ndarray:
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].astype(float)


def test_the_moving_artists_are_marked_animated_so_a_full_draw_skips_them():
    s = _Scene()
    assert s.line.get_animated() and not s.ax.lines[0].get_animated()


def test_a_blitted_step_equals_a_full_redraw_of_the_same_figure_with_the_legend_on_top():
    s = _Scene()
    first = s.blitted()
    for y in (0.2, 0.5, 0.8):  # 0.5 runs under the centred legend
        s.move(y)
        got = s.blitted()
        assert _differ(got, _full_redraw(y)) < SAME
    assert s.canvas.full_draws == 1
    assert _differ(first, got) > SAME and _differ(got, _full_redraw(0.2)) > SAME  # the check can fail


def test_without_overlays_the_moving_line_is_drawn_over_the_legend():
    s = _Scene()
    s.canvas._overlays = list
    s.canvas.draw()
    s.move(0.5)
    assert _differ(s.blitted(), _full_redraw(0.5)) > SAME


def test_invalidate_makes_the_next_draw_a_full_one_that_shows_the_changed_static_parts():
    s = _Scene()
    s.blitted()
    s.ax.set_ylim(0, 2)
    stale = s.blitted()
    assert s.canvas.full_draws == 1 and _differ(stale, _full_redraw(0.5, top=2.0)) > SAME
    s.canvas.invalidate()
    fresh = s.blitted()
    assert s.canvas.full_draws == 2 and _differ(fresh, _full_redraw(0.5, top=2.0)) < SAME


def test_a_kept_background_comes_back_for_its_key_without_a_full_draw():
    setting = {"top": 1.0}
    s = _Scene(key=lambda: setting["top"])
    for top in (1.0, 2.0, 1.0, 2.0, 1.0):
        setting["top"] = top
        s.ax.set_ylim(0, top)
        s.canvas.invalidate()
        assert _differ(s.blitted(), _full_redraw(0.5, top=top)) < SAME, top
    assert s.canvas.full_draws == 2  # once per setting


def test_no_key_means_every_invalidate_draws_in_full():
    s = _Scene(key=None)
    for _ in range(3):
        s.canvas.invalidate()
        s.blitted()
    assert s.canvas.full_draws == 3


def test_only_the_last_saved_backgrounds_are_kept():
    n = BlitCanvas.SAVED_BACKGROUNDS
    setting = {"k": 0}
    s = _Scene(key=lambda: setting["k"], legend=False)
    for k in list(range(n + 1)) + [n, 1, 0]:  # after n + 1 settings the oldest, 0, has been dropped
        setting["k"] = k
        s.canvas.invalidate()
        s.canvas.draw()
    assert s.canvas.full_draws == n + 1 + 1


# -- one layout pass without a draw; panels built unseen (a solution's own) ---------------------------

import dataclasses  # noqa: E402

import pytest  # noqa: E402
from ipywidgets import FloatLogSlider  # noqa: E402

from ensemble_lib.lessons import PANELS  # noqa: E402
from ensemble_lib.ui.panel import FigurePanel  # noqa: E402
from ensemble_lib.ui.panel_canvas import lay_out_once, unseen_panels  # noqa: E402
from ensemble_lib.ui.plotting import fast_png, new_figure  # noqa: E402


def _labelled_figure():
    """Two axes under constrained layout, one with log-scale (mathtext) tick labels."""
    fig, (a, b) = new_figure(4.0, 2.0, ncols=2)
    a.set_xscale("log")
    a.set_xlim(1e-3, 1e3)
    a.set_xlabel("precision α")
    b.set_title("a title")
    b.plot([0, 1], [0, 1e4])
    return fig


def test_lay_out_once_puts_the_axes_where_a_first_full_draw_does_and_draws_the_same_pixels():
    drawn, laid = _labelled_figure(), _labelled_figure()
    assert drawn.get_layout_engine() is not None
    fast_png(drawn)  # the old way: a full draw makes the layout pass
    drawn.set_layout_engine("none")
    lay_out_once(laid)
    assert laid.get_layout_engine().__class__ is drawn.get_layout_engine().__class__
    for a, b in zip(drawn.axes, laid.axes, strict=True):
        assert a.get_position().bounds == b.get_position().bounds
    assert fast_png(laid) == fast_png(drawn)
    # one parser shared by every panel's figure, of the kind the renderer itself makes
    other = _labelled_figure()
    lay_out_once(other)
    shared = laid.canvas.get_renderer().mathtext_parser
    assert other.canvas.get_renderer().mathtext_parser is shared
    assert shared is not drawn.canvas.get_renderer().mathtext_parser  # a renderer left alone keeps its own ...
    assert shared._output_type == drawn.canvas.get_renderer().mathtext_parser._output_type  # ... of this kind


@dataclasses.dataclass(frozen=True)
class _X:
    x: float


class _Line(FigurePanel):
    """One slider x; ``draw`` fails at x = 7 (a ValueError); counts its draws."""

    def __init__(self):
        fig, ax = new_figure(2.0, 2.0)
        ax.set_xlabel("x")
        (self.line,) = ax.plot([0, 1], [0, 0])
        self.draws = 0
        super().__init__({"x": self.slider("x", 1, 0, 10)}, fig)

    def compute(self, x):
        return _X(x)

    def draw(self, state):
        if state.x == 7:
            raise ValueError("x = 7 cannot be drawn")
        self.draws += 1
        self.line.set_ydata([0, state.x])

    def format_readout(self, state):
        return f"x = {state.x}"


def _raw(panel) -> bytes:
    """The image's bytes as the front end has them, without the read hook (LazyImage)."""
    return panel.image._trait_values["value"]


def test_a_panel_built_unseen_computes_but_draws_nothing_until_it_is_displayed():
    seen = _Line()
    seen.update()
    with unseen_panels():
        p = _Line()
    p.update()
    with p.hold():
        p.controls["x"].value = 4
        p.controls["x"].value = 5
    assert p.state == _X(5) and p.readout.value == "x = 5" and p.n_updates == 2
    assert p.draws == 0 and _raw(p) == b""  # nothing drawn, laid out or rendered
    assert p.fig.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"
    bundle = p.widget._repr_mimebundle_()  # displayed: the image is there before the view is
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert p.draws == 1 and _raw(p) != b""
    seen.controls["x"].value = 5
    assert _raw(p) == seen.image.value  # the same pixels as a panel seen all along
    p.controls["x"].value = 6  # from now on every step renders at once
    seen.controls["x"].value = 6
    assert p.draws == 2 and _raw(p) == seen.image.value


def test_reading_an_unseen_panels_image_renders_it_and_a_panel_built_outside_is_unaffected():
    with unseen_panels():
        with unseen_panels():  # nested
            p = _Line()
        q = _Line()
    r = _Line()
    for panel in (p, q, r):
        panel.update()
    assert _raw(p) == _raw(q) == b"" and _raw(r) != b""
    assert p.image.value == r.image.value and q.render() == r.render()


def test_a_draw_that_fails_when_an_unseen_panel_is_shown_goes_to_the_status_line():
    with unseen_panels():
        p = _Line()
    p.controls["x"].value = 7
    assert p.last_error is None and p.state == _X(7)  # put off: nothing drawn yet
    assert p.image.value == b""  # shown: the draw fails, and says so
    assert p.last_error.startswith("ValueError") and "cannot be drawn" in p.status.value
    p.controls["x"].value = 2  # and the panel works again
    assert p.last_error is None and p.image.value != b""


@pytest.mark.parametrize("name", ["ToyExplorer", "EnsemblePanel", "BoundPanel", "HyperIterationPanel"])
def test_a_lesson_panel_built_unseen_shows_what_one_seen_all_along_shows(name):
    """Lessons 1-3's panels, which their exercises' solutions build of their own: moved to each
    slider's far end in turn, then shown, they show the pixels and readout of a panel seen all along."""
    cls = PANELS[name][0]
    seen = cls()
    seen.update()
    with unseen_panels():
        p = cls()
    p.update()
    for n, ctl in seen.controls.items():
        if not hasattr(ctl, "max"):
            continue
        top = ctl.base ** ctl.max if isinstance(ctl, FloatLogSlider) else ctl.max
        for panel in (seen, p):
            panel.controls[n].value = top
    assert seen.last_error == p.last_error and seen.readout.value == p.readout.value
    assert _raw(p) == b""
    assert p.image.value == seen.image.value
