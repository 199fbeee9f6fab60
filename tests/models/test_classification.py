"""MacKay's single neuron (MacKay (16)–(17), §5.4): likelihood, exact posterior, bound, predictives.

Independent references: the likelihood written from MacKay (17) with plain ``math``; scipy's
``dblquad`` of exp(ln P(D|w) − α‖w‖²/2) written from eq. (17) and the prior alone (ln Z, and
KL(Q‖P) on a dense grid normalised by itself); scipy's ``quad`` for the 1-D Gaussian averages;
Monte Carlo with its standard error; central differences.
"""

import math

import numpy as np
import pytest
from scipy import integrate

from ensemble_lib import (LogisticPosterior, classification_data, expected_log_sigmoid, log_sigmoid,
                          log_softmax, logistic, moderated_output, predictive_probability,
                          softmax_log_likelihood)


def make_post(seed=0, n=10, alpha=1.0, input_sd=2.0):
    d = classification_data(np.random.default_rng(seed), n=n, input_sd=input_sd)
    return LogisticPosterior(d.x, d.t, alpha)


def log_joint_from_eq17(x, t, alpha, w1, w2):
    """ln P(D|w) − (α/2)‖w‖² written from MacKay (17) with math.log/exp (k = 2), for one w."""
    total = -0.5 * alpha * (w1 * w1 + w2 * w2)
    for (xa, xb), tn in zip(x, t):
        a = w1 * xa + w2 * xb
        # ln y = −ln(1 + e^{−a}), ln(1 − y) = −ln(1 + e^{a}), each in its stable branch
        ln_y = -math.log1p(math.exp(-a)) if a > 0 else a - math.log1p(math.exp(a))
        ln_1my = ln_y - a
        total += ln_y if tn == 1 else ln_1my
    return total


def test_log_sigmoid_is_stable_and_matches_the_direct_formula():
    a = np.linspace(-30, 30, 121)
    np.testing.assert_allclose(log_sigmoid(a), -np.log1p(np.exp(-a)), rtol=1e-13)
    assert log_sigmoid(-800.0) == pytest.approx(-800.0)
    assert log_sigmoid(800.0) == 0.0 and np.isfinite(log_sigmoid(-1e300))
    assert logistic(-1000.0) == 0.0 and logistic(1000.0) == 1.0


def test_data_follow_the_neuron():
    big = classification_data(np.random.default_rng(3), n=40000, w=(1.0, -0.5), input_sd=1.0)
    p = logistic(big.x @ big.w)
    # the mean label equals the mean probability, to 5 standard errors
    se = np.sqrt(np.mean(p * (1 - p)) / big.t.size)
    assert abs(big.t.mean() - p.mean()) < 5 * se
    with_bias = classification_data(np.random.default_rng(3), n=5, w=(0.0, 2.0, 1.0), bias=1.0)
    assert with_bias.x.shape == (5, 3) and np.all(with_bias.x[:, 2] == 1.0)


def test_log_likelihood_matches_mackay_17_and_is_vectorised():
    post = make_post(n=7)
    W = np.random.default_rng(1).standard_normal((4, 3, 2)) * 2
    direct = np.array([[log_joint_from_eq17(post.x, post.t, 0.0, *w) for w in row] for row in W])
    np.testing.assert_allclose(post.log_likelihood(W), direct, rtol=1e-12)


@pytest.mark.parametrize("w", [(0.3, 1.2), (-2.0, 0.5), (4.0, -3.0)])
def test_gradient_and_hessian_match_central_differences(w):
    post = make_post(alpha=0.7)
    w = np.array(w)
    eps = 1e-6
    E = np.eye(2)
    g_num = np.array([(post.log_unnorm(w + eps * e) - post.log_unnorm(w - eps * e)) / (2 * eps) for e in E])
    np.testing.assert_allclose(post.grad(w), g_num, rtol=1e-6, atol=1e-7)
    H_num = np.array([(post.grad(w + eps * e) - post.grad(w - eps * e)) / (2 * eps) for e in E]).T
    np.testing.assert_allclose(post.hessian(w), H_num, rtol=1e-6, atol=1e-6)


def dblquad_log_Z(post):
    """ln ∫∫ exp(ln P(D|w) − α‖w‖²/2) dw by scipy's dblquad, from MacKay (17) and the prior alone."""
    shift = -log_joint_from_eq17(post.x, post.t, post.alpha, *post.mode)
    r = math.sqrt(2 * 60 / post.alpha)  # the prior alone makes the integrand < e^-60 beyond

    def f(w2, w1):
        return math.exp(log_joint_from_eq17(post.x, post.t, post.alpha, w1, w2) + shift)

    # break the square at the mode so quad sees the peak
    m1, m2 = post.mode
    total = 0.0
    for a, b in ((-r, m1), (m1, r)):
        for c, d in ((-r, m2), (m2, r)):
            total += integrate.dblquad(f, a, b, c, d, epsabs=1e-13, epsrel=1e-11)[0]
    return math.log(total) - shift


@pytest.mark.parametrize(("seed", "n", "alpha"), [(0, 10, 1.0), (1, 3, 0.05), (2, 30, 5.0)])
def test_grid_log_Z_matches_dblquad_from_the_equation(seed, n, alpha):
    post = make_post(seed, n, alpha)
    assert post.log_Z == pytest.approx(dblquad_log_Z(post), abs=1e-9)
    assert post.posterior_grid.log_Z_change <= 0.01 * math.sqrt(post.tol)


def test_kl_matches_a_dense_grid_written_from_the_equation():
    """KL(Q‖P) = ∫Q ln(Q/P) on a dense 2-D grid whose P is normalised by its own sum."""
    post = make_post(0, 10, 1.0)
    mean = post.mode + np.array([0.1, -0.2])
    cov = np.array([[0.30, 0.05], [0.05, 0.20]])
    g = np.linspace(-9, 11, 1001)
    h = g[1] - g[0]
    W1, W2 = np.meshgrid(g, g, indexing="ij")
    # MacKay (17) and the prior, vectorised: t ln y + (1 − t) ln(1 − y) with y = 1/(1 + e^{−a})
    a = W1[..., None] * post.x[:, 0] + W2[..., None] * post.x[:, 1]
    lj = (np.sum(-post.t * np.logaddexp(0, -a) - (1 - post.t) * np.logaddexp(0, a), axis=-1)
          - 0.5 * post.alpha * (W1 ** 2 + W2 ** 2))
    m = lj.max()
    log_p = lj - (m + np.log(np.exp(lj - m).sum() * h * h))
    d = np.stack([W1 - mean[0], W2 - mean[1]], axis=-1)
    P = np.linalg.inv(cov)  # a test's closed-form reference: fine
    log_q = -0.5 * np.einsum("...i,ij,...j->...", d, P, d) - np.log(2 * np.pi) - 0.5 * np.log(np.linalg.det(cov))
    q = np.exp(log_q)
    kl_dense = float(np.sum(q * (log_q - log_p)) * h * h)
    assert post.kl(mean, cov) == pytest.approx(kl_dense, abs=1e-7)
    assert post.kl(mean, cov) > 0


@pytest.mark.parametrize(("m", "sd"), [(0.3, 0.1), (2.0, 0.9), (-1.0, 1.5), (3.0, 5.0), (-20.0, 40.0),
                                       (0.0, 1e3), (50.0, 1e-3)])
def test_one_dimensional_averages_match_adaptive_quadrature(m, sd):
    def avg(f):
        pdf = lambda a: f(a) * math.exp(-0.5 * ((a - m) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))  # noqa: E731
        lo, hi = m - 12 * sd, m + 12 * sd
        pts = sorted({p for p in (0.0, -3.0, 3.0, m) if lo < p < hi})
        return integrate.quad(pdf, lo, hi, points=pts, epsabs=1e-15, epsrel=1e-13, limit=1000)[0]

    lsig = lambda a: -math.log1p(math.exp(-a)) if a > 0 else a - math.log1p(math.exp(a))  # noqa: E731
    sig = lambda a: 1 / (1 + math.exp(-a)) if a > -700 else 0.0  # noqa: E731
    value, d_mean, d_var = expected_log_sigmoid(m, sd * sd)
    scale = max(1.0, abs(m) + sd)
    assert value == pytest.approx(avg(lsig), abs=1e-12 * scale)
    assert predictive_probability(m, sd * sd) == pytest.approx(avg(sig), abs=1e-12)
    assert d_mean == pytest.approx(avg(lambda a: sig(-a)), abs=1e-12)
    assert d_var == pytest.approx(-0.5 * avg(lambda a: sig(a) * sig(-a)), abs=1e-12)


def test_expected_log_likelihood_matches_monte_carlo():
    post = make_post(2, 30, 0.3, input_sd=3.0)
    mean = np.array([0.4, 1.1])
    cov = np.array([[0.5, -0.1], [-0.1, 0.3]])
    rng = np.random.default_rng(11)
    w = rng.multivariate_normal(mean, cov, size=400_000)
    samples = post.log_likelihood(w)
    se = samples.std() / np.sqrt(samples.size)
    assert abs(post.expected_log_likelihood(mean, cov).value - samples.mean()) < 5 * se


@pytest.mark.parametrize("scale", [0.05, 1.0, 20.0])
def test_bound_gradients_match_central_differences(scale):
    post = make_post(2, 30, 0.3, input_sd=3.0)
    mean = np.array([0.4, 1.1])
    cov = scale * np.array([[0.5, -0.1], [-0.1, 0.3]])
    g_mean, g_cov = post.bound_grad(mean, cov)
    eps = 1e-6 * max(1.0, scale)
    for i in range(2):
        e = np.zeros(2)
        e[i] = eps
        num = (post.bound(mean + e, cov) - post.bound(mean - e, cov)) / (2 * eps)
        assert g_mean[i] == pytest.approx(num, rel=1e-5, abs=1e-6)
    for i, j in ((0, 0), (1, 1), (0, 1)):
        E = np.zeros((2, 2))
        E[i, j] = E[j, i] = eps * scale
        num = (post.bound(mean, cov + E) - post.bound(mean, cov - E)) / (2 * eps * scale)
        want = g_cov[i, j] * (1 if i == j else 2)  # a symmetric perturbation moves C_ij and C_ji
        assert want == pytest.approx(num, rel=1e-5, abs=1e-6)


def test_moderated_output_against_the_exact_average_over_a_panel_range():
    """MacKay's σ(κ(s)a) against ∫σ(a)N(a; a_MP, s²)da: largest error over |a| ≤ 10, s² ≤ 30."""
    a = np.linspace(-10, 10, 201)
    s2 = np.concatenate([[0.0], np.geomspace(1e-3, 30, 60)])
    A, S2 = np.meshgrid(a, s2)
    err = np.abs(moderated_output(A, S2) - predictive_probability(A, S2))
    worst = float(err.max())
    print(f"largest error of the moderated output over |a| <= 10, s^2 <= 30: {worst:.4f}")
    assert 0.005 < worst < 0.02
    assert np.all(err[0] < 1e-15) and np.all(err[:, a.size // 2] < 1e-15)  # exact at s = 0 and at a = 0


def test_exact_predictive_matches_importance_sampling():
    """∫σ(w·x)P(w|D)dw on the grid against self-normalised importance sampling (broad Gaussian proposal)."""
    post = make_post(1, 3, 0.05)  # a skewed, broad posterior
    rng = np.random.default_rng(5)
    A_inv = np.linalg.inv(-post.hessian(post.mode))
    prop_cov = 9.0 * A_inv
    w = rng.multivariate_normal(post.mode, prop_cov, size=400_000)
    d = w - post.mode
    log_q = -0.5 * np.einsum("ni,ij,nj->n", d, np.linalg.inv(prop_cov), d)
    log_r = post.log_unnorm(w) - log_q
    r = np.exp(log_r - log_r.max())
    r /= r.sum()
    X = np.array([[1.0, 0.5], [-3.0, 4.0], [6.0, -1.0]])
    for x in X:
        f = logistic(w @ x)
        est = float(r @ f)
        se = float(np.sqrt(np.sum(r * r * (f - est) ** 2)))  # delta-method s.e. of the ratio estimate
        assert abs(post.predictive(x) - est) < 5 * se + 1e-12


def test_softmax_reduces_to_the_logistic_for_two_classes():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 2))
    t = (rng.random(9) < 0.5).astype(float)
    w = np.array([0.7, -1.3])
    W = np.column_stack([np.zeros(2), w])
    T = np.column_stack([1 - t, t])
    value, grad = softmax_log_likelihood(W, x, T)
    post = LogisticPosterior(x, t, 1.0)
    assert value == pytest.approx(float(post.log_likelihood(w)), rel=1e-13)
    np.testing.assert_allclose(grad[:, 1], post.log_likelihood_grad(w), rtol=1e-12)
    np.testing.assert_allclose(grad[:, 0], -post.log_likelihood_grad(w), rtol=1e-12)


def test_softmax_gradient_matches_central_differences_and_is_stable():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((8, 3))
    T = np.eye(4)[rng.integers(0, 4, 8)]
    W = rng.standard_normal((3, 4))
    _, grad = softmax_log_likelihood(W, x, T)
    eps = 1e-6
    num = np.zeros_like(W)
    for i in range(3):
        for j in range(4):
            E = np.zeros_like(W)
            E[i, j] = eps
            num[i, j] = (softmax_log_likelihood(W + E, x, T)[0] - softmax_log_likelihood(W - E, x, T)[0]) / (2 * eps)
    np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-7)
    big = log_softmax(np.array([1000.0, 0.0, -1000.0]))
    assert np.all(np.isfinite(big)) and big[0] == 0.0 and big[1] == -1000.0


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"t": [0, 1, 2]}, "t"),
    ({"t": [0, 1, 0.5]}, "t"),
    ({"t": [0, 1]}, "t"),
    ({"x": [[0.0, 1.0], [np.nan, 1.0], [1.0, 1.0]]}, "x"),
    ({"x": [[0.0, 1.0], [np.inf, 1.0], [1.0, 1.0]]}, "x"),
    ({"x": np.zeros((0, 2)), "t": []}, "x"),
    ({"alpha": 0.0}, "alpha"),
    ({"alpha": -1.0}, "alpha"),
    ({"alpha": float("nan")}, "alpha"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = {"x": [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], "t": [0, 1, 1], "alpha": 1.0} | kwargs
    with pytest.raises(ValueError, match=name):
        LogisticPosterior(**args)


def test_bad_softmax_and_predictive_input_names_the_argument():
    x = np.ones((2, 2))
    W = np.zeros((2, 3))
    with pytest.raises(ValueError, match="T must be one-hot"):
        softmax_log_likelihood(W, x, [[1, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="T must be one-hot"):
        softmax_log_likelihood(W, x, [[0.5, 0.5, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="x"):
        softmax_log_likelihood(W, [[np.nan, 1.0], [1.0, 1.0]], [[1, 0, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="s2"):
        moderated_output(1.0, -0.1)
    with pytest.raises(ValueError, match="var"):
        predictive_probability(1.0, np.nan)
    with pytest.raises(ValueError, match="rng"):
        classification_data(0)
