"""MacKay-E (6): the log likelihood of the raw data, and the checks of (μ, σ) every part shares."""

from __future__ import annotations

import math

import numpy as np

from ...core import validation as check


#: refuse iteration counts above this (a slider or a loop cannot hang)
MAX_ITER = 100_000

_LN_2PI = math.log(2.0 * math.pi)


# ---------------------------------------------------------------------------
# Eq. (6): the log likelihood of the raw data
# ---------------------------------------------------------------------------

def gaussian_log_likelihood(x, mu, sigma):
    r"""Log likelihood of data ``x`` under Normal(μ, σ²), MacKay-E (6).

    Parameters
    ----------
    x : array_like, shape (N,)
        The data points, finite.
    mu, sigma : float or array_like
        Mean and standard deviation (σ > 0); broadcast together.

    Returns
    -------
    ndarray or float
        :math:`-N\ln(\sqrt{2\pi}\sigma) - \sum_n (x_n - \mu)^2 / (2\sigma^2)`.

    Notes
    -----
    The direct sum over points; :meth:`MacKayGaussian.log_likelihood` is the
    same quantity from the sufficient statistics, MacKay-E (7).
    """
    x = check.finite_vector("x", x)
    mu, sigma = _mu_sigma(mu, sigma)
    mu, sigma = np.broadcast_arrays(mu, sigma)
    resid2 = np.sum((x[:, None] - mu.ravel()[None, :]) ** 2, axis=0).reshape(mu.shape)
    out = -x.size * (0.5 * _LN_2PI + np.log(sigma)) - resid2 / (2.0 * sigma**2)
    return out[()] if isinstance(out, np.ndarray) else out


#: Allowed |x̄| (its square times N must stay finite) and S range (2/S and S/N finite) of
#: :class:`MacKayGaussian`.
_XBAR_MAX = 1e150
_S_RANGE = (1e-300, 1e300)

def _mu_sigma(mu, sigma):
    mu = check.real_array("mu", mu)
    sigma = check.real_array("sigma", sigma)
    if not np.all(np.isfinite(mu)):
        raise ValueError("mu must be finite (no NaN or inf)")
    if not (np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("sigma must be finite and > 0")
    return mu, sigma


__all__ = ["MAX_ITER", "gaussian_log_likelihood"]
