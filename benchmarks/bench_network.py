"""Benchmarks of the erf network's expected error and bound (Barber & Bishop 1998, §2.1).

One evaluation of the KL objective (bound F[Q] up to a constant) and its
exact gradient, ``kl_objective``, for the Boston Table-1 configuration
(N = 128, d = 13 inputs + bias, H = 4, k = 60, full covariance) on random
data of that size, and how the cost grows with N, H and d (hence k); plus a
full-covariance fit to convergence on a small problem. The
``expected_data_error_*`` cases time ⟨E_D⟩ with its gradient alone
(``NetworkPosterior.expected_data_error``) at N = 128, d = 14, H = 2, 4, 8:
the network moments that lesson 6's model-size study spends most of its time in
(before/after of their speed-up: results/network-moments-before-after-2026-11-24.md).
"""

from __future__ import annotations

import numpy as np

from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import kl_fit, kl_objective
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.models.network import NetworkPosterior, add_bias

from ._panels import panel_cases

#: the issue's target for one bound + gradient evaluation at the Boston size
BOSTON_TARGET_MS = 50.0


def _problem(N, n_inputs, H, family="full", rank=None, seed=0):
    rng = np.random.default_rng(seed)
    X = add_bias(rng.normal(size=(N, n_inputs)))
    t = rng.normal(size=N)
    post = NetworkPosterior(X, t, H, alpha=1.0, beta=10.0)
    k = post.dim
    mean = 0.3 * rng.normal(size=k)
    A = 0.3 * rng.normal(size=(k, k)) / np.sqrt(k)
    cov = A @ A.T + 0.01 * np.eye(k)
    fam = CovarianceFamily.make(family, k, rank)
    return post, fam, fam.pack(mean, cov)


def _objective_case(N, n_inputs, H, family="full", rank=None, target=None):
    def setup():
        return _problem(N, n_inputs, H, family, rank)

    def step(ctx):
        post, fam, theta = ctx
        kl_objective(post, fam, theta)

    return setup, step, target


def _expected_error_case(N, n_inputs, H):
    def setup():
        post, fam, theta = _problem(N, n_inputs, H)
        mean, cov = fam.unpack(theta)
        return post, mean, cov

    def step(ctx):
        post, mean, cov = ctx
        post.expected_data_error(mean, cov)

    return setup, step, None


def _small_fit_setup():
    rng = np.random.default_rng(11)
    x = np.linspace(-2, 2, 20)
    t = np.sin(1.3 * x) + 0.1 * rng.normal(size=x.size)
    post = NetworkPosterior(add_bias(x[:, None]), t, 2, alpha=1.0, beta=25.0)
    lap = laplace_fit(post, start=0.5 * rng.normal(size=post.dim), compute_kl=False)
    return post, [(lap.mean, lap.cov)]


def _small_fit_step(ctx):
    post, init = ctx
    kl_fit(post, "full", init=init)


CASES = {
    # the Boston Table-1 configuration
    "boston_bound_grad_full_N128_H4_k60": _objective_case(128, 13, 4, target=BOSTON_TARGET_MS),
    "boston_bound_grad_factor_s1": _objective_case(128, 13, 4, "factor", 1),
    "boston_bound_grad_diagonal": _objective_case(128, 13, 4, "diagonal"),
    # growth with N (H = 4, k = 60)
    "full_N32_H4_k60": _objective_case(32, 13, 4),
    "full_N512_H4_k60": _objective_case(512, 13, 4),
    # growth with H (N = 128, d = 14)
    "full_N128_H1_k15": _objective_case(128, 13, 1),
    "full_N128_H2_k30": _objective_case(128, 13, 2),
    "full_N128_H8_k120": _objective_case(128, 13, 8),
    # growth with d, hence k (N = 128, H = 4)
    "full_N128_H4_k24_d5": _objective_case(128, 4, 4),
    "full_N128_H4_k120_d29": _objective_case(128, 28, 4),
    # ⟨E_D⟩ and its gradient alone (N = 128, d = 14)
    "expected_data_error_N128_H2": _expected_error_case(128, 13, 2),
    "expected_data_error_N128_H4": _expected_error_case(128, 13, 4),
    "expected_data_error_N128_H8": _expected_error_case(128, 13, 8),
    # a full-covariance fit to convergence: N = 20, one input + bias, H = 2, k = 6
    "fit_full_small_N20_H2_k6": (_small_fit_setup, _small_fit_step, None),
    # one slider step of lesson 4's 1-D demo panel, compute and draw separately
    **panel_cases("Network1DPanel", "demo_panel_rank", "rank", [1, 2], 30.0),
}
