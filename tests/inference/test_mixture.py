"""A mixture of Gaussians as Q (Barber & Bishop 1998, §3, eq. 39): ensemble_lib.inference.mixture.

The module re-exports its three parts, each tested on its own (tests/inference/test_mixture_entropy.py,
test_mixture_fit.py, test_mixture_ladder.py); here, bad input refused through the names it exports.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib.inference import mixture as M

from _mixture_reference import preset_posterior


@pytest.fixture(scope="module")
def preset():
    return preset_posterior()


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

W2, M2, C2 = [0.5, 0.5], np.zeros((2, 2)), np.array([np.eye(2), np.eye(2)])


@pytest.mark.parametrize("call, pattern", [
    (lambda p: M.mixture_ladder(p, K_max=0), r"K_max must be an integer in \[1, 8\]"),
    (lambda p: M.mixture_ladder(p, K_max=9), r"K_max must be an integer in \[1, 8\]"),
    (lambda p: M.MixtureParams(0, 2), r"K must be an integer in \[1, 8\]"),
    (lambda p: M.mixture_fit(p, ([0.6, 0.6], M2, C2)), r"weights must lie on the simplex"),
    (lambda p: M.mixture_fit(p, ([1.5, -0.5], M2, C2)), r"weights must lie on the simplex"),
    (lambda p: M.mixture_fit(p, ([], M2, C2)), r"weights must be a 1-D array of K mixing weights with K in \[1, 8\]"),
    (lambda p: M.mixture_fit(p, ([np.nan, 0.5], M2, C2)), r"weights must lie on the simplex"),
    (lambda p: M.mixture_fit(p, (W2, np.zeros((3, 2)), C2)), r"means must have shape \(2, 2\)"),
    (lambda p: M.mixture_fit(p, (W2, M2, C2[:1])), r"covs must have shape \(2, 2, 2\)"),
    (lambda p: M.mixture_fit(p, (W2, M2, np.array([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]]))),
     r"covs\[1\] must be positive definite"),
    (lambda p: M.mixture_fit(p, "abc"), r"init must be a \(weights, means, covs\) triple"),
    (lambda p: M.mixture_fit(p, (W2, M2, C2), entropy="exact"), r"entropy must be one of"),
    (lambda p: M.mixture_fit(p, (W2, M2, C2), spacing=1.0), r"spacing must be in \[0.02, 0.5\]"),
    (lambda p: M.mixture_fit(p, (W2, M2, C2), gtol=0), r"gtol must be a finite number > 0"),
    (lambda p: M.mixture_ladder(None), r"post must be a posterior"),
    (lambda p: M.mixture_ladder(p, single="full"), r"single must be a KLFit"),
    (lambda p: M.mixture_entropy([1.0], [[0.0, 0.0, 0.0]], [np.eye(3)]), r"means must have shape \(1, 2\)"),
    (lambda p: M.entropy_lower_bound([0.3, 0.3], M2, C2), r"weights must lie on the simplex"),
    (lambda p: M.mirror_overlap([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]), r"cov must be positive definite"),
])
def test_bad_input_is_refused_naming_the_argument_and_range(preset, call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call(preset)
