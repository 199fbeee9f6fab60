"""Lesson 6, §3: ARD on Boston, one α per input (MacKay §7) — the stored study's result.

:func:`ard_arrays`, :func:`plot_ard`, :func:`ard_figure`, from ``figures/model_size.json``
(:mod:`ensemble_lib.studies.model_size`).
"""

from __future__ import annotations

import numpy as np

from ...ui.plotting import new_figure

def ard_arrays(result: dict):
    """(input names, α per input per split (S × d), count of splits where noise > every real input)."""
    ard = [s["ard"] for s in result["datasets"]["boston"]["splits"] if "ard" in s]
    names = ard[0]["inputs"]
    return names, np.array([a["alpha"] for a in ard]), sum(a["noise_above_every_real"] for a in ard)


def plot_ard(ax, result: dict) -> None:
    names, A, _ = ard_arrays(result)
    n_noise = result["config"]["n_noise"]
    x = np.arange(len(names))
    med = np.exp(np.mean(np.log(A), axis=0))
    colors = ["C0"] * (len(names) - n_noise) + ["C3"] * n_noise
    ax.bar(x, med, color=colors)
    for row in A:
        ax.plot(x, row, "k.", ms=4)
    cfg = result["config"]
    ceiling = (0.5 * cfg["ard_hidden"] + cfg["prior"]["a"]) * cfg["prior"]["b"]
    ax.axhline(ceiling, color="0.4", ls="--", lw=1, label=f"hyperprior ceiling (k_c/2 + a) b = {ceiling:g}")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=60, fontsize=8)
    ax.set_ylabel("ᾱ_c (geometric mean; dots: splits)")
    ax.set_title("ARD on Boston: one α per input (red: pure noise)")


def ard_figure(result: dict):
    fig, ax = new_figure(8.0, 4.0)
    plot_ard(ax, result)
    return fig, ax
