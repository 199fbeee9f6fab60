"""Settings shared by every test module.

Hypothesis (property-based tests) runs derandomised, so that every run draws the same examples
and a failure repeats; with no deadline (the first call of a fit compiles caches), and with no
example database (`make test` writes nothing into the work tree). A test sets its own
``max_examples``; ``ENSEMBLE_FUZZ_EXAMPLES`` raises it for the long fuzz that `make fuzz` runs.
"""

from hypothesis import settings

settings.register_profile("ensemble", derandomize=True, deadline=None, database=None,
                          print_blob=True)
settings.load_profile("ensemble")


# -- the order in which pytest-xdist hands out test files ------------------------------------
#: Approximate run time of the longest test files on one core (seconds; `pytest --durations=0`,
#: 2026-11-24). `make test` runs the files on pytest-xdist workers (`--dist loadfile`: a file, and
#: so a notebook's cells, stays on one worker). Handed out longest first, no long file is left for
#: the end while the other core idles; by default xdist orders files by their number of tests,
#: which put the one-test benchmark run (20 s) and the few-test HMC and Table-1 files last.
#: Files not listed count as short. A stale entry costs only balance, never a result.
FILE_SECONDS = {
    "tests/test_panels.py": 130, "tests/test_network_study.py": 110, "tests/test_network.py": 42,
    "tests/test_svi.py": 35, "tests/test_hmc.py": 33, "tests/test_hyperparameters.py": 30,
    "tests/test_toy_properties.py": 30, "tests/test_table1.py": 26, "tests/test_bad_inputs.py": 24,
    "tests/test_benchmarks.py": 22, "tests/test_mackay_gaussian.py": 20,
    "notebooks/04_ensemble_learning_for_networks.ipynb": 19, "tests/test_family_search.py": 17,
    "tests/test_bound_lesson.py": 16, "tests/test_toy.py": 15,
    "notebooks/01_toy_posterior_laplace_vs_kl.ipynb": 13, "tests/test_toy_study.py": 10,
    "notebooks/03_bound_and_hyperparameters.ipynb": 10, "notebooks/05_deterministic_vs_stochastic_vi.ipynb": 6,
    "tests/test_mackay_lesson.py": 5, "tests/test_solutions_leave_panels.py": 5,
    "notebooks/02_mackay_gaussian_mean_sigma.ipynb": 4,
}


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist's own reordering (by test count)
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    """Longest files first (a stable sort: each file keeps its own order, a notebook its cells')."""
    items.sort(key=lambda item: -FILE_SECONDS.get(item.nodeid.split("::")[0], 1.0))
