"""Lesson 8's figures for the figures command: ``classification_fig7.png`` and ``classification_fig9.png``."""

from __future__ import annotations

from pathlib import Path


from ...ui.plotting import save_figure
from .fig9 import fig9_figure
from .neuron import arrival_figure


def write_figures(outdir) -> list[Path]:
    """Write Fig. 7 (``classification_fig7.png``, the lesson's main figure) and Fig. 9
    (``classification_fig9.png``) into ``outdir``."""
    outdir = Path(outdir)
    return [save_figure(arrival_figure(), outdir / "classification_fig7.png"),
            save_figure(fig9_figure(), outdir / "classification_fig9.png")]


__all__ = []
