"""Laplace, diagonal and full Gaussians for MacKay's single neuron (MacKay (17)), and their predictives.

References: the exact grid posterior (itself checked against dblquad in test_classification.py),
scikit-learn's LogisticRegression (the MAP with C = 1/α, no intercept), and the fits' own
invariants (KL ≥ 0, F ≤ ln P(D), family order, warm = cold).
"""

import time
import warnings

import numpy as np
import pytest

from ensemble_lib import (LogisticPosterior, classification_data, fit_classification, gaussian_predictive,
                          predictive_maps)


def make_post(seed=0, n=10, alpha=1.0, input_sd=2.0, bias=None):
    w = (0.0, 2.0) if bias is None else (0.0, 2.0, 0.5)
    d = classification_data(np.random.default_rng(seed), n=n, input_sd=input_sd, w=w, bias=bias)
    return LogisticPosterior(d.x, d.t, alpha)


@pytest.mark.parametrize(("seed", "n", "alpha"), [(0, 10, 1.0), (2, 30, 0.1), (4, 5, 0.01), (3, 30, 10.0)])
def test_fits_are_ordered_and_bounded_by_the_exact_evidence(seed, n, alpha):
    post = make_post(seed, n, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fits = fit_classification(post)
    assert fits.full.converged and fits.diagonal.converged
    assert 0 <= fits.full.kl <= fits.diagonal.kl + 1e-9
    assert fits.full.kl <= fits.laplace.kl + 1e-9
    for name, bound in fits.bounds.items():
        assert bound <= fits.log_evidence + 1e-9, name
    # KL = ln P(D) − F, with ln P(D) from the grid and F from the 1-D integrals
    assert fits.full.kl == pytest.approx(fits.log_evidence - fits.full.bound, abs=1e-9)


@pytest.mark.parametrize(("seed", "n", "alpha"), [(0, 10, 1.0), (1, 3, 0.05), (2, 30, 0.1), (5, 30, 30.0)])
def test_laplace_underestimates_the_evidence_for_typical_data(seed, n, alpha):
    """Laplace's ln P(D) (MacKay (20)) lies below the exact one for these data sets (not always).

    The log likelihood's curvature σ(a)σ(−a) is largest at a = 0 and decays like e^{−|a|}: away
    from the mode, in the directions the data are sure about, the log posterior bends less than
    the quadratic fitted at the mode (the likelihood flattens, the posterior relaxes to the
    prior), so the posterior has more mass in its tails than N(w_MP, A⁻¹) — B&B's "Laplace
    underestimates the local posterior mass" (NIPS, Fig. 1). The gap grows as α falls. It is
    not a theorem: see :func:`test_laplace_overestimates_when_the_mode_is_far_out`.
    """
    post = make_post(seed, n, alpha)
    fits = fit_classification(post)
    gap = fits.log_evidence - fits.log_evidence_laplace
    assert gap > 0
    assert gap == pytest.approx(post.log_evidence - fits.laplace.log_evidence_laplace)


def test_laplace_overestimates_when_the_mode_is_far_out():
    """The sign flips when the data nearly separate and α is small (found by the fuzz).

    x = ((0, ¼), (0, −1)), t = (0, 1), α = 0.01: the mode lies far out (w₂ ≈ −5.5) where the
    curvature σ(a)σ(−a) is small; towards the origin it grows (|a| falls), so the posterior is
    cut off on that side faster than Laplace's Gaussian, which then holds too much mass: Laplace
    overestimates ln P(D) by 0.089 nats (the exact value checked here by 1-D quad: w₁ is
    untouched by the data, its factor exactly Gaussian).
    """
    import math

    from scipy import integrate

    x, t, alpha = np.array([[0.0, 0.25], [0.0, -1.0]]), np.array([0.0, 1.0]), 0.01
    post = LogisticPosterior(x, t, alpha)
    f = lambda w: math.exp(-np.logaddexp(0, 0.25 * w) - np.logaddexp(0, w) - 0.5 * alpha * w * w)  # noqa: E731
    one_d = integrate.quad(f, -200, 200, points=[-20, -5, 0], epsabs=0, epsrel=1e-12, limit=500)[0]
    exact = math.log(one_d) + 0.5 * math.log(2 * math.pi / alpha) - post.log_normalisers
    assert post.log_evidence == pytest.approx(exact, abs=1e-9)
    fits = fit_classification(post)
    assert fits.log_evidence_laplace - fits.log_evidence == pytest.approx(0.0891, abs=5e-4)


def test_map_matches_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    post = make_post(2, 30, 0.5)
    lr = LogisticRegression(C=1 / post.alpha, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(post.x, post.t)
    np.testing.assert_allclose(post.mode, lr.coef_.ravel(), rtol=1e-6, atol=1e-8)
    fits = fit_classification(post)
    np.testing.assert_allclose(fits.laplace.mean, lr.coef_.ravel(), rtol=1e-6, atol=1e-8)


def test_warm_start_gives_the_cold_fit_and_is_timed():
    post = make_post(5, 30, 1.0)
    post.log_Z  # noqa: B018  (the grid, once per data set and α)
    cold = fit_classification(post)
    nearby = post.with_hyperparameters(alpha=1.1)
    nearby.log_Z  # noqa: B018
    t0 = time.perf_counter()
    warm = fit_classification(nearby, warm=cold)
    elapsed = time.perf_counter() - t0
    ref = fit_classification(nearby)
    print(f"warm fit_classification, N = 30: {1e3 * elapsed:.0f} ms")
    for a, b in ((warm.full, ref.full), (warm.diagonal, ref.diagonal)):
        np.testing.assert_allclose(a.mean, b.mean, atol=1e-6)
        np.testing.assert_allclose(a.cov, b.cov, atol=1e-6)
        assert a.kl == pytest.approx(b.kl, abs=1e-9)


def test_predictive_maps_hold_every_field_and_moderation_pulls_towards_a_half():
    post = make_post(0, 10, 1.0)
    fits = fit_classification(post)
    x1 = np.linspace(-6, 6, 25)
    maps = predictive_maps(post, fits, x1, x1)
    for name in ("best_fit", "moderated", "laplace", "diagonal", "full", "exact"):
        field = getattr(maps, name)
        assert field.shape == (25, 25) and np.all((field >= 0) & (field <= 1)), name
    # the Bayesian outputs are nearer 1/2 than the best fit's (MacKay §5.4)
    assert np.all(np.abs(maps.laplace - 0.5) <= np.abs(maps.best_fit - 0.5) + 1e-12)
    # the full KL Gaussian's predictive is close to the exact one (a few hundredths at most)
    assert np.max(np.abs(maps.full - maps.exact)) < 0.03
    np.testing.assert_allclose(maps.full, gaussian_predictive(fits.full.mean, fits.full.cov,
                                                              np.column_stack([np.meshgrid(x1, x1)[0].ravel(),
                                                                               np.meshgrid(x1, x1)[1].ravel()])
                                                              ).reshape(25, 25))
    assert maps.levels == (0.1, 0.5, 0.9)


def test_neuron_with_a_bias_input_has_an_exact_three_dimensional_posterior():
    post = make_post(3, 12, 1.0, bias=1.0)
    fits = fit_classification(post)
    assert post.dim == 3 and 0 <= fits.full.kl <= fits.diagonal.kl + 1e-9
    assert fits.log_evidence > fits.log_evidence_laplace
    maps = predictive_maps(post, fits, np.linspace(-4, 4, 9), np.linspace(-4, 4, 9), bias=1.0)
    assert np.all(np.isfinite(maps.exact))
    with pytest.raises(ValueError, match="bias"):
        predictive_maps(post, fits, np.linspace(-4, 4, 9), np.linspace(-4, 4, 9))


def test_bad_fit_input_names_the_argument():
    post = make_post()
    with pytest.raises(ValueError, match="post"):
        fit_classification("posterior")
    with pytest.raises(ValueError, match="warm"):
        fit_classification(post, warm=3)
    with pytest.raises(ValueError, match="gtol"):
        fit_classification(post, gtol=-1.0)
