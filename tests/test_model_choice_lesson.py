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


def test_write_figures_writes_the_lesson_figures(tmp_path):
    paths = L.write_figures(tmp_path)
    assert {p.name for p in paths} >= {"occam_polynomial.png", "model_size.png", "ard_boston.png"}
    assert all(p.stat().st_size > 10_000 for p in paths)
