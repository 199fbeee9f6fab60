"""Lesson 4's 1-D demo: :class:`Network1DPanel` (sliders H, s, α or "adapt hyperparameters"), ensemble vs
Laplace error bars over the stored HMC band, its figure and its readout (:func:`format_demo_readout`)."""

import html
import json
import math
import re

import ipywidgets as w
import numpy as np

from ...core import validation as check
from ...studies.hmc_reference import DEMO_FILE
from ...studies.network_demo import (DEMO_DEFAULTS, DEMO_NOISE_SD, DEMO_SEED, H_RANGE, LOG10_ALPHA_RANGE, S_RANGE,
                                     DemoState, default_fits, demo_data, demo_fit, memo_key)
from ...studies.store import stored_file
from ...ui.panel import FigurePanel
from ...ui.plotting import COLORS, new_figure, replace_artists, style


def load_hmc_demo(directory=None) -> dict | None:
    """The stored HMC predictive band of the demo (``figures/hmc_demo.json``), or None if absent.

    It was sampled for the panel's default data with H = 2 and adapted α, β
    (``python -m ensemble_lib.studies.hmc_reference --datasets --demo``), so the panel draws it
    only at those settings.
    """
    path = stored_file(DEMO_FILE, directory)
    return json.loads(path.read_text()) if path.is_file() else None


class _DemoPlot:
    """The demo's artists: data, ensemble mean and ±2 s.d. band, Laplace mean and ±2 s.d. lines."""

    def __init__(self, ax, x, t, hmc: dict | None = None, legend_alpha: float | None = None):
        self.ax = ax
        self.legend_alpha = legend_alpha  # None: matplotlib's default
        self.c_ens, self.c_lap = COLORS["factor"], COLORS["laplace"]
        (self.data_line,) = ax.plot(x, t, "o", color="0.2", ms=4, label="data", zorder=5)
        # the stored HMC band: only for the data and setting it was sampled for
        self.hmc = hmc if hmc is not None and np.allclose(hmc["x"], x) and np.allclose(hmc["t"], t) else None
        self.hmc_lines = []
        if self.hmc is not None:
            xg = self.hmc["x_grid"]
            self.hmc_lines = [ax.plot(xg, self.hmc["mean"], **style("hmc", lw=1.2), label="HMC mean (H = "
                                      f"{self.hmc['n_hidden']}, adapted)")[0],
                              ax.plot(xg, self.hmc["upper"], **style("hmc", lw=0.8, ls=":"),
                                      label="HMC ± 2 s.d.")[0],
                              ax.plot(xg, self.hmc["lower"], **style("hmc", lw=0.8, ls=":"))[0]]
        (self.ens_line,) = ax.plot([], [], **style("factor", lw=2), label="ensemble ⟨f(x)⟩")
        self.band = []
        (self.lap_line,) = ax.plot([], [], **style("laplace", lw=1.5), label="Laplace f(x, w_MP)")
        (self.lap_hi,) = ax.plot([], [], **style("laplace", lw=1, ls=":"), label="Laplace ± 2 s.d.")
        (self.lap_lo,) = ax.plot([], [], **style("laplace", lw=1, ls=":"))
        ax.set_xlim(-3.0, 3.0)
        ax.set_ylim(-2.5, 2.5)
        ax.set_xlabel("x")
        ax.set_ylabel("t")
        self.title = ax.set_title(" ")
        self.legend_hmc = None  # whether the legend lists the HMC lines (None: no legend yet)

    def update(self, s: DemoState):
        xg = s.x_grid
        shown = self.hmc is not None and s.adapt and s.n_hidden == self.hmc["n_hidden"]
        for line in self.hmc_lines:
            line.set_visible(shown)
        self.ens_line.set_data(xg, s.ens_mean)
        self.band = replace_artists(self.band, lambda: [self.ax.fill_between(
            xg, s.ens_mean - 2 * s.ens_sd, s.ens_mean + 2 * s.ens_sd, color=self.c_ens, alpha=0.2, lw=0,
            label="ensemble ± 2 s.d.")])
        self.lap_line.set_data(xg, s.lap_mean)
        self.lap_hi.set_data(xg, s.lap_mean + 2 * s.lap_sd)
        self.lap_lo.set_data(xg, s.lap_mean - 2 * s.lap_sd)
        fam = "diagonal" if s.rank == 0 else f"factor s = {s.rank}"
        how = "adapted α, β" if s.adapt else f"fixed α = {s.ens_alpha:.3g}, β = {s.ens_beta:.3g}"
        self.title.set_text(f"H = {s.n_hidden}, Q {fam}, {how}")
        if self.ax.get_legend() is None or shown != self.legend_hmc:  # what it lists changed
            handles, labels = self.ax.get_legend_handles_labels()
            keep = [(h, lab) for h, lab in zip(handles, labels) if h.get_visible()]
            handles, labels = [h for h, _ in keep], [lab for _, lab in keep]
            if self.ax.get_legend() is not None:
                self.ax.get_legend().remove()
            self.ax.legend(handles, labels, loc="lower right", fontsize=7, framealpha=self.legend_alpha)
            self.legend_hmc = shown

    def artists(self) -> list:
        """What :meth:`update` changes at every step, in drawing order (the legend changes only
        when the HMC lines are shown or hidden)."""
        return [*self.hmc_lines, *self.band, self.ens_line, self.lap_line, self.lap_hi, self.lap_lo,
                self.data_line, self.title]  # the data over the curves, as their zorder says


def demo_figure(state: DemoState | None = None, data=None):
    """The static 1-D demo at the default slider values (``figures/network_1d_demo.png``)."""
    if state is not None:
        check.instance("state", state, DemoState, "a DemoState or None")
    if data is not None and (isinstance(data, (str, bytes)) or not hasattr(data, "__len__") or len(data) != 2):
        raise ValueError(f"data must be None or a pair (x, t) of inputs and targets, got {type(data).__name__}")
    x, t = demo_data() if data is None else data
    if state is None:
        key = memo_key(**DEMO_DEFAULTS)
        memo = default_fits() if data is None else {}
        if key not in memo:
            memo[key] = demo_fit(x, t, **DEMO_DEFAULTS, rng=np.random.default_rng(DEMO_SEED))
        state = memo[key]
    fig, ax = new_figure(7.0, 4.0)
    _DemoPlot(ax, x, t, load_hmc_demo()).update(state)
    return fig, state


#: the ensemble's mean "misses the data" when its r.m.s. miss at the data is above this many times
#: the noise s.d. the data were made with (:func:`misfit_note`)
MISFIT_FACTOR = 2.0


def data_misfit(s: DemoState, data=None) -> float:
    """The r.m.s. miss of the ensemble's predictive mean ⟨f(x)⟩ at the data (interpolated on the grid)."""
    x, t = demo_data() if data is None else data
    return float(np.sqrt(np.mean((np.interp(x, s.x_grid, s.ens_mean) - t) ** 2)))


def misfit_note(s: DemoState, data=None, smaller_h_bound: tuple | None = None) -> str | None:
    """Why the ensemble's curve misses the data, in the regimes where it does (None elsewhere).

    Three regimes of the panel's 216 settings (issue 29, item 4; ``tests/test_claims_networks.py``
    audits every stored setting): a fixed α so large that the prior flattens every fit, H = 1 (one
    monotone unit cannot follow the data's turns), and H = 4
    with α, β adapted, where the bound's best Q found explains the data as noise — a large ᾱ shrinks
    the one unit that carries the fit, a small β̄ absorbs the miss, and the units switched off still
    pass the 1 % usage share through their spread alone. ``smaller_h_bound`` is ``(H, F)``: the
    highest adapted bound at a smaller H, if known, to say that the bound prefers it.
    """
    miss = data_misfit(s, data)
    if miss <= MISFIT_FACTOR * DEMO_NOISE_SD:
        return None
    if s.n_hidden == 1:
        blame = (f"; the ensemble blames the miss on noise (β̄ = {s.ens_beta:.3g}, a noise s.d. of "
                 f"{1 / math.sqrt(s.ens_beta):.2f}; the data's is {DEMO_NOISE_SD})" if s.adapt else
                 f", and α = {s.ens_alpha:.3g} flattens it further")
        return (f"why the curves miss the data: one erf unit gives a monotone f(x), which cannot follow the "
                f"turns of sin(1.5x) (r.m.s. miss {miss:.2f}){blame}. Two units can.")
    if not s.adapt:
        return (f"why the curves miss the data: the prior precision α = {s.ens_alpha:.3g} (prior s.d. "
                f"{1 / math.sqrt(s.ens_alpha):.2f} per weight) pulls every weight towards 0, and the data error at "
                f"β = {s.ens_beta:.3g} cannot pull them back, so ⟨f(x)⟩ is too flat to follow the data "
                f"(r.m.s. miss {miss:.2f} against the data's noise s.d. {DEMO_NOISE_SD}): the prior wins.")
    text = (f"why the ensemble misses the data: its Q explains them as noise. β̄ = {s.ens_beta:.3g} is a noise "
            f"s.d. of {1 / math.sqrt(s.ens_beta):.2f} (the data's is {DEMO_NOISE_SD}), and ᾱ = "
            f"{s.ens_alpha:.3g} shrinks the weights, so ⟨f(x)⟩ is nearly flat (r.m.s. miss {miss:.2f}). "
            f"The {s.ens_active} active units overstate what it uses: most are switched off (mean weights 0), "
            f"but their spread under Q alone passes the 1% share of a Σ⟨f²⟩ this small.")
    if smaller_h_bound is not None and smaller_h_bound[1] > s.bound:
        text += (f" The bound says so too: F = {s.bound:.2f} here is below F = {smaller_h_bound[1]:.2f} at "
                 f"H = {smaller_h_bound[0]}, so the bound prefers fewer hidden units.")
    return text


def format_demo_readout(s: DemoState, data=None, smaller_h_bound: tuple | None = None) -> str:
    """Plain-text readout of a :class:`DemoState` (the panel escapes it), with :func:`misfit_note`
    where the ensemble's curve misses the data."""
    text = (f"ensemble: alpha = {s.ens_alpha:.4g}, beta = {s.ens_beta:.4g}, bound F = {s.bound:.3f}; "
            f"Laplace: alpha = {s.lap_alpha:.4g}, beta = {s.lap_beta:.4g}, ln P(D) (MacKay (20)) = "
            f"{s.lap_log_evidence:.3f}, bound of N(w_MP, A^-1) = {s.lap_bound:.3f}; "
            f"error bar at x = 0 (in the gap): ensemble {s.ens_sd[s.x_grid.size // 2]:.3f}, "
            f"Laplace {s.lap_sd[s.x_grid.size // 2]:.3f}; "
            f"active hidden units: ensemble {s.ens_active} of {s.n_hidden}, Laplace {s.lap_active} "
            f"of {s.n_hidden}")
    why = misfit_note(s, data, smaller_h_bound)
    if why:
        text += " | " + why
    if s.notes:
        text += " | note: " + " ".join(explain_note(n) for n in s.notes)
    return text


def explain_note(note: str) -> str:
    """A fit's warning (the first part of its message) said in words a student understands.

    The fits stop at a step limit so that the panel stays responsive; a fit stopped
    there is close to, but not exactly at, the best Q of its family.
    """
    m = re.match(r"(fit_family|fit_ensemble|kl_fit) \((\w+), s=(\d+)\) stopped before converging", note)
    if m:
        family = {"diagonal": "diagonal", "factor": f"factor (s = {m.group(3)})", "full": "full"}.get(
            m.group(2), m.group(2))
        return (f"the {family} ensemble fit reached its step limit before it had fully converged, "
                "so its bound F may still be slightly too low and its error bars slightly off; "
                "the picture is close to, not exactly, the best Q of this family.")
    return f"a fit reported: {note}."


class Network1DPanel(FigurePanel):
    """Sliders H, s, α and an "adapt hyperparameters" box; ensemble vs Laplace error bars.

    Every fit is memoised, so returning to a setting costs only the redraw; on the default
    data the memo is shared with :func:`demo_figure` and every other such panel, and holds every
    setting of the controls from the start (:func:`load_demo_store`), so no step waits for a fit.
    With "adapt" ticked the α slider is ignored (α, β are inferred).

    Parameters
    ----------
    data : (x, t), optional
        Default :func:`demo_data`.
    """

    #: fewer pixels: faster steps
    dpi = 80
    #: other data's fits kept by the panel machine's memo: every setting of the controls
    MEMO_SIZE = 216
    #: fixed axes: a step redraws the curves, the band and the title over the rest, and puts the
    #: (opaque) legend back on top
    blit = True

    def __init__(self, data=None):
        if data is not None:
            if isinstance(data, (str, bytes)) or not hasattr(data, "__len__") or len(data) != 2:
                raise ValueError(f"data must be None or a pair (x, t) of inputs and targets, got {type(data).__name__}")
            x, t = check.finite_vector("x", data[0]), check.finite_vector("t", data[1])
            if x.shape != t.shape:
                raise ValueError(f"x and t must have the same length, got {x.size} and {t.size}")
            data = (x, t)
        self.x, self.t = demo_data() if data is None else data
        #: the stored fits of every control setting on the default data (shared, read-only); other
        #: data are fitted as the panel goes and kept in the panel machine's memo
        self._stored: dict = default_fits() if data is None else {}
        fig, ax = new_figure(7.0, 3.8)
        self.plot = _DemoPlot(ax, self.x, self.t, load_hmc_demo(), legend_alpha=1.0)
        d = DEMO_DEFAULTS
        a_lo, a_hi = 10.0 ** LOG10_ALPHA_RANGE[0], 10.0 ** LOG10_ALPHA_RANGE[1]
        controls = {
            "n_hidden": self.slider("hidden units H", d["n_hidden"], *H_RANGE),
            "rank": self.slider("factors s (0 = diagonal)", d["rank"], *S_RANGE),
            "alpha": self.slider("prior precision α", d["alpha"], a_lo, a_hi, step=0.25, log=True),
            "adapt": w.Checkbox(value=d["adapt"], description="adapt hyperparameters α, β"),
        }
        self.draw(self.compute(**{k: c.value for k, c in controls.items()}))
        super().__init__(controls, fig, columns=2)

    def inactive_controls(self, n_hidden, rank, alpha, adapt) -> set[str]:
        """The α slider is shown disabled while α, β are adapted (it is ignored then)."""
        return {"alpha"} if adapt else set()

    def compute(self, n_hidden, rank, alpha, adapt):
        n_hidden = check.integer("n_hidden", n_hidden, low=H_RANGE[0], high=H_RANGE[1])
        rank = check.integer("rank", rank, low=S_RANGE[0], high=S_RANGE[1])
        alpha = check.precision("alpha", alpha)
        adapt = check.flag("adapt", adapt)
        key = memo_key(n_hidden, rank, alpha, adapt)
        if key in self._stored:
            return self._stored[key]
        return self.memo(key, lambda: demo_fit(self.x, self.t, n_hidden, rank, alpha, adapt,
                                               rng=np.random.default_rng(DEMO_SEED)))

    def animated_artists(self) -> list:
        return self.plot.artists()

    def overlay_artists(self) -> list:
        """The legend, over the curves."""
        return [self.plot.ax.get_legend()]

    def background_key(self):
        """The static parts (fixed axes, the legend) take two forms: the legend lists the HMC
        lines or not (H = 2 adapted, or any other setting)."""
        return bool(self.plot.legend_hmc)

    def draw(self, state: DemoState) -> None:
        legend = self.plot.ax.get_legend()
        self.plot.update(state)
        if self.plot.ax.get_legend() is not legend:  # the HMC lines were shown or hidden
            self.invalidate_background()

    def format_readout(self, state: DemoState) -> str:
        return html.escape(format_demo_readout(state, (self.x, self.t), self.smaller_h_bound(state)))

    def smaller_h_bound(self, state: DemoState) -> tuple | None:
        """``(H, F)``: the highest adapted bound at a smaller H and the same s, among the stored fits
        (every one on the default data), or None."""
        if not isinstance(state, DemoState):
            raise ValueError(f"state must be a DemoState (what compute returns), got {type(state).__name__}")
        if not state.adapt:
            return None
        found = [(self._stored[k].bound, h) for h in range(H_RANGE[0], state.n_hidden)
                 if (k := memo_key(h, state.rank, 1.0, True)) in self._stored]
        return (max(found)[1], max(found)[0]) if found else None


__all__ = ["MISFIT_FACTOR", "Network1DPanel", "demo_figure"]
