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
