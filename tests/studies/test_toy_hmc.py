"""Lesson 9's stored toy runs (``figures/monte_carlo_toy.npz``) re-derive from their settings.

Skipped as a whole when NumPyro is not installed (the ``reference`` extra). Re-running all of it takes
minutes, so the test re-runs the main NUTS run in full, two of the fixed-step settings and two of the
replicate seeds, and compares them with the store up to what floating point can change between CPUs.
The store's numbers are checked against the exact posterior in tests/lessons/test_monte_carlo.py.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numpyro")

from ensemble_lib.studies import toy_hmc  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def stored():
    return toy_hmc.load_store()


def test_store_records_its_settings(stored):
    settings = eval(str(stored["settings"]), {})  # a repr of plain dicts
    assert settings["main"] == toy_hmc.MAIN_SAMPLER.as_dict()
    assert settings["rep"] == toy_hmc.REP_SAMPLER.as_dict()
    assert settings["sweep"] == toy_hmc.SWEEP_SAMPLER.as_dict()
    assert tuple(stored["sweep_eps"]) == toy_hmc.SWEEP_STEPS
    assert tuple(stored["sweep_lengths"]) == toy_hmc.SWEEP_LENGTHS
    assert stored["rep_seeds"].tolist() == list(range(1, toy_hmc.N_REPLICATES + 1))


_RERUN = """
import sys
from ensemble_lib.studies import toy_hmc
from ensemble_lib.studies.store import save_npz
save_npz(toy_hmc.compute_store(n_replicates=2, steps=(toy_hmc.SWEEP_STEPS[2], toy_hmc.SWEEP_STEPS[-1])), sys.argv[1])
"""


def test_store_rederives_from_its_settings(stored, tmp_path):
    """The runs, made again in a process of their own (JAX fixes its host device count, and so whether
    the chains run in parallel as the stored runs did, when first imported), agree with the store."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "again.npz"
    subprocess.run([sys.executable, "-c", _RERUN, str(out)], check=True, env=env, cwd=ROOT, capture_output=True)
    again = toy_hmc.load_store(out)
    steps = (toy_hmc.SWEEP_STEPS[2], toy_hmc.SWEEP_STEPS[-1])
    np.testing.assert_allclose(again["main_w"], stored["main_w"], rtol=1e-6, atol=1e-8)
    assert again["main_divergences"].tolist() == stored["main_divergences"].tolist()
    assert again["main_n_leapfrog"].tolist() == stored["main_n_leapfrog"].tolist()
    rows = [toy_hmc.SWEEP_STEPS.index(e) for e in steps]
    np.testing.assert_allclose(again["sweep_accept_prob"], stored["sweep_accept_prob"][rows], rtol=1e-6)
    np.testing.assert_allclose(again["sweep_divergent_fraction"], stored["sweep_divergent_fraction"][rows])
    np.testing.assert_allclose(again["rep_estimate"], stored["rep_estimate"][:2], rtol=1e-6)
    np.testing.assert_allclose(again["rep_se"], stored["rep_se"][:2], rtol=1e-6)


def test_predictive_draws_are_the_toy_network_output():
    w = np.array([[0.5, -2.0], [-0.5, 2.0]])
    from ensemble_lib.models import erf_network

    want = erf_network.toy_model(np.array([[toy_hmc.X_STAR]]), w[:, 0:1], w[:, 1:2])[:, 0]
    assert np.allclose(toy_hmc.predictive_draws(w), want)
    assert np.allclose(toy_hmc.predictive_draws(w)[0], toy_hmc.predictive_draws(w)[1])
