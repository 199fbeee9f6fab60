"""KL fits and Laplace on exactly Gaussian targets (closed forms) and on the toy.

On a model linear in w the posterior is N(A⁻¹βΦᵀt, A⁻¹), A = αI + βΦᵀΦ, so:
Laplace = full KL fit = exact posterior with KL = 0; the best diagonal Q has
the exact mean and variances 1/A_ii (the mean-field result), and its KL has
a closed form. Those closed forms are computed here from A directly.
"""

import numpy as np
import pytest
from scipy import integrate

from ensemble_lib import LinearGaussianPosterior, ToyPosterior, kl_fit, kl_gaussians, laplace_fit, toy_data
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.models.toy import kl_by_quadrature


def correlated_linear(seed=0, k=2, n=8, alpha=0.5, beta=4.0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    Phi = np.column_stack([x**j + 0.8 * x for j in range(1, k + 1)])  # strongly correlated features
    t = Phi @ rng.normal(size=k) + rng.normal(size=n) / np.sqrt(beta)
    return LinearGaussianPosterior(Phi, t, alpha, beta), Phi, t


def exact_posterior(Phi, t, alpha, beta):
    A = alpha * np.eye(Phi.shape[1]) + beta * Phi.T @ Phi
    m = np.linalg.solve(A, beta * Phi.T @ t)
    return m, np.linalg.inv(A), A


def test_linear_log_Z_matches_2d_quadrature():
    post, Phi, t = correlated_linear()
    m, C, A = exact_posterior(Phi, t, post.alpha, post.beta)
    sd = np.sqrt(np.diag(C))
    f = lambda v, u: np.exp(post.log_unnorm(np.array([u, v])))  # noqa: E731
    val, _ = integrate.dblquad(f, m[0] - 12 * sd[0], m[0] + 12 * sd[0], m[1] - 12 * sd[1], m[1] + 12 * sd[1],
                               epsrel=1e-11)
    assert post.log_Z == pytest.approx(np.log(val), abs=1e-7)


@pytest.mark.parametrize("k", [2, 3])
def test_on_a_gaussian_target_laplace_full_fit_and_posterior_coincide(k):
    post, Phi, t = correlated_linear(k=k, n=10)
    m, C, _ = exact_posterior(Phi, t, post.alpha, post.beta)
    lap = laplace_fit(post)
    full = kl_fit(post, "full")
    for fit in (lap, full):
        np.testing.assert_allclose(fit.mean, m, rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(fit.cov, C, rtol=1e-8, atol=1e-10)
        assert fit.kl == pytest.approx(0.0, abs=1e-8)
    # the bound is then exact: F = ln P(D)
    assert full.bound == pytest.approx(post.log_evidence, abs=1e-8)


def test_diagonal_fit_on_correlated_gaussian_matches_closed_form():
    post, Phi, t = correlated_linear(k=2)
    m, C, A = exact_posterior(Phi, t, post.alpha, post.beta)
    assert abs(C[0, 1]) / np.sqrt(C[0, 0] * C[1, 1]) > 0.5  # a genuinely correlated target
    diag = kl_fit(post, "diagonal")
    np.testing.assert_allclose(diag.mean, m, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.diag(diag.cov), 1.0 / np.diag(A), rtol=1e-7)
    assert diag.cov[0, 1] == 0.0
    closed = kl_gaussians(m, np.diag(1.0 / np.diag(A)), m, C)  # = ½ Σ ln A_ii − ½ ln|A|
    assert diag.kl == pytest.approx(closed, abs=1e-8)
    assert closed == pytest.approx(0.5 * (np.sum(np.log(np.diag(A))) - np.linalg.slogdet(A)[1]), abs=1e-12)


@pytest.mark.parametrize("family,rank", [("full", None), ("diagonal", None), ("factor", 0), ("factor", 1)])
def test_kl_objective_gradient_matches_central_differences_on_toy(family, rank):
    d = toy_data(np.random.default_rng(3))
    post = ToyPosterior(d.x, d.t, 0.5, 100.0)
    fam = CovarianceFamily.make(family, 2, rank)
    rng = np.random.default_rng(5)
    for _ in range(3):
        theta = fam.pack(rng.normal(size=2) * 0.7, np.diag(rng.uniform(0.01, 0.2, 2)))
        theta[2:] += rng.normal(size=theta.size - 2) * 0.2
        f0, g = kl_objective(post, fam, theta)
        eps = 1e-6
        num = np.array([(kl_objective(post, fam, theta + eps * e)[0] - kl_objective(post, fam, theta - eps * e)[0])
                        / (2 * eps) for e in np.eye(theta.size)])
        np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-7)


def test_kl_by_quadrature_matches_the_closed_form_gaussian_kl():
    """The quadrature used as a reference below, on a target whose KL(Q‖P) has a closed form."""
    post, Phi, t = correlated_linear()
    m, C, _ = exact_posterior(Phi, t, post.alpha, post.beta)
    rng = np.random.default_rng(4)
    for _ in range(3):
        mean = m + 0.3 * rng.normal(size=2)
        B = rng.normal(size=(2, 2))
        cov = 0.05 * B @ B.T + 0.01 * np.eye(2)
        assert kl_by_quadrature(post, mean, cov) == pytest.approx(kl_gaussians(mean, cov, m, C), abs=1e-9)



def test_kl_by_quadrature_of_a_mixture_against_its_gaussian_pieces():
    """For a Gaussian P, KL(Q‖P) of a mixture Q = Σ π_i Q_i is Σ π_i [KL(Q_i‖P) + H[Q_i]] − H[Q]
    (closed forms, and the mixture's entropy by the library's trapezoid rule, itself checked
    against adaptive cubature in test_mixture); a mixture of one Gaussian twice is that Gaussian."""
    from ensemble_lib import gaussian_entropy, mixture_entropy

    post, Phi, t = correlated_linear()
    m, C, _ = exact_posterior(Phi, t, post.alpha, post.beta)
    rng = np.random.default_rng(5)
    means = m + 0.4 * rng.normal(size=(3, 2))
    covs = np.array([0.05 * B @ B.T + 0.01 * np.eye(2) for B in rng.normal(size=(3, 2, 2))])
    w = np.array([0.2, 0.5, 0.3])
    ref = (sum(p * (kl_gaussians(mi, Ci, m, C) + gaussian_entropy(Ci)) for p, mi, Ci in zip(w, means, covs))
           - mixture_entropy(w, means, covs, spacing=0.03))
    assert kl_by_quadrature(post, means, covs, weights=w) == pytest.approx(ref, abs=1e-7)
    twice = kl_by_quadrature(post, means[[0, 0]], covs[[0, 0]], weights=[0.3, 0.7])
    assert twice == pytest.approx(kl_by_quadrature(post, means[0], covs[0]), abs=1e-10)
    with pytest.raises(ValueError, match="weights must be given"):
        kl_by_quadrature(post, means, covs)
    with pytest.raises(ValueError, match="weights must be 3 positive numbers summing to 1"):
        kl_by_quadrature(post, means, covs, weights=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="post must be"):
        kl_by_quadrature(object(), means[0], covs[0])

def toy_posts(n_sets=8):
    for seed in range(n_sets):
        alpha = [0.1, 0.3, 1.0, 3.0][seed % 4]
        d = toy_data(np.random.default_rng(100 + seed))
        yield ToyPosterior(d.x, d.t, alpha, 100.0)


def test_fits_reach_the_optimum_and_kl_is_nonnegative():
    for post in toy_posts(4):
        for family, rank in [("diagonal", None), ("full", None), ("factor", 1)]:
            fit = kl_fit(post, family, rank)
            assert fit.kl >= 0
            assert fit.grad_norm <= 1e-8
            # the reported KL is ∫ Q ln(Q/P) by 2-D quadrature, not the bound's own ln P(D) − F
            assert fit.kl == pytest.approx(kl_by_quadrature(post, fit.mean, fit.cov), abs=1e-8)
        assert laplace_fit(post).kl >= 0


def test_kl_ordering_full_le_factor_le_diagonal_on_random_datasets():
    for post in toy_posts(8):
        full = kl_fit(post, "full").kl
        fac1 = kl_fit(post, "factor", rank=1).kl
        fac0 = kl_fit(post, "factor", rank=0).kl
        diag = kl_fit(post, "diagonal").kl
        assert full <= fac1 + 1e-7
        assert fac1 <= fac0 + 1e-7
        assert fac0 == pytest.approx(diag, abs=1e-7)  # s = 0 is the diagonal family
        assert fac1 == pytest.approx(full, abs=1e-6)  # s = k − 1 is fully general


def test_kl_fit_beats_any_perturbation_of_itself():
    """The fit is a minimum: random nearby Gaussians have larger KL (independent of the optimiser)."""
    post = next(iter(toy_posts(1)))
    fit = kl_fit(post, "full")
    rng = np.random.default_rng(9)
    for _ in range(20):
        dm = rng.normal(size=2) * 0.02
        A = np.eye(2) + rng.normal(size=(2, 2)) * 0.05
        assert post.kl(fit.mean + dm, A @ fit.cov @ A.T) > fit.kl


def test_bad_family_and_rank_are_refused():
    post = next(iter(toy_posts(1)))
    with pytest.raises(ValueError, match="family"):
        kl_fit(post, "banded")
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=2)
    with pytest.raises(ValueError, match="rank"):
        kl_fit(post, "factor", rank=-1)
    with pytest.raises(ValueError, match="quadrant"):
        laplace_fit(post, quadrant=(2, 1))


def test_linear_model_input_is_checked():
    with pytest.raises(ValueError, match="Phi"):
        LinearGaussianPosterior(np.ones(3), np.ones(3), 1.0, 1.0)
    with pytest.raises(ValueError, match="t must have length"):
        LinearGaussianPosterior(np.ones((3, 2)), np.ones(4), 1.0, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        LinearGaussianPosterior(np.ones((3, 2)), np.ones(3), -1.0, 1.0)
