"""Lesson 8's stored results re-derived from the library: Fig. 9's exact predictive and Gaussians
(``figures/classification_fig9.npz``) and the neuron panel's fits (``classification_neuron_fits.npz``)."""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib.inference.classification_fits import fit_classification
from ensemble_lib.models.classification import logistic
from ensemble_lib.studies import classification_demo as demo


@pytest.fixture(scope="module")
def fig9():
    return demo.load_store()


@pytest.fixture(scope="module")
def neuron():
    return demo.load_neuron_store()


def test_fig9_store_matches_a_fresh_exact_posterior_and_fit(fig9):
    post = demo.fig9_posterior()  # the 3-D grid: ~10 s
    assert np.array_equal(fig9["x"], post.x) and np.array_equal(fig9["t"], post.t)
    assert float(fig9["log_Z"]) == pytest.approx(post.log_Z, abs=1e-9)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, len(demo.X2), 6), rng.integers(0, len(demo.X1), 6)
    X = np.column_stack([demo.X1[cols], demo.X2[rows], np.ones(6)])
    np.testing.assert_allclose(fig9["exact_map"][rows, cols], post.predictive(X), atol=1e-9)
    path = demo.contour_path(post.mode, post.x)
    np.testing.assert_allclose(fig9["path_points"], path.points, atol=1e-9)
    np.testing.assert_allclose(fig9["exact_path"][[0, 12, -1]], post.predictive(path.inputs()[[0, 12, -1]]), atol=1e-9)
    fits = fit_classification(post)
    for key in demo.FAMILIES:
        assert float(fig9[f"{key}_kl"]) == pytest.approx(getattr(fits, key).kl, abs=1e-6)
        np.testing.assert_allclose(fig9[f"{key}_mean"], getattr(fits, key).mean, atol=1e-5)


@pytest.mark.parametrize("n, log10_alpha, seed", [(1, -1.0, 0), (10, 0.0, 0), (17, -0.5, 2), (30, 1.0, 4)])
def test_neuron_store_rows_match_a_cold_fit(neuron, n, log10_alpha, seed):
    i = np.flatnonzero((neuron["n"] == n) & (neuron["log10_alpha"] == log10_alpha) & (neuron["seed"] == seed))
    assert i.size == 1
    post = demo.neuron_posterior(n, 10.0 ** log10_alpha, seed)
    fits = fit_classification(post)
    assert float(neuron["log_Z"][i[0]]) == pytest.approx(post.log_Z, abs=1e-9)
    # the warm-started mode agrees with a cold one to ~1e-5 in w, so Laplace's ln P(D) to ~1e-9
    assert float(neuron["log_evidence_laplace"][i[0]]) == pytest.approx(fits.log_evidence_laplace, abs=1e-7)
    for key in demo.FAMILIES:
        assert float(neuron[f"{key}_kl"][i[0]]) == pytest.approx(getattr(fits, key).kl, abs=1e-6)
        assert float(neuron[f"{key}_bound"][i[0]]) == pytest.approx(getattr(fits, key).bound, abs=1e-6)
        np.testing.assert_allclose(neuron[f"{key}_cov"][i[0]], getattr(fits, key).cov, atol=1e-5)


def test_neuron_store_holds_every_slider_setting_once(neuron):
    keys = set(zip(neuron["n"].tolist(), neuron["log10_alpha"].tolist(), neuron["seed"].tolist()))
    assert keys == set(demo.neuron_settings()) and len(keys) == neuron["n"].size


def test_the_contour_path_lies_on_the_best_fits_level_and_starts_nearest_the_data():
    w = np.array([2.0, -1.0, 0.5])
    x = np.random.default_rng(1).normal(size=(9, 2))
    path = demo.contour_path(w, x, distances=[0.0, 1.0, 5.0], level=0.8)
    np.testing.assert_allclose(logistic(path.inputs() @ w), 0.8, atol=1e-12)
    # A is the foot of the perpendicular from the data's mean: A − mean is parallel to (w1, w2)
    d = path.A - x.mean(axis=0)
    assert abs(d[0] * w[1] - d[1] * w[0]) < 1e-12
    np.testing.assert_allclose(np.linalg.norm(np.diff(path.points, axis=0), axis=1), [1.0, 4.0])


@pytest.mark.parametrize("kwargs, name", [
    (dict(w_mp=[1.0, 2.0], x=np.zeros((2, 2))), "w_mp"),
    (dict(w_mp=[0.0, 0.0, 1.0], x=np.zeros((2, 2))), "w_mp"),
    (dict(w_mp=[1.0, 2.0, 0.0], x=np.zeros((2, 2)), level=1.0), "level"),
    (dict(w_mp=[1.0, 2.0, 0.0], x=np.zeros((2, 2)), distances=[np.nan]), "distances"),
])
def test_contour_path_refuses_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        demo.contour_path(**kwargs)


def test_neuron_data_arrive_one_by_one_and_refuse_bad_n():
    a, b = demo.neuron_data(5, 3), demo.neuron_data(12, 3)
    np.testing.assert_array_equal(a.x, b.x[:5])
    with pytest.raises(ValueError, match="n"):
        demo.neuron_data(0, 3)
    with pytest.raises(ValueError, match="n"):
        demo.neuron_data(demo.NEURON_N_MAX + 1, 3)
