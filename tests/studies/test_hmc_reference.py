"""The HMC reference command (``ensemble_lib.studies.hmc_reference``): its stored JSON re-derives.

Skipped as a whole when NumPyro is not installed (the ``reference`` extra). The sampler itself:
tests/inference/test_hmc.py.
"""

import json

import numpy as np
import pytest

pytest.importorskip("numpyro")

import _jax_cache  # noqa: E402
from ensemble_lib.studies import hmc_reference  # noqa: E402


# the module's own persistent JAX compilation cache (tests/_jax_cache.py)
compilation_cache = pytest.fixture(scope="module", autouse=True)(_jax_cache.compilation_cache)


def test_quick_command_is_deterministic_and_its_config_rederives(tmp_path):
    """``--quick`` writes JSON whose stored configuration re-runs to identical JSON.

    Re-running from the stored configuration gives the same numbers bit for bit (same machine);
    the JSON holds no wall times (they go to the ``--times`` file), so the bytes are identical.
    """
    paths = hmc_reference.main(["--quick", "--datasets", "diabetes", "--outdir", str(tmp_path),
                                "--times", str(tmp_path / "times.json")])
    assert len(json.loads((tmp_path / "times.json").read_text())["split_seconds"]["diabetes"]) == 1
    assert [p.name for p in paths] == ["hmc_reference_diabetes.json"]
    text = paths[0].read_text()
    stored = json.loads(text)
    assert text == json.dumps(stored, indent=1, sort_keys=True) + "\n"
    config, settings = hmc_reference.config_from_result(stored)
    assert config == hmc_reference.QUICK_CONFIG and settings == hmc_reference.QUICK_SAMPLER
    split = stored["splits"][0]
    assert len(stored["splits"]) == 1 and len(split["chain_test_mse"]) == 2
    assert np.isfinite(split["test_mse"]) and split["test_mse"] < split["baseline_mse"]
    assert set(stored["versions"]) == {"jax", "jaxlib", "numpyro", "numpy"}
    assert '"seconds"' not in text
    again = hmc_reference.run_reference("diabetes", config, settings)
    again["command"] = stored["command"]
    assert json.dumps(again, indent=1, sort_keys=True) + "\n" == text
