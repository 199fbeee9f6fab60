"""Lesson 3's figures: ``bound_fig1.png`` and ``hyperparameter_trajectories.png`` (§1–4, written by
:func:`~ensemble_lib.lessons.bound.sections.write_figures`) and ``cheap_reestimation.png`` (§5: MacKay
§9.1's cheap rule against (22)–(24) and the exact maximiser, and the ln α posterior beside MacKay (25))."""

from __future__ import annotations

from pathlib import Path

from ...ui.plotting import save_figure
from . import sections
from .hyper_reestimation import cheap_comparison, log_alpha_cases, reestimation_figure


def write_figures(outdir) -> list[Path]:
    """Write lesson 3's three figures into ``outdir``; return their paths."""
    outdir = Path(outdir)
    paths = sections.write_figures(outdir)
    fig, _ = reestimation_figure(cheap_comparison(), log_alpha_cases())
    return paths + [save_figure(fig, outdir / "cheap_reestimation.png")]


#: the lesson's figures are written by ensemble_lib.lessons.figures (write_figures)
__all__: list[str] = []
