"""Lesson 6, §3: ARD on Boston, one α per input (MacKay §7) — the stored study's result.

:func:`ard_arrays`, :func:`format_ard_inputs`, :func:`format_ard_splits`, :func:`plot_ard`,
:func:`ard_figure`, from ``figures/model_size.json``
(:mod:`ensemble_lib.studies.model_size`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba

from ...ui.plotting import OKABE_ITO, new_figure
from ...ui.tables import Table
from ...core import validation as check


def ard_arrays(result: dict):
    """(input names, α per input per split (S × d), count of splits where noise > every real input)."""
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    ard = [s["ard"] for s in result["datasets"]["boston"]["splits"] if "ard" in s]
    names = ard[0]["inputs"]
    return names, np.array([a["alpha"] for a in ard]), sum(a["noise_above_every_real"] for a in ard)


def format_ard_inputs(result: dict) -> Table:
    """The inputs by their inferred ᾱ_c, largest (most switched off) first: geometric mean over splits."""
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    names, A, _ = ard_arrays(result)
    geo = np.exp(np.mean(np.log(A), axis=0))
    return Table(("input", "ᾱ_c"), [(names[j], f"{geo[j]:.3g}") for j in np.argsort(-geo)], widths=(-8, 10),
                 caption=f"Inputs by inferred ᾱ_c (geometric mean over {A.shape[0]} splits; large = switched off)")


def format_ard_splits(result: dict) -> Table:
    """Per split: the real inputs whose ᾱ_c reaches the smallest noise input's, ARD's test MSE beside one
    α's (the diagonal ensemble), and how many input classes MacKay's evidence ARD held at the limit 10⁸."""
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    splits = [s for s in result["datasets"]["boston"]["splits"] if "ard" in s]
    cells = [(f"{s['index']}", ", ".join(s["ard"]["real_above_smallest_noise"]) or "none",
              f"{s['ard']['test_mse']:.3f}", f"{s['ard']['single_alpha']['test_mse']:.3f}",
              f"{sum(x >= 1e8 for x in s['ard']['evidence']['alpha'])} of {len(s['ard']['evidence']['alpha'])}")
             for s in splits]
    H = splits[0]["ard"]["n_hidden"] if splits else result["config"]["ard_hidden"]
    header = ("split", "real inputs at or above the smallest noise ᾱ_c", "MSE ARD", "MSE one α", "MacKay: at 1e8")
    wide = max(len(c) for c in [header[1], *(r[1] for r in cells)])
    return Table(header, cells, widths=(5, -wide, 7, 9, 14),
                 caption=f"Per split (diagonal ensemble, H = {H}): test MSE with ARD and with one α; inputs whose "
                         "α_c ran to the limit 1e8 in MacKay's evidence ARD")


#: ARD's colour (Okabe–Ito); the bars of real inputs plain, of pure-noise inputs pale, hatched, vermillion
#: (told apart without colour by the hatch); lesson 6's noise-inputs panel draws its bars the same way
ARD_COLOR = OKABE_ITO["blue"]
INPUT_BARS = {False: dict(facecolor=ARD_COLOR, edgecolor=ARD_COLOR, hatch=None),
              True: dict(facecolor=to_rgba(OKABE_ITO["vermillion"], 0.45), edgecolor=OKABE_ITO["vermillion"],
                         hatch="//")}


def plot_ard(ax, result: dict) -> None:
    names, A, _ = ard_arrays(result)
    n_noise = result["config"]["n_noise"]
    x = np.arange(len(names))
    med = np.exp(np.mean(np.log(A), axis=0))
    for bar, noise in zip(ax.bar(x, med), x >= len(names) - n_noise):
        bar.set(**INPUT_BARS[bool(noise)])
    for row in A:
        ax.plot(x, row, "k.", ms=4)
    cfg = result["config"]
    ceiling = (0.5 * cfg["ard_hidden"] + cfg["prior"]["a"]) * cfg["prior"]["b"]
    ax.axhline(ceiling, color="0.4", ls="--", lw=1, label=f"hyperprior ceiling (k_c/2 + a) b = {ceiling:g}")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=60, fontsize=8)
    ax.set_ylabel("ᾱ_c (geometric mean; dots: splits)")
    ax.set_title("ARD on Boston: one α per input (hatched, vermillion: pure noise)")


def ard_figure(result: dict):
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    fig, ax = new_figure(8.0, 4.0)
    plot_ard(ax, result)
    return fig, ax


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["ard_arrays", "ard_figure", "format_ard_inputs", "format_ard_splits"]
