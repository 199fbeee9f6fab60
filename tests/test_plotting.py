"""Plot helpers take an ax, draw on it, and return the artists they made."""

import numpy as np
import pytest

from ensemble_lib.ui.plotting import (annotate_kl, figure_png, new_figure, plot_gaussian_ellipses,
                                       plot_posterior_contours, update_gaussian_ellipses)
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
