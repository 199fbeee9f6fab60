"""Blitting with kept backgrounds: the canvas a panel with :attr:`FigurePanel.blit
<ensemble_lib.ui.panel.FigurePanel.blit>` draws on.

Only the panel's animated artists are redrawn at each step, over a cached image of the rest of
the figure; the backgrounds of the last few settings of the static parts (the panel's
:meth:`~ensemble_lib.ui.panel.FigurePanel.background_key`) are kept, so a slider moved back and
forth draws the whole figure once per setting. Opaque static artists over the data (a legend)
are put back on top after each redraw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.layout_engine import PlaceHolderLayoutEngine


class BlitCanvas(FigureCanvasAgg):
    """An Agg canvas that redraws only a panel's changing artists over a cached background.

    The artists ``dynamic()`` returns are marked ``animated``, so a normal draw
    skips them; the first draw after the layout is frozen is cached, and later
    draws restore it and draw ``dynamic()`` on top. :meth:`invalidate` makes the
    next draw a full one, which caches the background afresh, unless ``key()``
    names a background drawn before: the last :data:`SAVED_BACKGROUNDS` backgrounds
    are kept by their key, so a slider moved back and forth between settings whose
    static parts differ (axis ranges, a legend) draws the whole figure once per setting.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    dynamic : callable
        Returns the artists to redraw at every step, in drawing order.
    overlays : callable
        Returns the opaque static artists put back on top after each redraw.
    key : callable or None
        Returns a hashable that fixes every static pixel (None: nothing is kept across
        :meth:`invalidate`).
    """

    #: backgrounds kept by key (an RGBA copy of the figure each: about 1 MB at 880 × 288)
    SAVED_BACKGROUNDS = 8

    def __init__(self, figure, dynamic: Callable[[], Iterable], overlays: Callable[[], Iterable] = list,
                 key: Callable[[], object] | None = None):
        super().__init__(figure)
        self._dynamic = dynamic
        self._overlays = overlays
        self._key = key
        self._background = None
        self._sprites = []
        self._saved: dict = {}  # (key, figure size in pixels) -> (background, sprites), oldest first
        self.full_draws = 0  # whole-figure draws so far (the tests count them)
        self._mark()

    def _mark(self) -> list:
        arts = list(self._dynamic())
        for a in arts:
            a.set_animated(True)
        return arts

    def invalidate(self) -> None:
        """Drop the cached background: the next draw is a full one and caches it again."""
        self._background = None

    def _layout_frozen(self) -> bool:
        eng = self.figure.get_layout_engine()
        return eng is None or isinstance(eng, PlaceHolderLayoutEngine)

    def _saved_key(self):
        key = self._key() if self._key is not None else None
        return None if key is None else (key, tuple(self.figure.bbox.bounds))

    def draw(self):
        arts = self._mark()  # artists made since the last draw (new contours) are animated too
        frozen = self._layout_frozen()
        key = self._saved_key() if frozen else None
        if self._background is None and key in self._saved:
            self._background, self._sprites = self._saved[key]
        if self._background is None or not frozen:
            super().draw()
            self.full_draws += 1
            renderer = self.get_renderer()
            # opaque static artists that must stay on top (a legend): their pixels, as just drawn
            self._sprites = [self.copy_from_bbox(a.get_window_extent(renderer).padded(1))
                             for a in self._overlays() if a is not None and a.get_visible()]
            if frozen:
                self._background = self.copy_from_bbox(self.figure.bbox)
                if key is not None:
                    self._saved.pop(key, None)
                    self._saved[key] = (self._background, self._sprites)
                    while len(self._saved) > self.SAVED_BACKGROUNDS:
                        del self._saved[next(iter(self._saved))]
        else:
            self.restore_region(self._background)
        renderer = self.get_renderer()
        for a in arts:
            a.draw(renderer)
        for sprite in self._sprites:
            self.restore_region(sprite)


__all__: list[str] = []  # the blitting canvas is the panel machine's own (ensemble_lib.ui.panel)
