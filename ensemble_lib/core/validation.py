"""Argument checks shared by the library.

Every public function validates its inputs with these helpers so that bad
input gives a ``ValueError`` naming the argument and the allowed range,
never a silent NaN, a hang or a wrong plot.

What they refuse, for every argument: strings, ``None``, complex numbers,
``bool`` where a number is meant, ragged or wrongly shaped arrays, object
arrays, masked arrays with masked entries (the mask would be ignored),
non-finite values, and values whose use overflows — a data vector or matrix
whose sum of squares is not finite (|entries| beyond about 1e150), a noise
s.d. whose precision 1/sd² leaves :data:`PRECISION_RANGE`, and precisions α,
β outside :data:`PRECISION_RANGE`. :func:`finite_result` is the guard after a
derived quantity (an exponential, a square, a ratio): it names the arguments
that made it overflow instead of returning NaN or inf.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

#: Allowed range of the precisions α (prior) and β (noise) of every posterior, and of the
#: hyperparameter re-estimates (MacKay's evidence keeps α, β inside it): [1e-8, 1e8]. Outside it
#: the toy's exact ln Z under- or overflows (α = 1e-300 gives −inf) and the fits lose meaning.
PRECISION_RANGE = (1e-8, 1e8)


def _describe(value) -> str:
    """``repr`` of a value, shortened for arrays and long reprs."""
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_real_scalar(value) -> bool:
    return (not isinstance(value, (bool, np.bool_))
            and isinstance(value, (Real, np.floating, np.integer)))


def _scalar(value):
    """A 0-d array (or an unmasked 0-d masked value) as its scalar; anything else unchanged."""
    if isinstance(value, np.ma.MaskedArray) and value.ndim == 0 and not np.ma.getmaskarray(value).any():
        value = np.ma.getdata(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return value


def real(name: str, value) -> float:
    """Return ``value`` as a float after checking it is one finite real number (not a bool)."""
    value = _scalar(value)
    if not _is_real_scalar(value) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {_describe(value)}")
    return float(value)


def positive(name: str, value, *, upper: float | None = None, lower: float | None = None) -> float:
    """Return ``value`` as a float after checking ``0 < value`` (and ``lower <= value <= upper``)."""
    value = _scalar(value)
    if not _is_real_scalar(value) or not math.isfinite(float(value)) or float(value) <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {_describe(value)}")
    value = float(value)
    if (upper is not None and value > upper) or (lower is not None and value < lower):
        lo = f"[{lower:g}" if lower is not None else "(0"
        hi = f"{upper:g}]" if upper is not None else "inf)"
        raise ValueError(f"{name} must be in {lo}, {hi}, got {value!r}")
    return value


def precision(name: str, value) -> float:
    """A precision α or β: a float in :data:`PRECISION_RANGE` = [1e-8, 1e8]."""
    lo, hi = PRECISION_RANGE
    return positive(name, value, lower=lo, upper=hi)


def integer(name: str, value, *, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int after checking ``low <= value (<= high)``."""
    value = _scalar(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        rng = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {rng}, got {_describe(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        rng = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {rng}, got {value}")
    return value


def flag(name: str, value) -> bool:
    """Return ``value`` as a bool after checking it is one (``True``/``False``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)


def choice(name: str, value, options) -> str:
    """Check that ``value`` is one of ``options`` (strings)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {_describe(value)}")
    return value


def callback(name: str, value):
    """``None`` or a callable."""
    if value is not None and not callable(value):
        raise ValueError(f"{name} must be callable or None, got {_describe(value)}")
    return value


def real_array(name: str, value) -> np.ndarray:
    """``value`` as a float array; refuses strings, ``None``, complex, bool and ragged input.

    The message names ``name`` (never numpy's "could not convert string to float").
    """
    if type(value) is np.ndarray and value.dtype == np.float64:  # the hot path: nothing to check
        return value
    if value is None or isinstance(value, (str, bytes, dict, set)):
        raise ValueError(f"{name} must be an array of real numbers, got {_describe(value)}")
    if isinstance(value, np.ma.MaskedArray):
        if np.ma.getmaskarray(value).any():
            raise ValueError(f"{name} must not have masked entries (a masked array's mask would be "
                             f"ignored): drop them (x.compressed()) or fill them (x.filled(v)) first")
        value = np.ma.getdata(value)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a rectangular array of real numbers (not ragged), "
                         f"got {_describe(value)}") from None
    if raw.dtype.kind not in "iuf":
        kind = {"b": "bool", "c": "complex", "U": "strings", "S": "strings", "O": "objects"}.get(
            raw.dtype.kind, str(raw.dtype))
        raise ValueError(f"{name} must be an array of real numbers, got {kind} ({_describe(value)})")
    return np.asarray(raw, dtype=float)


def finite_array(name: str, value, *, ndim: int | None = None, min_size: int = 0) -> np.ndarray:
    """:func:`real_array` whose entries are all finite (and of ``ndim`` dimensions, ``min_size`` entries).

    The array checker of every public function whose array argument is data or a point (not an
    internal iterate): NaN or inf anywhere gives a ``ValueError`` naming ``name``.
    """
    arr = real_array(name, value)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return arr


def noise_sd(name: str, value) -> float:
    """A noise s.d. σ whose precision β = 1/σ² lies in :data:`PRECISION_RANGE`: σ ∈ [1e-4, 1e4].

    Checked before 1/σ² is formed (σ = 1e-200 would divide by zero, σ = 1e-160 give β = inf).
    """
    lo, hi = PRECISION_RANGE
    sd = positive(name, value)
    if not (1.0 / math.sqrt(hi) <= sd <= 1.0 / math.sqrt(lo)):
        raise ValueError(f"{name} must be in [{1.0 / math.sqrt(hi):g}, {1.0 / math.sqrt(lo):g}] "
                         f"(so that the precision 1/{name}² lies in [{lo:g}, {hi:g}]), got {sd!r}")
    return sd


def finite_result(value, blame: str, what: str = "the result"):
    """Return ``value`` if it is all finite; else a ``ValueError`` naming the arguments ``blame``.

    The guard after a derived quantity (an exponential, a square, a reciprocal) of valid
    arguments that is too large or small for floating point: a named refusal, never NaN or inf.
    """
    arr = np.asarray(value)
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} overflows for these arguments ({blame}): they are valid but too "
                         f"extreme for floating point; use values of a more moderate size")
    return value


def _check_squares(name: str, arr: np.ndarray) -> None:
    """Refuse entries whose squares or sums overflow (the data's use would give inf)."""
    with np.errstate(over="ignore"):
        ok = np.isfinite(np.sum(arr * arr))
    if not ok:
        raise ValueError(f"{name} is too large: its sum of squares overflows "
                         f"(entries must stay well below 1e150 in size)")


def sequence(name: str, value) -> list:
    """``value`` as a list, refusing strings, ``None`` and non-iterables."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a sequence, got {_describe(value)}")
    return list(value)


def ranks(name: str, value, *, low: int = 1) -> tuple[int, ...]:
    """A non-empty sequence of integers >= ``low`` (factor ranks), as a tuple."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a sequence of integers >= {low}, got {_describe(value)}")
    out = tuple(integer(name, r, low=low) for r in value)
    if not out:
        raise ValueError(f"{name} must be a non-empty sequence of integers >= {low}, got none")
    return out


def finite_vector(name: str, value, *, min_len: int = 1) -> np.ndarray:
    """Return a 1-D float array with at least ``min_len`` finite entries whose squares sum finitely."""
    arr = real_array(name, value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name} must have at least {min_len} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    _check_squares(name, arr)
    return arr


def finite_matrix(name: str, value, *, min_rows: int = 1, shape: str = "(N, d)",
                  hint: str = "") -> np.ndarray:
    """Return a 2-D float array with at least ``min_rows`` rows, one column, and only finite entries.

    ``shape`` names the axes in the message (``"(N, k)"``); ``hint`` is appended to it. Entries
    whose squares sum to inf are refused too.
    """
    arr = real_array(name, value)
    if arr.ndim != 2 or arr.shape[0] < min_rows or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array of shape {shape} with at least {min_rows} "
                         f"row(s) and 1 column{hint}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    _check_squares(name, arr)
    return arr


def interval(name: str, value, *, positive: bool = False) -> tuple[float, float]:
    """A pair ``(low, high)`` of finite numbers with ``low < high`` (and ``low > 0`` if ``positive``)."""
    arr = real_array(name, value)
    if (arr.shape != (2,) or not np.all(np.isfinite(arr)) or not arr[0] < arr[1]
            or (positive and not arr[0] > 0)):
        cond = "0 < low < high" if positive else "low < high"
        raise ValueError(f"{name} must be two finite numbers (low, high) with {cond}, got {_describe(value)}")
    return float(arr[0]), float(arr[1])


def extent(name: str, value) -> tuple[float, float, float, float]:
    """A plot box ``(x0, x1, y0, y1)``: four finite numbers with ``x0 < x1`` and ``y0 < y1``."""
    arr = real_array(name, value)
    if arr.shape != (4,) or not np.all(np.isfinite(arr)) or not (arr[0] < arr[1] and arr[2] < arr[3]):
        raise ValueError(f"{name} must be four finite numbers (x0, x1, y0, y1) with x0 < x1 and "
                         f"y0 < y1, got {_describe(value)}")
    return tuple(float(a) for a in arr)


def mean_cov(mean, cov, dim: int, names: tuple[str, str] = ("mean", "cov")) -> tuple[np.ndarray, np.ndarray]:
    """Check a Gaussian's mean (dim,) and symmetric positive-definite cov (dim, dim)."""
    m_name, c_name = names
    mean = real_array(m_name, mean)
    cov = real_array(c_name, cov)
    if mean.shape != (dim,):
        raise ValueError(f"{m_name} must have shape ({dim},), got {mean.shape}")
    if cov.shape != (dim, dim):
        raise ValueError(f"{c_name} must have shape ({dim}, {dim}), got {cov.shape}")
    if not np.all(np.isfinite(mean)):
        raise ValueError(f"{m_name} must be finite (no NaN or inf)")
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"{c_name} must be finite (no NaN or inf)")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError(f"{c_name} must be symmetric")
    try:
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(f"{c_name} must be positive definite") from None
    return mean, 0.5 * (cov + cov.T)


def mean_cov_shapes(mean, cov, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian's ``mean`` (dim,) and ``cov`` (dim, dim) as real arrays, their shapes checked together.

    The cheap check of an expectation's arguments (``expected_energy``, called at every
    step of a fit): no finiteness or definiteness test, unlike :func:`mean_cov`.
    """
    mean = real_array("mean", mean)
    cov = real_array("cov", cov)
    if mean.shape != (dim,) or cov.shape != (dim, dim):
        raise ValueError(f"mean must have shape ({dim},) and cov ({dim}, {dim}), "
                         f"got {mean.shape} and {cov.shape}")
    return mean, cov


def gaussians(name: str, value, dim: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """A list of (mean, cov) starting Gaussians, each checked by :func:`mean_cov`."""
    if value is None or isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a list of (mean, cov) pairs, got {_describe(value)}")
    pairs = list(value)
    if not pairs:
        raise ValueError(f"{name} must hold at least one (mean, cov) pair, got none")
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"{name}[{i}] must be a (mean, cov) pair, got {_describe(pair)}")
        out.append(mean_cov(pair[0], pair[1], dim, (f"{name}[{i}] mean", f"{name}[{i}] cov")))
    return out


def posterior(name: str, value):
    """A posterior of this library (or a bound like it): has ``dim``, ``expected_energy`` and
    ``log_normalisers``."""
    if not all(hasattr(value, a) for a in ("dim", "expected_energy", "log_normalisers")):
        raise ValueError(f"{name} must be a posterior (e.g. a ToyPosterior, LinearGaussianPosterior "
                         f"or NetworkPosterior), got {type(value).__name__}")
    return value


def instance(name: str, value, kind, what: str | None = None):
    """``value`` if it is an instance of ``kind`` (a type or tuple of types); else a ValueError naming
    ``name`` and what it must be (``what``, default "a <kind>")."""
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        what = what or " or ".join(f"a {k.__name__}" for k in kinds)
        raise ValueError(f"{name} must be {what}, got {type(value).__name__}")
    return value


def mapping(name: str, value, keys=(), what: str = "a dict") -> dict:
    """``value`` if it is a dict holding every key of ``keys`` (a stored result); else a ValueError."""
    if not isinstance(value, dict) or not all(k in value for k in keys):
        held = f" with {', '.join(map(str, keys))}" if keys else ""
        got = "a dict without them" if isinstance(value, dict) else _describe(value)
        raise ValueError(f"{name} must be {what}{held}, got {got}")
    return value


def records(name: str, value, keys=()) -> list:
    """``value`` as a list if it is a non-empty sequence of dicts each holding ``keys`` (table rows)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a non-empty list of rows (dicts), got {_describe(value)}")
    rows = list(value)
    if not rows or not all(isinstance(r, dict) and all(k in r for k in keys) for r in rows):
        held = f" with {', '.join(map(str, keys))}" if keys else ""
        raise ValueError(f"{name} must be a non-empty list of rows (dicts{held}), got {_describe(rows)}")
    return rows


def generator(name: str, rng) -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (no global seeding)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)), "
            f"got {type(rng).__name__}"
        )
    return rng


__all__ = ["PRECISION_RANGE", "callback", "choice", "extent", "finite_array", "finite_matrix",
           "finite_result", "finite_vector", "flag", "gaussians", "generator", "instance", "integer", "interval",
           "mapping", "mean_cov", "mean_cov_shapes", "noise_sd", "positive", "posterior", "precision", "ranks",
           "real", "real_array", "records", "sequence"]
