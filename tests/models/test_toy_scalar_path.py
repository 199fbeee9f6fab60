"""The toy's ln g(u) at one float (plain ``math``, the quadrature's integrand) is the array formula.

``ToyPosterior.log_marginal_u`` sums the few data points in plain floats when it is given one
float u (what ``scipy.integrate.quad`` and the bounded searches pass), and with numpy for an
array. The two are written separately, so this test holds them against each other over the
fuzz's documented domain (x, t ∈ [−5, 5], α ∈ [1e-3, 1e3], β ∈ [1e-2, 1e4], N from 1 to 30)
and u over ten decades either side of the steps of σ(u x).

ln g sums terms as large as βT/2 that cancel, so the agreement asked for is relative to the
largest term: 1e-13 × (1 + βT/2 + αu²/2 + |ln g|).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_lib import ToyPosterior

finite = st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    data=st.integers(1, 30).flatmap(lambda n: st.tuples(st.lists(finite, min_size=n, max_size=n),
                                                        st.lists(finite, min_size=n, max_size=n))),
    log_alpha=st.floats(-3.0, 3.0), log_beta=st.floats(-2.0, 4.0),
    log_u=st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=8),
    signs=st.lists(st.sampled_from([-1.0, 1.0]), min_size=8, max_size=8),
)
def test_scalar_path_equals_the_array_formula(data, log_alpha, log_beta, log_u, signs):
    x, t = data
    post = ToyPosterior(x, t, alpha=10.0**log_alpha, beta=10.0**log_beta)
    u = np.array([s * 10.0**e for s, e in zip(signs, log_u)] + [0.0])
    on_array = post.log_marginal_u(u)
    for ui, ref in zip(u, on_array):
        one = post.log_marginal_u(float(ui))
        assert isinstance(one, float) and math.isfinite(one)
        scale = 1.0 + 0.5 * post.beta * float(np.dot(t, t)) + 0.5 * post.alpha * ui * ui + abs(ref)
        assert abs(one - ref) <= 1e-13 * scale, (ui, one, ref)


def test_the_scalar_path_is_the_one_quad_uses():
    """A float u takes the plain-float path (a Python float back; the array path gives numpy's)."""
    post = ToyPosterior([0.5, -1.0, 2.0], [0.1, -0.3, 0.9], alpha=1.0, beta=10.0)
    assert type(post.log_marginal_u(0.7)) is float
    assert type(post.log_marginal_u(np.array(0.7))) is np.float64
