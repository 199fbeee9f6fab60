"""MacKay's §9.2 noisy retraining, checked where it is exact: the linear-Gaussian model.

There the retrained weights are exact posterior samples (module docstring of
``ensemble_lib.inference.noisy_retraining``); the tests compare them, and their predictions, with the
closed-form posterior of ``LinearGaussianPosterior`` by Monte Carlo with a stated standard error and
a Kolmogorov–Smirnov test of the Mahalanobis distances against χ²_k, at fixed seeds. Without the
prior perturbation the same test must reject, and the draws' covariance must be the closed form
A⁻¹βΦᵀΦA⁻¹ derived independently here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ensemble_lib.inference.noisy_retraining import (noisy_retraining, predictive_spread, residual_noise_sd, retrain,
                                                     with_targets)
from ensemble_lib.models.linear import LinearGaussianPosterior
from ensemble_lib.models.network import NetworkPosterior, add_bias
from ensemble_lib.models.toy import make_posterior

N_MC = 4000


@pytest.fixture(scope="module")
def lin():
    rng = np.random.default_rng(7)
    Phi = rng.normal(size=(8, 3))
    return LinearGaussianPosterior(Phi, Phi @ np.array([0.5, -1.0, 0.3]) + 0.5 * rng.normal(size=8), 2.0, 4.0)


@pytest.fixture(scope="module")
def draws(lin):
    return {p: noisy_retraining(lin, lin.mean, N_MC, rng=np.random.default_rng(11), perturb_prior=p)
            for p in (True, False)}


def _mahalanobis2(x, mean, cov):
    z = np.linalg.solve(np.linalg.cholesky(cov), (x - mean).T)
    return np.sum(z * z, axis=0)


def test_each_retraining_is_the_closed_form_minimiser(lin, draws):
    d = draws[True]
    A = lin.precision
    for j in range(5):
        rhs = lin.beta * lin.Phi.T @ (lin.t + d.noise[j]) + lin.alpha * d.prior_means[j]
        assert np.allclose(d.weights[j], np.linalg.solve(A, rhs), atol=1e-9)
    assert d.converged.all()


def test_the_noise_and_prior_means_have_the_documented_scales(lin, draws):
    d = draws[True]
    # sample s.d. of N_MC * N normal draws: relative s.e. 1/sqrt(2 n)
    n = d.noise.size
    assert abs(d.noise.std() / (1 / math.sqrt(lin.beta)) - 1) < 4 / math.sqrt(2 * n)
    n = d.prior_means.size
    assert abs(d.prior_means.std() / (1 / math.sqrt(lin.alpha)) - 1) < 4 / math.sqrt(2 * n)
    assert not draws[False].prior_means.any()


def test_with_the_perturbed_prior_the_draws_mean_is_the_posterior_mean_within_monte_carlo_error(lin, draws):
    W = draws[True].weights
    se = np.sqrt(np.diag(lin.cov) / N_MC)  # the standard error of the mean of N_MC exact samples
    assert np.all(np.abs(W.mean(axis=0) - lin.mean) < 4 * se)


def test_with_the_perturbed_prior_the_draws_covariance_is_the_posterior_covariance(lin, draws):
    W = draws[True].weights
    S, C = np.cov(W.T), lin.cov
    # s.e. of a sample covariance entry of Gaussian draws: sqrt((C_ii C_jj + C_ij^2) / n)
    se = np.sqrt((np.outer(np.diag(C), np.diag(C)) + C**2) / N_MC)
    assert np.all(np.abs(S - C) < 4 * se)


def test_with_the_perturbed_prior_the_mahalanobis_distances_are_chi2_k(lin, draws):
    d2 = _mahalanobis2(draws[True].weights, lin.mean, lin.cov)
    p = stats.kstest(d2, stats.chi2(lin.dim).cdf).pvalue
    assert p > 0.01, f"KS p-value {p:.3g}"


def test_without_the_prior_perturbation_the_test_rejects_and_the_covariance_is_the_closed_form(lin, draws):
    W = draws[False].weights
    d2 = _mahalanobis2(W, lin.mean, lin.cov)
    assert stats.kstest(d2, stats.chi2(lin.dim).cdf).pvalue < 1e-6
    # derived here: w_j - w_MP = A^-1 beta Phi^T nu_j, nu_j ~ N(0, I/beta)
    Ainv = np.linalg.inv(lin.precision)
    C0 = Ainv @ (lin.beta * lin.Phi.T @ lin.Phi) @ Ainv
    se = np.sqrt((np.outer(np.diag(C0), np.diag(C0)) + C0**2) / N_MC)
    assert np.all(np.abs(np.cov(W.T) - C0) < 4 * se)
    assert np.all(np.linalg.eigvalsh(lin.cov - C0) > 0)  # too small in every direction


def test_the_predictive_spread_matches_the_exact_posterior_predictive(lin, draws):
    Xs = np.array([[1.0, 0.0, -2.0], [0.3, 3.0, 1.0], [-1.0, -1.0, -1.0]])
    Y = draws[True].weights @ Xs.T
    mean, sd = predictive_spread(Y, 1 / lin.beta)
    exact_var = np.einsum("mi,ij,mj->m", Xs, lin.cov, Xs)
    exact_sd = np.sqrt(exact_var + 1 / lin.beta)
    assert np.all(np.abs(mean - Xs @ lin.mean) < 4 * np.sqrt(exact_var / N_MC))
    # s.e. of a sample variance: var * sqrt(2 / (n - 1))
    assert np.all(np.abs(sd**2 - exact_sd**2) < 4 * exact_var * math.sqrt(2 / (N_MC - 1)))
    d2 = _mahalanobis2(Y, Xs @ lin.mean, Xs @ lin.cov @ Xs.T)
    assert stats.kstest(d2, stats.chi2(3).cdf).pvalue > 0.01


def test_the_first_draws_do_not_depend_on_how_many_are_drawn_and_both_variants_share_the_noise(lin, draws):
    few = noisy_retraining(lin, lin.mean, 5, rng=np.random.default_rng(11))
    assert np.array_equal(few.weights, draws[True].weights[:5])
    assert np.array_equal(draws[True].noise, draws[False].noise)


def test_the_residual_noise_estimate_is_macKays_formula(lin):
    r = lin.Phi @ lin.mean - lin.t
    assert residual_noise_sd(lin, lin.mean) == pytest.approx(math.sqrt(r @ r / (8 - 3)), rel=1e-12)


def test_retrain_on_a_network_reaches_a_stationary_point_of_the_perturbed_objective():
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, 12)
    post = NetworkPosterior(add_bias(x[:, None]), np.sin(x), 2, alpha=0.5, beta=50.0)
    w0 = rng.normal(size=post.dim)
    m = rng.normal(size=post.dim)
    w, _, ok = retrain(post, m, w0)
    assert ok
    # central differences of beta E_D + alpha/2 |w - m|^2, written here from data_error alone
    M = lambda w_: post.beta * float(post.data_error(w_)) + 0.5 * post.alpha * float((w_ - m) @ (w_ - m))  # noqa: E731
    g = np.array([(M(w + 1e-6 * e) - M(w - 1e-6 * e)) / 2e-6 for e in np.eye(post.dim)])
    assert np.max(np.abs(g)) < 1e-4


def test_with_targets_keeps_the_model_and_replaces_the_targets(lin):
    toy = make_posterior(seed=0, alpha=1.0)
    for post in (lin, toy):
        new = with_targets(post, post.t + 1.0)
        assert type(new) is type(post) and (new.alpha, new.beta) == (post.alpha, post.beta)
        assert np.array_equal(new.t, post.t + 1.0)


@pytest.mark.parametrize("call, pattern", [
    (lambda lin: noisy_retraining(lin, [0.0, 0.0], rng=np.random.default_rng(0)), "w_star must have length"),
    (lambda lin: noisy_retraining(lin, [0.0] * 3, 0, rng=np.random.default_rng(0)), "n_draws must be"),
    (lambda lin: noisy_retraining(lin, [0.0] * 3, rng=np.random.RandomState(0)), "rng must be"),
    (lambda lin: noisy_retraining(lin, [0.0] * 3, rng=np.random.default_rng(0), sigma_nu=-1.0), "sigma_nu"),
    (lambda lin: noisy_retraining(lin, [np.nan] * 3, rng=np.random.default_rng(0)), "w_star"),
    (lambda lin: with_targets(object(), [1.0]), "post must be"),
    (lambda lin: with_targets(lin, [1.0, 2.0]), "t must have length"),
    (lambda lin: predictive_spread([[1.0, 2.0]]), "outputs must have at least 2 draws"),
    (lambda lin: predictive_spread([[1.0], [2.0]], -1.0), "noise_var must be"),
    (lambda lin: residual_noise_sd(LinearGaussianPosterior(np.eye(3), [1.0, 2.0, 3.0], 1.0, 1.0), [0.0] * 3),
     "more data points than weights"),
    (lambda lin: retrain(lin, [0.0] * 2, [0.0] * 3), "prior_mean must have length"),
])
def test_bad_input_is_refused_naming_the_argument(lin, call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call(lin)
