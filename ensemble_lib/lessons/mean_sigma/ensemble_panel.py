"""Lesson 2's panel, :class:`EnsemblePanel` (sweep k, N, x̄, S, β̄₀), its readout's lines where the panel
leaves the lesson's story (:func:`story_notes`), and the table of iterations."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from matplotlib.ticker import MaxNLocator

from ...core import validation as check
from ...models.mackay_gaussian import EnsembleIterate, EnsembleRun, MacKayGaussian
from ...ui.plotting import OKABE_ITO, new_figure
from ...ui.panel import FigurePanel
from ...ui.tables import Table
from .plots import (BETA0_RANGE, DEFAULTS, K_RANGE, N_RANGE, Q_COLOR, S_RANGE, XBAR_RANGE, _FLOOR, _rel_error,
                    ensemble_limits, plot_ensemble_contours)

# ---------------------------------------------------------------------------
# The interactive panel
# ---------------------------------------------------------------------------

def _controls():
    slider = FigurePanel.slider
    return {
        "k": slider("sweep k", DEFAULTS["k"], *K_RANGE),
        "N": slider("data points N", DEFAULTS["N"], *N_RANGE),
        "xbar": slider("sample mean x̄", DEFAULTS["xbar"], *XBAR_RANGE, step=0.1),
        "S": slider("S = Σ(x − x̄)²", DEFAULTS["S"], *S_RANGE, step=0.05, log=True),
        "beta0": slider("start β̄₀", DEFAULTS["beta0"], *BETA0_RANGE, step=0.05, log=True),
    }


@dataclass(frozen=True)
class EnsembleState:
    """What one panel step computed.

    Attributes
    ----------
    model : MacKayGaussian
    run : EnsembleRun
        MacKay's iteration, sweeps 0..K_RANGE[1].
    conjugate : EnsembleRun
        The conjugate textbook iteration from the same start.
    it : EnsembleIterate
        The iterate shown (sweep k).
    """

    model: MacKayGaussian
    run: EnsembleRun
    conjugate: EnsembleRun
    it: EnsembleIterate


#: fixed y-ranges of the panel's log plots (cover every slider value)
_ERR_YLIM = (_FLOOR / 3, 1e6)
_KL_YLIM = (3e-3, 3e4)


class EnsemblePanel(FigurePanel):
    """Sliders for the sweep k, N, x̄, S and β̄₀: Q_k over the exact posterior, convergence, KL.

    Left: the exact posterior (8)–(9) (grey) with the iterate Q_μQ_σ after k
    sweeps (blue). Middle: relative error of 1/β̄ (log scale) with the
    (1/N)^k line, current k circled. Right: KL(Q_k‖P) per sweep, current k
    circled, with F_k and ln P(D). The readout lists β̄, 1/β̄, σ_{μ|D}, the lower
    bound F (MacKay's free energy is −F), KL and ln P(D) for sweep k, and the
    limits S/(N−1) and S/N.
    """

    #: only the contours, the left plot's axes and title, and the lines and marks are redrawn
    blit = True
    #: 880 x 288 px: three plots side by side within a 1366 px wide screen's notebook
    dpi = 80
    #: contours over most of the area: JPEG encodes several times faster than PNG
    image_format = "jpeg"

    def __init__(self):
        fig, axes = new_figure(11.0, 3.6, ncols=3, width_ratios=[1.15, 1, 1])
        self.ax_q, self.ax_err, self.ax_kl = axes
        self._contours = []
        ax = self.ax_q
        ax.set_xlabel("mean μ")
        ax.set_ylabel("standard deviation σ")
        ax.set_title(" ")
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.yaxis.set_major_locator(MaxNLocator(5))
        ax.plot([], [], color="0.35", lw=0.8, label="exact posterior")
        ax.plot([], [], color=Q_COLOR, lw=1.3, label="Q_μ Q_σ")
        ax.legend(loc="upper right", fontsize=8)
        ax = self.ax_err
        (self._err_line,) = ax.semilogy([0, 1], [1, 1], "o-", color=Q_COLOR, ms=3.5,
                                        label="relative error of 1/β̄")
        (self._ref_line,) = ax.semilogy([0, 1], [1, 1], ":", color="0.3", label="(1/N)^k from the start")
        (self._err_mark,) = ax.semilogy([0], [1], "o", color=OKABE_ITO["vermillion"], ms=8, mfc="none", mew=1.6)
        ax.set_xlim(K_RANGE[0] - 0.5, K_RANGE[1] + 0.5)
        ax.set_ylim(*_ERR_YLIM)
        ax.set_xlabel("sweep k")
        ax.set_title("|1/β̄_k − S/(N−1)| / (S/(N−1))")
        ax.legend(loc="upper right", fontsize=8)
        ax = self.ax_kl
        (self._kl_line,) = ax.semilogy([0, 1], [1, 1], "o-", color=Q_COLOR, ms=3.5)
        (self._kl_mark,) = ax.semilogy([0], [1], "o", color=OKABE_ITO["vermillion"], ms=8, mfc="none", mew=1.6)
        ax.set_xlim(K_RANGE[0] - 0.5, K_RANGE[1] + 0.5)
        ax.set_ylim(*_KL_YLIM)
        ax.set_xlabel("sweep k")
        ax.set_title("KL(Q_k‖P) = ln P(D) − F_k")
        self._kl_text = ax.text(0.97, 0.97, "", transform=ax.transAxes, ha="right", va="top", fontsize=8,
                                bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.85))
        self._lines = [self._err_line, self._ref_line, self._err_mark, self._kl_line, self._kl_mark,
                       self._kl_text]
        self._axis_parts = [self.ax_q.title]
        super().__init__(_controls(), fig)

    def animated_artists(self) -> list:
        """What a step changes: the contours, the left plot's title, the lines and marks. The left
        plot's range follows the run in nice steps (:meth:`follow_range`): its ticks are redrawn
        only when it changes."""
        return [*self._contours, *self._axis_parts, *self._lines]

    def background_key(self):
        """The static parts follow the left plot's limits (the other two plots are fixed)."""
        return (*self.ax_q.get_xlim(), *self.ax_q.get_ylim())

    def compute(self, k, N, xbar, S, beta0):
        k = check.integer("k", k, low=K_RANGE[0], high=K_RANGE[1])  # the sweep shown: one of the run's
        model = MacKayGaussian(N, xbar, S)
        run = model.ensemble_iterations(beta0, K_RANGE[1])
        conj = model.conjugate_iterations(beta0, K_RANGE[1])
        return EnsembleState(model, run, conj, run[k])

    def draw(self, st: EnsembleState) -> None:
        # one frame for every sweep of this run: moving k moves Q, never the axes
        lims = [ensemble_limits(st.model, it) for it in st.run]
        self.follow_range(self.ax_q, (min(m[0] for m, _ in lims), max(m[1] for m, _ in lims)),
                          (min(s[0] for _, s in lims), max(s[1] for _, s in lims)))
        mu_lim, sigma_lim = self.ax_q.get_xlim(), self.ax_q.get_ylim()
        grid_sigma = (max(sigma_lim[0], 1e-3 * sigma_lim[1]), sigma_lim[1])  # no σ = 0 in the grid
        self._contours = self.replace_artists(
            self._contours, lambda: plot_ensemble_contours(self.ax_q, st.model, st.it, mu_lim=mu_lim,
                                                           sigma_lim=grid_sigma, n=51))
        self.ax_q.set_ylim(*sigma_lim)
        ks = np.arange(len(st.run))
        err = np.clip(_rel_error(st.run), *_ERR_YLIM)
        self._err_line.set_data(ks, err)
        self._ref_line.set_data(ks, np.clip(err[0] * st.run.rate ** ks, *_ERR_YLIM))
        self._err_mark.set_data([st.it.k], [err[st.it.k]])
        kl = np.clip(st.run.kl, *_KL_YLIM)
        self._kl_line.set_data(ks, kl)
        self._kl_mark.set_data([st.it.k], [kl[st.it.k]])
        self._kl_text.set_text(f"k = {st.it.k},  1/N = {st.run.rate:.3g}\nKL = {st.it.kl:.4g}\n"
                               f"F = {st.it.bound:.4g}\nln P(D) = {st.run.log_evidence:.4g}")

    def format_readout(self, st: EnsembleState) -> str:
        it, m = st.it, st.model
        rows = [
            ("sweep k", f"{it.k}"),
            ("start β̄₀ (sweep 0)", f"{st.run[0].beta_bar:.6g}"),
            ("β̄_k", f"{it.beta_bar:.6g}"),
            ("1/β̄_k", f"{1 / it.beta_bar:.6g}"),
            ("S/(N−1) = σ²_(N−1) (MacKay-E (19))", f"{m.sigma_N1 ** 2:.6g}"),
            ("S/N = σ²_N (conjugate limit)", f"{m.sigma_N ** 2:.6g}"),
            ("conjugate 1/β̄_k", f"{1 / st.conjugate[it.k].beta_bar:.6g}"),
            ("Q_μ = Normal(x̄, σ²_(μ|D)): mean x̄", f"{it.m:.6g}"),
            ("σ_(μ|D) = 1/√(Nβ̄_k)", f"{math.sqrt(it.sigma_mu2):.6g}"),
            ("lower bound F_k (MacKay's free energy (17) is −F_k)", f"{it.bound:.6g}"),
            ("KL(Q_k‖P)", f"{it.kl:.6g}"),
            ("ln P(D)", f"{st.run.log_evidence:.6g}"),
        ]
        return self.readout_table(rows) + "".join(f"<p>{line}</p>" for line in story_notes(st))


#: a relative error below this is rounding (double precision), not the iteration's 1/N contraction
ROUNDING_FLOOR = 1e-13


def story_notes(st: EnsembleState) -> list[str]:
    """Readout lines for a setting where the panel leaves the lesson's story, saying why.

    The lesson says the error of 1/β̄ shrinks by 1/N every sweep (19). Once it reaches rounding
    (a relative error below :data:`ROUNDING_FLOOR`), it stops shrinking: double precision, not the
    iteration, sets the floor the middle plot shows. A start at the fixed point (1/β̄₀ = S/(N−1))
    has nothing to converge.
    """
    notes = []
    rel = _rel_error(st.run)
    k = st.it.k
    if rel[0] < ROUNDING_FLOOR:
        notes.append("Why nothing converges: the start is already the fixed point (1/β̄₀ = S/(N−1)), "
                     "so every sweep stays there and the middle plot shows only rounding.")
    elif k > 0 and rel[k] < ROUNDING_FLOOR:
        first = int(np.flatnonzero(rel < ROUNDING_FLOOR)[0])
        notes.append(f"Why the error stops shrinking by 1/N here: since sweep {first} it is at rounding "
                     f"level ({rel[k]:.1e} of S/(N−1)), the limit of double precision, not of the "
                     f"iteration (19).")
    return notes


def iteration_table(run, n: int = 9) -> "Table":
    """The first ``n`` sweeps of ``run``: 1/β̄, its error, the error ratio, F and KL (§6's table)."""
    check.instance("run", run, EnsembleRun, "an EnsembleRun (MacKayGaussian.ensemble_iterations)")
    n = check.integer("n", n, low=1, high=1000)
    v_star = run.fixed_point
    rows = []
    for k in range(min(n, len(run))):
        err = 1 / run[k].beta_bar - v_star
        ratio = f"{err / (1 / run[k - 1].beta_bar - v_star):.4f}" if k else "—"
        rows.append((f"{k}", f"{1 / run[k].beta_bar:.6f}", f"{err:.3e}", ratio, f"{run[k].bound:.5f}",
                     f"{run[k].kl:.5f}"))
    return Table(("k", "1/β̄", "error", "ratio", "F", "KL"), rows, widths=(3, 10, 10, 7, 9, 9))


__all__ = ["EnsemblePanel", "iteration_table"]
