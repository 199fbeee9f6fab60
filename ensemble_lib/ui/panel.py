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

* the figure is rendered by Agg to PNG into an ``ipywidgets.Image`` at the
  panel's :attr:`~FigurePanel.dpi`. This works the same in JupyterLab, Voilà,
  nbval and headless tests, and keeps each step's cost in the kernel, where it
  can be measured;
* the layout is computed once; a panel may opt in to blitting
  (:attr:`~FigurePanel.blit`): only :meth:`~FigurePanel.animated_artists` are
  redrawn over a cached image of the rest;
* :meth:`~FigurePanel.hold` holds updates while several controls change and
  updates once at the end;
* errors from a bad value are shown in the panel's status line (never lost in
  a log), and the previous figure stays; an unexpected error (a bug) is shown
  there too, with its type and the line that raised it;
* while a step runs, the controls are disabled; a control the current values
  make irrelevant stays disabled (:meth:`FigurePanel.inactive_controls`);
* helpers: :meth:`~FigurePanel.slider` (the one slider factory),
  :meth:`~FigurePanel.readout_table` (an HTML table) and
  :meth:`~FigurePanel.replace_artists` (e.g. new contours for old).
"""

from __future__ import annotations

import contextlib
import html
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from .plotting import fast_png
from .plotting import replace_artists as _replace_artists

#: Resolution of a panel's PNG unless the panel sets its own :attr:`FigurePanel.dpi`
#: (the suite's ``figure.dpi``, see :func:`~ensemble_lib.ui.plotting.set_style`).
PANEL_DPI = 100

_STYLE = {"description_width": "initial"}


class _BlitCanvas(FigureCanvasAgg):
    """An Agg canvas that redraws only a panel's changing artists over a cached background.

    The artists ``dynamic()`` returns are marked ``animated``, so a normal draw
    skips them; the first draw after the layout is frozen is cached, and later
    draws restore it and draw ``dynamic()`` on top.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    dynamic : callable
        Returns the artists to redraw at every step, in drawing order.
    """

    def __init__(self, figure, dynamic: Callable[[], Iterable]):
        super().__init__(figure)
        self._dynamic = dynamic
        self._background = None
        self._mark()

    def _mark(self) -> list:
        arts = list(self._dynamic())
        for a in arts:
            a.set_animated(True)
        return arts

    def _layout_frozen(self) -> bool:
        eng = self.figure.get_layout_engine()
        return eng is None or isinstance(eng, PlaceHolderLayoutEngine)

    def draw(self):
        arts = self._mark()  # artists made since the last draw (new contours) are animated too
        if self._background is None or not self._layout_frozen():
            super().draw()
            if self._layout_frozen():
                self._background = self.copy_from_bbox(self.figure.bbox)
        else:
            self.restore_region(self._background)
        renderer = self.get_renderer()
        for a in arts:
            a.draw(renderer)


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
        What a notebook displays: the controls, the image, the readout, the status line.
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
    #: Only for panels whose other artists (axes, ticks, labels) never change.
    blit: bool = False
    _held = 0

    def __init__(self, controls: dict, fig, columns: int = 3):
        self.controls = dict(controls)
        self.fig = fig
        self._held = 0
        fig.set_dpi(self.dpi)
        if self.blit:
            _BlitCanvas(fig, self.animated_artists)
        # lay the figure out once; later steps redraw without a layout pass
        if fig.get_layout_engine() is not None:
            fast_png(fig)
            fig.set_layout_engine("none")
        self.image = widgets.Image(format="png", layout=widgets.Layout(width="auto"))
        self.readout = widgets.HTML()
        self.status = widgets.HTML()
        self.n_updates = 0
        self.last_error: str | None = None
        for ctl in self.controls.values():
            ctl.observe(self._on_change, names="value")
        ctl_list = list(self.controls.values())
        rows = [widgets.HBox(ctl_list[i : i + columns]) for i in range(0, len(ctl_list), columns)]
        self.widget = widgets.VBox([*rows, self.image, self.readout, self.status])
        self._set_disabled(False)  # controls irrelevant at the start values are shown disabled

    # -- to be supplied by a lesson ---------------------------------------
    def compute(self, **values):  # pragma: no cover - abstract
        """The state (a frozen dataclass) for these control values; raise ValueError for a bad one."""
        raise NotImplementedError

    def draw(self, state) -> None:  # pragma: no cover - abstract
        """Update the figure's artists in place for ``state``."""
        raise NotImplementedError

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
            It updates its panel when released (``continuous_update=False``).
        """
        label = f"{description} ({units})" if units else description
        kw = dict(description=label, style=dict(_STYLE), continuous_update=False)
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
    def readout_table(rows: Iterable[Sequence], header: Sequence | None = None) -> str:
        """An HTML table: an optional header row, then one row per item of ``rows``.

        Every cell is converted with ``str`` and HTML-escaped.
        """
        def cells(row, tag):
            return "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in row)

        head = f"<tr>{cells(header, 'th')}</tr>" if header else ""
        body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
        return f"<table>{head}{body}</table>"

    #: Remove old artists and return the ones ``make()`` draws in their place
    #: (:func:`~ensemble_lib.ui.plotting.replace_artists`).
    replace_artists = staticmethod(_replace_artists)

    # -- machinery ----------------------------------------------------------
    def values(self) -> dict:
        """The current control values, by name."""
        return {name: ctl.value for name, ctl in self.controls.items()}

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
        """
        if self._held:
            return
        try:
            with self.hold():
                name = next((n for n, c in self.controls.items() if c is change["owner"]), None)
                if name is not None:
                    self.link_controls(name, change["new"])
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            self._show_refusal(exc)
        except Exception as exc:  # noqa: BLE001 - a widget callback must never lose an error
            self._show_error(exc)

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
        """Disable every control (while a step runs), or enable all but the inactive ones."""
        inactive = set() if flag else set(self.inactive_controls(**self.values()))
        for name, ctl in self.controls.items():
            ctl.disabled = flag or name in inactive

    def update(self):
        """Recompute from the current control values, redraw, re-render; return the state.

        A value the library refuses (ValueError, RuntimeError, ArithmeticError)
        is reported in the status line, any other error as a bug; either way
        the previous figure stays and None is returned.
        """
        self._set_disabled(True)
        self.status.value = "<i>computing…</i>"
        done = False
        try:
            state = self.compute(**self.values())
            self.draw(state)
            self.image.value = fast_png(self.fig)
            self.readout.value = self.format_readout(state)
            self.last_error = None
            self.state = state
            self.n_updates += 1
            done = True
            return state
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            # a value the model refuses (or a fit that fails): say so, keep the old figure
            self._show_refusal(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - anything else is a bug: show it, never lose it
            self._show_error(exc)
            return None
        finally:
            self._set_disabled(False)
            if done:
                # cleared last: a front end that sees "computing…" go sees the controls final
                # (the real-browser tests read a slider's enabled state right then)
                self.status.value = ""

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
