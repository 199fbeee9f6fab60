"""Lesson 6's ARD with pure-noise inputs (``figures/ard_noise_inputs.json``, MacKay (27), §7).

The stored hyperparameters are re-derived from the stored configuration for a few settings (the same
iteration, so the same numbers); every stored ARD solution is checked to be a fixed point of MacKay
(27) and (24) with w_MP, A⁻¹ from a direct solve written here; and the lesson's statements about the
table (every noise input above every real one in none of the settings, ARD's test error below one α's
from 5 noise inputs on) are checked against it.
"""

import numpy as np
import pytest

from ensemble_lib.lessons import model_choice as L
from ensemble_lib.studies import noise_inputs as NI


@pytest.fixture(scope="module")
def stored():
    return NI.load_result()


def test_the_stored_config_and_command_are_there(stored):
    config = NI.NoiseInputsConfig(**stored["config"])
    assert config.as_dict() == stored["config"]
    assert stored["command"] == "python -m ensemble_lib.studies.noise_inputs --run"
    assert sorted(stored["fits"]) == [str(s) for s in range(config.n_seeds)]
    for rows in stored["fits"].values():
        assert [r["n_noise"] for r in rows] == list(range(config.n_max + 1))
        assert all(r["converged"] and r["one_alpha"]["converged"] for r in rows)
        assert all(len(r["alphas"]) == 13 + r["n_noise"] for r in rows)


@pytest.mark.parametrize(("seed", "n"), [(0, 3), (2, 10), (4, 30)])
def test_stored_hyperparameters_are_re_derived_from_the_stored_configuration(stored, seed, n):
    config = NI.NoiseInputsConfig(**stored["config"])
    ard, one = NI.fit(n, seed, config)
    row = stored["fits"][str(seed)][n]
    np.testing.assert_allclose(ard.final.alphas, row["alphas"], rtol=1e-9)
    assert ard.final.beta == pytest.approx(row["beta"], rel=1e-9)
    assert np.flatnonzero(ard.capped).tolist() == row["switched_off"]
    assert one.final.alphas[0] == pytest.approx(row["one_alpha"]["alpha"], rel=1e-9)


def test_every_stored_solution_is_a_fixed_point_of_mackays_re_estimation(stored):
    """α_c Σ w_c² = γ_c (MacKay (27)) for every input not switched off, and β·2E_D = N − γ (MacKay (24)),
    with w_MP = βA⁻¹Φᵀt and γ_c = 1 − α_c (A⁻¹)_cc from numpy's own solve and inverse (every third n
    of every seed). The iteration stops when a step moves ln α_c by < 1e-7; measured over the whole
    table, |α_c Σw² / γ_c − 1| ≤ 1.0e-7; we require 1e-5."""
    config = NI.NoiseInputsConfig(**stored["config"])
    y = NI.boston_split(config)[2]
    worst = 0.0
    for seed, rows in stored["fits"].items():
        for row in rows[::3]:
            X, _ = NI.design(row["n_noise"], int(seed), config)
            a, b = np.array(row["alphas"]), row["beta"]
            A = np.diag(a) + b * X.T @ X
            w = np.linalg.solve(A, b * X.T @ y)
            g = 1.0 - a * np.diag(np.linalg.inv(A))
            on = a < 1e8
            worst = max(worst, float(np.max(np.abs(a[on] * w[on] ** 2 / g[on] - 1.0))))
            assert b * np.sum((X @ w - y) ** 2) == pytest.approx(len(y) - g.sum(), rel=1e-6)
            assert np.all(np.abs(w[~on]) < 1e-3)  # switched off: held at ≈ 0
    assert worst < 1e-5


def test_what_the_lesson_says_about_the_noise_inputs():
    rows = L.noise_summary()
    assert all(r["every_noise_above_every_real"] == 0 for r in rows)
    assert set(rows[-1]["real_off"]) >= {"CHAS", "RAD"}
    for r in rows:
        if r["n_noise"] >= 5:
            assert all(a < b for a, b in zip(r["ard_mse"], r["one_alpha_mse"]))
        if r["n_noise"] >= 3:
            assert 0.5 <= min(r["off"]) and max(r["off"]) <= 0.85


def test_the_panel_opens_where_the_text_says_and_refuses_bad_values():
    st = L.noise_ard(3, 0)
    assert f"{st.test_mse:.4f}" == "0.3264" and f"{st.one_alpha_test_mse:.4f}" == "0.3327"
    assert st.switched_off[13:].tolist() == [False, True, True]
    with pytest.raises(ValueError, match="n_noise"):
        L.noise_ard(31, 0)
    with pytest.raises(ValueError, match="seed"):
        L.noise_ard(3, 5)
    with pytest.raises(ValueError, match="n_noise"):
        NI.design(-1, 0)
