"""Lesson 2: MacKay (1995) — a Gaussian's mean and σ, σ_N vs σ_{N−1}, and the separable ensemble.

Plot helpers and the interactive panel for ``notebooks/02_mackay_gaussian_mean_sigma.ipynb``;
the maths is in :mod:`ensemble_lib.models.mackay_gaussian`.

* :func:`plot_fig1a` — Fig. 1a: contours of the log likelihood (7) in (μ, σ), the skewed peak;
* :func:`plot_fig1b` — Fig. 1b: P(D | μ = x̄, σ) and the evidence P(D | σ) (14), maxima at σ_N and σ_{N−1};
* :func:`plot_ensemble_contours` — the exact posterior (8)–(9) with one iterate Q_μ Q_σ of §3 over it;
* :func:`plot_convergence`, :func:`plot_kl`, :func:`plot_trajectories` — 1/β̄ → S/(N−1) at rate 1/N,
  KL(Q‖P) per sweep, and MacKay's iteration against the textbook conjugate one (→ S/N);
* :class:`EnsemblePanel` — sliders for the sweep k, N, x̄, S and β̄₀;
* :data:`EXERCISES` — the lesson's four exercises and their checks (``check("q1")`` in the lesson,
  ``grader.check("q1")`` in the student copy; :mod:`ensemble_lib.ui.exercises`);
* :func:`write_figures` — ``figures/mackay_fig1a.png``, ``mackay_fig1b.png``, ``mackay_iterations.png``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import special

from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from ..core import validation as check
from ..models.mackay_gaussian import FIG1, EnsembleIterate, EnsembleRun, MacKayGaussian
from ..ui.plotting import COLORS, OKABE_ITO, new_figure, save_figure, style
from ..ui.exercises import (AnswerError, Exercise, ExerciseSet, boolean, close, function,
                             function_values, real, whole_number)
from ..ui.panel import FigurePanel
from ..ui.tables import Table

#: Slider ranges of :class:`EnsemblePanel` (every value gives finite results). The sweeps reach 60:
#: exercise 1 asks for the ~40 sweeps N = 2 needs from β̄₀ = 100 to an error of 1e-12.
K_RANGE = (0, 60)
N_RANGE = (2, 50)
XBAR_RANGE = (-3.0, 3.0)
#: S's log slider steps by 0.05 in log10 S from log10(0.01) = −2, so S = 1 (the text's Fig. 1
#: value) is a grid point: the slider shows and holds exactly 1, not its neighbour 0.998.
S_RANGE = (0.01, 100.0)
BETA0_RANGE = (0.01, 100.0)
#: Fig. 1's data set and the start used by the static iteration figure.
DEFAULTS = {"k": 1, "N": FIG1.N, "xbar": FIG1.xbar, "S": FIG1.S, "beta0": 1.0}

Q_COLOR = COLORS["diagonal"]
CONJ_COLOR = COLORS["svi"]
#: contour levels at Δ ln density = −½, −2, −9/2 from the peak (the "1, 2, 3 σ" curves)
_DLOG = np.array([-4.5, -2.0, -0.5])
_FLOOR = 1e-16


def fig1_limits(model: MacKayGaussian) -> tuple[tuple[float, float], tuple[float, float]]:
    """(μ limits, σ limits) framing the likelihood's peak as in Fig. 1a."""
    half = 4.5 * model.sigma_N1 / math.sqrt(model.N)
    return (model.xbar - half, model.xbar + half), (0.3 * model.sigma_N, 2.4 * model.sigma_N1)


def _grid(mu_lim, sigma_lim, n):
    mu = np.linspace(*mu_lim, n)
    sigma = np.linspace(*sigma_lim, n)
    return mu, sigma


def plot_fig1a(ax, model: MacKayGaussian = FIG1, mu_lim=None, sigma_lim=None, n: int = 201):
    """Fig. 1a: contours of ln P(D | μ, σ) (7) over (μ, σ), with σ_N and σ_{N−1} marked.

    Levels at Δ ln L = −½, −2, −9/2, −8 below the maximum (x̄, σ_N). ``mu_lim``, ``sigma_lim``:
    (low, high) pairs (σ > 0), default :func:`fig1_limits`; ``n`` grid points per axis (3 to 2001).
    """
    check.instance("ax", ax, Axes, "a matplotlib Axes")
    check.instance("model", model, MacKayGaussian)
    mu_lim = None if mu_lim is None else check.interval("mu_lim", mu_lim)
    sigma_lim = None if sigma_lim is None else check.interval("sigma_lim", sigma_lim, positive=True)
    n = check.integer("n", n, low=3, high=5001)
    n = check.integer("n", n, low=3, high=2001)
    mu_lim = None if mu_lim is None else check.interval("mu_lim", mu_lim)
    sigma_lim = None if sigma_lim is None else check.interval("sigma_lim", sigma_lim, positive=True)
    dmu, ds = fig1_limits(model)
    mu, sigma = _grid(mu_lim or dmu, sigma_lim or ds, n)
    logL = model.log_likelihood(mu[None, :], sigma[:, None])
    top = float(model.log_likelihood(model.xbar, model.sigma_N))
    lv = top + np.array([-8.0, -4.5, -2.0, -0.5])
    arts = [ax.contourf(mu, sigma, logL, levels=np.append(lv, top + 1), cmap="Greys", alpha=0.45),
            ax.contour(mu, sigma, logL, levels=lv, colors="0.3", linewidths=0.7, linestyles="solid")]
    arts += ax.plot([model.xbar], [model.sigma_N], "o", color="k", ms=4,
                    label=f"maximum likelihood (x̄, σ_N = {model.sigma_N:.2f})")
    arts.append(ax.axhline(model.sigma_N, **style("map", lw=0.9, marker="None"), label=f"σ_N = {model.sigma_N:.2f}"))
    arts.append(ax.axhline(model.sigma_N1, **style("evidence", lw=0.9, marker="None"),
                           label=f"σ_(N−1) = {model.sigma_N1:.2f}"))
    ax.set_xlabel("mean μ")
    ax.set_ylabel("standard deviation σ")
    ax.set_title(f"(a) log likelihood: N = {model.N}, x̄ = {model.xbar:g}, S = {model.S:g}")
    ax.legend(loc="upper right", fontsize=7)
    return arts


def plot_fig1b(ax, model: MacKayGaussian = FIG1, sigma_lim=None, n: int = 400):
    """Fig. 1b: P(D | μ = x̄, σ) and the evidence P(D | σ) (14), each scaled to peak 1.

    ``sigma_lim``: (low, high) with 0 < low < high; ``n`` points (3 to 10 000).
    """
    check.instance("ax", ax, Axes, "a matplotlib Axes")
    check.instance("model", model, MacKayGaussian)
    sigma_lim = None if sigma_lim is None else check.interval("sigma_lim", sigma_lim, positive=True)
    n = check.integer("n", n, low=3, high=5001)
    n = check.integer("n", n, low=3, high=10_000)
    sigma_lim = None if sigma_lim is None else check.interval("sigma_lim", sigma_lim, positive=True)
    _, ds = fig1_limits(model)
    sigma = np.linspace(*(sigma_lim or (0.02 * ds[0], 1.6 * ds[1])), n)
    l1 = model.log_likelihood(model.xbar, sigma) - model.log_likelihood(model.xbar, model.sigma_N)
    l2 = model.log_evidence_sigma(sigma) - model.log_evidence_sigma(model.sigma_N1)
    arts = ax.plot(sigma, np.exp(l1), **style("map"), label="P(D | μ = x̄, σ)")
    arts += ax.plot(sigma, np.exp(l2), **style("evidence"), label="evidence P(D | σ)")
    arts.append(ax.axvline(model.sigma_N, **style("map", lw=0.9, marker="None")))
    arts.append(ax.axvline(model.sigma_N1, **style("evidence", lw=0.9, marker="None")))
    arts.append(ax.annotate(f"σ_N = {model.sigma_N:.2f} ", (model.sigma_N, 1.04), ha="right", fontsize=8,
                            color=COLORS["map"], annotation_clip=False))
    arts.append(ax.annotate(f" σ_(N−1) = {model.sigma_N1:.2f}", (model.sigma_N1, 1.04), ha="left",
                            fontsize=8, color=COLORS["evidence"], annotation_clip=False))
    ax.set_ylim(0, 1.12)
    ax.set_xlim(sigma[0], sigma[-1])
    ax.set_xlabel("standard deviation σ")
    ax.set_ylabel("rescaled to peak 1")
    ax.set_title("(b) likelihood at μ = x̄ and the evidence for σ")
    ax.legend(loc="center right")
    return arts


def ensemble_limits(model: MacKayGaussian, it=None):
    """Plot limits holding the posterior's peak and (if given) the bulk of the iterate Q."""
    mu_lim, s_lim = fig1_limits(model)
    if it is None:
        return mu_lim, s_lim
    half = 3.0 * math.sqrt(it.sigma_mu2)
    # Q_sigma: beta ~ Gamma(shape c, scale b); sigma from beta's 0.5 % / 99.5 % points
    s_lo = 1.0 / math.sqrt(it.b * special.gammaincinv(it.c, 0.995))
    s_hi = 1.0 / math.sqrt(it.b * special.gammaincinv(it.c, 0.005))
    return ((min(mu_lim[0], it.m - half), max(mu_lim[1], it.m + half)),
            (min(s_lim[0], s_lo), max(s_lim[1], s_hi)))


def _relative_levels(logd):
    top = float(np.max(logd))
    return top + _DLOG, top


def plot_ensemble_contours(ax, model: MacKayGaussian, it, mu_lim=None, sigma_lim=None, n: int = 61,
                           title: bool = True):
    """The exact posterior (8)–(9) (grey, filled) and an iterate Q_μ Q_σ (blue), both in (μ, σ).

    Both are densities in (μ, σ); contours at Δ ln density = −½, −2, −9/2 from each one's peak.
    """
    if mu_lim is None or sigma_lim is None:
        dmu, ds = ensemble_limits(model, it)
        mu_lim, sigma_lim = mu_lim or dmu, sigma_lim or ds
    mu, sigma = _grid(mu_lim, sigma_lim, n)
    lp = model.log_posterior(mu[None, :], sigma[:, None])
    lq = model.q_log_density(it, mu[None, :], sigma[:, None])
    lvp, topp = _relative_levels(lp)
    lvq, _ = _relative_levels(lq)
    arts = [ax.contourf(mu, sigma, lp, levels=np.append(lvp, topp + 1), cmap="Greys", alpha=0.45),
            ax.contour(mu, sigma, lp, levels=lvp, colors="0.35", linewidths=0.6, linestyles="solid"),
            ax.contour(mu, sigma, lq, levels=lvq, colors=Q_COLOR, linewidths=1.3, linestyles="solid")]
    ax.set_xlim(*mu_lim)
    ax.set_ylim(*sigma_lim)
    ax.set_xlabel("mean μ")
    ax.set_ylabel("standard deviation σ")
    if title:
        ax.set_title(f"k = {it.k}: 1/β̄ = {1 / it.beta_bar:.4g}, KL = {it.kl:.3g}")
    return arts


def _rel_error(run):
    return np.maximum(run.error / run.fixed_point, _FLOOR)


def plot_convergence(ax, run, label: str = "|1/β̄_k − S/(N−1)| / (S/(N−1))", color=Q_COLOR):
    """Relative error of 1/β̄_k on a log scale, with the line (1/N)^k through the start."""
    k = np.arange(len(run))
    err = _rel_error(run)
    arts = ax.semilogy(k, err, "o-", color=color, ms=3.5, label=label)
    arts += ax.semilogy(k, np.maximum(err[0] * run.rate ** k, _FLOOR), ":", color="0.3",
                        label=f"(1/N)^k, 1/N = {run.rate:.3g}")
    ax.set_ylim(max(_FLOOR / 3, 0.3 * err.min()), max(10.0, 3 * err.max()))
    ax.set_xlabel("sweep k")
    ax.set_ylabel("relative error of 1/β̄")
    ax.legend(loc="upper right", fontsize=7)
    return arts


def plot_kl(ax, run, color=Q_COLOR):
    """KL(Q_k‖P) = ln P(D) − F_k per sweep (log scale) and its limit (F_k: the lower bound)."""
    k = np.arange(len(run))
    arts = ax.semilogy(k, run.kl, "o-", color=color, ms=3.5, label="KL(Q_k‖P) = ln P(D) − F_k")
    arts.append(ax.axhline(run[-1].kl, color="0.4", lw=0.8, ls=":", label=f"limit {run[-1].kl:.4g}"))
    ax.set_xlabel("sweep k")
    ax.set_ylabel("KL(Q‖P)  (nats)")
    ax.legend(loc="upper right", fontsize=7)
    return arts


def plot_trajectories(ax, model: MacKayGaussian, mackay, conjugate):
    """1/β̄_k of MacKay's iteration (→ S/(N−1)) and the conjugate textbook one (→ S/N)."""
    k = np.arange(len(mackay))
    arts = ax.plot(k, 1 / mackay.beta_bar, "o-", color=Q_COLOR, ms=3.5, label="MacKay, P(σ) ∝ 1/σ")
    arts += ax.plot(k, 1 / conjugate.beta_bar, "s-", color=CONJ_COLOR, ms=3.0,
                    label="conjugate Normal–Gamma, λ₀, a₀, b₀ → 0")
    arts.append(ax.axhline(model.sigma_N1**2, color=Q_COLOR, lw=0.8, ls="--",
                           label=f"S/(N−1) = {model.sigma_N1**2:.4g}"))
    arts.append(ax.axhline(model.sigma_N**2, color=CONJ_COLOR, lw=0.8, ls="--",
                           label=f"S/N = {model.sigma_N**2:.4g}"))
    ax.set_yscale("log")
    ax.set_xlabel("sweep k")
    ax.set_ylabel("1/β̄")
    ax.legend(loc="upper right", fontsize=7)
    return arts


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

def fig1a_figure(model: MacKayGaussian = FIG1):
    """A new Figure with Fig. 1a for ``model`` (default: the paper's N = 5, x̄ = 1, S = 1)."""
    fig, ax = new_figure(5.2, 4.2)
    plot_fig1a(ax, model)
    return fig


def fig1b_figure(model: MacKayGaussian = FIG1):
    """A new Figure with Fig. 1b for ``model`` (default: the paper's N = 5, x̄ = 1, S = 1)."""
    fig, ax = new_figure(5.2, 4.0)
    plot_fig1b(ax, model)
    return fig


def iterations_figure(model: MacKayGaussian = FIG1, beta0: float = DEFAULTS["beta0"],
                      sweeps=(0, 1, 2, 12), n_iter: int = 12):
    """The iteration figure: Q over P after chosen sweeps; convergence, KL, and the conjugate contrast."""
    check.instance("model", model, MacKayGaussian)
    beta0 = check.positive("beta0", beta0)
    n_iter = check.integer("n_iter", n_iter, low=1, high=1000)
    sweeps = [check.integer("sweeps", k, low=0, high=n_iter) for k in check.sequence("sweeps", sweeps)]
    run = model.ensemble_iterations(beta0, n_iter)
    conj = model.conjugate_iterations(beta0, n_iter)
    fig = new_figure(13.0, 7.0)[0]
    fig.clear()
    axes = fig.subplot_mosaic([["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3,
                               ["e"] * 4 + ["f"] * 4 + ["g"] * 4])
    # a common window holding the posterior and every shown Q
    lims = [ensemble_limits(model, run[k]) for k in sweeps]
    mu_lim = (min(m[0][0] for m in lims), max(m[0][1] for m in lims))
    s_lim = (min(m[1][0] for m in lims), max(m[1][1] for m in lims))
    for key, k in zip("abcd", sweeps):
        plot_ensemble_contours(axes[key], model, run[k], mu_lim, s_lim, n=121)
        if key != "a":
            axes[key].set_ylabel("")
    plot_convergence(axes["e"], run)
    axes["e"].set_title("1/β̄ → S/(N−1): the error shrinks by 1/N per sweep")
    plot_kl(axes["f"], run)
    axes["f"].set_title("KL(Q‖P) never increases (F never decreases)")
    plot_trajectories(axes["g"], model, run, conj)
    axes["g"].set_title("the prior matters: S/(N−1) vs S/N")
    fig.suptitle(f"Separable ensemble Q_μ(μ)Q_σ(σ) for N = {model.N}, x̄ = {model.xbar:g}, "
                 f"S = {model.S:g}, from β̄₀ = {beta0:g}", fontsize=10)
    return fig


def write_figures(outdir) -> list[Path]:
    """Write ``mackay_fig1a.png``, ``mackay_fig1b.png`` and ``mackay_iterations.png`` into ``outdir``."""
    outdir = Path(outdir)
    return [save_figure(fig, outdir / name)
            for name, fig in (("mackay_fig1a.png", fig1a_figure()), ("mackay_fig1b.png", fig1b_figure()),
                              ("mackay_iterations.png", iterations_figure()))]


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


# ---------------------------------------------------------------------------
# The exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: the error exercise 1 asks for, and the start β̄₀ it sets
_EX1_TOL, _EX1_BETA0 = 1e-12, 100.0


def first_sweep_below(N: int, xbar: float, S: float, beta0: float, tol: float = _EX1_TOL) -> int | None:
    """The first sweep k whose relative error |1/β̄_k − S/(N−1)| / (S/(N−1)) is below ``tol``
    (the panel's middle plot), or None within K_RANGE's sweeps."""
    rel = _rel_error(MacKayGaussian(N, xbar, S).ensemble_iterations(beta0, K_RANGE[1]))
    below = np.flatnonzero(rel < tol)
    return int(below[0]) if below.size else None


def _check_q1(ex1_panel, sweeps_N50, xbar_changes_kl):
    if not isinstance(ex1_panel, EnsemblePanel):
        raise AnswerError("ex1_panel must be the lesson's panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    v = ex1_panel.values()
    n50 = whole_number("sweeps_N50", sweeps_N50)
    changes = boolean("xbar_changes_kl", xbar_changes_kl)
    if v["N"] != 2 or not close(v["beta0"], _EX1_BETA0, 1e-6):
        return ("the panel should be at N = 2 and start β̄₀ = 100 (the right end of its slider); "
                "then move sweep k.")
    if v["k"] != first_sweep_below(2, v["xbar"], v["S"], v["beta0"]):
        return ("leave the panel at the FIRST sweep whose error in the middle plot is below 1e-12 "
                "(the readout's 1/β̄_k and S/(N−1) agree there to about 12 digits, one sweep earlier they do not).")
    if n50 != first_sweep_below(50, v["xbar"], v["S"], v["beta0"]):
        return ("count sweeps_N50 the same way at N = 50 (same x̄, S and β̄₀ as the panel): the error "
                "shrinks by a factor N per sweep.")
    if changes:
        return ("move x̄ and watch the readout's KL and F: does the posterior's shape depend on where "
                "the data sit, or only on N and S?")
    return None


def _wrong_q1(ns):
    panel = EnsemblePanel()  # a panel of its own: the lesson's stays as shown
    with panel.hold(update=False):
        panel.controls["N"].value, panel.controls["beta0"].value = 2, _EX1_BETA0
        panel.controls["k"].value = first_sweep_below(2, DEFAULTS["xbar"], DEFAULTS["S"], _EX1_BETA0) - 1
    return {"ex1_panel": panel, "sweeps_N50": 6, "xbar_changes_kl": True}  # one sweep short; x̄ "matters"


_Q2_CASES = ((0.4, 7, 3.0), (2.5, 3, 0.5), (0.01, 50, 20.0), (7.0, 2, 0.05))


def _check_q2(v_next, rate):
    got = function_values("v_next", function("v_next", v_next, "v_next(v, N, S)"), _Q2_CASES)
    want = [1 / MacKayGaussian(N, 0.0, S).ensemble_iterations(1 / v, 1)[1].beta_bar for v, N, S in _Q2_CASES]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("write β̄′ = b′c′ with 1/b′ = ½(Nσ²_(μ|D) + S), c′ = N/2 and σ²_(μ|D) = 1/(Nβ̄), then "
                "v′ = 1/β̄′; compare with one sweep of MacKayGaussian(N, 0, S).ensemble_iterations(1/v, 1).")
    Ns = (2, 5, 50)
    got = function_values("rate", function("rate", rate, "rate(N)"), [(N,) for N in Ns])
    if not all(close(g, MacKayGaussian(N, 0.0, 1.0).ensemble_iterations(1.0, 1).rate, 1e-9)
               for g, N in zip(got, Ns)):
        return "the rate is dv′/dv at the fixed point (the map is affine in v, so it is the same everywhere)."
    return None


def _wrong_q2(ns):
    # the conjugate iteration's shape (N + 1)/2 in place of MacKay's N/2
    return {"v_next": lambda v, N, S: (v + S) / (N + 1), "rate": lambda N: 1 / (N + 1)}


#: (N, S, a₀, b₀): the library's conjugate iteration allows a₀, b₀ ≥ 0
_Q3_CASES = ((5, 1.0, 0.0, 0.0), (3, 2.0, 1.5, 0.7), (20, 0.3, 0.25, 2.0))


def _check_q3(a0_mackay, fixed_point_conj):
    a0 = real("a0_mackay", a0_mackay)
    f = function("fixed_point_conj", fixed_point_conj, "fixed_point_conj(N, S, a0, b0)")
    got = function_values("fixed_point_conj", f, _Q3_CASES)
    want = [MacKayGaussian(N, 0.0, S).conjugate_iterations(1.0, 1, a0=a, b0=b).fixed_point
            for N, S, a, b in _Q3_CASES]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("set v′ = v in the conjugate update v′ = (2b₀ + S + v)/(2a₀ + N + 1) and solve for v; "
                "MacKayGaussian(N, 0, S).conjugate_iterations(1, 60, a0=…, b0=…) converges to it.")
    # MacKay's S/(N − 1) for every N, from the library's separable ensemble (a₀ < 0 is outside the
    # conjugate iteration's domain, so the student's formula is compared with it directly)
    models = [MacKayGaussian(N, 0.0, S) for N, S in ((2, 1.0), (5, 1.0), (30, 4.0))]
    if not all(close(real("fixed_point_conj(...)", f(m.N, m.S, a0, 0.0)),
                     m.ensemble_iterations(1.0, 1).fixed_point, 1e-9) for m in models):
        return "choose a₀ so that your fixed point with b₀ = 0 equals S/(N − 1) for every N."
    return None


def _wrong_q3(ns):
    # the textbook "vague" a0 = 0 and the shape without the ½ from Q_μ
    return {"a0_mackay": 0.0, "fixed_point_conj": lambda N, S, a0, b0: (2 * b0 + S) / (2 * a0 + N + 1)}


def _q_and_exact_var_beta(model: MacKayGaussian = FIG1):
    it = model.ensemble_iterations(1.0, K_RANGE[1])[-1]
    return it.b ** 2 * it.c, model.marginal_beta().var()


def _check_q4(var_ratio, q_narrower):
    ratio, narrower = real("var_ratio", var_ratio), boolean("q_narrower", q_narrower)
    q_var, exact_var = _q_and_exact_var_beta()
    if not close(ratio, q_var / exact_var, 1e-6):
        return ("var_ratio is Var_Q[β] / Var_P[β] at convergence on Fig. 1's data: a Gamma of shape c and "
                "scale b has variance b²c (the iterate's .b and .c); the exact one is fig1.marginal_beta().")
    if narrower != (q_var < exact_var):
        return "compare the two variances: which distribution is wider, and which way does KL(Q‖P) push?"
    return None


def _wrong_q4(ns):
    q_var, exact_var = _q_and_exact_var_beta()
    return {"var_ratio": exact_var / q_var, "q_narrower": False}  # the ratio upside down


#: lesson 2's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("02_mackay_gaussian_mean_sigma.ipynb", (
    Exercise("q1", ("ex1_panel", "sweeps_N50", "xbar_changes_kl"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("v_next", "rate"), _check_q2, _wrong_q2),
    Exercise("q3", ("a0_mackay", "fixed_point_conj"), _check_q3, _wrong_q3),
    Exercise("q4", ("var_ratio", "q_narrower"), _check_q4, _wrong_q4),
))


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["EXERCISES", "K_RANGE", "EnsemblePanel", "iteration_table", "iterations_figure", "plot_fig1a",
           "plot_fig1b"]
