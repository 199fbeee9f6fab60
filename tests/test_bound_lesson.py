"""Tests of lesson 3's panels, helpers and figures (moving every control programmatically)."""

import numpy as np
import pytest

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.lessons.bound import (LOG10_SD_RANGE, RHO_MAX, BoundPanel, HyperIterationPanel,
                                        bound_decomposition, compare_hyperparameters,
                                        gaussian_from_sliders, sliders_from_gaussian, write_figures)
from ensemble_lib.inference.gaussian import kl_gaussians


@pytest.fixture(scope="module")
def bound_panel():
    panel = BoundPanel()
    panel.update()
    return panel


@pytest.fixture(scope="module")
def comp():
    return compare_hyperparameters(n_grid=9)


@pytest.fixture(scope="module")
def hyper_panel(comp):
    panel = HyperIterationPanel(comp)
    panel.update()
    return panel


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


def test_moving_each_bound_slider_redraws(bound_panel):
    p = bound_panel
    for name, value in [("mean_u", -0.3), ("mean_v", -1.0), ("sd_u", 0.07), ("sd_v", 0.3), ("rho", -0.5)]:
        png, text = p.image.value, p.readout.value
        p.controls[name].value = value
        assert p.last_error is None, p.last_error
        assert p.image.value != png and p.readout.value != text, name
        assert p.controls["snap"].value == "custom"
        assert p.state.bound <= p.state.log_evidence


@pytest.mark.parametrize("name", ["laplace", "diagonal", "full"])
def test_snapping_reproduces_the_fits(bound_panel, name):
    p = bound_panel
    n0 = p.n_updates
    p.controls["snap"].value = name
    assert p.last_error is None
    assert p.n_updates == n0 + 1  # one redraw for five slider moves
    fit = getattr(p.fits, name)
    assert p.state.kl == pytest.approx(fit.kl, abs=1e-8)
    assert p.state.bound == pytest.approx(fit.bound, abs=1e-8)
    assert f"{fit.kl:.6f}" in p.readout.value


def test_bound_slider_sweep_is_finite(bound_panel):
    """Corners and random points of every slider's range: finite F, F ≤ ln P(D)."""
    p = bound_panel
    c = p.controls
    rng = np.random.default_rng(3)
    corners = [(u, v, 10 ** su, 10 ** sv, r)
               for u in (c["mean_u"].min, c["mean_u"].max) for v in (c["mean_v"].min, c["mean_v"].max)
               for su in LOG10_SD_RANGE for sv in LOG10_SD_RANGE for r in (-RHO_MAX, RHO_MAX)]
    randoms = [(rng.uniform(c["mean_u"].min, c["mean_u"].max), rng.uniform(c["mean_v"].min, c["mean_v"].max),
                10 ** rng.uniform(*LOG10_SD_RANGE), 10 ** rng.uniform(*LOG10_SD_RANGE),
                rng.uniform(-RHO_MAX, RHO_MAX)) for _ in range(20)]
    for vals in corners + randoms:
        s = p.compute(*vals, snap="custom")
        assert np.isfinite(s.bound) and np.isfinite(s.kl) and s.kl >= 0, vals
    # and through the widgets, at the extreme corner
    c["sd_u"].value, c["sd_v"].value, c["rho"].value = 10 ** LOG10_SD_RANGE[0], 10 ** LOG10_SD_RANGE[1], RHO_MAX
    assert p.last_error is None


def test_comparison_table_exact_maximiser_is_best(comp):
    rows = comp.table()
    assert rows[0]["method"].startswith("exact")
    best = rows[0]["log_evidence"]
    assert all(r["log_evidence"] <= best + 1e-9 for r in rows)
    assert "exact maximiser" in comp.format_table()


def test_moving_the_iteration_and_method_redraws(hyper_panel):
    p = hyper_panel
    for name, value in [("iteration", 3), ("method", "evidence"), ("iteration", 1), ("method", "ensemble")]:
        png, text = p.image.value, p.readout.value
        p.controls[name].value = value
        assert p.last_error is None, p.last_error
        assert p.image.value != png and p.readout.value != text, (name, value)
    # the posterior drawn is the one at that iteration's α, β
    assert p.state["alpha"] == pytest.approx(p.comp.ensemble.alpha[1])


def test_every_iteration_of_both_methods_draws(hyper_panel):
    p = hyper_panel
    for method in ("ensemble", "evidence"):
        p.controls["method"].value = method
        for i in range(p.controls["iteration"].max + 1):
            p.controls["iteration"].value = i
            assert p.last_error is None
            assert np.all(np.isfinite(p.state["grid"].log_density))


def test_write_figures_is_byte_stable(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = write_figures(tmp_path / "a"), write_figures(tmp_path / "b")
    assert [x.name for x in a] == ["bound_fig1.png", "hyperparameter_trajectories.png"]
    for x, y in zip(a, b):
        assert x.read_bytes() == y.read_bytes() and x.stat().st_size > 10_000
