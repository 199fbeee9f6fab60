"""A panel's boundary: the checks :class:`~ensemble_lib.ui.panel.FigurePanel` puts on every panel.

A lesson's panel writes ``compute(**values)``, ``draw(state)``, ``format_readout(state)`` and
perhaps ``inactive_controls(**values)`` and ``link_controls(name, value)``; called with what the
panel does not have (a control it lacks, a missing one, a state of another panel, ``None``) they
would fail deep inside with a ``TypeError`` or ``AttributeError``. :func:`guard_hooks`, called for
each subclass (``FigurePanel.__init_subclass__``), wraps the hooks the subclass defines so that such
a call is refused with a ``ValueError`` naming the argument:

* ``compute``, ``compute_stream``, ``inactive_controls``: the values must bind to the hook's
  parameters (the panel's controls, by name);
* ``draw``, ``format_readout``: the state must be an instance of the type the hook's parameter is
  annotated with (the state ``compute`` returns), and never ``None``;
* ``link_controls``: ``name`` must name one of the panel's controls.

The wrappers keep the hook's name, signature and docstring (``functools.wraps``).
"""

from __future__ import annotations

import functools
import inspect
import typing

import ipywidgets as widgets
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

#: hooks whose keyword values must bind to the hook's parameters
VALUE_HOOKS = ("compute", "compute_stream", "inactive_controls")
#: hooks that take a state
STATE_HOOKS = ("draw", "format_readout")


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_values(panel, func, args, values) -> None:
    """Refuse ``values`` that do not bind to ``func``'s parameters, naming them."""
    try:
        inspect.signature(func).bind(panel, *args, **values)
    except TypeError as exc:
        controls = list(getattr(panel, "__dict__", {}).get("controls", {}) or [])
        known = f" (the panel's controls: {', '.join(controls)})" if controls else ""
        raise ValueError(f"values must be the panel's control values by name{known}; "
                         f"{exc}".replace(f"{func.__name__}() ", "")) from None


@functools.lru_cache(maxsize=None)
def state_type(func):
    """The type ``func``'s state parameter is annotated with, or None."""
    params = list(inspect.signature(func).parameters)
    if len(params) < 2:
        return None
    try:
        hint = typing.get_type_hints(func).get(params[1])
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: no type to check
        return None
    return hint if isinstance(hint, type) else None


def check_state(func, state) -> None:
    """Refuse a state that is None or not of ``func``'s annotated state type."""
    kind = state_type(func)
    if state is None or (kind is not None and not isinstance(state, kind)):
        want = f"a {kind.__name__}" if kind is not None else "a state"
        raise ValueError(f"state must be {want} (what the panel's compute returns), got {_describe(state)}")


def check_control_name(panel, name) -> None:
    """Refuse a ``name`` that is not one of the panel's controls (once it has them)."""
    controls = getattr(panel, "__dict__", {}).get("controls")
    if controls is not None and (not isinstance(name, str) or name not in controls):
        raise ValueError(f"name must be one of the panel's controls {tuple(controls)}, got {_describe(name)}")


def check_panel_args(controls, fig, columns) -> None:
    """``FigurePanel(controls, fig, columns)``: a dict of named controls, a Figure, an int >= 1."""
    if not isinstance(controls, dict) or not all(isinstance(k, str) and isinstance(c, widgets.ValueWidget)
                                                 for k, c in controls.items()):
        raise ValueError(f"controls must be a dict of control name -> ipywidgets control, "
                         f"got {type(controls).__name__}")
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns must be an integer >= 1, got {columns!r}")


def check_axes(ax) -> None:
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")


def check_range(name: str, rng) -> None:
    """None, or a pair (lo, hi) (:func:`~ensemble_lib.ui.plotting.nice_range` checks the numbers)."""
    if rng is not None and (isinstance(rng, (str, bytes)) or not hasattr(rng, "__len__") or len(rng) != 2):
        raise ValueError(f"{name} must be None or a range (lo, hi) of two finite numbers, got {rng!r}")


def check_flag(name: str, value) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def _guard(hook: str, func):
    if hook in VALUE_HOOKS:  # (compute_stream's generator is returned as it is: checked when called)
        @functools.wraps(func)
        def wrapped(self, *args, **values):
            check_values(self, func, args, values)
            return func(self, *args, **values)
    elif hook in STATE_HOOKS:
        @functools.wraps(func)
        def wrapped(self, state):
            check_state(func, state)
            return func(self, state)
    else:  # link_controls
        @functools.wraps(func)
        def wrapped(self, name, value):
            check_control_name(self, name)
            return func(self, name, value)
    wrapped.__guarded__ = True
    return wrapped


def guard_hooks(cls) -> None:
    """Wrap the hooks ``cls`` itself defines (see the module docstring)."""
    for hook in (*VALUE_HOOKS, *STATE_HOOKS, "link_controls"):
        func = cls.__dict__.get(hook)
        if inspect.isfunction(func) and not getattr(func, "__guarded__", False):
            setattr(cls, hook, _guard(hook, func))


__all__: list[str] = []  # the machine of ensemble_lib.ui.panel (FigurePanel.__init_subclass__)
