"""Lesson 5: deterministic vs stochastic VI on the toy of Barber & Bishop (1998), §2–2.1.

The same objective, KL(Q‖P) of B&B (16) over Gaussians Q (B&B (17)–(20)), fitted two ways:

* by :func:`~ensemble_lib.inference.kl_fit.kl_fit`: exact expectations by Gauss–Hermite
  quadrature and exact gradients, BFGS plus a polish (deterministic);
* by :func:`~ensemble_lib.inference.svi.svi_fit`: Monte Carlo reparameterisation
  gradients with S draws per step and Adam, with a fixed or a decaying step.

This module holds what the notebook and the figures share:

* :data:`LESSON_START`, a deliberately poor start used by both methods;
* :func:`run_comparison`: the exact fit and SVI for S ∈ {1, 16} × {fixed, decaying};
* :func:`plot_kl_vs_iteration`, :func:`plot_kl_vs_time`: the exact KL of each run;
* :class:`SVIExplorer`: sliders for the step size a, samples S, schedule, family
  and seed;
* :func:`write_figures`: ``figures/svi_kl_vs_iteration.png`` (the figures command);
  :func:`write_timing_figures`: ``figures/svi_kl_vs_time.png`` (a measurement, written
  by the benchmark command).

Code names: ``step_size`` = a, ``n_samples`` = S, ``tau`` = τ, ``kappa`` = κ,
``kl_opt`` = the quadrature optimum's KL.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as w
import numpy as np
from matplotlib.ticker import NullLocator

from ..core import validation as check
from ..inference.kl_fit import KLFit, kl_fit
from ..ui.tables import Table
from ..ui.plotting import MARKEVERY, OKABE_ITO, new_figure, save_figure
from ..inference.svi import SCHEDULES, SVI_FAMILIES, SVIHistory, svi_fit, svi_stream
from ..models.toy import PAPER_PRESET, make_posterior
from ..ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, real
from ..ui.panel import FigurePanel
from ..inference.svi import reparam_gradient, step_sizes
from ..core.gaussian import CovarianceFamily

#: Both methods start from this Q (a broad Gaussian in the generating quadrant,
#: far from the optimum, as a black-box SVI start would be): (mean, cov).
LESSON_START = (np.array([-0.5, -2.0]), np.diag([0.05, 0.5]))
#: The lesson's SVI settings: Adam step a, decay time τ and exponent κ (ρ_t = a/(1 + t/τ)^κ).
DEFAULT_STEP = 0.05
DEFAULT_TAU = 200.0
DEFAULT_KAPPA = 1.0
#: Steps of each run in the notebook and figures, and in the panel (kept short for speed).
N_ITER = 3000
PANEL_N_ITER = 1000
#: The panel shows the run every this many steps while it fills in (after a drag in the browser).
STREAM_EVERY = 100
#: Figures measured elsewhere with other libraries on this toy (quoted, not recomputed here).
NUMPYRO_SECONDS = 1.0
NUMPYRO_FLOOR = (0.02, 0.08)
PYMC_ADVI_SECONDS = (2.0, 6.0)

#: Slider ranges (every value gives a finite run: Adam's steps are bounded by a).
STEP_RANGE = (0.002, 0.2)
SAMPLE_OPTIONS = (1, 2, 4, 8, 16, 32)
SEED_RANGE = (0, 50)

#: Line style per schedule, and colour (Okabe–Ito) and marker per number of samples, in every plot:
#: the runs are told apart without colour too.
_STYLE = {"fixed": "-", "decaying": "--"}
_COLOR = {1: OKABE_ITO["orange"], 16: OKABE_ITO["blue"]}
_MARKER = {1: "v", 16: "o"}
#: the panel's two lines before the first run (then each run's colour, line style and marker)
_RUN_LINE = dict(color=_COLOR[1], lw=1.1, marker=_MARKER[1], markevery=MARKEVERY)


def lesson_posterior():
    """The toy posterior of lesson 1's paper-like preset (6 points, β = 100)."""
    return make_posterior(**PAPER_PRESET)


def exact_fit(post, family: str = "full", init=LESSON_START) -> KLFit:
    """The quadrature optimum from the same start as SVI (the global one: the centred start is also tried)."""
    check.posterior("post", post)
    return kl_fit(post, family, init=[init])


@dataclass(frozen=True)
class SVIComparison:
    """The exact fit and the SVI runs of :func:`run_comparison`.

    ``runs`` maps ``(n_samples, schedule)`` to an :class:`~ensemble_lib.inference.svi.SVIHistory`;
    ``exact_seconds`` is the median CPU time of the exact fit (:func:`time.thread_time`: measured,
    varies by machine).
    """

    exact: KLFit
    exact_seconds: float
    runs: dict

    @property
    def kl_opt(self) -> float:
        return float(self.exact.kl)

    def floors(self, fraction: float = 0.5) -> dict:
        """(S, schedule) → mean excess KL over the last ``fraction`` of each run (the noise floor)."""
        fraction = check.positive("fraction", fraction, upper=1.0)
        return {key: h.tail_kl(fraction) - self.kl_opt for key, h in self.runs.items()}


def run_comparison(post=None, family: str = "full", *, rng: np.random.Generator,
                   step_size: float = DEFAULT_STEP, n_iter: int = N_ITER, samples=(1, 16),
                   schedules=SCHEDULES, kl_every: int = 10, timing_repeats: int = 3) -> SVIComparison:
    """Fit the toy exactly and by SVI for every (S, schedule) from :data:`LESSON_START`.

    Each SVI run draws from its own child of ``rng`` (``rng.spawn``), so the
    whole comparison is a deterministic function of ``rng``'s state.
    """
    post = lesson_posterior() if post is None else post
    rng = check.generator("rng", rng)
    timing_repeats = check.integer("timing_repeats", timing_repeats, low=1, high=100)
    times = []
    for _ in range(timing_repeats):
        t0 = time.thread_time()
        exact = exact_fit(post, family)
        times.append(time.thread_time() - t0)
    keys = [(int(s), str(sch)) for s in samples for sch in schedules]
    children = rng.spawn(len(keys))
    runs = {
        (s, sch): svi_fit(post, family, rng=child, n_samples=s, step_size=step_size, schedule=sch,
                          n_iter=n_iter, tau=DEFAULT_TAU, kappa=DEFAULT_KAPPA, kl_every=kl_every,
                          init=LESSON_START)
        for (s, sch), child in zip(keys, children)
    }
    return SVIComparison(exact, float(np.median(times)), runs)


def first_within(h: SVIHistory, kl_opt: float, tol: float) -> tuple[int, float] | None:
    """(iteration, seconds) of the first record with KL − kl_opt ≤ tol, or None if never."""
    tol = check.positive("tol", tol)
    kl_opt = check.real("kl_opt", kl_opt)
    if not isinstance(h, SVIHistory):
        raise ValueError(f"h must be an SVIHistory, got {type(h).__name__}")
    hit = np.flatnonzero(h.kl - kl_opt <= tol)
    if hit.size == 0:
        return None
    return int(h.iterations[hit[0]]), float(h.time_s[hit[0]])


def floors_table(comp: SVIComparison, fraction: float = 0.5) -> Table:
    """Each run's mean excess KL over the optimum in the last ``fraction`` of its steps (nats)."""
    check.instance("comp", comp, SVIComparison, "an SVIComparison (run_comparison())")
    fraction = check.positive("fraction", fraction, upper=1.0)
    rows = tuple((f"{S}", schedule, f"{floor:.3f}") for (S, schedule), floor in comp.floors(fraction).items())
    return Table(("S", "step", "mean excess KL, last half (nats)"), rows, rule=True)


def floors_sentence(comp: SVIComparison, fraction: float = 0.5) -> str:
    """The notebook's sentence on the noise floors, written from ``comp``'s numbers (Markdown)."""
    check.instance("comp", comp, SVIComparison, "an SVIComparison (run_comparison())")
    fraction = check.positive("fraction", fraction, upper=1.0)
    f = comp.floors(fraction)
    fixed1, fixed16, dec1, dec16 = f[(1, "fixed")], f[(16, "fixed")], f[(1, "decaying")], f[(16, "decaying")]
    lower = "lowers" if fixed16 < fixed1 else "does **not** lower"
    keeps = "but does not remove it" if fixed16 > max(dec1, dec16) else "and here even matches a decaying step"
    closer = ("both below either fixed-step run" if max(dec1, dec16) < min(fixed1, fixed16) else
              "not below both fixed-step runs this time")
    return (f"With a fixed step the mean excess KL over the last half is {fixed1:.3f} nats for S = 1; "
            f"S = 16 {lower} it, to {fixed16:.3f}, {keeps}. The decaying step gets to {dec1:.3f} (S = 1) "
            f"and {dec16:.3f} (S = 16), {closer}.")


def timing_table(comp: SVIComparison, tol: float = 0.1) -> Table:
    """CPU time of each SVI run and when it first came within ``tol`` nat of the optimum."""
    check.instance("comp", comp, SVIComparison, "an SVIComparison (run_comparison())")
    tol = check.positive("tol", tol)
    rows = [("exact (quadrature)", "—", f"{comp.exact_seconds * 1e3:.1f} ms (median of 3)", "to |gradient| ≤ 1e-9")]
    for (S, schedule), h in comp.runs.items():
        hit = first_within(h, comp.kl_opt, tol)
        reach = "never" if hit is None else f"step {hit[0]} after {hit[1] * 1e3:.1f} ms"
        rows.append((f"SVI, S = {S}", schedule, f"{h.n_iter} steps in {h.time_s[-1] * 1e3:.1f} ms", reach))
    return Table(("method", "step", "CPU time", f"first within {tol:g} nat"), tuple(rows), rule=True)


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------

def _run_label(h: SVIHistory) -> str:
    return f"SVI, S = {h.n_samples}, {h.schedule} step"


def running_mean(y, fraction: float = 0.2) -> np.ndarray:
    """At record i, the mean of the last ⌈fraction·i⌉ values: the level a trace jitters about.

    The window grows with the record index, so early descent is not smeared
    (records are equally spaced in iterations; the plots use log axes).
    """
    y = check.real_array("y", y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array, got shape {y.shape}")
    fraction = check.positive("fraction", fraction, upper=1.0)
    c = np.concatenate([[0.0], np.cumsum(y)])
    i = np.arange(1, y.size + 1)
    lo = i - np.maximum(np.ceil(fraction * i).astype(int), 1)
    return (c[i] - c[lo]) / (i - lo)


def _plot_run(ax, x, y, h: SVIHistory):
    """One run: the raw trace, thin and pale, and its running mean on top."""
    color = _COLOR.get(h.n_samples, "0.3")
    raw = ax.plot(x, y, _STYLE[h.schedule], color=color, lw=0.5, alpha=0.35)
    smooth = ax.plot(x, running_mean(y), _STYLE[h.schedule], color=color, lw=1.6,
                     marker=_MARKER.get(h.n_samples, "None"), markevery=MARKEVERY,
                     label=_run_label(h))
    return raw + smooth


def plot_kl_vs_iteration(ax, runs: dict, kl_opt: float, excess: bool = False):
    """Exact KL(Q‖P) of each SVI run against iteration (log y), with the quadrature optimum.

    With ``excess=True`` plots KL − KL_opt on log–log axes instead, with the
    noise-floor band measured elsewhere for NumPyro at a fixed step.
    """
    artists = []
    for h in runs.values():
        y = h.kl - kl_opt if excess else h.kl
        x = np.maximum(h.iterations, 1) if excess else h.iterations
        artists += _plot_run(ax, x, np.maximum(y, 1e-6) if excess else y, h)
    if excess:
        artists.append(ax.axhspan(*NUMPYRO_FLOOR, color="0.85", zorder=0,
                                  label="NumPyro fixed-step floor (quoted)"))
        ax.set_xscale("log")
        ax.set_ylabel("KL(Q‖P) − quadrature optimum (nats)")
    else:
        artists.append(ax.axhline(kl_opt, color="k", lw=1.0, ls=":",
                                  label=f"quadrature optimum {kl_opt:.3f}"))
        ax.set_ylabel("exact KL(Q‖P) (nats)")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    return artists


def plot_kl_vs_time(ax, runs: dict, kl_opt: float, exact_seconds: float):
    """KL − KL_opt of each SVI run against its CPU time (log–log), and the exact fit's cost."""
    artists = []
    for h in runs.values():
        keep = h.iterations > 0
        artists += _plot_run(ax, h.time_s[keep], np.maximum(h.kl[keep] - kl_opt, 1e-6), h)
    artists.append(ax.axvline(exact_seconds, color="k", lw=1.0, ls=":",
                              label="exact (quadrature) fit: done, to 1e-9 in the gradient"))
    artists.append(ax.axhspan(*NUMPYRO_FLOOR, color="0.85", zorder=0,
                              label="NumPyro fixed-step floor (quoted)"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("CPU time of the optimisation (s)")
    ax.set_ylabel("KL(Q‖P) − quadrature optimum (nats)")
    return artists


def comparison_figures(comp: SVIComparison):
    """The two lesson figures: (KL and excess KL vs iteration), (excess KL vs CPU time)."""
    check.instance("comp", comp, SVIComparison, "an SVIComparison (run_comparison())")
    fig1, (ax1, ax2) = new_figure(10.0, 4.2, ncols=2)
    plot_kl_vs_iteration(ax1, comp.runs, comp.kl_opt)
    plot_kl_vs_iteration(ax2, comp.runs, comp.kl_opt, excess=True)
    ax1.legend(loc="upper right")
    ax1.set_title("exact KL of the SVI iterates (pale: raw; bold: running mean)")
    ax2.set_title("distance from the optimum: the noise floor")
    fig2, ax3 = new_figure(6.4, 4.5)
    plot_kl_vs_time(ax3, comp.runs, comp.kl_opt, comp.exact_seconds)
    ax3.legend(loc="lower left", fontsize=7)
    ax3.set_title("cost: SVI against the exact fit")
    return fig1, fig2


# ---------------------------------------------------------------------------
# The interactive panel
# ---------------------------------------------------------------------------

def _controls():
    style = {"description_width": "initial"}
    return {
        "step_size": FigurePanel.slider("step size a", DEFAULT_STEP, *STEP_RANGE, step=0.1, log=True,
                                        readout_format=".3f"),
        "n_samples": w.SelectionSlider(options=list(SAMPLE_OPTIONS), value=1, description="samples S",
                                       style=style, continuous_update=False),
        "schedule": w.ToggleButtons(options=list(SCHEDULES), value="fixed", description="schedule",
                                    style=style),
        "family": w.ToggleButtons(options=list(SVI_FAMILIES), value="full", description="Q", style=style),
        "seed": FigurePanel.slider("seed of the draws", 0, *SEED_RANGE),
    }


class SVIExplorer(FigurePanel):
    """Sliders for a, S, schedule, family and seed; the exact KL of the SVI iterates, live.

    Left: exact KL against iteration (log scale) with the quadrature optimum as
    a horizontal line. Right: the excess over the optimum (log–log), where the
    noise floor of a fixed step shows. Each step runs :data:`PANEL_N_ITER`
    SVI steps from :data:`LESSON_START`; the optima are computed once. The
    readout gives the gap to the optimum after those steps, and calls it the
    noise floor only when the run has settled (:meth:`SVIHistory.settling`: its
    mean KL no longer falls by more than two standard errors from the third
    quarter of the run to the last).
    """

    #: the right plot's frame and ticks are drawn once (fixed limits); its line and the left plot
    #: (whose range follows the run) each step
    blit = True

    def __init__(self, post=None):
        self.post = lesson_posterior() if post is None else check.posterior("post", post)
        self.optima = {}
        self.exact_seconds = {}
        for fam in SVI_FAMILIES:
            t0 = time.thread_time()
            self.optima[fam] = exact_fit(self.post, fam)
            self.exact_seconds[fam] = time.thread_time() - t0
        # 900 x 320 px: with its controls and readout within a 1366 x 768 screen's notebook
        fig, (ax1, ax2) = new_figure(9.0, 3.2, ncols=2)
        self.ax_kl, self.ax_excess = ax1, ax2
        (self._line_kl,) = ax1.plot([1, PANEL_N_ITER], [1, 1], **_RUN_LINE)
        self._opt_line = ax1.axhline(1.0, color="k", lw=1.0, ls=":", label="quadrature optimum")
        (self._line_ex,) = ax2.plot([1, PANEL_N_ITER], [1, 1], **_RUN_LINE)
        ax2.axhspan(*NUMPYRO_FLOOR, color="0.85", zorder=0, label="NumPyro fixed-step floor (quoted)")
        ax1.set_yscale("log")
        ax1.set_xlim(0, PANEL_N_ITER)
        ax1.set_xlabel("iteration")
        ax1.set_ylabel("exact KL(Q‖P) (nats)")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlim(1, PANEL_N_ITER)
        ax2.set_ylim(1e-4, 1e3)
        ax2.set_xlabel("iteration")
        ax2.set_ylabel("KL − optimum (nats)")
        for axis in (ax1.yaxis, ax2.xaxis, ax2.yaxis):  # minor ticks of log axes: most of the draw time
            axis.set_minor_locator(NullLocator())
        self._legend = ax1.legend(loc="upper right")
        ax2.legend(loc="lower left")
        self._title = ax1.set_title(" ")
        super().__init__(_controls(), fig)

    def animated_artists(self) -> list:
        """The two runs' lines and the title. The left plot's range follows the run in nice steps
        (:meth:`follow_range`) and its optimum line the family: the background is redrawn when
        either changes."""
        return [self._line_kl, self._line_ex, self._title]

    def compute(self, step_size, n_samples, schedule, family, seed) -> SVIHistory:
        seed = check.integer("seed", seed, low=0)
        h = svi_fit(self.post, family, rng=np.random.default_rng(seed), n_samples=n_samples,
                    step_size=step_size, schedule=schedule, n_iter=PANEL_N_ITER, tau=DEFAULT_TAU,
                    kappa=DEFAULT_KAPPA, kl_every=10, init=LESSON_START)
        return h

    def compute_stream(self, step_size, n_samples, schedule, family, seed):
        """The run as it goes: the first :data:`STREAM_EVERY` steps, then more; the last item is :meth:`compute`'s."""
        seed = check.integer("seed", seed, low=0)
        return svi_stream(self.post, family, rng=np.random.default_rng(seed), n_samples=n_samples,
                          step_size=step_size, schedule=schedule, n_iter=PANEL_N_ITER, tau=DEFAULT_TAU,
                          kappa=DEFAULT_KAPPA, kl_every=10, init=LESSON_START, yield_every=STREAM_EVERY)

    def draw(self, h: SVIHistory) -> None:
        kl_opt = self.optima[h.family].kl
        color = _COLOR.get(h.n_samples, "#7f7f7f")
        self._line_kl.set_data(h.iterations, h.kl)
        self._line_ex.set_data(np.maximum(h.iterations, 1), np.maximum(h.kl - kl_opt, 1e-6))
        for line in (self._line_kl, self._line_ex):
            line.set_color(color)
            line.set_linestyle(_STYLE[h.schedule])
            line.set_marker(_MARKER.get(h.n_samples, "None"))
        if kl_opt != self.__dict__.get("_shown_opt"):  # a new family: its optimum is in the background
            self._opt_line.set_ydata([kl_opt, kl_opt])
            self._legend.get_texts()[0].set_text(f"quadrature optimum {kl_opt:.3f}")
            self._shown_opt = kl_opt
            self.invalidate_background()
        top = max(float(np.max(h.kl)), 2.0 * kl_opt)
        self.follow_range(self.ax_kl, y=(0.8 * kl_opt, 1.3 * top))
        self._title.set_text(f"{h.family} Q, S = {h.n_samples}, a = {h.step_size:.3g}, {h.schedule} step")

    def format_readout(self, h: SVIHistory) -> str:
        kl_opt = self.optima[h.family].kl
        if h.n_iter < PANEL_N_ITER:  # a run still filling in (a drag in the browser)
            rows = [
                ("running", f"{h.n_iter} of {PANEL_N_ITER} SVI steps done…"),
                ("exact KL at the start", f"{h.kl[0]:.4f}"),
                (f"exact KL after {h.iterations[-1]} steps", f"{h.final_kl:.4f}"),
                ("quadrature optimum", f"{kl_opt:.4f}"),
            ]
            return self.readout_table(rows)
        gap = h.tail_kl(0.5) - kl_opt
        s = h.settling(0.5)
        verdict = (f"yes ({s.change:+.3f} ± {s.se:.3f}): noise floor {gap:.4f}" if s.settled else
                   f"no ({s.change:+.3f} ± {s.se:.3f}, still falling by > 2 s.e.): no noise floor yet")
        rows = [
            ("complete", f"all {h.n_iter} SVI steps"),
            ("exact KL at the start", f"{h.kl[0]:.4f}"),
            (f"exact KL after {h.n_iter} SVI steps", f"{h.final_kl:.4f}"),
            ("mean KL over the last half", f"{h.tail_kl(0.5):.4f}"),
            ("quadrature optimum", f"{kl_opt:.4f}"),
            (f"gap to the optimum after {h.n_iter} steps (last-half mean − optimum)", f"{gap:.4f}"),
        ]
        # the two long rows one to a line, under the short ones set two to a line (FigurePanel)
        wide = [
            ("settled? (mean KL of the last quarter − the quarter before, ± s.e.)", verdict),
            ("CPU time: SVI steps / exact fit", f"{h.time_s[-1] * 1e3:.0f} ms / "
                                                  f"{self.exact_seconds[h.family] * 1e3:.0f} ms"),
        ]
        return self.readout_table(rows) + self.readout_table(wide, pairs=1) + off_story_note(h, gap)


#: the gap (nats) above which a decaying run is said to have stopped short
STOPPED_SHORT_GAP = 0.1


def off_story_note(h: SVIHistory, gap: float) -> str:
    """The readout's line when a run contradicts the lesson's "a decaying step removes the floor"
    (a decaying run still ``gap`` > :data:`STOPPED_SHORT_GAP` from the optimum), else ``""``."""
    if h.schedule != "decaying" or gap <= STOPPED_SHORT_GAP:
        return ""
    travel = float(np.sum(step_sizes(h.step_size, "decaying", h.n_iter, DEFAULT_TAU, DEFAULT_KAPPA)))
    fixed = h.step_size * h.n_iter
    return (f"<b>Not the lesson's 'decaying removes the floor':</b> this decaying run is still {gap:.3f} nats "
            f"above the optimum. Its steps add up to Σρ_t = {travel:.2f} over {h.n_iter} steps (a fixed step "
            f"would give {fixed:.2f}): with this a it has not yet travelled to the optimum, or it still "
            "jitters there. Robbins–Monro promises the floor goes only as t → ∞; a larger a, or more steps, "
            "gets closer.")


# ---------------------------------------------------------------------------
# The exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: exercise 1's facts at the panel's 1000 steps, seed 0, S = 1 (tests/notebooks/test_claims_stochastic_vi.py
#: re-derives both from runs at a = 0.005 … 0.2): among the settled fixed-step runs the floor grows with
#: a, and a decaying run with a small a stops short (further from the optimum than a fixed step)
EX1_FLOOR_GROWS_WITH_A = True
EX1_DECAYING_SMALL_A_STOPS_SHORT = True
#: the a values exercise 1 asks about
EX1_STEPS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)


def _check_q1(ex1_panel, floor_grows_with_a, decaying_small_a_stops_short):
    if not isinstance(ex1_panel, SVIExplorer):
        raise AnswerError("ex1_panel must be an SVIExplorer (the lesson's panel, or one of your own), "
                          f"got {type(ex1_panel).__name__}")
    grows = boolean("floor_grows_with_a", floor_grows_with_a)
    short = boolean("decaying_small_a_stops_short", decaying_small_a_stops_short)
    v, h = ex1_panel.values(), getattr(ex1_panel, "state", None)
    if v["schedule"] != "fixed" or v["n_samples"] != 1 or v["family"] != "full":
        return "set the panel to the fixed schedule, S = 1 and the full Q, then move a."
    if (h is None or h.n_iter < PANEL_N_ITER or h.schedule != v["schedule"] or h.n_samples != v["n_samples"]
            or not close(h.step_size, v["step_size"], 1e-9)):
        return "let the panel finish its run (the readout says 'complete'), then answer."
    if not h.settling(0.5).settled:
        return ("leave the panel at an a whose run has settled (the readout's 'settled?' says yes): only then "
                "is the gap a noise floor. Try larger a.")
    if grows != EX1_FLOOR_GROWS_WITH_A:
        return "compare the gap of the settled fixed-step runs at a = 0.05, 0.1 and 0.2: which way does it go?"
    if short != EX1_DECAYING_SMALL_A_STOPS_SHORT:
        return ("switch to decaying at a = 0.005 and compare its gap with the fixed step's at the same a: how far "
                "do its steps add up to (Σρ_t)?")
    return None


def _wrong_q1(ns):
    panel = SVIExplorer(ns.get("post"))  # a panel of its own: the lesson's stays as shown
    with panel.hold():
        panel.controls["step_size"].value = 0.01  # still descending after 1000 steps: not a floor
    return {"ex1_panel": panel, "floor_grows_with_a": True, "decaying_small_a_stops_short": True}


#: exercise 2's fixed draw ε and the parameters it is tried at (the common start, full Q)
EX2_EPS = np.array([[0.7, -1.2]])


def _ex2_reference() -> np.ndarray:
    fam = CovarianceFamily.make("full", 2)
    return reparam_gradient(lesson_posterior(), fam, fam.pack(*LESSON_START), EX2_EPS)


def _vector(name: str, value, n: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AnswerError(f"{name} must be an array of {n} numbers, got {type(value).__name__} {value!r:.40}") from None
    if arr.shape != (n,):
        raise AnswerError(f"{name} must be an array of {n} numbers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise AnswerError(f"{name} must hold finite numbers")
    return arr


def _check_q2(fd_grad):
    fd = _vector("fd_grad", fd_grad, 5)
    ref = _ex2_reference()
    if not np.allclose(fd, ref, rtol=1e-5, atol=1e-5):
        off = ", ".join(str(i) for i in np.flatnonzero(~np.isclose(fd, ref, rtol=1e-5, atol=1e-5)))
        return (f"components {off} differ from the estimator: differentiate φ(w̄ + Lε) − H, with H = Σ ln L_ii + "
                "const, for the fixed ε = (0.7, −1.2), by central differences in each of the five parameters "
                "θ = (w̄_u, w̄_v, ln L_uu, L_vu, ln L_vv).")
    return None


def _wrong_q2(ns):
    g = _ex2_reference().copy()
    g[[2, 4]] += 1.0  # the entropy term forgotten: ∂H/∂ln L_ii = 1
    return {"fd_grad": g}


def _check_q3(expected_ratio, se_ratio):
    var, se = real("expected_ratio", expected_ratio), real("se_ratio", se_ratio)
    S = 16
    if not close(var, S):
        return "the variance of a mean of S independent draws is the variance of one draw divided by S."
    if not close(se, np.sqrt(S)):
        return "the standard error is the square root of the variance."
    return None


def _wrong_q3(ns):
    return {"expected_ratio": 4.0, "se_ratio": 16.0}  # variances and standard errors swapped


#: exercise 4's κ = 2 distance: Σ ρ_t over this many steps approximates the whole sum (its tail is a·τ²/t)
_EX4_STEPS = 1_000_000


def _ex4_distance() -> float:
    t = np.arange(_EX4_STEPS)
    return float(np.sum(DEFAULT_STEP / (1.0 + t / DEFAULT_TAU) ** 2))


def _check_q4(kappa_low, kappa_high, distance_kappa2):
    lo, hi = real("kappa_low", kappa_low), real("kappa_high", kappa_high)
    dist = real("distance_kappa2", distance_kappa2)
    if not (close(lo, 0.5) and close(hi, 1.0)):
        return ("Σ t^(−κ) diverges exactly when κ ≤ 1; for which κ does Σ t^(−2κ) converge? kappa_low and "
                "kappa_high are the ends of the interval ½ < κ ≤ 1 you get (the low end excluded).")
    if not close(dist, _ex4_distance(), 1e-2):
        return ("distance_kappa2 is the total Σ_t ρ_t for κ = 2 (a = 0.05, τ = 200): compare it with an integral "
                "of a/(1 + t/τ)² (about a·τ), or add up a million terms.")
    return None


def _wrong_q4(ns):
    return {"kappa_low": 0.0, "kappa_high": 1.0, "distance_kappa2": _ex4_distance()}  # forgets Σρ² < ∞


#: lesson 5's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("05_deterministic_vs_stochastic_vi.ipynb", (
    Exercise("q1", ("ex1_panel", "floor_grows_with_a", "decaying_small_a_stops_short"), _check_q1, _wrong_q1,
             uses_panel="panel"),
    Exercise("q2", ("fd_grad",), _check_q2, _wrong_q2),
    Exercise("q3", ("expected_ratio", "se_ratio"), _check_q3, _wrong_q3),
    Exercise("q4", ("kappa_low", "kappa_high", "distance_kappa2"), _check_q4, _wrong_q4),
))


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

#: Seed of the draws in the figures.
FIGURE_SEED = 5


def write_figures(outdir) -> list[Path]:
    """Write ``svi_kl_vs_iteration.png`` into ``outdir`` (byte-stable on rerun).

    The CPU-time figure is a measurement, not a derivation: it is written by
    the benchmark command (:func:`write_timing_figures`, ``make bench``).
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    comp = run_comparison(rng=np.random.default_rng(FIGURE_SEED))
    fig1, _ = comparison_figures(comp)
    return [save_figure(fig1, outdir / "svi_kl_vs_iteration.png")]


def write_timing_figures(outdir) -> list[Path]:
    """Write ``svi_kl_vs_time.png`` (measured CPU times: differs from run to run)."""
    if not isinstance(outdir, (str, Path)):
        raise ValueError(f"outdir must be a str or pathlib.Path (a folder, made if missing), got {outdir!r}")
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    comp = run_comparison(rng=np.random.default_rng(FIGURE_SEED))
    _, fig2 = comparison_figures(comp)
    return [save_figure(fig2, outdir / "svi_kl_vs_time.png")]


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["DEFAULT_KAPPA", "DEFAULT_STEP", "DEFAULT_TAU", "EXERCISES", "LESSON_START", "NUMPYRO_FLOOR",
           "NUMPYRO_SECONDS", "N_ITER", "PYMC_ADVI_SECONDS", "SVIExplorer", "comparison_figures",
           "exact_fit", "floors_sentence", "floors_table", "lesson_posterior", "run_comparison",
           "timing_table", "write_timing_figures"]
