"""The toy's exact posterior (:class:`ToyPosterior`): ln Z and every moment by quadrature, the Gaussian
expectations the fits need (:func:`u_rule`), and the posterior on a grid for plots (:class:`PosteriorGrid`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy import integrate, optimize, special

from ...core import validation as check
from ..erf_network import sigma, sigma_prime
from ...core.gaussian import LOG_2PI, gauss_hermite
from ..posterior import Expectation, RegressionPosterior


#: A Gauss–Hermite rule of n nodes is used while √C_uu max|x| ≤ _GH_REACH √n (error < 1e-14)
_GH_REACH = 0.1
#: The composite rule covers |z| ≤ _Z_CUT (N(0, 1) mass outside: 2e-19) ...
_Z_CUT = 9.0
#: ... with Gauss–Legendre panels of this many nodes, at most one unit wide
_PANEL_NODES = 10


def u_rule(u_mean: float, u_sd: float, x_max: float, n_quad: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``z`` and weights ``p`` with ``Σ p_i h(ū + ℓ z_i) ≈ E[h(ū + ℓ z)]``, z ~ N(0, 1).

    For the toy's integrands ``h(u)``, made of σ(u x_n) (erf sigmoids that step
    from −1 to 1 within ``|u x_n| ≲ 3``) times polynomials in z. ``ℓ = u_sd``,
    ``x_max = max |x_n|``.

    * ``ℓ x_max ≤ 0.1 √n_quad``: the probabilists' Gauss–Hermite rule of
      ``n_quad`` nodes (the step is wide in z; error below 1e-14).
    * otherwise: composite Gauss–Legendre on ``|z| ≤ 9`` with the N(0, 1)
      density in the weights; unit panels, plus panels at ``z₀ ± w 2^j``
      (``z₀ = −ū/ℓ`` where u = 0, ``w = 1/(ℓ x_max)`` the narrowest step), so
      every panel is about as wide as its distance from the step.

    The rule depends on (ū, ℓ) only through where its panels lie; gradients
    taken with the nodes held fixed are the exact gradients of the integral
    up to the rule's error.
    """
    s = u_sd * x_max
    if s <= _GH_REACH * np.sqrt(n_quad):
        return gauss_hermite(n_quad)
    z0 = -u_mean / u_sd
    width = 1.0 / s
    steps = width * 2.0 ** np.arange(int(np.ceil(np.log2(1.0 / width))))
    breaks = np.concatenate([np.arange(-_Z_CUT, _Z_CUT + 0.5), z0 + steps, z0 - steps, [z0]])
    breaks = np.unique(np.clip(breaks, -_Z_CUT, _Z_CUT))
    x, wq = _legendre(_PANEL_NODES)
    mid = 0.5 * (breaks[1:] + breaks[:-1])
    half = 0.5 * (breaks[1:] - breaks[:-1])
    z = (mid[:, None] + half[:, None] * x).ravel()
    p = (half[:, None] * wq).ravel() * np.exp(-0.5 * z * z - 0.5 * LOG_2PI)
    return z, p


@lru_cache(maxsize=4)
def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


#: ln g(u) below its maximum by this much is treated as zero mass (e^-45 ≈ 3e-20).
_MASS_CUTOFF = 45.0
#: The plotting window holds the region where the density is within e^-9 of its peak.
_PLOT_CUTOFF = 9.0
#: ln g at one float u is summed in plain floats up to this many data points (numpy beyond).
_SCALAR_PATH_MAX_N = 64
#: The largest β Σt_n² the exact posterior is computed for. ln g(u) (the quadrature's integrand,
#: v integrated out) sums terms as large as β Σt²/2 that cancel, so in double precision it carries
#: a round-off of about ε β Σt²/2; the quadrature asks for 256 times that relative accuracy, which
#: at this limit is 3e-3 (ln Z to 3e-3 nats). Beyond it the round-off grows past the levels the
#: integration range and the plotting window are found from (e^-45 and e^-9 below the peak; at
#: β Σt² ~ 1e17 they are lost altogether: t of size 1e10 at β = 100): refused, by name.
BETA_T_MAX = 1e11


@dataclass(frozen=True)
class PosteriorGrid:
    """The normalised posterior density on a regular (u, v) grid (for plots and checks)."""

    u: np.ndarray
    v: np.ndarray
    log_density: np.ndarray  # shape (len(v), len(u)): rows are v, columns are u

    @property
    def density(self) -> np.ndarray:
        return np.exp(self.log_density)

    @property
    def cell_area(self) -> float:
        return float((self.u[1] - self.u[0]) * (self.v[1] - self.v[0]))


class ToyPosterior(RegressionPosterior):
    """Exact posterior of the toy model ``f(x; u, v) = v σ(u x)`` (Barber & Bishop 1998, §2.1).

    Parameters
    ----------
    x, t : array_like, shape (N,)
        Inputs and targets (finite, same length ≥ 1), with ``beta * sum(t**2)`` at most
        :data:`BETA_T_MAX` (1e11: beyond it ln Z is lost to round-off; measure t in larger units).
    alpha : float
        Prior precision α in [1e-8, 1e8] (prior N(0, I/α) on (u, v)).
    beta : float
        Noise precision β in [1e-8, 1e8] (noise s.d. 1/√β), with β Σt² ≤ :data:`BETA_T_MAX`.
    n_quad : int
        Gauss–Hermite nodes for expectations over u under a narrow Q (16 to
        1000); a Q too broad for them gets a composite rule (:func:`u_rule`).

    Notes
    -----
    ``log_unnorm``, ``grad`` and ``hessian`` are of ``−βE_D − (α/2)‖w‖²``
    (B&B (4)–(6)); ``log_Z`` is ``ln ∫ exp(−βE_D − (α/2)‖w‖²) dw`` (B&B (7));
    ``kl(mean, cov)`` is KL(Q‖P) of eq. (16) against the exact normalised
    posterior, including both of its modes.
    """

    dim = 2

    def __init__(self, x, t, alpha, beta, n_quad: int = 96):
        super().__init__(alpha, beta)
        x = check.finite_vector("x", x)
        t = check.finite_vector("t", t)
        if x.shape != t.shape:
            raise ValueError(f"x and t must have the same length, got {x.size} and {t.size}")
        self.x = x
        self.t = t
        self.n_data = x.size
        self.n_quad = check.integer("n_quad", n_quad, low=16, high=1000)
        self._T = float(t @ t)
        self._check_scale()
        self._x_max = float(np.max(np.abs(x)))
        # the scalar path of ln g (the quadrature's integrand), in plain floats: numpy's
        # per-call overhead on a few data points is ten times the arithmetic
        self._xt_scaled = tuple(zip((x / math.sqrt(2.0)).tolist(), t.tolist()))

    def _check_scale(self) -> None:
        """Refuse β Σt² above :data:`BETA_T_MAX`, naming ``beta`` and ``t``."""
        if self.beta * self._T > BETA_T_MAX:
            raise ValueError(
                f"beta * sum(t**2) must be at most {BETA_T_MAX:g}, got {self.beta * self._T:.3g} (beta={self.beta:g}): "
                f"beyond it the exact posterior's log density, of that size, is lost to floating-point "
                f"round-off; measure t in larger units or use a smaller beta")

    def with_hyperparameters(self, alpha=None, beta=None):
        """A copy with new α and/or β; β Σt² must stay at most :data:`BETA_T_MAX`."""
        new = super().with_hyperparameters(alpha=alpha, beta=beta)
        new._check_scale()
        return new

    def __repr__(self) -> str:
        return (
            f"ToyPosterior(N={self.n_data}, alpha={self.alpha:g}, beta={self.beta:g})"
        )

    # -- E_D and its derivatives (B&B (4)) ----------------------------------
    def _AB(self, u):
        """A(u) = Σσ(u x_n)², B(u) = Σ t_n σ(u x_n) and their u-derivatives."""
        a = np.multiply.outer(np.asarray(u, float), self.x)
        s = sigma(a)
        ds = sigma_prime(a) * self.x
        A = np.sum(s * s, axis=-1)
        B = s @ self.t
        dA = 2.0 * np.sum(s * ds, axis=-1)
        dB = ds @ self.t
        return A, B, dA, dB

    def data_error(self, w) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        u, v = w[..., 0], w[..., 1]
        A, B, _, _ = self._AB(u)
        return 0.5 * A * v * v - B * v + 0.5 * self._T

    def data_error_grad(self, w) -> np.ndarray:
        u, v = np.asarray(w, dtype=float)
        A, B, dA, dB = self._AB(u)
        return np.array([0.5 * dA * v * v - dB * v, A * v - B])

    def data_error_hessian(self, w) -> np.ndarray:
        u, v = np.asarray(w, dtype=float)
        a = u * self.x
        s, ds = sigma(a), sigma_prime(a)
        d2s = -a * ds  # σ''(a) = −a σ'(a)
        x2 = self.x * self.x
        A, B, dA, dB = self._AB(u)
        d2A = 2.0 * np.sum((ds * ds + s * d2s) * x2)
        d2B = np.sum(self.t * d2s * x2)
        huu = 0.5 * d2A * v * v - d2B * v
        huv = dA * v - dB
        return np.array([[huu, huv], [huv, A]])

    # -- ⟨E_D⟩ under a Gaussian Q, by the 1-D reduction --------------------
    def expected_data_error(self, mean, cov) -> Expectation:
        """⟨E_D⟩ under Q = N(mean, cov) and its gradients, by the 1-D rule :func:`u_rule`.

        With ``u = ū + ℓ z``, ``ℓ = √C_uu``, the conditional mean of v is
        ``q = v̄ + κ z`` (``κ = C_uv/ℓ``) and its variance ``V = C_vv − κ²``:
        ``⟨E_D⟩ = Σ_i p_i [½A(u_i)(q_i² + V) − B(u_i) q_i] + ½T``.
        """
        mean = np.asarray(mean, dtype=float)
        cov = np.asarray(cov, dtype=float)
        c_uu, c_uv, c_vv = cov[0, 0], cov[0, 1], cov[1, 1]
        ell = np.sqrt(c_uu)
        z, p = u_rule(mean[0], ell, self._x_max, self.n_quad)
        kappa = c_uv / ell
        V = c_vv - kappa * kappa
        u = mean[0] + ell * z
        q = mean[1] + kappa * z
        A, B, dA, dB = self._AB(u)
        value = p @ (0.5 * A * (q * q + V) - B * q) + 0.5 * self._T
        D = 0.5 * dA * (q * q + V) - dB * q  # ∂/∂u of the conditional expectation
        E = A * q - B  # ∂/∂q
        g_mu, g_ell = p @ D, p @ (D * z)
        g_mv, g_kappa = p @ E, p @ (E * z)
        g_V = 0.5 * (p @ A)
        # chain rule (ℓ, κ, V) -> (C_uu, C_uv, C_vv)
        g_cuu = g_ell / (2.0 * ell) - g_kappa * kappa / (2.0 * c_uu) + g_V * kappa * kappa / c_uu
        g_cuv = g_kappa / ell - 2.0 * g_V * kappa / ell
        d_cov = np.array([[g_cuu, 0.5 * g_cuv], [0.5 * g_cuv, g_V]])
        return Expectation(float(value), np.array([g_mu, g_mv]), d_cov)

    def bounds(self, means, covs) -> list:
        """:meth:`bound` of many Gaussians Q = N(mean, cov) at once; None for one that is not proper.

        One quadrature over every Gaussian's nodes (:func:`u_rule`, as :meth:`expected_data_error`)
        instead of a call each: SVI records the exact KL of its iterates this way. A Gaussian whose
        mean or covariance is not finite, whose covariance is not symmetric or not positive definite
        (where :meth:`bound` raises ValueError) gets None.
        """
        M = check.real_array("means", means)
        C = check.real_array("covs", covs)
        if M.ndim != 2 or M.shape[1] != 2:
            raise ValueError(f"means must have shape (n, 2), got {M.shape}")
        if C.ndim != 3 or C.shape[1:] != (2, 2):
            raise ValueError(f"covs must have shape (n, 2, 2), got {C.shape}")
        if M.shape[0] != C.shape[0]:
            raise ValueError(f"means and covs must hold as many Gaussians, got {M.shape[0]} and {C.shape[0]}")
        n = M.shape[0]
        out: list = [None] * n
        with np.errstate(all="ignore"):
            finite = np.isfinite(M).all(axis=1) & np.isfinite(C).all(axis=(1, 2))
            c_uu, c_vv = C[:, 0, 0], C[:, 1, 1]
            c_uv = 0.5 * (C[:, 0, 1] + C[:, 1, 0])
            scale = np.maximum(1.0, np.abs(C).max(axis=(1, 2)))
            sym = np.abs(C[:, 0, 1] - C[:, 1, 0]) <= 1e-12 * scale + 1e-10 * np.abs(C[:, 1, 0])
            schur = c_vv - c_uv * c_uv / c_uu
            ok = np.flatnonzero(finite & sym & (c_uu > 0) & (schur > 0))
        if ok.size == 0:
            return out
        zs, ps, idx = [], [], []
        ell = np.sqrt(c_uu[ok])
        for j, i in enumerate(ok):
            z, p = u_rule(M[i, 0], ell[j], self._x_max, self.n_quad)
            zs.append(z)
            ps.append(p)
            idx.append(np.full(z.size, j))
        z, p, idx = np.concatenate(zs), np.concatenate(ps), np.concatenate(idx)
        kappa = c_uv[ok] / ell
        V = c_vv[ok] - kappa * kappa
        u = M[ok, 0][idx] + ell[idx] * z
        q = M[ok, 1][idx] + kappa[idx] * z
        A, B, _, _ = self._AB(u)
        ed = np.bincount(idx, p * (0.5 * A * (q * q + V[idx]) - B * q), minlength=ok.size) + 0.5 * self._T
        energy = self.beta * ed + 0.5 * self.alpha * ((M[ok] ** 2).sum(axis=1) + c_uu[ok] + c_vv[ok])
        entropy = 0.5 * np.log(c_uu[ok] * schur[ok]) + (1.0 + LOG_2PI)
        for i, b in zip(ok, entropy - energy - self.log_normalisers):
            out[i] = float(b)
        return out

    # -- the exact normaliser (B&B (7)) --------------------------------------
    def log_marginal_u(self, u) -> np.ndarray:
        """ln g(u) = ln ∫ exp(−βE_D − (α/2)(u² + v²)) dv, exact (v enters quadratically)."""
        if isinstance(u, float) and self.n_data <= _SCALAR_PATH_MAX_N:
            return self._log_marginal_scalar(check.real("u", u))
        u = check.finite_array("u", u)
        A, B, _, _ = self._AB(u)
        prec = self.beta * A + self.alpha
        bB = self.beta * B
        u = np.asarray(u, dtype=float)
        return (
            -0.5 * self.alpha * u * u
            - 0.5 * self.beta * self._T
            + 0.5 * bB * bB / prec
            + 0.5 * (LOG_2PI - np.log(prec))
        )

    def _lg(self, u: float) -> float:
        """ln g at one float u from inside the library's own root-finders and quadrature (finite by
        construction): the scalar path without the argument check, which a quadrature calls ~10⁵ times."""
        if self.n_data <= _SCALAR_PATH_MAX_N:
            return self._log_marginal_scalar(u)
        return float(self.log_marginal_u(u))

    def _log_marginal_scalar(self, u: float) -> float:
        """:meth:`log_marginal_u` at one float u, with ``math`` (the same formula, term by term)."""
        A = B = 0.0
        for xs, t in self._xt_scaled:
            s = math.erf(u * xs)
            A += s * s
            B += t * s
        prec = self.beta * A + self.alpha
        bB = self.beta * B
        return (-0.5 * self.alpha * u * u - 0.5 * self.beta * self._T
                + 0.5 * bB * bB / prec + 0.5 * (LOG_2PI - math.log(prec)))

    @cached_property
    def _u_scan(self) -> tuple[np.ndarray, np.ndarray, list]:
        """ln g on a grid of u ≥ 0 that resolves every feature, and its refined local maxima.

        g is even and, beyond the rigorous bound ``ln g(u) ≤ ½ ln(2π/α) − αu²/2``, negligible.
        Its shape comes from the steps of σ(u x_n) at ``|u| ~ 1/|x_n|`` — any scale when the
        |x_n| differ widely — so the grid is the union of a quadratic one over the whole range
        and a geometric one (1.3 % steps) from ``10⁻³/max|x|``. Every local maximum of the grid
        (the 20 highest) is refined by a bounded search between its neighbours, since at large
        β a peak is far narrower than the grid. Returns ``(grid, ln g, [(u, ln g), …] best
        first)``.
        """
        lg0 = float(self.log_marginal_u(0.0))
        cap = 0.5 * (LOG_2PI - np.log(self.alpha))  # ln g(u) ≤ cap − αu²/2
        r0 = np.sqrt(2.0 * (cap - lg0 + _MASS_CUTOFF) / self.alpha)
        lo = 1e-3 / self._x_max if self._x_max > 0 else r0 * 1e-6
        grid = r0 * np.linspace(0.0, 1.0, 4001) ** 2
        if lo < r0:
            grid = np.union1d(grid, np.geomspace(lo, r0, 1 + int(np.ceil(np.log(r0 / lo) / 0.013))))
        lg = self.log_marginal_u(grid)
        inner = np.flatnonzero((lg[1:-1] >= lg[:-2]) & (lg[1:-1] >= lg[2:])) + 1
        cand = list(inner[np.argsort(-lg[inner])][:20])
        if lg[0] >= lg[1]:
            cand.append(0)
        if lg[-1] >= lg[-2]:
            cand.append(grid.size - 1)
        peaks = []
        for j in cand:
            lo_u, hi_u = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
            u_best, lg_best = float(grid[j]), float(lg[j])
            if hi_u > lo_u:
                res = optimize.minimize_scalar(
                    lambda s: -self._lg(s), bounds=(lo_u, hi_u), method="bounded",
                    options={"xatol": 1e-12 * max(1.0, hi_u)},
                )
                if -res.fun > lg_best:
                    u_best, lg_best = float(res.x), float(-res.fun)
            peaks.append((u_best, lg_best))
        peaks.sort(key=lambda pk: -pk[1])
        return grid, lg, peaks

    @cached_property
    def _u_support(self) -> tuple[float, float, float]:
        """(u_mode, peak ln g, u_max) on u ≥ 0 (g is even)."""
        grid, _, peaks = self._u_scan
        u_mode, lg_max = peaks[0]
        cap = 0.5 * (LOG_2PI - np.log(self.alpha))
        r = np.sqrt(max(2.0 * (cap - lg_max + _MASS_CUTOFF) / self.alpha, 0.0))
        return u_mode, lg_max, float(max(r, u_mode + 1e-9))

    def _u_level(self, drop: float) -> float:
        """Largest u ≥ 0 where ln g falls to (peak − drop)."""
        grid, lg, peaks = self._u_scan
        _, lg_max, r = self._u_support
        level = lg_max - drop
        f = lambda s: self._lg(s) - level  # noqa: E731
        # the mode is above any level below the peak (drop > 0), also where no grid point is
        above = [self._u_support[0]] + [u for u, v in peaks if v > level] + list(grid[lg > level])
        u_in = max(above)
        if f(r) >= 0.0:
            return r
        nxt = grid[grid > u_in]
        u_out = float(nxt[0]) if nxt.size and f(float(nxt[0])) < 0.0 else r
        return float(optimize.brentq(f, u_in, u_out, xtol=1e-12 * max(1.0, u_out)))

    def _peak_widths(self, u: float, lg_u: float) -> list[float]:
        """Offsets from a peak of ln g at u to break the integral at: 0 and ±(1, 4, 16) × its width.

        The width on each side is where ln g has dropped by ½ (found by bisection, so a peak
        narrower than any grid spacing is resolved).
        """
        grid, lg, _ = self._u_scan
        out = [0.0]
        for side in (1.0, -1.0):
            f = lambda d: lg_u - self._lg(u + side * d) - 0.5  # noqa: E731
            far = grid[grid > u] - u if side > 0 else u - grid[grid < u]
            far = far[far > 0]
            if not far.size:
                continue
            reach = float(far.min() if side > 0 else far.min())
            if f(reach) <= 0.0:
                continue
            try:
                w = optimize.brentq(f, 0.0, reach, xtol=1e-14 * max(1.0, abs(u)))
            except ValueError:
                continue
            out += [side * k * w for k in (1.0, 4.0, 16.0)]
        return out

    @cached_property
    def log_Z(self) -> float:
        """ln Z = ln ∫∫ exp(−βE_D − (α/2)‖w‖²) du dv, by adaptive quadrature of g(u)."""
        u_mode, lg_max, _ = self._u_support
        u_hi = self._u_level(_MASS_CUTOFF)
        # every peak that carries mass is a break point (at large β they are far narrower than
        # the interval, and quad would step over them)
        pts = set()
        for u, v in self._u_scan[2]:
            if v > lg_max - _MASS_CUTOFF:
                pts.update(u + d for d in self._peak_widths(u, v) if 0.0 < u + d < u_hi)
        # and a geometric ladder (factors of 4) from the smallest of them, or the scale of the
        # narrowest step of σ(u x_n), out to u_hi: between a narrow peak and a wide plateau g can
        # fall like 1/u over decades (a tiny α with t ≈ 0), which one interval's extrapolation
        # cannot follow
        start = min([p for p in pts if p > 0.0] + ([1e-3 / self._x_max] if self._x_max > 0 else []),
                    default=0.0)
        if 0.0 < start < u_hi:
            pts.update(np.geomspace(start, u_hi, 2 + int(np.log(u_hi / start) / np.log(4.0)))[1:-1])
        # ln g(u) sums terms as large as βT/2 that cancel (a good fit), so it carries a round-off
        # of ε(βT/2 + |ln g|) and the integrand g/g_max is known only to that relative accuracy:
        # ask for no more (very large β), and for 1e-11 otherwise
        epsrel = max(1e-11, 256.0 * np.finfo(float).eps * (0.5 * self.beta * self._T + abs(lg_max)))
        val, _ = integrate.quad(
            lambda s: math.exp(self._lg(s) - lg_max),
            0.0, u_hi, points=sorted(pts) or None, epsabs=0.0, epsrel=epsrel, limit=500,
        )
        return float(lg_max + np.log(2.0 * val))

    # -- plotting support --------------------------------------------------
    def extent(self, coverage: float = 0.995) -> tuple[float, float, float, float]:
        """Symmetric box (u_min, u_max, v_min, v_max) holding ``coverage`` of each marginal's mass.

        The box is found from the density on a wide grid (the region where it is
        within e^-9 of its peak); ``coverage=1`` returns that wide box.
        """
        coverage = check.positive("coverage", coverage, upper=1.0)
        u_hi = self._u_level(_PLOT_CUTOFF)
        lg_max = self._u_support[1]
        u = np.linspace(0.0, u_hi, 801)
        lg = self.log_marginal_u(u)
        resolved = lg.max() > lg_max - 1.0  # else a peak of g is narrower than the grid's step
        if not resolved:
            u = self._u_nodes(u_hi)
            lg = self.log_marginal_u(u)
        keep = lg > lg_max - _PLOT_CUTOFF
        A, B, _, _ = self._AB(u[keep])
        prec = self.beta * A + self.alpha
        v_hi = float(np.max(np.abs(self.beta * B / prec) + 4.0 / np.sqrt(prec)))
        if coverage >= 1.0:
            return -1.05 * u_hi, 1.05 * u_hi, -1.05 * v_hi, 1.05 * v_hi
        g = self.grid(n=301, extent=(-u_hi, u_hi, -v_hi, v_hi))
        dens = g.density
        if not resolved or not 0.5 < dens.sum() * g.cell_area < 2.0:
            # the 301² grid has lost the posterior (narrower than its cells: its Riemann sum of the
            # normalised density is far from 1, or 0): the marginals from the 1-D reduction instead
            U, V = self._coverage_half_widths(self._u_nodes(u_hi), v_hi, coverage)
            return -1.1 * U, 1.1 * U, -1.1 * V, 1.1 * V

        def half_width(axis_vals, marginal):
            order = np.argsort(np.abs(axis_vals))
            cdf = np.cumsum(marginal[order])
            cdf /= cdf[-1]
            j = min(int(np.searchsorted(cdf, coverage)), axis_vals.size - 1)
            return float(np.abs(axis_vals[order][j]))

        U = half_width(g.u, dens.sum(axis=0))
        V = half_width(g.v, dens.sum(axis=1))
        return -1.1 * U, 1.1 * U, -1.1 * V, 1.1 * V

    def _u_nodes(self, u_hi: float) -> np.ndarray:
        """u in [0, u_hi] that resolve g: an even grid, and 80 steps across each side of each peak
        carrying mass, out to 16 of its half-widths (:meth:`_peak_widths`)."""
        lg_max = self._u_support[1]
        parts = [np.linspace(0.0, u_hi, 801)]
        for u, v in self._u_scan[2]:
            if v > lg_max - _MASS_CUTOFF:
                offsets = self._peak_widths(u, v)
                right = min([d for d in offsets if d > 0.0], default=0.0)
                left = min([-d for d in offsets if d < 0.0], default=0.0)
                parts.append(u + np.linspace(-16.0 * left, 16.0 * right, 161))
        u = np.concatenate(parts)
        return np.unique(u[(u >= 0.0) & (u <= u_hi)])

    def _coverage_half_widths(self, u: np.ndarray, v_hi: float, coverage: float) -> tuple[float, float]:
        """Half-widths (U, V) holding ``coverage`` of the u- and v-marginals, from g on the nodes ``u``
        (trapezoid weights; g is even) and v's Gaussian conditional given u."""
        lg = self.log_marginal_u(u)
        w = np.zeros_like(u)
        du = np.diff(u)
        w[:-1] += 0.5 * du
        w[1:] += 0.5 * du
        mass = np.exp(lg - lg.max()) * w
        mass /= mass.sum()
        U = float(u[min(int(np.searchsorted(np.cumsum(mass), coverage)), u.size - 1)])
        A, B, _, _ = self._AB(u)
        prec = self.beta * A + self.alpha
        m, s = self.beta * B / prec, 1.0 / np.sqrt(prec)

        def short(V):  # P(|v| ≤ V) − coverage
            return float(mass @ (special.ndtr((V - m) / s) - special.ndtr((-V - m) / s))) - coverage

        V = v_hi if short(v_hi) <= 0.0 else float(optimize.brentq(short, 0.0, v_hi, xtol=1e-12 * v_hi))
        return U, V

    def grid(self, n: int = 121, extent=None) -> PosteriorGrid:
        """Normalised log density on an n×n grid over ``extent`` (default :meth:`extent`).

        ``extent`` is ``(u0, u1, v0, v1)``, four finite numbers with u0 < u1 and v0 < v1.
        """
        n = check.integer("n", n, low=3, high=2001)
        u0, u1, v0, v1 = self.extent() if extent is None else check.extent("extent", extent)
        u = np.linspace(u0, u1, n)
        v = np.linspace(v0, v1, n)
        A, B, _, _ = self._AB(u)
        ed = 0.5 * A[None, :] * v[:, None] ** 2 - B[None, :] * v[:, None] + 0.5 * self._T
        logp = -self.beta * ed - 0.5 * self.alpha * (u[None, :] ** 2 + v[:, None] ** 2)
        return PosteriorGrid(u, v, logp - self.log_Z)


#: u_rule is the fast KL path's (inference.toy_objective), not listed: the same as before the split
__all__ = ["BETA_T_MAX", "PosteriorGrid", "ToyPosterior"]
