"""The linear-Gaussian posterior (``models.linear.LinearGaussianPosterior``): the exactly solvable case.

Its posterior mean and covariance are compared with the closed form solved here (Bishop 2006,
eqs 3.53–3.54: S = (αI + βΦᵀΦ)⁻¹, m = βSΦᵀt) and with scikit-learn's Ridge at penalty α/β (BayesianRidge's
mean at fixed α, β); its log evidence with the marginal density N(t | 0, β⁻¹I + α⁻¹ΦΦᵀ) (scipy) and, in 1-D,
with brute-force quadrature of the likelihood times the prior.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from ensemble_lib.models.linear import LinearGaussianPosterior


def _problem(seed=0, N=15, k=3, alpha=0.7, beta=4.0):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(N, k))
    t = Phi @ rng.normal(size=k) + rng.normal(size=N) / np.sqrt(beta)
    return Phi, t, alpha, beta


def test_posterior_mean_and_covariance_are_the_closed_form():
    Phi, t, alpha, beta = _problem()
    post = LinearGaussianPosterior(Phi, t, alpha=alpha, beta=beta)
    S = np.linalg.solve(alpha * np.eye(3) + beta * Phi.T @ Phi, np.eye(3))
    np.testing.assert_allclose(post.cov, S, rtol=1e-12)
    np.testing.assert_allclose(post.mean, beta * S @ Phi.T @ t, rtol=1e-12)
    np.testing.assert_allclose(post.precision, np.linalg.inv(S), rtol=1e-12)


def test_posterior_mean_is_scikit_learns_ridge_with_penalty_alpha_over_beta():
    from sklearn.linear_model import Ridge

    # the identity sklearn's tests/test_bayes.py uses: BayesianRidge's mean is Ridge's at λ = α/β
    # (BayesianRidge itself re-estimates α, β before its final coefficients, so it cannot be held)
    Phi, t, alpha, beta = _problem(seed=1)
    post = LinearGaussianPosterior(Phi, t, alpha=alpha, beta=beta)
    ridge = Ridge(alpha=alpha / beta, fit_intercept=False, solver="cholesky").fit(Phi, t)
    np.testing.assert_allclose(post.mean, ridge.coef_, rtol=1e-10)


def test_log_evidence_is_the_marginal_density_of_the_targets():
    Phi, t, alpha, beta = _problem(seed=2)
    post = LinearGaussianPosterior(Phi, t, alpha=alpha, beta=beta)
    marginal = stats.multivariate_normal(np.zeros(t.size), np.eye(t.size) / beta + Phi @ Phi.T / alpha)
    assert post.log_evidence == pytest.approx(marginal.logpdf(t), rel=1e-12, abs=1e-10)


def test_log_evidence_in_one_dimension_is_brute_force_quadrature():
    Phi, t, alpha, beta = _problem(seed=3, N=6, k=1, alpha=0.5, beta=2.0)
    post = LinearGaussianPosterior(Phi, t, alpha=alpha, beta=beta)

    def joint(w):
        return np.exp(stats.norm.logpdf(t, Phi[:, 0] * w, 1 / np.sqrt(beta)).sum()
                      + stats.norm.logpdf(w, 0.0, 1 / np.sqrt(alpha)))

    m, s = post.mean[0], np.sqrt(post.cov[0, 0])
    Z, err = integrate.quad(joint, m - 12 * s, m + 12 * s, epsabs=0, epsrel=1e-12, points=[m])
    assert post.log_evidence == pytest.approx(np.log(Z), abs=1e-9)


def test_log_unnorm_differs_from_the_exact_log_posterior_density_by_the_log_evidence():
    Phi, t, alpha, beta = _problem(seed=4, k=2)
    post = LinearGaussianPosterior(Phi, t, alpha=alpha, beta=beta)
    w = np.random.default_rng(0).normal(size=(5, 2))
    exact = stats.multivariate_normal(post.mean, post.cov).logpdf(w)
    np.testing.assert_allclose(post.log_unnorm(w) - post.log_normalisers - post.log_evidence, exact,
                               rtol=1e-10, atol=1e-10)
