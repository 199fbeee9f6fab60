"""The toy's KL objective in closed form (inference/toy_objective.py) against independent paths.

``toy_kl_objective`` writes ⟨βE_D + (α/2)‖w‖²⟩_Q − H[Q] through the law of v given u (ℓ, κ, V) and
maps each family's parameters to them directly. Checked here against the general path it replaces
(the model's ``expected_energy``, B&B (18)'s entropy from a Cholesky factor, the family's chain
rule) and against central differences of its own value, for narrow Q (Gauss–Hermite rule) and
broad Q (the composite rule), in every family of the toy.
"""

import numpy as np
import pytest

from ensemble_lib.core.gaussian import CovarianceFamily, GaussianFactor
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.toy_objective import applies, toy_kl_objective
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

FAMILIES = [("diagonal", None), ("full", None), ("factor", 1), ("factor", 0)]


def general_objective(post, fam, theta):
    """The model's expected energy minus the entropy, chained to ``theta`` by the family (B&B (16)–(20))."""
    mean, cov = fam.unpack(theta)
    factor = GaussianFactor(cov, "cov")
    e = post.expected_energy(mean, cov)
    return e.value - factor.entropy(), fam.chain(theta, e.d_mean, e.d_cov - 0.5 * factor.inverse())


def thetas(fam, rng):
    """Parameters of narrow Gaussians near a mode, broad ones over both modes, and skewed ones."""
    out = []
    for scale in (0.05, 1.0, 3.0):
        th = rng.normal(size=fam.n_params) * scale
        th[2:4] += np.log(scale)  # log standard deviations (or the Cholesky diagonal of full)
        if fam.name == "full":
            th[4] = np.log(scale) + rng.normal()
            th[3] = rng.normal() * scale
        out.append(th)
    return out


@pytest.mark.parametrize("family,rank", FAMILIES)
@pytest.mark.parametrize("alpha,noise_sd", [(0.2, 0.1), (0.01, 1.0), (5.0, 0.02)])
def test_closed_form_equals_the_general_path(family, rank, alpha, noise_sd):
    post = make_posterior(seed=PAPER_PRESET["seed"], alpha=alpha, noise_sd=noise_sd)
    fam = CovarianceFamily.make(family, 2, rank)
    assert applies(post, fam)
    for theta in thetas(fam, np.random.default_rng(1)):
        f, g = toy_kl_objective(post, fam, theta)
        f0, g0 = general_objective(post, fam, theta)
        assert f == pytest.approx(f0, rel=1e-12, abs=1e-9)
        np.testing.assert_allclose(g, g0, rtol=1e-9, atol=1e-9 * max(1.0, np.max(np.abs(g0))))
        # kl_objective takes this path for the toy
        assert kl_objective(post, fam, theta)[0] == f


@pytest.mark.parametrize("family,rank", FAMILIES)
def test_closed_form_gradient_matches_central_differences(family, rank):
    post = make_posterior(**PAPER_PRESET)
    fam = CovarianceFamily.make(family, 2, rank)
    for theta in thetas(fam, np.random.default_rng(2)):
        _, g = toy_kl_objective(post, fam, theta)
        h = 1e-6
        num = np.array([(toy_kl_objective(post, fam, theta + h * e)[0]
                         - toy_kl_objective(post, fam, theta - h * e)[0]) / (2 * h)
                        for e in np.eye(theta.size)])
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-5 * max(1.0, np.max(np.abs(num))))


@pytest.mark.parametrize("family,rank", FAMILIES)
def test_an_improper_or_overflowing_q_gives_inf(family, rank):
    post = make_posterior(**PAPER_PRESET)
    fam = CovarianceFamily.make(family, 2, rank)
    theta = np.zeros(fam.n_params)
    theta[2] = 800.0  # a standard deviation of e^800
    f, g = toy_kl_objective(post, fam, theta)
    assert f == np.inf and np.all(g == 0)
    theta[2] = -800.0  # a standard deviation of e^-800: ln ℓ is -800, but ℓ underflows to 0
    assert toy_kl_objective(post, fam, theta)[0] == np.inf


@pytest.mark.parametrize("alpha,noise_sd", [(0.2, 0.1), (0.01, 1.0), (5.0, 0.02)])
def test_energy_terms_equal_the_models_log_posterior_gradient_and_hessian_bitwise(alpha, noise_sd):
    from ensemble_lib.inference.toy_objective import toy_energy_terms

    post = make_posterior(seed=PAPER_PRESET["seed"], alpha=alpha, noise_sd=noise_sd)
    for w in np.random.default_rng(3).normal(size=(6, 2)) * 2.0:
        value, grad, hess = toy_energy_terms(post, w)
        # to the last bit: the Laplace mode search's end game is decided at round-off
        assert value == -float(post.log_unnorm(w))
        assert np.array_equal(grad, -post.grad(w)) and np.array_equal(hess, -post.hessian(w))


@pytest.mark.parametrize("family,rank", [("diagonal", None), ("factor", 1), ("full", None)])
def test_the_benchmarks_plain_bfgs_reference_reaches_the_librarys_optimum(family, rank):
    """benchmarks/live_steps.py's reference (a 20 × 20 product rule over w, nothing of the 1-D
    reduction) ends at the KL of the library's fit: the two objectives and optima agree."""
    from benchmarks.live_steps import plain_bfgs_family, plain_bfgs_full

    from ensemble_lib.inference.kl_fit import kl_fit
    from ensemble_lib.inference.laplace import laplace_fit

    post = make_posterior(**PAPER_PRESET)
    start = laplace_fit(post, compute_kl=False).diagonal_start()
    ref = plain_bfgs_full(post, start) if family == "full" else plain_bfgs_family(post, start, family, rank)
    assert ref.success
    assert ref.fun == pytest.approx(kl_fit(post, family, rank).kl, abs=1e-8)


@pytest.mark.parametrize("family", ["diagonal", "full"])
@pytest.mark.parametrize("alpha,noise_sd", [(0.2, 0.1), (0.2, 0.5), (0.01, 1.0)])
def test_the_centred_fit_in_closed_form_is_stationary_for_the_general_objective(family, alpha, noise_sd):
    """toy_centred_fit (κ, V in closed form, a 1-D search in ln ℓ) ends where the general path's
    gradient vanishes in every parameter — the covariance's and, by the symmetry w → −w, the mean's —
    and where a BFGS over the covariance parameters of the general objective ends."""
    from scipy import optimize

    from ensemble_lib.inference.toy_objective import toy_centred_fit

    post = make_posterior(seed=PAPER_PRESET["seed"], alpha=alpha, noise_sd=noise_sd)
    fam = CovarianceFamily.make(family, 2)
    start = np.diag([4.0, 9.0])
    mean, cov = toy_centred_fit(post, fam, start)
    assert np.all(mean == 0.0)
    theta = fam.pack(mean, cov)
    _, g = general_objective(post, fam, theta)
    assert np.max(np.abs(g)) < 1e-6

    def cov_only(c):
        f, gc = general_objective(post, fam, np.concatenate([np.zeros(2), c]))
        return f, gc[2:]

    res = optimize.minimize(cov_only, fam.pack(np.zeros(2), start)[2:], jac=True, method="BFGS",
                            options={"gtol": 1e-10})
    np.testing.assert_allclose(fam.unpack(np.concatenate([np.zeros(2), res.x]))[1], cov, rtol=1e-5)
