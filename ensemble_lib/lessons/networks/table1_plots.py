"""Lesson 4's Table-1 figures: the stored study re-plotted (:func:`table_figure`, :func:`pruning_figure`)."""


import numpy as np

from ...core import validation as check
from ...studies.table1 import METHOD_LABELS, hmc_comparison
from ...ui.plotting import COLORS, bar_style, new_figure, style


# ---------------------------------------------------------------------------
# Table 1's figures (the study: :mod:`ensemble_lib.studies.table1`)
# ---------------------------------------------------------------------------


#: Table 1's ensemble families by their look in :data:`~ensemble_lib.ui.plotting.STYLES`: the factor ranks
#: share the factor's colour, each with its own marker (the pruning plot) and hatch (the bars)
FAMILY_STYLES = {"ensemble_diagonal": "diagonal", "ensemble_full": "full", "ensemble_s1": "factor",
                 "ensemble_s2": "factor_s2", "ensemble_s4": "factor_s4"}
#: Table 1's bars: each method's colour and hatch (:func:`~ensemble_lib.ui.plotting.bar_style`)
TABLE_BARS = {"laplace_evidence": bar_style("laplace"), **{k: bar_style(v) for k, v in FAMILY_STYLES.items()}}


def plot_table(ax, result: dict, title: str | None = None, hmc: dict | None = None):
    """Test MSE ± 1 standard error per method (bars), the paper's Table 1 as crosses, HMC as a band."""
    keys = [k for k in METHOD_LABELS if k in result["methods"]]
    y = np.arange(len(keys))[::-1]
    m = [result["methods"][k]["test_mse"]["mean"] for k in keys]
    se = [result["methods"][k]["test_mse"]["se"] or 0.0 for k in keys]
    bars = ax.barh(y, m, xerr=se, capsize=3, label=f"ours: mean ± s.e. over {len(result['splits'])} splits")
    for rect, k in zip(bars, keys):  # each method's colour and hatch: told apart without colour too
        rect.set(**TABLE_BARS.get(k, TABLE_BARS["ensemble_s1"]))
    arts = [bars]
    paper = result.get("paper") or {}
    py = [yy for yy, k in zip(y, keys) if k in paper]
    if py:
        arts.append(ax.plot([paper[k] for k in keys if k in paper], py, "kx", ms=9, mew=2,
                            label="Barber & Bishop Table 1")[0])
    if hmc is not None:
        h = hmc_comparison(result, hmc)["hmc"]
        arts.append(ax.axvspan(h["mean"] - (h["se"] or 0.0), h["mean"] + (h["se"] or 0.0),
                               color=COLORS["hmc"], alpha=0.2, lw=0))
        arts.append(ax.axvline(h["mean"], **style("hmc", lw=1.5, marker="None"),
                               label="HMC (NUTS): mean ± s.e."))
    b = result["baseline_mse"]["mean"]
    arts.append(ax.axvline(b, color="0.5", ls="--", lw=1, label="predict the training mean"))
    ax.set_yticks(y, [result["methods"][k]["label"] for k in keys])
    ax.set_xlabel("test mean squared error (standardised targets)")
    ax.set_title(title or result["dataset"])
    ax.legend(loc="lower right", fontsize=7)
    return arts


def _title(result: dict, name: str) -> str:
    cfg = result["config"]
    return (f"{name}: N = {cfg['n_train']} training, {result['splits'][0]['n_test']} test, "
            f"H = {cfg['n_hidden']}")


def table_figure(boston: dict, diabetes: dict | None = None, hmc: dict | None = None):
    """Both stored tables side by side (``figures/boston_table1.png``), with HMC where given.

    ``hmc`` maps a data set name to its stored HMC reference (missing names: no HMC band).
    """
    check.mapping("boston", boston, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if diabetes is not None:
        check.mapping("diabetes", diabetes, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a dict of data set -> stored HMC reference (stored_hmc()) or None")
    hmc = hmc or {}
    fig, axes = new_figure(11.0, 3.8, ncols=2 if diabetes else 1)
    axes = np.atleast_1d(axes)
    plot_table(axes[0], boston, _title(boston, "Boston housing"), hmc.get("boston"))
    if diabetes:
        plot_table(axes[1], diabetes, _title(diabetes, "Diabetes"), hmc.get("diabetes"))
        axes[1].set_yticks(axes[1].get_yticks(), [""] * len(axes[1].get_yticks()))
    return fig


def plot_pruning(ax_units, ax_bound, result: dict, hmc: dict | None = None):
    """Over-pruning, from the stored trials: test error against active hidden units, and the bound
    against test error.

    Left: every ensemble fit of every split (each family from each start) by its number of
    active hidden units; the family bests are drawn filled. Right: each fit's bound relative to
    the best ensemble bound of its split (≤ 0) against its test error minus HMC's on that split
    (or the test error itself without ``hmc``): were the bound a perfect guide to prediction, the
    errors would fall steadily from left to right.
    """
    ref = {s["index"]: s["test_mse"] for s in hmc["splits"]} if hmc is not None else {}
    # each family's marker and colour (FAMILY_STYLES): every fit hollow and pale, the family bests filled
    look = {k: style(v, linestyle="None", markevery=None) for k, v in FAMILY_STYLES.items()}
    fit = dict(mfc="none", alpha=0.55, ms=4.5, mew=0.8)
    jitter = np.random.default_rng(0)  # horizontal jitter only, so overlapping points show
    H = result["config"]["n_hidden"]
    for s in result["splits"]:
        best = max(t["bound"] for t in s["trials"])
        off = ref.get(s["index"], 0.0)
        # every fit's marker, in the order of the trials; a run of one family is one line (its markers
        # are drawn in the same order as one line each would be, at a fraction of the cost)
        runs = []
        for t in s["trials"]:
            point = (t["active_units"] + jitter.uniform(-0.15, 0.15), t["test_mse"], t["bound"] - best,
                     t["test_mse"] - off)
            if runs and runs[-1][0] == t["family"]:
                runs[-1][1].append(point)
            else:
                runs.append((t["family"], [point]))
        for family, points in runs:
            xu, yu, xb, yb = zip(*points)
            ax_units.plot(xu, yu, **look[family], **fit)
            ax_bound.plot(xb, yb, **look[family], **fit)
        for key, row in s["methods"].items():
            if key in look:
                ax_units.plot(row["active_units"] + jitter.uniform(-0.15, 0.15), row["test_mse"], **look[key],
                              ms=6, mec="k", mew=0.5)
    for key in [k for k in METHOD_LABELS if k in look and k in result["methods"]]:
        ax_units.plot([], [], **look[key], mec="k", mew=0.5, label=METHOD_LABELS[key].replace("Ensemble ", ""))
    ax_units.set_xticks(range(0, H + 1))
    ax_units.set_xlabel("active hidden units (share of Σ⟨f²⟩ ≥ 1%)")
    ax_units.set_ylabel("test mean squared error")
    ax_units.legend(fontsize=7, title="family best (filled); all fits (hollow)", title_fontsize=7)
    ax_bound.set_xlabel("bound F* minus the split's best ensemble bound (nats)")
    ax_bound.set_ylabel("test MSE minus HMC's" if hmc is not None else "test mean squared error")
    if hmc is not None:
        ax_bound.axhline(0.0, **style("hmc", lw=1, marker="None"))
    ax_units.set_title(f"{result['dataset']}: test error by active hidden units", fontsize=9)
    ax_bound.set_title("bound against test error, every fit of every split", fontsize=9)


def pruning_figure(result: dict, hmc: dict | None = None):
    """:func:`plot_pruning` as a figure (``figures/table1_pruning.png``, Boston)."""
    check.mapping("result", result, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a stored HMC reference or None")
    fig, axes = new_figure(11.0, 3.8, ncols=2)
    plot_pruning(axes[0], axes[1], result, hmc)
    return fig


__all__ = ["pruning_figure", "table_figure"]
