"""Committees of optima (MacKay "Probable networks" §5.3, §4.1): ensemble_lib.inference.committee.

References: Monte Carlo sampling of the committee's mixture; symmetric copies of a network's optimum.
"""

import math

import numpy as np

from ensemble_lib import add_bias
from ensemble_lib.models.network import network_output, pack_weights
from ensemble_lib.inference.committee import committee, distinct_optima



def test_committee_moments_match_monte_carlo_of_the_mixture():
    rng = np.random.default_rng(2)
    mu = rng.normal(size=(3, 4))
    var = rng.uniform(0.05, 0.5, size=(3, 4))
    le = np.array([-10.0, -10.5, -12.0])
    c = committee(mu, var, le)
    p = np.exp(le - le.max())
    p /= p.sum()
    np.testing.assert_allclose(c.weights, p, rtol=1e-14)
    n = 400_000
    m = rng.choice(3, size=n, p=c.weights)
    draws = mu[m] + np.sqrt(var[m]) * rng.standard_normal((n, 4))
    se_mean = draws.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(draws.mean(axis=0) - c.mean) < 4 * se_mean)
    dev2 = (draws - draws.mean(axis=0)) ** 2
    assert np.all(np.abs(dev2.mean(axis=0) - c.variance) < 4 * dev2.std(axis=0) / math.sqrt(n))
    assert np.all(c.between > 0) and np.allclose(c.variance, c.within + c.between)


def test_distinct_optima_merges_symmetric_copies_of_a_network_and_keeps_other_optima():
    """Permuting hidden units and flipping a unit's signs (erf is odd) give the same function (§4.1):
    one optimum; a nearby but different function, or the same function with another evidence, is not."""
    rng = np.random.default_rng(4)
    X = add_bias(rng.normal(size=(30, 2)))
    U, v = rng.normal(size=(3, 3)), rng.normal(size=3)
    w = pack_weights(U, v)
    flip = np.array([1.0, -1.0, 1.0])
    w_copy = pack_weights((U * flip[:, None])[[2, 0, 1]], (v * flip)[[2, 0, 1]])
    w_other = pack_weights(U, v + np.array([0.0, 0.0, 0.01]))
    means = np.array([network_output(x, X, 3) for x in (w, w_copy, w_other, w)])
    assert np.max(np.abs(means[0] - means[1])) < 1e-12  # the copy really is the same function
    le = np.array([-10.0, -10.0 + 1e-9, -10.0, -11.0])
    np.testing.assert_array_equal(distinct_optima(means, le), [0, 2, 3])
    np.testing.assert_array_equal(distinct_optima(means[:2], le[:2]), [0])
    # the tolerances decide: with atol above the 0.01 change, w_other is a copy of w
    np.testing.assert_array_equal(distinct_optima(means[:3], le[:3], atol=1.0), [0])
