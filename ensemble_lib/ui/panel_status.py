"""A panel's typed values, its status line and its step acknowledgement.

A base class of :class:`~ensemble_lib.ui.panel.FigurePanel`:

* a value typed into a slider's box (the panel's ``boxes``) is set, or clamped to the
  slider's range and said, or refused and said (:func:`~ensemble_lib.ui.panel_controls.typed_value`);
* the status line under the figure carries a note (the figure is current), a value the library
  refused (the previous figure stays) or an unexpected error with its type and place;
* every finished step is acknowledged in the page (the hidden ``step_mark``): its number and the
  value-box texts it was computed from, which the real-browser tests wait for.

:class:`PanelStatus` is a mixin: it reads the panel's ``controls``, ``boxes``, ``status``,
``step_mark``, ``n_published`` and ``last_error``, which :class:`~ensemble_lib.ui.panel.FigurePanel` sets up.
"""

from __future__ import annotations

import html
import json

import ipywidgets as widgets

from . import panel_controls as _controls
from .panel_readout import error_html, note_html, refusal_html


class PanelStatus:
    """Typed values, the status line and the step acknowledgement of a :class:`~ensemble_lib.ui.panel.FigurePanel`."""

    #: A slider's value as its readout format writes it (:func:`~ensemble_lib.ui.panel_controls.formatted`).
    _formatted = staticmethod(_controls.formatted)

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
        value, note = _controls.typed_value(ctl, text, ctl.description or name)
        if value is not None:
            ctl.value = value  # a change by code: the panel updates now
        self._sync_box(name)
        if note is not None:
            self._say(note)

    def _box_texts(self) -> list[str]:
        """What each slider's value box shows for the current values, in the boxes' order; then the
        readout of each selection slider (it has no box: its own readout shows its option's label),
        in the controls' order. A step is acknowledged with these texts, so a front end can tell
        which values of every slider a step was computed from (issue 31: with no box, a selection
        slider's step was taken for any other)."""
        boxes = self.__dict__.get("boxes", {})
        texts = [self._formatted(self.controls[name]) for name in boxes]
        # the label the front end shows (ipywidgets' own list; the ``label`` trait is empty until the
        # index first changes)
        return texts + [ctl._options_labels[ctl.index] for name, ctl in self.__dict__.get("controls", {}).items()
                        if name not in boxes and isinstance(ctl, widgets.SelectionSlider)]

    def _publish_step(self, boxes: list[str]) -> None:
        """Say in the page that a step is complete: ``step_mark`` (hidden) gets the next step number
        (``n_published``) and the value-box texts of the values the step was computed from.

        Sent after the step's image and readout (or its status line, for a refused value), on the
        same comm channel, so a front end that sees step *n* with the values its boxes show has the
        figure and readout of those values: the real-browser tests wait for that instead of
        guessing from pixels (a drag's last figure and its readout are two messages). A streaming
        step publishes each frame it shows; the panel's busy mark says whether more will come.
        """
        if "step_mark" not in self.__dict__:  # a subclass refusing a value before the base class is set up
            return
        self.n_published += 1
        self._published_boxes = list(boxes)
        data = html.escape(json.dumps(boxes), quote=True)
        self.step_mark.value = f'<span data-step="{self.n_published}" data-boxes="{data}"></span>'

    def _say(self, text: str) -> None:
        """A note in the status line (not an error: the figure is current); the next step clears it."""
        self.status.value = note_html(text)

    def _show_refusal(self, exc: BaseException) -> None:
        """Put a value the library refused in the status line (the previous figure stays)."""
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = refusal_html(exc)
        self._publish_step(self._box_texts())

    def _show_error(self, exc: BaseException) -> None:
        """Put an unexpected error in the status line: type, message and the line that raised it."""
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = error_html(exc)
        self._publish_step(self._box_texts())


__all__: list[str] = []  # a part of the panel machine (ensemble_lib.ui.panel), used by FigurePanel alone
