"""Tests of the cheap and cheerful re-estimation (MacKay 1995, "Probable networks", §9.1).

``α := k / Σw²``, ``β := N / 2E_D`` iterated with Laplace fits (:func:`cheap_reestimation`). The
reference is independent of the library: for a linear model w_MP depends on the ratio r = α/β
only (ridge regression, solved here by least squares on the augmented system [Φ; √r I] w = [t; 0]),
so the cheap fixed point solves the one equation ``ln r = ln(k ‖Φw − t‖²) − ln(N ‖w‖²)`` in ln r,
found here by a sign scan and ``brentq``; where the equation has no root, the iteration must go
singular (α to the limit) and say why.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.inference.evidence import cheap_reestimation, evidence_reestimation
from ensemble_lib.inference.reestimation import HyperparameterConvergenceWarning


def _rbf_model(n_far, N=30, amp=1.0, noise=0.2, seed=9, n_near=5, width=0.25):
    """Gaussian bumps: ``n_near`` over the data on [0, 1], ``n_far`` centred at 2, 2.5, … (no data there)."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 1.0, N))
    t = amp * np.sin(2 * np.pi * x) + noise * rng.normal(size=N)
    c = np.concatenate([np.linspace(0.0, 1.0, n_near), 2.0 + 0.5 * np.arange(n_far)])
    return np.exp(-0.5 * ((x[:, None] - c[None, :]) / width) ** 2), t


def _ridge(Phi, t, r):
    """w_MP at α/β = r by least squares on [Φ; √r I] w = [t; 0] (no normal equations, no Cholesky)."""
    k = Phi.shape[1]
    X = np.vstack([Phi, math.sqrt(r) * np.eye(k)])
    y = np.concatenate([t, np.zeros(k)])
    return np.linalg.lstsq(X, y, rcond=None)[0]


def _cheap_equation(Phi, t, log_r):
    """h(ln r) = ln r − ln(k ‖Φw − t‖²) + ln(N ‖w‖²): zero at a cheap fixed point (α = r β)."""
    N, k = Phi.shape
    w = _ridge(Phi, t, math.exp(log_r))
    res = Phi @ w - t
    return log_r - math.log(k * float(res @ res)) + math.log(N * float(w @ w))


def _cheap_roots(Phi, t, lo=-15.0, hi=15.0, n=301):
    grid = np.linspace(lo, hi, n)
    h = np.array([_cheap_equation(Phi, t, g) for g in grid])
    roots = []
    for i in np.flatnonzero(np.sign(h[:-1]) != np.sign(h[1:])):
        roots.append(optimize.brentq(lambda g: _cheap_equation(Phi, t, g), grid[i], grid[i + 1], xtol=1e-13))
    return roots


def _alpha_beta_at(Phi, t, log_r):
    N, k = Phi.shape
    w = _ridge(Phi, t, math.exp(log_r))
    res = Phi @ w - t
    return k / float(w @ w), N / float(res @ res)


@pytest.mark.parametrize("n_far", [0, 4, 12])
def test_cheap_fixed_point_matches_the_root_of_the_closed_form_equation(n_far):
    Phi, t = _rbf_model(n_far)
    roots = _cheap_roots(Phi, t)
    assert roots, "this case has a cheap fixed point"
    run = cheap_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 10.0), tol=1e-12, max_iter=5000)
    assert run.converged and run.rule == "cheap"
    # the iteration lands on one of the roots (the one its start flows to), to 1e-7 in α and β (a step
    # below tol = 1e-12 leaves an error of tol/(1 − rate), and the contraction rate nears 1 as k grows)
    refs = [_alpha_beta_at(Phi, t, g) for g in roots]
    best = min(refs, key=lambda ab: abs(math.log(ab[0] / run.alpha_final)))
    assert run.alpha_final == pytest.approx(best[0], rel=1e-7)
    assert run.beta_final == pytest.approx(best[1], rel=1e-7)
    # and at it the two §9.1 equations hold on the library's own mode
    st_ = run.final
    assert st_.alpha * st_.sum_w2 == pytest.approx(Phi.shape[1], rel=1e-8)
    assert 2 * st_.beta * st_.data_error == pytest.approx(Phi.shape[0], rel=1e-8)


def test_cheap_agrees_with_mackay_when_every_parameter_is_well_determined():
    """γ ≈ k and N − γ ≈ N: the two rules coincide (here to 2 %), and the α mismatch is ≈ k/γ."""
    Phi, t = _rbf_model(0, N=400, noise=0.1)
    post = LinearGaussianPosterior(Phi, t, 1.0, 10.0)
    mk = evidence_reestimation(post, tol=1e-12)
    ch = cheap_reestimation(post, tol=1e-12)
    k, N = Phi.shape[1], Phi.shape[0]
    assert mk.gamma_final / k > 0.99
    assert ch.alpha_final == pytest.approx(mk.alpha_final, rel=0.02)
    assert ch.beta_final == pytest.approx(mk.beta_final, rel=0.02)
    assert ch.alpha_final / mk.alpha_final == pytest.approx(k / mk.gamma_final, rel=0.01)
    assert ch.beta_final / mk.beta_final == pytest.approx(N / (N - mk.gamma_final), rel=0.01)


def test_cheap_overestimates_alpha_by_at_least_k_over_gamma_with_poorly_determined_parameters():
    """Each basis function away from the data adds one poorly determined parameter (λ ≈ 0): MacKay's
    α, β and γ do not move, while the cheap α grows with k. Where the cheap ratio α/β is above MacKay's,
    Σw² is smaller there, so α_cheap = k/Σw²_cheap > (k/γ) α_MP: the overshoot exceeds k/γ."""
    ratios, ref = [], None
    for n_far in (0, 4, 8):
        Phi, t = _rbf_model(n_far)
        post = LinearGaussianPosterior(Phi, t, 1.0, 10.0)
        mk = evidence_reestimation(post, tol=1e-12)
        ch = cheap_reestimation(post, tol=1e-12)
        k = Phi.shape[1]
        ref = ref or (mk.alpha_final, mk.beta_final, mk.gamma_final)
        assert (mk.alpha_final, mk.beta_final, mk.gamma_final) == pytest.approx(ref, rel=1e-5)
        ratios.append(ch.alpha_final / mk.alpha_final)
        if ch.alpha_final / ch.beta_final > mk.alpha_final / mk.beta_final:  # then Σw² is smaller there
            assert ratios[-1] > k / mk.gamma_final
        if n_far:
            assert ch.alpha_final / ch.beta_final > mk.alpha_final / mk.beta_final
    assert ratios[0] == pytest.approx(5 / ref[2], rel=0.02)  # k − γ = 0.36: first order holds
    assert ratios[0] < ratios[1] < ratios[2]


def test_cheap_goes_singular_where_the_fixed_point_equation_has_no_root():
    Phi, t = _rbf_model(30)
    assert not _cheap_roots(Phi, t, lo=-18.0, hi=18.0, n=721), "no cheap fixed point in this case"
    post = LinearGaussianPosterior(Phi, t, 1.0, 10.0)
    with pytest.warns(HyperparameterConvergenceWarning, match="cheap rule"):
        run = cheap_reestimation(post, tol=1e-12, max_iter=5000)
    assert run.notes and not run.converged
    assert "alpha ran to infinity" in run.notes[0] and "poorly determined" in run.notes[0]
    assert np.all(np.diff(run.alpha) > 0), "α rises at every step: α' = α k/(α Σw²) with α Σw² < k"
    assert np.all(np.isfinite(run.alpha)) and np.all(np.isfinite(run.beta))
    mk = evidence_reestimation(post, tol=1e-12)  # the evidence maximum exists and is unaffected
    assert mk.converged and mk.alpha_final < 1e3


def test_cheap_leaves_mackays_run_unchanged():
    """The shared body: MacKay's rule is still (22)–(24) (γ and N − γ in the numerators)."""
    Phi, t = _rbf_model(3)
    mk = evidence_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 10.0), tol=1e-12)
    st_ = mk.final
    assert mk.rule == "mackay"
    assert st_.alpha * st_.sum_w2 == pytest.approx(st_.gamma, rel=1e-8)
    assert 2 * st_.beta * st_.data_error == pytest.approx(Phi.shape[0] - st_.gamma, rel=1e-8)


@pytest.mark.parametrize("kwargs, name", [
    ({"alpha0": -1.0}, "alpha0"), ({"beta0": math.nan}, "beta0"), ({"tol": 0.0}, "tol"),
    ({"max_iter": 0}, "max_iter"), ({"limits": (1.0, 0.1)}, "limits"), ({"start": [1.0]}, "start"),
    ({"exact": "yes"}, "exact"), ({"symmetry_factor": 0}, "symmetry_factor"),
])
def test_bad_arguments_are_rejected_by_name(kwargs, name):
    Phi, t = _rbf_model(0)
    with pytest.raises(ValueError, match=name):
        cheap_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 10.0), **kwargs)


def test_a_non_posterior_is_rejected():
    with pytest.raises(ValueError, match="post must be a posterior"):
        cheap_reestimation("not a posterior")


@given(seed=st.integers(0, 10_000), N=st.integers(3, 40), k=st.integers(1, 8),
       log_alpha0=st.floats(-4.0, 4.0), log_beta0=st.floats(-4.0, 4.0))
def test_cheap_either_reaches_its_fixed_point_or_stops_finite_and_explained(seed, N, k, log_alpha0, log_beta0):
    """Over the documented domain (any linear model, any start in the allowed range): a converged run
    satisfies α Σw² = k and 2βE_D = N; any other run has finite α, β and says why it stopped."""
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(N, k)) * np.exp(rng.uniform(-3, 1, size=k))
    t = Phi @ rng.normal(size=k) * rng.uniform(0, 2) + rng.uniform(0.05, 1) * rng.normal(size=N)
    post = LinearGaussianPosterior(Phi, t, 1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        run = cheap_reestimation(post, alpha0=math.exp(log_alpha0), beta0=math.exp(log_beta0), tol=1e-10,
                                 max_iter=3000, exact=False)
    assert np.all(np.isfinite(run.alpha)) and np.all(np.isfinite(run.beta)) and np.all(np.isfinite(run.gamma))
    assert np.all((run.gamma >= -1e-9) & (run.gamma <= k + 1e-9))
    if run.converged:
        st_ = run.final
        assert st_.alpha * st_.sum_w2 == pytest.approx(k, rel=1e-6)
        assert 2 * st_.beta * st_.data_error == pytest.approx(N, rel=1e-6)
    else:
        assert run.notes or run.n_iter == 3000
