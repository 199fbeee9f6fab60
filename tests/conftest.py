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
