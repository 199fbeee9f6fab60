"""One Boston split's per-chain HMC traces (``figures/hmc_chains_boston.json``) re-derive from their config.

Skipped as a whole when NumPyro is not installed (the ``reference`` extra). The run takes about a
minute on two cores.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numpyro")

from ensemble_lib.studies import hmc_chains, hmc_reference  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def stored():
    return hmc_chains.load_chains("boston")


def test_stored_traces_have_the_shape_their_settings_say(stored):
    config, settings = hmc_chains.config_from_stored(stored)
    assert settings == hmc_chains.CHAINS_SAMPLER and stored["index"] == hmc_chains.CHAINS_SPLIT
    kept = settings.num_samples // stored["thin"]
    for name, tr in stored["traces"].items():
        assert np.asarray(tr).shape == (settings.num_chains, kept), name
    assert stored["sampler_seed"] == hmc_reference.sampler_seed(config.seed, stored["index"])


def test_stored_traces_rederive_from_their_config(stored, tmp_path):
    """The command, run afresh in its own process, writes the stored file again.

    In its own process because JAX fixes its host device count when first imported, and the test
    process may have imported it (``importorskip("numpyro")``) with one device: its chains would then
    run one after another, whose draws differ from the parallel chains the command ran.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "ensemble_lib.studies.hmc_chains", "--outdir", str(tmp_path)],
                   check=True, env=env, cwd=ROOT, capture_output=True)
    again = hmc_chains.load_chains("boston", tmp_path)
    assert hmc_chains.stored_config(again) == hmc_chains.stored_config(stored)
    assert again["chain_method"] == stored["chain_method"]
    assert again["f_train_index"] == stored["f_train_index"]
    for name in stored["traces"]:
        np.testing.assert_allclose(again["traces"][name], stored["traces"][name], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(again["chain_test_mse"], stored["chain_test_mse"], rtol=1e-6)
    assert again["divergences"] == stored["divergences"]


def test_chain_test_errors_are_those_of_each_chains_predictive_mean(stored):
    # the draws' own test errors average to more than the chain's predictive error (Jensen: the mean of
    # squared errors exceeds the squared error of the mean), chain by chain
    draw = np.asarray(stored["traces"]["draw_mse"])
    assert np.all(draw.mean(axis=1) >= np.asarray(stored["chain_test_mse"]) - 1e-12)
    assert stored["test_mse"] < stored["baseline_mse"]
