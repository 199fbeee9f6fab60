"""Lesson 3, §5 (ensemble_lib.lessons.bound.hyper_reestimation) and exercise 5's closed-form helper.

The sweep is checked against runs made here; exercise 5's closed-form existence test
(:func:`cheap_fixed_point_exists`) against the iteration itself (``cheap_reestimation(...).converged``)
on both sides of the threshold, with both noise levels the lesson uses.
"""

import math
import warnings

import numpy as np
import pytest

from ensemble_lib.inference.evidence import cheap_reestimation, evidence_reestimation
from ensemble_lib.inference.reestimation import HyperparameterConvergenceWarning
from ensemble_lib.lessons.bound import (bumps_posterior, cheap_comparison, cheap_table, log_alpha_cases,
                                        log_alpha_table, reestimation_figure)
from ensemble_lib.lessons.bound.hyper_reestimation import plot_cheap, plot_log_alpha
from ensemble_lib.lessons.bound.exercises import cheap_fixed_point_exists
from ensemble_lib.ui.plotting import new_figure


def _converges(post):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        return cheap_reestimation(post, tol=1e-10, max_iter=5000).converged


@pytest.mark.parametrize("noise, counts", [(0.3, range(9, 15)), (0.2, (0, 22, 23, 24, 25))])
def test_closed_form_existence_matches_the_iteration(noise, counts):
    for n in counts:
        post = bumps_posterior(n, noise=noise)
        assert cheap_fixed_point_exists(post) == _converges(post), n


def test_far_bumps_are_invisible_to_the_data():
    post = bumps_posterior(3)
    assert post.dim == 8 and post.n_data == 30
    assert np.max(post.Phi[:, 5:]) < 1e-3  # centres 2, 2.5, 3: at least four widths from x <= 1
    assert np.min(np.max(post.Phi[:, :5], axis=0)) > 0.5


def test_the_sweep_reproduces_runs_made_here():
    comp = cheap_comparison((0, 6, 26))
    for i, n in enumerate((0, 6, 26)):
        post = bumps_posterior(n)
        mk = evidence_reestimation(post, tol=1e-10, max_iter=5000)
        assert comp.alpha_mackay[i] == pytest.approx(mk.alpha_final, rel=1e-9)
        assert comp.gamma[i] == pytest.approx(mk.gamma_final, rel=1e-9)
        assert comp.poorly_determined[i] == pytest.approx(post.dim - mk.gamma_final)
        assert comp.cheap_converged[i] == _converges(post)
    assert comp.first_singular == 2 and comp.alpha_exact == pytest.approx(comp.alpha_mackay, rel=1e-5)
    text = repr(cheap_table(comp))
    assert "→ ∞" in text and f"{comp.alpha_cheap[0]:.4g}" in text


def test_log_alpha_cases_and_table():
    cases = log_alpha_cases()
    assert set(cases) == {"small", "large"}
    table = repr(log_alpha_table(cases))
    for c in cases.values():
        assert f"{c.posterior.gamma:.2f}" in table and f"{c.posterior.sd:.3f}" in table
        assert c.posterior.mackay_sd == pytest.approx(math.sqrt(2 / c.posterior.gamma))


def test_plots_draw_what_they_say():
    comp = cheap_comparison((0, 4, 30))
    cases = log_alpha_cases()
    fig, ax = new_figure()
    arts = plot_cheap(ax, comp)
    np.testing.assert_allclose(arts["cheap"].get_ydata(), comp.alpha_cheap[:2])
    assert len(arts["singular"].get_xdata()) == 1
    fig, ax = new_figure()
    arts = plot_log_alpha(ax, cases["large"])
    x, y = arts["mackay"].get_xdata(), arts["mackay"].get_ydata()
    assert np.trapezoid(y, x) == pytest.approx(1.0, abs=1e-3)  # ±4 s.d. of a normal density
    fig, axes = reestimation_figure(comp, cases)
    assert len(axes) == 3


@pytest.mark.parametrize("call, match", [
    (lambda: bumps_posterior(-1), "n_far must be an integer"),
    (lambda: bumps_posterior(0, noise=0.0), "noise must be a finite number > 0"),
    (lambda: bumps_posterior(0, width=-1.0), "width must be a finite number > 0"),
    (lambda: bumps_posterior(0, N=1), "N must be an integer"),
    (lambda: cheap_comparison(()), "far_counts must be a non-empty increasing"),
    (lambda: cheap_comparison((4, 2)), "far_counts must be a non-empty increasing"),
    (lambda: cheap_comparison((-1,)), r"far_counts\[i\] must be an integer"),
    (lambda: plot_log_alpha(None, log_alpha_cases()["large"], span=0.0), "span must be a finite number > 0"),
])
def test_bad_inputs_are_rejected_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()
