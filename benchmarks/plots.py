"""Figures made from measurements (written by ``make bench``, not by ``make figures``).

Timings differ from run to run and machine to machine, so these figures are not
byte-stable; they record what the benchmark measured.

* ``network_scaling.png``: one bound + gradient evaluation of the erf network
  (full covariance) against N, H and k, log–log, with fitted exponents;
* ``svi_kl_vs_time.png``: lesson 5's exact KL of SVI iterates against CPU time.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from matplotlib.ticker import NullFormatter

from ensemble_lib.ui.plotting import figure_png, new_figure

_CASE = re.compile(r"network/full_N(\d+)_H(\d+)_k(\d+)")


def scaling_series(results: dict) -> dict:
    """Group the network cases into series along N, H and k (the others held at Boston's)."""
    pts = []
    for name, r in results.items():
        m = _CASE.fullmatch(name.split("_d")[0]) or _CASE.match(name)
        if m:
            pts.append((*map(int, m.groups()), r["median_ms"]))
    base = results.get("network/boston_bound_grad_full_N128_H4_k60")
    if base:
        pts.append((128, 4, 60, base["median_ms"]))
    series = {
        "N (H = 4, k = 60)": sorted((n, t) for n, h, k, t in pts if h == 4 and k == 60),
        "H (N = 128, d = 14)": sorted((h, t) for n, h, k, t in pts if n == 128 and k == 15 * h),
        "k (N = 128, H = 4)": sorted((k, t) for n, h, k, t in pts if n == 128 and h == 4),
    }
    return {key: v for key, v in series.items() if len(v) >= 2}


def fitted_exponent(xy) -> float:
    """Slope of log time against log size (least squares)."""
    x, y = np.log(np.array(xy, dtype=float)).T
    return float(np.polyfit(x, y, 1)[0])


def write_scaling_figure(results: dict, outdir: Path) -> Path | None:
    series = scaling_series(results)
    if not series:
        return None
    fig, axes = new_figure(10.0, 3.4, ncols=len(series))
    axes = np.atleast_1d(axes)
    for ax, (label, xy) in zip(axes, series.items()):
        x, y = np.array(xy, dtype=float).T
        ax.loglog(x, y, "o-")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(label)
        ax.set_title(f"slope {fitted_exponent(xy):.2f}")
    axes[0].set_ylabel("bound + gradient, full C (ms)")
    path = Path(outdir) / "network_scaling.png"
    path.write_bytes(figure_png(fig))
    return path


def write_timing_figures(results: dict, outdir: Path) -> list[Path]:
    from ensemble_lib.lessons import stochastic_vi as svi_lesson

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written = [p for p in [write_scaling_figure(results, outdir)] if p]
    written += svi_lesson.write_timing_figures(outdir)
    return written
