"""The evidence with one α per class of weights (MacKay (27), §7): ensemble_lib.inference.class_evidence.

References: scikit-learn's ``ARDRegression`` (one α per weight, the same type-II maximum
likelihood), the library's one-α evidence run (equal to the last bit with one class), the
closed-form Gaussian marginal (scipy.stats), and the closed-form linear iteration against the
general one step by step.
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import ARDRegression

from ensemble_lib import LinearGaussianPosterior, make_posterior
from ensemble_lib.inference.class_evidence import class_evidence_reestimation, linear_class_evidence
from ensemble_lib.inference.evidence import evidence_reestimation

from _class_reference import linear_data



@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("reestimate", [class_evidence_reestimation, linear_class_evidence],
                         ids=["laplace", "closed_form"])
def test_one_alpha_per_weight_matches_sklearn_ard(reestimate, seed):
    """(27) with one class per weight = ARDRegression with hyperprior constants 0 and no pruning,
    by Laplace fits and in closed form (linear_class_evidence: one Cholesky a step).

    scikit-learn refuses ``threshold_lambda=inf`` (its range is [0, inf)); 1e300 prunes nothing.
    """
    X, y = linear_data(100 + seed)
    run = reestimate(LinearGaussianPosterior(X, y, 1.0, 1.0), [[i] for i in range(X.shape[1])],
                     tol=1e-13, max_iter=10_000)
    ard = ARDRegression(alpha_1=0.0, alpha_2=0.0, lambda_1=0.0, lambda_2=0.0, threshold_lambda=1e300,
                        fit_intercept=False, tol=1e-12, max_iter=3000).fit(X, y)
    assert run.converged and not np.any(run.capped)
    np.testing.assert_allclose(run.alphas_final, ard.lambda_, rtol=1e-6)
    assert run.beta_final == pytest.approx(ard.alpha_, rel=1e-6)
    np.testing.assert_allclose(run.final.mean, ard.coef_, rtol=1e-6)
    # γ_c = 1 − α_c (A⁻¹)_cc, and the evidence is the Gaussian marginal ln N(y | 0, ΦΛ⁻¹Φᵀ + I/β)
    cov = X @ np.diag(1.0 / run.alphas_final) @ X.T + np.eye(len(y)) / run.beta_final
    ref = stats.multivariate_normal(np.zeros(len(y)), cov).logpdf(y)
    assert run.final.log_evidence == pytest.approx(ref, abs=1e-8)


@pytest.mark.parametrize("which", ["linear", "toy"])
def test_one_class_is_the_single_alpha_run_exactly(which):
    """With one class covering every weight, every recorded number equals evidence_reestimation's."""
    if which == "linear":
        X, y = linear_data(7)
        post, sym = LinearGaussianPosterior(X, y, 1.0, 1.0), 1
    else:
        post, sym = make_posterior(seed=2, alpha=1.0), 2
    one = evidence_reestimation(post, tol=1e-10, symmetry_factor=sym, exact=False)
    many = class_evidence_reestimation(post, [list(range(post.dim))], tol=1e-10, symmetry_factor=sym)
    assert one.converged and many.converged and one.n_iter == many.n_iter > 3
    np.testing.assert_array_equal(many.alphas[:, 0], one.alpha)
    np.testing.assert_array_equal(many.beta, one.beta)
    np.testing.assert_array_equal(many.gammas[:, 0], one.gamma)
    np.testing.assert_array_equal(many.log_evidence, one.log_evidence)
    np.testing.assert_array_equal(many.log_occam, one.log_occam)
    np.testing.assert_array_equal(many.final.mean, one.final.mean)


def test_capped_class_is_reported_and_the_rest_converge():
    """An input the data cannot see at all (a zero column) runs α_c to the limit: held there, noted."""
    rng = np.random.default_rng(9)
    X = np.column_stack([rng.normal(size=40), rng.normal(size=40), np.zeros(40)])
    y = X[:, 0] - 0.5 * X[:, 1] + 0.2 * rng.normal(size=40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = class_evidence_reestimation(LinearGaussianPosterior(X, y, 1.0, 1.0), [[0], [1], [2]],
                                          tol=1e-9, max_iter=2000)
    assert run.converged and run.capped.tolist() == [False, False, True]
    assert run.alphas_final[2] == 1e8 and "switched off" in run.notes[-1]


def test_closed_form_linear_iteration_follows_the_general_one_step_by_step():
    """Same trajectory (every α_c, β, γ_c, ln evidence) as class_evidence_reestimation's Laplace fits,
    also when a class is switched off (a zero column: held at the limit, reported)."""
    rng = np.random.default_rng(9)
    X = np.column_stack([rng.normal(size=40), rng.normal(size=40), np.zeros(40), rng.normal(size=40)])
    y = X[:, 0] - 0.5 * X[:, 1] + 0.2 * rng.normal(size=40)
    lin = LinearGaussianPosterior(X, y, 1.0, 1.0)
    classes = [[0], [1, 3], [2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = class_evidence_reestimation(lin, classes, tol=1e-9, max_iter=2000)
        b = linear_class_evidence(lin, classes, tol=1e-9, max_iter=2000)
    # the Laplace fits' modes are found to round-off, so the last change may cross tol one step apart
    n = min(a.n_iter, b.n_iter)
    assert abs(a.n_iter - b.n_iter) <= 1 and a.converged and b.converged
    assert b.capped.tolist() == a.capped.tolist() == [False, False, True] and "switched off" in b.notes[-1]
    for key in ("alphas", "beta", "gammas", "log_evidence"):
        np.testing.assert_allclose(getattr(b, key)[:n], getattr(a, key)[:n], rtol=1e-8, atol=1e-12, err_msg=key)
    np.testing.assert_allclose(b.alphas_final, a.alphas_final, rtol=1e-8)
    np.testing.assert_allclose(b.final.cov, a.final.cov, rtol=1e-7, atol=1e-14)
    with pytest.raises(ValueError, match="post must be a linear model"):
        linear_class_evidence(make_posterior(seed=0), [[0], [1]])
    with pytest.raises(ValueError, match="classes"):
        linear_class_evidence(lin, [[0], [1]])
