"""Laplace's evidence as the mass of one mode's basin, against the exact mass (toy, Fig. 2).

MacKay ("Probable networks" §4.1) treats each local peak of a multi-modal posterior as a model of
its own and aims "to calculate the posterior probability mass in each local optimum"; Laplace's
Gaussian at the mode estimates that mass as

.. math:: M_{\\rm Laplace} = P^*(\\mathbf w_{MP})\\,(2\\pi)^{k/2}|\\mathbf A|^{-1/2}
          \\qquad(\\text{MacKay (20) without } Z_D Z_W),

and the evidence of the whole model multiplies it by the number of equivalent modes (the
symmetry factor, 2 for the toy's mirror pair). Barber & Bishop's NIPS Fig. 1 caption says Laplace
"underestimates the local posterior mass by basing the covariance matrix on the mode alone".

On the 2-weight toy the posterior is known on a grid, so the exact mass of a basin — the set of
points from which steepest ascent climbs to the mode — can be summed directly:

* :func:`basin_labels` labels every cell of a 2-D grid with the peak its discrete steepest ascent
  reaches (each cell steps to the highest of itself and its eight neighbours);
* :func:`toy_posterior_on_ridge_grid` puts the toy's exact density on a grid that follows its
  narrow curved ridge (v given u is Gaussian), so that a plain grid resolves it at any α;
* :func:`toy_local_mass` gives, for one mode of a :class:`~ensemble_lib.ToyPosterior`, the exact
  basin mass (grid sum, normalised by the exact ln Z), Laplace's estimate of it, the estimate of the
  same mass by Laplace on the exact marginal of u (v integrated in closed form), and how much of the
  basin's mass lies inside Laplace's 1σ and 2σ ellipses (a Gaussian holds 39.3 % and 86.5 %).

Code names: ``log_basin_mass`` = ln M_basin, ``log_laplace_mass`` = ln M_Laplace,
``log_marginal_laplace_mass`` = ln of Laplace's estimate on the u-marginal, all of the
unnormalised posterior exp(−βE_D − α‖w‖²/2) (add −ln Z_D − ln Z_W for evidences).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..core.gaussian import LOG_2PI
from ..models.erf_network import sigma
from ..models.toy import ToyPosterior
from .laplace import laplace_fit

#: the Gaussian's own mass inside its n-σ ellipse in two dimensions: 1 − exp(−n²/2)
GAUSSIAN_INSIDE = {1: 1.0 - math.exp(-0.5), 2: 1.0 - math.exp(-2.0)}


def basin_labels(log_density) -> tuple[np.ndarray, np.ndarray]:
    """Label each cell of a 2-D grid by the peak its discrete steepest ascent reaches.

    Parameters
    ----------
    log_density : array_like, shape (n_rows, n_cols)
        Log density (or any function to climb) on a regular grid, finite, at least 3 × 3.

    Returns
    -------
    (labels, peaks)
        ``labels[i, j]`` is the index into ``peaks`` of the peak cell ``(i, j)`` climbs to;
        ``peaks`` (n_peaks, 2) holds the peaks' (row, column), in order of their flat index. A
        cell steps to the highest of itself and its eight neighbours (the first on ties), so
        every path ends at a local maximum of the grid.
    """
    L = check.finite_array("log_density", log_density, ndim=2)
    if min(L.shape) < 3:
        raise ValueError(f"log_density must be at least 3 x 3, got shape {L.shape}")
    n_r, n_c = L.shape
    pad = np.full((n_r + 2, n_c + 2), -np.inf)
    pad[1:-1, 1:-1] = L
    idx = np.arange(n_r * n_c).reshape(n_r, n_c)
    best, to = L.copy(), idx.copy()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            nb = pad[1 + dr: 1 + dr + n_r, 1 + dc: 1 + dc + n_c]
            up = nb > best
            best = np.where(up, nb, best)
            shifted = np.clip(idx + dr * n_c + dc, 0, n_r * n_c - 1)  # only used where up (inside)
            to = np.where(up, shifted, to)
    to = to.ravel()
    while True:  # pointer jumping: every cell to the end of its path
        nxt = to[to]
        if np.array_equal(nxt, to):
            break
        to = nxt
    peak_idx, labels = np.unique(to, return_inverse=True)
    return labels.reshape(n_r, n_c), np.column_stack(np.unravel_index(peak_idx, (n_r, n_c)))


@dataclass(frozen=True)
class LocalMass:
    """One mode of the toy: its basin's exact mass beside Laplace's estimates (module docstring)."""

    alpha: float
    beta: float
    mode: np.ndarray
    log_Z: float  # exact ln ∫ P* over the whole plane (both modes)
    log_basin_mass: float  # exact ln ∫_basin P*
    log_laplace_mass: float  # ln P*(w_MP) + ln 2π − ½ ln|A|
    log_marginal_laplace_mass: float  # Laplace on the exact u-marginal ln g(u) of the same half
    inside_1sd: float  # share of the basin's exact mass inside Laplace's 1σ ellipse
    inside_2sd: float  # … inside its 2σ ellipse
    n_basins: int  # basins (local maxima) the grid finds
    grid_mass: float  # the grid's sum of the normalised density (1 up to the grid's error)

    @property
    def laplace_excess(self) -> float:
        """ln M_Laplace − ln M_basin: Laplace's error in the basin's mass (nats; > 0 over)."""
        return self.log_laplace_mass - self.log_basin_mass

    @property
    def marginal_laplace_excess(self) -> float:
        """The same for Laplace on the u-marginal."""
        return self.log_marginal_laplace_mass - self.log_basin_mass


def marginal_laplace_log_mass(post: ToyPosterior, sign: float = -1.0) -> tuple[float, float]:
    """Laplace's method on the toy's exact u-marginal ln g(u) (v integrated in closed form).

    The mode u* of ln g on the half-line of the given ``sign`` (−1: u < 0, the mode of the
    generating weights), its curvature κ = −d² ln g/du² by central differences, and
    ``ln g(u*) + ½ ln(2π/κ)``, Laplace's estimate of ∫ g over that half-line. Returns
    ``(log_mass, u_star)``.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    sign = check.real("sign", sign)
    if sign not in (-1.0, 1.0):
        raise ValueError(f"sign must be -1 or 1, got {sign}")
    u0, u1, _, _ = post.extent(1.0)
    lg = lambda s: float(post.log_marginal_u(np.array([sign * s]))[0])  # noqa: E731 (s > 0)
    s_grid = np.linspace(1e-6, max(abs(u0), abs(u1)), 4001)
    vals = post.log_marginal_u(sign * s_grid)
    j = int(np.argmax(vals))
    lo, hi = s_grid[max(j - 1, 0)], s_grid[min(j + 1, s_grid.size - 1)]
    s_star = optimize.minimize_scalar(lambda s: -lg(s), bounds=(lo, hi), method="bounded",
                                      options={"xatol": 1e-12 * max(1.0, hi)}).x
    h = 0.1 * (s_grid[1] - s_grid[0])  # a tenth of the scan's step: well inside the peak
    kappa = -(lg(s_star + h) - 2 * lg(s_star) + lg(s_star - h)) / h**2
    if not kappa > 0:
        raise ValueError("the u-marginal has no curvature at its mode (kappa <= 0): no Laplace estimate")
    return lg(s_star) + 0.5 * (LOG_2PI - math.log(kappa)), float(sign * s_star)


def _u_nodes(post: ToyPosterior, n: int) -> np.ndarray:
    """u nodes: ``n`` uniform over the plotting box, then geometric out to where ln g(u) is 40 below its peak."""
    u0, u1, _, _ = post.extent(1.0)
    inner = np.linspace(u0, u1, n)
    peak = float(np.max(post.log_marginal_u(inner)))
    far = u1
    while float(post.log_marginal_u(np.array([far]))[0]) > peak - 40.0 and far < 1e6:
        far *= 2.0
    outer = np.geomspace(u1, far, 41)[1:] if far > u1 else np.empty(0)
    return np.concatenate([-outer[::-1], inner, outer])


def toy_posterior_on_ridge_grid(post: ToyPosterior, n: int = 801, z_max: float = 8.0):
    """The toy's normalised log density on a grid that follows its ridge, with each node's mass.

    Given u, v is Gaussian with mean μ(u) = βB(u)/(βA(u) + α) and precision βA(u) + α
    (module docstring of :mod:`ensemble_lib.models.toy`), so the nodes are
    ``v = μ(u) + z/√(βA(u) + α)`` for ``n`` values of z in [−z_max, z_max] and u nodes (:func:`_u_nodes`)
    that reach where the u-marginal is e^−40 below its peak: the narrow curved ridge is resolved
    however small α is. Returns ``(u, V, log_density, node_mass)``, the last three of shape
    (n_z, n_u) (rows z, columns u); ``node_mass`` = density × du × dz / √(βA + α) (trapezoid widths).
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    n = check.integer("n", n, low=11, high=2001)
    z_max = check.positive("z_max", z_max)
    u = _u_nodes(post, n)
    z = np.linspace(-z_max, z_max, n)
    s = sigma(np.multiply.outer(u, post.x))
    prec = post.beta * np.sum(s * s, axis=1) + post.alpha
    mu = post.beta * (s @ post.t) / prec
    V = mu[None, :] + z[:, None] / np.sqrt(prec)[None, :]
    # ln P*(u, v) = ln g(u) − ½ ln(2π/prec(u)) − ½ z²: v enters quadratically (no 2-D E_D needed)
    log_c = post.log_marginal_u(u) - 0.5 * (LOG_2PI - np.log(prec))
    logp = log_c[None, :] - 0.5 * z[:, None] ** 2 - post.log_Z
    du = np.gradient(u)
    du[[0, -1]] *= 0.5
    dz = np.full(n, z[1] - z[0])
    dz[[0, -1]] *= 0.5
    return u, V, logp, np.exp(logp) * np.outer(dz, du / np.sqrt(prec))


def toy_local_mass(post: ToyPosterior, quadrant=(-1, -1), n: int = 801) -> LocalMass:
    """Exact mass of one toy mode's basin beside Laplace's estimates (module docstring).

    MacKay §4.1: each local peak is a model whose evidence is its basin's posterior mass; Laplace's
    Gaussian at the mode estimates it.

    Parameters
    ----------
    post : ToyPosterior
    quadrant : pair of signs
        The mode's (sign u, sign v), as for :func:`~ensemble_lib.laplace_fit`; (−1, −1) is the
        mode of the generating weights, (1, 1) its mirror image.
    n : int
        Grid points per axis (101 to 2001) of :func:`toy_posterior_on_ridge_grid`, where the basins
        are labelled (:func:`basin_labels`) and summed.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    n = check.integer("n", n, low=101, high=2001)
    lap = laplace_fit(post, quadrant=quadrant, compute_kl=False)
    u, V, logp, mass = toy_posterior_on_ridge_grid(post, n)
    labels, peaks = basin_labels(logp)
    j = int(np.argmin(np.abs(u - lap.mean[0])))
    i = int(np.argmin(np.abs(V[:, j] - lap.mean[1])))
    basin = labels == labels[i, j]
    basin_frac = float(mass[basin].sum())
    dU, dV = u[None, :] - lap.mean[0], V - lap.mean[1]
    H = lap.hessian
    m2 = H[0, 0] * dU * dU + 2 * H[0, 1] * dU * dV + H[1, 1] * dV * dV
    log_lap = float(post.log_unnorm(lap.mean)) + 0.5 * post.dim * LOG_2PI - 0.5 * lap.hessian_factor.log_det
    log_marg, _ = marginal_laplace_log_mass(post, float(np.sign(lap.mean[0]) or -1.0))
    log_Z = float(post.log_Z)
    return LocalMass(
        alpha=post.alpha, beta=post.beta, mode=lap.mean, log_Z=log_Z,
        log_basin_mass=log_Z + math.log(basin_frac), log_laplace_mass=log_lap,
        log_marginal_laplace_mass=float(log_marg),
        inside_1sd=float(mass[basin & (m2 < 1.0)].sum() / basin_frac),
        inside_2sd=float(mass[basin & (m2 < 4.0)].sum() / basin_frac),
        n_basins=int(len(peaks)), grid_mass=float(mass.sum()))


__all__ = ["GAUSSIAN_INSIDE", "LocalMass", "basin_labels", "marginal_laplace_log_mass", "toy_local_mass",
           "toy_posterior_on_ridge_grid"]
