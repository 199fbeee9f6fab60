"""GaussianFactor (one Cholesky for ln|M|, solves, inverse, entropy) and the shared Laplace start.

References: numpy.linalg (slogdet, solve, inv), scipy.stats.multivariate_normal's
entropy, and the formulas the factor replaced (slogdet/inv in the KL objective,
``diag(1/H_ii)`` at the Laplace mode), so that no printed number moves.
"""

import dataclasses

import numpy as np
import pytest
from scipy import stats

from ensemble_lib.inference import network_fits as nf
from ensemble_lib.inference.evidence import laplace_evidence
from ensemble_lib.core.gaussian import LOG_2PI, CovarianceFamily, GaussianFactor, gaussian_entropy
from ensemble_lib.inference.kl_fit import kl_fit, kl_objective
from ensemble_lib.inference.laplace import laplace_diagonal_start, laplace_fit
from ensemble_lib.inference.svi import default_start, scale_matrix
from ensemble_lib.models.linear import LinearGaussianPosterior
from ensemble_lib.models.network import NetworkPosterior
from ensemble_lib.models.toy import make_posterior

SIZES = [1, 2, 3, 5, 12]


def random_spd(rng, k, cond=1e3):
    """A random SPD matrix with eigenvalues spread log-uniformly over ``cond``."""
    Q, _ = np.linalg.qr(rng.standard_normal((k, k)))
    vals = np.exp(rng.uniform(0.0, np.log(cond), size=k)) * rng.uniform(0.1, 10.0)
    M = (Q * vals) @ Q.T
    return 0.5 * (M + M.T)


@pytest.mark.parametrize("k", SIZES)
@pytest.mark.parametrize("seed", [0, 1])
def test_factor_matches_numpy_and_scipy(k, seed):
    rng = np.random.default_rng(seed)
    M = random_spd(rng, k)
    f = GaussianFactor(M, "cov")
    assert f.dim == k
    np.testing.assert_allclose(f.L @ f.L.T, M, rtol=1e-12, atol=1e-12 * np.abs(M).max())
    sign, logdet = np.linalg.slogdet(M)
    assert sign == 1.0
    assert f.log_det == pytest.approx(logdet, rel=1e-12, abs=1e-12)
    b = rng.standard_normal(k)
    B = rng.standard_normal((k, 4))
    ref = np.linalg.solve(M, b)
    np.testing.assert_allclose(f.solve(b), ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(f.solve(B), np.linalg.solve(M, B), rtol=1e-9,
                               atol=1e-12 * np.abs(np.linalg.solve(M, B)).max())
    assert isinstance(f.quad(b), float)
    assert f.quad(b) == pytest.approx(float(b @ ref), rel=1e-10)
    np.testing.assert_allclose(f.quad(B), np.einsum("ij,ij->j", B, np.linalg.solve(M, B)), rtol=1e-10)
    z = f.whiten(b)
    assert float(z @ z) == pytest.approx(f.quad(b), rel=1e-12)
    inv = f.inverse()
    np.testing.assert_array_equal(inv, inv.T)  # exactly symmetric
    np.testing.assert_allclose(inv, np.linalg.inv(M), rtol=1e-9, atol=1e-12 * np.abs(inv).max())
    assert f.trace_solve(B[:, :k] if k <= 4 else np.eye(k)) == pytest.approx(
        float(np.trace(np.linalg.solve(M, B[:, :k] if k <= 4 else np.eye(k)))), rel=1e-10, abs=1e-12)
    scipy_entropy = stats.multivariate_normal(mean=np.zeros(k), cov=M).entropy()
    assert f.entropy() == pytest.approx(scipy_entropy, rel=1e-12, abs=1e-12)
    assert gaussian_entropy(M) == f.entropy()
    assert f.entropy() == 0.5 * f.log_det + 0.5 * k * (1.0 + LOG_2PI)


def test_factor_accepts_lists_and_a_scalar_variance():
    f = GaussianFactor([[4.0, 1.0], [1.0, 3.0]])
    assert f.log_det == pytest.approx(np.log(11.0), rel=1e-14)
    assert GaussianFactor(2.0, "var").log_det == pytest.approx(np.log(2.0), rel=1e-14)


@pytest.mark.parametrize("bad, what", [
    (np.ones((2, 3)), "square"),
    (np.ones((2, 2, 2)), "square"),
    (np.zeros((0, 0)), "square"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "finite"),
    (np.array([[np.inf, 0.0], [0.0, 1.0]]), "finite"),
    (np.array([[1.0, 0.0], [0.0, -1.0]]), "positive definite"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive definite"),
    (np.zeros((3, 3)), "positive definite"),
    (np.array([[2.0, 1.0], [0.0, 2.0]]), "symmetric"),
    ([["a", "b"], ["c", "d"]], "real"),
])
def test_bad_input_raises_value_error_naming_the_argument(bad, what):
    with pytest.raises(ValueError) as info:
        GaussianFactor(bad, "my_cov")
    assert type(info.value) is ValueError  # never numpy's LinAlgError (a ValueError subclass)
    assert "my_cov" in str(info.value) and what in str(info.value)


def test_kl_gaussians_and_pack_name_the_bad_covariance():
    from ensemble_lib.core.gaussian import kl_gaussians

    good, bad = np.eye(2), np.array([[1.0, 0.0], [0.0, -1.0]])
    with pytest.raises(ValueError, match="C1 must be positive definite") as info:
        kl_gaussians(np.zeros(2), good, np.zeros(2), bad)
    assert type(info.value) is ValueError
    with pytest.raises(ValueError, match="C0 must be finite"):
        kl_gaussians(np.zeros(2), np.full((2, 2), np.nan), np.zeros(2), good)
    with pytest.raises(ValueError, match="cov must be positive definite") as info:
        CovarianceFamily.make("full", 2).pack(np.zeros(2), bad)
    assert type(info.value) is ValueError


@pytest.mark.parametrize("family, rank", [("full", None), ("diagonal", None), ("factor", 1)])
def test_kl_objective_agrees_with_the_slogdet_and_inverse_it_replaced(family, rank):
    post = make_posterior(0)
    fam = CovarianceFamily.make(family, 2, rank)
    rng = np.random.default_rng(4)
    for _ in range(5):
        theta = fam.pack(rng.standard_normal(2), random_spd(rng, 2, cond=20.0) * 0.05)
        value, grad = kl_objective(post, fam, theta)
        mean, cov = fam.unpack(theta)
        e = post.expected_energy(mean, cov)
        _, logdet = np.linalg.slogdet(cov)
        ref_value = e.value - (0.5 * logdet + 0.5 * fam.dim * (1.0 + LOG_2PI))
        ref_grad = fam.chain(theta, e.d_mean, e.d_cov - 0.5 * np.linalg.inv(cov))
        assert value == pytest.approx(ref_value, rel=1e-12)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-12 * np.abs(ref_grad).max())


def test_kl_objective_is_infinite_where_q_is_not_a_proper_gaussian():
    fam = CovarianceFamily.make("diagonal", 2)
    value, grad = kl_objective(make_posterior(0), fam, np.array([0.0, 0.0, -400.0, 0.0]))
    assert value == np.inf and not np.any(grad)


@pytest.mark.parametrize("family, rank", [("full", None), ("factor", 2), ("diagonal", None)])
def test_kl_objective_of_a_network_agrees_with_slogdet_and_the_inverse(family, rank):
    """The general path (a network, k = 9): H[Q] and its gradient against slogdet and np.linalg.inv.

    The full family reads H[Q] off the log-diagonal of its factor L (no factorisation of C, no C⁻¹);
    the reference factors C afresh. Values to 1e-12 relative, gradients to 1e-10.
    """
    rng = np.random.default_rng(12)
    X = np.column_stack([rng.standard_normal((15, 2)), np.ones(15)])
    post = NetworkPosterior(X, rng.standard_normal(15), 2, alpha=1.0, beta=4.0)
    fam = CovarianceFamily.make(family, post.dim, rank)
    for _ in range(4):
        theta = fam.pack(0.7 * rng.standard_normal(post.dim), random_spd(rng, post.dim, cond=1e3) * 0.05)
        value, grad = kl_objective(post, fam, theta)
        mean, cov = fam.unpack(theta)
        e = post.expected_energy(mean, cov)
        _, logdet = np.linalg.slogdet(cov)
        ref_value = e.value - (0.5 * logdet + 0.5 * fam.dim * (1.0 + LOG_2PI))
        ref_grad = fam.chain(theta, e.d_mean, e.d_cov - 0.5 * np.linalg.inv(cov))
        assert value == pytest.approx(ref_value, rel=1e-12)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-10 * np.abs(ref_grad).max())


def test_kl_objective_of_a_network_is_infinite_where_the_full_q_underflows():
    """ln L_00 = −400: C_00 = L_00² underflows to 0, so C is not a proper Gaussian in floating point."""
    rng = np.random.default_rng(13)
    X = np.column_stack([rng.standard_normal((10, 1)), np.ones(10)])
    post = NetworkPosterior(X, rng.standard_normal(10), 1, alpha=1.0, beta=4.0)
    fam = CovarianceFamily.make("full", post.dim)
    theta = fam.pack(np.zeros(post.dim), 0.1 * np.eye(post.dim))
    assert np.isfinite(kl_objective(post, fam, theta)[0])
    theta[post.dim] = -400.0  # the first log-diagonal entry of L
    value, grad = kl_objective(post, fam, theta)
    assert value == np.inf and not np.any(grad)


def test_linear_model_shares_one_factor_of_its_precision():
    rng = np.random.default_rng(7)
    Phi = rng.standard_normal((25, 4))
    lin = LinearGaussianPosterior(Phi, Phi @ rng.standard_normal(4) + 0.1 * rng.standard_normal(25), 0.5, 30.0)
    A = lin.precision
    np.testing.assert_allclose(lin.cov, np.linalg.inv(A), rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(lin.cov, lin.cov.T)
    np.testing.assert_allclose(lin.mean, np.linalg.solve(A, lin.beta * Phi.T @ lin.t), rtol=1e-10)
    m = lin.mean
    phi_min = lin.beta * lin.data_error(m) + 0.5 * lin.alpha * float(m @ m)
    ref = -phi_min + 0.5 * lin.dim * LOG_2PI - 0.5 * np.linalg.slogdet(A)[1]
    assert lin.log_Z == pytest.approx(ref, rel=1e-12)
    assert lin.with_hyperparameters(alpha=2.0).precision_factor is not lin.precision_factor


def test_laplace_reuses_its_hessian_factor():
    post = make_posterior(0)
    lap = laplace_fit(post)
    assert lap.hessian_factor.matrix is lap.hessian
    assert lap.hessian_factor.log_det == pytest.approx(np.linalg.slogdet(lap.hessian)[1], rel=1e-12)
    np.testing.assert_allclose(lap.cov, np.linalg.inv(lap.hessian), rtol=1e-10)
    ref = (post.log_unnorm(lap.mean) + 0.5 * post.dim * LOG_2PI
           - 0.5 * np.linalg.slogdet(lap.hessian)[1] - post.log_normalisers)
    assert lap.log_evidence_laplace == pytest.approx(ref, rel=1e-12)
    # a replaced Hessian gets its own factor, never the stale one
    other = dataclasses.replace(lap, hessian=2.0 * lap.hessian)
    assert other.hessian_factor.log_det == pytest.approx(lap.hessian_factor.log_det + 2 * np.log(2.0))


# ---------------------------------------------------------------------------
# The shared start: the Laplace mode with variances 1/H_ii
# ---------------------------------------------------------------------------


def test_laplace_diagonal_start_is_the_mode_with_variances_one_over_h_ii():
    rng = np.random.default_rng(3)
    H = random_spd(rng, 4, cond=50.0)
    m = rng.standard_normal(4)
    mean, cov = laplace_diagonal_start(m, H)
    np.testing.assert_array_equal(mean, m)
    np.testing.assert_array_equal(cov, np.diag(1.0 / np.diag(H)))  # bit-identical to the old sites
    assert np.all(np.diag(cov) <= np.diag(np.linalg.inv(H)) * (1 + 1e-12))  # never wider than Laplace


def test_every_site_uses_the_same_start():
    post = make_posterior(0)
    lap = laplace_fit(post, compute_kl=False)
    ref = (lap.mean, np.diag(1.0 / np.diag(lap.hessian)))
    for mean, cov in (lap.diagonal_start(), default_start(post, CovarianceFamily.make("full", 2))):
        np.testing.assert_array_equal(mean, ref[0])
        np.testing.assert_array_equal(cov, ref[1])
    st = laplace_evidence(post)
    mean, cov = st.diagonal_start()
    np.testing.assert_array_equal(cov, np.diag(1.0 / np.diag(st.hessian)))
    # kl_fit's default start is this one (its result is unchanged by passing it explicitly)
    a = kl_fit(post, "diagonal", symmetric=False)
    b = kl_fit(post, "diagonal", init=[lap.diagonal_start()], symmetric=False)
    np.testing.assert_array_equal(a.theta, b.theta)


@pytest.mark.parametrize("mean, hessian, match", [
    (np.zeros(2), np.eye(3), "shape"),
    (np.zeros(2), np.array([[1.0, 0.0], [0.0, 0.0]]), "positive"),
    (np.zeros(2), np.array([[1.0, 0.0], [0.0, -2.0]]), "positive"),
    (np.zeros(2), np.array([[1.0, 0.0], [0.0, np.nan]]), "finite"),
])
def test_laplace_diagonal_start_rejects_bad_input(mean, hessian, match):
    with pytest.raises(ValueError, match=match):
        laplace_diagonal_start(mean, hessian)


# ---------------------------------------------------------------------------
# The family's own factor L, and the random factors of a warm start
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("family, rank", [("full", None), ("diagonal", None), ("factor", 2)])
def test_family_lower_factor_reproduces_its_covariance(family, rank):
    fam = CovarianceFamily.make(family, 4, rank)
    rng = np.random.default_rng(5)
    theta = fam.pack(rng.standard_normal(4), random_spd(rng, 4, cond=10.0))
    L = fam.lower(theta)
    np.testing.assert_array_equal(L, np.tril(L))
    np.testing.assert_allclose(L @ L.T, fam.unpack(theta)[1], rtol=1e-12, atol=1e-14)
    if family != "factor":
        np.testing.assert_array_equal(scale_matrix(fam, theta), L)


def test_warm_start_draws_its_extra_factors_from_the_given_rng():
    rng = np.random.default_rng(8)
    Phi = rng.standard_normal((30, 3))
    lin = LinearGaussianPosterior(Phi, Phi @ np.array([1.0, -1.0, 0.5]) + 0.2 * rng.standard_normal(30),
                                  1.0, 20.0)
    diag = kl_fit(lin, "diagonal", init=[(np.zeros(3), np.eye(3))])
    fam = CovarianceFamily.make("factor", 3, 2)
    a = nf._embed(diag, fam, np.random.default_rng(0))
    np.testing.assert_array_equal(a, nf._embed(diag, fam, np.random.default_rng(0)))
    assert not np.array_equal(a, nf._embed(diag, fam, np.random.default_rng(1)))
    np.testing.assert_array_equal(a[:6], diag.theta)  # w̄ and ln d kept exactly
    # no hidden default: a warm start needs the caller's generator, and the same seed gives the same fit
    with pytest.raises(ValueError, match="rng .* is required with warm"):
        nf.fit_family(lin, "factor", 2, warm=diag)
    f0 = nf.fit_family(lin, "factor", 2, warm=diag, rng=np.random.default_rng(0))
    f1 = nf.fit_family(lin, "factor", 2, warm=diag, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(f0.theta, f1.theta)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        nf.fit_family(lin, "factor", 2, warm=diag, rng=0)
