"""A panel's controls: the slider factory, the slider's grid, typed values and the reset button.

* :func:`slider`: the one slider factory of the panels (:meth:`FigurePanel.slider
  <ensemble_lib.ui.panel.FigurePanel.slider>`);
* :func:`grid_value`: where a front end shows a value on a slider (its grid point);
  :func:`grid_through`: a slider's range whose grid passes through a given value;
* :func:`formatted`, :func:`slider_limits`, :func:`typed_value`: a slider's value box, where a
  value can be typed (clamped or refused, with a note for the status line);
* :func:`reset_button`, :func:`control_start`, :func:`restore_control`: the panel's "Reset"
  button, and what it puts back (each control's value and, for a slider, its range).
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

_STYLE = {"description_width": "initial"}

#: The sliders that get a value box (a numeric value that can be typed).
NUMERIC_SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)
#: Traits of a control besides its value that a panel may change (a range that follows another
#: control) and its reset puts back.
RANGE_TRAITS = ("min", "max")


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


def same_value(a: float, b: float) -> bool:
    """``a`` and ``b`` equal to a relative 1e-9 (a value and the grid point a front end sent back)."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def grid_through(value: float, lo: float, hi: float, step: float) -> tuple[float, float]:
    """The widest range inside ``[lo, hi]`` whose grid ``min + k·step`` passes through ``value``.

    Each end moves inward by less than a step (an end already on that grid stays). A front end
    shows a slider's value at its nearest grid point (:func:`grid_value`): on this grid a start
    value is shown exactly where it is, so a value box (which writes the value) and the handle
    (which shows the grid point) agree, also after the panel's Reset.
    """
    k_lo = np.floor((value - lo) / step + 1e-9)
    k_hi = np.floor((hi - value) / step + 1e-9)
    return float(value - k_lo * step), float(value + k_hi * step)


def slider(description: str, value, lo, hi, *, step=None, log: bool = False, units: str = "",
           readout_format: str | None = None, grid_at_value: bool = False) -> widgets.Widget:
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
    grid_at_value : bool, optional
        Lay the slider's grid through ``value`` (:func:`grid_through`; for a ``log`` slider, through
        its exponent), the range shrinking inward by less than a step at each end. For a start
        value that is computed (a fit's) rather than chosen on the grid: a value off the grid is
        shown by the front end at the nearest grid point, so its handle and its value box would
        disagree by up to half a step.

    Returns
    -------
    ipywidgets.Widget
        It updates its panel while dragged (``continuous_update=True``; the
        panel coalesces the changes, see :mod:`ensemble_lib.ui.panel_live`).
    """
    if not isinstance(description, str) or not isinstance(units, str):
        raise ValueError(f"description and units must be str, got {type(description).__name__} and "
                         f"{type(units).__name__}")
    if readout_format is not None and not isinstance(readout_format, str):
        raise ValueError(f"readout_format must be a str or None, got {type(readout_format).__name__}")
    values = {}
    for name, v in (("value", value), ("lo", lo), ("hi", hi)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v):
            raise ValueError(f"{name} must be a finite real number, got {v!r}")
        values[name] = v
    if not lo < hi or not lo <= value <= hi:
        raise ValueError(f"value, lo and hi must satisfy lo <= value <= hi and lo < hi, got {value!r}, {lo!r}, {hi!r}")
    if log and lo <= 0:
        raise ValueError(f"lo must be > 0 for a log slider, got {lo!r}")
    if step is not None and (isinstance(step, (bool, np.bool_))
                             or not isinstance(step, (int, float, np.integer, np.floating))
                             or not np.isfinite(step) or step <= 0):
        raise ValueError(f"step must be a finite number > 0 or None, got {step!r}")
    label = f"{description} ({units})" if units else description
    kw = dict(description=label, style=dict(_STYLE), continuous_update=True)
    if readout_format is not None:
        kw["readout_format"] = readout_format
    if log:
        step = 0.1 if step is None else step
        lo, hi = np.log10(lo), np.log10(hi)
        if grid_at_value:
            lo, hi = grid_through(np.log10(value), lo, hi, step)
        return widgets.FloatLogSlider(value=value, base=10, min=lo, max=hi, step=step, **kw)
    ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (value, lo, hi))
    if ints and (step is None or isinstance(step, (int, np.integer))):
        return widgets.IntSlider(value=value, min=lo, max=hi, step=1 if step is None else step, **kw)
    step = 0.1 if step is None else step
    if grid_at_value:
        lo, hi = grid_through(value, lo, hi, step)
    return widgets.FloatSlider(value=value, min=lo, max=hi, step=step, **kw)


def formatted(ctl) -> str:
    """A slider's value as its readout format writes it (Python's format of the d3 spec)."""
    fmt = getattr(ctl, "readout_format", "") or ""
    try:
        return format(ctl.value, fmt.replace("~", ""))
    except (ValueError, TypeError):
        return f"{ctl.value:g}"


def slider_limits(ctl) -> tuple:
    """The range ``(lo, hi)`` of a slider's values (for a ``FloatLogSlider``, not its exponents)."""
    if isinstance(ctl, widgets.FloatLogSlider):
        return ctl.base ** ctl.min, ctl.base ** ctl.max
    return ctl.min, ctl.max


def typed_value(ctl, text: str, label: str) -> tuple:
    """What a value typed into the box of slider ``ctl`` sets: ``(value, note)``.

    ``value`` is the number clamped to the slider's range (rounded for an ``IntSlider``), or None
    when ``text`` is not a finite number; ``note`` says (for the status line, naming the slider by
    ``label``) what was clamped, rounded or refused, or is None.
    """
    lo, hi = slider_limits(ctl)
    try:
        x = float(str(text).strip().replace("−", "-").replace("_", ""))
        if not np.isfinite(x):
            raise ValueError
    except ValueError:
        return None, (f"“{str(text).strip()[:40]}” is not a number: {label} stays at {formatted(ctl)} "
                      f"(type a number in [{lo:g}, {hi:g}])")
    value = min(max(x, lo), hi)
    note = None
    if value != x:
        note = f"{label} must be in [{lo:g}, {hi:g}]; set to {value:g}"
    if isinstance(ctl, widgets.IntSlider):
        if int(round(value)) != value and note is None:
            note = f"{label} takes whole numbers; set to {int(round(value))}"
        value = int(round(value))
    return value, note


def reset_button() -> widgets.Button:
    """The panel's "Reset" button (class ``panel-reset``), shown after its last control."""
    button = widgets.Button(description="Reset", tooltip="every control back to where the panel opened",
                            layout=widgets.Layout(width="auto"))
    button.add_class("panel-reset")
    return button


def control_start(ctl) -> dict:
    """What :func:`restore_control` puts back: the control's value and, for a slider, its range."""
    start = {t: getattr(ctl, t) for t in RANGE_TRAITS if hasattr(ctl, t)}
    start["value"] = ctl.value
    return start


def restore_control(ctl, start: dict, value) -> None:
    """Set ``ctl`` to ``value`` and its range to the one in ``start`` (:func:`control_start`).

    The range is widened first, so that neither the old range clamps ``value`` nor the new one
    the old value on the way.
    """
    if "min" in start and "max" in start:
        ctl.max = max(ctl.max, start["max"])
        ctl.min = min(ctl.min, start["min"])
    ctl.value = value
    if "min" in start and "max" in start:
        ctl.min = start["min"]
        ctl.max = start["max"]


__all__ = ["NUMERIC_SLIDERS", "RANGE_TRAITS", "slider"]
