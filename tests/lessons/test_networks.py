"""Lesson 4's public helpers (``ensemble_lib.lessons.networks``): the stored Table 1 drawn as stored.

The bars are read back from the axes and compared with ``figures/boston_table1.json`` read here with
``json`` (not through the library's loader); the demo readout with the state's own numbers. (The
lesson's panel and figures: tests/ui/test_panel.py and the committed-figure checks.)
"""

import json
from pathlib import Path

import matplotlib
import pytest

from ensemble_lib.lessons.networks import plot_table, table_figure

matplotlib.use("Agg")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tables():
    return {name: json.loads((ROOT / "figures" / f"{name}.json").read_text())
            for name in ("boston_table1", "diabetes_table")}


def _bars(ax):
    """(tick label at the bar's height, width) of each bar."""
    at = {round(float(y), 6): t.get_text() for y, t in zip(ax.get_yticks(), ax.get_yticklabels())}
    return [(at[round(b.get_y() + b.get_height() / 2, 6)], b.get_width()) for b in ax.patches]


def test_plot_table_draws_each_stored_methods_mean_test_error(tables):
    from matplotlib.figure import Figure

    table = tables["boston_table1"]
    ax = Figure().add_subplot()
    plot_table(ax, table)
    stored = {m["label"]: m["test_mse"]["mean"] for m in table["methods"].values()}
    drawn = dict(_bars(ax))
    assert drawn.keys() <= stored.keys() and len(drawn) >= 3
    assert drawn == pytest.approx({k: stored[k] for k in drawn}, rel=1e-12)
    baseline = [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--"]
    assert baseline == pytest.approx([table["baseline_mse"]["mean"]])


def test_table_figure_has_one_panel_per_stored_table(tables):
    one = table_figure(tables["boston_table1"])
    two = table_figure(tables["boston_table1"], tables["diabetes_table"])
    assert len(one.axes) == 1 and len(two.axes) == 2
    widths = [w for _, w in _bars(two.axes[1])]  # the right panel's labels are blanked
    means = [m["test_mse"]["mean"] for m in tables["diabetes_table"]["methods"].values()]
    assert len(widths) >= 3 and all(any(w == pytest.approx(m, rel=1e-12) for m in means) for w in widths)
