"""Lesson 2's figures: ``mackay_fig1a.png``, ``mackay_fig1b.png``, ``mackay_iterations.png``."""

from __future__ import annotations

from pathlib import Path



from ...core import validation as check
from ...models.mackay_gaussian import FIG1, MacKayGaussian
from ...ui.plotting import new_figure, save_figure
from .plots import (DEFAULTS, ensemble_limits, plot_convergence, plot_ensemble_contours, plot_fig1a, plot_fig1b,
                    plot_kl, plot_trajectories)

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
    # four panels above three, each row a grid of its own: with one 12-column mosaic, matplotlib 3.8's
    # constrained layout (the declared floor) collapsed the shared columns and drew the panels unlaid
    rows = fig.add_gridspec(2, 1)
    axes = {key: fig.add_subplot(cell) for key, cell in zip("abcd", rows[0].subgridspec(1, 4))}
    axes.update({key: fig.add_subplot(cell) for key, cell in zip("efg", rows[1].subgridspec(1, 3))})
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


__all__ = ["iterations_figure"]
