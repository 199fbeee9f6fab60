"""The sigmoid, its logarithm and their expectations under a 1-D Gaussian: ⟨ln σ(a)⟩ and its derivatives (the
bound's only integrals), the exact predictive ∫σ(a)N(a|m, s²)da and MacKay's moderated output ψ(a_MP, s²)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import expit

from ...core import validation as check
from ...core.gaussian import LOG_2PI, gauss_hermite

# ---------------------------------------------------------------------------
# The sigmoid, its logarithm and their expectations under a 1-D Gaussian
# ---------------------------------------------------------------------------


def logistic(a):
    """``σ(a) = 1/(1 + e^{−a})``, the output of MacKay's neuron (MacKay (17)), without overflow."""
    return expit(_finite("a", a))


def _finite(name, a):
    """An array (or number) argument of the public functions: real, every entry finite."""
    a = check.finite_array(name, a)
    return a[()] if a.ndim == 0 else a


def log_sigmoid(a):
    """``ln σ(a) = −ln(1 + e^{−a})``, stable for every finite ``a`` (−a for a ≪ 0, −e^{−a} for a ≫ 0).

    The log likelihood of one label under MacKay (17): ``ln P(t|x, w) = ln σ((2t − 1) w·x)``.
    """
    return _log_sigmoid(_finite("a", a))


def _log_sigmoid(a):
    return np.minimum(a, 0.0) - np.log1p(np.exp(-np.abs(a)))


#: The 1-D rule covers |z| ≤ _Z_CUT standard deviations (the N(0, 1) mass outside: 2e-19) ...
_Z_CUT = 9.0
#: ... with Gauss–Legendre panels of this many nodes, at most one unit wide in z.
_PANEL_NODES = 10


@lru_cache(maxsize=4)
def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def normal_rule(mean, sd) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``a`` and weights ``p`` with ``Σ_i p_i f(a_i) ≈ E[f(a)]``, a ~ N(mean, sd²), per entry.

    For functions like ln σ(a) and σ(a) that change on the unit scale around ``a = 0`` (their
    singularities are at ``a = ±iπ``) and are smooth elsewhere. In ``z = (a − mean)/sd`` the
    rule is composite 10-point Gauss–Legendre on ``|z| ≤ 9``, with the N(0, 1) density in its
    weights, on unit panels plus panels graded geometrically towards ``z₀ = −mean/sd`` (where
    a = 0): ``z₀ ± 2^j/sd``, j = 0, 1, …. Every panel is at most as long as its distance from
    ``a = 0`` (or its unit width), so however broad the Gaussian (an ``sd`` of 10⁴ puts the
    whole change of σ within 10⁻⁴ in z) the error for ln σ and σ stays below about 1e-13
    (``tests/models/test_classification.py`` checks it against adaptive quadrature); ``sd = 0`` gives
    ``f(mean)``.

    Parameters
    ----------
    mean, sd : array_like of the same shape (...)
        Means and standard deviations (≥ 0), finite.

    Returns
    -------
    a, p : ndarrays of shape (..., M)
        The same number M of nodes for every entry (panels clipped to |z| ≤ 9 have zero width
        and weight).
    """
    mean, sd = _finite("mean", mean), _finite("sd", sd)
    if np.shape(mean) != np.shape(sd):
        raise ValueError(f"mean and sd must have the same shape, got {np.shape(mean)} and {np.shape(sd)}")
    if np.any(sd < 0.0):
        raise ValueError("sd must be >= 0 (standard deviations)")
    return _normal_rule(mean, sd)


def _normal_rule(mean, sd):
    mean = np.asarray(mean, dtype=float)
    sd = np.asarray(sd, dtype=float)
    mean, sd = np.broadcast_arrays(mean, sd)
    s = np.maximum(sd, 1e-300)
    z0 = np.clip(-mean / s, -2.0 * _Z_CUT, 2.0 * _Z_CUT)
    width = 1.0 / s
    s_max = float(np.max(s)) if s.size else 1.0
    n_steps = int(np.clip(np.ceil(np.log2(max(2.0 * _Z_CUT * s_max, 1.0))) + 1, 1, 64))
    steps = width[..., None] * 2.0 ** np.arange(n_steps)
    unit = np.broadcast_to(np.arange(-_Z_CUT, _Z_CUT + 0.5), mean.shape + (int(2 * _Z_CUT) + 1,))
    breaks = np.concatenate([unit, z0[..., None] + steps, z0[..., None] - steps, z0[..., None]], axis=-1)
    breaks = np.sort(np.clip(breaks, -_Z_CUT, _Z_CUT), axis=-1)
    x, wq = _legendre(_PANEL_NODES)
    mid = 0.5 * (breaks[..., 1:] + breaks[..., :-1])
    half = 0.5 * (breaks[..., 1:] - breaks[..., :-1])
    z = (mid[..., None] + half[..., None] * x).reshape(mean.shape + (-1,))
    p = (half[..., None] * wq).reshape(mean.shape + (-1,)) * np.exp(-0.5 * z * z - 0.5 * LOG_2PI)
    return mean[..., None] + sd[..., None] * z, p


#: Gaussians of activation s.d. up to this use the Gauss–Hermite rule of _GH_NODES nodes (error
#: below 1e-14 for ln σ and σ; tests/models/test_classification.py), broader ones :func:`normal_rule`.
_GH_REACH = 1.0
_GH_NODES = 64


def _gaussian_average(funcs, mean, sd) -> list[np.ndarray]:
    """``[E[f(a)] for f in funcs]``, a ~ N(mean, sd²) per entry: Gauss–Hermite where sd ≤ 1, else
    :func:`normal_rule`."""
    mean, sd = np.broadcast_arrays(np.asarray(mean, dtype=float), np.asarray(sd, dtype=float))
    out = [np.empty(mean.shape) for _ in funcs]
    narrow = sd <= _GH_REACH
    if np.any(narrow):
        z, p = gauss_hermite(_GH_NODES)
        a = mean[narrow][:, None] + sd[narrow][:, None] * z
        for o, f in zip(out, funcs):
            o[narrow] = f(a) @ p
    if not np.all(narrow):
        a, p = _normal_rule(mean[~narrow], sd[~narrow])
        for o, f in zip(out, funcs):
            o[~narrow] = np.sum(p * f(a), axis=-1)
    return out


def _sigmoid_curvature(a):
    return expit(a) * expit(-a)


def expected_log_sigmoid(mean, var) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``E[ln σ(a)]`` for ``a ~ N(mean, var)`` and its derivatives in ``mean`` and ``var``.

    By a 1-D rule: 64-node Gauss–Hermite for a standard deviation ≤ 1, else the composite rule
    :func:`normal_rule` (either way error below about 1e-13, for any mean and variance). The
    derivatives are ``∂/∂mean = E[σ(−a)]`` and, by Price's (Stein's) identity,
    ``∂/∂var = ½ E[d² ln σ/da²] = −½ E[σ(a)σ(−a)]``.

    Parameters
    ----------
    mean, var : array_like of the same shape
        Finite means; finite variances ≥ 0.

    Returns
    -------
    value, d_mean, d_var : ndarrays of the broadcast shape
    """
    mean, var = _finite("mean", mean), _finite("var", var)
    if np.shape(mean) != np.shape(var):
        raise ValueError(f"mean and var must have the same shape, got {np.shape(mean)} and {np.shape(var)}")
    if np.any(var < 0.0):
        raise ValueError("var must be >= 0 (variances)")
    return _expected_log_sigmoid(mean, var)


def _expected_log_sigmoid(mean, var):
    sd = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0.0))
    value, d_mean, curv = _gaussian_average((_log_sigmoid, lambda a: expit(-a), _sigmoid_curvature),
                                            mean, sd)
    return value, d_mean, -0.5 * curv


def predictive_probability(mean, var) -> np.ndarray:
    """``P(t = 1 | x, Q) = E[σ(a)]`` for an activation ``a = w·x ~ N(mean, var)`` (MacKay §5.4).

    The Bayesian (moderated) output of the neuron under a Gaussian Q of the weights, by the 1-D
    rule of :func:`expected_log_sigmoid` (error below about 1e-13): ``mean = w̄·x``,
    ``var = xᵀCx``.
    """
    mean = check.real_array("mean", mean)
    var = check.real_array("var", var)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(var)) and np.all(var >= 0)):
        raise ValueError("mean must be finite and var finite and ≥ 0")
    return _gaussian_average((expit,), mean, np.sqrt(var))[0]


def moderated_output(a_mp, s2) -> np.ndarray:
    """MacKay's moderated output ``ψ(a_MP, s²) ≈ σ(κ(s) a_MP)``, ``κ(s) = (1 + πs²/8)^{−1/2}`` (MacKay §5.4).

    The approximation of MacKay (1992c), cited in MacKay §5.4, to the predictive probability
    ``∫ σ(a) N(a; a_MP, s²) da`` (:func:`predictive_probability`): σ replaced by the probit
    ``Φ(√(π/8) a)`` of the same slope at 0, whose Gaussian average is exact. Its largest
    error is about 0.02 (tests/models/test_classification.py reports it over a panel's range).

    Parameters
    ----------
    a_mp : array_like
        The activation at the most probable weights, ``w_MP·x``.
    s2 : array_like
        Its variance ``s² = xᵀ A⁻¹ x`` (A the Hessian at w_MP), ≥ 0.
    """
    a_mp = check.real_array("a_mp", a_mp)
    s2 = check.real_array("s2", s2)
    if not np.all(np.isfinite(a_mp)):
        raise ValueError("a_mp must be finite (no NaN or inf)")
    if not (np.all(np.isfinite(s2)) and np.all(s2 >= 0)):
        raise ValueError("s2 must be finite and ≥ 0")
    kappa = 1.0 / np.sqrt(1.0 + np.pi * s2 / 8.0)
    return expit(kappa * a_mp)


__all__ = ["expected_log_sigmoid", "log_sigmoid", "logistic",
           "moderated_output", "normal_rule", "predictive_probability"]
