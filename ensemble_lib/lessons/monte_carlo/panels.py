"""Lesson 9's two panels: the Monte Carlo estimate as draws accumulate, and a leapfrog trajectory."""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as w
import numpy as np

from ...core import validation as check
from ...models.toy import ToyPosterior
from ...studies.toy_hmc import SWEEP_LENGTHS, SWEEP_STEPS
from ...ui.panel import FigurePanel
from ...ui.plotting import new_figure, plot_posterior_contours, style
from .estimates import LEAP_MOMENTUM, LEAP_START, N_OPTIONS, leapfrog, toy_runs

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
        n = check.integer("n", n, low=N_OPTIONS[0], high=N_OPTIONS[-1])  # draws per chain: the stored run's
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
    check.instance("post", post, ToyPosterior)
    check.mapping("store", store, ("sweep_accept_prob", "sweep_divergent_fraction"), "the stored runs (load_store())")
    eps, n_steps = check.positive("eps", eps), check.integer("n_steps", n_steps, low=1)
    if eps not in SWEEP_STEPS:
        raise ValueError(f"eps must be one of the stored step sizes {SWEEP_STEPS}, got {eps!r}")
    if n_steps not in SWEEP_LENGTHS:
        raise ValueError(f"n_steps must be one of the stored lengths {SWEEP_LENGTHS}, got {n_steps!r}")
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
        # the setting and where the trajectory ends, in the figure: a divergent trajectory leaves the
        # view after a step or two, and then a longer one would otherwise draw the same picture
        self._note = ax.text(0.02, 0.02, "", transform=ax.transAxes, fontsize=8, va="bottom",
                             bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9))
        opts = dict(continuous_update=True, style={"description_width": "initial"})
        controls = {"eps": w.SelectionSlider(options=list(SWEEP_STEPS), value=self.START["eps"],
                                             description="step size ε", **opts),
                    "n_steps": w.SelectionSlider(options=list(SWEEP_LENGTHS), value=self.START["n_steps"],
                                                 description="leapfrog steps L", **opts)}
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return [self._path, self._start_star, self._note]

    START = {"eps": SWEEP_STEPS[2], "n_steps": SWEEP_LENGTHS[-1]}

    def compute(self, eps, n_steps):
        return leap_state(self.post, self.store, eps, n_steps)

    def draw(self, state: LeapState) -> None:
        self._path.set_data(state.path[:, 0], state.path[:, 1])
        u0, u1 = self.ax.get_xlim()
        v0, v1 = self.ax.get_ylim()
        u, v = state.path[:, 0], state.path[:, 1]
        inside = (u >= u0) & (u <= u1) & (v >= v0) & (v <= v1)
        end = (f"leaves the view after step {int(np.argmin(inside))}" if not inside.all()
               else f"ends at ({state.path[-1, 0]:.2f}, {state.path[-1, 1]:.2f})")
        self._note.set_text(f"ε = {state.eps:g}, L = {state.n_steps}: {end}")

    def format_readout(self, state: LeapState) -> str:
        dH = state.energy[-1] - state.energy[0] if state.path.shape[0] == state.n_steps + 1 else np.inf
        return self.readout_table([
            ("step ε, steps L", f"{state.eps:g}, {state.n_steps}"),
            ("ΔH of this trajectory", f"{dH:.3g}"), ("its acceptance min(1, e^−ΔH)", f"{state.accept_drawn:.3f}"),
            ("library HMC: mean acceptance", f"{state.accept_prob:.3f}"),
            ("library HMC: divergent", f"{100 * state.divergent_fraction:.1f} %"),
        ])


__all__ = ["LeapState", "LeapfrogPanel", "MCState", "MonteCarloPanel", "where_it_opens"]
