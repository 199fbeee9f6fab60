"""Lesson 4: ensemble learning for real networks — the 1-D demo panel, its figure, and Table 1's figures.

Barber & Bishop (1998) §2.1–2.3; MacKay (1995) "Probable networks" §5.2
(predictive error bars gᵀA⁻¹g + 1/β). The fits live in
:mod:`ensemble_lib.inference.network_fits`, the demo's data, fits and stored fits in
:mod:`ensemble_lib.studies.network_demo`, the Table-1 study in :mod:`ensemble_lib.studies.table1`.

* :class:`Network1DPanel` (:func:`~ensemble_lib.studies.network_demo.demo_fit`): the 1-D
  regression demo (sliders H, s, α or "adapt hyperparameters"), ensemble vs Laplace error bars;
* :func:`table_figure`, :func:`pruning_figure`: the stored Table-1 study re-plotted;
* :func:`write_figures`: ``network_1d_demo.png``, ``boston_table1.png``, ``table1_pruning.png``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import ipywidgets as w
import numpy as np

from ..core import validation as check
from ..studies.hmc_reference import DEMO_FILE
from ..studies.network_demo import (DEMO_BETA, DEMO_DEFAULTS, DEMO_NOISE_SD, DEMO_SEED, DEMO_STORE_FILE,
                                    H_RANGE, LOG10_ALPHA_RANGE, S_RANGE, DemoState, default_fits,
                                    demo_data, demo_fit, load_demo_store, memo_key)
from ..studies.store import stored_file
from ..studies.table1 import METHOD_LABELS, hmc_comparison, load_table, stored_hmc
from ..ui.panel import FigurePanel
from ..ui.plotting import COLORS, new_figure, replace_artists, save_figure

#: the demo's names a lesson-4 reader finds here (they live in :mod:`ensemble_lib.studies.network_demo`)
__all__ = ["H_RANGE", "S_RANGE", "LOG10_ALPHA_RANGE", "DEMO_NOISE_SD", "DEMO_BETA", "DEMO_DEFAULTS", "DEMO_SEED",
           "DEMO_STORE_FILE", "DemoState", "demo_data", "demo_fit", "load_demo_store", "load_hmc_demo",
           "demo_figure", "format_demo_readout", "explain_note", "Network1DPanel", "plot_table", "table_figure",
           "plot_pruning", "pruning_figure", "write_figures"]

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
            xg, c = self.hmc["x_grid"], COLORS["posterior"]
            self.hmc_lines = [ax.plot(xg, self.hmc["mean"], color=c, lw=1.2, label="HMC mean (H = "
                                      f"{self.hmc['n_hidden']}, adapted)")[0],
                              ax.plot(xg, self.hmc["upper"], color=c, lw=0.8, ls="-.",
                                      label="HMC ± 2 s.d.")[0],
                              ax.plot(xg, self.hmc["lower"], color=c, lw=0.8, ls="-.")[0]]
        (self.ens_line,) = ax.plot([], [], color=self.c_ens, lw=2, label="ensemble ⟨f(x)⟩")
        self.band = []
        (self.lap_line,) = ax.plot([], [], color=self.c_lap, lw=1.5, ls="--", label="Laplace f(x, w_MP)")
        (self.lap_hi,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":", label="Laplace ± 2 s.d.")
        (self.lap_lo,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":")
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


def format_demo_readout(s: DemoState) -> str:
    """Plain-text readout of a :class:`DemoState` (the panel escapes it)."""
    text = (f"ensemble: alpha = {s.ens_alpha:.4g}, beta = {s.ens_beta:.4g}, bound F = {s.bound:.3f}; "
            f"Laplace: alpha = {s.lap_alpha:.4g}, beta = {s.lap_beta:.4g}, ln P(D) (MacKay (20)) = "
            f"{s.lap_log_evidence:.3f}, bound of N(w_MP, A^-1) = {s.lap_bound:.3f}; "
            f"error bar at x = 0 (in the gap): ensemble {s.ens_sd[s.x_grid.size // 2]:.3f}, "
            f"Laplace {s.lap_sd[s.x_grid.size // 2]:.3f}; "
            f"active hidden units: ensemble {s.ens_active} of {s.n_hidden}, Laplace {s.lap_active} "
            f"of {s.n_hidden}")
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
    #: fixed axes: a step redraws the curves, the band and the title over the rest, and puts the
    #: (opaque) legend back on top
    blit = True

    def __init__(self, data=None):
        self.x, self.t = demo_data() if data is None else data
        self._memo: dict = default_fits() if data is None else {}
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
        if key not in self._memo:
            self._memo[key] = demo_fit(self.x, self.t, n_hidden, rank, alpha, adapt,
                                       rng=np.random.default_rng(DEMO_SEED))
        return self._memo[key]

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
        return html.escape(format_demo_readout(state))


# ---------------------------------------------------------------------------
# Table 1's figures (the study: :mod:`ensemble_lib.studies.table1`)
# ---------------------------------------------------------------------------


def plot_table(ax, result: dict, title: str | None = None, hmc: dict | None = None):
    """Test MSE ± 1 standard error per method (bars), the paper's Table 1 as crosses, HMC as a band."""
    keys = [k for k in METHOD_LABELS if k in result["methods"]]
    colors = {"laplace_evidence": COLORS["laplace"], "ensemble_diagonal": COLORS["diagonal"],
              "ensemble_full": COLORS["full"]}
    y = np.arange(len(keys))[::-1]
    m = [result["methods"][k]["test_mse"]["mean"] for k in keys]
    se = [result["methods"][k]["test_mse"]["se"] or 0.0 for k in keys]
    arts = [ax.barh(y, m, xerr=se, color=[colors.get(k, COLORS["factor"]) for k in keys],
                    alpha=0.6, capsize=3, label=f"ours: mean ± s.e. over {len(result['splits'])} splits")]
    paper = result.get("paper") or {}
    py = [yy for yy, k in zip(y, keys) if k in paper]
    if py:
        arts.append(ax.plot([paper[k] for k in keys if k in paper], py, "kx", ms=9, mew=2,
                            label="Barber & Bishop Table 1")[0])
    if hmc is not None:
        h = hmc_comparison(result, hmc)["hmc"]
        arts.append(ax.axvspan(h["mean"] - (h["se"] or 0.0), h["mean"] + (h["se"] or 0.0),
                               color=COLORS["posterior"], alpha=0.2, lw=0))
        arts.append(ax.axvline(h["mean"], color=COLORS["posterior"], lw=1.5,
                               label="HMC (NUTS): mean ± s.e."))
    b = result["baseline_mse"]["mean"]
    arts.append(ax.axvline(b, color="0.5", ls="--", lw=1, label="predict the training mean"))
    ax.set_yticks(y, [result["methods"][k]["label"] for k in keys])
    ax.set_xlabel("test mean squared error (standardised targets)")
    ax.set_title(title or result["dataset"])
    ax.legend(loc="lower right", fontsize=7)
    return arts


def _title(result: dict, name: str) -> str:
    cfg = result["config"]
    return (f"{name}: N = {cfg['n_train']} training, {result['splits'][0]['n_test']} test, "
            f"H = {cfg['n_hidden']}")


def table_figure(boston: dict, diabetes: dict | None = None, hmc: dict | None = None):
    """Both stored tables side by side (``figures/boston_table1.png``), with HMC where given.

    ``hmc`` maps a data set name to its stored HMC reference (missing names: no HMC band).
    """
    hmc = hmc or {}
    fig, axes = new_figure(11.0, 3.8, ncols=2 if diabetes else 1)
    axes = np.atleast_1d(axes)
    plot_table(axes[0], boston, _title(boston, "Boston housing"), hmc.get("boston"))
    if diabetes:
        plot_table(axes[1], diabetes, _title(diabetes, "Diabetes"), hmc.get("diabetes"))
        axes[1].set_yticks(axes[1].get_yticks(), [""] * len(axes[1].get_yticks()))
    return fig


def plot_pruning(ax_units, ax_bound, result: dict, hmc: dict | None = None):
    """Over-pruning, from the stored trials: test error against active hidden units, and the bound
    against test error.

    Left: every ensemble fit of every split (each family from each start) by its number of
    active hidden units; the family bests are drawn bold. Right: each fit's bound relative to
    the best ensemble bound of its split (≤ 0) against its test error minus HMC's on that split
    (or the test error itself without ``hmc``): were the bound a perfect guide to prediction, the
    errors would fall steadily from left to right.
    """
    ref = {s["index"]: s["test_mse"] for s in hmc["splits"]} if hmc is not None else {}
    fam_colors = {"ensemble_diagonal": COLORS["diagonal"], "ensemble_full": COLORS["full"]}
    markers = {"ensemble_s1": "s", "ensemble_s2": "^", "ensemble_s4": "D"}  # the factor ranks
    jitter = np.random.default_rng(0)  # horizontal jitter only, so overlapping points show
    H = result["config"]["n_hidden"]
    for s in result["splits"]:
        best = max(t["bound"] for t in s["trials"])
        off = ref.get(s["index"], 0.0)
        for t in s["trials"]:
            c = fam_colors.get(t["family"], COLORS["factor"])
            ax_units.plot(t["active_units"] + jitter.uniform(-0.15, 0.15), t["test_mse"], ".",
                          color=c, alpha=0.35, ms=4)
            ax_bound.plot(t["bound"] - best, t["test_mse"] - off, ".", color=c, alpha=0.35, ms=4)
        for key, row in s["methods"].items():
            if key.startswith("ensemble"):
                ax_units.plot(row["active_units"] + jitter.uniform(-0.15, 0.15), row["test_mse"],
                              markers.get(key, "o"), color=fam_colors.get(key, COLORS["factor"]), ms=5,
                              mec="k", mew=0.5)
    for key in [k for k in METHOD_LABELS if k.startswith("ensemble") and k in result["methods"]]:
        ax_units.plot([], [], markers.get(key, "o"), color=fam_colors.get(key, COLORS["factor"]),
                      mec="k", mew=0.5, label=METHOD_LABELS[key].replace("Ensemble ", ""))
    ax_units.set_xticks(range(0, H + 1))
    ax_units.set_xlabel("active hidden units (share of Σ⟨f²⟩ ≥ 1%)")
    ax_units.set_ylabel("test mean squared error")
    ax_units.legend(fontsize=7, title="family best (bold); all fits (dots)", title_fontsize=7)
    ax_bound.set_xlabel("bound F* minus the split's best ensemble bound (nats)")
    ax_bound.set_ylabel("test MSE minus HMC's" if hmc is not None else "test mean squared error")
    if hmc is not None:
        ax_bound.axhline(0.0, color=COLORS["posterior"], lw=1)
    ax_units.set_title(f"{result['dataset']}: test error by active hidden units", fontsize=9)
    ax_bound.set_title("bound against test error, every fit of every split", fontsize=9)


def pruning_figure(result: dict, hmc: dict | None = None):
    """:func:`plot_pruning` as a figure (``figures/table1_pruning.png``, Boston)."""
    fig, axes = new_figure(11.0, 3.8, ncols=2)
    plot_pruning(axes[0], axes[1], result, hmc)
    return fig


def write_figures(outdir) -> list[Path]:
    """Write ``network_1d_demo.png``, ``boston_table1.png`` and ``table1_pruning.png`` into ``outdir``.

    The Table-1 figures refit nothing: they re-plot ``boston_table1.json``, ``diabetes_table.json``
    and the HMC references ``hmc_reference_*.json`` from the repository's ``figures/`` folder.
    """
    outdir = Path(outdir)
    fig, _ = demo_figure()
    written = [save_figure(fig, outdir / "network_1d_demo.png")]
    hmc = stored_hmc()
    boston = load_table("boston")
    return written + [save_figure(table_figure(boston, load_table("diabetes"), hmc), outdir / "boston_table1.png"),
                      save_figure(pruning_figure(boston, hmc.get("boston")), outdir / "table1_pruning.png")]
