"""Lesson 2's plots: MacKay's Fig. 1 (the posterior over μ, σ and the marginal of σ), the ensemble's contours
as it iterates, its convergence and KL; the panel's slider ranges."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from matplotlib.axes import Axes

from ...core import validation as check
from ...models.mackay_gaussian import FIG1, MacKayGaussian
from ...ui.plotting import COLORS, style

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


__all__ = ["K_RANGE", "plot_fig1a", "plot_fig1b"]
