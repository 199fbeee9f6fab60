"""When a KL fit has stopped: the gradient test, its round-off floor, the objective's own noise,
and the Newton polish that finishes a fit whose line search stalled at round-off.

Helpers of :mod:`~ensemble_lib.inference.kl_fit` (and of the network fits, which stop by the same
rules): ``fun(θ) -> (value, gradient)`` is the objective in a covariance family's parameters.
"""

from __future__ import annotations

import numpy as np

from ..core.gaussian import CovarianceFamily

#: an L-BFGS-B fit of up to this many parameters that stopped above its tolerance (its line search
#: stalls where the objective's changes reach round-off) is finished by Newton steps on the exact
#: gradient, as kl_fit's small path (BFGS) is; each costs 2 × (number of parameters) gradient evaluations
_POLISH_MAX = 90
#: :func:`objective_noise` moves one parameter at a time up to this many parameters, all at once above
_NOISE_EACH = 8


def gradient_converged(grad, gtol: float) -> bool:
    """The one meaning of ``converged`` in this library's fits: max_i |∂objective/∂θ_i| ≤ ``gtol``.

    ``grad`` is the gradient of the minimised objective in the family's parameters θ at the
    returned point — whatever stopped the optimiser (its own gradient test, a relative-change
    rule, a failed line search or the iteration limit). The iteration limit is reported apart
    (``at_limit``).
    """
    g = np.asarray(grad, dtype=float)
    return bool(g.size == 0 or (np.all(np.isfinite(g)) and float(np.max(np.abs(g))) <= gtol))


def no_descent(fun, theta, g, rel: float = 1e-12) -> bool:
    """Whether no step down the gradient ``g`` lowers ``fun`` at ``theta`` by more than ``rel``
    (relative to max(1, |f|)): steps of 10⁻¹² to 10⁻⁴ times max(1, ‖θ‖), one per decade.

    A gradient that the objective's own numerical noise dominates (an adaptive quadrature's error,
    for a very sharp posterior) can stay far above any tolerance at a point no step improves;
    this checks the point itself.
    """
    theta = np.asarray(theta, dtype=float)
    g = np.asarray(g, dtype=float)
    norm = float(np.linalg.norm(g))
    if not (norm > 0 and np.isfinite(norm)):
        return bool(norm == 0)
    f0 = float(fun(theta)[0])
    if not np.isfinite(f0):
        return False
    direction = g / norm
    scale = max(1.0, float(np.linalg.norm(theta)))
    for s in np.geomspace(1e-12, 1e-4, 9) * scale:
        f = float(fun(theta - s * direction)[0])
        if np.isfinite(f) and f < f0 - rel * max(1.0, abs(f0)):
            return False
    return True


def objective_noise(fun, theta, f0: float | None = None, g=None) -> float:
    """The objective's round-off at ``theta``: the largest ``|f(θ + δ) − f(θ) − g·δ|`` over steps
    δ of ±1, 4, 16, 64 and 256 units in the last place of one θ_j at a time (of every θ_j at once,
    with equal and with alternating signs, for more than :data:`_NOISE_EACH` parameters: 20
    evaluations, not 10 per parameter).

    Steps this small change a smooth objective by its gradient term alone, so what is left is
    the noise of its evaluation (a very sharp posterior's sums cancel terms near 10⁶: its noise
    comes in quanta of about 10⁻¹⁰, 10⁻¹² of a value near 100, not 10⁻¹⁶). ``f0`` and ``g`` are
    f(θ) and its gradient if known.
    """
    theta = np.asarray(theta, dtype=float)
    if f0 is None or g is None:
        f0, g = fun(theta)
    f0, g = float(f0), np.asarray(g, dtype=float)
    ulp = np.abs(np.spacing(theta))
    if theta.size <= _NOISE_EACH:
        directions = [ulp[j] * np.eye(theta.size)[j] for j in range(theta.size)]
    else:
        directions = [ulp, ulp * np.where(np.arange(theta.size) % 2, -1.0, 1.0)]
    spread = 0.0
    for direction in directions:
        for k in (1.0, -1.0, 4.0, -4.0, 16.0, -16.0, 64.0, -64.0, 256.0, -256.0):
            step = k * direction
            f = float(fun(theta + step)[0])
            if not np.isfinite(f):
                return float("inf")
            spread = max(spread, abs(f - f0 - float(g @ step)))
    return spread


def gradient_floor(fun, theta) -> float:
    """How much the gradient changes when the parameters move by one unit in the last place.

    ``max_i Σ_j |g_i(θ + u_j e_j) − g_i(θ − u_j e_j)| / 2`` with ``u_j`` the spacing of floats at
    θ_j (for more than :data:`_POLISH_MAX` parameters, all moved at once). Below this a gradient
    is round-off: no representable θ is closer to stationary. It matters for very sharp
    posteriors (large β), where one ulp of a mean is a sizeable fraction of Q's width.
    """
    theta = np.asarray(theta, dtype=float)
    ulp = np.abs(np.spacing(theta))
    if theta.size > _POLISH_MAX:
        steps = [ulp]
    else:
        steps = [ulp[j] * np.eye(theta.size)[j] for j in range(theta.size)]
    total = np.zeros(theta.size)
    for step in steps:
        d = np.abs(np.asarray(fun(theta + step)[1]) - np.asarray(fun(theta - step)[1]))
        if not np.all(np.isfinite(d)):
            return 0.0
        total += 0.5 * d
    return float(total.max()) if total.size else 0.0


def _newton_polish(fun, theta, g, tol, hess_inv=None, max_steps=4, eps=1e-6, widths=None):
    """Drive the gradient norm below ``tol`` near the optimum.

    Line searches on the objective stall near the optimum, where its change is
    below round-off; steps on the gradient do not. First quasi-Newton steps
    with BFGS's inverse-Hessian estimate (one evaluation each), then, if
    needed, Newton steps with a central-difference Hessian of the exact
    gradient. A step is kept only if it reduces the gradient norm (a Newton step: in raw or in
    coordinates scaled by the Hessian's diagonal, without raising the objective beyond its
    round-off: 10⁻¹² of its value, or up to 10⁻⁹ of it where :func:`objective_noise` shows that
    much noise). The difference
    step of parameter i is ``eps·max(1, |θ_i|)``, or at most ``100·eps·widths[i]`` where
    ``widths`` gives its scale (a mean's step is a fraction of Q's standard deviation: a very
    sharp posterior has a mean known to far less than 10⁻⁶).
    """
    n = theta.size
    if hess_inv is not None:
        for _ in range(12):
            if np.linalg.norm(g) <= tol:
                return theta, g
            f_new, g_new = fun(theta - hess_inv @ g)
            if not np.isfinite(f_new) or np.linalg.norm(g_new) >= 0.7 * np.linalg.norm(g):
                break
            theta, g = theta - hess_inv @ g, g_new
    f_old = None
    for _ in range(max_steps):
        if np.linalg.norm(g) <= tol:
            break
        if f_old is None:
            f_old = float(fun(theta)[0])
        H = np.empty((n, n))
        for i in range(n):
            e = np.zeros(n)
            e[i] = eps * max(1.0, abs(theta[i]))
            if widths is not None and np.isfinite(widths[i]) and widths[i] > 0:
                e[i] = min(e[i], 100.0 * eps * widths[i])
            H[:, i] = (fun(theta + e)[1] - fun(theta - e)[1]) / (2.0 * e[i])
        H = 0.5 * (H + H.T)
        # solve in coordinates scaled by √H_ii: a sharp posterior's mean and a broad one's
        # variance give a Hessian whose raw condition number would hide the broad directions
        d = np.sqrt(np.abs(np.diag(H)))
        d[~(d > 0)] = 1.0
        try:
            step = np.linalg.lstsq(H / np.outer(d, d), g / d, rcond=1e-12)[0] / d
        except np.linalg.LinAlgError:
            break
        f_new, g_new = fun(theta - step)
        # kept if the gradient shrinks in raw or in scaled coordinates (a step that settles a
        # broad direction may leave a residue in a stiff one that is large in raw units but tiny
        # in its own; one along a nearly flat, over-parametrised direction may do the reverse)
        # and the objective does not rise beyond its round-off
        smaller = (np.linalg.norm(g_new) < np.linalg.norm(g)
                   or np.linalg.norm(g_new / d) < np.linalg.norm(g / d))
        rise = f_new - f_old if np.isfinite(f_new) else np.inf
        if rise > 1e-12 * max(1.0, abs(f_old)) and rise <= 1e-9 * max(1.0, abs(f_old)):
            # a rise this small may be the objective's own noise (a very sharp posterior's
            # sums): measured at both ends of the step, three times it is still round-off
            noise = max(objective_noise(fun, theta, f_old, g),
                        objective_noise(fun, theta - step, f_new, g_new))
            if rise <= 3.0 * noise:
                rise = 0.0
        if not (smaller and rise <= 1e-12 * max(1.0, abs(f_old))):
            break
        theta, g, f_old = theta - step, g_new, float(f_new)
    return theta, g


def finish_lbfgs(fun, fam: CovarianceFamily, theta, g, tol: float):
    """Finish an L-BFGS-B fit of ``fam`` that stopped above ``tol`` (see :data:`_POLISH_MAX`).

    Returns ``(theta, g)``: unchanged if the fit already meets :func:`gradient_converged` or the
    family has more than ``_POLISH_MAX`` parameters, else after :func:`_newton_polish`.
    """
    if fam.n_params <= _POLISH_MAX and not gradient_converged(g, tol):
        return _newton_polish(fun, theta, g, tol)
    return theta, g


__all__ = []  # helpers of the fits (kl_fit, network_fits); the public fit is kl_fit
