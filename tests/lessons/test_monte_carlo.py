"""Lesson 9 (Monte Carlo as an inference method): its helpers against independent answers, and the stored
runs against the exact posterior.

* the exact ⟨f(x*)⟩ (1-D quadrature) against a brute-force 2-D grid sum; the Gaussian one (Gauss–Hermite)
  against Monte Carlo from Q with its standard error;
* the leapfrog: second order (halving ε quarters the energy error) and time-reversible;
* the running estimate's standard error against the known error of independent draws; ArviZ's R̂ on
  chains that agree and chains that do not;
* the proofs at the lesson's settings, on the stored NUTS runs (``figures/monte_carlo_toy.npz``, re-derived
  by tests/studies/test_toy_hmc.py): KS tests of the folded draws' marginals against the exact grid, the
  estimate within its stated error of the exact value, and the stated standard errors of ten seeds against
  their spread (a χ² test);
* the panels' states and the cost table's arithmetic.
"""

import numpy as np
import pytest
from scipy import special, stats

pytest.importorskip("arviz")

from ensemble_lib.inference.toy_fits import fit_all  # noqa: E402
from ensemble_lib.lessons import monte_carlo as mc  # noqa: E402
from ensemble_lib.studies.toy_hmc import X_STAR, toy_posterior  # noqa: E402

P_MIN = 1e-3


@pytest.fixture(scope="module")
def post():
    return toy_posterior()


@pytest.fixture(scope="module")
def runs():
    return mc.toy_runs()


def test_exact_predictive_mean_matches_a_brute_force_grid_sum(post):
    for x_star in (0.5, X_STAR):
        g = post.grid(n=1601, extent=(-3.0, 3.0, -15.0, 15.0))
        f = g.v[:, None] * special.erf(g.u[None, :] * x_star / np.sqrt(2))
        mass = np.sum(g.density) * g.cell_area
        brute = np.sum(g.density * f) * g.cell_area / mass
        assert mc.exact_predictive_mean(post, x_star) == pytest.approx(brute, abs=2e-5)


def test_gaussian_predictive_mean_matches_monte_carlo_from_q():
    rng = np.random.default_rng(3)
    mean, cov = np.array([0.4, -1.2]), np.array([[0.09, -0.05], [-0.05, 0.4]])
    w = rng.multivariate_normal(mean, cov, size=400_000)
    f = w[:, 1] * special.erf(w[:, 0] * X_STAR / np.sqrt(2))
    se = f.std() / np.sqrt(f.size)
    assert abs(mc.gaussian_predictive_mean(mean, cov) - f.mean()) < 4 * se


def test_kl_fit_answer_is_biased_and_laplace_far_worse(runs, post):
    fits = fit_all(post)
    assert runs.kl_full == pytest.approx(mc.gaussian_predictive_mean(fits.full.mean, fits.full.cov))
    assert 0.005 < abs(runs.kl_full - runs.exact) < 0.05
    assert abs(runs.laplace - runs.exact) > 10 * abs(runs.kl_full - runs.exact)


def test_leapfrog_is_second_order_and_reversible(post):
    w0, p0 = np.array(mc.LEAP_START), np.array(mc.LEAP_MOMENTUM)
    errors = []
    for eps in (0.004, 0.002, 0.001):
        path, H = mc.leapfrog(post, w0, p0, eps, round(0.04 / eps))
        errors.append(abs(H[-1] - H[0]))
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.2)
    assert errors[1] / errors[2] == pytest.approx(4.0, rel=0.2)
    # run forward, flip the momentum, run back: the start again
    path, _ = mc.leapfrog(post, w0, p0, 0.002, 20)
    # the end momentum (leapfrog returns positions only), from the same half-step scheme
    wk, pk = w0.copy(), p0.copy()
    for _ in range(20):
        pk = pk + 0.001 * post.grad(wk)
        wk = wk + 0.002 * pk
        pk = pk + 0.001 * post.grad(wk)
    assert np.allclose(wk, path[-1])
    back, _ = mc.leapfrog(post, wk, -pk, 0.002, 20)
    assert np.allclose(back[-1], w0, atol=1e-9)


def test_leapfrog_too_large_a_step_leaves_the_posterior(post):
    path, H = mc.leapfrog(post, mc.LEAP_START, mc.LEAP_MOMENTUM, 0.1, 20)
    assert path.shape[0] < 21 or H[-1] - H[0] > 10


def test_fold_maps_mirror_draws_onto_each_other():
    w = np.array([[0.3, -1.0], [-0.3, 1.0], [0.0, 2.0]])
    f = mc.fold(w)
    assert np.allclose(f[0], f[1]) and np.all(f[:, 0] >= 0)


def test_running_estimate_states_the_error_of_independent_draws():
    rng = np.random.default_rng(4)
    f = rng.standard_normal((4, 1000)) * 2.0 + 1.0
    est, se = mc.running_estimate(f, ns=(100, 1000))
    assert est[-1] == pytest.approx(f.mean())
    assert se[-1] == pytest.approx(2.0 / np.sqrt(4000), rel=0.15)
    assert se[0] / se[1] == pytest.approx(np.sqrt(10), rel=0.25)


def test_diagnostics_tell_agreeing_chains_from_disagreeing_ones():
    rng = np.random.default_rng(5)
    same = rng.standard_normal((4, 500))
    apart = same + np.array([0.0, 0.0, 3.0, 3.0])[:, None]
    d = mc.diagnostics({"same": same, "apart": apart})
    assert d["same"]["r_hat"] < 1.01 and d["same"]["ess_bulk"] > 1000
    assert d["apart"]["r_hat"] > 1.5 and d["apart"]["ess_bulk"] < 50


def test_stored_nuts_draws_match_the_exact_marginals(runs, post):
    """The proof at lesson 9's settings: folded draws of the stored run vs the exact grid (KS, thinned)."""
    ess = mc.diagnostics({"f": runs.f_chains})["f"]["ess_bulk"]
    ks = mc.marginal_tests(post, runs.store["main_w"], ess)
    assert ks["u"] > P_MIN and ks["v"] > P_MIN, ks
    # the test can fail: the draws stretched by 15 % in u are rejected
    shifted = runs.store["main_w"] * np.array([1.15, 1.0])
    bad = mc.marginal_tests(post, shifted, ess)
    assert bad["u"] < P_MIN


def test_stored_estimate_lies_within_its_stated_error_of_the_exact_value(runs):
    assert abs(runs.estimate[-1] - runs.exact) < 3 * runs.se[-1]
    assert np.all(np.diff(runs.se) < 0) or runs.se[-1] < runs.se[0] / 5


def test_stated_standard_errors_match_the_spread_over_seeds(runs):
    """χ² = Σ ((estimate − exact)/stated s.e.)² over ten seeds is χ²(10) if the stated errors are right."""
    est, se = runs.store["rep_estimate"], runs.store["rep_se"]
    chi2 = float(np.sum(((est - runs.exact) / se) ** 2))
    assert stats.chi2.sf(chi2, est.size) > P_MIN, chi2
    assert stats.chi2.cdf(chi2, est.size) > P_MIN, chi2  # not suspiciously small either


def test_cost_summary_draws_reach_their_targets(runs):
    cost = mc.cost_summary(runs, 0.5, 20)
    for key in ("same", "tenth"):
        c = cost[key]
        assert 2 * cost["se_per_draw"] / np.sqrt(c["draws"]) <= c["target"] * (1 + 1e-12)
        assert 2 * cost["se_per_draw"] / np.sqrt(c["draws"] - 1) > c["target"]
    assert cost["tenth"]["draws"] == pytest.approx(100 * cost["same"]["draws"], rel=0.02)
    assert mc.draws_needed(1.0, 0.1) == 100


def test_monte_carlo_panel_reads_the_running_estimate(runs):
    p = mc.MonteCarloPanel()
    st = p.update()
    assert st.n == mc.N_OPTIONS[-1] and st.estimate == runs.estimate[-1]
    with p.hold():
        p.controls["n"].value = 40
    assert p.state.se == runs.se[mc.N_OPTIONS.index(40)]
    p.reset()
    assert p.state.n == mc.N_OPTIONS[-1]


def test_leapfrog_panel_reports_the_library_runs(runs):
    p = mc.LeapfrogPanel()
    st = p.update()
    i, j = mc.SWEEP_STEPS.index(st.eps), mc.SWEEP_LENGTHS.index(st.n_steps)
    assert st.accept_prob == runs.store["sweep_accept_prob"][i, j]
    with p.hold():
        p.controls["eps"].value = mc.SWEEP_STEPS[-1]
    assert p.state.accept_drawn < st.accept_drawn


def test_acceptance_falls_and_divergences_appear_as_the_step_grows(runs):
    acc, div = runs.store["sweep_accept_prob"], runs.store["sweep_divergent_fraction"]
    assert acc[0].min() > 0.95 and acc[-1].max() < 0.2
    assert np.all(div[0] == 0) and np.all(div[-1] > 0.5)


def test_arviz_diagnostics_are_read_as_one_float_whatever_array_shape_arviz_returns():
    # ArviZ 0.23.4 on NumPy 2.4 returns mcse as a one-element 1-D array, which float() refuses
    from ensemble_lib.lessons.monte_carlo.estimates import _scalar

    assert _scalar(np.array([0.25])) == 0.25 and isinstance(_scalar(np.array([0.25])), float)
    assert _scalar(np.float64(1.5)) == 1.5 and _scalar(np.array(2.0)) == 2.0
    with pytest.raises(ValueError, match="one value"):
        _scalar(np.array([1.0, 2.0]))
