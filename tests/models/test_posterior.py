"""``models.posterior.RegressionPosterior``'s generic bound and KL machinery, on the linear model.

For the linear-Gaussian subclass the exact posterior is a Gaussian, so KL(Q‖P) (B&B (16)) must be
``core.gaussian.kl_gaussians`` to it, the bound F[Q] (B&B (15)) must lie below ln P(D) and reach it
at the posterior; the KL is also checked by Monte Carlo with its standard error.
"""

import numpy as np
import pytest
from scipy import stats

from ensemble_lib.core.gaussian import kl_gaussians
from ensemble_lib.models.linear import LinearGaussianPosterior


@pytest.fixture(scope="module")
def post():
    rng = np.random.default_rng(7)
    Phi = rng.normal(size=(12, 2))
    return LinearGaussianPosterior(Phi, Phi @ np.array([1.0, -0.5]) + 0.4 * rng.normal(size=12),
                                   alpha=0.8, beta=6.0)


def _others(post, n=5):
    rng = np.random.default_rng(1)
    for _ in range(n):
        A = rng.normal(size=(2, 2))
        yield post.mean + rng.normal(size=2), 0.1 * (A @ A.T + 0.2 * np.eye(2))


def test_kl_is_the_closed_form_kl_to_the_exact_gaussian_posterior(post):
    for m, C in _others(post):
        assert post.kl(m, C) == pytest.approx(kl_gaussians(m, C, post.mean, post.cov), rel=1e-9, abs=1e-10)


def test_the_bound_lies_below_the_log_evidence_and_reaches_it_at_the_posterior(post):
    for m, C in _others(post):
        assert post.bound(m, C) < post.log_evidence
    assert post.bound(post.mean, post.cov) == pytest.approx(post.log_evidence, rel=0, abs=1e-10)
    assert post.kl(post.mean, post.cov) == pytest.approx(0.0, abs=1e-10)


def test_kl_by_monte_carlo_within_five_standard_errors(post):
    m, C = next(_others(post))
    w = np.random.default_rng(3).multivariate_normal(m, C, size=200_000)
    log_ratio = stats.multivariate_normal(m, C).logpdf(w) - stats.multivariate_normal(post.mean, post.cov).logpdf(w)
    se = log_ratio.std(ddof=1) / np.sqrt(w.shape[0])
    assert abs(post.kl(m, C) - log_ratio.mean()) < 5 * se


def test_with_hyperparameters_gives_the_posterior_at_new_alpha_and_beta(post):
    other = post.with_hyperparameters(alpha=2.0)
    direct = LinearGaussianPosterior(post.Phi, post.t, alpha=2.0, beta=6.0)
    np.testing.assert_allclose(other.mean, direct.mean, rtol=1e-12)
    assert other.log_evidence == pytest.approx(direct.log_evidence, rel=1e-12)
    assert other.log_evidence != pytest.approx(post.log_evidence)


def test_bound_refuses_a_covariance_that_is_not_positive_definite(post):
    with pytest.raises(ValueError, match="cov must be positive definite"):
        post.bound(post.mean, -np.eye(2))
