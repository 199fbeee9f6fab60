"""Lesson 4: ensemble learning for real networks — the 1-D demo panel, its figure, and Table 1's figures.

Barber & Bishop (1998) §2.1–2.3; MacKay (1995) "Probable networks" §5.2
(predictive error bars gᵀA⁻¹g + 1/β). The fits live in
:mod:`ensemble_lib.inference.network_fits`, the demo's data, fits and stored fits in
:mod:`ensemble_lib.studies.network_demo`, the Table-1 study in :mod:`ensemble_lib.studies.table1`.

* :class:`Network1DPanel` (:func:`~ensemble_lib.studies.network_demo.demo_fit`): the 1-D
  regression demo (sliders H, s, α or "adapt hyperparameters"), ensemble vs Laplace error bars;
* :func:`table_figure`, :func:`pruning_figure`: the stored Table-1 study re-plotted;
* :func:`write_figures`: ``network_1d_demo.png``, ``boston_table1.png``, ``table1_pruning.png``;
* :func:`opening_sentence`, :func:`hmc_convergence_note`, :func:`table1_text`: the lesson's sentences
  and tables written from the computed values when the lesson runs (issue 29);
* :func:`retraining_table`, :func:`retraining_figure`: §8, cheap predictive distributions by noisy
  retraining (MacKay §9.2), from :mod:`ensemble_lib.studies.retraining_demo`;
* :data:`EXERCISES` — the lesson's five exercises and their checks (``check("q1")`` in the lesson).
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import ipywidgets as w
import numpy as np

from ..core import validation as check
from ..core.gaussian import CovarianceFamily
from ..models.network import predictive_mean
from ..studies.hmc_reference import DEMO_FILE, R_HAT_TARGET
from ..studies.network_demo import (DEMO_BETA, DEMO_DEFAULTS, DEMO_NOISE_SD, DEMO_SEED, DEMO_STORE_FILE,
                                    H_RANGE, LOG10_ALPHA_RANGE, S_RANGE, DemoState, default_fits,
                                    demo_data, demo_fit, load_demo_store, memo_key)
from ..studies.retraining_demo import (N_MACKAY, VARIANTS, X_GAP, RetrainingSummary,
                                       retraining_rows, retraining_summary)
from ..studies.store import stored_file
from ..studies.table1 import METHOD_LABELS, format_table, hmc_comparison, load_table, stored_hmc
from ..ui.exercises import (AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real,
                            whole_number)
from ..ui.panel import FigurePanel
from ..ui.plotting import COLORS, bar_style, new_figure, replace_artists, save_figure, style
from ..ui.tables import Table, TextTable

#: the demo's names a lesson-4 reader finds here (they live in :mod:`ensemble_lib.studies.network_demo`)

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


# ---------------------------------------------------------------------------
# Table 1's figures (the study: :mod:`ensemble_lib.studies.table1`)
# ---------------------------------------------------------------------------


#: Table 1's ensemble families by their look in :data:`~ensemble_lib.ui.plotting.STYLES`: the factor ranks
#: share the factor's colour, each with its own marker (the pruning plot) and hatch (the bars)
FAMILY_STYLES = {"ensemble_diagonal": "diagonal", "ensemble_full": "full", "ensemble_s1": "factor",
                 "ensemble_s2": "factor_s2", "ensemble_s4": "factor_s4"}
#: Table 1's bars: each method's colour and hatch (:func:`~ensemble_lib.ui.plotting.bar_style`)
TABLE_BARS = {"laplace_evidence": bar_style("laplace"), **{k: bar_style(v) for k, v in FAMILY_STYLES.items()}}


def plot_table(ax, result: dict, title: str | None = None, hmc: dict | None = None):
    """Test MSE ± 1 standard error per method (bars), the paper's Table 1 as crosses, HMC as a band."""
    keys = [k for k in METHOD_LABELS if k in result["methods"]]
    y = np.arange(len(keys))[::-1]
    m = [result["methods"][k]["test_mse"]["mean"] for k in keys]
    se = [result["methods"][k]["test_mse"]["se"] or 0.0 for k in keys]
    bars = ax.barh(y, m, xerr=se, capsize=3, label=f"ours: mean ± s.e. over {len(result['splits'])} splits")
    for rect, k in zip(bars, keys):  # each method's colour and hatch: told apart without colour too
        rect.set(**TABLE_BARS.get(k, TABLE_BARS["ensemble_s1"]))
    arts = [bars]
    paper = result.get("paper") or {}
    py = [yy for yy, k in zip(y, keys) if k in paper]
    if py:
        arts.append(ax.plot([paper[k] for k in keys if k in paper], py, "kx", ms=9, mew=2,
                            label="Barber & Bishop Table 1")[0])
    if hmc is not None:
        h = hmc_comparison(result, hmc)["hmc"]
        arts.append(ax.axvspan(h["mean"] - (h["se"] or 0.0), h["mean"] + (h["se"] or 0.0),
                               color=COLORS["hmc"], alpha=0.2, lw=0))
        arts.append(ax.axvline(h["mean"], **style("hmc", lw=1.5, marker="None"),
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
    check.mapping("boston", boston, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if diabetes is not None:
        check.mapping("diabetes", diabetes, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a dict of data set -> stored HMC reference (stored_hmc()) or None")
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
    active hidden units; the family bests are drawn filled. Right: each fit's bound relative to
    the best ensemble bound of its split (≤ 0) against its test error minus HMC's on that split
    (or the test error itself without ``hmc``): were the bound a perfect guide to prediction, the
    errors would fall steadily from left to right.
    """
    ref = {s["index"]: s["test_mse"] for s in hmc["splits"]} if hmc is not None else {}
    # each family's marker and colour (FAMILY_STYLES): every fit hollow and pale, the family bests filled
    look = {k: style(v, linestyle="None", markevery=None) for k, v in FAMILY_STYLES.items()}
    fit = dict(mfc="none", alpha=0.55, ms=4.5, mew=0.8)
    jitter = np.random.default_rng(0)  # horizontal jitter only, so overlapping points show
    H = result["config"]["n_hidden"]
    for s in result["splits"]:
        best = max(t["bound"] for t in s["trials"])
        off = ref.get(s["index"], 0.0)
        # every fit's marker, in the order of the trials; a run of one family is one line (its markers
        # are drawn in the same order as one line each would be, at a fraction of the cost)
        runs = []
        for t in s["trials"]:
            point = (t["active_units"] + jitter.uniform(-0.15, 0.15), t["test_mse"], t["bound"] - best,
                     t["test_mse"] - off)
            if runs and runs[-1][0] == t["family"]:
                runs[-1][1].append(point)
            else:
                runs.append((t["family"], [point]))
        for family, points in runs:
            xu, yu, xb, yb = zip(*points)
            ax_units.plot(xu, yu, **look[family], **fit)
            ax_bound.plot(xb, yb, **look[family], **fit)
        for key, row in s["methods"].items():
            if key in look:
                ax_units.plot(row["active_units"] + jitter.uniform(-0.15, 0.15), row["test_mse"], **look[key],
                              ms=6, mec="k", mew=0.5)
    for key in [k for k in METHOD_LABELS if k in look and k in result["methods"]]:
        ax_units.plot([], [], **look[key], mec="k", mew=0.5, label=METHOD_LABELS[key].replace("Ensemble ", ""))
    ax_units.set_xticks(range(0, H + 1))
    ax_units.set_xlabel("active hidden units (share of Σ⟨f²⟩ ≥ 1%)")
    ax_units.set_ylabel("test mean squared error")
    ax_units.legend(fontsize=7, title="family best (filled); all fits (hollow)", title_fontsize=7)
    ax_bound.set_xlabel("bound F* minus the split's best ensemble bound (nats)")
    ax_bound.set_ylabel("test MSE minus HMC's" if hmc is not None else "test mean squared error")
    if hmc is not None:
        ax_bound.axhline(0.0, **style("hmc", lw=1, marker="None"))
    ax_units.set_title(f"{result['dataset']}: test error by active hidden units", fontsize=9)
    ax_bound.set_title("bound against test error, every fit of every split", fontsize=9)


def pruning_figure(result: dict, hmc: dict | None = None):
    """:func:`plot_pruning` as a figure (``figures/table1_pruning.png``, Boston)."""
    check.mapping("result", result, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a stored HMC reference or None")
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


# ---------------------------------------------------------------------------
# The lesson's sentences and tables, written from the computed values (issue 29)
# ---------------------------------------------------------------------------

#: R-hat at or below which a split's HMC chains count as converged (the usual rule of thumb)
R_HAT_CONVERGED = R_HAT_TARGET
#: the column widths of :func:`~ensemble_lib.studies.table1.format_table`'s lines
_TABLE1_WIDTHS = (28, 15, 6, 17, 5, 16, 13, 8, 8)


def opening_sentence(state: DemoState) -> str:
    """The "Where it opens" paragraph (Markdown) for the panel's default setting ``state``."""
    check.instance("state", state, DemoState, "a DemoState (demo_fit())")
    mid = state.x_grid.size // 2
    fam = "diagonal" if state.rank == 0 else f"factor s = {state.rank}"
    how = "α and β adapted" if state.adapt else f"α = {state.ens_alpha:.3g} and β = {state.ens_beta:.3g} fixed"
    text = (f"**Where it opens.** H = {state.n_hidden}, Q {fam}, with {how}: the ensemble reaches "
            f"α = {state.ens_alpha:.4g}, β = {state.ens_beta:.4g} and bound F = {state.bound:.3f}, MacKay's "
            f"Laplace α = {state.lap_alpha:.4g} and β = {state.lap_beta:.4g}; in the gap (x = 0) the error "
            f"bars are {state.ens_sd[mid]:.3f} (ensemble) and {state.lap_sd[mid]:.3f} (Laplace). The ensemble "
            f"uses {state.ens_active} of the {state.n_hidden} hidden units, Laplace {state.lap_active}.")
    return text.replace("-", "−")


def hmc_convergence_note(hmc: dict, name: str, threshold: float = R_HAT_CONVERGED) -> str:
    """What the stored HMC reference's convergence says about its "minus HMC" column (Markdown).

    A split counts as converged when its stored ``converged`` is true (R-hat ≤ 1.05 and bulk ESS ≥
    400 on the invariant quantities), or, in a reference that predates that field, when its R-hat is
    at most ``threshold``.
    """
    check.mapping("hmc", hmc, (), "a dict of data set -> stored HMC reference (stored_hmc())")
    if not isinstance(name, str):
        raise ValueError(f"name must be a data set's name (a str), got {name!r}")
    threshold = check.positive("threshold", threshold, lower=1.0)
    splits = hmc["splits"]
    r = [float(s["r_hat_max"]) for s in splits]
    ok = [bool(s.get("converged", float(s["r_hat_max"]) <= threshold)) for s in splits]
    if all(ok):
        return (f"**The HMC reference on {name}** has converged on all {len(r)} splits (R-hat ≤ {threshold}, "
                f"largest {max(r):.2f}): its test error stands for the exact Bayesian answer, and "
                f"\"minus HMC\" measures how far each approximation is from it.")
    chains = hmc.get("sampler", {}).get("num_chains")
    mc = [float(s.get("test_mse_mc_se") or 0.0) for s in splits]
    carried = (f" Each value marked † carries HMC's own Monte Carlo error: the spread between its "
               f"{chains} chains gives its test error on a split a standard error of up to {max(mc):.3f} "
               f"({np.sqrt(np.sum(np.square(mc))) / len(mc):.3f} on the average over splits), and that "
               f"is added to the table's standard error." if any(mc) else "")
    return (f"**The HMC reference on {name} has not converged** on {len(r) - sum(ok)} of its {len(r)} splits "
            f"(R-hat above {threshold} or bulk ESS below 400 on the quantities the symmetries leave "
            f"alone; largest R-hat {max(r):.2f}): there its chains settle in different modes and disagree, "
            f"and each chain counts equally, so the modes are weighted by how many chains reach them, not "
            f"by their posterior mass. Its test error is therefore not yet the exact Bayesian answer, and "
            f"the \"minus HMC\" column measures the distance to that sampler's predictions: a yardstick "
            f"on {name}, not a verdict.{carried}")


def table1_text(result: dict, hmc: dict | None = None) -> TextTable:
    """:func:`~ensemble_lib.studies.table1.format_table` as a :class:`~ensemble_lib.ui.tables.TextTable`:
    the same text (``print``, nbval), an HTML table in a notebook."""
    check.mapping("result", result, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a stored HMC reference or None")
    return TextTable.from_columns(format_table(result, hmc), _TABLE1_WIDTHS)


# ---------------------------------------------------------------------------
# Exercises (ensemble_lib.ui.exercises): check("q1") … check("q4") in the lesson
# ---------------------------------------------------------------------------

#: exercise 1's panel setting (H, s, adapted) and the α's it compares
_EX1_SETTING = {"n_hidden": 4, "rank": 0, "adapt": True}
_EX1_ALPHAS = (0.01, 100.0)


def _ex1_bars(panel: Network1DPanel) -> tuple[float, float]:
    """The ensemble's error bar at x = 0 at H = 2, diagonal, fixed α = 0.01 and α = 100."""
    out = []
    for a in _EX1_ALPHAS:
        s = panel.compute(n_hidden=2, rank=0, alpha=a, adapt=False)
        out.append(float(s.ens_sd[s.x_grid.size // 2]))
    return out[0], out[1]


def _check_q1(ex1_panel, noise_sd, bar_shrinks):
    if not isinstance(ex1_panel, Network1DPanel):
        raise AnswerError("ex1_panel must be the lesson's panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    noise = real("noise_sd", noise_sd)
    shrinks = boolean("bar_shrinks", bar_shrinks)
    v = ex1_panel.values()
    if (v["n_hidden"], v["rank"], bool(v["adapt"])) != (4, 0, True):
        return "leave the panel at H = 4, s = 0 (diagonal), with \"adapt hyperparameters\" ticked."
    state = ex1_panel.compute(**v)
    if not close(noise, 1.0 / math.sqrt(state.ens_beta), 0.02):
        return ("the noise s.d. the ensemble infers is 1/√β̄, with β̄ the ensemble's beta in the readout "
                "(not the s.d. the data were made with).")
    lo, hi = _ex1_bars(ex1_panel)
    if shrinks != (hi < lo):
        return ("untick \"adapt\", set H = 2 and s = 0, and compare the ensemble's error bar at x = 0 in the "
                "readout at the left and the right end of the α slider.")
    return None


def _wrong_q1(ns):
    panel = Network1DPanel()  # a panel of its own: the lesson's stays as shown
    with panel.hold(update=False):
        for name, value in _EX1_SETTING.items():
            panel.controls[name].value = value
    lo, hi = _ex1_bars(panel)
    return {"ex1_panel": panel, "noise_sd": DEMO_NOISE_SD, "bar_shrinks": not hi < lo}  # the data's noise


_Q2_CASES = ((0.4, -1.2, 2.0, 0.6), (-1.0, 0.5, 0.3, -0.2), (2.0, 1.5, 5.0, 1.1), (0.0, -0.7, 0.1, 0.05))


def _q2_library(a_bar, v_bar, var_a, c):
    """⟨v σ(a)⟩ from the library: a one-unit network with weights (u, v) = (a, v) on the input 1."""
    cov = np.array([[var_a, c], [c, 1.0]])
    return float(predictive_mean(np.array([a_bar, v_bar]), cov, np.ones((1, 1)), 1)[0])


def _check_q2(v_sigma_mean):
    f = function("v_sigma_mean", v_sigma_mean, "v_sigma_mean(a_bar, v_bar, var_a, c)")
    got = function_values("v_sigma_mean", f, _Q2_CASES)
    want = [_q2_library(*case) for case in _Q2_CASES]
    if all(close(g, w_, 1e-8) for g, w_ in zip(got, want)):
        return None
    if all(close(g, w_, 1e-8) for g, w_ in zip(got, [_q2_library(a, v, va, 0.0) for a, v, va, _ in _Q2_CASES])):
        return "your c-term is missing or zero: Stein's lemma turns the part of v correlated with a into c⟨σ′(a)⟩."
    return ("σ(a) = erf(a/√2); ⟨σ(a)⟩ = σ(ā/λ), and ⟨σ′(a)⟩ is the derivative of ⟨σ(a)⟩ with respect to ā "
            "(the chain rule through ā/λ).")


def _wrong_q2(ns):
    def forgot_lambda(a_bar, v_bar, var_a, c):
        lam = math.sqrt(1 + var_a)
        return v_bar * math.erf(a_bar / lam / math.sqrt(2)) + c * math.sqrt(2 / math.pi) * math.exp(
            -0.5 * (a_bar / lam) ** 2)  # the chain rule's 1/λ forgotten
    return {"v_sigma_mean": forgot_lambda}


_Q3_CASES = ((60, 0), (60, 1), (60, 4), (6, 2), (48, 3))


def _family_params(k: int, s: int) -> int:
    return CovarianceFamily.make("diagonal" if s == 0 else "factor", k, None if s == 0 else s).n_params


def _check_q3(n_params, n_full_boston):
    f = function("n_params", n_params, "n_params(k, s)")
    got = [whole_number(f"n_params{case}", f(*case)) for case in _Q3_CASES]
    full = whole_number("n_full_boston", n_full_boston)
    if got != [_family_params(k, s) for k, s in _Q3_CASES]:
        return ("count every number Q is made of: the mean w̄ (k numbers) as well as the k diagonal "
                "entries d_j and the s factor vectors s_i (k numbers each).")
    if full != CovarianceFamily.make("full", 60).n_params:
        return "the full family: the mean (k numbers) and a symmetric k × k C (its upper triangle)."
    return None


def _wrong_q3(ns):
    return {"n_params": lambda k, s: k * (s + 1), "n_full_boston": 60 * 61 // 2}  # the covariance alone


_PAPER_ORDER = ("ensemble_s1", "ensemble_diagonal", "laplace_evidence")


def _q4_truth() -> tuple[np.ndarray, int]:
    """s = 1's test errors over the stored Boston splits, and the splits with the paper's order."""
    boston = load_table("boston")
    vals = np.array([s["methods"]["ensemble_s1"]["test_mse"] for s in boston["splits"]])
    order = [tuple(sorted(_PAPER_ORDER, key=lambda k: s["methods"][k]["test_mse"])) for s in boston["splits"]]
    return vals, sum(o == _PAPER_ORDER for o in order)


def _check_q4(sd_s1, paper_order_splits):
    sd = real("sd_s1", sd_s1)
    n = whole_number("paper_order_splits", paper_order_splits)
    vals, want = _q4_truth()
    if not any(close(sd, vals.std(ddof=dd), 0.01) for dd in (0, 1)):
        if close(sd, vals.std(ddof=1) / math.sqrt(vals.size), 0.01):
            return "that is the standard error of the mean; the question asks for the spread of the single splits."
        return ("take s = 1's test error on each of the stored splits (boston[\"splits\"][i][\"methods\"]) and "
                "their standard deviation.")
    if n != want:
        return ("on each split, sort the three methods of the paper by their test error and count the splits "
                "where s = 1 < diagonal < Laplace.")
    return None


def _wrong_q4(ns):
    vals, want = _q4_truth()
    return {"sd_s1": vals.std(ddof=1) / math.sqrt(vals.size), "paper_order_splits": want + 1}


# ---------------------------------------------------------------------------
# §8: cheap predictive distributions by noisy retraining (MacKay §9.2; studies.retraining_demo)
# ---------------------------------------------------------------------------

def retraining_table(s: RetrainingSummary) -> Table:
    """Each method's predictive s.d. in the gap (x = 0) and inside the data (x = 1.5)."""
    return Table(("method", "s.d. at x = 0 (gap)", "at x = 1.5 (data)"), retraining_rows(s), widths=(-44, 19, 17))


def plot_retraining(ax, s: RetrainingSummary, variant: str = "prior"):
    """One panel: the data, twelve retrained networks, their band (all draws) and the other bands."""
    xg = s.x_grid
    key = "retrain" if variant == "prior" else "retrain_no_prior"
    out = [ax.fill_between(xg, s.mean[key] - 2 * s.sd[key], s.mean[key] + 2 * s.sd[key], color=COLORS["map"],
                           alpha=0.2, lw=0, label=f"{s.n_draws} retrained: ± 2 s.d.")]
    for j, y in enumerate(s.curves[variant][:N_MACKAY]):
        out += ax.plot(xg, y, color=COLORS["map"], lw=0.7, alpha=0.8,
                       label=f"{N_MACKAY} retrained networks" if j == 0 else None)
    for m, lab in (("laplace", "Laplace"), ("ensemble", "ensemble (s = 1)"), ("hmc", "HMC")):
        st = style({"ensemble": "factor"}.get(m, m), lw=1.1, ms=4, markevery=0.25)
        out += ax.plot(xg, s.mean[m] + 2 * s.sd[m], **st, label=f"{lab} ± 2 s.d.")
        out += ax.plot(xg, s.mean[m] - 2 * s.sd[m], **st)
    out += ax.plot(s.x, s.t, **style("data", ms=4), label="data", zorder=5)
    ax.set_xlim(-3.0, 3.0)
    ax.set_ylim(-3.0, 3.0)
    ax.set_xlabel("x")
    ax.set_title("prior mean perturbed, m_j ~ N(0, I/α)" if variant == "prior" else "prior mean fixed at 0")
    return out


def retraining_figure(s: RetrainingSummary | None = None):
    """Both panels side by side (with and without the perturbed prior mean)."""
    s = retraining_summary() if s is None else check.instance("s", s, RetrainingSummary, "a RetrainingSummary or None")
    fig, axes = new_figure(10.0, 4.0, ncols=2, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        plot_retraining(ax, s, v)
    axes[0].set_ylabel("t")
    axes[1].legend(loc="lower right", fontsize=7)
    return fig


def _q5_truth() -> tuple[list[float], bool]:
    s = retraining_summary()
    j = int(np.argmin(np.abs(s.x_grid - X_GAP)))
    f12 = s.curves["prior"][:N_MACKAY, j]
    sds = [math.sqrt(f12.var(ddof=dd) + 1.0 / s.beta) for dd in (0, 1)]
    return sds, bool(s.at("retrain", X_GAP) > s.at("retrain_no_prior", X_GAP))


def _check_q5(sd_gap, prior_widens):
    sd = real("sd_gap", sd_gap)
    widens = boolean("prior_widens", prior_widens)
    sds, want = _q5_truth()
    if not any(close(sd, w, 1e-3) for w in sds):
        s = retraining_summary()
        f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
        if any(close(sd, f12.std(ddof=dd), 1e-3) for dd in (0, 1)):
            return ("that is the spread of the networks' outputs f(0, w_j) alone; a new target also carries the "
                    "noise, of variance 1/β.")
        return ("take the first twelve rows of cheap.curves[\"prior\"] at the grid point x = 0, their variance, "
                "add the noise variance 1/β (cheap.beta) and take the square root.")
    if widens != want:
        return "compare the two retrained rows of the table at x = 0 (prior mean perturbed, and fixed at 0)."
    return None


def _wrong_q5(ns):
    s = retraining_summary()
    f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
    return {"sd_gap": float(f12.std(ddof=1)), "prior_widens": not _q5_truth()[1]}  # the noise forgotten


EXERCISES = ExerciseSet("04_ensemble_learning_for_networks.ipynb", (
    Exercise("q1", ("ex1_panel", "noise_sd", "bar_shrinks"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("v_sigma_mean",), _check_q2, _wrong_q2),
    Exercise("q3", ("n_params", "n_full_boston"), _check_q3, _wrong_q3),
    Exercise("q4", ("sd_s1", "paper_order_splits"), _check_q4, _wrong_q4),
    Exercise("q5", ("sd_gap", "prior_widens"), _check_q5, _wrong_q5),
))


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["DEMO_BETA", "DEMO_DEFAULTS", "DEMO_NOISE_SD", "DEMO_SEED", "DEMO_STORE_FILE", "EXERCISES",
           "H_RANGE", "LOG10_ALPHA_RANGE", "MISFIT_FACTOR", "R_HAT_CONVERGED", "S_RANGE", "DemoState",
           "Network1DPanel", "demo_data", "demo_fit", "demo_figure", "hmc_convergence_note",
           "load_demo_store", "opening_sentence", "pruning_figure", "retraining_figure", "retraining_table",
           "table1_text", "table_figure"]
