"""Lesson 2 as a user meets it: every slider value and the figures (the panel: tests/ui/test_panel.py)."""

import itertools
import warnings

import numpy as np
import pytest

from ensemble_lib.lessons import mean_sigma as ml
from ensemble_lib.models.mackay_gaussian import FIG1, MacKayGaussian
from ensemble_lib.lessons.mean_sigma import (BETA0_RANGE, K_RANGE, N_RANGE, S_RANGE, XBAR_RANGE,
                                             EnsemblePanel, ensemble_limits)
from ensemble_lib.ui.plotting import new_figure

from _committed import assert_writes_the_committed_files


def _sweep_points():
    corners = list(itertools.product(N_RANGE, XBAR_RANGE, S_RANGE, BETA0_RANGE))
    rng = np.random.default_rng(7)
    randoms = [(int(rng.integers(N_RANGE[0], N_RANGE[1] + 1)), float(rng.uniform(*XBAR_RANGE)),
                float(10 ** rng.uniform(*np.log10(S_RANGE))), float(10 ** rng.uniform(*np.log10(BETA0_RANGE))))
               for _ in range(10)]
    return corners + randoms


def test_every_slider_value_gives_finite_results_and_no_warnings():
    p = EnsemblePanel()
    for N, xbar, S, beta0 in _sweep_points():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            st = p.compute(k=K_RANGE[1], N=N, xbar=xbar, S=S, beta0=beta0)
            vals = np.concatenate([st.run.beta_bar, st.run.kl, st.run.free_energy, st.conjugate.kl])
            assert np.all(np.isfinite(vals)), (N, xbar, S, beta0)
            assert np.all(st.run.kl >= 0) and np.all(st.conjugate.kl >= 0)
            for k in (K_RANGE[0], 1, K_RANGE[1]):
                mu_lim, s_lim = ensemble_limits(st.model, st.run[k])
                mu = np.linspace(*mu_lim, 21)
                s = np.linspace(*s_lim, 21)
                assert np.all(np.isfinite(st.model.log_posterior(mu[None, :], s[:, None])))
                assert np.all(np.isfinite(st.model.q_log_density(st.run[k], mu[None, :], s[:, None])))


def test_the_panels_fixed_log_ranges_hold_every_slider_value():
    """The middle and right plots have fixed y-ranges: every run the sliders can make fits inside them."""
    for N, xbar, S, beta0 in _sweep_points():
        run = MacKayGaussian(N, xbar, S).ensemble_iterations(beta0, K_RANGE[1])
        assert ml._KL_YLIM[0] <= run.kl.min() and run.kl.max() <= ml._KL_YLIM[1], (N, S, beta0)
        assert (run.error / run.fixed_point).max() <= ml._ERR_YLIM[1], (N, S, beta0)


def test_out_of_range_values_are_refused_with_a_clear_message():
    p = EnsemblePanel()
    with pytest.raises(ValueError, match="N must be an integer >= 2"):
        p.compute(k=0, N=1, xbar=0.0, S=1.0, beta0=1.0)
    with pytest.raises(ValueError, match="beta0 must be a finite number > 0"):
        p.compute(k=0, N=5, xbar=0.0, S=1.0, beta0=0.0)
    with pytest.raises(ValueError, match="S must be a finite number > 0"):
        p.compute(k=0, N=5, xbar=0.0, S=-1.0, beta0=1.0)


def test_fig1b_curves_peak_at_sigma_N_and_sigma_N1():
    fig, ax = new_figure()
    arts = ml.plot_fig1b(ax, FIG1, n=4001)
    like, evid = arts[0], arts[1]
    s, y = like.get_data()
    assert s[np.argmax(y)] == pytest.approx(FIG1.sigma_N, abs=s[1] - s[0])
    s, y = evid.get_data()
    assert s[np.argmax(y)] == pytest.approx(FIG1.sigma_N1, abs=s[1] - s[0])
    assert np.max(y) == pytest.approx(1.0, abs=1e-6)


def test_fig1a_marks_the_maximum_likelihood_point():
    fig, ax = new_figure()
    arts = ml.plot_fig1a(ax, FIG1)
    dot = [a for a in arts if hasattr(a, "get_xdata") and len(np.atleast_1d(a.get_xdata())) == 1][0]
    assert dot.get_xdata()[0] == FIG1.xbar and dot.get_ydata()[0] == pytest.approx(0.4472, abs=1e-4)


def test_write_figures_writes_the_committed_figures_silently(tmp_path, capsys):
    made = assert_writes_the_committed_files(
        ml.write_figures, tmp_path, ["mackay_fig1a.png", "mackay_fig1b.png", "mackay_iterations.png"])
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in made)
    assert capsys.readouterr().out == ""


def test_iterations_figure_other_model():
    fig = ml.iterations_figure(MacKayGaussian(3, -1.0, 4.0), beta0=50.0, sweeps=(0, 1, 3, 8), n_iter=8)
    assert len(fig.axes) == 7
