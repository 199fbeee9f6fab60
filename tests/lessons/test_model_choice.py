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
    text = L.format_committees([row]).text()
    assert "0.250 ( 3/16)" in text and "0.200" in text
    # an HMC reference of another size is not set beside the committee; a missing size shows a dash
    hmc["boston"]["config"]["n_hidden"] = 8
    (row,) = L.committee_rows(_committee_result(), hmc)
    assert row["hmc"] is None
    (row,) = L.committee_rows(_committee_result(H=3), None)
    assert row["ensemble"] is None and row["hmc"] is None and "—" in L.format_committees([row]).text()


def test_what_the_lesson_says_about_the_stored_committees():
    """Lesson 6, section 5: at H = 4 the committee beats its best single optimum on every split but not
    the HMC reference of the same network; over every H it is never worse than its best optimum."""
    from ensemble_lib.studies.model_size import load_result
    from ensemble_lib.studies.table1 import stored_hmc

    rows = L.committee_rows(load_result(), stored_hmc())
    assert len(rows) == 6 and all(r["hmc"] is not None for r in rows)
    assert all(r["fixed_committee"] < r["fixed_best_single"] for r in rows)
    assert all(r["fixed_committee"] - r["hmc"] > 0.03 for r in rows)
    assert all(r["committee"] <= r["best_single"] + 1e-12 for r in rows)
    assert sum(r["ensemble"] < r["fixed_best_single"] for r in rows) == 5
