"""The toy posterior of Barber & Bishop Fig. 2: model, data, ln Z, ⟨E_D⟩, KL.

Independent references: scipy.stats.norm (σ = 2Φ − 1), scipy.integrate.dblquad
on the raw 2-D integrand (ln Z, ⟨E_D⟩, KL), Monte Carlo with 10⁶ samples, and
central differences.
"""

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from ensemble_lib import ToyPosterior, sigma, sigma_prime, toy_data, toy_model


def make_post(seed=0, alpha=1.0, beta=100.0, n=6, n_quad=96):
    d = toy_data(np.random.default_rng(seed), n=n, noise_sd=1 / np.sqrt(beta))
    return ToyPosterior(d.x, d.t, alpha, beta, n_quad=n_quad)


def test_sigma_is_twice_normal_cdf_minus_one():
    a = np.linspace(-6, 6, 101)
    np.testing.assert_allclose(sigma(a), 2 * stats.norm.cdf(a) - 1, atol=1e-14)
    # eq. (2) as an integral
    val, _ = integrate.quad(lambda s: np.sqrt(2 / np.pi) * np.exp(-s * s / 2), 0, 1.3)
    assert sigma(1.3) == pytest.approx(val, rel=1e-12)
    eps = 1e-6
    np.testing.assert_allclose(sigma_prime(a), (sigma(a + eps) - sigma(a - eps)) / (2 * eps), rtol=1e-7, atol=1e-9)


def test_toy_data_follow_the_papers_recipe():
    d1 = toy_data(np.random.default_rng(7))
    d2 = toy_data(np.random.default_rng(7))
    np.testing.assert_array_equal(d1.x, d2.x)
    np.testing.assert_array_equal(d1.t, d2.t)
    assert d1.x.shape == (6,) and np.all(np.abs(d1.x) < 2)
    # residuals from the generating function are the noise (s.d. 0.1): check on many points
    big = toy_data(np.random.default_rng(8), n=20000)
    res = big.t - (-2.5) * sigma(-0.13 * big.x)
    assert abs(res.std() - 0.1) < 4 * 0.1 / np.sqrt(2 * big.x.size)
    assert abs(res.mean()) < 4 * 0.1 / np.sqrt(big.x.size)


def test_data_error_is_half_sum_of_squares_and_vectorised():
    post = make_post()
    rng = np.random.default_rng(1)
    W = rng.standard_normal((5, 3, 2))
    direct = 0.5 * np.sum((toy_model(post.x, W[..., :1], W[..., 1:]) - post.t) ** 2, axis=-1)
    np.testing.assert_allclose(post.data_error(W), direct, rtol=1e-12)


@pytest.mark.parametrize("w", [(-0.4, -0.9), (1.3, 0.2), (0.05, -2.0)])
def test_gradient_and_hessian_match_central_differences(w):
    post = make_post(alpha=0.7)
    w = np.array(w)
    eps = 1e-6
    E = np.eye(2)
    g_num = np.array([(post.log_unnorm(w + eps * e) - post.log_unnorm(w - eps * e)) / (2 * eps) for e in E])
    np.testing.assert_allclose(post.grad(w), g_num, rtol=1e-6, atol=1e-6)
    H_num = np.array([(post.grad(w + eps * e) - post.grad(w - eps * e)) / (2 * eps) for e in E]).T
    np.testing.assert_allclose(post.hessian(w), H_num, rtol=1e-6, atol=1e-5)


def brute_force_log_Z(post):
    u0, u1, v0, v1 = post.extent()
    box = 4.0
    # integrate the raw exp(-βE_D - α/2|w|²) over a box well beyond the posterior's mass
    shift = -post.log_unnorm(post_mode(post))
    # the integrand written from B&B (4)-(6) directly (erf sigmoid, sum of squares), not through
    # the library's E_D: independent of it, and cheap per point
    x, t, beta, alpha = post.x, post.t, post.beta, post.alpha
    root2 = np.sqrt(2.0)

    def f(v, u):
        r = v * special.erf(u * x / root2) - t
        return math.exp(-0.5 * beta * (r @ r) - 0.5 * alpha * (u * u + v * v) + shift)

    val, err = integrate.dblquad(f, box * u0, box * u1, box * v0, box * v1, epsabs=0, epsrel=1e-9)
    return np.log(val) - shift


def post_mode(post):
    from ensemble_lib import laplace_fit

    return laplace_fit(post, compute_kl=False).mean


@pytest.mark.parametrize("seed,alpha,beta,n", [(0, 1.0, 100.0, 6), (3, 0.1, 100.0, 6), (5, 3.0, 25.0, 12),
                                               (2, 0.5, 400.0, 4)])
def test_log_Z_matches_independent_2d_adaptive_quadrature(seed, alpha, beta, n):
    post = make_post(seed, alpha, beta, n)
    assert post.log_Z == pytest.approx(brute_force_log_Z(post), abs=1e-6)


def test_grid_density_is_normalised_and_symmetric():
    post = make_post(seed=1, alpha=0.5)
    g = post.grid(n=401, extent=post.extent(coverage=1.0))  # the wide box: all of the mass
    mass = np.trapezoid(np.trapezoid(g.density, g.u, axis=1), g.v)
    assert mass == pytest.approx(1.0, abs=2e-3)
    # symmetry (u, v) -> (-u, -v) of the posterior
    np.testing.assert_allclose(g.log_density, g.log_density[::-1, ::-1], atol=1e-9)


def random_q(rng, scale=0.3):
    m = rng.normal(size=2) * 0.8
    A = rng.normal(size=(2, 2)) * scale
    return m, A @ A.T + 0.02 * np.eye(2)


def test_expected_data_error_matches_monte_carlo():
    post = make_post(seed=2)
    rng = np.random.default_rng(10)
    for _ in range(3):
        m, C = random_q(rng)
        w = rng.multivariate_normal(m, C, size=1_000_000)
        e = post.data_error(w)
        se = e.std() / np.sqrt(e.size)
        assert abs(post.expected_data_error(m, C).value - e.mean()) < 4 * se


def test_expected_data_error_matches_2d_brute_force_quadrature():
    post = make_post(seed=4)
    rng = np.random.default_rng(11)
    m, C = random_q(rng)
    L = np.linalg.cholesky(C)

    def integrand(z2, z1):
        w = m + L @ np.array([z1, z2])
        return post.data_error(w) * np.exp(-0.5 * (z1 * z1 + z2 * z2)) / (2 * np.pi)

    ref, _ = integrate.dblquad(integrand, -9, 9, -9, 9, epsabs=1e-12, epsrel=1e-12)
    assert post.expected_data_error(m, C).value == pytest.approx(ref, rel=1e-8)


def test_expected_data_error_gradients_match_central_differences():
    post = make_post(seed=5)
    rng = np.random.default_rng(12)
    for _ in range(3):
        m, C = random_q(rng)
        ex = post.expected_data_error(m, C)
        eps = 1e-6
        gm = [(post.expected_data_error(m + eps * e, C).value - post.expected_data_error(m - eps * e, C).value)
              / (2 * eps) for e in np.eye(2)]
        np.testing.assert_allclose(ex.d_mean, gm, rtol=1e-6, atol=1e-9)
        # symmetric perturbations of C: dC = E_ij + E_ji (i≠j) or E_ii
        for i, j in [(0, 0), (1, 1), (0, 1)]:
            dC = np.zeros((2, 2))
            dC[i, j] = dC[j, i] = 1.0
            num = (post.expected_data_error(m, C + eps * dC).value
                   - post.expected_data_error(m, C - eps * dC).value) / (2 * eps)
            ana = np.sum(ex.d_cov * dC)
            assert ana == pytest.approx(num, rel=1e-6, abs=1e-9)


def brute_force_kl(post, m, C, log_Z):
    L = np.linalg.cholesky(C)
    logdet = 2 * np.sum(np.log(np.diag(L)))

    x, t, beta, alpha = post.x, post.t, post.beta, post.alpha
    root2, log_2pi = np.sqrt(2.0), math.log(2 * math.pi)

    def integrand(z2, z1):
        u = m[0] + L[0, 0] * z1
        v = m[1] + L[1, 0] * z1 + L[1, 1] * z2
        zz = z1 * z1 + z2 * z2
        logq = -0.5 * zz - 0.5 * logdet - log_2pi
        r = v * special.erf(u * x / root2) - t  # B&B (4)-(6) written out, not the library's E_D
        logp = -0.5 * beta * (r @ r) - 0.5 * alpha * (u * u + v * v) - log_Z
        return math.exp(-0.5 * zz) / (2 * math.pi) * (logq - logp)

    val, _ = integrate.dblquad(integrand, -9, 9, -9, 9, epsabs=1e-11, epsrel=1e-11)
    return val


def test_kl_matches_brute_force_and_is_mirror_symmetric():
    post = make_post(seed=6, alpha=0.8)
    lz = brute_force_log_Z(post)
    rng = np.random.default_rng(13)
    for _ in range(2):
        m, C = random_q(rng, 0.2)
        kl = post.kl(m, C)
        assert kl == pytest.approx(brute_force_kl(post, m, C, lz), abs=1e-6)
        assert kl >= 0
        assert post.kl(-m, C) == pytest.approx(kl, abs=1e-10)


def log_joint_scipy(post, W):
    """ln P(D, w) = Σ ln N(t_n | v σ(u x_n), 1/β) + ln N(u | 0, 1/α) + ln N(v | 0, 1/α), by scipy.stats."""
    u, v = W[..., 0], W[..., 1]
    f = v[..., None] * (2 * stats.norm.cdf(u[..., None] * post.x) - 1)
    prior_sd = 1 / np.sqrt(post.alpha)
    return (np.sum(stats.norm.logpdf(post.t, f, 1 / np.sqrt(post.beta)), axis=-1)
            + stats.norm.logpdf(u, 0, prior_sd) + stats.norm.logpdf(v, 0, prior_sd))


def test_bound_and_kl_match_independent_quadrature_of_eqs_15_and_16():
    """F[Q] = ∫ Q ln(P(D, w)/Q) (15) by 2-D Simpson in Q's whitened coordinates with scipy densities;
    ln P(D) = ln Z + the scipy constant; then KL = ln P(D) − F (16) and F ≤ ln P(D) from those
    (ln Z itself is checked against dblquad above)."""
    post = make_post(seed=7)
    m, C = random_q(np.random.default_rng(14))
    L = np.linalg.cholesky(C)
    z = np.linspace(-9, 9, 601)
    Z = np.stack(np.meshgrid(z, z, indexing="ij"), axis=-1)
    log_q = stats.multivariate_normal(m, C).logpdf(m + Z @ L.T)
    phi = np.exp(-0.5 * np.sum(Z * Z, axis=-1)) / (2 * np.pi)
    F = integrate.simpson(integrate.simpson(phi * (log_joint_scipy(post, m + Z @ L.T) - log_q), x=z), x=z)
    # ln P(D) = ln Z + (ln P(D, w) − ln p̃(w)), a constant: taken from scipy at one w
    w0 = np.array([0.3, -0.7])
    log_ev = post.log_Z + log_joint_scipy(post, w0) - float(post.log_unnorm(w0))
    assert post.bound(m, C) == pytest.approx(F, abs=1e-8)
    assert post.log_evidence == pytest.approx(log_ev, abs=1e-10)
    assert post.kl(m, C) == pytest.approx(log_ev - F, abs=1e-8)
    assert F <= log_ev


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": np.inf}, "alpha"),
        ({"beta": 0.0}, "beta"),
        ({"beta": np.nan}, "beta"),
        ({"x": []}, "x"),
        ({"t": [1.0, 2.0]}, "same length"),
        ({"x": [0.1, np.nan, 0.3]}, "x"),
        ({"t": [0.1, np.inf, 0.3]}, "t"),
        ({"x": [[0.1, 0.2, 0.3]]}, "x"),
        ({"n_quad": 3}, "n_quad"),
    ],
)
def test_bad_input_gives_clear_value_error(kwargs, match):
    args = {"x": [0.1, 0.2, 0.3], "t": [0.0, 0.1, 0.2], "alpha": 1.0, "beta": 10.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ToyPosterior(**args)


def test_bad_gaussian_for_kl_is_refused():
    post = make_post()
    with pytest.raises(ValueError, match="positive definite"):
        post.kl([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="mean"):
        post.kl([0.0, 0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="finite"):
        post.kl([np.nan, 0.0], np.eye(2))


def test_toy_data_arguments_are_checked():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n"):
        toy_data(rng, n=0)
    with pytest.raises(ValueError, match="noise_sd"):
        toy_data(rng, noise_sd=-0.1)
    with pytest.raises(ValueError, match="rng"):
        toy_data(0)


# -- large targets: the limit on β Σt² (issue 31) ----------------------------------------------

def _scaled_preset(alpha, beta, beta_t):
    """The paper preset's data with t scaled so that β Σt² = ``beta_t``."""
    from ensemble_lib import PAPER_PRESET, make_posterior

    base = make_posterior(**PAPER_PRESET)
    return ToyPosterior(base.x, base.t * math.sqrt(beta_t / (beta * float(base.t @ base.t))), alpha, beta)


@pytest.mark.parametrize("fraction", [1e-3, 0.3, 0.999])
@pytest.mark.parametrize("alpha, beta", [(0.2, 100.0), (1.0, 1.0), (1.0, 1e4), (1e8, 1e8), (1e-3, 1e8)])
def test_targets_up_to_the_limit_give_the_two_mode_laplace_evidence_and_a_box_holding_the_modes(alpha, beta,
                                                                                                 fraction):
    """Up to β Σt² = BETA_T_MAX (t of size up to ~1e5 here) the exact ln Z stays right, and the plot box
    holds the posterior.

    Scaled-up targets make the posterior sharp, so its two symmetric modes are Gaussian and far
    apart: ln Z must equal Laplace's evidence at one mode plus ln 2 (an independent method: a mode
    search and a Hessian, no quadrature). Before the fix, t of size 1e4 failed ("zero-size
    array") where a peak of g was narrower than the plot window's grid, and t of size 1e10 with
    "max() arg is an empty sequence".
    """
    from ensemble_lib import laplace_fit
    from ensemble_lib.models.toy import BETA_T_MAX

    post = _scaled_preset(alpha, beta, fraction * BETA_T_MAX)
    lap = laplace_fit(post, compute_kl=False)
    assert math.isfinite(post.log_Z)
    assert post.log_evidence == pytest.approx(lap.log_evidence_laplace + math.log(2.0), abs=5e-3)
    box = post.extent()
    assert all(math.isfinite(b) for b in box)
    u, v = np.abs(lap.mean)
    assert u < box[1] and v < box[3], (box, lap.mean)  # the box holds the modes ...
    assert box[1] < 20.0 * u + 20.0 * math.sqrt(lap.cov[0, 0]) and box[3] < 20.0 * v + 20.0 * math.sqrt(lap.cov[1, 1])
    g = post.grid(n=41)  # ... and is not absurdly wide; the grid on it is finite
    assert np.all(np.isfinite(g.log_density))


@pytest.mark.parametrize("scale", [1.0 + 1e-9, 2.0, 1e5, 1e10])
def test_targets_beyond_the_limit_are_refused_naming_beta_and_t(scale):
    from ensemble_lib.models.toy import BETA_T_MAX

    with pytest.raises(ValueError, match=r"beta \* sum\(t\*\*2\) must be at most 1e\+11"):
        _scaled_preset(0.2, 100.0, scale * BETA_T_MAX)


def test_the_issue_example_targets_of_size_1e10_are_refused_by_name_and_raising_beta_past_the_limit_too():
    from ensemble_lib import PAPER_PRESET, make_posterior

    base = make_posterior(**PAPER_PRESET)
    with pytest.raises(ValueError, match=r"beta \* sum\(t\*\*2\) must be at most"):
        ToyPosterior(base.x, base.t * 1e10, 0.2, 100.0)
    post = _scaled_preset(0.2, 1.0, 1e10)  # β Σt² = 1e10: fine
    assert math.isfinite(post.log_Z)
    with pytest.raises(ValueError, match=r"beta \* sum\(t\*\*2\) must be at most"):
        post.with_hyperparameters(beta=100.0)
    assert post.with_hyperparameters(beta=9.0).beta == 9.0


def test_bounds_of_many_gaussians_are_each_ones_bound_and_none_where_q_is_improper():
    """ToyPosterior.bounds (one quadrature over every Gaussian's nodes) against bound() one at a
    time, over narrow and wide Gaussians (both rules of u_rule); an improper Q gets None where
    bound() raises."""
    post = make_post(seed=2)
    rng = np.random.default_rng(5)
    means, covs = [], []
    for scale in (1e-4, 1e-2, 0.3, 3.0, 30.0):
        for _ in range(4):
            L = np.tril(rng.normal(size=(2, 2))) * scale
            L[np.diag_indices(2)] = np.abs(L[np.diag_indices(2)]) + 1e-3 * scale
            means.append(rng.normal(size=2) * 2)
            covs.append(L @ L.T)
    bad = [(np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]])), (np.zeros(2), -np.eye(2)),
           (np.array([np.nan, 0.0]), np.eye(2)), (np.zeros(2), np.array([[1.0, 0.5], [0.4, 1.0]])),
           (np.zeros(2), np.array([[np.inf, 0.0], [0.0, 1.0]]))]
    for m, c in bad:
        with pytest.raises(ValueError):
            post.bound(m, c)
    got = post.bounds(means + [m for m, _ in bad], covs + [c for _, c in bad])
    assert got[len(means):] == [None] * len(bad)
    np.testing.assert_allclose(got[:len(means)], [post.bound(m, c) for m, c in zip(means, covs)],
                               rtol=1e-12, atol=1e-10)
    assert post.bounds(np.empty((0, 2)), np.empty((0, 2, 2))) == []
    with pytest.raises(ValueError, match="means and covs must hold as many Gaussians"):
        post.bounds(means[:2], covs[:3])
