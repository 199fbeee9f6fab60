"""Lesson 9's numbers: the exact and Gaussian answers, the draws against the exact posterior, the leapfrog.

* :func:`exact_predictive_mean` — ``⟨f(x*)⟩`` under the toy's exact posterior (1-D quadrature,
  ``v`` integrated analytically); :func:`gaussian_predictive_mean` — the same under a Gaussian Q
  (Gauss–Hermite), the ensemble's deterministic answer;
* :func:`fold`, :func:`marginal_tests` — draws reflected into ``u ≥ 0`` and KS tests of their
  marginals against the exact grid's;
* :func:`running_estimate` — the Monte Carlo estimate from the first n draws of each chain and its
  standard error (ArviZ's MCSE);
* :func:`diagnostics` — ArviZ's R̂, bulk and tail ESS of named (chains, draws) traces;
* :func:`leapfrog` — a few lines of leapfrog integration for the picture (every reported
  acceptance comes from the library's sampler, stored by :mod:`ensemble_lib.studies.toy_hmc`);
* :func:`toy_runs` — the stored runs and the answers derived from them, loaded once.

Code names: ``w = (u, v)``, ``x_star`` = x*, ``eps`` = ε, ``n_steps`` = L, ``H`` = the
Hamiltonian ``−ln P*(w) + ½‖p‖²``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import integrate, special, stats

from ...core import validation as check
from ...inference.toy_fits import fit_all
from ...models.toy import ToyPosterior
from ...studies.toy_hmc import X_STAR, load_store, predictive_draws, toy_posterior

#: draws per chain the Monte Carlo panel offers (the first n of each of the 4 chains)
N_OPTIONS = (5, 10, 20, 40, 80, 160, 320, 640, 1000)
#: the leapfrog panel's start point and momentum (a point on the ridge, a push along it)
LEAP_START = (0.35, 1.2)
LEAP_MOMENTUM = (1.0, -3.0)


def _arviz():
    """Import ArviZ (the ``reference`` extra) without its refactoring notice."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        # heavy optional dependency (the reference extra), loaded on first use
        import arviz
    return arviz


def _scalar(value) -> float:
    """One diagnostic of one variable as a float: ArviZ returns a 0-d array or, from 0.23.4 on
    NumPy 2.4, a one-element array (which ``float`` refuses)."""
    arr = np.asarray(value, dtype=float)
    if arr.size != 1:
        raise ValueError(f"expected one value from ArviZ, got shape {arr.shape}")
    return float(arr.reshape(()))


# ---------------------------------------------------------------------------
# Exact and Gaussian answers
# ---------------------------------------------------------------------------


def exact_predictive_mean(post: ToyPosterior, x_star: float = X_STAR) -> float:
    """⟨f(x*)⟩ = ∫∫ v σ(u x*) P(u, v | D) du dv for the toy, exactly (the predictive mean of B&B (14)).

    Given u, v is Gaussian under the posterior with mean ``βB(u)/(βA(u) + α)``
    (:meth:`ToyPosterior.log_marginal_u`'s completion of the square), so the
    integral is one-dimensional in u: ``∫ g(u)/Z · σ(u x*) · βB/(βA + α) du``.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    x_star = check.real("x_star", x_star)
    u0, u1, _, _ = post.extent(coverage=0.99999)
    half = 2.0 * max(-u0, u1)

    def integrand(u):
        A, B, _, _ = post._AB(np.array([u]))
        m = post.beta * B[0] / (post.beta * A[0] + post.alpha)
        return np.exp(post.log_marginal_u(float(u)) - post.log_Z) * special.erf(u * x_star / np.sqrt(2)) * m

    return float(integrate.quad(integrand, -half, half, limit=400, points=[0.0])[0])


def gaussian_predictive_mean(mean, cov, x_star: float = X_STAR, n_nodes: int = 80) -> float:
    """⟨v σ(u x*)⟩ under Q = N(mean, cov) (Gauss–Hermite in u; v given u is Gaussian under Q)."""
    m = check.finite_vector("mean", mean)
    C = np.asarray(cov, float)
    if m.shape != (2,) or C.shape != (2, 2) or not np.all(np.isfinite(C)) or C[0, 0] <= 0:
        raise ValueError("mean must have 2 entries and cov be a 2 × 2 covariance with cov[0, 0] > 0")
    x_star = check.real("x_star", x_star)
    z, p = np.polynomial.hermite_e.hermegauss(check.integer("n_nodes", n_nodes, low=8, high=1000))
    u = m[0] + np.sqrt(C[0, 0]) * z
    v_given_u = m[1] + C[0, 1] / C[0, 0] * (u - m[0])
    return float(np.sum(p * special.erf(u * x_star / np.sqrt(2)) * v_given_u) / np.sum(p))


# ---------------------------------------------------------------------------
# Draws against the exact posterior
# ---------------------------------------------------------------------------


def fold(w) -> np.ndarray:
    """Draws reflected into u ≥ 0, ``(|u|, sign(u) v)``: the mirror modes (u, v) ↔ (−u, −v) made one."""
    w = check.finite_array("w", w)
    if w.ndim < 1 or w.shape[-1] != 2 or w.size == 0:
        raise ValueError(f"w must be draws (u, v) of shape (..., 2), got shape {w.shape}")
    s = np.where(w[..., 0] < 0, -1.0, 1.0)
    return np.stack([w[..., 0] * s, w[..., 1] * s], axis=-1)


def _cdf(values, density):
    c = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(values))])
    return lambda q: np.interp(q, values, c / c[-1])


def folded_marginals(post: ToyPosterior, n: int = 801):
    """The exact marginals of the folded posterior on a grid: ``(u, p(u), v, p(v))`` with u ≥ 0."""
    u0, u1, v0, v1 = post.extent(coverage=0.99999)
    hu, hv = max(-u0, u1), max(-v0, v1)
    g = post.grid(n=check.integer("n", n, low=51, high=2001), extent=(-hu, hu, -hv, hv))
    d = g.density
    pos = g.u >= 0
    pu = 2.0 * np.trapezoid(d[:, pos], g.v, axis=0)
    # sign(u) v: v on the u ≥ 0 half plus −v on the other half
    pv = np.trapezoid(d[:, pos], g.u[pos], axis=1) + np.trapezoid(d[::-1, ~pos], g.u[~pos], axis=1)
    return g.u[pos], pu, g.v, pv


def marginal_tests(post: ToyPosterior, w, ess: float) -> dict:
    """KS tests of the folded draws' u and v marginals against the exact grid's.

    The draws (any shape (..., 2)) are thinned to about one per effective sample (``ess``),
    so that the KS test's independence assumption roughly holds. Returns name → p-value
    (``"u"``, ``"v"``) and ``"n"``, the draws kept.
    """
    check.instance("post", post, ToyPosterior)
    f = fold(w).reshape(-1, 2)
    ess = check.positive("ess", ess)
    step = max(1, int(np.ceil(f.shape[0] / ess)))
    f = f[::step]
    u, pu, v, pv = folded_marginals(post)
    return {"u": float(stats.kstest(f[:, 0], _cdf(u, pu)).pvalue),
            "v": float(stats.kstest(f[:, 1], _cdf(v, pv)).pvalue), "n": int(f.shape[0])}


def running_estimate(f_chains, ns=N_OPTIONS) -> tuple[np.ndarray, np.ndarray]:
    """The Monte Carlo mean of B&B (14) from the first n draws of every chain and its standard error, for each n.

    ``f_chains`` has shape (chains, draws); the standard error is ArviZ's MCSE of the mean
    (``sd/√ESS``, ESS over the chains' first n draws).
    """
    az = _arviz()
    f = check.finite_matrix("f_chains", f_chains, shape="(chains, draws)")
    est, se = [], []
    for n in ns:
        n = check.integer("ns", n, low=4, high=f.shape[1])
        est.append(float(np.mean(f[:, :n])))
        se.append(_scalar(az.mcse(f[:, :n], method="mean")))
    return np.array(est), np.array(se)


def diagnostics(traces: dict) -> dict:
    """ArviZ's rank-normalised split-R̂, bulk and tail ESS of each named (chains, draws) trace."""
    if not isinstance(traces, dict) or not traces:
        raise ValueError(f"traces must be a non-empty dict of name -> (chains, draws) array, got {traces!r:.60}")
    az = _arviz()
    out = {}
    for name, x in traces.items():
        x = check.finite_matrix(f"traces[{name!r}]", x, shape="(chains, draws)", hint=" and at least 4 draws")
        if x.shape[1] < 4:
            raise ValueError(f"traces[{name!r}] must have at least 4 draws per chain, got shape {x.shape}")
        out[name] = {"r_hat": _scalar(az.rhat(x)), "ess_bulk": _scalar(az.ess(x, method="bulk")),
                     "ess_tail": _scalar(az.ess(x, method="tail"))}
    return out


# ---------------------------------------------------------------------------
# The leapfrog, for the picture
# ---------------------------------------------------------------------------


def leapfrog(post: ToyPosterior, w0, p0, eps: float, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Leapfrog positions and the Hamiltonian along one trajectory (identity mass).

    ``H(w, p) = −ln P*(w) + ½‖p‖²``; half step in p, full step in w, half step in p, L times.
    Returns the positions, shape (L + 1, 2), and H at each, shape (L + 1,).
    """
    eps = check.positive("eps", eps, upper=10.0)
    n_steps = check.integer("n_steps", n_steps, low=1, high=10_000)
    wk = check.finite_vector("w0", w0).copy()
    pk = check.finite_vector("p0", p0).copy()
    path, energy = [wk.copy()], [-float(post.log_unnorm(wk)) + 0.5 * pk @ pk]
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(n_steps):
            pk = pk + 0.5 * eps * post.grad(wk)
            wk = wk + eps * pk
            if not np.all(np.isfinite(wk)) or np.max(np.abs(wk)) > 1e3:
                break  # the trajectory has left for infinity: a divergence
            pk = pk + 0.5 * eps * post.grad(wk)
            path.append(wk.copy())
            energy.append(-float(post.log_unnorm(wk)) + 0.5 * pk @ pk)
    return np.array(path), np.array(energy)


# ---------------------------------------------------------------------------
# The stored runs, with what the lesson derives from them
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ToyRuns:
    """The stored toy runs (:mod:`ensemble_lib.studies.toy_hmc`) and the exact and Gaussian answers."""

    post: ToyPosterior
    store: dict
    exact: float  # ⟨f(x*)⟩ under the exact posterior
    kl_full: float  # … under the full-covariance KL Gaussian
    laplace: float  # … under Laplace's Gaussian
    f_chains: np.ndarray  # f(x*) for every draw of the main run, (chains, draws)
    estimate: np.ndarray  # running estimate at N_OPTIONS
    se: np.ndarray  # its standard error


_RUNS: ToyRuns | None = None


def toy_runs() -> ToyRuns:
    """Load the store and compute the answers once (a module cache: every panel shares it)."""
    global _RUNS
    if _RUNS is None:
        post = toy_posterior()
        store = load_store()
        fits = fit_all(post)
        f = predictive_draws(store["main_w"], float(store["x_star"]))
        est, se = running_estimate(f)
        _RUNS = ToyRuns(post, store, exact_predictive_mean(post, float(store["x_star"])),
                        gaussian_predictive_mean(fits.full.mean, fits.full.cov, float(store["x_star"])),
                        gaussian_predictive_mean(fits.laplace.mean, fits.laplace.cov, float(store["x_star"])),
                        f, est, se)
    return _RUNS


def draws_needed(se_per_draw: float, target: float) -> int:
    """Draws n with standard error ``se_per_draw/√n`` ≤ ``target``: ⌈(se_per_draw/target)²⌉."""
    return int(np.ceil((check.positive("se_per_draw", se_per_draw) / check.positive("target", target)) ** 2))


__all__ = ["LEAP_MOMENTUM", "LEAP_START", "N_OPTIONS", "ToyRuns", "diagnostics", "draws_needed",
           "exact_predictive_mean", "fold", "gaussian_predictive_mean", "leapfrog", "marginal_tests",
           "running_estimate", "toy_runs"]
