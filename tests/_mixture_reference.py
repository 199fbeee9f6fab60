"""Independent references the mixture tests share (tests/inference/test_mixture*.py).

ln Q from scipy.stats, adaptive cubature of −∫Q ln Q and of KL(Q‖P) (ln P written out from
B&B (4)–(6)), random mixtures, central differences; and the posteriors the tests fit.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special, stats

from ensemble_lib import kl_fit, make_posterior, PAPER_PRESET


def preset_posterior():
    """The lessons' preset toy posterior (B&B Fig. 2's data)."""
    return make_posterior(**PAPER_PRESET)


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------

def _log_q(W, weights, means, covs):
    """ln Q(w) by scipy.stats (points W of shape (n, 2))."""
    parts = [np.log(p) + stats.multivariate_normal(m, C).logpdf(W) for p, m, C in zip(weights, means, covs)]
    return special.logsumexp(np.stack(parts, axis=-1), axis=-1)


def _box(means, covs, reach=9.0):
    sd = np.sqrt(np.array([np.diag(C) for C in covs]))
    return np.min(means - reach * sd, axis=0), np.max(means + reach * sd, axis=0)


def cubature_entropy(weights, means, covs):
    """−∫Q ln Q over the (u, v) plane by adaptive cubature (Q's mass outside the box: < 1e-17)."""
    lo, hi = _box(means, covs)

    def f(W):
        lq = _log_q(W, weights, means, covs)
        return -np.exp(lq) * lq

    return integrate.cubature(f, lo, hi, rtol=0, atol=1e-11).estimate


def cubature_kl(post, weights, means, covs):
    """∫Q ln(Q/P) over the (u, v) plane, ln P from B&B (4)–(6) written out (not the library's E_D)."""
    lo, hi = _box(means, covs)
    x, t, beta, alpha, log_Z = post.x, post.t, post.beta, post.alpha, post.log_Z

    def f(W):
        u, v = W[:, 0:1], W[:, 1:2]
        r = v * special.erf(u * x / math.sqrt(2.0)) - t
        log_p = -0.5 * beta * np.sum(r * r, axis=1) - 0.5 * alpha * np.sum(W * W, axis=1) - log_Z
        lq = _log_q(W, weights, means, covs)
        return np.exp(lq) * (lq - log_p)

    return integrate.cubature(f, lo, hi, rtol=0, atol=1e-10).estimate


def random_mixture(rng, K, scale=1.0):
    weights = rng.dirichlet(np.ones(K))
    means = scale * rng.standard_normal((K, 2))
    A = scale * rng.standard_normal((K, 2, 2))
    covs = A @ np.swapaxes(A, 1, 2) + 0.02 * scale**2 * np.eye(2)
    return weights, means, covs


def central_difference(fun, theta, eps=1e-6):
    g = np.zeros_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = eps * max(1.0, abs(theta[i]))
        g[i] = (fun(theta + e) - fun(theta - e)) / (2 * e[i])
    return g


def network_and_single():
    """A 3-parameter network posterior (one hidden unit and a bias input) and its full-covariance fit."""
    import ensemble_lib as E

    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, 10)
    post = E.NetworkPosterior(E.add_bias(x[:, None]), np.sin(x) + 0.1 * rng.standard_normal(10), 1,
                              alpha=1.0, beta=100.0)
    single = kl_fit(post, "full", init=[(np.array([1.0, 0.1, 1.0]), 0.01 * np.eye(3))], symmetric=False)
    return post, single
