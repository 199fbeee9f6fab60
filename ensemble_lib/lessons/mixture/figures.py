"""Lesson 7's figure: the mixtures for K = 1 … 4 over the exact posterior and KL against K (``mixture_fits.png``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.axes import Axes

from ...core import validation as check
from ...models.toy import PAPER_PRESET, make_posterior
from ...ui.plotting import new_figure, plot_posterior_contours, save_figure, style
from .comparison import K_MAX, MixtureComparison, fit_mixtures, plot_ladder, plot_mixture, view_extent


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------

def plot_comparison(axes, comp: MixtureComparison):
    """Five axes: the mixtures for K = 1 … 4 over the exact posterior (quadrature-entropy fit solid,
    bounded-entropy fit dashed), then KL against K."""
    check.instance("comp", comp, MixtureComparison, "a MixtureComparison (fit_mixtures())")
    if not all(isinstance(a, Axes) for a in np.ravel(np.asarray(axes, dtype=object))) or np.size(axes) < K_MAX + 1:
        raise ValueError(f"axes must be at least {K_MAX + 1} matplotlib Axes, got {axes!r:.80}")
    grid = comp.posterior.grid(n=201, extent=view_extent(comp))
    axes = list(np.ravel(axes))
    artists = []
    for K, ax in zip(range(1, K_MAX + 1), axes[:K_MAX]):
        artists += plot_posterior_contours(ax, grid)
        fit = comp.quadrature.fits[K - 1]
        artists += plot_mixture(ax, fit, label="H by quadrature", **style("mixture"))
        artists += plot_mixture(ax, comp.bound.fits[K - 1], label="H's lower bound", **style("mixture_bound"))
        ax.set_title(f"K = {K}: KL = {fit.kl:.3f}")
    axes[0].legend(loc="lower right")
    artists += plot_ladder(axes[K_MAX], comp)
    axes[K_MAX].legend(loc="upper right")
    return artists


def mixtures_figure(preset: dict | None = None):
    """A new Figure of :func:`plot_comparison` for ``preset`` (default: the paper-like preset)."""
    comp = fit_mixtures(make_posterior(**(PAPER_PRESET if preset is None else preset)))
    fig, axes = new_figure(12.0, 6.4, nrows=2, ncols=3)
    plot_comparison([axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1], axes[0, 2]], comp)
    axes[1, 2].axis("off")
    return fig, comp


def write_figures(outdir) -> list[Path]:
    """Write ``mixture_fits.png`` into ``outdir``."""
    fig, _ = mixtures_figure()
    return [save_figure(fig, Path(outdir) / "mixture_fits.png")]


__all__ = ["plot_comparison"]
