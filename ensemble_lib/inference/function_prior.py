"""The prior over functions of a one-input erf network (MacKay 1995, "Probable networks", §8).

A network ``f(x) = Σ_h v_h σ(u_h x + b_h)`` with ``σ(a) = erf(a/√2)`` (B&B (2)) and independent
Gaussian priors on each class of weights — input weights ``u_h`` (s.d. σ_in), hidden biases ``b_h``
(σ_bias), output weights ``v_h`` (σ_out) — has a prior over f(x) whose variance needs no sampling:
``a = u x + b ~ N(0, s²)`` with ``s² = x²σ_in² + σ_bias²``, and ``E[erf(a/√2)²] = (2/π) arcsin(s²/(1+s²))``
(the arcsine kernel of the erf network, Williams 1998), so

.. math:: \\operatorname{Var} f(x) = H\\sigma_{out}^2\\,\\tfrac{2}{\\pi}\\arcsin\\frac{s^2}{1+s^2}.

With ``σ_out ∝ 1/√H`` (MacKay §8) the output scale ``σ_out √H`` stays fixed as H grows and the prior
tends to a Gaussian process. Samples of whole functions are
:func:`~ensemble_lib.inference.ard.sample_prior_functions`.

Symbols → code: σ_in, σ_bias → ``sd_in``, ``sd_bias``; σ_out √H → ``sd_out_scaled``.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import validation as check


def prior_output_sd(x, sd_in: float, sd_bias: float, sd_out_scaled: float) -> np.ndarray:
    """The prior standard deviation of f(x) for a one-input erf network (MacKay §8).

    Parameters
    ----------
    x : array_like
        Inputs.
    sd_in, sd_bias : float
        Prior s.d. of the input weights and of the hidden biases (positive).
    sd_out_scaled : float
        ``σ_out √H``, the output weights' prior s.d. times the square root of the number of hidden
        units (positive); the result depends on H only through it.

    Returns
    -------
    ndarray
        ``√(σ_out² H · (2/π) arcsin(s²/(1+s²)))`` with ``s² = x²σ_in² + σ_bias²``, shaped like ``x``.

    Raises
    ------
    ValueError
        If a standard deviation is not positive or ``x`` is not finite.
    """
    x = check.real_array("x", x)  # its own finiteness check follows
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite (no NaN or inf)")
    sd_in = check.positive("sd_in", sd_in)
    sd_bias = check.positive("sd_bias", sd_bias)
    sd_out_scaled = check.positive("sd_out_scaled", sd_out_scaled)
    with np.errstate(over="ignore", invalid="ignore"):
        s2 = x**2 * sd_in**2 + sd_bias**2
        # s² beyond floating point (|x| σ_in ≳ 1e154): its limit s²/(1 + s²) = 1, not inf/inf = NaN
        ratio = np.where(np.isinf(s2), 1.0, s2 / (1.0 + s2))
    return check.finite_result(sd_out_scaled * np.sqrt(2.0 / math.pi * np.arcsin(ratio)),
                               "x, sd_in, sd_bias, sd_out_scaled")


__all__ = ["prior_output_sd"]
