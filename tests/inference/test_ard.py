"""Tests of multiple weight classes (MacKay §3.2, §7, §8; Barber & Bishop §2.2 extended per class).

References: scikit-learn's ``ARDRegression`` (one α per weight, the same type-II maximum
likelihood), the library's one-α evidence run (equal to the last bit with one class), the
closed-form Gaussian marginal (scipy.stats), central differences of the multi-class bound, an
independent 2-D quadrature of ln P(D) with every α_c and β integrated out analytically (the Gamma
integrals written out here from B&B (27)–(28)), and Monte Carlo against the erf arcsine kernel.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import special, stats
from sklearn.linear_model import ARDRegression

from ensemble_lib import GammaHyperprior, LinearGaussianPosterior, NetworkPosterior, add_bias, make_posterior
from ensemble_lib.inference.ard import (ClassCollapsedBound, ClassPriorPosterior, check_classes,
                                        class_evidence_reestimation, fit_class_ensemble,
                                        linear_class_evidence, network_classes, sample_prior_functions)
from ensemble_lib.inference.evidence import evidence_reestimation
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.network_fits import CollapsedBound


def _linear(seed, n=60, k=4, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k))
    w = rng.choice([-1.0, 1.0], size=k) * rng.uniform(0.3, 2.0, size=k)
    return X, X @ w + noise * rng.normal(size=n)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("reestimate", [class_evidence_reestimation, linear_class_evidence],
                         ids=["laplace", "closed_form"])
def test_one_alpha_per_weight_matches_sklearn_ard(reestimate, seed):
    """(27) with one class per weight = ARDRegression with hyperprior constants 0 and no pruning,
    by Laplace fits and in closed form (linear_class_evidence: one Cholesky a step).

    scikit-learn refuses ``threshold_lambda=inf`` (its range is [0, inf)); 1e300 prunes nothing.
    """
    X, y = _linear(100 + seed)
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
        X, y = _linear(7)
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
    X, y = _linear(11, k=5)
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


def test_ard_switches_off_a_pure_noise_input_of_a_linear_model():
    """A column of pure noise gets α_c at least 10x every real column's and the smallest γ_c."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = X[:, :3] @ np.array([1.0, -0.7, 0.5]) + 0.3 * rng.normal(size=80)
    run = class_evidence_reestimation(LinearGaussianPosterior(X, y, 1.0, 1.0), [[0], [1], [2], [3]],
                                      tol=1e-9, max_iter=5000)
    a = run.alphas_final
    assert a[3] > 10 * a[:3].max()
    assert run.gammas_final[3] < run.gammas_final[:3].min()


def test_network_classes_partition_the_weights_as_mackay_section_7():
    d, H = 4, 3  # 3 real inputs + bias
    ard = network_classes(d, H, "ard")
    assert len(ard) == 5
    check_classes(ard, H * d + H)
    np.testing.assert_array_equal(ard[0], [0, 4, 8])      # input 0 into every unit
    np.testing.assert_array_equal(ard[3], [3, 7, 11])     # the hidden biases
    np.testing.assert_array_equal(ard[4], [12, 13, 14])   # the output weights
    layers = network_classes(d, H, "layers")
    assert [c.size for c in layers] == [9, 3, 3]
    assert [c.size for c in network_classes(d, H, "single")] == [15]


@pytest.mark.parametrize("classes, match", [
    ([[0, 1], []], r"classes\[1\] is empty"),
    ([[0, 1], [1, 2, 3, 4, 5]], r"classes overlap"),
    ([[0, 1, 2], [3, 4, 9]], r"classes\[1\] has index 9 out of range \[0, 5\]"),
    ([[0, 1, 2], [3, 4, -1]], r"out of range"),
    ([[0, 1, 2], [3, 4]], r"classes must cover every weight"),
    ([], r"classes must hold at least one class"),
    ("abc", r"classes must be a sequence"),
    ([[0, 1, 2], [3, 4, 5.0]], r"classes\[1\] must hold integer indices"),
])
def test_bad_classes_are_refused_naming_the_argument(classes, match):
    with pytest.raises(ValueError, match=match):
        check_classes(classes, 6)
    post = make_posterior(seed=0, alpha=1.0)
    with pytest.raises(ValueError, match="classes"):
        class_evidence_reestimation(post, [[0], [0]])
    with pytest.raises(ValueError, match="classes"):
        ClassCollapsedBound(post, [[0, 1], [2]])


def _small_net(seed=4, N=25, H=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 2))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=N)
    return NetworkPosterior(add_bias(X), t, H, alpha=1.0, beta=50.0), rng


@pytest.mark.parametrize("family, rank", [("full", None), ("diagonal", None), ("factor", 1)])
def test_class_bound_gradient_matches_central_differences(family, rank):
    """∇_θ of −F*(θ) (mean and covariance parameters) = central differences, on an ARD network."""
    post, rng = _small_net()
    cb = ClassCollapsedBound(post, network_classes(3, 2, "ard"), GammaHyperprior(a=1.0, b=10.0, c=1.0, d=100.0))
    fam = CovarianceFamily.make(family, post.dim, rank)
    theta = fam.pack(0.5 * rng.normal(size=post.dim), np.diag(rng.uniform(0.01, 0.1, post.dim)))
    if family == "factor":
        theta[2 * post.dim:] = 0.05 * rng.normal(size=post.dim)
    f0, g = kl_objective(cb, fam, theta)
    h = 1e-5
    num = np.array([(kl_objective(cb, fam, theta + h * e)[0] - kl_objective(cb, fam, theta - h * e)[0]) / (2 * h)
                    for e in np.eye(theta.size)])
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)
    # the bound's value is H[Q] − energy + c_0, the same number kl_objective minimises
    mean, cov = fam.unpack(theta)
    assert cb.bound(mean, cov) == pytest.approx(-f0 - cb.log_normalisers, abs=1e-9)


def test_one_class_bound_is_barber_bishops_collapsed_bound():
    post, rng = _small_net(seed=5)
    prior = GammaHyperprior()
    mean, cov = 0.3 * rng.normal(size=post.dim), np.diag(rng.uniform(0.01, 0.2, post.dim))
    one = ClassCollapsedBound(post, [range(post.dim)], prior)
    assert one.bound(mean, cov) == pytest.approx(CollapsedBound(post, prior).bound(mean, cov), abs=1e-10)
    a, b = one.hyperparameters(mean, cov)
    a1, b1 = CollapsedBound(post, prior).hyperparameters(mean, cov)
    assert a[0] == pytest.approx(a1, rel=1e-13) and b == pytest.approx(b1, rel=1e-13)


def _exact_log_pd(error_fn, classes, prior, n_data, half_width=12.0, n=1201):
    """ln P(D) = ln ∫ d²w Π_c ∫dα_c N(w_c|0, 1/α_c) p(α_c) ∫dβ P(D|w, β) p(β), on a 2-D grid.

    Each Gamma integral is written out: ∫ α^{k/2} e^{−αS/2} α^{a−1} e^{−α/b} dα/(Γ(a) b^a (2π)^{k/2})
    = Γ(a + k/2) / (Γ(a) b^a (2π)^{k/2}) (S/2 + 1/b)^{−(a + k/2)}, and the same for β with E_D.
    """
    g = np.linspace(-half_width, half_width, n)
    U, V = np.meshgrid(g, g, indexing="ij")
    W = np.stack([U, V], axis=-1)
    a, b, c, d = prior.a, prior.b, prior.c, prior.d
    log_f = np.zeros_like(U)
    for idx in classes:
        k = len(idx)
        S = np.sum(W[..., idx] ** 2, axis=-1)
        log_f += (special.gammaln(a + k / 2) - special.gammaln(a) - a * math.log(b) - k / 2 * math.log(2 * math.pi)
                  - (a + k / 2) * np.log(S / 2 + 1 / b))
    ed = error_fn(U, V)
    log_f += (special.gammaln(c + n_data / 2) - special.gammaln(c) - c * math.log(d)
              - n_data / 2 * math.log(2 * math.pi) - (c + n_data / 2) * np.log(ed + 1 / d))
    m = log_f.max()
    h = g[1] - g[0]
    return float(m + math.log(np.trapezoid(np.trapezoid(np.exp(log_f - m), dx=h), dx=h)))


@pytest.mark.parametrize("which", ["toy", "linear"])
def test_multi_class_bound_never_exceeds_the_exact_evidence(which):
    """F* ≤ ln P(D) (α_u, α_v and β integrated out exactly), and F* is within 1.5 nats of it."""
    prior = GammaHyperprior(a=2.0, b=2.0, c=2.0, d=50.0)
    classes = [[0], [1]]
    if which == "toy":
        post = make_posterior(seed=3, alpha=1.0)
        x, t = post.x, post.t

        def err(U, V):
            f = V[..., None] * special.erf(U[..., None] * x / math.sqrt(2.0))
            return 0.5 * np.sum((f - t) ** 2, axis=-1)
    else:
        rng = np.random.default_rng(8)
        Phi = rng.normal(size=(10, 2))
        t = Phi @ [0.8, -0.4] + 0.3 * rng.normal(size=10)
        post = LinearGaussianPosterior(Phi, t, 1.0, 10.0)

        def err(U, V):
            f = U[..., None] * Phi[:, 0] + V[..., None] * Phi[:, 1]
            return 0.5 * np.sum((f - t) ** 2, axis=-1)
    exact = _exact_log_pd(err, classes, prior, post.n_data)
    lap = laplace_fit(post, compute_kl=False)
    fit = fit_class_ensemble(post, classes, prior, family="full", init=[(lap.mean, lap.cov)], gtol=1e-8)
    assert fit.bound <= exact + 1e-6
    assert exact - fit.bound < 1.5
    # refining the quadrature grid changes ln P(D) by far less than the gap
    assert abs(_exact_log_pd(err, classes, prior, post.n_data, n=1801) - exact) < 1e-3


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
