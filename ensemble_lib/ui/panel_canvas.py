"""The panel's canvas and image: blitting with kept backgrounds, one layout pass, a lazy first image.

A panel with :attr:`FigurePanel.blit <ensemble_lib.ui.panel.FigurePanel.blit>` draws on a
:class:`BlitCanvas`.

Only the panel's animated artists are redrawn at each step, over a cached image of the rest of
the figure; the backgrounds of the last few settings of the static parts (the panel's
:meth:`~ensemble_lib.ui.panel.FigurePanel.background_key`) are kept, so a slider moved back and
forth draws the whole figure once per setting. Opaque static artists over the data (a legend)
are put back on top after each redraw.

A panel's figure is laid out once, when the panel is built (:func:`lay_out_once`: the layout
engine's pass alone, without drawing or encoding the figure). A panel built inside
:func:`unseen_panels` (an exercise's solution that builds a panel of its own to read its state,
:func:`~ensemble_lib.ui.solution.solution`) renders no image until someone can see it
(:class:`LazyImage`, :class:`PanelBox`): its steps compute and draw their states, and the image is
rendered when the panel is first displayed or its image's bytes first read; from then on every
step renders at once, as every other panel's does.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterable, Iterator

import ipywidgets as widgets
import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.mathtext import MathTextParser


#: The mathtext parsers every panel's renderer shares, one per kind of output. Each Agg renderer
#: makes a parser of its own, which caches what it parses, so every new panel parsed its math tick
#: labels (``$10^{-2}$`` on a log axis) afresh with pyparsing: most of lesson 2's panel's layout
#: pass. A parse depends only on the text, dpi and font, never on the renderer, so a shared parser
#: draws the same pixels. Its kind must be the renderer's own: Agg asks for "path" output from
#: matplotlib 3.9 on and for "agg" (raster) output before (the oldest declared version, 3.8).
_MATHTEXT: dict[str, MathTextParser] = {}
_OUTPUT_NAMES = {"vector": "path", "raster": "agg"}


def _shared_parser(own: MathTextParser) -> MathTextParser:
    kind = getattr(own, "_output_type", None)
    if kind not in _OUTPUT_NAMES:
        return own  # a matplotlib whose parser we do not know: keep the renderer's own
    if kind not in _MATHTEXT:
        _MATHTEXT[kind] = MathTextParser(_OUTPUT_NAMES[kind])
    return _MATHTEXT[kind]


#: Whether the layout engine alone puts the axes where a first draw does. Measured: it does with
#: matplotlib 3.11, not with 3.8 (the oldest declared), whose constrained layout then lands up to
#: 0.013 of the figure off; there a draw that rasterises nothing makes the layout instead (slower,
#: the same positions by construction). tests/ui/test_panel_canvas.py checks either way.
_LAYOUT_ALONE = tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 11)


def lay_out_once(fig) -> None:
    """Run ``fig``'s layout engine once (if it has one), then freeze the layout (engine "none").

    The same pass :meth:`matplotlib.figure.Figure.draw` makes first, with the same Agg renderer,
    so the axes land where a first full draw would put them; but nothing is drawn or encoded
    (that first draw was about half of building a panel). Later renders make no layout pass.
    The figure's renderer parses mathtext with a parser the panels share.
    """
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)  # the renderer every later render uses (fast_png's canvas)
    renderer = fig.canvas.get_renderer()
    if isinstance(getattr(renderer, "mathtext_parser", None), MathTextParser):
        renderer.mathtext_parser = _shared_parser(renderer.mathtext_parser)
    engine = fig.get_layout_engine()
    if engine is None:
        return
    if fig.axes:
        if _LAYOUT_ALONE:
            try:
                engine.execute(fig)
            except ValueError:  # as Figure.draw: a layout that cannot be made leaves the positions
                pass
        else:  # the layout of a draw that rasterises nothing
            fig.draw_without_rendering()
    fig.set_layout_engine("none")


#: Held while a panel draws and renders. matplotlib's text rendering (FreeType) is not
#: thread-safe, and ipykernel 7 may handle widget messages on a subshell's thread while another
#: thread draws (a clean-clone browser run saw FreeType fail mid-drag, "invalid outline" and
#: "raster overflow", in lesson 5's stream): every panel step draws under this one lock.
DRAW_LOCK = threading.RLock()

#: True inside :func:`unseen_panels`: panels built then render no image until they are shown
_UNSEEN = contextvars.ContextVar("ensemble_panels_unseen", default=False)


@contextlib.contextmanager
def unseen_panels() -> Iterator[None]:
    """Panels built inside this block render no image until displayed or their image is read.

    For a block whose panels nobody sees (an exercise's solution builds a panel of its own and
    reads its ``state``): their steps compute and draw as always, but the rendering (a full Agg
    draw and an encode per step) waits until the panel is displayed or its ``image.value`` read,
    which then shows the current figure at once. Blocks nest; panels built outside are unaffected.
    """
    token = _UNSEEN.set(True)
    try:
        yield
    finally:
        _UNSEEN.reset(token)


def building_unseen() -> bool:
    """Whether a panel built now is one nobody sees yet (inside :func:`unseen_panels`)."""
    return _UNSEEN.get()


class LazyImage(widgets.Image):
    """A panel's image widget whose bytes may be rendered late: on the first read of ``value``.

    While :attr:`on_read` is set (the panel has not been displayed, nor its image read), reading
    ``value`` first calls it; the panel then renders its current figure into ``value`` (if a
    step left it unrendered) and renders every later step at once (:class:`PanelBox`).
    """

    #: called (once) before ``value`` is first read; None once the panel renders every step
    on_read = None

    def __getattribute__(self, name):
        if name == "value":
            hook = object.__getattribute__(self, "on_read")
            if hook is not None:
                hook()
        return super().__getattribute__(name)


class PanelBox(widgets.VBox):
    """The box a panel shows (its ``widget``): displaying it first renders a pending image.

    :attr:`on_show` (the panel's, like :attr:`LazyImage.on_read`) runs before the box's display
    data is made, so the image's bytes reach the front end before the view that shows them: a
    displayed panel shows its image at once, in JupyterLab, Voilà and nbval alike.
    """

    #: called before the box is displayed; None once the panel renders every step
    on_show = None

    def _repr_mimebundle_(self, **kwargs):
        if self.on_show is not None:
            self.on_show()
        return super()._repr_mimebundle_(**kwargs)


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


class ShownWhenSeen:
    """A panel built inside :func:`unseen_panels` is laid out, drawn and rendered only when first
    shown: a base class of :class:`FigurePanel <ensemble_lib.ui.panel.FigurePanel>`, which supplies
    ``fig``, ``image`` (a :class:`LazyImage`), ``widget`` (a :class:`PanelBox`), ``draw``,
    ``render`` (which calls :meth:`_catch_up` first), ``_show_refusal`` and ``_show_error``, and
    whose steps, while ``_live`` is false, only record their state (``_undrawn``, ``_unrendered``).
    """

    _live = True  # every step draws and renders at once
    _laid_out = True
    _undrawn = None  # the last state a step shown unseen left undrawn
    _unrendered = False  # a step was shown unseen and not rendered

    def _start_drawing(self) -> None:
        """At construction: lay the figure out now, once; or (built unseen) when first shown."""
        self._live, self._laid_out, self._undrawn, self._unrendered = not building_unseen(), False, None, False
        if self._live:
            self._catch_up()

    def _hook_first_sight(self) -> None:
        """At construction, once ``image`` and ``widget`` exist: a panel built unseen goes live
        when its widget is displayed or its image read."""
        if not self._live:
            self.image.on_read = self.widget.on_show = self._go_live

    def _catch_up(self) -> None:
        """Lay the figure out (once) and draw the last state shown, where a panel built unseen put them off."""
        if not self._laid_out:
            self._laid_out = True
            lay_out_once(self.fig)  # the layout pass alone, once; later steps redraw without one
        state, self._undrawn = self._undrawn, None
        if state is not None:
            self.draw(state)

    def _go_live(self) -> None:
        """When a panel built unseen is first displayed or its image first read: lay out, draw and
        render what its steps put off, and from now on draw and render every step at once. A
        ``draw`` that fails here is shown in the status line, as in a step.
        """
        self._live = True
        self.image.on_read = self.widget.on_show = None
        with DRAW_LOCK:
            try:
                if self._unrendered:
                    self.image.value = self.render()
                else:
                    self._catch_up()
            except (ValueError, RuntimeError, ArithmeticError) as exc:
                self._show_refusal(exc)
            except Exception as exc:  # noqa: BLE001 - a display hook must never lose an error
                self._show_error(exc)
            finally:
                self._unrendered = False


__all__: list[str] = []  # the blitting canvas is the panel machine's own (ensemble_lib.ui.panel)
