"""Argument checks shared by the library.

Every public function validates its inputs with these helpers so that bad
input gives a ``ValueError`` naming the argument and the allowed range,
never a silent NaN, a hang or a wrong plot.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


def positive(name: str, value, *, upper: float | None = None) -> float:
    """Return ``value`` as a float after checking ``0 < value (<= upper)``."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be in (0, {upper:g}], got {value!r}")
    return value


def integer(name: str, value, *, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int after checking ``low <= value (<= high)``."""
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        rng = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        rng = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {rng}, got {value}")
    return value


def finite_vector(name: str, value, *, min_len: int = 1) -> np.ndarray:
    """Return a 1-D float array with at least ``min_len`` finite entries."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name} must have at least {min_len} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return arr


def finite_matrix(name: str, value, *, min_rows: int = 1, shape: str = "(N, d)",
                  hint: str = "") -> np.ndarray:
    """Return a 2-D float array with at least ``min_rows`` rows, one column, and only finite entries.

    ``shape`` names the axes in the message (``"(N, k)"``); ``hint`` is appended to it.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2 or arr.shape[0] < min_rows or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array of shape {shape} with at least {min_rows} "
                         f"row(s) and 1 column{hint}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return arr


def mean_cov(mean, cov, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Check a Gaussian's mean (dim,) and symmetric positive-definite cov (dim, dim)."""
    mean = np.asarray(mean, dtype=float)
    cov = np.asarray(cov, dtype=float)
    if mean.shape != (dim,):
        raise ValueError(f"mean must have shape ({dim},), got {mean.shape}")
    if cov.shape != (dim, dim):
        raise ValueError(f"cov must have shape ({dim}, {dim}), got {cov.shape}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("mean and cov must be finite (no NaN or inf)")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError("cov must be symmetric")
    try:
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError("cov must be positive definite") from None
    return mean, 0.5 * (cov + cov.T)


def generator(name: str, rng) -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (no global seeding)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)), "
            f"got {type(rng).__name__}"
        )
    return rng
