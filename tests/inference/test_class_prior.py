"""Weight classes and the prior with one α per class (MacKay §3.2, §8; MacKay (26)): ensemble_lib.inference.class_prior.

References: the closed-form Gaussian marginal (scipy.stats) against the Laplace evidence of the class
prior on a linear model, the base posterior's own refusals, and Monte Carlo against the erf arcsine kernel.
"""

import math

import numpy as np
import pytest
from scipy import stats

from ensemble_lib import LinearGaussianPosterior, add_bias, make_posterior
from ensemble_lib.inference.class_prior import ClassPriorPosterior, network_classes, sample_prior_functions
from ensemble_lib.inference.laplace import laplace_fit

from _class_reference import linear_data



@pytest.mark.parametrize("mean, cov", [(np.zeros(1), np.eye(2)), (np.zeros(2), np.eye(3)),
                                       (np.zeros((1, 2)), np.eye(2)), ("x", np.eye(2)), (np.zeros(2), None)])
def test_class_prior_refuses_a_bad_mean_or_cov_as_the_base_posterior_does(mean, cov):
    """One check (``core.validation.mean_cov_shapes``): the same ValueError, word for word."""
    post = make_posterior(seed=0, alpha=1.0)
    messages = []
    for p in (post, ClassPriorPosterior(post, [[0], [1]], [1.0, 2.0])):
        with pytest.raises(ValueError, match="mean|cov") as info:
            p.expected_energy(mean, cov)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_class_prior_laplace_evidence_is_the_exact_marginal_for_a_linear_model():
    """ln P(D | {α_c}, β) by Laplace (20) on a linear model = the closed-form Gaussian marginal."""
    X, y = linear_data(11, k=5)
    classes = [[0, 3], [1], [2, 4]]
    alphas = np.array([0.3, 4.0, 20.0])
    p = ClassPriorPosterior(LinearGaussianPosterior(X, y, 1.0, 1.0), classes, alphas, beta=3.0)
    lap = laplace_fit(p, compute_kl=False)
    lam = np.empty(5)
    for a, c in zip(alphas, classes):
        lam[c] = a
    cov = X @ np.diag(1.0 / lam) @ X.T + np.eye(len(y)) / 3.0
    ref = stats.multivariate_normal(np.zeros(len(y)), cov).logpdf(y)
    assert lap.log_evidence_laplace == pytest.approx(ref, abs=1e-9)
    assert p.log_evidence == pytest.approx(ref, abs=1e-9)


def test_prior_functions_have_the_arcsine_kernel_variance():
    """Var f(x) over the prior = H σ_v² (2/π) arcsin(s²/(1+s²)), s² = Σ_j x_j² σ_j² (erf(a/√2) units),
    by Monte Carlo within 4 standard errors; and σ_v ∝ 1/√H keeps it fixed as H grows (MacKay §8)."""
    X = add_bias(np.array([[-2.0], [0.0], [0.7], [3.0]]))
    sd_in, sd_bias, sd_out = 2.0, 1.0, 0.5
    for H in (1, 4, 16):
        classes = network_classes(2, H, "layers")
        alphas = [1 / sd_in**2, 1 / sd_bias**2, H / sd_out**2]
        f = sample_prior_functions(X, H, classes, alphas, 20_000, np.random.default_rng(H))
        s2 = X[:, 0] ** 2 * sd_in**2 + sd_bias**2
        ref = sd_out**2 * (2 / math.pi) * np.arcsin(s2 / (1 + s2))  # H · (σ_v²/H) · ⟨σ²⟩
        var = f.var(axis=0)
        se = np.sqrt(np.var((f - f.mean(axis=0)) ** 2, axis=0) / f.shape[0])
        assert np.all(np.abs(var - ref) < 4 * se), (H, var, ref, se)
