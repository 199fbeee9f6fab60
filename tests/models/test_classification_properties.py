"""The single neuron's fits over the whole documented domain (hypothesis).

Domain: N from 1 to 30 points, inputs x ∈ [−4, 4]² (k = 2, no bias), any labels in {0, 1},
α ∈ [1e-2, 1e2]. Over it: KL(Q‖P) ≥ 0 for every fit, KL(full) ≤ KL(diagonal) + 1e-9,
F[Q] ≤ ln P(D), nothing warns and everything is finite.
Runs ``ENSEMBLE_FUZZ_EXAMPLES`` examples (default 15 here: each builds an exact grid).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_lib import LogisticPosterior, fit_classification

FUZZ_EXAMPLES = int(os.environ.get("ENSEMBLE_FUZZ_EXAMPLES", "15"))


@st.composite
def problems(draw):
    n = draw(st.integers(1, 30))
    coord = st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False)
    x = np.array(draw(st.lists(st.tuples(coord, coord), min_size=n, max_size=n)))
    t = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
    log_alpha = draw(st.floats(-2.0, 2.0))
    return x, t, 10.0 ** log_alpha


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True)
@given(problems())
def test_fits_are_nonnegative_ordered_and_below_the_evidence(problem):
    x, t, alpha = problem
    post = LogisticPosterior(x, t, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fits = fit_classification(post)
    kls = fits.kls
    assert all(np.isfinite(v) for v in kls.values())
    assert min(kls.values()) >= -1e-9, kls
    assert fits.full.kl <= fits.diagonal.kl + 1e-9
    assert max(fits.bounds.values()) <= fits.log_evidence + 1e-9
    # (Laplace's error has no fixed sign here: see test_classification_fits.py)
