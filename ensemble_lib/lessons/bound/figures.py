"""Lesson 3's figures: ``bound_fig1.png`` (§1–2, Fig. 1), ``hyperparameter_trajectories.png`` (§3–4) and
``cheap_reestimation.png`` (§5: MacKay §9.1's cheap rule against (22)–(24) and the exact maximiser, and the
ln α posterior beside MacKay (25))."""

from __future__ import annotations

from pathlib import Path

from ...ui.plotting import save_figure
from .bound_panel import bound_figure
from .hyper_iterations import compare_hyperparameters, trajectories_figure
from .hyper_reestimation import cheap_comparison, log_alpha_cases, reestimation_figure


def write_figures(outdir) -> list[Path]:
    """Write lesson 3's three figures into ``outdir``; return their paths."""
    outdir = Path(outdir)
    fig, _ = bound_figure()
    paths = [save_figure(fig, outdir / "bound_fig1.png")]
    fig = trajectories_figure(compare_hyperparameters())
    paths.append(save_figure(fig, outdir / "hyperparameter_trajectories.png"))
    fig, _ = reestimation_figure(cheap_comparison(), log_alpha_cases())
    return paths + [save_figure(fig, outdir / "cheap_reestimation.png")]


#: the lesson's figures are written by ensemble_lib.lessons.figures (write_figures)
__all__: list[str] = []
