"""Live sliders: how changes reach the kernel, and how a panel coalesces them.

The kernel-side half of :class:`~ensemble_lib.ui.panel.FigurePanel`: :class:`LiveUpdates`
(a base class of the panel) defers a change from the front end to one flush on the kernel's
event loop, and shows a streaming step (:meth:`FigurePanel.compute_stream
<ensemble_lib.ui.panel.FigurePanel.compute_stream>`) as it fills in.

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
import time

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


def running_loop():
    """The running asyncio event loop (a kernel's), or None (a plain script or test)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def from_front_end(change) -> bool:
    """True for a change applied from a front-end message (``Widget.set_state`` holds its lock)."""
    return change.get("name") in getattr(change.get("owner"), "_property_lock", {})



class LiveUpdates:
    """Coalesced, deferred and streaming steps: a base class of :class:`FigurePanel
    <ensemble_lib.ui.panel.FigurePanel>`, which supplies ``_step``, ``_show``, ``_show_refusal``,
    ``_show_error`` and ``widget``.
    """

    _dirty = False
    _flush_handle = None
    _last_step_s = 0.0
    _last_end = _last_change = _dirty_since = 0.0
    _stream = None

    def _request_update(self, deferred: bool) -> None:
        """Update now, or (``deferred``, inside a kernel) mark the panel dirty and flush once soon.

        However many requests arrive before the flush runs, it computes once, with the
        values current then (newest wins); an update made in between makes it a no-op.
        The flush waits until the changes pause for :data:`COALESCE_QUIET_S` (a backlog
        of messages is drained first) and the last step ended :data:`COALESCE_GAP_S` ago,
        but never longer than :data:`COALESCE_MAX_WAIT_S` after the first change it covers.
        """
        loop = running_loop() if deferred else None
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
        loop = running_loop()
        if loop is not None and time.perf_counter() < self._flush_due() - 1e-4:
            self._arm(loop)  # more changes came meanwhile: wait for the pause
            return
        self._step(stream=True)


    def _continue_later(self, states) -> None:
        loop = running_loop()
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


__all__ = ["COALESCE_GAP_S", "COALESCE_MAX_WAIT_S", "COALESCE_QUIET_S", "SLOW_STEP_S", "STREAM_FRAME_S"]
