"""MacKay's single neuron: its data (:func:`classification_data`), the exact posterior on a grid with its
normaliser (:class:`ClassificationGrid`), and :class:`LogisticPosterior` (log posterior, Laplace, the bound F[Q])."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import expit, logsumexp

from ...core import validation as check
from ...core.gaussian import LOG_2PI, GaussianFactor, gaussian_entropy
from ..posterior import Expectation
from ..toy import PosteriorGrid
from .sigmoid import _expected_log_sigmoid, _log_sigmoid

# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

#: MacKay's Fig. 5 weight vector w = (0, 2).
MACKAY_FIG5_W = (0.0, 2.0)


@dataclass(frozen=True)
class ClassificationData:
    """Inputs ``x`` (N, k), labels ``t`` (N,) in {0, 1} and the weights ``w`` that drew them."""

    x: np.ndarray
    t: np.ndarray
    w: np.ndarray


def classification_data(rng: np.random.Generator, n: int = 10, w=MACKAY_FIG5_W, input_sd: float = 2.0,
                        bias: float | None = None) -> ClassificationData:
    """Data from MacKay's neuron (MacKay (17)): ``x ~ N(0, input_sd² I₂)``, ``t ~ Bernoulli(σ(w·x))``.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        Number of points, 1 to 100 000.
    w : array_like
        The generating weights: two (no bias), or three if ``bias`` is given (its last entry the
        bias weight). Default MacKay's Fig. 5, ``(0, 2)``.
    input_sd : float
        Standard deviation of each input coordinate, in (0, 1e3].
    bias : float, optional
        If given, a constant input of this value is appended as the last column (MacKay §5.4's
        neuron "including a bias"); then ``w`` has three entries.
    """
    rng = check.generator("rng", rng)
    n = check.integer("n", n, low=1, high=100_000)
    input_sd = check.positive("input_sd", input_sd, upper=1e3)
    k = 2 if bias is None else 3
    w = check.finite_vector("w", w)
    if w.shape != (k,):
        raise ValueError(f"w must have {k} entries ({'with' if bias is not None else 'no'} bias), "
                         f"got {w.size}")
    x = input_sd * rng.standard_normal((n, 2))
    if bias is not None:
        bias = check.real("bias", bias)
        x = np.column_stack([x, np.full(n, bias)])
    t = (rng.random(n) < expit(x @ w)).astype(float)
    return ClassificationData(x, t, w)


def _labels(t, n: int) -> np.ndarray:
    t = check.finite_vector("t", t)
    if t.size != n:
        raise ValueError(f"t must have one label per row of x: x has {n} rows, t has {t.size} entries")
    if not np.all((t == 0.0) | (t == 1.0)):
        bad = t[(t != 0.0) & (t != 1.0)][0]
        raise ValueError(f"t must hold class labels 0 or 1 only, got {bad!r}")
    return t


# ---------------------------------------------------------------------------
# The exact posterior on a grid
# ---------------------------------------------------------------------------

#: The grid's box reaches where ln P(w|D) is this far below its peak on every face (e^-40 ≈ 4e-18).
_LOG_CUTOFF = 40.0
#: Largest number of grid points (per refinement) before the grid refuses.
_MAX_POINTS = 4_000_000
#: The plotting window holds the region where the density is within e^-9 of its peak.
_PLOT_CUTOFF = 9.0


@dataclass(frozen=True)
class ClassificationGrid:
    """The exact posterior as weighted points: a trapezoid grid in whitened coordinates.

    ``w = w_MP + R z`` on a regular grid of ``z`` of spacing ``step`` (``Rᵀ A R = I``, A the
    Hessian at the mode), over a box on whose faces ln P(w|D) is 40 below its peak (so, by
    log-concavity, the box holds every point within 40 of the peak). The spacing is halved
    from 0.5 until ``log_Z`` changes by at most ``0.01 √tol`` (``log_Z_change``, the last
    change): on a smooth integrand negligible at the box's edges the trapezoid rule converges
    geometrically (error ~ e^{−c/h}), so the finer grid's error is about the square of that
    change, far below ``tol`` (tests/models/test_classification.py checks ln Z against scipy's
    ``dblquad`` to 1e-9).

    Attributes
    ----------
    w : (G, k) the nodes that carry mass: the heaviest, holding all but 1e-12 of it (so an
        expectation of a function bounded by 1 is off by at most 1e-12 for the truncation)
    weights : (G,) normalised posterior weights, summing to 1
    log_Z : ln ∫ exp(ln P(D|w) − (α/2)‖w‖²) dw
    step, log_Z_change, tol, n_points : the rule's spacing, its last change, the tolerance and
        the number of points evaluated on the final grid
    """

    w: np.ndarray
    weights: np.ndarray
    log_Z: float
    step: float
    log_Z_change: float
    tol: float
    n_points: int

    def expectation(self, values) -> float:
        """``Σ_g p_g f(w_g)`` for the values ``f(w_g)`` at :attr:`w`."""
        values = check.finite_array("values", values)
        if values.shape != self.weights.shape:
            raise ValueError(f"values must have shape {self.weights.shape} (one per grid point w), "
                             f"got {values.shape}")
        return float(self.weights @ values)


class LogisticPosterior:
    """Exact posterior of MacKay's single neuron (MacKay (17)) with the prior N(0, I/α).

    Parameters
    ----------
    x : array_like, shape (N, k)
        Inputs, finite, N ≥ 1 rows, k from 1 to 10 columns (MacKay's neuron: k = 2; with a
        bias input k = 3).
    t : array_like, shape (N,)
        Labels, each 0 or 1.
    alpha : float
        Prior precision α in [1e-8, 1e8].
    tol : float
        Tolerance of the exact ln Z on the grid (1e-14 to 1e-3, default 1e-10).

    Notes
    -----
    ``log_likelihood`` is MacKay §2.3's ``G(w) = Σ t ln y + (1 − t) ln(1 − y)`` with y of
    MacKay (17); ``log_unnorm = G − (α/2)‖w‖²`` (−M of MacKay §2.3); ``log_Z`` its integral (the
    exact normaliser, for k ≤ 3); ``log_evidence`` = ln P(D|α) (B&B (13)'s counterpart:
    ``ln Z − (k/2) ln(2π/α)``); ``bound`` = F[Q] of B&B (17); ``kl`` = KL(Q‖P) of B&B (16).
    The same interface as :class:`~ensemble_lib.models.posterior.RegressionPosterior` with
    ``expected_energy = ⟨−G + (α/2)‖w‖²⟩_Q`` and ``log_normalisers = (k/2) ln(2π/α)``, so
    :func:`~ensemble_lib.laplace_fit` and :func:`~ensemble_lib.kl_fit` fit it unchanged.
    """

    def __init__(self, x, t, alpha, tol: float = 1e-10):
        x = check.finite_matrix("x", x, shape="(N, k)")
        if x.shape[1] > 10:
            raise ValueError(f"x must have 1 to 10 columns (inputs per point), got {x.shape[1]}")
        self.x = x
        self.t = _labels(t, x.shape[0])
        self.alpha = check.precision("alpha", alpha)
        self.tol = check.positive("tol", tol, lower=1e-14, upper=1e-3)
        self.n_data, self.dim = x.shape
        self._sx = (2.0 * self.t - 1.0)[:, None] * x  # s_n x_n: ln P(D|w) = Σ ln σ(w·s_n x_n)

    def __repr__(self) -> str:
        return f"LogisticPosterior(N={self.n_data}, k={self.dim}, alpha={self.alpha:g})"

    def with_hyperparameters(self, alpha=None) -> "LogisticPosterior":
        """A copy with a new α (same data)."""
        new = copy.copy(self)
        for name, v in vars(LogisticPosterior).items():
            if isinstance(v, cached_property):
                new.__dict__.pop(name, None)
        if alpha is not None:
            new.alpha = check.precision("alpha", alpha)
        return new

    # -- the likelihood (MacKay (17), §2.3) -----------------------------------
    def _w(self, w, single: bool = False) -> np.ndarray:
        w = check.real_array("w", w)
        if w.ndim == 0 or w.shape[-1] != self.dim or (single and w.ndim != 1):
            want = f"({self.dim},)" if single else f"(..., {self.dim})"
            raise ValueError(f"w must have shape {want}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("w must contain only finite values (no NaN or inf)")
        return w

    def log_likelihood(self, w) -> np.ndarray:
        """``ln P(D|w) = Σ_n ln σ(s_n w·x_n)`` (MacKay (17), G(w) of MacKay §2.3), over leading axes of w."""
        w = self._w(w)
        return np.sum(_log_sigmoid(w @ self._sx.T), axis=-1)

    def log_likelihood_grad(self, w) -> np.ndarray:
        """``∇ ln P(D|w) = Σ_n σ(−s_n w·x_n) s_n x_n`` at one w."""
        w = self._w(w, single=True)
        return expit(-(self._sx @ w)) @ self._sx

    def log_likelihood_hessian(self, w) -> np.ndarray:
        """``∇∇ ln P(D|w) = −Σ_n σ(a_n)σ(−a_n) x_n x_nᵀ`` at one w."""
        w = self._w(w, single=True)
        a = self._sx @ w
        r = expit(a) * expit(-a)
        return -(self.x * r[:, None]).T @ self.x

    def log_unnorm(self, w) -> np.ndarray:
        """``ln P(D|w) − (α/2)‖w‖²`` (−M(w) of MacKay §2.3), over leading axes of ``w``."""
        w = self._w(w)
        return self.log_likelihood(w) - 0.5 * self.alpha * np.sum(w * w, axis=-1)

    def grad(self, w) -> np.ndarray:
        """Gradient of :meth:`log_unnorm` at one ``w``."""
        w = self._w(w, single=True)
        return self.log_likelihood_grad(w) - self.alpha * w

    def hessian(self, w) -> np.ndarray:
        """Hessian of :meth:`log_unnorm` at one ``w`` (minus MacKay's A)."""
        return self.log_likelihood_hessian(w) - self.alpha * np.eye(self.dim)

    # -- expectations under a Gaussian Q ---------------------------------------
    def expected_log_likelihood(self, mean, cov) -> Expectation:
        """``⟨ln P(D|w)⟩`` under Q = N(mean, cov) with its gradients, by 1-D quadrature.

        ``a_n = s_n w·x_n ~ N(s_n mean·x_n, x_nᵀ cov x_n)``; each ``⟨ln σ(a_n)⟩`` is
        :func:`expected_log_sigmoid`, so ``∂/∂mean = Σ_n E[σ(−a_n)] s_n x_n`` and
        ``∂/∂C = −½ Σ_n E[σ(a_n)σ(−a_n)] x_n x_nᵀ`` (``d_cov`` as in
        :class:`~ensemble_lib.models.posterior.Expectation`).
        """
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        mu = self._sx @ mean
        var = np.einsum("ni,ij,nj->n", self.x, cov, self.x)
        value, d_mu, d_var = _expected_log_sigmoid(mu, var)
        d_mean = d_mu @ self._sx
        d_cov = (self.x * d_var[:, None]).T @ self.x
        return Expectation(float(value.sum()), d_mean, d_cov)

    def expected_energy(self, mean, cov) -> Expectation:
        """``⟨−ln P(D|w) + (α/2)‖w‖²⟩_Q = −⟨G⟩ + (α/2)(‖w̄‖² + Tr C)``, with gradients."""
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        e = self.expected_log_likelihood(mean, cov)
        value = -e.value + 0.5 * self.alpha * (mean @ mean + np.trace(cov))
        return Expectation(float(value), -e.d_mean + self.alpha * mean,
                           -e.d_cov + 0.5 * self.alpha * np.eye(self.dim))

    @property
    def log_normalisers(self) -> float:
        """``ln Z_P = (k/2) ln(2π/α)`` (the likelihood is a probability: no Z_D)."""
        return 0.5 * self.dim * (LOG_2PI - math.log(self.alpha))

    def bound(self, mean, cov) -> float:
        """The bound F[Q] of B&B (17) for MacKay's neuron and Q = N(mean, cov).

        ``F = Σ_n ⟨ln σ(a_n)⟩ − (α/2)(‖w̄‖² + Tr C) + ½ ln|C| + (k/2)(1 + ln 2π) − (k/2) ln(2π/α)``
        (entropy B&B (18); prior term with the corrected ½ Tr(CA) of B&B (19)).
        """
        mean, cov = check.mean_cov(mean, cov, self.dim)
        return float(gaussian_entropy(cov) - self.expected_energy(mean, cov).value - self.log_normalisers)

    def bound_grad(self, mean, cov) -> tuple[np.ndarray, np.ndarray]:
        """``(∂F/∂w̄, ∂F/∂C)`` of :meth:`bound`, ``∂F/∂C = −∂⟨energy⟩/∂C + ½ C⁻¹`` (symmetric)."""
        mean, cov = check.mean_cov(mean, cov, self.dim)
        e = self.expected_energy(mean, cov)
        return -e.d_mean, -e.d_cov + 0.5 * GaussianFactor(cov, "cov").inverse()

    def kl(self, mean, cov) -> float:
        """KL(Q‖P) (B&B (16)) of Q = N(mean, cov) from the exact posterior: ``ln P(D|α) − F[Q]``."""
        return float(self.log_evidence - self.bound(mean, cov))

    # -- the mode and the exact normaliser --------------------------------------
    @cached_property
    def mode(self) -> np.ndarray:
        """The most probable weights w_MP (the posterior is log-concave: one mode), by Newton's method."""
        w = np.zeros(self.dim)
        f = -float(self.log_unnorm(w))
        for _ in range(200):
            g = -self.grad(w)
            A = GaussianFactor(-self.hessian(w), "hessian")
            step = A.solve(g)
            t = 1.0
            while True:  # backtracking: φ is convex, so a Newton step is a descent direction
                w_new = w - t * step
                f_new = -float(self.log_unnorm(w_new))
                if f_new <= f - 1e-4 * t * float(g @ step) or t < 1e-12:
                    break
                t *= 0.5
            w, f_old, f = w_new, f, f_new
            if float(g @ step) < 1e-24 * max(1.0, abs(f)) or abs(f_old - f) <= 1e-16 * max(1.0, abs(f)):
                break
        return w

    @cached_property
    def posterior_grid(self) -> ClassificationGrid:
        """The exact posterior on a refined grid (:class:`ClassificationGrid`), for k ≤ 3."""
        if self.dim > 3:
            raise NotImplementedError("the exact grid posterior is for k ≤ 3 weights")
        w0 = self.mode
        lp0 = float(self.log_unnorm(w0))
        A = GaussianFactor(-self.hessian(w0), "hessian")
        # w = w0 + R z with R = L⁻ᵀ (A = L Lᵀ): the Laplace Gaussian is N(0, I) in z
        R = np.linalg.solve(A.L.T, np.eye(self.dim))
        lo = np.full(self.dim, -9.0)
        hi = np.full(self.dim, 9.0)
        step = 0.5
        prev = None
        while True:
            lo, hi, logs, w = self._grid_box(w0, lp0, R, lo, hi, step)
            total = logsumexp(logs)
            log_Z = float(lp0 + total + self.dim * math.log(step) - 0.5 * A.log_det)
            # the trapezoid rule converges geometrically here (error ~ e^{−c/h}), so the error
            # of the finer grid is about the square of the change: accept at a change ≤ 0.01 √tol
            if prev is not None and abs(log_Z - prev) <= 0.01 * math.sqrt(self.tol):
                break
            prev = log_Z
            step *= 0.5
        # for expectations keep the heaviest points holding all but 1e-12 of the mass
        weights = np.exp(logs - total)
        order = np.argsort(weights)
        drop = order[: int(np.searchsorted(np.cumsum(weights[order]), 1e-12))]
        keep = np.ones(weights.size, bool)
        keep[drop] = False
        return ClassificationGrid(w[keep], weights[keep] / weights[keep].sum(), log_Z, step,
                                  abs(log_Z - prev), self.tol, logs.size)

    def _grid_box(self, w0, lp0, R, lo, hi, step):
        """Grow the box [lo, hi] (in z) until every face is ``_LOG_CUTOFF`` below the peak; evaluate."""
        k = self.dim
        for _ in range(60):
            axes = [np.arange(np.floor(lo[j] / step), np.ceil(hi[j] / step) + 1) * step for j in range(k)]
            n_points = math.prod(a.size for a in axes)
            if n_points > _MAX_POINTS:
                raise ValueError(
                    f"the exact grid posterior needs more than {_MAX_POINTS} points for alpha = "
                    f"{self.alpha:g} and these data (a very broad or very skewed posterior); "
                    f"use a larger alpha (≥ 1e-3 for |x| ≤ 10 and N ≤ 200) or a larger tol")
            Z = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, k)
            w = w0 + Z @ R.T
            logs = self.log_unnorm(w) - lp0
            grown = False
            for j in range(k):
                for side, edge in ((0, axes[j][0]), (1, axes[j][-1])):
                    face = Z[:, j] == edge
                    if logs[face].max() > -_LOG_CUTOFF:
                        if side == 0:
                            lo[j] *= 1.5
                        else:
                            hi[j] *= 1.5
                        grown = True
            if not grown:
                return lo, hi, logs, w
        raise ValueError(f"the exact grid posterior did not fit a box for alpha = {self.alpha:g}")

    @property
    def log_Z(self) -> float:
        """``ln ∫ exp(ln P(D|w) − (α/2)‖w‖²) dw`` (B&B (7)'s counterpart), exact to ``tol`` (k ≤ 3)."""
        return self.posterior_grid.log_Z

    @property
    def log_evidence(self) -> float:
        """``ln P(D|α) = ln Z − (k/2) ln(2π/α)``, exact (B&B (13)'s counterpart for classification)."""
        return self.log_Z - self.log_normalisers

    def predictive(self, x_new) -> np.ndarray:
        """The exact Bayesian predictive ``P(t = 1 | x, D) = ∫ σ(w·x) P(w|D) dw`` (MacKay §5.4).

        On the grid of :attr:`posterior_grid`; ``x_new`` of shape (M, k) (or (k,)).
        """
        x_new = check.real_array("x_new", x_new)
        single = x_new.ndim == 1
        x_new = np.atleast_2d(x_new)
        if x_new.ndim != 2 or x_new.shape[1] != self.dim or not np.all(np.isfinite(x_new)):
            raise ValueError(f"x_new must be finite, of shape (M, {self.dim}) or ({self.dim},), "
                             f"got {x_new.shape}")
        g = self.posterior_grid
        out = np.empty(x_new.shape[0])
        chunk = max(1, 2_000_000 // max(g.weights.size, 1))
        for i in range(0, x_new.shape[0], chunk):
            out[i:i + chunk] = expit(x_new[i:i + chunk] @ g.w.T) @ g.weights
        return out[0] if single else out

    # -- plotting support -----------------------------------------------------
    def extent(self) -> tuple[float, float, float, float]:
        """Box ``(w1_min, w1_max, w2_min, w2_max)`` around where the density is within e^-9 of its peak."""
        if self.dim != 2:
            raise ValueError(f"extent is for two weights (k = 2), this posterior has k = {self.dim}")
        g = self.posterior_grid
        w = g.w[g.weights > g.weights.max() * math.exp(-_PLOT_CUTOFF)]
        lo, hi = w.min(axis=0), w.max(axis=0)
        pad = 0.1 * (hi - lo) + 1e-9
        return float(lo[0] - pad[0]), float(hi[0] + pad[0]), float(lo[1] - pad[1]), float(hi[1] + pad[1])

    def grid(self, n: int = 121, extent=None) -> PosteriorGrid:
        """The normalised log density on an n×n grid (``u`` = w₁ across, ``v`` = w₂ up), for k = 2."""
        if self.dim != 2:
            raise ValueError(f"grid is for two weights (k = 2), this posterior has k = {self.dim}")
        n = check.integer("n", n, low=3, high=2001)
        u0, u1, v0, v1 = self.extent() if extent is None else check.extent("extent", extent)
        u = np.linspace(u0, u1, n)
        v = np.linspace(v0, v1, n)
        W = np.stack(np.meshgrid(u, v), axis=-1)  # rows v, columns u
        return PosteriorGrid(u, v, self.log_unnorm(W) - self.log_Z)


__all__ = ["MACKAY_FIG5_W", "ClassificationData", "ClassificationGrid", "LogisticPosterior", "classification_data"]
