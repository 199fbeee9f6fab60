"""A value set by code stays exact when the front end shows its slider at the nearest grid point.

A browser draws a slider at the grid point ``min + k·step`` nearest to its value (for a
``FloatLogSlider`` in the exponent) and, with ``continuous_update``, sends that point straight
back. Without care a panel would then recompute at the grid point: lesson 1 opened at α = 0.1995
instead of the preset's 0.2, lesson 3's Q was no longer the full-KL fit it was snapped to (the
real-browser suite's ``test_panels_open_where_the_text_says`` found both). Here the front end's
messages are applied as the kernel applies them (``Widget.set_state``).
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import pytest

from ensemble_lib.lessons.bound import BoundPanel, make_toy
from ensemble_lib.lessons.toy_posterior import ToyExplorer
from ensemble_lib.ui.panel import grid_value
from ensemble_lib.ui.panel_controls import grid_through, same_value, slider


def _nearest(points, value):
    return points[int(np.argmin(np.abs(points - value)))]


@pytest.mark.parametrize("lo, hi, step", [(0.02, 1.0, 0.01), (-3.0, 3.0, 0.05), (0.0, 0.99, 0.33)])
def test_linear_grid_value_is_the_nearest_grid_point(lo, hi, step):
    ctl = widgets.FloatSlider(min=lo, max=hi, step=step, value=lo)
    points = lo + step * np.arange(int(np.floor((hi - lo) / step + 1e-9)) + 1)
    for v in np.random.default_rng(1).uniform(lo, hi, 200):
        assert grid_value(ctl, v) == pytest.approx(_nearest(points, v), abs=1e-12)


def test_log_grid_value_is_the_nearest_grid_point_in_the_exponent():
    ctl = widgets.FloatLogSlider(min=-2, max=1, step=0.1, base=10, value=1.0)
    exponents = -2 + 0.1 * np.arange(31)
    for v in 10 ** np.random.default_rng(2).uniform(-2, 1, 200):
        assert grid_value(ctl, v) == pytest.approx(10 ** _nearest(exponents, np.log10(v)), rel=1e-12)
    assert grid_value(ctl, 0.2) == pytest.approx(10 ** -0.7, rel=1e-12)  # what the browser showed


@pytest.mark.parametrize("lo, hi, step", [(-1.09, 1.09, 0.005), (-0.999, 0.999, 0.001), (-3.0, 1.0, 0.02),
                                          (0.0, 1.0, 0.1)])
def test_grid_through_passes_the_grid_through_the_value_inside_the_range(lo, hi, step):
    """Each end moves inward by less than a step, the value is a grid point, an on-grid value
    changes nothing."""
    for v in np.random.default_rng(4).uniform(lo, hi, 200):
        a, b = grid_through(v, lo, hi, step)
        assert lo - 1e-9 * step <= a <= lo + step and hi - step <= b <= hi + 1e-9 * step
        k = (v - a) / step
        assert abs(k - round(k)) < 1e-6 and abs((b - a) / step - round((b - a) / step)) < 1e-6
    top = lo + step * np.floor((hi - lo) / step + 1e-9)
    assert grid_through(lo + 3 * step, lo, hi, step) == pytest.approx((lo, top))


@pytest.mark.parametrize("log", [False, True])
def test_a_slider_with_its_grid_at_its_value_shows_the_value_where_it_is(log):
    """What lesson 3's sliders need (their start is a fit's, off any round grid): the front end's
    grid point of the start value is the start value, so its box and its handle agree."""
    value, lo, hi, step = (0.0557954, 1e-3, 10.0, 0.02) if log else (-0.2305588, -1.0899291, 1.0899291, 0.005)
    plain = slider("x", value, lo, hi, step=step, log=log)
    assert not same_value(grid_value(plain, value), value)  # off the grid that starts at lo
    ctl = slider("x", value, lo, hi, step=step, log=log, grid_at_value=True)
    assert ctl.value == value and same_value(grid_value(ctl, value), value)
    ends = (10 ** ctl.min, 10 ** ctl.max) if log else (ctl.min, ctl.max)
    assert lo <= ends[0] * (1 + 1e-12) and ends[1] <= hi * (1 + 1e-12) and ctl.step == step


def test_the_front_end_rounding_the_start_value_changes_nothing():
    p = ToyExplorer()
    first = p.update()
    n = p.n_updates
    alpha = p.controls["alpha"]
    shown = grid_value(alpha, alpha.value)
    assert shown != alpha.value  # the preset's α = 0.2 is off the slider's grid
    alpha.set_state({"value": shown})  # as the front end sends it back after drawing the slider
    assert p.n_updates == n and p.values()["alpha"] == 0.2
    assert p.update().laplace.kl == first.laplace.kl


def test_a_move_by_the_user_is_used_even_next_to_the_exact_value():
    p = ToyExplorer()
    p.update()
    alpha = p.controls["alpha"]
    step_up = 10 ** (np.log10(grid_value(alpha, 0.2)) + alpha.step)
    alpha.set_state({"value": step_up})
    assert p.values()["alpha"] == step_up and p.state.posterior.alpha == pytest.approx(step_up)
    back = grid_value(alpha, 0.2)
    alpha.set_state({"value": back})  # the user moves back: that grid point, not the old exact value
    assert p.values()["alpha"] == back and p.state.posterior.alpha == pytest.approx(back)


def test_a_snapped_q_stays_the_fit_when_the_front_end_rounds_its_sliders():
    p = BoundPanel(make_toy())
    full = p.update()
    for name in ("mean_u", "mean_v", "sd_u", "sd_v", "rho"):
        ctl = p.controls[name]
        ctl.set_state({"value": grid_value(ctl, ctl.value)})
    assert p.controls["snap"].value == "full"
    # the exact snapped Q, not the grid's: a grid point's KL would differ by 1e-6 or more. (The
    # fit's own KL comes from the fit's objective, the panel's from the posterior's KL: equal to
    # round-off, not bit for bit.)
    assert p.update().kl == full.kl == pytest.approx(p.fits.full.kl, rel=1e-12)
    p.snap("laplace")  # code moves the sliders again: the new values are exact again
    for name in ("sd_u", "rho"):
        ctl = p.controls[name]
        ctl.set_state({"value": grid_value(ctl, ctl.value)})
    assert p.controls["snap"].value == "laplace" and p.update().kl == pytest.approx(p.fits.laplace.kl, abs=1e-12)


def test_two_threads_never_draw_a_panel_at_the_same_time():
    """matplotlib's FreeType text rendering is not thread-safe, and a kernel may handle widget
    messages on a subshell's thread: a panel's draw and render hold one lock."""
    import threading
    import time

    p = ToyExplorer()
    first = p.update()
    inside, overlap = [0], [0]
    draw = p.draw

    def slow_draw(state):
        inside[0] += 1
        overlap[0] = max(overlap[0], inside[0])
        time.sleep(0.05)
        draw(state)
        inside[0] -= 1

    p.draw = slow_draw
    threads = [threading.Thread(target=p._show, args=(first,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlap[0] == 1 and p.last_error is None
