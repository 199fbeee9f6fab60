"""The HMC reference command (``ensemble_lib.studies.hmc_reference``): its stored JSON re-derives.

Skipped as a whole when NumPyro is not installed (the ``reference`` extra). The sampler itself:
tests/inference/test_hmc.py.
"""

import json

import numpy as np
import pytest

pytest.importorskip("numpyro")

from ensemble_lib.inference import hmc  # noqa: E402
from ensemble_lib.studies import hmc_reference  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(tmp_path_factory):
    """A persistent JAX compilation cache in a temporary folder, for this module only.

    Compiling NUTS dominates the cost of these small runs; the cache lets the
    determinism test's second run reuse the first run's executables (the
    cross-process determinism of a fresh compile was checked by running the
    command twice).
    """
    jax, _ = hmc._jax()
    names = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
             "jax_persistent_cache_min_entry_size_bytes")
    old = {n: getattr(jax.config, n) for n in names}
    jax.config.update(names[0], str(tmp_path_factory.mktemp("jax_cache")))
    jax.config.update(names[1], 0.0)
    jax.config.update(names[2], -1)
    yield
    for n, v in old.items():
        jax.config.update(n, v)


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
