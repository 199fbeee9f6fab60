"""The erf activation and the toy network of Barber & Bishop (1998) §2.1 (``models.erf_network``).

σ(a) = erf(a/√2) = 2Φ(a) − 1 is checked against scipy.stats.norm's Φ, σ′ against central
differences, and the toy data against a replay of its documented draws (x first, then the noise).
"""

import numpy as np
import pytest
from scipy import stats

from ensemble_lib.models.erf_network import (TOY_N, TOY_NOISE_SD, TOY_U_TRUE, TOY_V_TRUE, ToyData, sigma,
                                             sigma_prime, toy_data, toy_model)

A = np.concatenate([np.linspace(-8.0, 8.0, 161), [0.0, 1e-12, -37.5, 40.0]])


def test_sigma_is_twice_the_normal_cdf_minus_one():
    np.testing.assert_allclose(sigma(A), 2.0 * stats.norm.cdf(A) - 1.0, rtol=1e-12, atol=1e-15)
    assert sigma(np.array([[1.0, -1.0]])).shape == (1, 2)


def test_sigma_is_odd_and_runs_from_minus_one_to_one():
    np.testing.assert_array_equal(sigma(-A), -sigma(A))
    assert sigma(40.0) == 1.0 and sigma(-40.0) == -1.0 and np.all(np.abs(sigma(A)) <= 1.0)


def test_sigma_prime_matches_central_differences_and_twice_the_normal_density():
    a, h = np.linspace(-6.0, 6.0, 121), 1e-5
    fd = (sigma(a + h) - sigma(a - h)) / (2 * h)  # error ~ h² + eps/h ~ 1e-10
    np.testing.assert_allclose(sigma_prime(a), fd, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sigma_prime(A), 2.0 * stats.norm.pdf(A), rtol=1e-13, atol=0)


def test_toy_model_is_v_sigma_ux_and_broadcasts():
    x, u, v = np.linspace(-2, 2, 5)[:, None], np.array([0.5, 2.0]), 3.0
    np.testing.assert_allclose(toy_model(x, u, v), v * (2 * stats.norm.cdf(u * x) - 1), rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="x, u and v must broadcast together"):
        toy_model(np.zeros(3), np.zeros(2), 1.0)


def test_toy_data_draws_x_uniformly_then_the_noise_from_the_generator():
    d = toy_data(np.random.default_rng(5), n=7, noise_sd=0.3, u_true=1.5, v_true=-2.0, x_range=(-1.0, 3.0))
    replay = np.random.default_rng(5)
    x = replay.uniform(-1.0, 3.0, size=7)
    noise = replay.standard_normal(7)
    assert isinstance(d, ToyData) and d.x.shape == d.t.shape == (7,)
    np.testing.assert_array_equal(d.x, x)
    np.testing.assert_allclose(d.t, -2.0 * (2 * stats.norm.cdf(1.5 * x) - 1) + 0.3 * noise, rtol=1e-12)


def test_toy_data_is_determined_by_the_generator_and_defaults_to_the_papers_setting():
    a, b = toy_data(np.random.default_rng(0)), toy_data(np.random.default_rng(0))
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.t, b.t)
    assert not np.array_equal(a.x, toy_data(np.random.default_rng(1)).x)
    assert a.x.shape == (TOY_N,) and np.all((a.x >= -2.0) & (a.x < 2.0))
    resid = a.t - TOY_V_TRUE * sigma(TOY_U_TRUE * a.x)
    # the noise has s.d. TOY_NOISE_SD: its sample variance within 5 standard errors (χ² with N d.o.f.)
    assert np.mean(resid**2) == pytest.approx(TOY_NOISE_SD**2, abs=5 * TOY_NOISE_SD**2 * np.sqrt(2 / TOY_N))


@pytest.mark.parametrize("kwargs, name", [({"rng": 0}, "rng"), ({"n": 0}, "n"), ({"noise_sd": 0.0}, "noise_sd"),
                                          ({"x_range": (1.0, 1.0)}, "x_range"), ({"x_range": (0, 1, 2)}, "x_range")])
def test_toy_data_refuses_bad_arguments_by_name(kwargs, name):
    args = {"rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(ValueError, match=rf"^{name} must"):
        toy_data(**args)
