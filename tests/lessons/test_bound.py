"""Tests of lesson 3's helpers and figures (its two panels: tests/ui/test_panel.py)."""

import numpy as np
import pytest

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.lessons.bound import (bound_decomposition, compare_hyperparameters, gaussian_from_sliders,
                                        sliders_from_gaussian, write_figures)
from ensemble_lib.core.gaussian import kl_gaussians

from _committed import assert_writes_the_committed_files


@pytest.fixture(scope="module")
def comp():
    return compare_hyperparameters(n_grid=9)


def test_decomposition_on_an_exact_gaussian_posterior_is_the_closed_form_kl():
    """ln P(D) − F[Q] = KL(Q‖P) with P exactly Gaussian: the closed-form Gaussian KL."""
    rng = np.random.default_rng(7)
    Phi = rng.normal(size=(12, 2))
    lin = LinearGaussianPosterior(Phi, Phi @ [0.5, -1.0] + 0.3 * rng.normal(size=12), 2.0, 5.0)
    for _ in range(5):
        mean, cov = gaussian_from_sliders(*rng.normal(size=2), *np.exp(rng.normal(size=2) - 1),
                                          rng.uniform(-0.9, 0.9))
        d = bound_decomposition(lin, mean, cov)
        assert d.kl == pytest.approx(kl_gaussians(mean, cov, lin.mean, lin.cov), abs=1e-9)
        assert d.bound <= d.log_evidence
    # F[Q] = ln P(D) exactly when Q is the posterior
    assert bound_decomposition(lin, lin.mean, lin.cov).kl == pytest.approx(0.0, abs=1e-10)


def test_slider_parametrisation_round_trips():
    mean, cov = gaussian_from_sliders(0.1, -0.2, 0.3, 0.05, -0.7)
    back = sliders_from_gaussian(mean, cov)
    assert back == pytest.approx({"mean_u": 0.1, "mean_v": -0.2, "sd_u": 0.3, "sd_v": 0.05, "rho": -0.7})


@pytest.mark.parametrize("args, name", [((0, 0, 0.0, 1, 0), "sd_u"), ((0, 0, 1, -1, 0), "sd_v"),
                                        ((0, 0, 1, 1, 1.0), "rho"), ((np.nan, 0, 1, 1, 0), "mean")])
def test_bad_gaussian_rejected(args, name):
    with pytest.raises(ValueError, match=name):
        gaussian_from_sliders(*args)


def test_comparison_table_exact_maximiser_is_best(comp):
    rows = comp.table()
    assert rows[0]["method"].startswith("exact")
    best = rows[0]["log_evidence"]
    assert all(r["log_evidence"] <= best + 1e-9 for r in rows)
    assert "exact maximiser" in comp.format_table()


def test_write_figures_writes_the_committed_figures(tmp_path):
    made = assert_writes_the_committed_files(write_figures, tmp_path,
                                             ["bound_fig1.png", "hyperparameter_trajectories.png",
                                              "cheap_reestimation.png"])
    assert all(x.stat().st_size > 10_000 for x in made)
