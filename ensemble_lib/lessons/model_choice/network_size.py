"""Lesson 6, §2: which network size — the stored study on Boston and diabetes (MacKay §3.2, §4).

:func:`size_rows`, :func:`format_size`, :func:`plot_model_size`, :func:`model_size_figure`: ln
evidence (30) of the best optimum, the bound F* and the test errors against the number of hidden
units H, from ``figures/model_size.json`` (:mod:`ensemble_lib.studies.model_size`).
"""

from __future__ import annotations

import numpy as np

from ...ui.plotting import new_figure, style
from ...ui.tables import Table
from ...core import validation as check

def size_rows(result: dict, dataset: str) -> list[dict]:
    """Per H: mean ± s.e. over splits (the stored ``summary``) as flat rows."""
    summ = result["datasets"][dataset]["summary"]
    rows = []
    for H in result["config"]["hidden"]:
        s = summ[str(H)]
        rows.append({"H": H, **{k: s[k]["mean"] for k in s}, **{k + "_se": s[k]["se"] for k in s}})
    return rows


def format_size(result: dict, dataset: str) -> Table:
    """The table of :func:`size_rows` (text; an HTML table in a notebook), titled by its caption."""
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    if dataset not in result["datasets"]:
        raise ValueError(f"dataset must be one of the study's data sets {sorted(result['datasets'])}, got {dataset!r}")
    rows = [(f"{r['H']}", f"{r['log_evidence']:.2f}", f"{r['laplace_test_mse']:.3f}",
             f"{r['laplace_active_units']:.1f}", f"{r['bound']:.2f}", f"{r['ensemble_test_mse']:.3f}",
             f"{r['ensemble_active_units']:.1f}") for r in size_rows(result, dataset)]
    return Table(("H", "ln ev (30)", "Laplace MSE", "units", "bound F*", "ens. MSE", "units"), rows,
                 widths=(2, 11, 12, 6, 10, 9, 6),
                 caption=f"{dataset}: mean over {result['config']['n_splits']} splits")


def _errorbar(ax, x, rows, key, **kw):
    y = np.array([r[key] for r in rows], dtype=float)
    e = np.array([r[key + "_se"] or 0.0 for r in rows], dtype=float)
    return ax.errorbar(x, y, yerr=e, capsize=3, **kw)


#: Laplace's and the diagonal ensemble's looks (STYLES), markers at every H
_LOOK = {k: style(k, markevery=None) for k in ("laplace", "diagonal")}


def plot_model_size(axes, result: dict, dataset: str) -> None:
    """Left: ln evidence (30) of the best optimum and F* against H; right: test MSE against H."""
    rows = size_rows(result, dataset)
    H = np.array([r["H"] for r in rows])
    ax1, ax2 = axes
    _errorbar(ax1, H, rows, "log_evidence", **_LOOK["laplace"], label="Laplace ln P(D|H), MacKay (30)")
    _errorbar(ax1, H, rows, "bound", **_LOOK["diagonal"], label="ensemble bound F*")
    ax1.set_xlabel("hidden units H")
    ax1.set_ylabel("nats")
    ax1.set_title(f"{dataset}: evidence and bound")
    ax1.legend(fontsize=8)
    _errorbar(ax2, H, rows, "laplace_test_mse", **_LOOK["laplace"], label="Laplace (MAP)")
    _errorbar(ax2, H, rows, "ensemble_test_mse", **_LOOK["diagonal"], label="ensemble (diagonal)")
    ax2.set_xlabel("hidden units H")
    ax2.set_ylabel("test MSE (standardised)")
    ax2.set_title(f"{dataset}: test error")
    ax2.legend(fontsize=8)


def model_size_figure(result: dict):
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    fig, axes = new_figure(11.0, 7.0, nrows=2, ncols=2)
    for row, name in zip(axes, [d for d in ("boston", "diabetes") if d in result["datasets"]]):
        plot_model_size(row, result, name)
    return fig, axes


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["format_size", "model_size_figure"]
