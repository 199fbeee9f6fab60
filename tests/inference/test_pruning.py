"""Active hidden units (ensemble_lib.inference.pruning): shares of Σ⟨f²⟩ checked independently."""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib.inference.pruning import unit_indices, unit_usage
from ensemble_lib.models.network import network_output, pack_weights


def _problem(seed=0, n=40, d=3, H=3, v=(1.0, 1e-4, -0.5)):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.normal(size=(n, d)), np.ones((n, 1))])
    return rng, X, pack_weights(rng.normal(size=(H, d + 1)), np.asarray(v, float))


def test_point_estimate_shares_match_the_full_network_with_other_units_silenced():
    _, X, w = _problem()
    H = 3
    usage = unit_usage(w, None, X, H)
    expected = []
    for i in range(H):
        wi = w.copy()
        wi[-H:] = np.where(np.arange(H) == i, w[-H:], 0.0)  # keep only unit i's output weight
        expected.append(np.sum(network_output(wi, X, H) ** 2))
    expected = np.array(expected)
    np.testing.assert_allclose(usage.second_moments, expected, rtol=1e-12)
    np.testing.assert_allclose(usage.shares, expected / expected.sum(), rtol=1e-12)
    assert usage.active.tolist() == [True, False, True] and usage.n_active == 2


def test_gaussian_q_second_moment_matches_monte_carlo_within_4_standard_errors():
    rng, X, w = _problem(seed=1)
    H, k = 3, w.size
    A = rng.normal(size=(k, k))
    C = 0.02 * (A @ A.T / k + np.eye(k))
    usage = unit_usage(w, C, X, H)
    draws = rng.multivariate_normal(w, C, size=20_000)
    for i in range(H):
        idx = unit_indices(X.shape[1], H, i)
        samples = np.sum(network_output(draws[:, idx], X, 1) ** 2, axis=-1)
        se = samples.std(ddof=1) / np.sqrt(samples.size)
        assert abs(usage.second_moments[i] - samples.mean()) < 4 * se


def test_unit_indices_pick_u_i_and_v_i_from_the_packing():
    d, H = 4, 3
    U = np.arange(H * d, dtype=float).reshape(H, d)
    v = np.array([100.0, 101.0, 102.0])
    w = pack_weights(U, v)
    for i in range(H):
        np.testing.assert_array_equal(w[unit_indices(d, H, i)], np.append(U[i], v[i]))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"threshold": 1.5}, "threshold"),
    ({"threshold": 0.0}, "threshold"),
    ({"n_hidden": 0}, "n_hidden"),
    ({"n_hidden": 2}, "mean"),
    ({"X": np.full((3, 4), np.nan)}, "X"),
])
def test_bad_input_is_refused_with_the_argument_named(kwargs, match):
    _, X, w = _problem()
    args = {"mean": w, "cov": None, "X": X, "n_hidden": 3} | kwargs
    with pytest.raises(ValueError, match=match):
        unit_usage(**args)
