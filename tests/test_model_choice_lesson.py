"""Lesson 6's own numbers: the claims its text makes are checked here, against the exact references.

Occam table: the exact ln P(D) (quadrature, checked in test_model_comparison against a weight-space
quadrature) is above every F*; the evidence picks the generating degree 3; eq. (30) stays within
0.05 nats of it on the polynomial models, and on the toy at α = 0.02 Laplace is above the exact value
(the lesson's "Laplace can sit above the truth"). Pruning: only the noise input's weight has a negative
§6 change, and the refit agrees there. The prior-function panel's band is the arcsine kernel
(Monte Carlo in test_ard).
"""

import math

import numpy as np
import pytest

from ensemble_lib.lessons import model_choice as L


def test_polynomial_occam_table():
    rows = L.polynomial_occam()
    assert all(r.bound < r.log_evidence_exact for r in rows)
    assert max(rows, key=lambda r: r.log_evidence_exact).label == "degree 3"
    assert max(rows, key=lambda r: r.bound).label == "degree 3"
    assert all(abs(r.log_evidence_laplace - r.log_evidence_exact) < 0.05 for r in rows)
    assert [r.k for r in rows] == list(range(1, 9))


def test_toy_occam_table_laplace_above_truth_bound_below():
    rows = L.toy_occam()
    assert all(r.bound < r.log_evidence_exact - math.log(2) for r in rows)  # a Gaussian misses a mode
    assert rows[0].log_evidence_laplace - rows[0].log_evidence_exact > 0.3
    # more prior mass near the origin (large α) makes the posterior more Gaussian: Laplace closer
    gaps = [r.log_evidence_laplace - r.log_evidence_exact for r in rows]
    assert gaps == sorted(gaps, reverse=True)


def test_pruning_demo_deletes_only_the_noise_weight():
    rows = L.pruning_demo()
    changes = [r[4] for r in rows]
    assert [c < 0 for c in changes] == [False, False, True, False, False]
    noise = rows[2]
    assert noise[4] == pytest.approx(noise[5], abs=0.01)
    assert noise[4] == pytest.approx(noise[2] + noise[3], abs=1e-12)


def test_prior_functions_band_and_scaling():
    a = L.prior_functions(1, 2.0, 2.0, 1.0, True, 0)
    b = L.prior_functions(300, 2.0, 2.0, 1.0, True, 0)
    np.testing.assert_allclose(a.sd, b.sd, rtol=1e-12)  # σ_out ∝ 1/√H keeps the prior over functions
    c = L.prior_functions(300, 2.0, 2.0, 1.0, False, 0)
    np.testing.assert_allclose(c.sd, math.sqrt(300) * a.sd, rtol=1e-12)
    with pytest.raises(ValueError, match="H"):
        L.prior_functions(0, 2.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="sd_in"):
        L.prior_functions(3, -2.0, 2.0, 1.0)


def test_write_figures_writes_the_committed_lesson_figures(tmp_path):
    """``make figures`` gives lesson 6's committed figures (``tests/_committed.py``)."""
    from _committed import assert_writes_the_committed_files

    assert_writes_the_committed_files(L.write_figures, tmp_path, [
        "occam_polynomial.png", "hyper_error_bars.png", "model_size.png", "ard_boston.png", "pruning_evidence.png"])


def test_integrated_predictive_agrees_with_gauss_legendre_quadrature():
    """The lesson's grid integration over (ln α, ln β) against a 160 × 160-point Gauss–Legendre rule
    on a box of ±7 (ln α) and ±8.5 (ln β) error bars, with P(D|α,β) the N-dimensional Gaussian
    marginal N(t | 0, ΦΦᵀ/α + I/β) (eigenbasis of ΦΦᵀ) and the predictive moments by direct solves
    (degree 3, x = 1.2 and x = 0)."""
    from ensemble_lib import LinearGaussianPosterior
    from ensemble_lib.inference.evidence import evidence_reestimation

    x, t = L.polynomial_data(20, 0)
    Phi = L.polynomial_design(x, 3)
    run = evidence_reestimation(LinearGaussianPosterior(Phi, t, 1.0, 1.0), tol=1e-12, exact=False)
    post = LinearGaussianPosterior(Phi, t, run.alpha_final, run.beta_final)
    G = L.polynomial_design(np.array([1.2, 0.0]), 3)
    m, spread, expected = L.integrated_predictive(post, G)
    s, U = np.linalg.eigh(Phi @ Phi.T)
    z2 = (U.T @ t) ** 2
    la0, lb0 = math.log(run.alpha_final), math.log(run.beta_final)
    u, wu = np.polynomial.legendre.leggauss(160)
    LA, WA = la0 + 5.0 * u, 5.0 * wu
    LB, WB = lb0 + 3.0 * u, 3.0 * wu
    logp, mus, vs = [], [], []
    for la in LA:
        for lb in LB:
            a, b = math.exp(la), math.exp(lb)
            v = s / a + 1 / b
            logp.append(-0.5 * np.sum(np.log(v) + z2 / v))
            A = a * np.eye(4) + b * Phi.T @ Phi
            mus.append(G @ np.linalg.solve(A, b * Phi.T @ t))
            vs.append(np.einsum("mi,im->m", G, np.linalg.solve(A, G.T)) + 1 / b)
    w = (WA[:, None] * WB[None, :]).ravel() * np.exp(np.array(logp) - max(logp))
    w /= w.sum()
    mus, vs = np.array(mus), np.array(vs)
    mean = w @ mus
    np.testing.assert_allclose(m, mean, rtol=1e-5)  # measured 3.3e-6: the lesson's 201-point trapezoid
    np.testing.assert_allclose(spread, w @ (mus - mean) ** 2, rtol=1e-4)
    np.testing.assert_allclose(expected, w @ vs, rtol=1e-5)


def test_hyper_error_bar_demo_what_the_lesson_says():
    """§5.2.2's extra variance is at most 3 % of gᵀA⁻¹g (measured 2.3 % at degree 3, 2.9 % at degree
    7), hundreds of times below 1/β inside the data, and 40 or more times larger at x = ±1.3 than
    inside; the exact spread of the mean over (ln α, ln β) is 1.0–1.5 times it (the table's rows:
    1.42–1.48 at degree 3, 1.06–1.32 at degree 7); integrating over α, β exactly widens the
    predictive variance by 12–18 % (s.d. by 6–9 %), mostly through the mean of 1/β and gᵀA⁻¹g,
    which §5.2.2 leaves out."""
    for degree in (3, 7):
        d = L.hyper_error_bar_demo(degree)
        inside = np.abs(d.x) <= 1.0
        assert np.all(d.hyper_variance < 0.03 * d.weight_variance)
        assert d.hyper_variance[inside].mean() < d.noise_variance / 100
        assert d.hyper_variance[[0, -1]].min() > 40 * d.hyper_variance[inside].mean()  # x = ±1.3
        for sel in (inside, [0], [-1]):  # the rows of format_hyper_error_bars
            ratio = np.mean(d.exact_spread[sel]) / np.mean(d.hyper_variance[sel])
            assert 1.0 < ratio < 1.5, (degree, ratio)
        widen = d.exact_variance / d.variance
        assert np.all((widen > 1.1) & (widen < 1.2)), (widen.min(), widen.max())
    with pytest.raises(ValueError, match="post"):
        L.integrated_predictive(L.make_posterior(seed=0), np.ones((1, 2)))


def _committee_result(H=4):
    def com(mse, best, n):
        return {"test_mse": mse, "n_runs": n, "members": [{}] * 3,
                "best_single": {"test_mse": best, "n_hidden": H, "log_evidence": -1.0}}

    split = {"index": 1, "committee": com(0.30, 0.31, 16), "committee_fixed_size": com(0.25, 0.27, 16),
             "sizes": [{"n_hidden": h, "ensemble": {"test_mse": 0.1 * h}} for h in (1, 2, 4)]}
    return {"config": {"committee_hidden": H}, "datasets": {"boston": {"splits": [split]}}}


def test_committee_rows_pair_the_stored_numbers_by_split_and_size():
    hmc = {"boston": {"config": {"n_hidden": 4}, "splits": [{"index": 0, "test_mse": 9.0},
                                                             {"index": 1, "test_mse": 0.2}]}}
    (row,) = L.committee_rows(_committee_result(), hmc)
    assert (row["fixed_committee"], row["fixed_best_single"], row["fixed_members"], row["fixed_runs"]) == \
        (0.25, 0.27, 3, 16)
    assert row["ensemble"] == 0.4 and row["hmc"] == 0.2  # H = 4's ensemble, split 1's HMC run
    assert (row["committee"], row["best_single"]) == (0.30, 0.31)
    text = L.format_committees([row])
    assert "0.250 ( 3/16)" in text and "0.200" in text
    # an HMC reference of another size is not set beside the committee; a missing size shows a dash
    hmc["boston"]["config"]["n_hidden"] = 8
    (row,) = L.committee_rows(_committee_result(), hmc)
    assert row["hmc"] is None
    (row,) = L.committee_rows(_committee_result(H=3), None)
    assert row["ensemble"] is None and row["hmc"] is None and "—" in L.format_committees([row])


def test_what_the_lesson_says_about_the_stored_committees():
    """Lesson 6, section 5: at H = 4 the committee beats its best single optimum on every split but not
    the HMC reference of the same network; over every H it is never worse than its best optimum."""
    from ensemble_lib.studies.model_size import load_result
    from ensemble_lib.studies.table1 import _stored_hmc

    rows = L.committee_rows(load_result(), _stored_hmc())
    assert len(rows) == 6 and all(r["hmc"] is not None for r in rows)
    assert all(r["fixed_committee"] < r["fixed_best_single"] for r in rows)
    assert all(r["fixed_committee"] - r["hmc"] > 0.03 for r in rows)
    assert all(r["committee"] <= r["best_single"] + 1e-12 for r in rows)
    assert sum(r["ensemble"] < r["fixed_best_single"] for r in rows) == 5
