"""Stochastic VI (reparameterisation gradients + Adam) against the exact quadrature fit.

References used here, independent of the estimator: the toy's own ``post.grad``
(derived through A(u), B(u)) and central differences of ``log_unnorm``; the
exact objective gradient of :func:`kl_objective` (Gauss–Hermite quadrature of
eqs 16–20, itself checked against brute-force quadrature in test_kl_fit); the
deterministic optimum of :func:`kl_fit`; the closed-form Gaussian posterior
of a linear model (KL = 0 at the optimum, :func:`kl_gaussians`). Lesson 5 (its controls, panel
readout and figures): tests/lessons/test_stochastic_vi.py.
"""

import time

import numpy as np
import pytest

from ensemble_lib.core.gaussian import CovarianceFamily, kl_gaussians
from ensemble_lib.inference.kl_fit import kl_fit, kl_objective
from ensemble_lib.models.linear import LinearGaussianPosterior
from ensemble_lib.inference.svi import (grad_log_unnorm_batch, reparam_gradient, scale_matrix,
                                        step_sizes, svi_fit, toy_grad_batch)
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior


@pytest.fixture(scope="module")
def post():
    return make_posterior(**PAPER_PRESET)


@pytest.fixture(scope="module")
def optimum(post):
    return {fam: kl_fit(post, fam) for fam in ("full", "diagonal")}


def linear_posterior(seed=3, N=12, k=3):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(N, k))
    t = Phi @ np.array([0.5, -1.0, 0.3])[:k] + 0.3 * rng.normal(size=N)
    return LinearGaussianPosterior(Phi, t, alpha=1.0, beta=5.0)


# ---------------------------------------------------------------------------
# the building blocks
# ---------------------------------------------------------------------------

def test_batch_gradient_matches_post_grad_and_central_differences(post):
    rng = np.random.default_rng(0)
    W = np.concatenate([rng.normal(scale=[0.3, 1.5], size=(20, 2)), [[0.0, 0.0], [-0.23, -1.34]]])
    G = toy_grad_batch(post, W)
    h = 1e-6
    for w, g in zip(W, G):
        np.testing.assert_allclose(g, post.grad(w), rtol=1e-11, atol=1e-9)
        fd = [(post.log_unnorm(w + h * e) - post.log_unnorm(w - h * e)) / (2 * h) for e in np.eye(2)]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-4)
    # the generic path (one post.grad per row) on a non-toy model
    lin = linear_posterior()
    Wl = rng.normal(size=(5, 3))
    np.testing.assert_allclose(grad_log_unnorm_batch(lin, Wl), [lin.grad(w) for w in Wl])


@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_scale_matrix_reproduces_the_familys_covariance(family):
    rng = np.random.default_rng(1)
    for k in (1, 2, 4):
        fam = CovarianceFamily.make(family, k)
        theta = rng.normal(size=fam.n_params)
        L = scale_matrix(fam, theta)
        assert np.allclose(L, np.tril(L)) and np.all(np.diag(L) > 0)
        np.testing.assert_allclose(L @ L.T, fam.unpack(theta)[1], rtol=1e-13, atol=1e-14)


def test_decaying_schedule_is_robbins_monro():
    rho = step_sizes(0.05, "decaying", 100_001, tau=50.0, kappa=0.75)
    assert rho[0] == 0.05
    assert rho[50] == pytest.approx(0.05 / 2**0.75, rel=1e-14)
    assert np.all(np.diff(rho) < 0)
    # Σρ diverges (its increments over [T, 4T] grow with T), Σρ² converges (they shrink)
    c1, c2 = np.cumsum(rho), np.cumsum(rho**2)
    T = [1_500, 6_000, 24_000, 96_000]
    inc1 = np.diff(c1[T])
    inc2 = np.diff(c2[T])
    assert np.all(np.diff(inc1) > 0) and np.all(np.diff(inc2) < 0)
    assert np.all(step_sizes(0.05, "fixed", 10) == 0.05)


# ---------------------------------------------------------------------------
# unbiasedness: mean of the estimator over many draws = the exact gradient
# ---------------------------------------------------------------------------

def mc_gradient(target, fam, theta, S, M, seed):
    rng = np.random.default_rng(seed)
    draws = np.array([reparam_gradient(target, fam, theta, rng.standard_normal((S, fam.dim)))
                      for _ in range(M)])
    return draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(M), draws.var(axis=0, ddof=1)


@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_gradient_estimator_is_unbiased_on_the_toy(post, family):
    fam = CovarianceFamily.make(family, 2)
    # away from the optimum (the gradient is far from zero) and with a correlated C
    cov = np.array([[0.01, -0.02], [-0.02, 0.2]]) if family == "full" else np.diag([0.01, 0.2])
    theta = fam.pack(np.array([-0.3, -1.0]), cov)
    exact = kl_objective(post, fam, theta)[1]
    mean, se, _ = mc_gradient(post, fam, theta, S=4, M=10000, seed=11)
    z = (mean - exact) / se
    assert np.all(np.abs(z) < 4.0), (mean, exact, se)
    # the test has power: the entropy's contribution (−1 on each ln L_ii) is far above 4 s.e.
    log_diag = [2, 4] if family == "full" else [2, 3]
    assert np.all(4.0 * se[log_diag] < 0.7)


def test_sixteen_samples_divide_the_variance_by_sixteen(post):
    fam = CovarianceFamily.make("full", 2)
    theta = fam.pack(np.array([-0.25, -1.3]), np.array([[0.004, -0.015], [-0.015, 0.1]]))
    _, _, var1 = mc_gradient(post, fam, theta, S=1, M=4000, seed=5)
    mean16, se16, var16 = mc_gradient(post, fam, theta, S=16, M=1000, seed=6)
    np.testing.assert_allclose(var16, var1 / 16, rtol=0.35)
    exact = kl_objective(post, fam, theta)[1]
    assert np.all(np.abs(mean16 - exact) < 4.0 * se16)


def test_gradient_estimator_is_unbiased_on_a_gaussian_posterior():
    lin = linear_posterior()
    fam = CovarianceFamily.make("full", 3)
    theta = fam.pack(np.zeros(3), 0.5 * np.eye(3) + 0.1)
    exact = kl_objective(lin, fam, theta)[1]
    mean, se, _ = mc_gradient(lin, fam, theta, S=4, M=3000, seed=2)
    assert np.all(np.abs(mean - exact) < 4.0 * se)


# ---------------------------------------------------------------------------
# convergence
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_decaying_step_converges_to_the_quadrature_optimum(post, optimum, family):
    # from a start well away from the optimum (the default start is already close for "diagonal")
    h = svi_fit(post, family, rng=np.random.default_rng(0), n_samples=16, step_size=0.03,
                schedule="decaying", n_iter=3000, kl_every=50,
                init=(np.array([-0.5, -2.0]), np.diag([0.05, 0.5])))
    best = optimum[family]
    assert h.final_kl >= best.kl - 1e-7  # the quadrature fit is the minimum
    assert h.final_kl - best.kl < 0.05
    assert h.kl[0] - best.kl > 1.0  # it had somewhere to go
    # the record is the exact KL of the final Q
    assert h.final_kl == pytest.approx(post.kl(h.mean, h.cov), abs=1e-10)
    # the mean lies within a small fraction of Q's own spread of the optimum's
    d = np.linalg.solve(np.linalg.cholesky(best.cov), h.mean - best.mean)
    assert np.linalg.norm(d) < 0.6


def test_fixed_step_leaves_a_noise_floor_that_decay_removes(post, optimum):
    best = optimum["full"].kl
    kw = dict(n_samples=1, step_size=0.03, n_iter=3000, kl_every=20)
    fixed = [svi_fit(post, rng=np.random.default_rng(s), schedule="fixed", **kw).tail_kl(0.5) - best
             for s in (1, 2)]
    decay = [svi_fit(post, rng=np.random.default_rng(s), schedule="decaying", **kw).tail_kl(0.5) - best
             for s in (1, 2)]
    assert min(fixed) > 2 * max(decay)


def test_settling_tells_a_descending_run_from_one_jittering_about_a_level(post):
    """settling(): a trace still falling is not settled, iid noise about a level is; numbers by hand."""
    import dataclasses

    h = svi_fit(post, rng=np.random.default_rng(0), step_size=0.05, n_iter=1000, kl_every=10)
    rng = np.random.default_rng(11)
    flat = dataclasses.replace(h, kl=2.0 + 0.1 * rng.standard_normal(h.kl.size))
    falling = dataclasses.replace(h, kl=3.0 - 1e-3 * h.iterations + 0.1 * rng.standard_normal(h.kl.size))
    s_flat, s_falling = flat.settling(0.5), falling.settling(0.5)
    assert s_flat.settled and not s_falling.settled
    # the falling trace drops 0.25 nat per quarter (250 steps); its change is that within 3 s.e.
    assert abs(s_falling.change + 0.25) < 3 * s_falling.se
    # by hand: records 500..1000 (51), the first and last 25, five batch means of five records each
    y = falling.kl[falling.iterations >= 500]
    first, last = y[:25].reshape(5, 5).mean(axis=1), y[-25:].reshape(5, 5).mean(axis=1)
    assert s_falling.change == pytest.approx(last.mean() - first.mean(), abs=1e-12)
    assert s_falling.se == pytest.approx(np.sqrt(first.var(ddof=1) / 5 + last.var(ddof=1) / 5), abs=1e-12)
    with pytest.raises(ValueError, match="settling needs"):
        dataclasses.replace(h, iterations=h.iterations[::10], kl=h.kl[::10]).settling(0.5)


def test_converges_to_the_exact_gaussian_posterior():
    lin = linear_posterior()
    h = svi_fit(lin, "full", rng=np.random.default_rng(4), n_samples=16, step_size=0.03,
                schedule="decaying", n_iter=3000, kl_every=100,
                init=(np.zeros(3), np.eye(3)))
    # independent closed form: KL between the fitted Gaussian and the exact posterior
    kl_closed = kl_gaussians(h.mean, h.cov, lin.mean, lin.cov)
    assert h.final_kl == pytest.approx(kl_closed, abs=1e-9)
    assert h.kl[0] > 1.0 and kl_closed < 0.01


# ---------------------------------------------------------------------------
# determinism and bad input
# ---------------------------------------------------------------------------

def test_same_seed_same_run_different_seed_different_run(post):
    kw = dict(n_samples=4, step_size=0.02, schedule="decaying", n_iter=200, kl_every=20)
    a = svi_fit(post, rng=np.random.default_rng(7), **kw)
    b = svi_fit(post, rng=np.random.default_rng(7), **kw)
    c = svi_fit(post, rng=np.random.default_rng(8), **kw)
    np.testing.assert_array_equal(a.thetas, b.thetas)
    np.testing.assert_array_equal(a.kl, b.kl)
    np.testing.assert_array_equal(a.iterations, np.arange(0, 201, 20))
    assert not np.array_equal(a.thetas[-1], c.thetas[-1])
    assert np.all(np.diff(a.time_s) >= 0)


class _WaitingPosterior(LinearGaussianPosterior):
    """A linear posterior whose gradient waits 2 ms first, as a computation does whose core another
    program has taken: the clock runs, this thread's CPU time does not."""

    def grad(self, w):
        time.sleep(0.002)
        return super().grad(w)


def test_time_s_is_the_runs_cpu_time_not_the_clocks():
    """``time_s`` counts the run's CPU time, not time spent waiting (a lesson run ahead in Voilà's
    pool, beside the other lessons, reports what it would alone)."""
    linear = linear_posterior()
    post = _WaitingPosterior(linear.Phi, linear.t, alpha=linear.alpha, beta=linear.beta)
    c0, w0 = time.thread_time(), time.perf_counter()
    h = svi_fit(post, rng=np.random.default_rng(0), n_samples=1, step_size=0.02, schedule="fixed",
                n_iter=100, kl_every=10)
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    assert wall >= 100 * 0.002 > 2 * cpu, (wall, cpu)  # the run waited, and spent little CPU
    assert 0 < h.time_s[-1] <= cpu, (h.time_s[-1], cpu, wall)
    assert np.all(np.diff(h.time_s) >= 0)


@pytest.mark.parametrize(
    "kwargs,name",
    [({"step_size": 0.0}, "step_size"), ({"step_size": -0.1}, "step_size"),
     ({"step_size": float("nan")}, "step_size"), ({"step_size": 2.0}, "step_size"),
     ({"n_samples": 0}, "n_samples"), ({"n_samples": 1.5}, "n_samples"),
     ({"n_iter": 0}, "n_iter"), ({"kl_every": 0}, "kl_every"),
     ({"schedule": "cosine"}, "schedule"), ({"family": "factor"}, "family"),
     ({"kappa": 0.5}, "kappa"), ({"kappa": 1.5}, "kappa"), ({"tau": 0.0}, "tau"),
     ({"rng": 0}, "rng"), ({"rng": None}, "rng"),
     ({"init": (np.zeros(2), -np.eye(2))}, "cov"), ({"init": (np.zeros(3), np.eye(3))}, "mean")],
)
def test_bad_input_is_refused_with_the_arguments_name(post, kwargs, name):
    args = {"rng": np.random.default_rng(0), "n_iter": 5}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        svi_fit(post, **args)


# ---------------------------------------------------------------------------
# The toy's fast loop (issue 30: the lesson-5 panel's step) against the plain estimator and Adam
# ---------------------------------------------------------------------------

def _plain_adam_run(post, family, seed, n_samples, step_size, schedule, n_iter, kl_every):
    """SVI written plainly: one draw call, one reparam_gradient and one array Adam update a step,
    the exact KL of each recorded iterate by post.kl (the loop before issue 30)."""
    from ensemble_lib.inference.svi import ADAM_BETA1, ADAM_BETA2, ADAM_EPS, step_sizes
    rng = np.random.default_rng(seed)
    fam = CovarianceFamily.make(family, 2)
    mean0, cov0 = np.array([-0.5, -2.0]), np.diag([0.05, 0.5])
    theta = fam.pack(mean0, np.diag(np.diag(cov0)) if family == "diagonal" else cov0)
    rho = step_sizes(step_size, schedule, n_iter, 200.0, 1.0)
    m1, m2, kls = np.zeros_like(theta), np.zeros_like(theta), [post.kl(*fam.unpack(theta))]
    for t in range(n_iter):
        g = reparam_gradient(post, fam, theta, rng.standard_normal((n_samples, 2)))
        m1 = ADAM_BETA1 * m1 + (1 - ADAM_BETA1) * g
        m2 = ADAM_BETA2 * m2 + (1 - ADAM_BETA2) * g * g
        theta = theta - rho[t] * (m1 / (1 - ADAM_BETA1 ** (t + 1))) / (np.sqrt(m2 / (1 - ADAM_BETA2 ** (t + 1)))
                                                                     + ADAM_EPS)
        if (t + 1) % kl_every == 0:
            kls.append(post.kl(*fam.unpack(theta)))
    return theta, np.array(kls)


@pytest.mark.parametrize("family", ["full", "diagonal"])
@pytest.mark.parametrize("n_samples", [1, 5])
def test_the_toys_fast_loop_is_the_plain_estimator_and_adam(post, family, n_samples):
    from ensemble_lib.inference.svi import svi_stream
    kw = dict(n_samples=n_samples, step_size=0.05, schedule="decaying", n_iter=300)
    theta, kls = _plain_adam_run(post, family, 7, kl_every=10, **kw)
    h = svi_fit(post, family, rng=np.random.default_rng(7), tau=200.0, kappa=1.0, kl_every=10,
                init=(np.array([-0.5, -2.0]), np.diag([0.05, 0.5])), **kw)
    np.testing.assert_allclose(h.thetas[-1], theta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(h.kl, kls, rtol=1e-9, atol=1e-11)
    # streamed in stretches: the same draws, the same run
    hs = list(svi_stream(post, family, rng=np.random.default_rng(7), tau=200.0, kappa=1.0, kl_every=10,
                         init=(np.array([-0.5, -2.0]), np.diag([0.05, 0.5])), yield_every=100, **kw))
    assert [x.n_iter for x in hs] == [100, 200, 300]
    np.testing.assert_array_equal(hs[-1].kl, h.kl)
    np.testing.assert_array_equal(hs[0].kl, h.kl[:11])


@pytest.mark.parametrize("family", ["full", "diagonal"])
def test_the_toys_gradient_is_reparam_gradients_for_one_and_many_draws(post, family):
    from ensemble_lib.inference.svi import _toy_gradient_fn
    fam = CovarianceFamily.make(family, 2)
    grad = _toy_gradient_fn(post, fam)
    rng = np.random.default_rng(11)
    for _ in range(20):
        theta = rng.normal(size=fam.n_params) * 0.7
        eps = rng.standard_normal((1, 2))
        want = reparam_gradient(post, fam, theta, eps)
        np.testing.assert_allclose(grad(theta.tolist(), eps.tolist()), want, rtol=1e-12, atol=1e-10)
        eps = rng.standard_normal((6, 2))
        np.testing.assert_allclose(grad(theta.tolist(), eps), reparam_gradient(post, fam, theta, eps),
                                   rtol=1e-12, atol=1e-10)


def test_a_run_whose_q_stops_being_proper_names_the_first_such_step(post, monkeypatch):
    """A gradient that pushes ln L_uu up by a (Adam's step on a constant gradient) makes C = L Lᵀ
    overflow once ln L_uu > ln √(max float) ≈ 354.9, i.e. after about 357 steps from the start's
    ln √0.05: the first recorded iterate past it (step 360, records every 10) is named, although
    the run goes on to its end before the records' KL is computed."""
    from ensemble_lib.inference import svi
    monkeypatch.setattr(svi, "_toy_gradient_fn", lambda post, fam: lambda th, eps: [0.0, 0.0, -1.0, 0.0, 0.0])
    start = (np.array([-0.5, -2.0]), np.diag([0.05, 0.5]))
    first = int(np.ceil((0.5 * np.log(np.finfo(float).max) - 0.5 * np.log(0.05)) / 1.0))
    want = 10 * int(np.ceil(first / 10))
    with pytest.raises(RuntimeError, match=rf"SVI diverged at step {want} \(Q is no longer a proper Gaussian\)"):
        svi_fit(post, "full", rng=np.random.default_rng(0), step_size=1.0, schedule="fixed", n_iter=1000,
                init=start, kl_every=10)
