"""Lesson 6's figures: ``write_figures(outdir)`` for the figures command."""

from __future__ import annotations

from pathlib import Path

from ...studies.model_size import load_result
from ...studies.pruning_evidence import load_result as load_pruning
from ...ui.plotting import save_figure
from .ard_boston import ard_figure
from .hyper_error_bars import hyper_error_bar_figure
from .network_size import model_size_figure
from .occam import occam_figure
from .pruning import pruning_study_figure


def write_figures(outdir) -> list[Path]:
    """``occam_polynomial.png``, ``hyper_error_bars.png``, and from the stored studies ``model_size.png``,
    ``ard_boston.png``, ``pruning_evidence.png``."""
    outdir = Path(outdir)
    out = [save_figure(occam_figure()[0], outdir / "occam_polynomial.png")]
    try:
        result = load_result()
    except FileNotFoundError:
        return out
    out.append(save_figure(hyper_error_bar_figure()[0], outdir / "hyper_error_bars.png"))
    out.append(save_figure(model_size_figure(result)[0], outdir / "model_size.png"))
    if any("ard" in s for s in result["datasets"].get("boston", {}).get("splits", [])):
        out.append(save_figure(ard_figure(result)[0], outdir / "ard_boston.png"))
    try:
        out.append(save_figure(pruning_study_figure(load_pruning())[0], outdir / "pruning_evidence.png"))
    except FileNotFoundError:
        pass
    return out


#: the lesson's figures are written by ensemble_lib.lessons.figures (write_figures)
__all__ = []
