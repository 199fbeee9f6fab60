"""Laplace's method (``inference.laplace``, B&B (9)–(12), MacKay (1995) eq. 20).

On the linear model the posterior is Gaussian, so Laplace's Gaussian and evidence are exact: compared
with the closed-form posterior and scipy's marginal density of the targets. On the toy, the mode's
gradient and the Hessian are compared with central differences of ``log_unnorm``.
"""

import numpy as np
import pytest
from scipy import stats

from ensemble_lib.inference.laplace import laplace_diagonal_start, laplace_fit
from ensemble_lib.models.linear import LinearGaussianPosterior
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(11)
    Phi = rng.normal(size=(14, 3))
    t = Phi @ np.array([0.3, -1.0, 0.8]) + 0.5 * rng.normal(size=14)
    return Phi, t, LinearGaussianPosterior(Phi, t, alpha=0.6, beta=4.0)


def test_on_the_linear_model_laplace_is_the_exact_posterior(linear):
    Phi, t, post = linear
    fit = laplace_fit(post, start=np.zeros(3))
    S = np.linalg.inv(0.6 * np.eye(3) + 4.0 * Phi.T @ Phi)
    np.testing.assert_allclose(fit.mean, 4.0 * S @ Phi.T @ t, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fit.cov, S, rtol=1e-8)
    assert fit.kl == pytest.approx(0.0, abs=1e-8)


def test_on_the_linear_model_the_laplace_evidence_is_the_exact_evidence(linear):
    Phi, t, post = linear
    fit = laplace_fit(post, start=np.zeros(3))
    exact = stats.multivariate_normal(np.zeros(t.size), np.eye(t.size) / 4.0 + Phi @ Phi.T / 0.6).logpdf(t)
    assert fit.log_evidence_laplace == pytest.approx(exact, abs=1e-8)


def _central_grad(f, w, h=1e-5):
    return np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(w.size)])


def test_on_the_toy_the_modes_gradient_vanishes_and_the_hessian_is_central_differences():
    post = make_posterior(**PAPER_PRESET)
    fit = laplace_fit(post)

    def f(w):
        return float(np.asarray(post.log_unnorm(w)).reshape(-1)[0])

    g = _central_grad(f, fit.mean)
    assert np.max(np.abs(g)) < 1e-5 * max(1.0, np.max(np.abs(np.diag(fit.hessian))))
    H = -np.array([_central_grad(lambda w, i=i: _central_grad(f, w, 1e-4)[i], fit.mean, 1e-4)
                   for i in range(fit.mean.size)])
    np.testing.assert_allclose(fit.hessian, 0.5 * (H + H.T), rtol=1e-4, atol=1e-4 * np.abs(H).max())
    np.testing.assert_allclose(fit.cov, np.linalg.inv(fit.hessian), rtol=1e-10)


def test_the_diagonal_start_is_never_wider_than_laplace():
    H = np.array([[2.0, 0.9], [0.9, 1.0]])
    m, C = laplace_diagonal_start([1.0, 2.0], H)
    np.testing.assert_array_equal(C, np.diag([0.5, 1.0]))
    assert np.all(np.diag(C) <= np.diag(np.linalg.inv(H)))
    with pytest.raises(ValueError, match="positive, finite diagonal"):
        laplace_diagonal_start([0.0, 0.0], -H)
