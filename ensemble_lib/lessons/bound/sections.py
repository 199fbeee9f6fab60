"""Lesson 3, §1–4: the bound ln P(D) = F[Q] + KL(Q‖P) and hyperparameter iterations on the toy.

Barber & Bishop (1998), §2 eqs (15)–(16) and Fig. 1; §2.2 eqs (27)–(38);
MacKay (1995), "Probable networks", §3 eqs (18)–(25).

* :func:`bound_decomposition`: ln P(D | α, β) (exact), F[Q] and KL(Q‖P) for a
  Gaussian Q given by means, standard deviations and a correlation;
* :func:`plot_bound_bars`: Fig. 1 as a bar chart, the gap between F[Q] and
  ln P(D) being KL(Q‖P);
* :class:`BoundPanel`: sliders for Q (mean, s.d.s, correlation) and a
  selector snapping Q to the Laplace, diagonal-KL and full-KL solutions;
* :func:`compare_hyperparameters`: the Gamma-hyperprior iteration
  (:func:`~ensemble_lib.inference.hyperparameters.fit_hyperparameters`, full and
  diagonal Q), MacKay's re-estimation
  (:func:`~ensemble_lib.inference.evidence.evidence_reestimation`) and the exact
  maximiser of ln P(D | α, β) by brute force on a (ln α, ln β) grid;
* :func:`plot_trajectories`, :class:`HyperIterationPanel` (a slider over
  the iterations redraws the posterior at that iteration's α, β with the
  fitted Gaussian, and marks the bound and log evidence);
* :func:`write_figures`: ``figures/bound_fig1.png`` and
  ``figures/hyperparameter_trajectories.png``.

Sign convention: F is Barber & Bishop's lower bound (maximised); MacKay's
"variational free energy" is −F.

Symbols → code: Q = N(w̄, C) → ``mean``, ``cov``; ``sd_u``, ``sd_v``, ``rho``
parametrise C; α, β → ``alpha``, ``beta``; F → ``bound``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as w
import numpy as np

from ...core import validation as check
from ...inference.evidence import EvidenceGrid, EvidenceRun, evidence_grid, evidence_reestimation
from ...inference.hyperparameters import GammaHyperprior, HyperparameterRun, fit_hyperparameters
from ...ui.plotting import (COLORS, HATCHES, LABELS, STYLE_ALIASES, new_figure, plot_gaussian_ellipses, save_figure,
                           style, plot_posterior_contours, update_gaussian_ellipses)
from ...models.toy import PosteriorGrid, ToyPosterior
from ...models.toy import PAPER_PRESET, make_posterior
from ...inference.toy_fits import ToyFits, fit_all
from ...core.progress import report
from ...ui.panel import FigurePanel
from ...ui.tables import Table

#: Largest |correlation| offered by the slider (Q stays positive definite).
RHO_MAX = 0.999
#: Values of the bound panel's ``snap`` selector: the sliders' own Q or a reference solution.
SNAP_CHOICES = ("custom", "laplace", "diagonal", "full")
#: Standard-deviation slider range, as powers of ten.
LOG10_SD_RANGE = (-3.0, 1.0)
#: Resolution of both panels' PNGs (fewer pixels: faster steps); see FigurePanel.dpi.
_PANEL_DPI = 80
#: Colours of the two hyperparameter methods.
METHOD_COLORS = {"ensemble": COLORS["full"], "ensemble_diag": COLORS["diagonal"],
                 "evidence": COLORS["laplace"], "exact": "0.2"}
#: The look (:data:`~ensemble_lib.ui.plotting.STYLES`) of each hyperparameter method.
METHOD_STYLES = {"ensemble": "full", "ensemble_diag": "diagonal", "evidence": "laplace", "exact": "posterior"}


def make_toy(alpha: float | None = None, beta: float | None = None) -> ToyPosterior:
    """The lesson's toy posterior: lesson 1's paper-like data (seed 25, N = 6, noise s.d. 0.1).

    By default α = 0.2 and β = 100 (the preset of :mod:`~ensemble_lib.models.toy`).
    """
    post = make_posterior(**PAPER_PRESET)
    if alpha is not None or beta is not None:
        post = post.with_hyperparameters(alpha=alpha, beta=beta)
    return post


# ---------------------------------------------------------------------------
# The bound (B&B (15)–(16), Fig. 1)
# ---------------------------------------------------------------------------

def gaussian_from_sliders(mean_u, mean_v, sd_u, sd_v, rho) -> tuple[np.ndarray, np.ndarray]:
    """(mean, cov) of the 2-D Gaussian with these means, standard deviations and correlation."""
    mean = np.array([check.real("mean_u", mean_u), check.real("mean_v", mean_v)])
    sd_u = check.positive("sd_u", sd_u)
    sd_v = check.positive("sd_v", sd_v)
    rho = check.real("rho", rho)
    if not abs(rho) < 1.0:
        raise ValueError(f"rho must be in (-1, 1), got {rho!r}")
    c = rho * sd_u * sd_v
    return mean, np.array([[sd_u * sd_u, c], [c, sd_v * sd_v]])


def sliders_from_gaussian(mean, cov) -> dict:
    """Inverse of :func:`gaussian_from_sliders`."""
    mean, cov = check.mean_cov(mean, cov, 2)
    sd = np.sqrt(np.diag(cov))
    return {"mean_u": float(mean[0]), "mean_v": float(mean[1]), "sd_u": float(sd[0]),
            "sd_v": float(sd[1]), "rho": float(cov[0, 1] / (sd[0] * sd[1]))}


@dataclass(frozen=True)
class BoundDecomposition:
    """ln P(D) = F[Q] + KL(Q‖P) for one Gaussian Q (B&B (15)–(16))."""

    mean: np.ndarray
    cov: np.ndarray
    log_evidence: float
    bound: float
    kl: float


def bound_decomposition(post, mean, cov) -> BoundDecomposition:
    """The exact ln P(D | α, β), the bound F[Q] (17) and KL(Q‖P) = ln P(D) − F[Q] (16)."""
    post = check.posterior("post", post)
    F = post.bound(mean, cov)
    log_ev = post.log_evidence
    return BoundDecomposition(np.asarray(mean, float), np.asarray(cov, float), float(log_ev),
                              float(F), float(log_ev - F))


def decomposition_table(post, fits: ToyFits, keys=("laplace", "diagonal", "full")) -> Table:
    """ln P(D) = F[Q] + KL(Q‖P) for each fit (:func:`bound_decomposition`), one row per fit."""
    check.instance("post", post, ToyPosterior)
    check.instance("fits", fits, ToyFits)
    keys = check.sequence("keys", keys)
    if not keys or not all(k in ("laplace", "diagonal", "full", "factor") for k in keys):
        raise ValueError(f"keys must be a non-empty sequence of 'laplace', 'diagonal', 'full', 'factor', got {keys!r}")
    rows = []
    for key in keys:
        fit = getattr(fits, key)
        d = bound_decomposition(post, fit.mean, fit.cov)
        rows.append((key, f"{d.log_evidence:.4f}", f"{d.bound:.4f}", f"{d.kl:.4f}"))
    return Table(("Q", "ln P(D)", "F[Q]", "KL(Q‖P)"), rows, widths=(-9, 9, 10, 9))


def plot_bound_bars(ax, log_evidence: float, entries: dict):
    """Fig. 1 as bars: for each Q, a bar from F[Q] up to ln P(D); its height is KL(Q‖P).

    ``entries`` maps a key (a colour in :data:`~ensemble_lib.ui.plotting.COLORS`
    or any label) to F[Q]. Returns a dict with the bar container, the F
    ticks, the KL labels and the ln P(D) line, for :func:`update_bound_bars`.
    """
    keys = list(entries)
    x = np.arange(len(keys))
    colors = [COLORS.get(k, "0.5") for k in keys]
    F = np.array([entries[k] for k in keys], dtype=float)
    bars = ax.bar(x, log_evidence - F, bottom=F, color=colors, alpha=0.35, edgecolor=colors, width=0.6)
    for rect, k in zip(bars, keys):  # each method's hatch: the bars are told apart without colour
        rect.set_hatch(HATCHES.get(STYLE_ALIASES.get(k, k), "//"))
    ticks = ax.hlines(F, x - 0.3, x + 0.3, colors=colors, linewidth=2.5)
    line = ax.axhline(log_evidence, color="0.2", linestyle="--", linewidth=1.2)
    texts = [ax.text(xi, log_evidence, "", ha="center", va="bottom", fontsize=8) for xi in x]
    lev_text = ax.text(0.99, 0.99, "", transform=ax.transAxes, ha="right", va="top", fontsize=8)
    ax.set_xticks(x, [LABELS.get(k, k) for k in keys], rotation=15)
    ax.set_ylabel("nats")
    ax.set_title("ln P(D) = F[Q] + KL(Q‖P)  (Fig. 1)")
    arts = {"bars": bars, "ticks": ticks, "line": line, "texts": texts, "lev": lev_text, "keys": keys}
    update_bound_bars(ax, arts, log_evidence, entries)
    return arts


def update_bound_bars(ax, arts: dict, log_evidence: float, entries: dict, set_ylim: bool = True):
    """Move the bars made by :func:`plot_bound_bars` to new values in place.

    Returns the y range ``(lo, hi)`` that shows them all, set as the limits unless ``set_ylim`` is
    false (a panel whose range follows it in steps: :meth:`FigurePanel.follow_range`).
    """
    keys = arts["keys"]
    F = np.array([entries[k] for k in keys], dtype=float)
    x = np.arange(len(keys))
    for rect, f in zip(arts["bars"], F):
        rect.set_y(f)
        rect.set_height(log_evidence - f)
    arts["ticks"].set_segments([np.array([[xi - 0.3, f], [xi + 0.3, f]]) for xi, f in zip(x, F)])
    arts["line"].set_ydata([log_evidence, log_evidence])
    for t, xi, f in zip(arts["texts"], x, F):
        t.set_position((xi, log_evidence))
        t.set_text(f"KL={log_evidence - f:.3g}")
    arts["lev"].set_text(f"ln P(D) = {log_evidence:.4f} (dashed)\nbar bottoms: F[Q]")
    lo = min(np.nanmin(F) if np.any(np.isfinite(F)) else 0.0, log_evidence, 0.0)
    hi = max(log_evidence, 0.0)
    span = max(hi - lo, 1.0)
    rng = (lo - 0.05 * span, hi + 0.18 * span)
    if set_ylim:
        ax.set_ylim(*rng)
    return rng


def _bound_controls(extent, start: dict) -> dict:
    """The bound panel's controls, the sliders at ``start`` (:func:`sliders_from_gaussian`), Q snapped to
    the full-KL fit: where the panel opens, and where its "Reset" button puts it back."""
    u0, u1, v0, v1 = (float(e) for e in extent)
    sd_lo, sd_hi = 10.0 ** LOG10_SD_RANGE[0], 10.0 ** LOG10_SD_RANGE[1]

    def slider(*args, **kw):
        # the start is the full-KL fit, off any round grid: each slider's grid is laid through it,
        # so the handle shows it exactly where its value box says (also after Reset)
        return FigurePanel.slider(*args, readout_format=".3f", grid_at_value=True, **kw)

    return {
        "mean_u": slider("mean of u", start["mean_u"], u0, u1, step=0.005),
        "mean_v": slider("mean of v", start["mean_v"], v0, v1, step=0.01),
        "sd_u": slider("s.d. of u", start["sd_u"], sd_lo, sd_hi, step=0.02, log=True),
        "sd_v": slider("s.d. of v", start["sd_v"], sd_lo, sd_hi, step=0.02, log=True),
        "rho": slider("correlation ρ", start["rho"], -RHO_MAX, RHO_MAX, step=0.001),
        "snap": w.Dropdown(options=[("custom (sliders)", "custom"), ("Laplace", "laplace"),
                                    ("KL, diagonal", "diagonal"), ("KL, full", "full")],
                           value="full", description="snap Q to", style={"description_width": "initial"}),
    }


class BoundPanel(FigurePanel):
    """Sliders for a Gaussian Q on the toy posterior; the bound F[Q], KL and ln P(D) live.

    Left: the exact posterior's contours with Q's 1-, 2-, 3-σ ellipses (and
    thin ellipses of the Laplace, diagonal-KL and full-KL fits). Right: Fig. 1
    as bars, one per Q, each from F[Q] up to ln P(D), its height KL(Q‖P).
    The ``snap`` selector moves the sliders to a reference solution.

    Parameters
    ----------
    post : ToyPosterior, optional
        Default :func:`make_toy` (α = 0.2, β = 100).
    """

    dpi = _PANEL_DPI
    #: the posterior and the fits' ellipses are drawn once; each step redraws Q and the bars' axes
    blit = True
    #: contour-heavy: JPEG encodes several times faster than PNG, in fewer bytes
    image_format = "jpeg"

    def __init__(self, post: ToyPosterior | None = None):
        if post is not None and not isinstance(post, ToyPosterior):
            raise ValueError(f"post must be a ToyPosterior or None, got {type(post).__name__}")
        self.post = make_toy() if post is None else post
        self.fits: ToyFits = fit_all(self.post)
        grid = self.post.grid(n=121)
        fig, (ax, bx) = new_figure(10.0, 4.2, ncols=2, gridspec_kw={"width_ratios": [1.25, 1.0]})
        self.ax, self.bx = ax, bx
        plot_posterior_contours(ax, grid)
        for key in ("laplace", "diagonal", "full"):
            fit = getattr(self.fits, key)
            plot_gaussian_ellipses(ax, fit.mean, fit.cov, n_sigmas=(1,), label=LABELS[key],
                                   **style(key, linewidth=0.8))
        self._q = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), label="your Q", **style("custom"))
        ax.legend(loc="lower right")
        ax.set_title("posterior P(w | D) and Q")
        self.references = {key: getattr(self.fits, key).bound for key in ("laplace", "diagonal", "full")}
        self._bars = plot_bound_bars(bx, self.post.log_evidence, {**self.references, "your Q": self.references["full"]})
        # Q starts snapped to the full-KL fit (the machine's reset returns there)
        start = sliders_from_gaussian(self.fits.full.mean, self.fits.full.cov)
        controls = _bound_controls((grid.u[0], grid.u[-1], grid.v[0], grid.v[-1]), start)
        super().__init__(controls, fig, columns=3)

    def animated_artists(self) -> list:
        """Q's ellipses and the bars. The bar chart's range follows F[Q] in nice steps
        (:meth:`follow_range`): its ticks are redrawn only when it changes."""
        b = self._bars
        return [*self._q, *b["bars"], b["ticks"], b["line"], *b["texts"], b["lev"]]

    # -- snapping to a reference solution -----------------------------------
    def snap(self, name: str, update: bool = True):
        """Move the sliders to the Laplace / diagonal-KL / full-KL solution (one redraw)."""
        if name not in ("laplace", "diagonal", "full"):
            raise ValueError(f"name must be 'laplace', 'diagonal' or 'full', got {name!r}")
        fit = getattr(self.fits, name)
        return self.set_values({**sliders_from_gaussian(fit.mean, fit.cov), "snap": name}, update=update)

    def link_controls(self, name: str, value) -> None:
        """The ``snap`` selector moves the sliders to its solution; a moved slider makes Q "custom"."""
        if name == "snap":
            value = check.choice("snap", value, SNAP_CHOICES)
            if value != "custom":
                self.snap(value, update=False)
        else:
            self.controls["snap"].value = "custom"

    # -- FigurePanel ---------------------------------------------------------
    def compute(self, mean_u, mean_v, sd_u, sd_v, rho, snap) -> BoundDecomposition:
        check.choice("snap", snap, SNAP_CHOICES)
        mean, cov = gaussian_from_sliders(mean_u, mean_v, sd_u, sd_v, rho)
        return bound_decomposition(self.post, mean, cov)

    def draw(self, state: BoundDecomposition) -> None:
        update_gaussian_ellipses(self._q, state.mean, state.cov)
        rng = update_bound_bars(self.bx, self._bars, state.log_evidence,
                                {**self.references, "your Q": state.bound}, set_ylim=False)
        self.follow_range(self.bx, y=rng)

    def format_readout(self, state: BoundDecomposition) -> str:
        note = ""
        if state.kl < self.fits.full.kl - 1e-9:
            note = (f"<p>Why your Q beats the full-KL fit ({state.kl:.6f} &lt; {self.fits.full.kl:.6f}): the fit "
                    "stopped short of the optimum; the lesson's 'tightest bound in its family' assumes it did not.</p>")
        return (
            f"ln P(D | α, β) = {state.log_evidence:.6f} (exact) &nbsp; = &nbsp; "
            f"F[Q] = {state.bound:.6f} &nbsp; + &nbsp; KL(Q‖P) = {state.kl:.6f}" + note
        )


# ---------------------------------------------------------------------------
# Hyperparameters: Gamma updates (B&B §2.2) vs MacKay's evidence (§3)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class HyperparameterComparison:
    """Both methods on one data set, and the exact maximiser of ln P(D | α, β)."""

    posterior: ToyPosterior
    ensemble: HyperparameterRun
    ensemble_diag: HyperparameterRun
    evidence: EvidenceRun
    grid: EvidenceGrid

    def table(self) -> list[dict]:
        """Rows (method, α, β, exact ln P(D | α, β) there)."""
        rows = [("exact maximiser (grid + polish)", self.grid.alpha_max, self.grid.beta_max)]
        rows.append(("MacKay evidence (Laplace)", self.evidence.alpha_final, self.evidence.beta_final))
        rows.append(("ensemble, full Q (Gamma)", self.ensemble.alpha_final, self.ensemble.beta_final))
        rows.append(("ensemble, diagonal Q (Gamma)", self.ensemble_diag.alpha_final,
                     self.ensemble_diag.beta_final))
        post = self.posterior
        return [{"method": m, "alpha": a, "beta": b,
                 "log_evidence": float(post.with_hyperparameters(alpha=a, beta=b).log_evidence)}
                for m, a, b in rows]

    def results_table(self) -> Table:
        """:meth:`table` as a :class:`~ensemble_lib.ui.tables.Table` (HTML in a notebook; its text is
        :meth:`format_table`'s)."""
        return Table(("method", "alpha", "beta", "ln P(D|a,b)"),
                     [(r["method"], f"{r['alpha']:.4g}", f"{r['beta']:.4g}", f"{r['log_evidence']:.4f}")
                      for r in self.table()], widths=(-34, 9, 9, 12))

    def ensemble_table(self) -> Table:
        """The ensemble run (full Q), one row per iteration: ᾱ, β̄, F[Q,R,S], F[Q], KL and ln P(D | ᾱ, β̄)."""
        run = self.ensemble
        return Table(("it", "alpha", "beta", "F[Q,R,S]", "F[Q]", "KL(Q||P)", "ln P(D|a,b)"),
                     [(f"{i}", f"{run.alpha[i]:.4g}", f"{run.beta[i]:.4g}", f"{run.bound[i]:.4f}",
                       f"{run.bound_q[i]:.4f}", f"{run.kl[i]:.4f}", f"{run.log_evidence[i]:.4f}")
                      for i in range(run.n_iter)], widths=(3, 9, 9, 10, 9, 9, 11))

    def evidence_table(self) -> Table:
        """MacKay's run, one row per iteration: α, β, γ, the Laplace evidence (20), its log Occam factor
        and the exact ln P(D | α, β)."""
        ev = self.evidence
        return Table(("it", "alpha", "beta", "gamma", "Laplace (20)", "log Occam", "exact"),
                     [(f"{i}", f"{ev.alpha[i]:.4g}", f"{ev.beta[i]:.4g}", f"{ev.gamma[i]:.4f}",
                       f"{ev.log_evidence[i]:.4f}", f"{ev.log_occam[i]:.4f}", f"{ev.log_evidence_exact[i]:.4f}")
                      for i in range(ev.n_iter)], widths=(3, 9, 9, 7, 12, 10, 9))

    def format_table(self) -> str:
        """The table as fixed-precision text (4 significant digits)."""
        lines = [f"{'method':34s} {'alpha':>9s} {'beta':>9s} {'ln P(D|a,b)':>12s}"]
        for r in self.table():
            lines.append(f"{r['method']:34s} {r['alpha']:9.4g} {r['beta']:9.4g} {r['log_evidence']:12.4f}")
        return "\n".join(lines)


class _CountedPosterior:
    """``post`` with its ``with_hyperparameters`` calls counted, to report the grid's progress."""

    def __init__(self, post, progress, start: int, total: int, n_grid: int):
        self._post, self._progress, self._start, self._total = post, progress, start, total
        self._n_grid, self._calls = n_grid, 0

    def with_hyperparameters(self, **kwargs):
        self._calls += 1
        n_points = self._n_grid * self._n_grid
        if self._calls <= n_points and self._calls % self._n_grid == 0:
            what = ("polishing the maximum (Nelder–Mead)" if self._calls == n_points
                    else f"exact ln P(D | α, β) on a {self._n_grid}×{self._n_grid} grid")
            report(self._progress, self._start + self._calls, self._total, what=what)
        return self._post.with_hyperparameters(**kwargs)

    def __getattr__(self, name):
        return getattr(self._post, name)


def compare_hyperparameters(post: ToyPosterior | None = None, prior: GammaHyperprior | None = None,
                            n_grid: int = 25, log_alpha_range=(-3.0, 5.0),
                            log_beta_range=(1.0, 7.0), progress=None,
                            grid: EvidenceGrid | None = None) -> HyperparameterComparison:
    """Run both hyperparameter methods from the hyperprior means and brute-force the evidence maximum.

    Both start at α = ab, β = cd (MacKay's run too, for a like-for-like
    trajectory); MacKay's evidence uses the symmetry factor 2 (the mirror mode).
    ``progress``, if given, is called as ``progress(done, total, what=...)``
    as the work goes on (three runs, then the grid row by row, then the polish
    of its maximum; e.g. a :class:`~ensemble_lib.ui.progress.ProgressBar`).
    ``grid``: the brute force already done for ``post``'s data (the lesson passes the stored one,
    :func:`~ensemble_lib.studies.toy_evidence_grid.load_evidence_grid`, which is this function's
    default grid); then ``n_grid`` and the ranges are not used.
    """
    post = make_toy() if post is None else check.posterior("post", post)
    prior = GammaHyperprior() if prior is None else prior
    if not isinstance(prior, GammaHyperprior):
        raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
    n_grid = check.integer("n_grid", n_grid, low=3, high=200)
    log_alpha_range = check.interval("log_alpha_range", log_alpha_range)
    log_beta_range = check.interval("log_beta_range", log_beta_range)
    if grid is not None:
        check.instance("grid", grid, EvidenceGrid, "None or an EvidenceGrid (inference.evidence_grid, or the stored "
                       "studies.toy_evidence_grid.load_evidence_grid())")
    total = 3 + (0 if grid is not None else n_grid * n_grid + 1)
    report(progress, 0, total, what="ensemble, full Q")
    ens = fit_hyperparameters(post, prior, family="full")
    report(progress, 1, total, what="ensemble, diagonal Q")
    ens_d = fit_hyperparameters(post, prior, family="diagonal")
    report(progress, 2, total, what="MacKay's evidence")
    ev = evidence_reestimation(post, alpha0=prior.alpha_mean, beta0=prior.beta_mean, symmetry_factor=2)
    if grid is None:
        report(progress, 3, total, what=f"exact ln P(D | α, β) on a {n_grid}×{n_grid} grid")
        counted = _CountedPosterior(post, progress, 3, total, n_grid)
        grid = evidence_grid(counted, np.linspace(*log_alpha_range, n_grid), np.linspace(*log_beta_range, n_grid))
    report(progress, total, total)
    return HyperparameterComparison(post, ens, ens_d, ev, grid)


def plot_trajectories(axes, comp: HyperparameterComparison):
    """α and β against iteration (log scale) for both methods, with the exact maximiser dashed."""
    ax_a, ax_b = axes
    runs = [("ensemble", comp.ensemble, "ensemble, full Q"),
            ("ensemble_diag", comp.ensemble_diag, "ensemble, diagonal Q"),
            ("evidence", comp.evidence, "MacKay evidence")]
    arts = []
    for ax, attr, exact, name in ((ax_a, "alpha", comp.grid.alpha_max, "α"),
                                  (ax_b, "beta", comp.grid.beta_max, "β")):
        for key, run, label in runs:
            y = np.append(getattr(run, attr), getattr(run, attr + "_final"))
            arts += ax.plot(np.arange(y.size), y, ms=3, label=label, **style(METHOD_STYLES[key], markevery=None))
        arts.append(ax.axhline(exact, **style(METHOD_STYLES["exact"], lw=1, marker="None"),
                               label="exact maximiser of ln P(D|α,β)"))
        ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel(name)
        ax.set_title(f"{name} against iteration (start: hyperprior mean)")
    ax_a.legend(loc="upper right")
    return arts


def trajectories_figure(comp: HyperparameterComparison):
    check.instance("comp", comp, HyperparameterComparison, "a HyperparameterComparison (compare_hyperparameters())")
    fig, axes = new_figure(10.0, 3.8, ncols=2)
    plot_trajectories(axes, comp)
    return fig


@dataclass(frozen=True)
class IterationState:
    """What one step of :class:`HyperIterationPanel` computed: iteration ``i`` of one method.

    Attributes
    ----------
    method : str
        ``"ensemble"`` (Gamma hyperpriors, full Q) or ``"evidence"`` (MacKay's re-estimation).
    i : int
        The iteration shown.
    run : HyperparameterRun or EvidenceRun
        The method's whole run.
    grid : PosteriorGrid
        The exact posterior at that iteration's α, β.
    alpha, beta : float
        The hyperparameters at iteration ``i``.
    mean, cov : ndarray
        The Gaussian fitted there (ensemble: Q_i; evidence: Laplace's N(w_MP, A⁻¹)).
    """

    method: str
    i: int
    run: HyperparameterRun | EvidenceRun
    grid: PosteriorGrid
    alpha: float
    beta: float
    mean: np.ndarray
    cov: np.ndarray


class HyperIterationPanel(FigurePanel):
    """A slider over the iterations: posterior at (α_i, β_i), the fitted Gaussian, bound and evidence.

    Left: the exact posterior at that iteration's α, β (it changes as they
    change) with the Gaussian fitted there (ensemble: Q_i; evidence: Laplace's
    N(w_MP, A⁻¹)). Right: per iteration, the full bound F[Q, R, S], the
    fixed-hyperparameter bound F[Q], the exact ln P(D | α_i, β_i) and (for
    MacKay) the Laplace log evidence (20), with the current iteration marked.

    Parameters
    ----------
    comp : HyperparameterComparison, optional
        Default :func:`compare_hyperparameters` with a small grid.
    """

    dpi = _PANEL_DPI
    #: the posterior grids kept (:meth:`memo`): every iteration of both runs
    MEMO_SIZE = 256
    #: the left plot's frame, ticks and labels are drawn once (fixed extent); the rest each step
    blit = True
    #: filled contours: JPEG encodes several times faster than PNG, in fewer bytes
    image_format = "jpeg"

    def __init__(self, comp: HyperparameterComparison | None = None):
        if comp is not None and not isinstance(comp, HyperparameterComparison):
            raise ValueError(f"comp must be a HyperparameterComparison (compare_hyperparameters()) or None, "
                             f"got {type(comp).__name__}")
        self.comp = compare_hyperparameters(n_grid=5) if comp is None else comp
        post = self.comp.posterior
        runs = (self.comp.ensemble, self.comp.evidence)
        exts = [post.with_hyperparameters(alpha=a, beta=b).extent()
                for run in runs for a, b in zip(run.alpha, run.beta)]
        exts = np.abs(np.array(exts)).max(axis=0)
        self.extent = (-exts[1], exts[1], -exts[3], exts[3])
        fig, (ax, bx) = new_figure(9.0, 3.6, ncols=2)
        self.ax, self.bx = ax, bx
        self._contours = []
        self._gauss = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), **style("full"))
        self._title = ax.set_title(" ")
        ax.set_xlabel("u (input-to-hidden weight)")
        ax.set_ylabel("v (hidden-to-output weight)")
        self._lines = {}
        for key, fmt in (("bound_full", "-"), ("bound_q", "-."), ("exact", "--"), ("laplace", ":")):
            (self._lines[key],) = bx.plot([], [], fmt, marker="o", ms=3, label=key)
        self._marker = bx.axvline(0, color="0.5", lw=1)
        self._legend = bx.legend(loc="lower right")
        bx.set_xlabel("iteration")
        bx.set_ylabel("nats")
        controls = {
            "method": w.ToggleButtons(options=[("ensemble (Gamma, full Q)", "ensemble"),
                                               ("MacKay evidence (Laplace)", "evidence")],
                                      value="ensemble", description="method"),
            # the slider spans the chosen method's iterations (no dead zone past its last one)
            "iteration": self.slider("iteration", 0, 0, int(self.comp.ensemble.n_iter) - 1),
        }
        # draw a representative state first: the base class lays the figure out once
        self.draw(self.compute("ensemble", 0))
        super().__init__(controls, fig, columns=2)

    def animated_artists(self) -> list:
        """The contours, the fitted Gaussian, the title and the iteration marker. The right plot's
        curves, legend and range depend on the method only: a new method redraws the background."""
        return [*self._contours, *self._gauss, self._title, self._marker]

    def link_controls(self, name: str, value) -> None:
        """A new method clamps the iteration slider to that method's iterations."""
        if name == "method" and value in ("ensemble", "evidence"):
            run = self.comp.ensemble if value == "ensemble" else self.comp.evidence
            ctl = self.controls["iteration"]
            ctl.value = min(ctl.value, run.n_iter - 1)
            ctl.max = run.n_iter - 1

    def compute(self, method, iteration) -> IterationState:
        if method not in ("ensemble", "evidence"):
            raise ValueError(f"method must be 'ensemble' or 'evidence', got {method!r}")
        run = self.comp.ensemble if method == "ensemble" else self.comp.evidence
        # an iteration past the run is refused, not shown as the last one (the slider's range
        # follows the method: link_controls)
        i = check.integer("iteration", iteration, low=0, high=int(run.n_iter) - 1)
        # memoised (FigurePanel.memo): a revisited iteration costs only the redraw
        grid = self.memo((method, i), lambda: self.comp.posterior.with_hyperparameters(
            alpha=run.alpha[i], beta=run.beta[i]).grid(n=71, extent=self.extent))
        return IterationState(method, i, run, grid, float(run.alpha[i]), float(run.beta[i]),
                              run.means[i], run.covs[i])

    def draw(self, s: IterationState) -> None:
        self._contours = self.replace_artists(self._contours, lambda: plot_posterior_contours(self.ax, s.grid))
        look = style("full" if s.method == "ensemble" else "laplace")
        update_gaussian_ellipses(self._gauss, s.mean, s.cov)
        for a in self._gauss:
            a.set_color(look["color"])
            a.set_linestyle(look["linestyle"])
        self._gauss[-1].set_marker(look["marker"])
        self._title.set_text(f"iteration {s.i}: α = {s.alpha:.4g}, β = {s.beta:.4g}")
        self._marker.set_xdata([s.i, s.i])
        if s.method != self.__dict__.get("_plotted_method"):
            self._plot_run(s.method, s.run)
            self.invalidate_background()

    def _plot_run(self, method: str, run) -> None:
        """The right plot for one method's run: its curves, legend and range."""
        self._plotted_method = None  # consistent if this fails
        it = np.arange(run.n_iter)
        if method == "ensemble":
            series = {"bound_full": (run.bound, "F[Q,R,S] (full bound)"),
                      "bound_q": (run.bound_q, "F[Q] at (ᾱ, β̄)"),
                      "exact": (run.log_evidence, "ln P(D|α,β) exact"),
                      "laplace": (np.full(run.n_iter, np.nan), "")}
        else:
            series = {"bound_full": (np.full(run.n_iter, np.nan), ""),
                      "bound_q": (np.full(run.n_iter, np.nan), ""),
                      "exact": (run.log_evidence_exact, "ln P(D|α,β) exact"),
                      "laplace": (run.log_evidence, "Laplace log evidence (20)")}
        for key, (y, label) in series.items():
            self._lines[key].set_data(it, y)
            self._lines[key].set_label(label or "_hidden")
        (self._legend,) = self.replace_artists([self._legend], lambda: [self.bx.legend(loc="lower right")])
        ys = np.concatenate([y for y, _ in series.values()])
        ys = ys[np.isfinite(ys)]
        lo, hi = float(ys.min()), float(ys.max())
        pad = 0.08 * max(hi - lo, 1.0)
        self.bx.set_xlim(-0.5, max(run.n_iter - 0.5, 1.0))
        self.bx.set_ylim(lo - pad, hi + pad)
        self.bx.set_title("bound and log evidence per iteration")
        self._plotted_method = method

    def format_readout(self, s: IterationState) -> str:
        run, i = s.run, s.i
        if s.method == "ensemble":
            extra = (f"F[Q,R,S] = {run.bound[i]:.5f}, F[Q] = {run.bound_q[i]:.5f}, "
                     f"KL(Q‖P) = {run.kl[i]:.5f}")
        else:
            extra = f"γ = {run.gamma[i]:.4f}, Laplace ln P(D) (20) = {run.log_evidence[i]:.5f}"
        text = html.escape(
            f"iteration {i} of {run.n_iter - 1}: α = {s.alpha:.5g}, β = {s.beta:.5g}; "
            f"exact ln P(D|α,β) = {(run.log_evidence if s.method == 'ensemble' else run.log_evidence_exact)[i]:.5f}; "
            + extra
        )
        return text + "".join(f"<p>{html.escape(line)}</p>" for line in iteration_notes(s))


def iteration_notes(s: IterationState) -> list[str]:
    """Readout lines where the iteration panel shows something the lesson's bounds would not lead one
    to expect: MacKay's Laplace evidence (20) above the exact ln P(D | α, β) (an approximation, not a
    bound, so nothing stops it overshooting), or falling from one iteration to the next."""
    notes = []
    if s.method == "evidence":
        run, i = s.run, s.i
        if run.log_evidence[i] > run.log_evidence_exact[i]:
            notes.append(f"Why Laplace's ln P(D) ({run.log_evidence[i]:.5f}) is above the exact one "
                         f"({run.log_evidence_exact[i]:.5f}): (20) is an approximation, not a lower bound, so it "
                         "can overshoot; the ensemble's bounds never do.")
        if i > 0 and run.log_evidence[i] < run.log_evidence[i - 1] - 1e-9:
            notes.append("Why Laplace's ln P(D) fell at this step: MacKay's re-estimation is a fixed-point "
                         "scheme, not an ascent of any objective.")
    return notes


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

def bound_figure(post: ToyPosterior | None = None):
    """The static Fig. 1: posterior with the three fits, and their bars F[Q] → ln P(D)."""
    if post is not None:
        check.instance("post", post, ToyPosterior)
    post = make_toy() if post is None else post
    fits = fit_all(post)
    fig, (ax, bx) = new_figure(10.0, 4.2, ncols=2, gridspec_kw={"width_ratios": [1.25, 1.0]})
    plot_posterior_contours(ax, post.grid(n=121))
    for key in ("laplace", "diagonal", "full"):
        fit = getattr(fits, key)
        plot_gaussian_ellipses(ax, fit.mean, fit.cov, n_sigmas=(1, 2), label=LABELS[key], **style(key))
    ax.legend(loc="lower right")
    ax.set_title(f"toy posterior (α = {post.alpha:g}, β = {post.beta:g}) and three Gaussians Q")
    plot_bound_bars(bx, post.log_evidence, {k: getattr(fits, k).bound for k in ("laplace", "diagonal", "full")})
    return fig, fits


def write_figures(outdir) -> list[Path]:
    """Write ``bound_fig1.png`` and ``hyperparameter_trajectories.png`` into ``outdir``."""
    outdir = Path(outdir)
    fig, _ = bound_figure()
    p1 = save_figure(fig, outdir / "bound_fig1.png")
    comp = compare_hyperparameters()
    p2 = save_figure(trajectories_figure(comp), outdir / "hyperparameter_trajectories.png")
    return [p1, p2]


__all__ = ["BoundDecomposition", "BoundPanel", "HyperIterationPanel", "HyperparameterComparison", "IterationState",
           "LOG10_SD_RANGE", "METHOD_COLORS", "METHOD_STYLES", "RHO_MAX", "SNAP_CHOICES", "bound_decomposition",
           "bound_figure", "compare_hyperparameters", "decomposition_table", "gaussian_from_sliders", "make_toy",
           "sliders_from_gaussian", "trajectories_figure"]
