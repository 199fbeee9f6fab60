"""The prior over functions' s.d. (MacKay §8, the erf network's arcsine kernel) against Monte Carlo:
weights drawn directly with numpy, f(x) = Σ_h v_h erf((u_h x + b_h)/√2), its sample s.d. within
four standard errors of the formula."""

import math

import numpy as np
import pytest
from scipy.special import erf

from ensemble_lib.inference.function_prior import prior_output_sd


@pytest.mark.parametrize("H, sd_in, sd_bias, sd_out", [(1, 2.0, 2.0, 1.0), (5, 0.3, 1.5, 0.7), (50, 10.0, 0.2, 2.0)])
def test_prior_output_sd_matches_monte_carlo(H, sd_in, sd_bias, sd_out):
    rng = np.random.default_rng(H)
    x = np.array([0.0, 0.5, 3.0])
    n = 100_000
    u, b = sd_in * rng.standard_normal((n, H)), sd_bias * rng.standard_normal((n, H))
    v = sd_out / math.sqrt(H) * rng.standard_normal((n, H))
    f = np.einsum("nh,nhx->nx", v, erf((u[..., None] * x + b[..., None]) / math.sqrt(2.0)))
    var = np.mean(f**2, axis=0)  # the prior mean is 0
    se = np.std(f**2, axis=0) / math.sqrt(n)
    ref = prior_output_sd(x, sd_in, sd_bias, sd_out) ** 2
    assert np.all(np.abs(var - ref) < 4 * se), (var, ref, se)


def test_prior_output_sd_rejects_bad_widths():
    with pytest.raises(ValueError, match="sd_in"):
        prior_output_sd(0.0, -1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="x must be finite"):
        prior_output_sd([np.nan], 1.0, 1.0, 1.0)
