"""The erf activation and the one-hidden-unit toy network of Barber & Bishop (1998).

* ``sigma(a)`` is eq. (2): ``σ(a) = √(2/π) ∫_0^a exp(−s²/2) ds = erf(a/√2) = 2Φ(a) − 1``,
  with range (−1, 1) (INDEX.md);
* ``toy_model(x, u, v) = v σ(u x)``: B&B (1) with one hidden unit, one input
  and no bias, the 2-parameter model of §2.1 / Fig. 2;
* ``toy_data``: the Fig. 2 data set: inputs uniform in (−2, 2), targets
  ``−2.5 σ(−0.13 x)`` plus Gaussian noise of s.d. 0.1 (the paper's own draws
  were not published, so any seed gives "a" data set of that kind).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import erf

from ..core import validation as check

SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))

#: Generating parameters of the Fig. 2 data: f(x) = v σ(u x) with (u, v) = (−0.13, −2.5).
TOY_U_TRUE = -0.13
TOY_V_TRUE = -2.5
TOY_NOISE_SD = 0.1
TOY_N = 6


def sigma(a):
    """The erf sigmoid of B&B (2): ``erf(a/√2)`` (``a``: real numbers, any shape)."""
    return erf(check.finite_array("a", a) / np.sqrt(2.0))


def sigma_prime(a):
    """dσ/da = √(2/π) exp(−a²/2) (``a``: real numbers, any shape)."""
    a = check.finite_array("a", a)
    return SQRT_2_OVER_PI * np.exp(-0.5 * a * a)


def toy_model(x, u, v):
    """f(x; u, v) = v σ(u x), broadcasting over x, u and v (real numbers)."""
    x, u, v = (check.finite_array(name, val) for name, val in (("x", x), ("u", u), ("v", v)))
    try:
        return v * sigma(u * x)
    except ValueError as exc:  # shapes that do not broadcast
        raise ValueError(f"x, u and v must broadcast together, got shapes {x.shape}, {u.shape}, "
                         f"{v.shape} ({exc})") from None


class ToyData(NamedTuple):
    """Inputs ``x`` and targets ``t`` of the toy regression problem."""

    x: np.ndarray
    t: np.ndarray


def toy_data(
    rng: np.random.Generator,
    n: int = TOY_N,
    noise_sd: float = TOY_NOISE_SD,
    u_true: float = TOY_U_TRUE,
    v_true: float = TOY_V_TRUE,
    x_range: tuple[float, float] = (-2.0, 2.0),
) -> ToyData:
    """Draw the §2.1 data: x ~ U(x_range), t = v_true σ(u_true x) + N(0, noise_sd²).

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (x first, then the noise).
    n : int
        Number of points N (1 to 10⁶).
    noise_sd : float
        Noise standard deviation (> 0); the noise precision is β = 1/noise_sd².
    u_true, v_true : float
        Generating parameters (finite).
    x_range : (float, float)
        Interval of the inputs, low < high (finite).
    """
    rng = check.generator("rng", rng)
    n = check.integer("n", n, low=1, high=1_000_000)
    noise_sd = check.positive("noise_sd", noise_sd)
    u_true = check.real("u_true", u_true)
    v_true = check.real("v_true", v_true)
    x_range = check.finite_vector("x_range", x_range)
    if x_range.shape != (2,):
        raise ValueError(f"x_range must be a pair (low, high), got {x_range.size} numbers")
    lo, hi = x_range
    if not lo < hi:
        raise ValueError(f"x_range must satisfy low < high, got {x_range!r}")
    x = rng.uniform(lo, hi, size=n)
    t = toy_model(x, u_true, v_true) + noise_sd * rng.standard_normal(n)
    return ToyData(x, t)


__all__ = ["ToyData", "sigma", "sigma_prime", "toy_data", "toy_model"]
