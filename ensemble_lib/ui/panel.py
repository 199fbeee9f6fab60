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
* the layout is computed once (the layout pass alone, nothing drawn); a panel built inside
  :func:`~ensemble_lib.ui.panel_canvas.unseen_panels` (an exercise's solution's own panel) puts
  off its layout, drawing and rendering until it is displayed or its image read;
  a panel may opt in to blitting
  (:attr:`~FigurePanel.blit`): only :meth:`~FigurePanel.animated_artists` are
  redrawn over a cached image of the rest, which
  :meth:`~FigurePanel.invalidate_background` renews when it changes. An axis whose range
  follows the data does so in nice steps (:meth:`~FigurePanel.follow_range`), so its ticks stay
  in the cached image until the range changes; an opaque legend over the data is put back on
  top after each redraw (:meth:`~FigurePanel.overlay_artists`). The backgrounds of the last few
  ranges (:meth:`~FigurePanel.background_key`) are kept, so moving a slider back and forth
  draws the whole figure once per range, not at every step;
* :meth:`~FigurePanel.hold` holds updates while several controls change and
  updates once at the end (:meth:`~FigurePanel.set_values` sets several at once);
* every panel has a "Reset" button after its last control: :meth:`~FigurePanel.reset` puts
  every control back where the panel was built (its value, and a slider's range) and updates
  once, so the panel shows its start state again;
* :meth:`~FigurePanel.memo` is the panels' one cache of computed states (keyed, at most
  :attr:`~FigurePanel.MEMO_SIZE`, least recently used first out: :class:`~.memo.LRUMemo`);
* errors from a bad value are shown in the panel's status line (never lost in
  a log), and the previous figure stays; a value typed into a slider's box
  (:attr:`~FigurePanel.boxes`) that is out of range is clamped and one that is
  not a number refused, and the status line says so; an unexpected error (a bug) is shown
  there too, with its type and the line that raised it;
* sliders follow a drag (``continuous_update=True``) and changes are
  coalesced: the newest value wins, stale ones are dropped, the final value is
  always drawn (see :mod:`.panel_live`);
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

Live sliders (how changes reach the kernel, and how they are coalesced) are described in
:mod:`ensemble_lib.ui.panel_live`. The machine is split by concept: the blitting canvas
(:mod:`.panel_canvas`), the controls (:mod:`.panel_controls`), the readout and status line
(:mod:`.panel_readout`), typed values, status notes and the step acknowledgement
(:mod:`.panel_status`), the live updates (:mod:`.panel_live`) and the memo (:mod:`.memo`);
every name is importable from here as before.
"""

from __future__ import annotations

import abc
import contextlib
import time
from collections.abc import Callable, Hashable, Iterator

import ipywidgets as widgets

from . import panel_controls as _controls
from .panel_checks import (check_axes, check_control_name, check_flag, check_panel_args, check_range, check_state,
                           check_values, guard_hooks)
from .memo import LRUMemo
from .panel_canvas import DRAW_LOCK, BlitCanvas, LazyImage, PanelBox, ShownWhenSeen
from .panel_controls import NUMERIC_SLIDERS, grid_value, same_value
from .panel_live import (COALESCE_GAP_S, COALESCE_MAX_WAIT_S, COALESCE_QUIET_S, SLOW_STEP_S,
                         STREAM_FRAME_S, LiveUpdates, from_front_end)
from .panel_readout import OUTPUT_WIDTH_PX, PANEL_CSS, READOUT_BESIDE_MIN_PX, readout_table
from .panel_status import PanelStatus
from .plotting import fast_jpeg, fast_png, nice_range
from .plotting import replace_artists as _replace_artists


#: Resolution of a panel's PNG unless the panel sets its own :attr:`FigurePanel.dpi`
#: (the suite's ``figure.dpi``, see :func:`~ensemble_lib.ui.plotting.set_style`).
PANEL_DPI = 100





class FigurePanel(LiveUpdates, ShownWhenSeen, PanelStatus):
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
    step_mark : ipywidgets.HTML
        Hidden, the widget's last child: the acknowledgement of the last finished step, its
        number (:attr:`n_published`) and the value-box texts it was computed from, sent after
        the step's image and readout (:meth:`_publish_step`; the real-browser tests wait for it).
    n_published : int
        Steps acknowledged so far (one at construction, one per update, refusal or streamed frame).
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
    #: How many computed states :meth:`memo` keeps, the least recently used going first
    #: (0: none, every step computes).
    MEMO_SIZE: int = 64
    _held = 0
    #: per control, the value code last set (the start value, a snap, a linked control) while
    #: the slider shows it at its nearest grid point (see :meth:`_on_change`)
    _exact: dict

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        guard_hooks(cls)  # a hook called with what the panel lacks: a named ValueError (panel_checks)

    def __init__(self, controls: dict, fig, columns: int = 3):
        check_panel_args(controls, fig, columns)
        self.controls = dict(controls)
        self.fig = fig
        self._held = 0
        self._dirty = False
        self._flush_handle = None
        self._last_step_s = 0.0
        fig.set_dpi(self.dpi)
        if self.blit:
            BlitCanvas(fig, self.animated_artists, self.overlay_artists, self.background_key)
        self._start_drawing()  # laid out now, once; or, built unseen, when first shown (panel_canvas)
        # shown at the size it is rendered (CSS size = pixel size: never stretched or blurred)
        width, height = fig.canvas.get_width_height()
        self.image = LazyImage(format=self.image_format, layout=widgets.Layout(
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
            if isinstance(ctl, NUMERIC_SLIDERS):
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
        rows = [items[i : i + columns] for i in range(0, len(items), columns)] or [[]]
        # every panel's "Reset" button, after its last control (in that row: no row of its own)
        self.reset_button = _controls.reset_button()
        self.reset_button.on_click(lambda _button: self.reset())
        rows[-1].append(self.reset_button)
        rows = [widgets.HBox(row).add_class("panel-controls") for row in rows]
        self.readout.add_class("panel-readout")
        self.status.add_class("panel-status")
        # the style sheet comes last: the readout and the status line stay the panel's first HTML widgets
        self._css = widgets.HTML(f"<style>{PANEL_CSS}</style>", layout=widgets.Layout(display="none"))
        # the step acknowledgement (hidden, last): see _publish_step
        self.step_mark = widgets.HTML(layout=widgets.Layout(display="none"))
        self.step_mark.add_class("panel-step")
        self.n_published = 0
        self._step_boxes: list[str] = []
        self._published_boxes: list[str] = []
        self.widget = PanelBox([*rows, self.image, self.readout, self.status, self._css, self.step_mark])
        self._hook_first_sight()
        self.widget.add_class("ensemble-panel")
        beside = self.readout_beside
        if beside is None:
            beside = width + READOUT_BESIDE_MIN_PX <= OUTPUT_WIDTH_PX
        if beside:
            self.widget.add_class("panel-readout-beside")
        self._set_disabled(False)  # controls irrelevant at the start values are shown disabled
        # what reset() puts back: each control's value (as code set it) and a slider's range
        self._start = {name: {**_controls.control_start(ctl), "value": self._exact[name]}
                       for name, ctl in self.controls.items()}
        self._publish_step(self._box_texts())  # step 0: the start values, nothing drawn yet

    # -- to be supplied by a lesson ---------------------------------------
    @abc.abstractmethod
    def compute(self, **values):  # pragma: no cover - abstract
        """The state (a frozen dataclass) for these control values; raise ValueError for a bad one."""
        raise NotImplementedError

    @abc.abstractmethod
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
        check_values(self, type(self).compute, (), values)
        return iter((self.compute(**values),))

    def format_readout(self, state) -> str:
        """The HTML shown under the figure for ``state`` (see :meth:`readout_table`)."""
        check_state(FigurePanel.format_readout, state)
        return ""

    def inactive_controls(self, **values) -> set[str]:
        """Names of controls that ``values`` make irrelevant; they are shown disabled.

        A control the computation ignores in some state (e.g. a prior
        precision slider while the hyperparameters are being adapted) must not
        look movable: override this to name it. Default: none.
        """
        check_values(self, type(self).compute, (), values)
        return set()

    def link_controls(self, name: str, value) -> None:
        """Set controls that follow control ``name``, which the user just set to ``value``.

        Called with updates held (:meth:`hold`): the controls set here cause
        no update of their own and do not call this again; one update
        follows. E.g. a selector that moves several sliders at once, or a
        slider whose range depends on another control. Default: nothing.
        """
        check_control_name(self, name)

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
        whenever a static pixel does (tests/ui/test_panel.py compares every such panel's steps
        with full redraws).
        """
        return None

    # -- helpers for lessons --------------------------------------------------
    #: The one slider factory of the panels (:func:`~ensemble_lib.ui.panel_controls.slider`).
    slider = staticmethod(_controls.slider)
    #: An HTML table for the readout (:func:`~ensemble_lib.ui.panel_readout.readout_table`).
    readout_table = staticmethod(readout_table)

    def invalidate_background(self) -> None:
        """Redraw the static parts at the next step (with :attr:`blit`; a no-op without).

        For a panel whose static parts change now and then (new contours, new axis limits):
        the next render draws the whole figure and caches it again as the background of the
        steps that follow, which draw only :meth:`animated_artists` over it.
        """
        fig = self.__dict__.get("fig")  # None while a subclass draws before the base class is set up
        if fig is not None and isinstance(fig.canvas, BlitCanvas):
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
        check_axes(ax)
        check_range("x", x)
        check_range("y", y)
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
        check_axes(ax)
        kids = [a for a in ax.get_children() if a is not ax.patch and a.get_visible()]
        return sorted(kids, key=lambda a: a.get_zorder())

    #: Remove old artists and return the ones ``make()`` draws in their place
    #: (:func:`~ensemble_lib.ui.plotting.replace_artists`).
    replace_artists = staticmethod(_replace_artists)

    def memo(self, key: Hashable, compute: Callable[[], object]):
        """``compute()``, or what it returned before for an equal ``key`` (the very object).

        The panel's one cache of computed states (an :class:`~ensemble_lib.ui.memo.LRUMemo` of
        :attr:`MEMO_SIZE` entries, made at its first use, so also while a subclass computes
        before the base class is set up): ``key`` must fix the result (the control values it
        depends on); the least recently used entry goes first; an exception from ``compute``
        propagates and nothing is kept.
        """
        memo = self.__dict__.get("_states_memo")
        if memo is None:
            memo = self._states_memo = LRUMemo(self.MEMO_SIZE)
        return memo.get(key, compute)

    def set_values(self, values: dict, update: bool = True):
        """Set several controls by name at once (held: one update at the end, unless ``update`` is
        false or an outer :meth:`hold` is open; no :meth:`link_controls`); return the state or None."""
        if not isinstance(values, dict):
            raise ValueError(f"values must be a dict of control name -> value, got {type(values).__name__}")
        check_flag("update", update)
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise ValueError(f"values must name controls of the panel ({', '.join(self.controls)}), got {unknown}")
        with self.hold(update=False):
            for name, value in values.items():
                self.controls[name].value = value
        return self.update() if update and not self._held else None

    @property
    def start_values(self) -> dict:
        """The control values the panel was built with (what :meth:`reset` puts back), by name."""
        return {name: start["value"] for name, start in self._start.items()}

    def reset(self):
        """Put every control back where the panel was built (its value and, for a slider, its range),
        then update once: the panel shows its start state again. The "Reset" button calls this.

        Returns the state (None inside an outer :meth:`hold`, or if the update failed).
        """
        with self.hold(update=False):
            for name, start in self._start.items():
                _controls.restore_control(self.controls[name], start, start["value"])
        self._exact.update(self.start_values)  # exactly the start values, as a fresh panel has them
        return None if self._held else self.update()

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
        check_flag("update", update)
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
            if not from_front_end(change):
                self._exact[name] = change["new"]
            elif name in self._exact and same_value(change["new"], grid_value(change["owner"], self._exact[name])):
                # the front end drew the slider at the grid point nearest to the value code set
                # (the start value, a snap to a fit) and sent that point back: not a move of the
                # user's; the panel keeps computing with the exact value, and nothing changes
                # (but the box now shows the grid point: the figure on screen is acknowledged as
                # that of the values shown, so a front end waiting for them is not left waiting)
                if self._box_texts() != self._published_boxes:
                    self._publish_step(self._box_texts())
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
        self._request_update(deferred=from_front_end(change))

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
        self._step_boxes = self._box_texts()  # what the step computes from, published with its figure
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
            if self._live:
                self.draw(state)
                self.image.value = self.render()
            else:  # built unseen and not shown yet: drawn and rendered when displayed or read (_go_live)
                self._undrawn, self._unrendered = state, True
            self.readout.value = self.format_readout(state)
            self.last_error = None
            self.state = state
            self._publish_step(self._step_boxes)

    def render(self) -> bytes:
        """The figure as laid out, encoded for the image widget (:attr:`image_format`)."""
        self._catch_up()
        if self.image_format == "jpeg":
            return fast_jpeg(self.fig)
        return fast_png(self.fig)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

#: the machine's public names, importable from here wherever they live
__all__ = ["COALESCE_GAP_S", "COALESCE_MAX_WAIT_S", "COALESCE_QUIET_S", "DRAW_LOCK", "OUTPUT_WIDTH_PX",
           "PANEL_CSS", "PANEL_DPI", "READOUT_BESIDE_MIN_PX", "SLOW_STEP_S", "STREAM_FRAME_S",
           "FigurePanel", "LRUMemo", "readout_table"]
