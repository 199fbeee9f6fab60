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
#: Approximate run time of the longest test files on one core (seconds; per-file sums of
#: `pytest --durations=0` and of process CPU time, 2026-11-24, after the test-time cuts and with
#: lesson 6's re-derivations in tests/studies/test_model_size.py; the exercise, student-copy,
#: grading, runner and benchmark files from the 2026-11-27 clean clone's --durations). `make test` runs the files on
#: pytest-xdist
#: workers (`--dist loadfile`: a file, and so a notebook's cells, stays on one worker). Handed out
#: longest first, no long file is left for the end while the other core idles; by default xdist
#: orders files by their number of tests, which put the one-test benchmark run and the few-test
#: HMC, Table-1 and model-size files last. Files not listed count as short. A stale entry costs
#: only balance, never a result.
FILE_SECONDS = {
    "tests/ui/test_student_copies.py": 140,
    "tests/ui/test_exercises.py": 60,
    "tests/studies/test_runner_studies.py": 50,
    "tests/ui/test_grade.py": 42,
    "tests/project/test_benchmarks.py": 40,
    "tests/ui/test_panel.py": 38,
    "tests/inference/test_network_fits.py": 28,
    "tests/inference/test_hmc.py": 15,
    "tests/studies/test_hmc_reference.py": 30,
    "tests/studies/test_runner.py": 20,
    "tests/studies/test_table1.py": 18,
    "tests/ui/test_panel_live.py": 15,
    "tests/models/test_toy_properties.py": 10,
    "tests/inference/test_toy_fits.py": 10,
    "tests/lessons/test_toy_posterior.py": 9,
    "tests/inference/test_mixture.py": 8,
    "tests/models/test_network.py": 8,
    "notebooks/04_ensemble_learning_for_networks.ipynb": 8,
    "tests/lessons/test_mixture.py": 8,
    "tests/lessons/test_stochastic_vi.py": 4,
    "tests/inference/test_svi.py": 3,
    "tests/inference/test_hyperparameters.py": 7,
    "tests/models/test_toy.py": 6,
    "tests/studies/test_model_size.py": 6,
    "tests/models/test_mackay_gaussian.py": 5,
    "notebooks/06_choosing_the_model.ipynb": 5,
    "notebooks/05_deterministic_vs_stochastic_vi.ipynb": 5,
    "notebooks/03_bound_and_hyperparameters.ipynb": 4,
    "notebooks/07_mixture_of_gaussians.ipynb": 4,
    "notebooks/02_mackay_gaussian_mean_sigma.ipynb": 3,
    "tests/project/test_bad_inputs.py": 3,
    "tests/notebooks/test_solutions_leave_panels.py": 3,
    "tests/inference/test_ard.py": 3,
    "tests/lessons/test_model_choice.py": 3,
    "notebooks/01_toy_posterior_laplace_vs_kl.ipynb": 3,
    "notebooks/09_monte_carlo.ipynb": 5,
    "tests/studies/test_toy_hmc.py": 60,
    "tests/studies/test_hmc_chains.py": 45,
}


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist's own reordering (by test count)
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    """Longest files first (a stable sort: each file keeps its own order, a notebook its cells')."""
    items.sort(key=lambda item: -FILE_SECONDS.get(item.nodeid.split("::")[0], 1.0))
