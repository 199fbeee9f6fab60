"""Plot helpers take an ax, draw on it, and return the artists they made."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ensemble_lib.ui.plotting import (NICE_MANTISSAS, annotate_kl, figure_png, new_figure, nice_ceiling,
                                       nice_range, plot_gaussian_ellipses, plot_posterior_contours,
                                       update_gaussian_ellipses)
from ensemble_lib.models.toy import make_posterior


def test_helpers_draw_on_the_given_axes_and_return_artists():
    fig, ax = new_figure()
    arts = plot_posterior_contours(ax, make_posterior(0).grid(n=41))
    arts += plot_gaussian_ellipses(ax, [0.1, -0.2], np.array([[0.04, 0.01], [0.01, 0.09]]))
    text = annotate_kl(ax, {"laplace": 41.0, "full": 3.9})
    assert len(arts) >= 5 and all(getattr(a, "axes", ax) is ax for a in arts)
    assert "KL(Laplace) = 41.00" in text.get_text() and text.axes is ax
    assert figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_ellipses_have_the_gaussians_axes_and_move_in_place():
    fig, ax = new_figure()
    C = np.array([[4.0, 0.0], [0.0, 1.0]])
    arts = plot_gaussian_ellipses(ax, [0.0, 0.0], C, n_sigmas=(1, 2))
    assert (arts[0].width, arts[0].height) == pytest.approx((4.0, 2.0))
    assert (arts[1].width, arts[1].height) == pytest.approx((8.0, 4.0))
    update_gaussian_ellipses(arts, [1.0, 2.0], np.array([[1.0, 0.0], [0.0, 9.0]]), n_sigmas=(1, 2))
    assert tuple(arts[0].center) == (1.0, 2.0)
    assert (arts[0].width, arts[0].height) == pytest.approx((6.0, 2.0))  # major axis now along v
    assert arts[0].angle % 180 == pytest.approx(90.0)


@given(st.floats(1e-300, 1e300))
def test_nice_ceiling_is_the_next_nice_number_at_most_a_third_above(x):
    y = nice_ceiling(x)
    assert x <= y <= x * 4 / 3 * (1 + 1e-12)
    mantissa = y / 10.0 ** math.floor(math.log10(y) + 1e-12)
    assert any(math.isclose(mantissa, m, rel_tol=1e-9) for m in NICE_MANTISSAS)


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6), st.integers(1, 20), st.sampled_from([0.0, 0.03]))
def test_nice_range_covers_the_range_with_nice_ends(lo, span, steps, pad):
    hi = lo + span
    assume(hi > lo)
    a, b = nice_range(lo, hi, steps=steps, pad=pad)
    assert a <= lo and b >= hi
    core = (b - a) / (1 + 2 * pad)
    span = hi - lo  # as the floats have it
    step = nice_ceiling(span / steps)
    # ends on multiples of the step (before the pad), at most one step beyond each end
    assert core <= span + 2 * step * (1 + 1e-9) + 1e-9 * abs(lo)
    a0 = a + pad * core
    assert a0 / step == pytest.approx(round(a0 / step), abs=1e-6, rel=1e-9)


def test_nice_range_on_a_log_axis_and_its_steps():
    assert nice_range(0.13, 2.71) == (0.0, 3.0)
    assert nice_range(-3.3, 4.1) == (-4.5, 4.5)
    assert nice_range(1e-3, 50.0, log=True) == pytest.approx((1e-3, 100.0))
    # neighbouring ranges share their limits: what lets a panel keep its ticks in the background
    assert len({nice_range(0.1 + d, 2.6 + d) for d in np.linspace(0.0, 0.05, 11)}) == 1


@pytest.mark.parametrize("call, match", [
    (lambda: nice_ceiling(0.0), "x"), (lambda: nice_ceiling(np.inf), "x"), (lambda: nice_ceiling("1"), "x"),
    (lambda: nice_range(2.0, 1.0), "lo, hi"), (lambda: nice_range(0.0, 1.0, log=True), "lo, hi"),
    (lambda: nice_range(0.0, np.nan), "lo, hi"), (lambda: nice_range(0.0, 1.0, steps=0), "steps"),
    (lambda: nice_range(0.0, 1.0, pad=0.6), "pad"),
])
def test_nice_helpers_refuse_bad_input_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()
