"""Interactive panels: sliders that recompute with the library and redraw a figure in place.

Every lesson's interactive section is a :class:`FigurePanel` subclass:

* ``compute(**values)`` is a pure function of the slider values that calls
  the library and returns a state object;
* ``draw(state)`` updates the figure's artists in place (no rebuild);
* the figure is rendered by Agg to PNG into an ``ipywidgets.Image``. This
  works the same in JupyterLab, Voilà, nbval and headless tests, and keeps
  each step's cost in the kernel, where it can be measured;
* errors from a bad value are shown in the panel's status line (never lost
  in a log), and the previous figure stays; an unexpected error (a bug) is
  shown there too, with its type and the line that raised it;
* while a step runs, the controls are disabled; a control the current values
  make irrelevant stays disabled (:meth:`FigurePanel.inactive_controls`).

"""

from __future__ import annotations

import html
import traceback

import ipywidgets as widgets

from .plotting import fast_png


class FigurePanel:
    """Base class: ``controls`` (name → widget), a figure, a readout and a status line."""

    def __init__(self, controls: dict, fig, columns: int = 3):
        self.controls = dict(controls)
        self.fig = fig
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
        raise NotImplementedError

    def draw(self, state) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def format_readout(self, state) -> str:
        return ""

    def inactive_controls(self, **values) -> set[str]:
        """Names of controls that ``values`` make irrelevant; they are shown disabled.

        A control the computation ignores in some state (e.g. a prior
        precision slider while the hyperparameters are being adapted) must not
        look movable: override this to name it. Default: none.
        """
        return set()

    # -- machinery ----------------------------------------------------------
    def values(self) -> dict:
        return {name: ctl.value for name, ctl in self.controls.items()}

    def _on_change(self, change) -> None:
        try:
            self.update()
        except Exception as exc:  # noqa: BLE001 - a widget callback must never lose an error
            self._show_error(exc)

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
        """Recompute from the current control values, redraw, re-render; return the state."""
        self._set_disabled(True)
        self.status.value = "<i>computing…</i>"
        try:
            state = self.compute(**self.values())
            self.draw(state)
            self.image.value = fast_png(self.fig)
            self.readout.value = self.format_readout(state)
            self.status.value = ""
            self.last_error = None
            self.state = state
            self.n_updates += 1
            return state
        except (ValueError, RuntimeError, ArithmeticError) as exc:
            # a value the model refuses (or a fit that fails): say so, keep the old figure
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.status.value = (
                "<span style='color:#b00020'>Not updated: " + html.escape(str(exc)) + "</span>"
            )
            return None
        except Exception as exc:  # noqa: BLE001 - anything else is a bug: show it, never lose it
            self._show_error(exc)
            return None
        finally:
            self._set_disabled(False)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
