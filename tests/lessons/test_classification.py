"""Lesson 8's module: its panels build, every control's ends draw, the readouts show the library's
numbers (stored and fitted now alike), and Fig. 9's predictives are what the library computes."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from ensemble_lib.inference.classification_fits import fit_classification
from ensemble_lib.lessons import classification as l8
from ensemble_lib.models.classification import moderated_output, predictive_probability
from ensemble_lib.studies.classification_demo import neuron_posterior

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def neuron_panel():
    p = l8.NeuronPanel()
    p.update()
    return p


@pytest.fixture(scope="module")
def moderated_panel():
    p = l8.ModeratedPanel()
    p.update()
    return p


def test_neuron_panel_controls_span_the_stated_ranges(neuron_panel):
    c = neuron_panel.controls
    assert (c["n"].min, c["n"].max) == l8.N_RANGE
    assert (c["seed"].min, c["seed"].max) == l8.SEED_RANGE
    assert c["alpha"].min == pytest.approx(math.log10(l8.ALPHA_RANGE[0]))
    assert c["alpha"].max == pytest.approx(math.log10(l8.ALPHA_RANGE[1]))


@pytest.mark.parametrize("values", [
    {"n": 1, "alpha": 0.1, "seed": 0}, {"n": 30, "alpha": 10.0, "seed": 4}, {"n": 1, "alpha": 10.0, "seed": 4},
    {"n": 30, "alpha": 0.1, "seed": 0},
])
def test_neuron_panel_draws_every_corner_from_the_store(neuron_panel, values):
    st = neuron_panel.set_values(values)
    assert neuron_panel.last_error is None and st is not None and st.fits is None  # stored, not fitted
    neuron_panel.reset()


def test_neuron_readout_shows_the_librarys_fit_and_the_full_gaussian_is_smallest(neuron_panel):
    st = neuron_panel.set_values({"n": 17, "alpha": 10 ** -0.5, "seed": 2})
    post = neuron_posterior(17, 10 ** -0.5, 2)
    fits = fit_classification(post)  # a cold fit now, independent of the store
    text = neuron_panel.readout.value
    for key in ("laplace", "diagonal", "full"):
        assert f"{getattr(fits, key).kl:.4f}" in text and f"{getattr(fits, key).bound:.4f}" in text
    assert f"{post.log_evidence:.4f}" in text and f"{fits.log_evidence_laplace:.4f}" in text
    assert st.kls["full"] <= min(st.kls["laplace"], st.kls["diagonal"])
    assert "smallest KL: KL, full" in text
    neuron_panel.reset()


def test_a_setting_off_the_slider_grid_is_fitted_now_and_says_so(neuron_panel):
    st = neuron_panel.set_values({"alpha": 0.5})
    assert st.fits is not None and "fitted now" in neuron_panel.readout.value
    assert st.kls["full"] == pytest.approx(st.fits.full.kl)
    neuron_panel.reset()
    assert "fitted now" not in neuron_panel.readout.value


def test_neuron_state_refuses_bad_input():
    with pytest.raises(ValueError, match="alpha"):
        l8.neuron_state(5, -1.0, 0)
    with pytest.raises(ValueError, match="n"):
        l8.neuron_state(0, 1.0, 0)


def test_moderated_panel_slider_spans_the_stored_path_and_refuses_points_between(moderated_panel):
    ctl = moderated_panel.controls["distance"]
    fig9 = l8.fig9_state()
    assert (ctl.min, ctl.max) == (0.0, float(fig9.distances[-1])) and ctl.step == l8.DISTANCE_STEP
    for d in (ctl.min, ctl.max):
        ctl.value = d
        assert moderated_panel.last_error is None
    moderated_panel.set_values({"distance": 0.3})
    assert moderated_panel.last_error is not None and "distance" in moderated_panel.last_error
    moderated_panel.reset()


def test_moderated_readout_is_the_librarys_predictive_at_the_test_point(moderated_panel):
    st = moderated_panel.set_values({"distance": 4.5})
    fig9 = l8.fig9_state()
    x = np.append(st.point, 1.0)
    m, C = fig9.gaussians["laplace"]
    a, s2 = float(x @ m), float(x @ C @ x)
    assert st.probabilities["best_fit"] == pytest.approx(0.9, abs=1e-9)  # the point lies on the 0.9 contour
    assert st.probabilities["moderated"] == pytest.approx(float(moderated_output(a, s2)), abs=1e-12)
    assert st.probabilities["laplace"] == pytest.approx(float(predictive_probability(a, s2)), abs=1e-12)
    text = moderated_panel.readout.value
    for k in l8.PREDICTIVES:
        assert f"{st.probabilities[k]:.4f}" in text
    moderated_panel.reset()


def test_moderated_output_is_kappa_times_the_activation_by_hand():
    # κ(s) = (1 + πs²/8)^(−1/2) written out independently of the library
    a, s2 = 2.3, 4.0
    assert float(moderated_output(a, s2)) == pytest.approx(1 / (1 + math.exp(-a / math.sqrt(1 + math.pi * s2 / 8))))


def test_softmax_demo_gradient_and_two_class_identity():
    demo = l8.softmax_demo(np.random.default_rng(3))
    assert demo["grad_error"] < 1e-6
    assert demo["two_class"] == pytest.approx(demo["neuron"], abs=1e-10)


def test_write_figures_writes_both_figures(tmp_path):
    paths = l8.write_figures(tmp_path)
    assert [p.name for p in paths] == ["classification_fig7.png", "classification_fig9.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
