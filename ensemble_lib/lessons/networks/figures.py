"""Lesson 4's figures for the figures command: ``network_1d_demo.png``, ``boston_table1.png``,
``table1_pruning.png``."""

from pathlib import Path


from ...studies.table1 import load_table, stored_hmc
from ...ui.plotting import save_figure
from .demo_panel import demo_figure
from .table1_plots import pruning_figure, table_figure


def write_figures(outdir) -> list[Path]:
    """Write ``network_1d_demo.png``, ``boston_table1.png`` and ``table1_pruning.png`` into ``outdir``.

    The Table-1 figures refit nothing: they re-plot ``boston_table1.json``, ``diabetes_table.json``
    and the HMC references ``hmc_reference_*.json`` from the repository's ``figures/`` folder.
    """
    outdir = Path(outdir)
    fig, _ = demo_figure()
    written = [save_figure(fig, outdir / "network_1d_demo.png")]
    hmc = stored_hmc()
    boston = load_table("boston")
    return written + [save_figure(table_figure(boston, load_table("diabetes"), hmc), outdir / "boston_table1.png"),
                      save_figure(pruning_figure(boston, hmc.get("boston")), outdir / "table1_pruning.png")]


__all__ = []
