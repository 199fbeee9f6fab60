"""Lesson 9: Monte Carlo as an inference method (``notebooks/09_monte_carlo.ipynb``).

Barber & Bishop (1998) §1.3 (eq. 14) write the predictive distribution as an
integral over the posterior, ``P(t | x, D) = ∫ P(t | x, w) P(w | D) dw``, and
name three ways to do it: Laplace's Gaussian, ensemble learning, and Monte
Carlo — averaging over draws from the posterior. MacKay's "Probable networks"
§4.1 warns that a network posterior has many modes and §5.4 mentions Monte
Carlo for predictions. This module holds what the lesson computes:

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
* :class:`MonteCarloPanel`, :class:`LeapfrogPanel` — the two panels;
* :func:`plot_draws`, :func:`plot_boston_traces`, :func:`write_figures`, :data:`EXERCISES`.

Code names: ``w = (u, v)``, ``x_star`` = x*, ``eps`` = ε, ``n_steps`` = L, ``H`` = the
Hamiltonian ``−ln P*(w) + ½‖p‖²``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as w
import numpy as np
from scipy import integrate, special, stats

from ..core import validation as check
from ..inference.toy_fits import fit_all
from ..models.toy import ToyPosterior
from ..studies.toy_hmc import SWEEP_LENGTHS, SWEEP_STEPS, X_STAR, load_store, predictive_draws, toy_posterior
from ..ui.exercises import AnswerError, Exercise, ExerciseSet, close, real, whole_number
from ..ui.panel import FigurePanel
from ..ui.plotting import new_figure, plot_posterior_contours, save_figure, style
from ..ui.tables import Table

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
    w = np.asarray(w, float)
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
    f = fold(np.asarray(w, float).reshape(-1, 2))
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
        se.append(float(az.mcse(f[:, :n], method="mean")))
    return np.array(est), np.array(se)


def diagnostics(traces: dict) -> dict:
    """ArviZ's rank-normalised split-R̂, bulk and tail ESS of each named (chains, draws) trace."""
    az = _arviz()
    out = {}
    for name, x in traces.items():
        x = check.finite_matrix(name, x, shape="(chains, draws)")
        out[name] = {"r_hat": float(az.rhat(x)), "ess_bulk": float(az.ess(x, method="bulk")),
                     "ess_tail": float(az.ess(x, method="tail"))}
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


# ---------------------------------------------------------------------------
# Panels
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MCState:
    n: int
    estimate: float
    se: float
    error: float  # estimate − exact


class MonteCarloPanel(FigurePanel):
    """The first n draws of each chain over the exact contours, and the running estimate of ⟨f(x*)⟩."""

    blit = True

    def __init__(self):
        self.runs = toy_runs()
        fig, (ax, bx) = new_figure(9.0, 3.6, ncols=2)
        self.ax, self.bx = ax, bx
        post = self.runs.post
        u0, u1, v0, v1 = post.extent()
        plot_posterior_contours(ax, post.grid(n=121, extent=(u0, u1, v0, v1)))
        wd = self.runs.store["main_w"]
        self._dots = [ax.plot([], [], ".", ms=3, color=f"C{c}", label=f"chain {c + 1}")[0]
                      for c in range(wd.shape[0])]
        self._legends = [ax.legend(loc="lower right", fontsize=7, markerscale=2, framealpha=1)]
        ns = np.array(N_OPTIONS) * wd.shape[0]
        r = self.runs
        bx.fill_between(ns, r.estimate - 2 * r.se, r.estimate + 2 * r.se, color="C0", alpha=0.25,
                        label="MC ± 2 s.e.")
        bx.plot(ns, r.estimate, "o-", color="C0", ms=3, label="Monte Carlo")
        bx.axhline(r.exact, color="k", lw=1.2, label="exact")
        bx.axhline(r.kl_full, **style("full", marker="None"), label="KL, full Gaussian")
        bx.set_xscale("log")
        bx.set_xlabel("draws (all chains)")
        bx.set_ylabel(f"⟨f(x* = {float(r.store['x_star']):g})⟩")
        self._legends.append(bx.legend(fontsize=7, loc="upper right", framealpha=1))
        self._mark = bx.axvline(ns[-1], color="0.3", ls=":", lw=1)
        controls = {"n": w.SelectionSlider(options=list(N_OPTIONS), value=N_OPTIONS[-1],
                                           description="draws per chain n", continuous_update=True,
                                           style={"description_width": "initial"})}
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return [*self._dots, self._mark]

    def overlay_artists(self) -> list:  # the legends (opaque), over the dots and the marker
        return self._legends

    def compute(self, n):
        if n not in N_OPTIONS:
            raise ValueError(f"n must be one of the draw counts {N_OPTIONS}, got {n!r}")
        i = N_OPTIONS.index(n)
        r = self.runs
        return MCState(int(n), float(r.estimate[i]), float(r.se[i]), float(r.estimate[i] - r.exact))

    def draw(self, state: MCState) -> None:
        wd = self.runs.store["main_w"]
        for c, line in enumerate(self._dots):
            line.set_data(wd[c, :state.n, 0], wd[c, :state.n, 1])
        x = state.n * wd.shape[0]
        self._mark.set_xdata([x, x])

    def format_readout(self, state: MCState) -> str:
        r = self.runs
        return self.readout_table([
            ("Monte Carlo estimate", f"{state.estimate:.4f} ± {state.se:.4f}"),
            ("error against exact", f"{state.error:+.4f}"),
            ("exact", f"{r.exact:.4f}"),
            ("KL full Gaussian (error)", f"{r.kl_full:.4f} ({r.kl_full - r.exact:+.4f})"),
        ])


@dataclass(frozen=True)
class LeapState:
    eps: float
    n_steps: int
    path: np.ndarray
    energy: np.ndarray
    accept_drawn: float  # min(1, exp(−ΔH)) of the drawn trajectory
    accept_prob: float  # the library's mean acceptance at (ε, L)
    divergent_fraction: float


def leap_state(post: ToyPosterior, store: dict, eps: float, n_steps: int) -> LeapState:
    """The leapfrog panel's state: the drawn trajectory and the stored library runs at (ε, L)."""
    if eps not in SWEEP_STEPS or n_steps not in SWEEP_LENGTHS:
        raise ValueError(f"eps must be one of {SWEEP_STEPS} and n_steps one of {SWEEP_LENGTHS} (the stored runs), "
                         f"got {eps!r}, {n_steps!r}")
    path, energy = leapfrog(post, LEAP_START, LEAP_MOMENTUM, eps, n_steps)
    dH = energy[-1] - energy[0] if path.shape[0] == n_steps + 1 else np.inf
    i, j = SWEEP_STEPS.index(eps), SWEEP_LENGTHS.index(n_steps)
    return LeapState(float(eps), int(n_steps), path, energy, float(min(1.0, np.exp(-dH))),
                     float(store["sweep_accept_prob"][i, j]), float(store["sweep_divergent_fraction"][i, j]))


def where_it_opens(panel: str) -> str:
    """The paragraph before a panel saying what its readout shows at the start (Markdown)."""
    r = toy_runs()
    if panel == "MonteCarloPanel":
        return (f"**Where it opens.** All {N_OPTIONS[-1]} draws per chain: the estimate {r.estimate[-1]:.4f} ± "
                f"{r.se[-1]:.4f} against the exact {r.exact:.4f} and the full KL Gaussian's {r.kl_full:.4f}.")
    if panel == "LeapfrogPanel":
        st = leap_state(r.post, r.store, **LeapfrogPanel.START)
        return (f"**Where it opens.** At ε, L = {st.eps:g}, {st.n_steps}: this trajectory's acceptance is "
                f"{st.accept_drawn:.3f}, and the library's runs at that setting accepted {st.accept_prob:.3f} "
                "on average.")
    raise ValueError(f"panel must be 'MonteCarloPanel' or 'LeapfrogPanel', got {panel!r}")


class LeapfrogPanel(FigurePanel):
    """A leapfrog trajectory over the contours for step ε and L steps; the library's acceptance."""

    blit = True

    def __init__(self):
        runs = toy_runs()
        self.post, self.store = runs.post, runs.store
        fig, ax = new_figure(5.6, 3.9)
        self.ax = ax
        u0, u1, v0, v1 = self.post.extent()
        plot_posterior_contours(ax, self.post.grid(n=121, extent=(u0, u1, v0, v1)))
        ax.set_xlim(u0, u1)
        ax.set_ylim(v0, v1)
        self._path = ax.plot([], [], "o-", color="C3", ms=3, lw=1.2)[0]
        self._start_star = ax.plot(*LEAP_START, "k*", ms=9)[0]
        opts = dict(continuous_update=True, style={"description_width": "initial"})
        controls = {"eps": w.SelectionSlider(options=list(SWEEP_STEPS), value=self.START["eps"],
                                             description="step size ε", **opts),
                    "n_steps": w.SelectionSlider(options=list(SWEEP_LENGTHS), value=self.START["n_steps"],
                                                 description="leapfrog steps L", **opts)}
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return [self._path, self._start_star]

    START = {"eps": SWEEP_STEPS[2], "n_steps": SWEEP_LENGTHS[-1]}

    def compute(self, eps, n_steps):
        return leap_state(self.post, self.store, eps, n_steps)

    def draw(self, state: LeapState) -> None:
        self._path.set_data(state.path[:, 0], state.path[:, 1])

    def format_readout(self, state: LeapState) -> str:
        dH = state.energy[-1] - state.energy[0] if state.path.shape[0] == state.n_steps + 1 else np.inf
        return self.readout_table([
            ("step ε, steps L", f"{state.eps:g}, {state.n_steps}"),
            ("ΔH of this trajectory", f"{dH:.3g}"), ("its acceptance min(1, e^−ΔH)", f"{state.accept_drawn:.3f}"),
            ("library HMC: mean acceptance", f"{state.accept_prob:.3f}"),
            ("library HMC: divergent", f"{100 * state.divergent_fraction:.1f} %"),
        ])


# ---------------------------------------------------------------------------
# Tables (text for nbval, HTML in the notebook)
# ---------------------------------------------------------------------------


def estimate_table(runs: ToyRuns | None = None) -> Table:
    """The running Monte Carlo estimate of ⟨f(x*)⟩ at each n, its standard error and its error."""
    r = toy_runs() if runs is None else runs
    C = r.f_chains.shape[0]
    rows = [(f"{n}", f"{n * C}", f"{e:.4f}", f"{s:.4f}", f"{s * np.sqrt(n * C):.3f}", f"{e - r.exact:+.4f}")
            for n, e, s in zip(N_OPTIONS, r.estimate, r.se)]
    return Table(("n per chain", "draws", "estimate", "s.e.", "s.e. × √draws", "error"), rows,
                 caption=f"exact {r.exact:.4f}; KL full Gaussian {r.kl_full:.4f}")


def cost_summary(runs: ToyRuns, kl_seconds: float, kl_iterations: int) -> dict:
    """What the KL fit and NUTS cost to reach an error: the KL fit's own, and a tenth of it.

    NUTS needs ``n`` draws for 2 standard errors ≤ the target, with the standard error per draw
    ``s.e.(all) · √(all draws)``; its cost is n times the stored run's leapfrog steps (gradient
    evaluations) and seconds (compilation included) per kept draw.
    """
    st = runs.store
    n_all = runs.f_chains.size
    se_one = float(runs.se[-1]) * np.sqrt(n_all)
    kl_error = abs(runs.kl_full - runs.exact)
    leap_per_draw = float(np.sum(st["main_n_leapfrog"])) / n_all
    sec_per_draw = float(st["seconds_main"]) / n_all
    out = {"kl_error": kl_error, "kl_seconds": float(kl_seconds), "kl_iterations": int(kl_iterations),
           "se_per_draw": se_one, "leapfrog_per_draw": leap_per_draw, "seconds_per_draw": sec_per_draw}
    for key, target in (("same", kl_error), ("tenth", kl_error / 10)):
        n = draws_needed(2 * se_one, target)
        out[key] = {"target": target, "draws": n, "leapfrog": n * leap_per_draw, "seconds": n * sec_per_draw}
    return out


def cost_table(cost: dict) -> Table:
    rows = [("KL, full Gaussian", f"{cost['kl_error']:.4f} (its bias)", f"{cost['kl_iterations']} iterations",
             f"{cost['kl_seconds']:.2f}")]
    for key in ("same", "tenth"):
        c = cost[key]
        rows.append((f"NUTS, 2 s.e. ≤ {c['target']:.4f}", f"{c['draws']} draws",
                     f"{c['leapfrog']:.0f} gradient evaluations", f"{c['seconds']:.2f}"))
    return Table(("method", "error / draws", "work", "seconds"), rows)


def sweep_table(store: dict) -> Table:
    """The library's fixed-step HMC runs: mean acceptance and divergent transitions per (ε, L)."""
    Ls = [int(L) for L in store["sweep_lengths"]]
    rows = []
    for i, eps in enumerate(store["sweep_eps"]):
        rows.append((f"{eps:g}", *(f"{store['sweep_accept_prob'][i, j]:.3f}" for j in range(len(Ls))),
                     *(f"{100 * store['sweep_divergent_fraction'][i, j]:.1f} %" for j in range(len(Ls)))))
    return Table(("ε", *(f"accept, L={L}" for L in Ls), *(f"divergent, L={L}" for L in Ls)), rows)


def diagnostics_table(diag: dict) -> Table:
    return Table(("quantity", "R-hat", "bulk ESS", "tail ESS"),
                 [(k, f"{d['r_hat']:.3f}", f"{d['ess_bulk']:.0f}", f"{d['ess_tail']:.0f}") for k, d in diag.items()])


def replicate_table(store: dict) -> Table:
    """Stated standard errors of the replicate runs beside the spread of their estimates over seeds."""
    est, se = store["rep_estimate"], store["rep_se"]
    return Table(("runs", "mean estimate", "s.d. over seeds", "mean stated s.e."),
                 [(f"{est.size}", f"{est.mean():.4f}", f"{est.std(ddof=1):.4f}", f"{se.mean():.4f}")])


def chain_table(reference: dict) -> Table:
    """Per split of a stored HMC reference: pooled test MSE, each chain's, their spread and R̂."""
    rows = [(f"{s['index']}", f"{s['test_mse']:.3f}", " ".join(f"{m:.3f}" for m in s["chain_test_mse"]),
             f"{s['chain_mse_spread']:.3f}", f"{s['r_hat_max']:.2f}") for s in reference["splits"]]
    return Table(("split", "pooled", "chains", "spread", "R-hat max"), rows)


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_draws(axes, runs: ToyRuns | None = None, thin: int = 4) -> list:
    """Draws over the exact contours (left) and folded marginals against the exact ones (right two)."""
    runs = toy_runs() if runs is None else runs
    ax, bx, cx = axes
    post, wd = runs.post, runs.store["main_w"]
    u0, u1, v0, v1 = post.extent()
    arts = plot_posterior_contours(ax, post.grid(n=121, extent=(u0, u1, v0, v1)))
    for c in range(wd.shape[0]):
        arts += ax.plot(wd[c, ::thin, 0], wd[c, ::thin, 1], ".", ms=2, color=f"C{c}", label=f"chain {c + 1}")
    ax.legend(fontsize=7, markerscale=3, loc="lower right")
    f = fold(wd.reshape(-1, 2))
    u, pu, v, pv = folded_marginals(post)
    for a, x, grid, p, name in ((bx, f[:, 0], u, pu, "|u|"), (cx, f[:, 1], v, pv, "sign(u) v")):
        top = np.quantile(x, 0.995)
        arts.append(a.hist(x, bins=np.linspace(0.0, top, 50), density=True, color="C0", alpha=0.5,
                           label="NUTS draws")[2])
        arts += a.plot(grid, p, "k", lw=1.2, label="exact")
        a.set_xlabel(name)
        a.set_ylabel("density")
        a.legend(fontsize=7)
    keep = p > 1e-4 * p.max()
    cx.set_xlim(v[keep][0], v[keep][-1])
    return arts


def plot_boston_traces(axes, chains: dict) -> list:
    """Per-chain traces of a Boston split's invariant quantities (and one weight, which is not)."""
    names = (("draw_mse", "test MSE of the draw"), ("alpha", "ln α"), ("beta", "ln β"),
             ("f_train_0", "f at a training input"), ("w_0", "one weight u₁,₁ (not invariant)"))
    arts = []
    for ax, (key, label) in zip(np.ravel(axes), names):
        x = np.asarray(chains["traces"][key], float)
        if key in ("alpha", "beta"):
            x = np.log(x)
        for c in range(x.shape[0]):
            arts += ax.plot(x[c], lw=0.6, color=f"C{c}", label=f"chain {c + 1}")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("kept draw")
    np.ravel(axes)[0].legend(fontsize=6, ncol=2)
    return arts


def write_figures(outdir) -> list[Path]:
    """Write the lesson's main figure, ``monte_carlo_draws.png`` (:func:`plot_draws`), into ``outdir``."""
    fig, axes = new_figure(10.5, 3.4, ncols=3)
    plot_draws(axes)
    return [save_figure(fig, Path(outdir) / "monte_carlo_draws.png")]


# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------


def _check_q1(ex1_panel, n_needed):
    if not isinstance(ex1_panel, MonteCarloPanel):
        raise AnswerError("ex1_panel must be the MonteCarloPanel of the lesson (or one of your own)")
    n = whole_number("n_needed", n_needed)
    r = ex1_panel.runs
    target = abs(r.kl_full - r.exact) / 2
    want = next((k for k, s in zip(N_OPTIONS, r.se) if s <= target), None)
    st = getattr(ex1_panel, "state", None)
    if st is None or st.n != n:
        return "leave the panel's slider at your answer, so that the check can read it."
    if n != want:
        return ("read the ± in the readout as you move the slider: the first n (per chain) whose standard "
                "error is at most half the KL Gaussian's error against the exact value.")
    return None


def _wrong_q1(ns):
    p = MonteCarloPanel()  # a panel of its own, left at the start (all draws): the lesson's stays as shown
    p.update()
    return {"ex1_panel": p, "n_needed": p.state.n}


def _check_q2(n_for_quarter_se):
    n = whole_number("n_for_quarter_se", n_for_quarter_se)
    if n != 400 * 16:
        return "the standard error falls as 1/√n: to divide it by 4, how many times more draws?"
    return None


def _wrong_q2(ns):
    return {"n_for_quarter_se": 1600}


def _check_q3(ex3_panel, accept_drawn):
    if not isinstance(ex3_panel, LeapfrogPanel):
        raise AnswerError("ex3_panel must be a LeapfrogPanel")
    a = real("accept_drawn", accept_drawn)
    st = getattr(ex3_panel, "state", None)
    if st is None or (st.eps, st.n_steps) != (0.065, 20):
        return "set the panel to ε = 0.065 and L = 20 and leave it there."
    if not close(a, st.accept_drawn, 1e-3):
        return "Metropolis accepts the end of the trajectory with probability min(1, exp(−ΔH)); ΔH is in the readout."
    return None


def _wrong_q3(ns):
    p = LeapfrogPanel()
    with p.hold():
        p.controls["eps"].value = 0.065
    return {"ex3_panel": p, "accept_drawn": p.state.accept_prob}


#: lesson 9's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("09_monte_carlo.ipynb", (
    Exercise("q1", ("ex1_panel", "n_needed"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("n_for_quarter_se",), _check_q2, _wrong_q2),
    Exercise("q3", ("ex3_panel", "accept_drawn"), _check_q3, _wrong_q3, uses_panel="leap_panel"),
))

__all__ = ["EXERCISES", "chain_table", "cost_summary", "cost_table", "diagnostics_table", "estimate_table",
           "replicate_table", "sweep_table", "LEAP_MOMENTUM", "LEAP_START", "LeapState", "LeapfrogPanel", "MCState",
           "MonteCarloPanel", "N_OPTIONS", "ToyRuns", "diagnostics", "draws_needed",
           "exact_predictive_mean", "fold", "folded_marginals", "gaussian_predictive_mean", "leapfrog",
           "leap_state", "marginal_tests", "plot_boston_traces", "plot_draws", "running_estimate", "toy_runs",
           "where_it_opens", "write_figures"]
