"""A persistent JAX compilation cache in a temporary folder, for one test module (the HMC tests).

Compiling NUTS dominates the cost of the small HMC runs in the tests; the cache lets a
determinism test's second run reuse the first run's executables (the cross-process
determinism of a fresh compile was checked by running the command twice). A module uses it as
``compilation_cache = pytest.fixture(scope="module", autouse=True)(_jax_cache.compilation_cache)``.
"""

from __future__ import annotations

from ensemble_lib.inference import hmc

NAMES = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
         "jax_persistent_cache_min_entry_size_bytes")


def compilation_cache(tmp_path_factory):
    """Point JAX's persistent cache at a fresh folder for the module, then restore the settings."""
    jax, _ = hmc._jax()
    old = {n: getattr(jax.config, n) for n in NAMES}
    jax.config.update(NAMES[0], str(tmp_path_factory.mktemp("jax_cache")))
    jax.config.update(NAMES[1], 0.0)
    jax.config.update(NAMES[2], -1)
    yield
    for n, v in old.items():
        jax.config.update(n, v)
