"""When a fit has stopped (ensemble_lib.inference.stopping): the objective's noise, a minimum
that only noise keeps from a zero gradient, and a Newton polish that takes a step whose rise is
round-off. Each on a function whose answer is known by construction."""

import zlib

import numpy as np

from ensemble_lib.inference.stopping import _newton_polish, no_descent, objective_noise


def test_no_descent_tells_a_noisy_minimum_from_a_slope():
    """At a minimum whose gradient is dominated by noise no step down it helps; on a slope one does."""
    def bowl(theta, noise=0.0):
        return float(theta @ theta), 2.0 * theta + noise

    at_min = np.zeros(3)
    assert no_descent(lambda th: bowl(th, noise=np.array([1e-5, -2e-5, 0.0])), at_min,
                      np.array([1e-5, -2e-5, 0.0]))
    slope = np.array([1.0, 0.5, -0.2])
    assert not no_descent(bowl, slope, bowl(slope)[1])
    assert not no_descent(bowl, np.array([1e-3, 0.0, 0.0]), np.array([2e-3, 0.0, 0.0]))


def _jittery(theta, scale, quantum=1.2e-10):
    """A quadratic bowl (minimum 10 at θ = 0) plus round-off in quanta of 1.2e-10 that changes with
    every bit of θ (as a sharp posterior's sums of β·residual² near 10⁶ do), and an exact gradient."""
    jitter = quantum * (zlib.crc32(np.asarray(theta, dtype=float).tobytes()) % 3 - 1)
    return float(10.0 + jitter + 0.5 * theta @ (scale * theta)), scale * theta


def test_objective_noise_sees_round_off_and_not_the_slope():
    """The jittery bowl's noise is seen, one or two quanta (its jitter spans −1..1 quanta), with 3
    parameters and with 20; a steep smooth bowl shows only the rounding of its value (its gradient
    term is taken out)."""
    scale = np.array([2.0, 3.0, 5.0])
    theta = np.array([0.3, -1.7, 2.9])
    assert 0.6e-10 <= objective_noise(lambda th: _jittery(th, scale), theta) <= 2.5e-10
    wide = np.linspace(-2.0, 3.0, 20)  # more parameters than it moves one at a time: all at once
    assert 0.6e-10 <= objective_noise(lambda th: _jittery(th, np.ones(20)), wide) <= 2.5e-10
    steep = lambda th: (float(1e3 * th @ th), 2e3 * th)  # noqa: E731
    assert objective_noise(steep, theta) <= 8 * np.spacing(steep(theta)[0])  # its own rounding only


def test_polish_accepts_a_step_whose_rise_is_round_off():
    """A Newton step that settles the gradient is kept when the objective's rise is its noise.

    From points near the minimum of a jittery bowl (scales like a sharp toy posterior's diagonal
    fit), the exact Newton step rises by a quantum at some starts. The polish must still end
    below the tolerance: before, it refused any rise above 10⁻¹² of the objective."""
    scale = np.array([2.4e8, 4.4e3, 2.0, 2.0])
    fun = lambda th: _jittery(th, scale)  # noqa: E731
    rng = np.random.default_rng(7)
    ends = []
    for _ in range(40):
        start = rng.normal(size=4) * 1e-7 / scale
        _, g = _newton_polish(fun, start, fun(start)[1], 1e-9)
        ends.append(np.max(np.abs(g)))
    assert max(ends) <= 1e-9
