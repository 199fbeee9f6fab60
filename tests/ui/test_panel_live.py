"""Live sliders (issue 14): changes from a drag are coalesced, the final value is always drawn.

How a change reaches a panel: the front end sends each slider change as a comm
message that the kernel applies with ``Widget.set_state``; the panel defers such
a change to one flush on the kernel's event loop (``ensemble_lib.ui.panel``).
These tests deliver changes that way: first on an asyncio loop in this process,
then as real comm messages to a real ipykernel, sent in a burst without waiting
(what a front end without the message throttle, or several widgets, could send).
No test here asserts a time.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import textwrap

import numpy as np
import pytest

from ensemble_lib.lessons.toy_posterior import ToyExplorer
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.panel_live import COALESCE_MAX_WAIT_S


class _Counting(ToyExplorer):
    """Lesson 1's explorer, counting its computes."""

    def __init__(self):
        self.computed = []
        super().__init__()

    def compute(self, **values):
        self.computed.append(values)
        return super().compute(**values)


ALPHAS = list(np.geomspace(0.02, 8.0, 100))


def _drag(panel: FigurePanel, name: str, values) -> None:
    """Apply ``values`` as the front end does (``set_state``), in a tight loop."""
    for v in values:
        panel.controls[name].set_state({"value": float(v)})


def _reference(name: str, value) -> ToyExplorer:
    """A fresh explorer updated once, by code, to ``value``."""
    ref = ToyExplorer()
    ref.controls[name].value = float(value)
    return ref


def test_a_burst_of_front_end_changes_computes_a_few_times_and_draws_the_last_value():
    p = _Counting()
    p.update()
    n0 = len(p.computed)

    async def main():
        _drag(p, "alpha", ALPHAS)
        assert len(p.computed) == n0  # nothing computed inside the message handlers
        await asyncio.sleep(0.3)  # the kernel's loop runs the flush

    asyncio.run(main())
    assert 1 <= len(p.computed) - n0 <= 3, len(p.computed) - n0
    assert p.computed[-1]["alpha"] == pytest.approx(ALPHAS[-1])
    assert p.last_error is None and p.status.value == ""
    ref = _reference("alpha", ALPHAS[-1])
    assert p.readout.value == ref.readout.value
    assert p.image.value == ref.image.value


def test_changes_made_by_code_update_at_once_even_inside_a_running_loop():
    """A cell (or nbval) that sets a slider reads the new readout on the next line."""
    p = _Counting()
    p.update()

    async def main():
        for a in ALPHAS[:5]:
            n0 = len(p.computed)
            p.controls["alpha"].value = float(a)
            assert len(p.computed) == n0 + 1 and p.state.posterior is not None
        assert p.readout.value == _reference("alpha", ALPHAS[4]).readout.value

    asyncio.run(main())


def test_without_an_event_loop_front_end_changes_update_at_once():
    p = _Counting()
    p.update()
    n0 = len(p.computed)
    _drag(p, "alpha", ALPHAS[:3])
    assert len(p.computed) == n0 + 3 and p.readout.value == _reference("alpha", ALPHAS[2]).readout.value


def test_an_update_by_code_makes_a_pending_flush_a_no_op():
    p = _Counting()
    p.update()

    async def main():
        _drag(p, "alpha", ALPHAS[:10])
        p.controls["n"].value = 12  # by code: computes now, with the dragged alpha too
        n1 = len(p.computed)
        await asyncio.sleep(0.2)
        assert len(p.computed) == n1

    asyncio.run(main())
    assert p.computed[-1]["alpha"] == pytest.approx(ALPHAS[9]) and p.computed[-1]["n"] == 12


def test_a_refused_front_end_value_is_shown_after_the_flush_and_the_panel_recovers(monkeypatch):
    p = _Counting()
    p.update()
    png = p.image.value
    real = ToyExplorer.compute

    def refuse(self, **v):
        if v["alpha"] > 5:
            raise ValueError("alpha too large for this test")
        return real(self, **v)

    monkeypatch.setattr(ToyExplorer, "compute", refuse)

    async def main():
        _drag(p, "alpha", [1.0, 6.0])
        await asyncio.sleep(0.2)
        assert "Not updated" in p.status.value and p.image.value == png
        _drag(p, "alpha", [2.0])
        await asyncio.sleep(0.2)

    asyncio.run(main())
    assert p.last_error is None and p.status.value == "" and p.state is not None


# ---------------------------------------------------------------------------
# a real kernel: comm messages sent in a burst
# ---------------------------------------------------------------------------

_KERNEL_SETUP = textwrap.dedent("""
    import sys, json
    from ensemble_lib.lessons.toy_posterior import ToyExplorer
    p = ToyExplorer(); p.update()
    computed = []
    _compute = p.compute
    def _counted(**v):
        computed.append(v["alpha"])
        return _compute(**v)
    p.compute = _counted
    import time
    applied = []  # when each front-end value was applied to the slider (perf_counter)
    p.controls["alpha"].observe(lambda c: applied.append(time.perf_counter()), "value")
    print(json.dumps({"exe": sys.executable, "comm": p.controls["alpha"].comm.comm_id}))
""")

_KERNEL_REPORT = textwrap.dedent("""
    ref = ToyExplorer(); ref.controls["alpha"].value = p.controls["alpha"].value
    print(json.dumps({"n": len(computed), "last": computed[-1] if computed else None,
                      "value": p.controls["alpha"].value, "error": p.last_error,
                      "applied": len(applied), "span": applied[-1] - applied[0] if applied else 0.0,
                      "same_readout": p.readout.value == ref.readout.value,
                      "same_image": p.image.value == ref.image.value}))
""")


def _run(kc, code: str) -> str:
    msg_id = kc.execute(code)
    out = []
    while True:
        m = kc.get_iopub_msg(timeout=120)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "stream":
            out.append(m["content"]["text"])
        elif m["msg_type"] == "error":
            raise AssertionError("\n".join(m["content"]["traceback"]))
        elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return "".join(out)


def test_a_burst_of_comm_messages_to_a_real_kernel_computes_a_few_times():
    """100 slider updates sent to ipykernel without waiting: a few computes, the last value drawn."""
    manager = pytest.importorskip("jupyter_client.manager")
    km, kc = manager.start_new_kernel(kernel_name="python3")
    try:
        info = json.loads(_run(kc, _KERNEL_SETUP).strip().splitlines()[-1])
        if info["exe"] != sys.executable:
            pytest.skip(f"the python3 kernel is not this environment's ({info['exe']})")
        for a in ALPHAS:
            kc.shell_channel.send(kc.session.msg("comm_msg", {
                "comm_id": info["comm"],
                "data": {"method": "update", "state": {"value": float(a)}, "buffer_paths": []}}))
        _run(kc, "import asyncio; await asyncio.sleep(0.5)")  # queued behind the burst; the flush runs meanwhile
        out = json.loads(_run(kc, _KERNEL_REPORT).strip().splitlines()[-1])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert out["error"] is None
    assert out["value"] == pytest.approx(ALPHAS[-1]) and out["last"] == pytest.approx(ALPHAS[-1])
    # Coalesced: a flush covers every change that arrived since the last one and waits at most
    # COALESCE_MAX_WAIT_S after the first, so the kernel computes at most about once per that
    # long while it reads the burst (a loaded kernel reads it slowly: 12 computes seen in CI), and
    # far fewer times than it got messages (without coalescing: once per message, 100).
    assert out["applied"] == len(ALPHAS)
    assert 1 <= out["n"] <= 2 + out["span"] / COALESCE_MAX_WAIT_S, (out["n"], out["span"])
    assert out["n"] <= len(ALPHAS) // 4, out["n"]
    assert out["same_readout"] and out["same_image"]


# ---------------------------------------------------------------------------
# figures sized for the screen, labels inside the canvas with every slider at an end
# ---------------------------------------------------------------------------

from _canvas import labels_outside  # noqa: E402
from ensemble_lib.lessons import PANELS  # noqa: E402
import ipywidgets as w  # noqa: E402

_SLIDERS = (w.IntSlider, w.FloatSlider, w.FloatLogSlider)
#: The panels these checks cover: every registered panel.
CHECKED = list(PANELS)


_BUILT: dict = {}


def _built(name: str):
    """The registered panel ``name`` and its start values, built and drawn once per test process
    (the two checks below share it: one moves its sliders from the start values and back, the
    other reads its image size)."""
    if name not in _BUILT:
        p = PANELS[name][0]()
        p.update()
        _BUILT[name] = (p, p.values())
    return _BUILT[name]


def _ends(ctl) -> list:
    if isinstance(ctl, w.FloatLogSlider):
        return [ctl.base ** ctl.min, ctl.base ** ctl.max]
    return [ctl.min, ctl.max]


@pytest.mark.parametrize("name", CHECKED)
def test_axis_labels_lie_inside_the_canvas_with_every_slider_at_its_min_and_at_its_max(name):
    """All sliders at their min, then all at their max. (Each control alone at its min and at its
    max, the others at their start, is checked by tests/ui/test_panel.py's min-and-max test.)"""
    p, start = _built(name)
    sliders = {n: c for n, c in p.controls.items() if isinstance(c, _SLIDERS)}
    settings = [{n: _ends(c)[i] for n, c in sliders.items()} for i in (0, 1)]
    problems = []
    for setting in settings:
        with p.hold():
            for n, v in start.items():
                p.controls[n].value = v
            for n, v in setting.items():
                p.controls[n].value = v
        if p.last_error is not None:
            continue  # a refused corner keeps the last figure (checked elsewhere)
        for problem in labels_outside(p):
            problems.append(f"{setting}: {problem}")
    with p.hold():  # back at the start
        for n, v in start.items():
            p.controls[n].value = v
    assert p.values() == start
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("name", CHECKED)
def test_the_image_is_shown_at_the_size_it_is_rendered(name):
    """CSS size = image size (no stretching), small enough for a 1366 x 768 screen."""
    p, _ = _built(name)
    W, H = p.fig.canvas.get_width_height()
    assert (p.image.layout.width, p.image.layout.height) == (f"{W}px", f"{H}px")
    assert W <= 900 and H <= 400, (W, H)


# ---------------------------------------------------------------------------
# a streaming panel (lesson 5): a first frame at once, then the run fills in
# ---------------------------------------------------------------------------

def test_svi_stream_ends_with_exactly_the_run_svi_fit_returns():
    from ensemble_lib.inference.svi import svi_fit, svi_stream
    from ensemble_lib.lessons.stochastic_vi import LESSON_START, lesson_posterior

    post = lesson_posterior()
    for family, schedule, every in (("full", "fixed", 100), ("diagonal", "decaying", 33)):
        kw = dict(rng=None, n_samples=2, step_size=0.05, schedule=schedule, n_iter=600, kl_every=10,
                  init=LESSON_START)
        whole = svi_fit(post, family, **{**kw, "rng": np.random.default_rng(4)})
        items = list(svi_stream(post, family, **{**kw, "rng": np.random.default_rng(4)}, yield_every=every))
        assert [h.n_iter for h in items[:-1]] == list(range(every, 600, every))
        last = items[-1]
        for name in ("iterations", "kl", "bound", "thetas", "mean", "cov"):
            np.testing.assert_array_equal(getattr(last, name), getattr(whole, name))
        assert last.n_iter == whole.n_iter == 600
        for h in items[:-1]:  # each partial history is the start of the whole run
            np.testing.assert_array_equal(h.kl, whole.kl[: h.kl.size])


def test_a_drag_on_the_svi_panel_shows_a_partial_run_first_then_the_complete_one():
    from ensemble_lib.lessons.stochastic_vi import PANEL_N_ITER, SVIExplorer

    p = SVIExplorer()
    p.update()
    seen = []
    real_show = p._show

    def spy(state):
        real_show(state)
        seen.append((state.n_iter, p.readout.value))

    p._show = spy

    async def main():
        p.controls["step_size"].set_state({"value": 0.02})
        await asyncio.sleep(0.05)
        while p._stream is not None:
            await asyncio.sleep(0.02)

    asyncio.run(main())
    n_iters = [n for n, _ in seen]
    assert n_iters[0] < PANEL_N_ITER and n_iters[-1] == PANEL_N_ITER, n_iters
    assert n_iters == sorted(n_iters)
    assert "running" in seen[0][1] and "complete" not in seen[0][1]  # the readout says it is not done
    assert "complete" in p.readout.value and "running" not in p.readout.value
    ref = SVIExplorer()
    ref.controls["step_size"].value = 0.02
    assert p.state.n_iter == PANEL_N_ITER
    np.testing.assert_array_equal(p.state.kl, ref.state.kl)
    assert p.image.value == ref.image.value


def test_a_newer_change_drops_a_stream_still_filling_in():
    from ensemble_lib.lessons.stochastic_vi import PANEL_N_ITER, SVIExplorer

    p = SVIExplorer()
    p.update()

    async def main():
        p.controls["step_size"].set_state({"value": 0.02})
        await asyncio.sleep(0.03)  # the first frame of a = 0.02
        p.controls["seed"].set_state({"value": 7})
        while p._stream is not None or p._dirty:
            await asyncio.sleep(0.02)

    asyncio.run(main())
    assert p.state.n_iter == PANEL_N_ITER and p.last_error is None
    ref = SVIExplorer()
    with ref.hold():
        ref.controls["step_size"].value = 0.02
        ref.controls["seed"].value = 7
    np.testing.assert_array_equal(p.state.kl, ref.state.kl)
    assert _without_cpu_time(p.readout.value) == _without_cpu_time(ref.readout.value)


def _without_cpu_time(readout: str) -> str:
    """The readout without its CPU-time row (a measurement, different at every run)."""
    return re.sub(r"<tr><td>CPU time.*?</tr>", "", readout)


def test_lesson_4_explains_a_fit_warning_in_words():
    import dataclasses

    from ensemble_lib.lessons.networks import Network1DPanel, explain_note, format_demo_readout

    text = explain_note("fit_family (factor, s=1) stopped before converging")
    assert "factor (s = 1)" in text and "step limit" in text and "not exactly" in text
    assert explain_note("something else") == "a fit reported: something else."
    p = Network1DPanel()
    p.update()
    state = dataclasses.replace(p.state, notes=("fit_family (factor, s=2) stopped before converging",))
    readout = format_demo_readout(state)
    assert "warnings:" not in readout and "step limit" in readout and "factor (s = 2)" in readout


def test_lesson_2s_axes_stay_put_while_the_sweep_slider_moves():
    """The frame holds every sweep's Q (no range jumping at each step, no Q clipped at k = 0)."""
    from ensemble_lib.lessons.mean_sigma import K_RANGE, EnsemblePanel, ensemble_limits

    p = EnsemblePanel()
    p.update()
    frames = set()
    for k in range(K_RANGE[0], K_RANGE[1] + 1):
        p.controls["k"].value = k
        frames.add((p.ax_q.get_xlim(), p.ax_q.get_ylim()))
        (mu0, mu1), (s0, s1) = ensemble_limits(p.state.model, p.state.it)
        (x0, x1), (y0, y1) = p.ax_q.get_xlim(), p.ax_q.get_ylim()
        assert x0 <= mu0 and mu1 <= x1 and y0 <= s0 and s1 <= y1, k
    assert len(frames) == 1
