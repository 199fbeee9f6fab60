"""Tests of :func:`log_alpha_posterior`: the exact p(ln α | D, β) of a linear model beside MacKay's (25).

References independent of the library: the marginal ln N(t | 0, ΦΦᵀ/α + I/β) from scipy.stats
(no eigenvalues, no Cholesky of A), its central differences in ln α, and scipy's adaptive
``quad`` for the moments; MacKay's own fixed point (22)–(24) for the mode.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.inference.evidence import evidence_reestimation
from ensemble_lib.inference.model_evidence import log_alpha_posterior

LOG_LIMIT = math.log(1e8)


def _bumps(N, amp, noise, n_basis, width, seed=9):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 1.0, N))
    t = amp * np.sin(2 * np.pi * x) + noise * rng.normal(size=N)
    c = np.linspace(0.0, 1.0, n_basis)
    return np.exp(-0.5 * ((x[:, None] - c[None, :]) / width) ** 2), t


#: γ small (2 basis functions, 20 noisy points) and γ large (30 narrow ones, 200 points)
SMALL = dict(N=20, amp=1.0, noise=0.3, n_basis=2, width=0.4)
LARGE = dict(N=200, amp=1.0, noise=0.2, n_basis=30, width=0.05)


def _marginal(Phi, t, log_alpha, beta):
    cov = Phi @ Phi.T / math.exp(log_alpha) + np.eye(len(t)) / beta
    return float(stats.multivariate_normal(np.zeros(len(t)), cov).logpdf(t))


def _at_optimum(case):
    Phi, t = _bumps(**case)
    mk = evidence_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 10.0), tol=1e-12, max_iter=5000)
    assert mk.converged
    return Phi, t, mk, log_alpha_posterior(LinearGaussianPosterior(Phi, t, mk.alpha_final, mk.beta_final))


@pytest.fixture(scope="module", params=[SMALL, LARGE], ids=["gamma-small", "gamma-large"])
def case(request):
    return _at_optimum(request.param)


def test_mode_is_mackays_alpha_and_gamma_is_his(case):
    """At β = β_MP the conditional maximum over ln α is the joint one, α_MP of (22)–(24)."""
    _, _, mk, r = case
    assert r.mode == pytest.approx(math.log(mk.alpha_final), abs=1e-6)
    assert r.gamma == pytest.approx(mk.gamma_final, rel=1e-6)
    assert r.mackay_sd == pytest.approx(mk.log_alpha_error, rel=1e-6)


def test_density_is_the_normalised_scipy_marginal(case):
    Phi, t, mk, r = case
    idx = np.searchsorted(r.log_alpha, r.mode) + np.array([-400, -40, 0, 40, 400])
    ref = np.array([_marginal(Phi, t, r.log_alpha[i], mk.beta_final) for i in idx])
    np.testing.assert_allclose(np.log(r.density[idx]) - np.log(r.density[idx[2]]), ref - ref[2], atol=1e-7)
    assert np.trapezoid(r.density, r.log_alpha) == pytest.approx(1.0, abs=1e-12)


def test_curvature_width_matches_central_differences_of_the_marginal(case):
    Phi, t, mk, r = case
    h = 1e-3
    f = [_marginal(Phi, t, r.mode + s * h, mk.beta_final) for s in (-1, 0, 1)]
    curv = (f[0] - 2 * f[1] + f[2]) / h**2
    assert r.curvature_sd == pytest.approx(1.0 / math.sqrt(-curv), rel=1e-4)


def test_moments_match_adaptive_quadrature_over_the_flat_prior(case):
    """Over ln α ∈ [mode − 16, ln 1e8] (below it scipy's dense ΦΦᵀ/α + I/β is too ill-conditioned to
    factor): the library on the same range against scipy's ``quad`` of the scipy marginal."""
    Phi, t, mk, r0 = case
    lo = max(-LOG_LIMIT, r0.mode - 16.0)
    r = log_alpha_posterior(LinearGaussianPosterior(Phi, t, mk.alpha_final, mk.beta_final),
                            log_alpha_range=(lo, LOG_LIMIT), n_grid=20001)
    top = _marginal(Phi, t, r.mode, mk.beta_final)

    def p(a):
        return math.exp(_marginal(Phi, t, a, mk.beta_final) - top)

    pts = [r.mode + s for s in (-3, -1, 0, 1, 3)]
    kw = dict(points=pts, limit=400, epsabs=1e-13, epsrel=1e-10)
    z = integrate.quad(p, lo, LOG_LIMIT, **kw)[0]
    m = integrate.quad(lambda a: a * p(a), lo, LOG_LIMIT, **kw)[0] / z
    v = integrate.quad(lambda a: (a - m) ** 2 * p(a), lo, LOG_LIMIT, **kw)[0] / z
    assert r.mean == pytest.approx(m, abs=1e-4)
    assert r.sd == pytest.approx(math.sqrt(v), rel=1e-4)
    # and the default range (all of [ln 1e-8, ln 1e8]) changes the s.d. by less than 1e-3
    assert r0.sd == pytest.approx(r.sd, rel=1e-3)


def test_eq25_is_close_when_gamma_is_large_and_too_narrow_when_gamma_is_small():
    """MacKay: the Gaussian over ln α "holds good for γ ≫ 1". Large γ (≈ 15): √(2/γ) within 10 % of the
    exact posterior s.d.; small γ (≈ 1.8): more than 30 % too narrow (the exact posterior is skewed,
    with the evidence of the no-weights model as a plateau towards large α)."""
    *_, small = _at_optimum(SMALL)
    *_, large = _at_optimum(LARGE)
    assert small.gamma < 2 < 10 < large.gamma
    assert abs(large.mackay_sd / large.sd - 1) < 0.1
    assert small.mackay_sd / small.sd < 0.7
    assert abs(large.mean - large.mode) < 0.1 < abs(small.mean - small.mode)


@pytest.mark.parametrize("kwargs, match", [
    ({"log_alpha_range": (2.0, 1.0)}, "log_alpha_range must satisfy"),
    ({"log_alpha_range": (-30.0, 1.0)}, "log_alpha_range must satisfy"),
    ({"log_alpha_range": None}, "log_alpha_range must be a pair"),
    ({"n_grid": 100}, "n_grid must be an integer"),
])
def test_bad_arguments_are_rejected_by_name(kwargs, match):
    Phi, t = _bumps(**SMALL)
    with pytest.raises(ValueError, match=match):
        log_alpha_posterior(LinearGaussianPosterior(Phi, t, 1.0, 1.0), **kwargs)


def test_a_nonlinear_posterior_is_rejected():
    from ensemble_lib import ToyPosterior, toy_data

    x, y = toy_data(np.random.default_rng(0))
    with pytest.raises(ValueError, match="post must be a LinearGaussianPosterior"):
        log_alpha_posterior(ToyPosterior(x, y, 1.0, 10.0))


@given(seed=st.integers(0, 10_000), N=st.integers(2, 30), k=st.integers(1, 6),
       log_beta=st.floats(-3.0, 5.0), lo=st.floats(-18.0, 0.0), span=st.floats(1.0, 30.0))
def test_a_proper_density_with_finite_moments_over_the_documented_domain(seed, N, k, log_beta, lo, span):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(N, k)) * np.exp(rng.uniform(-3, 1, size=k))
    t = Phi @ rng.normal(size=k) + rng.uniform(0.05, 1) * rng.normal(size=N)
    hi = min(lo + span, LOG_LIMIT)
    r = log_alpha_posterior(LinearGaussianPosterior(Phi, t, 1.0, math.exp(log_beta)), log_alpha_range=(lo, hi),
                            n_grid=1001)
    assert np.all(np.isfinite(r.density)) and np.all(r.density >= 0)
    assert np.trapezoid(r.density, r.log_alpha) == pytest.approx(1.0, abs=1e-9)
    assert lo <= r.mode <= hi and lo <= r.mean <= hi
    assert 0 < r.sd <= (hi - lo) / 2 + 1e-9
    assert 0 <= r.gamma <= k + 1e-9
    assert r.curvature_sd > 0 and r.mackay_sd > 0


@pytest.mark.parametrize("case, within", [(SMALL, 0.04), (LARGE, 0.01)], ids=["gamma-small", "gamma-large"])
def test_eq25_for_ln_beta_is_close_in_both_regimes(case, within):
    """The other half of MacKay (25), σ²_{ln β} ≈ 2/(N − γ), against the exact p(ln β | D, α_MP) (flat
    prior on ln β) by scipy's ``quad`` of the scipy marginal: N − γ is large in both regimes (18.2 and
    184.6), and (25) is within 4 % and 1 % of the exact s.d."""
    Phi, t = _bumps(**case)
    mk = evidence_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 10.0), tol=1e-12, max_iter=5000)
    la, b0 = math.log(mk.alpha_final), math.log(mk.beta_final)

    def logp(b):
        cov = Phi @ Phi.T / math.exp(la) + np.eye(len(t)) / math.exp(b)
        return float(stats.multivariate_normal(np.zeros(len(t)), cov).logpdf(t))

    top = logp(b0)
    kw = dict(points=[b0], limit=200, epsabs=1e-13, epsrel=1e-10)
    lo, hi = b0 - 6.0, b0 + 3.0  # the density is below 1e-12 of its peak at both ends (asserted below)
    z = integrate.quad(lambda b: math.exp(logp(b) - top), lo, hi, **kw)[0]
    m = integrate.quad(lambda b: b * math.exp(logp(b) - top), lo, hi, **kw)[0] / z
    v = integrate.quad(lambda b: (b - m) ** 2 * math.exp(logp(b) - top), lo, hi, **kw)[0] / z
    eq25 = math.sqrt(2.0 / (len(t) - mk.gamma_final))
    assert abs(eq25 / math.sqrt(v) - 1) < within
    assert math.exp(logp(lo) - top) < 1e-12 and math.exp(logp(hi) - top) < 1e-12
