"""Lesson 3, §3–4: learning α and β on the toy — Gamma hyperpriors (B&B §2.2, eqs (27)–(38)) against
MacKay's evidence ("Probable networks", §3 eqs (18)–(25)) and the exact maximiser.

* :func:`compare_hyperparameters`: the Gamma-hyperprior iteration
  (:func:`~ensemble_lib.inference.hyperparameters.fit_hyperparameters`, full and
  diagonal Q), MacKay's re-estimation
  (:func:`~ensemble_lib.inference.evidence.evidence_reestimation`) and the exact
  maximiser of ln P(D | α, β) by brute force on a (ln α, ln β) grid;
* :func:`plot_trajectories`, :func:`trajectories_figure`, :class:`HyperIterationPanel` (a slider
  over the iterations redraws the posterior at that iteration's α, β with the fitted Gaussian, and
  marks the bound and log evidence); :func:`iteration_notes`, the readout's lines where the panel
  leaves the lesson's story.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import ipywidgets as w
import numpy as np

from ...core import validation as check
from ...inference.evidence import EvidenceGrid, EvidenceRun, evidence_grid, evidence_reestimation
from ...inference.hyperparameters import GammaHyperprior, HyperparameterRun, fit_hyperparameters
from ...ui.plotting import new_figure, plot_gaussian_ellipses, style, plot_posterior_contours, update_gaussian_ellipses
from ...models.toy import PosteriorGrid, ToyPosterior
from ...core.progress import report
from ...ui.panel import FigurePanel
from ...ui.tables import Table
from .bound_panel import METHOD_STYLES, _PANEL_DPI, make_toy

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


__all__ = ["HyperIterationPanel", "HyperparameterComparison", "IterationState", "compare_hyperparameters",
           "trajectories_figure"]
