"""The ensemble bound with one Gamma posterior per class (B&B §2.2 extended): ensemble_lib.inference.class_ensemble.

References: central differences of the multi-class bound, Barber & Bishop's one-class collapsed bound,
and an independent 2-D quadrature of ln P(D) with every α_c and β integrated out analytically (the
Gamma integrals written out here from B&B (27)–(28)).
"""

import math

import numpy as np
import pytest
from scipy import special

from ensemble_lib import GammaHyperprior, LinearGaussianPosterior, NetworkPosterior, add_bias, make_posterior
from ensemble_lib.inference.class_ensemble import ClassCollapsedBound, fit_class_ensemble
from ensemble_lib.inference.class_prior import network_classes
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.network_fits import CollapsedBound



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
