"""Tests of MacKay's evidence framework (Probable networks, §3, eqs 18–25).

References: scikit-learn's BayesianRidge (type-II maximum likelihood), the
closed-form marginal ln N(t | 0, ΦΦᵀ/α + I/β) from scipy.stats, the eigenvalue
form of γ, central differences of the exact log evidence, and brute-force
quadrature (the toy's exact ln Z).
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import BayesianRidge

from ensemble_lib import LinearGaussianPosterior, ToyPosterior, toy_data
from ensemble_lib.inference.evidence import evidence_grid, evidence_reestimation, laplace_evidence
from ensemble_lib.inference.hyperparameters import HyperparameterConvergenceWarning

SEED = 1995


def _linear(seed, n=40, k=3, noise=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k))
    y = X @ rng.normal(size=k) + noise * rng.normal(size=n)
    return X, y


def _marginal_closed_form(X, y, alpha, beta):
    """ln P(D | α, β) = ln N(y | 0, ΦΦᵀ/α + I/β): the Gaussian marginal, no Laplace, no Hessian."""
    cov = X @ X.T / alpha + np.eye(len(y)) / beta
    return float(stats.multivariate_normal(np.zeros(len(y)), cov).logpdf(y))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reestimation_matches_sklearn_bayesian_ridge(seed):
    """Fixed point of (22)–(24) = scikit-learn's evidence maximum (lambda_ = α, alpha_ = β)."""
    X, y = _linear(SEED + seed)
    lin = LinearGaussianPosterior(X, y, alpha=1.0, beta=1.0)
    run = evidence_reestimation(lin, tol=1e-12)
    br = BayesianRidge(alpha_1=1e-10, alpha_2=1e-10, lambda_1=1e-10, lambda_2=1e-10,
                       fit_intercept=False, tol=1e-15, max_iter=100000).fit(X, y)
    assert run.converged
    assert run.alpha_final == pytest.approx(br.lambda_, rel=1e-6)
    assert run.beta_final == pytest.approx(br.alpha_, rel=1e-6)
    np.testing.assert_allclose(run.final.mean, br.coef_, rtol=1e-6)
    # the log evidence (20) at the optimum is the closed-form Gaussian marginal
    ref = _marginal_closed_form(X, y, run.alpha_final, run.beta_final)
    assert run.final.log_evidence == pytest.approx(ref, abs=1e-9)
    assert run.log_evidence_exact[-1] == pytest.approx(ref, abs=1e-9)


def test_fixed_point_is_a_stationary_point_of_the_exact_evidence():
    """Central differences of the closed-form ln P(D | α, β) in (ln α, ln β) vanish at the fixed point,
    and it beats every neighbour."""
    X, y = _linear(SEED + 10)
    run = evidence_reestimation(LinearGaussianPosterior(X, y, 1.0, 1.0), tol=1e-12)
    la, lb, h = math.log(run.alpha_final), math.log(run.beta_final), 1e-4

    def f(a, b):
        return _marginal_closed_form(X, y, math.exp(a), math.exp(b))

    da = (f(la + h, lb) - f(la - h, lb)) / (2 * h)
    db = (f(la, lb + h) - f(la, lb - h)) / (2 * h)
    assert abs(da) < 1e-6 and abs(db) < 1e-6
    top = f(la, lb)
    for a, b in [(0.1, 0), (-0.1, 0), (0, 0.1), (0, -0.1)]:
        assert f(la + a, lb + b) < top


def test_laplace_evidence_is_exact_for_a_linear_model():
    """Eq. (20) is exact for a Gaussian posterior, at any α, β; γ has its eigenvalue form."""
    X, y = _linear(SEED + 20, n=15, k=4)
    rng = np.random.default_rng(SEED + 21)
    for _ in range(5):
        alpha, beta = np.exp(rng.uniform(-3, 3, size=2))
        st = laplace_evidence(LinearGaussianPosterior(X, y, alpha, beta))
        assert st.log_evidence == pytest.approx(_marginal_closed_form(X, y, alpha, beta), abs=1e-9)
        lam = np.linalg.eigvalsh(beta * X.T @ X)
        assert st.gamma == pytest.approx(np.sum(lam / (lam + alpha)), abs=1e-10)  # γ = Σ λ/(λ+α)
        # evidence = best-fit likelihood × Occam factor (eq. 7), each from scipy densities
        loglik = stats.norm(X @ st.mean, 1 / math.sqrt(beta)).logpdf(y).sum()
        log_prior_at_mp = stats.multivariate_normal(np.zeros(4), np.eye(4) / alpha).logpdf(st.mean)
        posterior_volume = 0.5 * np.linalg.slogdet(2 * np.pi * st.cov)[1]
        assert st.log_likelihood == pytest.approx(loglik, abs=1e-9)
        assert st.log_occam == pytest.approx(log_prior_at_mp + posterior_volume, abs=1e-9)
        assert st.log_occam < 0  # the Occam factor is below one


@pytest.fixture(scope="module")
def toy():
    d = toy_data(np.random.default_rng(0))
    return ToyPosterior(d.x, d.t, alpha=100.0, beta=100.0)


def test_toy_reestimation_converges_and_symmetry_factor_counts_the_mirror_mode(toy):
    run = evidence_reestimation(toy, symmetry_factor=2)
    assert run.converged and 0 < run.gamma_final < toy.dim
    # the mirror mode (−u, −v) carries the same Laplace mass: ln 2 more evidence
    # (searched from the mirror image of the final mode, so it finds the mirror mode)
    one = laplace_evidence(toy.with_hyperparameters(run.alpha_final, run.beta_final),
                           start=-run.final.mean, symmetry_factor=1)
    np.testing.assert_allclose(one.mean, -run.final.mean, atol=1e-6)
    assert run.final.log_evidence - one.log_evidence == pytest.approx(math.log(2), abs=1e-8)
    # fixed point of (22) and (24)
    st = run.final
    assert st.gamma / st.sum_w2 == pytest.approx(st.alpha, rel=1e-6)
    assert (toy.n_data - st.gamma) / (2 * st.data_error) == pytest.approx(st.beta, rel=1e-6)


def test_laplace_with_symmetry_factor_approaches_the_exact_evidence_for_a_peaked_posterior():
    """With many data the posterior is two near-Gaussian islands: (20) + ln 2 ≈ exact ln P(D)."""
    d = toy_data(np.random.default_rng(3), n=400, noise_sd=0.05, u_true=-1.0, v_true=-2.0)
    post = ToyPosterior(d.x, d.t, alpha=1.0, beta=400.0)
    st2 = laplace_evidence(post, symmetry_factor=2)
    assert st2.log_evidence == pytest.approx(post.log_evidence, abs=0.02)
    st1 = laplace_evidence(post, symmetry_factor=1)
    assert abs(st1.log_evidence - post.log_evidence) > 0.6


def test_evidence_grid_finds_the_exact_maximiser():
    """On the linear model the brute-force grid + polish lands on sklearn's evidence maximum."""
    X, y = _linear(SEED + 30)
    lin = LinearGaussianPosterior(X, y, 1.0, 1.0)
    br = BayesianRidge(alpha_1=1e-12, alpha_2=1e-12, lambda_1=1e-12, lambda_2=1e-12,
                       fit_intercept=False, tol=1e-15, max_iter=100000).fit(X, y)
    g = evidence_grid(lin, np.linspace(-4, 4, 17), np.linspace(-2, 4, 13))
    assert g.log_evidence.shape == (13, 17)
    # the polished maximum is the closed-form marginal at sklearn's maximiser, which no grid point exceeds
    best = _marginal_closed_form(X, y, br.lambda_, br.alpha_)
    assert g.log_evidence_max == pytest.approx(best, abs=1e-8)
    assert g.log_evidence.max() <= best + 1e-9
    assert g.alpha_max == pytest.approx(br.lambda_, rel=1e-5)
    assert g.beta_max == pytest.approx(br.alpha_, rel=1e-5)


def test_alpha_running_to_infinity_is_explained_and_finite():
    """Targets orthogonal to the basis: w_MP = 0, γ/Σw² → ∞; a clear warning, finite state."""
    rng = np.random.default_rng(SEED + 40)
    X = rng.normal(size=(20, 2))
    t = rng.normal(size=20)
    t -= X @ np.linalg.lstsq(X, t, rcond=None)[0]
    with pytest.warns(HyperparameterConvergenceWarning, match="alpha ran to infinity"):
        run = evidence_reestimation(LinearGaussianPosterior(X, t, 1.0, 1.0))
    assert not run.converged
    assert np.isfinite(run.alpha_final) and np.isfinite(run.final.log_evidence)
    assert any("no weights" in n for n in run.notes)


def test_beta_running_to_infinity_is_explained_and_finite():
    rng = np.random.default_rng(SEED + 41)
    X = rng.normal(size=(20, 2))
    with pytest.warns(HyperparameterConvergenceWarning, match="beta ran to infinity"):
        run = evidence_reestimation(LinearGaussianPosterior(X, X @ np.array([1.0, -2.0]), 1.0, 1.0))
    assert np.isfinite(run.beta_final) and np.all(np.isfinite(run.log_evidence))
    assert any("interpolates" in n for n in run.notes)


def test_non_convergence_warns_with_reached_tolerance(toy):
    with pytest.warns(HyperparameterConvergenceWarning, match=r"max_iter = 2.*was [0-9.e+-]+ > tol"):
        run = evidence_reestimation(toy, max_iter=2, tol=1e-12)
    assert not run.converged and run.n_iter == 2 and np.isfinite(run.tol_reached)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"alpha0": 0.0}, "alpha0"),
        ({"beta0": -1.0}, "beta0"),
        ({"alpha0": math.nan}, "alpha0"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"symmetry_factor": 0}, "symmetry_factor"),
        ({"limits": (1.0, 0.5)}, "limits"),
        ({"limits": (0.0, 1.0)}, "limits"),
        ({"limits": "wide"}, "limits"),
        ({"alpha0": 1e12}, "limits"),
    ],
)
def test_bad_arguments_rejected(toy, kwargs, name):
    with pytest.raises(ValueError, match=name):
        evidence_reestimation(toy, **kwargs)


def test_bad_grids_rejected(toy):
    with pytest.raises(ValueError, match="log_alpha"):
        evidence_grid(toy, [1.0, 0.0, 2.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="log_beta"):
        evidence_grid(toy, [0.0, 1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="log_beta"):
        evidence_grid(toy, [0.0, 1.0, 2.0], [0.0, 1.0, 100.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = evidence_grid(toy, [0.0, 1.0, 2.0], [3.0, 4.0, 5.0], refine=False)
    assert np.all(np.isfinite(g.log_evidence))
