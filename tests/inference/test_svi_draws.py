"""Many reparameterisation estimates at once (ensemble_lib.inference.svi_draws, lesson 5's checks).

References: :func:`reparam_gradient` batch by batch (each row must be its estimate, to round-off,
over random Gaussians, draw counts and both families, on the toy and on a 3-weight linear model), and
the exact objective gradient of :func:`kl_objective` (Gauss–Hermite quadrature, itself checked in
test_kl_fit): the mean of many estimates lies within 4.5 standard errors of it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.svi import reparam_gradient
from ensemble_lib.inference.svi_draws import reparam_gradient_draws
from ensemble_lib.models.linear import LinearGaussianPosterior
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

POST = make_posterior(**PAPER_PRESET)


def _linear():
    rng = np.random.default_rng(3)
    Phi = rng.normal(size=(12, 3))
    return LinearGaussianPosterior(Phi, Phi @ [0.5, -1.0, 0.3] + 0.3 * rng.normal(size=12), alpha=1.0, beta=5.0)


LINEAR = _linear()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), S=st.integers(1, 20),
       family=st.sampled_from(["full", "diagonal"]), linear=st.booleans())
def test_each_row_is_reparam_gradient_of_its_batch(seed, n, S, family, linear):
    post = LINEAR if linear else POST
    k = post.dim
    rng = np.random.default_rng(seed)
    fam = CovarianceFamily.make(family, k)
    mean = rng.normal(scale=1.5, size=k)
    A = rng.normal(size=(k, k))
    cov = A @ A.T / k + 0.05 * np.eye(k)
    theta = fam.pack(mean, cov if family == "full" else np.diag(np.diag(cov)))
    eps = rng.standard_normal((n, S, k))
    got = reparam_gradient_draws(post, fam, theta, eps)
    want = np.array([reparam_gradient(post, fam, theta, e) for e in eps])
    assert got.shape == want.shape == (n, fam.n_params)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11 * max(1.0, np.abs(want).max()))


def test_one_draw_per_batch_is_the_loop_lesson_5_replaced():
    """Lesson 5 once looped 4000 times over reparam_gradient with one draw each (the generator's
    draws in the same order); the rows are those, to round-off (bit for bit on the machines measured,
    but a batched product may round differently on another CPU)."""
    fam = CovarianceFamily.make("full", 2)
    theta = fam.pack(np.array([0.8, 0.3]), np.array([[0.3, 0.1], [0.1, 0.2]]))
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    loop = np.array([reparam_gradient(POST, fam, theta, r1.standard_normal((1, 2))) for _ in range(500)])
    np.testing.assert_allclose(reparam_gradient_draws(POST, fam, theta, r2.standard_normal((500, 1, 2))), loop,
                               rtol=1e-13, atol=1e-13 * np.abs(loop).max())


@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_the_mean_of_many_estimates_is_the_exact_gradient(family):
    fam = CovarianceFamily.make(family, 2)
    cov = np.array([[0.3, 0.1], [0.1, 0.2]])
    theta = fam.pack(np.array([0.8, 0.3]), cov if family == "full" else np.diag(np.diag(cov)))
    exact = kl_objective(POST, fam, theta)[1]
    draws = reparam_gradient_draws(POST, fam, theta, np.random.default_rng(11).standard_normal((20000, 4, 2)))
    se = draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
    z = (draws.mean(axis=0) - exact) / se
    assert np.all(np.abs(z) < 4.5), z
