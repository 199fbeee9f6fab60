"""Interactive panels: sliders that recompute with the library and redraw a figure in place.

Every lesson's interactive section is a :class:`FigurePanel` subclass, listed
in the one registry :data:`ensemble_lib.lessons.PANELS`. A lesson's panel
supplies only

* ``compute(**values)``: a pure function of the control values that calls the
  library and returns a state object (a frozen dataclass);
* ``draw(state)``: updates the figure's artists in place (no rebuild);
* ``format_readout(state)``: the HTML under the figure;
* where needed, ``inactive_controls(**values)`` (controls the values make
  irrelevant, shown disabled) and ``link_controls(name, value)`` (controls
  that follow another one, e.g. a selector that moves several sliders).

The base class owns the machinery:

* the figure is rendered by Agg to PNG (or JPEG, :attr:`~FigurePanel.image_format`)
  into an ``ipywidgets.Image`` at the panel's :attr:`~FigurePanel.dpi`, shown at
  exactly its pixel size. This works the same in JupyterLab, Voilà,
  nbval and headless tests, and keeps each step's cost in the kernel, where it
  can be measured;
* the layout is computed once; a panel may opt in to blitting
  (:attr:`~FigurePanel.blit`): only :meth:`~FigurePanel.animated_artists` are
  redrawn over a cached image of the rest, which
  :meth:`~FigurePanel.invalidate_background` renews when it changes. An axis whose range
  follows the data does so in nice steps (:meth:`~FigurePanel.follow_range`), so its ticks stay
  in the cached image until the range changes; an opaque legend over the data is put back on
  top after each redraw (:meth:`~FigurePanel.overlay_artists`). The backgrounds of the last few
  ranges (:meth:`~FigurePanel.background_key`) are kept, so moving a slider back and forth
  draws the whole figure once per range, not at every step;
* :meth:`~FigurePanel.hold` holds updates while several controls change and
  updates once at the end;
* errors from a bad value are shown in the panel's status line (never lost in
  a log), and the previous figure stays; a value typed into a slider's box
  (:attr:`~FigurePanel.boxes`) that is out of range is clamped and one that is
  not a number refused, and the status line says so; an unexpected error (a bug) is shown
  there too, with its type and the line that raised it;
* sliders follow a drag (``continuous_update=True``) and changes are
  coalesced: the newest value wins, stale ones are dropped, the final value is
  always drawn (see *Live sliders* below);
* controls stay enabled while a step runs (a drag is never cut off, a second
  drag during a slow step is not lost: it is drawn next); a control the current
  values make irrelevant is shown disabled (:meth:`FigurePanel.inactive_controls`);
  a slow step (the last one took more than :data:`SLOW_STEP_S`) says
  "computing…" in the status line;
* helpers: :meth:`~FigurePanel.slider` (the one slider factory),
  :meth:`~FigurePanel.readout_table` (an HTML table) and
  :meth:`~FigurePanel.replace_artists` (e.g. new contours for old);
* a compact layout (:data:`PANEL_CSS`), so that a panel with its controls,
  figure, readout and status line fits on a 1366 × 768 screen in JupyterLab:
  control rows that share their width (a slider's track takes what its label
  and value box leave), toggle buttons as wide as their text, readout and status
  lines at 1.35 × the font size (ipywidgets sets every HTML widget's line height
  to a control's 28 px), a readout of label/value pairs two pairs to a row, and
  the readout beside the figure where both fit side by side
  (:attr:`~FigurePanel.readout_beside`). Font sizes stay JupyterLab's (13 px).

Live sliders: how changes reach the kernel, and how they are coalesced
-----------------------------------------------------------------------
The kernel handles comm messages one at a time, so a step that is slower than
the messages arrive would build a queue, unless something drops stale values.
Two things do:

1. the front end (``@jupyter-widgets/base`` 8, in JupyterLab and Voilà alike)
   keeps at most one update message per widget in flight; changes made while
   one is pending are merged into a buffer (newest value wins) that is sent
   when the kernel reports the pending one done (``status: idle``). A drag
   therefore sends the value current when the kernel is ready, never a backlog;
2. the kernel side: a change that comes from the front end (it is applied by
   ``Widget.set_state``, which holds the property lock of the trait it sets)
   does not compute in the message handler; it marks the panel dirty and
   schedules one flush on the kernel's event loop (``call_soon``). Messages
   already waiting (several widgets, a front end without the throttle, a
   burst) are all applied before the flush runs, and the flush computes once
   with the newest values. As the handler returns at once, the front end's
   next value is sent while the step computes (pipelining: frames come at
   the step's rate, not step + round trip).

A change made by code (``slider.value = x`` in a cell, a test, nbval) updates
synchronously, as before: the next line sees the new figure and readout.
Without a running event loop (plain scripts, tests) front-end changes update
synchronously too.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from .plotting import fast_jpeg, fast_png, nice_range
from .plotting import replace_artists as _replace_artists

#: Resolution of a panel's PNG unless the panel sets its own :attr:`FigurePanel.dpi`
#: (the suite's ``figure.dpi``, see :func:`~ensemble_lib.ui.plotting.set_style`).
PANEL_DPI = 100

_STYLE = {"description_width": "initial"}

#: A step slower than this (seconds) makes the next one say "computing…" in the status line.
SLOW_STEP_S = 0.25
#: A streaming step (:meth:`FigurePanel.compute_stream`) shows a new frame about this often (seconds).
STREAM_FRAME_S = 0.05
#: Coalescing of front-end changes (seconds): a flush waits for a pause this long in the changes,
COALESCE_QUIET_S = 0.006
#: and for this long after the previous step ended (so that a backlog of messages is read first),
COALESCE_GAP_S = 0.010
#: but never longer than this after the first change it covers (frames keep coming during a burst).
COALESCE_MAX_WAIT_S = 0.1


_NUMERIC_SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)

#: The panels' style sheet, in a hidden HTML widget of each panel (ipywidgets gives no other way
#: to style a widget's inside; it works alike in JupyterLab, Voilà and the classic notebook).
#: Everything is scoped to the class ``ensemble-panel``. Sizes are in em of the widgets' font
#: (JupyterLab's 13 px), which is never made smaller.
PANEL_CSS = """
.ensemble-panel > .panel-controls { flex-wrap: wrap; column-gap: 1em; }
.ensemble-panel > .panel-controls > * { flex: 1 1 auto; min-width: 0; }
.ensemble-panel > .panel-controls > .panel-slider > .widget-slider { flex: 1 1 auto; width: auto; min-width: 0; }
.ensemble-panel > .panel-controls > .panel-slider .slider-container { flex: 1 1 8em; min-width: 5em; }
.ensemble-panel > .panel-controls > .panel-slider > .panel-value-box { flex: 0 0 6em; width: 6em; }
.ensemble-panel > .panel-controls > .widget-toggle-buttons { display: flex; align-items: baseline;
  flex: 0 0 auto; width: auto; }
.ensemble-panel > .panel-controls > .widget-toggle-buttons > div { display: flex; flex-wrap: nowrap; }
.ensemble-panel > .panel-controls .widget-toggle-button { width: auto; padding: 0 0.8em; }
.ensemble-panel > .panel-controls > .widget-checkbox, .ensemble-panel > .panel-controls > .widget-dropdown {
  flex: 0 1 auto; width: auto; }
.ensemble-panel > .panel-controls > .widget-dropdown > select { flex: 0 1 auto; }
.ensemble-panel > .panel-readout > .widget-html-content,
.ensemble-panel > .panel-status > .widget-html-content { line-height: 1.35; }
.ensemble-panel > .panel-status > .widget-html-content { min-height: 1.35em; }
.ensemble-panel .panel-readout table { border-collapse: collapse; margin: 0.15em 0 0.25em; }
.ensemble-panel .panel-readout th, .ensemble-panel .panel-readout td {
  padding: 0.05em 1.2em 0.05em 0; text-align: left; vertical-align: top; }
.ensemble-panel .panel-readout th { font-weight: 600; }
.ensemble-panel .panel-readout td.panel-pair { padding-left: 1.2em; border-left: 1px solid #ddd; }
.ensemble-panel.panel-readout-beside { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  column-gap: 1.5em; align-items: start; }
.ensemble-panel.panel-readout-beside > :not(.widget-image):not(.panel-readout) { grid-column: 1 / -1; }
"""

#: Width (CSS px) of a notebook's output area on a 1366 px wide screen in JupyterLab with its file
#: browser open (measured: 934 px); a readout narrower than this less the figure goes beside it.
OUTPUT_WIDTH_PX = 930
#: The narrowest readout column (CSS px) beside a figure (:attr:`FigurePanel.readout_beside`).
READOUT_BESIDE_MIN_PX = 340


#: Held while a panel draws and renders. matplotlib's text rendering (FreeType) is not
#: thread-safe, and ipykernel 7 may handle widget messages on a subshell's thread while another
#: thread draws (a clean-clone browser run saw FreeType fail mid-drag, "invalid outline" and
#: "raster overflow", in lesson 5's stream): every panel step draws under this one lock.
DRAW_LOCK = threading.RLock()


def _running_loop():
    """The running asyncio event loop (a kernel's), or None (a plain script or test)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _from_front_end(change) -> bool:
    """True for a change applied from a front-end message (``Widget.set_state`` holds its lock)."""
    return change.get("name") in getattr(change.get("owner"), "_property_lock", {})


def grid_value(ctl, value: float) -> float:
    """Where a front end puts ``value`` on the slider ``ctl``: its nearest grid point.

    The front end (noUiSlider) snaps a slider's position to ``min + k·step`` (for a
    ``FloatLogSlider``, in the exponent) and, with ``continuous_update``, sends the snapped
    value back as soon as it draws the slider. ``value`` itself for other controls.
    """
    if isinstance(ctl, widgets.FloatLogSlider):
        if not ctl.step or value <= 0:
            return value
        x = np.log(value) / np.log(ctl.base)
        x = min(max(ctl.min + round((x - ctl.min) / ctl.step) * ctl.step, ctl.min), ctl.max)
        return float(ctl.base ** x)
    if isinstance(ctl, widgets.FloatSlider) and ctl.step:
        return float(min(max(ctl.min + round((value - ctl.min) / ctl.step) * ctl.step, ctl.min), ctl.max))
    return value


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


class _BlitCanvas(FigureCanvasAgg):
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


class FigurePanel:
    """Base class: ``controls`` (name → widget), a figure, a readout and a status line.

    Parameters
    ----------
    controls : dict
        Control name → widget; ``compute`` receives the values by these names.
    fig : matplotlib.figure.Figure
        The figure, with every artist ``draw`` updates already made.
    columns : int, optional
        Controls per row above the figure.

    Attributes
    ----------
    widget : ipywidgets.VBox
        What a notebook displays: the controls, the image, the readout, the status line
        (and a hidden style sheet, :data:`PANEL_CSS`). Controls come in rows of ``columns``
        (``HBox``, class ``panel-controls``); each numeric slider is shown in an ``HBox``
        (class ``panel-slider``) with its box.
    boxes : dict
        Slider name → the ``ipywidgets.Text`` showing its value, where a value can be typed.
    state : object
        The last state ``compute`` returned (after a successful update).
    n_updates : int
        Successful updates so far.
    last_error : str or None
        ``"Type: message"`` of the last failed update, None after a good one.
    """

    #: Resolution of the panel's PNG (dots per inch); a panel with a costly figure may set less.
    dpi: float = PANEL_DPI
    #: Redraw only :meth:`animated_artists` at each step over a cached image of the rest.
    #: Only for panels whose other artists (axes, ticks, labels) never change, or change
    #: seldom and call :meth:`invalidate_background` when they do.
    blit: bool = False
    #: Encoding of the image widget: ``"png"`` (lines stay crisp: the default) or ``"jpeg"``
    #: (filled contours and densities: about ten times faster to encode, half the bytes).
    image_format: str = "png"
    #: Show the readout to the right of the figure instead of under it: None (the default)
    #: decides by the figure's width, beside it when at least :data:`READOUT_BESIDE_MIN_PX`
    #: of :data:`OUTPUT_WIDTH_PX` are left for the readout.
    readout_beside: bool | None = None
    _held = 0
    _dirty = False
    _flush_handle = None
    _last_step_s = 0.0
    _last_end = _last_change = _dirty_since = 0.0
    _stream = None
    #: per control, the value code last set (the start value, a snap, a linked control) while
    #: the slider shows it at its nearest grid point (see :meth:`_on_change`)
    _exact: dict

    def __init__(self, controls: dict, fig, columns: int = 3):
        self.controls = dict(controls)
        self.fig = fig
        self._held = 0
        self._dirty = False
        self._flush_handle = None
        self._last_step_s = 0.0
        fig.set_dpi(self.dpi)
        if self.blit:
            _BlitCanvas(fig, self.animated_artists, self.overlay_artists, self.background_key)
        # lay the figure out once; later steps redraw without a layout pass
        if fig.get_layout_engine() is not None:
            fast_png(fig)
            fig.set_layout_engine("none")
        # shown at the size it is rendered (CSS size = pixel size: never stretched or blurred)
        width, height = fig.canvas.get_width_height()
        self.image = widgets.Image(format=self.image_format, layout=widgets.Layout(
            width=f"{width}px", height=f"{height}px", max_width="100%", object_fit="contain"))
        self.readout = widgets.HTML()
        self.status = widgets.HTML()
        self.n_updates = 0
        self.last_error: str | None = None
        self._exact = {name: ctl.value for name, ctl in self.controls.items()}
        for ctl in self.controls.values():
            ctl.observe(self._on_change, names="value")
        # each numeric slider shows its value in a box of the panel's own (not the slider's
        # readout, which clamps or drops a typed value without a word): a typed value that is
        # refused or clamped is said in the status line (_on_typed)
        self.boxes: dict[str, widgets.Text] = {}
        self._syncing = False
        items = []
        for name, ctl in self.controls.items():
            if isinstance(ctl, _NUMERIC_SLIDERS):
                ctl.readout = False
                box = widgets.Text(value=self._formatted(ctl), continuous_update=False,
                                   layout=widgets.Layout(width="6em"))
                box.add_class("panel-value-box")
                box.observe(lambda change, name=name: self._on_typed(name, change["new"]), names="value")
                ctl.observe(lambda change, name=name: self._sync_box(name), names="value")
                self.boxes[name] = box
                items.append(widgets.HBox([ctl, box]).add_class("panel-slider"))
            else:
                items.append(ctl)
        rows = [widgets.HBox(items[i : i + columns]).add_class("panel-controls")
                for i in range(0, len(items), columns)]
        self.readout.add_class("panel-readout")
        self.status.add_class("panel-status")
        # the style sheet comes last: the readout and the status line stay the panel's first HTML widgets
        self._css = widgets.HTML(f"<style>{PANEL_CSS}</style>", layout=widgets.Layout(display="none"))
        self.widget = widgets.VBox([*rows, self.image, self.readout, self.status, self._css])
        self.widget.add_class("ensemble-panel")
        beside = self.readout_beside
        if beside is None:
            beside = width + READOUT_BESIDE_MIN_PX <= OUTPUT_WIDTH_PX
        if beside:
            self.widget.add_class("panel-readout-beside")
        self._set_disabled(False)  # controls irrelevant at the start values are shown disabled

    # -- to be supplied by a lesson ---------------------------------------
    def compute(self, **values):  # pragma: no cover - abstract
        """The state (a frozen dataclass) for these control values; raise ValueError for a bad one."""
        raise NotImplementedError

    def draw(self, state) -> None:  # pragma: no cover - abstract
        """Update the figure's artists in place for ``state``."""
        raise NotImplementedError

    def compute_stream(self, **values) -> Iterator:
        """The states of one step as they fill in, the last one complete; default: ``compute`` alone.

        A panel whose computation is itself the lesson (a long run) yields a first
        state quickly and then better ones; the figure shows each as it comes
        (only for a change made in the front end; code and tests get the last one).
        ``compute(**values)`` must equal the last state.
        """
        yield self.compute(**values)

    def format_readout(self, state) -> str:
        """The HTML shown under the figure for ``state`` (see :meth:`readout_table`)."""
        return ""

    def inactive_controls(self, **values) -> set[str]:
        """Names of controls that ``values`` make irrelevant; they are shown disabled.

        A control the computation ignores in some state (e.g. a prior
        precision slider while the hyperparameters are being adapted) must not
        look movable: override this to name it. Default: none.
        """
        return set()

    def link_controls(self, name: str, value) -> None:
        """Set controls that follow control ``name``, which the user just set to ``value``.

        Called with updates held (:meth:`hold`): the controls set here cause
        no update of their own and do not call this again; one update
        follows. E.g. a selector that moves several sliders at once, or a
        slider whose range depends on another control. Default: nothing.
        """

    def animated_artists(self) -> list:
        """The artists redrawn at every step when :attr:`blit` is set, in drawing order.

        Everything else is drawn once and cached, so it must never change
        (a changing axis or title belongs here too). Default: none.
        """
        return []

    def overlay_artists(self) -> list:
        """Static artists drawn on top of :meth:`animated_artists` (with :attr:`blit`): a legend
        over the data. They must be opaque: their pixels are kept from the last full draw and put
        back after each step's redraw. A panel that changes one calls :meth:`invalidate_background`.
        Default: none.
        """
        return []

    def background_key(self):
        """A hashable that fixes every static pixel (with :attr:`blit`), or None (the default).

        A panel whose static parts take a few forms (axis ranges in nice steps, a legend with or
        without a line) returns what decides them, e.g. the axis limits: the backgrounds drawn for
        the last few keys are kept, and :meth:`invalidate_background` followed by a key seen
        before restores that background instead of drawing the whole figure. It must change
        whenever a static pixel does (tests/test_panels.py compares every such panel's steps
        with full redraws).
        """
        return None

    # -- helpers for lessons --------------------------------------------------
    @staticmethod
    def slider(description: str, value, lo, hi, *, step=None, log: bool = False, units: str = "",
               readout_format: str | None = None) -> widgets.Widget:
        """The one slider factory of the panels: a slider over ``[lo, hi]`` starting at ``value``.

        Parameters
        ----------
        description : str
            The label.
        value, lo, hi : float or int
            Start value and range, in the quantity's own units (also when ``log``).
            Integers (and not ``log``) give an ``IntSlider``.
        step : float or int, optional
            Step of the slider; in powers of ten when ``log``. Default 1 for
            integers, else 0.1.
        log : bool, optional
            A ``FloatLogSlider`` (base 10): equal steps in log10 of the value.
        units : str, optional
            Appended to the label as ``"description (units)"``.
        readout_format : str, optional
            Format of the number shown next to the slider.

        Returns
        -------
        ipywidgets.Widget
            It updates its panel while dragged (``continuous_update=True``; the
            panel coalesces the changes, see the module's docstring).
        """
        label = f"{description} ({units})" if units else description
        kw = dict(description=label, style=dict(_STYLE), continuous_update=True)
        if readout_format is not None:
            kw["readout_format"] = readout_format
        if log:
            return widgets.FloatLogSlider(value=value, base=10, min=np.log10(lo), max=np.log10(hi),
                                          step=0.1 if step is None else step, **kw)
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (value, lo, hi))
        if ints and (step is None or isinstance(step, (int, np.integer))):
            return widgets.IntSlider(value=value, min=lo, max=hi, step=1 if step is None else step, **kw)
        return widgets.FloatSlider(value=value, min=lo, max=hi, step=0.1 if step is None else step, **kw)

    @staticmethod
    def readout_table(rows: Iterable[Sequence], header: Sequence | None = None, pairs: int | None = None) -> str:
        """An HTML table: an optional header row, then one row per item of ``rows``.

        Every cell is converted with ``str`` and HTML-escaped. Label/value pairs (``rows`` of
        two cells, no ``header``) are set ``pairs`` to a table row, in columns (the first
        half of ``rows`` down the left, the rest down the right): by default two when there
        are four or more, which halves the readout's height (:data:`PANEL_CSS`).
        """
        def cells(row, tag, first=""):
            return "".join(f"<{tag}{first if i == 0 else ''}>{html.escape(str(c))}</{tag}>"
                           for i, c in enumerate(row))

        rows = [tuple(r) for r in rows]
        if pairs is None:
            pairs = 2 if header is None and len(rows) >= 4 and all(len(r) == 2 for r in rows) else 1
        pairs = max(1, int(pairs))
        head = f"<tr>{cells(header, 'th')}</tr>" if header else ""
        n = -(-len(rows) // pairs)  # table rows
        body = "".join(
            "<tr>" + "".join(cells(rows[k * n + i], "td", ' class="panel-pair"' if k else "")
                             for k in range(pairs) if k * n + i < len(rows)) + "</tr>"
            for i in range(n))
        return f"<table>{head}{body}</table>"

    def invalidate_background(self) -> None:
        """Redraw the static parts at the next step (with :attr:`blit`; a no-op without).

        For a panel whose static parts change now and then (new contours, new axis limits):
        the next render draws the whole figure and caches it again as the background of the
        steps that follow, which draw only :meth:`animated_artists` over it.
        """
        fig = self.__dict__.get("fig")  # None while a subclass draws before the base class is set up
        if fig is not None and isinstance(fig.canvas, _BlitCanvas):
            fig.canvas.invalidate()

    def follow_range(self, ax, x=None, y=None, *, steps: int = 5, pad: float = 0.03) -> bool:
        """Let ``ax``'s limits follow the data in nice steps: ``x`` and ``y`` are the ranges
        ``(lo, hi)`` to show (None: leave that axis), widened by
        :func:`~ensemble_lib.ui.plotting.nice_range` (in log10 on a log axis; ``pad`` keeps the
        tick labels at the limits inside the plot).

        Neighbouring slider values then share their limits, so the ticks can stay in the cached
        background (:attr:`blit`): when the limits do change, the background is drawn afresh
        once (:meth:`invalidate_background`). Returns whether they changed.
        """
        changed = False
        for rng, get, set_, scale in ((x, ax.get_xlim, ax.set_xlim, ax.get_xscale),
                                      (y, ax.get_ylim, ax.set_ylim, ax.get_yscale)):
            if rng is None:
                continue
            lim = nice_range(*rng, log=scale() == "log", steps=steps, pad=pad)
            if tuple(get()) != lim:
                set_(*lim)
                changed = True
        if changed:
            self.invalidate_background()
        return changed

    @staticmethod
    def axes_artists(ax) -> list:
        """Everything an Axes draws but its background, in drawing order (zorder).

        For :meth:`animated_artists`: a plot whose range or ticks change at each
        step is redrawn whole this way, over the cached rest of the figure.
        """
        kids = [a for a in ax.get_children() if a is not ax.patch and a.get_visible()]
        return sorted(kids, key=lambda a: a.get_zorder())

    #: Remove old artists and return the ones ``make()`` draws in their place
    #: (:func:`~ensemble_lib.ui.plotting.replace_artists`).
    replace_artists = staticmethod(_replace_artists)

    # -- machinery ----------------------------------------------------------
    def values(self) -> dict:
        """The current control values, by name.

        A value set by code is used exactly, also while the front end shows the slider at the
        grid point nearest to it (:meth:`_on_change`).
        """
        return {name: self._exact.get(name, ctl.value) for name, ctl in self.controls.items()}

    @contextlib.contextmanager
    def hold(self, update: bool = True) -> Iterator[FigurePanel]:
        """Hold updates while several controls change; update once at the end.

        Inside ``with panel.hold(): ...`` a control change causes no update and
        no :meth:`link_controls`; when the outermost hold ends (without an
        exception) the panel updates once, unless ``update`` is false. Holds nest.
        """
        self._held += 1
        try:
            yield self
        finally:
            self._held -= 1
        if update and not self._held:
            self.update()

    def _on_change(self, change) -> None:
        """The one callback of every control: link the controls, then one update; never raise.

        A value refused while linking the controls (a ``ValueError``, e.g. a selector set to
        ``None``) shows in the status line as in :meth:`update`; any other error as a bug.
        A change from the front end is coalesced (:meth:`_request_update`); one made by code
        updates at once.
        """
        name = next((n for n, c in self.controls.items() if c is change["owner"]), None)
        if name is not None:
            if not _from_front_end(change):
                self._exact[name] = change["new"]
            elif name in self._exact and _same(change["new"], grid_value(change["owner"], self._exact[name])):
                # the front end drew the slider at the grid point nearest to the value code set
                # (the start value, a snap to a fit) and sent that point back: not a move of the
                # user's; the panel keeps computing with the exact value, and nothing changes
                return
            else:
                self._exact.pop(name, None)
        if self._held:
            return
        try:
            with self.hold(update=False):
                if name is not None:
                    self.link_controls(name, change["new"])
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            self._show_refusal(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a widget callback must never lose an error
            self._show_error(exc)
            return
        self._request_update(deferred=_from_front_end(change))

    def _request_update(self, deferred: bool) -> None:
        """Update now, or (``deferred``, inside a kernel) mark the panel dirty and flush once soon.

        However many requests arrive before the flush runs, it computes once, with the
        values current then (newest wins); an update made in between makes it a no-op.
        The flush waits until the changes pause for :data:`COALESCE_QUIET_S` (a backlog
        of messages is drained first) and the last step ended :data:`COALESCE_GAP_S` ago,
        but never longer than :data:`COALESCE_MAX_WAIT_S` after the first change it covers.
        """
        loop = _running_loop() if deferred else None
        if loop is None:
            self.update()
            return
        now = time.perf_counter()
        if not self._dirty:
            self._dirty_since = now
        self._dirty = True
        self._set_busy(True)
        self._last_change = now
        if self._flush_handle is None:
            self._arm(loop)

    def _flush_due(self) -> float:
        """When the pending flush may run (``time.perf_counter`` seconds)."""
        due = max(self._last_end + COALESCE_GAP_S, self._last_change + COALESCE_QUIET_S)
        return min(due, self._dirty_since + COALESCE_MAX_WAIT_S)

    def _arm(self, loop) -> None:
        self._flush_handle = loop.call_later(max(0.0, self._flush_due() - time.perf_counter()), self._flush)

    def _flush(self) -> None:
        """The scheduled update of a dirty panel (never raises, as :meth:`update`)."""
        self._flush_handle = None
        if not self._dirty:
            self._set_busy(self._stream is not None)
            return
        loop = _running_loop()
        if loop is not None and time.perf_counter() < self._flush_due() - 1e-4:
            self._arm(loop)  # more changes came meanwhile: wait for the pause
            return
        self._step(stream=True)

    # -- typed values ---------------------------------------------------------------
    @staticmethod
    def _formatted(ctl) -> str:
        """A slider's value as its readout format writes it (Python's format of the d3 spec)."""
        fmt = getattr(ctl, "readout_format", "") or ""
        try:
            return format(ctl.value, fmt.replace("~", ""))
        except (ValueError, TypeError):
            return f"{ctl.value:g}"

    @staticmethod
    def _limits(ctl) -> tuple:
        if isinstance(ctl, widgets.FloatLogSlider):
            return ctl.base ** ctl.min, ctl.base ** ctl.max
        return ctl.min, ctl.max

    def _sync_box(self, name: str) -> None:
        """Show slider ``name``'s value in its box (without reading it back as typed)."""
        self._syncing = True
        try:
            self.boxes[name].value = self._formatted(self.controls[name])
        finally:
            self._syncing = False

    def _on_typed(self, name: str, text: str) -> None:
        """A value typed into a slider's box: set it, or clamp it and say so, or refuse it and say so."""
        if self._syncing:
            return
        ctl = self.controls[name]
        label = ctl.description or name
        lo, hi = self._limits(ctl)
        try:
            x = float(str(text).strip().replace("−", "-").replace("_", ""))
            if not np.isfinite(x):
                raise ValueError
        except ValueError:
            self._sync_box(name)
            self._say(f"“{str(text).strip()[:40]}” is not a number: {label} stays at {self._formatted(ctl)} "
                      f"(type a number in [{lo:g}, {hi:g}])")
            return
        value = min(max(x, lo), hi)
        note = None
        if value != x:
            note = f"{label} must be in [{lo:g}, {hi:g}]; set to {value:g}"
        if isinstance(ctl, widgets.IntSlider):
            if int(round(value)) != value and note is None:
                note = f"{label} takes whole numbers; set to {int(round(value))}"
            value = int(round(value))
        ctl.value = value  # a change by code: the panel updates now
        self._sync_box(name)
        if note is not None:
            self._say(note)

    def _say(self, text: str) -> None:
        """A note in the status line (not an error: the figure is current); the next step clears it."""
        self.status.value = "<span style='color:#7a4b00'>" + html.escape(text) + "</span>"

    def _show_refusal(self, exc: BaseException) -> None:
        """Put a value the library refused in the status line (the previous figure stays)."""
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = (
            "<span style='color:#b00020'>Not updated: " + html.escape(str(exc)) + "</span>"
        )

    def _show_error(self, exc: BaseException) -> None:
        """Put an unexpected error in the status line: type, message and the line that raised it."""
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" (in {frames[-1].name}, line {frames[-1].lineno})" if frames else ""
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = (
            "<span style='color:#b00020'>Error — the figure was not updated: "
            + html.escape(f"{type(exc).__name__}: {exc}{where}") + "</span>"
        )

    def _set_disabled(self, flag: bool) -> None:
        """Disable every control, or (``flag`` false) enable all but the inactive ones.

        Steps no longer disable the controls (a drag must not be cut off); the
        panel calls this with ``False`` after each step, which sends nothing
        when no control's state changes.
        """
        inactive = set() if flag else set(self.inactive_controls(**self.values()))
        for name, ctl in self.controls.items():
            ctl.disabled = flag or name in inactive

    def update(self):
        """Recompute from the current control values, redraw, re-render; return the state.

        A value the library refuses (ValueError, RuntimeError, ArithmeticError)
        is reported in the status line, any other error as a bug; either way
        the previous figure stays and None is returned. This computes with
        :meth:`compute`; only a front-end change, in a kernel, draws a streaming
        panel's :meth:`compute_stream` as it fills in (:meth:`_flush`).
        """
        return self._step(stream=False)

    def _step(self, stream: bool):
        """One step: compute (the first item of the stream only, if ``stream``), draw, show."""
        self._dirty = False
        self._stream = None  # a newer step supersedes a stream still filling in
        if stream:  # a deferred step: the kernel reports idle meanwhile (a code step keeps it busy)
            self._set_busy(True)
        if self._last_step_s > SLOW_STEP_S:
            self.status.value = "<i>computing…</i>"
        t0 = time.perf_counter()
        done = False
        try:
            if stream:
                states = iter(self.compute_stream(**self.values()))
                state = next(states)
            else:
                state = self.compute(**self.values())
            self._show(state)
            self.n_updates += 1
            done = True
            if stream:
                self._continue_later(states)
            return state
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            # a value the model refuses (or a fit that fails): say so, keep the old figure
            self._show_refusal(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - anything else is a bug: show it, never lose it
            self._show_error(exc)
            return None
        finally:
            self._last_end = time.perf_counter()
            self._last_step_s = self._last_end - t0
            self._set_disabled(False)
            self._set_busy(self._stream is not None or self._dirty)
            if done:
                # cleared last: a front end that sees "computing…" go sees the controls final
                # (the real-browser tests read a slider's enabled state right then)
                self.status.value = ""

    def _show(self, state) -> None:
        """Draw ``state``, render it into the image, write its readout (under :data:`DRAW_LOCK`)."""
        with DRAW_LOCK:
            self.draw(state)
            self.image.value = self.render()
            self.readout.value = self.format_readout(state)
            self.last_error = None
            self.state = state

    def _continue_later(self, states) -> None:
        loop = _running_loop()
        if loop is None:  # nothing will run it later: finish now
            state = None
            for state in states:
                pass
            if state is not None:
                self._show(state)
            return
        self._stream = states
        loop.call_soon(self._continue_stream, states)

    def _continue_stream(self, states) -> None:
        """Advance a stream for up to :data:`STREAM_FRAME_S`, show where it got; again later, until it ends.

        A newer step (or a pending front-end change) drops the stream.
        """
        if self._stream is not states or self._dirty:
            return  # superseded: the newer step or flush sets the busy mark
        t0 = time.perf_counter()
        state, finished = None, False
        try:
            while time.perf_counter() - t0 < STREAM_FRAME_S:
                try:
                    state = next(states)
                except StopIteration:
                    finished = True
                    break
            if state is not None:
                self._show(state)
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            self._stream = None
            self._show_refusal(exc)
            self._set_busy(self._dirty)
            return
        except Exception as exc:  # noqa: BLE001 - a widget callback must never lose an error
            self._stream = None
            self._show_error(exc)
            self._set_busy(self._dirty)
            return
        if finished:
            self._stream = None
            self._set_busy(self._dirty)
        else:
            self._continue_later(states)

    def _set_busy(self, flag: bool) -> None:
        """Mark the panel (CSS class ``panel-computing``) while a change is pending or a step or stream runs.

        A deferred step runs outside any kernel message, so the kernel reports itself idle
        meanwhile; this mark is how a front end (and the browser suite) sees that the
        figure is not final yet. It costs a message only when it changes.
        """
        has = "panel-computing" in self.widget._dom_classes
        if flag and not has:
            self.widget.add_class("panel-computing")
        elif not flag and has:
            self.widget.remove_class("panel-computing")

    def render(self) -> bytes:
        """The figure as laid out, encoded for the image widget (:attr:`image_format`)."""
        if self.image_format == "jpeg":
            return fast_jpeg(self.fig)
        return fast_png(self.fig)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
