"""Lesson 4, §8 (lessons.networks, from studies.retraining_demo): bands, table, figure and exercise.

The bands are recomputed here from the stored weights and files by hand (numpy on the stored
arrays), so the module's arithmetic — which draws, which ddof, the noise 1/β — is checked
independently; the sentence's numbers are found in the table's.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ensemble_lib.lessons import networks as sec
from ensemble_lib.studies import retraining_demo as study
from ensemble_lib.models.network import add_bias, network_output
from ensemble_lib.studies.hmc_reference import DEMO_FILE
from ensemble_lib.studies.retraining_demo import load_retraining
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def summary():
    return study.retraining_summary()


def test_the_retraining_bands_are_the_stored_networks_spread_plus_the_noise(summary):
    a = load_retraining()
    X = add_bias(a["x_grid"][:, None])
    for key, rows in (("retrain", a["prior_weights"]), ("retrain12", a["prior_weights"][:12]),
                      ("retrain_no_prior", a["no_prior_weights"])):
        f = np.array([network_output(w, X, 2) for w in rows])  # one network at a time
        want = np.sqrt(np.var(f, axis=0, ddof=1) + 1 / float(a["beta"]))
        assert np.allclose(summary.sd[key], want, rtol=1e-12), key
        assert np.allclose(summary.mean[key], f.mean(axis=0), rtol=1e-12), key


def test_the_other_bands_are_the_stored_laplace_ensemble_and_hmc_ones(summary):
    hmc = json.loads((FIGURES_DIR / DEMO_FILE).read_text())
    assert np.allclose(summary.sd["hmc"], hmc["sd"]) and np.allclose(summary.mean["hmc"], hmc["mean"])
    assert np.allclose(summary.sd["laplace"], load_retraining()["lap_sd"])
    assert summary.at("laplace", 0.0) == pytest.approx(summary.sd["laplace"][60])


def test_the_table_and_the_sentence_print_the_summarys_numbers(summary):
    text = sec.retraining_table(summary).text()
    sentence = study.retraining_sentence(summary)
    for m in study.METHODS:
        assert f"{summary.at(m, 0.0):.3f}" in text and f"{summary.at(m, 1.5):.3f}" in text
    for m in ("retrain", "retrain_no_prior", "laplace", "ensemble", "hmc", "retrain12"):
        assert f"{summary.at(m, 0.0):.3f}" in sentence, m
    assert f"{100 / math.sqrt(22):.0f} %" in sentence


def test_the_figure_has_two_panels_with_twelve_networks_each(summary):
    fig = sec.retraining_figure(summary)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        labelled = [line for line in ax.get_lines() if line.get_label() == "12 retrained networks"]
        assert len(labelled) == 1 and len(ax.get_lines()) >= 12 + 6 + 1


def test_the_exercise_passes_its_solution_and_fails_the_noise_forgotten(summary):
    f12 = summary.curves["prior"][:12, 60]
    right = {"sd_gap": math.sqrt(f12.var(ddof=1) + 1 / summary.beta),
             "prior_widens": summary.at("retrain", 0.0) > summary.at("retrain_no_prior", 0.0)}
    ex = sec.EXERCISES["q5"]
    assert ex.run(right).passed
    assert not ex.run(ex.wrong({})).passed
    assert "noise" in ex.run({**right, "sd_gap": float(f12.std(ddof=1))}).message
    assert not ex.run({**right, "prior_widens": not right["prior_widens"]}).passed
