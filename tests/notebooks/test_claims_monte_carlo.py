"""Lesson 9's quantitative sentences, each asserted on numbers the library computes here afresh
(tests/_claims.py: the sentence is found word for word, then what it says is checked).

The sentences written from numbers when the lesson runs (f-strings shown as Markdown) need no claim;
these are the ones typed into its Markdown cells.
"""

from __future__ import annotations

import numpy as np
import pytest

from _claims import sentence

pytest.importorskip("arviz")

from ensemble_lib.lessons import monte_carlo as L  # noqa: E402
from ensemble_lib.models.toy import PAPER_PRESET  # noqa: E402
from ensemble_lib.studies import hmc_chains, toy_hmc  # noqa: E402

NB = "09_monte_carlo.ipynb"


@pytest.fixture(scope="module")
def runs():
    return L.toy_runs()


def test_the_toy_is_lesson_1s_preset_and_the_test_input_is_outside_the_data(runs):
    sentence(NB, "the paper-like preset: six points, $\\beta = 100$")
    sentence(NB, "at $x^* = 3$, outside the data")
    assert PAPER_PRESET["n"] == 6 and 1.0 / PAPER_PRESET["noise_sd"] ** 2 == pytest.approx(100.0)
    assert toy_hmc.X_STAR == 3.0 and float(runs.store["x_star"]) == 3.0
    assert np.max(np.abs(runs.post.x)) < 3.0


def test_the_stored_run_has_four_chains_of_1000_after_1000(runs):
    sentence(NB, "Four chains of NUTS, 1000 warm-up steps and 1000 kept draws each")
    s = toy_hmc.MAIN_SAMPLER
    assert (s.num_chains, s.num_warmup, s.num_samples) == (4, 1000, 1000)
    assert runs.store["main_w"].shape == (4, 1000, 2)


def test_replicates_are_ten_seeds_at_the_same_settings(runs):
    sentence(NB, "Ten more NUTS runs at the same settings (seeds 1–10)")
    assert toy_hmc.REP_SAMPLER == toy_hmc.MAIN_SAMPLER
    assert runs.store["rep_seeds"].tolist() == list(range(1, 11))


def test_f_at_x_star_is_the_same_in_both_mirror_modes(runs):
    sentence(NB, "Since $f(x^*)$ is the same in both mirror modes")
    w = runs.store["main_w"]
    assert np.allclose(toy_hmc.predictive_draws(w), toy_hmc.predictive_draws(-w))


def test_chains_in_different_modes_give_weights_a_huge_r_hat_but_not_f_or_the_folded_weights(runs):
    sentence(NB, "Here the chains sit in different mirror modes")
    sentence(NB, "their R-hat is huge although every chain samples its mode well")
    sentence(NB, "its R-hat is fine, and the folded weights' nearly so")
    w = runs.store["main_w"]
    signs = np.sign(w[:, :, 0].mean(axis=1))
    assert len(set(signs.tolist())) == 2  # the chains are in both modes
    d = L.diagnostics({"u": w[..., 0], "folded": L.fold(w)[..., 0], "f": runs.f_chains})
    assert d["u"]["r_hat"] > 1.5
    assert d["f"]["r_hat"] < 1.01 and d["folded"]["r_hat"] < 1.02


def test_numpyro_calls_an_energy_error_above_1000_a_divergence():
    sentence(NB, "(NumPyro: $\\Delta H > 1000$)")
    import inspect

    from numpyro.infer import hmc_util

    assert inspect.signature(hmc_util.build_tree).parameters["max_delta_energy"].default == 1000.0


def test_cost_grows_as_one_over_error_squared(runs):
    sentence(NB, "every halving of the error costs four times as many")
    cost = L.cost_summary(runs, 1.0, 1)
    assert L.draws_needed(cost["se_per_draw"], 0.01) == pytest.approx(
        4 * L.draws_needed(cost["se_per_draw"], 0.02), rel=0.01)
    assert cost["tenth"]["draws"] == pytest.approx(100 * cost["same"]["draws"], rel=0.02)


def test_the_boston_traces_are_four_chains_of_500_after_500():
    sentence(NB, "four chains of 500 draws after 500 warm-up")
    stored = hmc_chains.load_chains("boston")
    s = stored["sampler"]
    assert (s["num_chains"], s["num_warmup"], s["num_samples"]) == (4, 500, 500)
    assert len(stored["chain_test_mse"]) == 4


def test_boston_chains_differ_in_the_function_they_compute():
    sentence(NB, "there are also modes that compute **different** functions")
    stored = hmc_chains.load_chains("boston")
    d = L.diagnostics({"draw_mse": np.asarray(stored["traces"]["draw_mse"])})
    mse = stored["chain_test_mse"]
    assert max(mse) - min(mse) > 0.1 and d["draw_mse"]["r_hat"] > 1.2
