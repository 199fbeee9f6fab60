"""Lesson 4, §8: cheap predictive distributions by noisy retraining (MacKay "Probable networks" §9.2).

Draws what :mod:`ensemble_lib.studies.retraining_demo` stored (``figures/retraining_demo.npz``:
the demo network, H = 2, retrained on noise-perturbed targets at MacKay's α_MP, β_MP, with and
without the prior's mean perturbed) beside the demo's other bands at its default setting: Laplace
(the same w_MP, α_MP, β_MP), the ensemble (H = 2, factor s = 1, adapted; the demo's store) and
Hamiltonian Monte Carlo (``figures/hmc_demo.json``). The method itself is
:func:`ensemble_lib.inference.noisy_retraining.noisy_retraining`.

* :func:`retraining_summary` — the bands' means and predictive s.d.s on the demo's x grid;
* :func:`retraining_figure` — the figure (two panels: with and without the perturbed prior mean);
* :func:`retraining_table`, :func:`retraining_sentence` — the lesson's table and sentence, written
  from the numbers when it runs;
* :data:`RETRAINING_EXERCISE` — the section's exercise (lesson 4's ``q5``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..models.network import add_bias, network_output
from ..studies.hmc_reference import DEMO_FILE
from ..studies.network_demo import default_fits, memo_key
from ..studies.retraining_demo import N_MACKAY, VARIANTS, load_retraining
from ..studies.store import stored_file
from ..ui.exercises import Exercise, boolean, close, real
from ..ui.plotting import COLORS, new_figure, style
from ..ui.tables import Table

#: the points the table reads: the middle of the gap in the data, and inside the data
X_GAP, X_DATA = 0.0, 1.5


@dataclass(frozen=True)
class RetrainingSummary:
    """The demo's predictive bands (mean, s.d. of a new target) on its x grid, by method."""

    x: np.ndarray = field(repr=False)  # the training inputs
    t: np.ndarray = field(repr=False)
    x_grid: np.ndarray = field(repr=False)
    alpha: float  # MacKay's α_MP, β_MP: every retraining's, and Laplace's
    beta: float
    residual_sd: float  # MacKay's §9.2 (i) estimate of σ_ν, beside 1/√β_MP
    gamma: float  # MacKay's γ at w_MP: the well-determined parameters
    k: int  # the weights
    curves: dict = field(repr=False)  # variant -> (n_draws, n_grid) f(x, w_j)
    mean: dict = field(repr=False)  # method -> (n_grid,)
    sd: dict = field(repr=False)  # method -> (n_grid,) predictive s.d. (noise included)
    n_draws: int = 0

    def at(self, method: str, x: float) -> float:
        """The predictive s.d. of ``method`` at the grid point nearest ``x``."""
        return float(self.sd[method][int(np.argmin(np.abs(self.x_grid - x)))])


#: the methods of :class:`RetrainingSummary`, in the table's order, with their labels
METHODS = {"retrain12": f"{N_MACKAY} retrained nets, prior mean perturbed",
           "retrain": "all retrained nets, prior mean perturbed",
           "retrain_no_prior": "all retrained nets, prior mean fixed at 0",
           "laplace": "Laplace (MacKay §5.2)",
           "ensemble": "ensemble, factor s = 1 (KL-fitted Q)",
           "hmc": "HMC (α, β integrated)"}


def retraining_summary(directory=None) -> RetrainingSummary:
    """Every band of the section from the stored files (nothing is fitted)."""
    a = load_retraining(directory)
    xg = a["x_grid"]
    H = a["config"]["n_hidden"]
    beta = float(a["beta"])
    curves = {v: network_output(a[f"{v}_weights"], add_bias(xg[:, None]), H) for v in VARIANTS}
    mean, sd = {}, {}
    for key, Y in (("retrain12", curves["prior"][:N_MACKAY]), ("retrain", curves["prior"]),
                   ("retrain_no_prior", curves["no_prior"])):
        mean[key], sd[key] = Y.mean(axis=0), np.sqrt(Y.var(axis=0, ddof=1) + 1.0 / beta)
    mean["laplace"], sd["laplace"] = a["lap_mean"], a["lap_sd"]
    ens = default_fits()[memo_key(H, 1, 1.0, True)]
    mean["ensemble"], sd["ensemble"] = ens.ens_mean, ens.ens_sd
    hmc = json.loads(stored_file(DEMO_FILE, directory).read_text())
    mean["hmc"], sd["hmc"] = np.asarray(hmc["mean"]), np.asarray(hmc["sd"])
    return RetrainingSummary(a["x"], a["t"], xg, float(a["alpha"]), beta, float(a["residual_sd"]),
                             float(a["gamma"]), int(a["w_mp"].size), curves, mean, sd, int(a["config"]["n_draws"]))


def retraining_table(s: RetrainingSummary) -> Table:
    """Each method's predictive s.d. in the gap (x = 0) and inside the data (x = 1.5)."""
    rows = [(METHODS[m].replace("all", str(s.n_draws)), f"{s.at(m, X_GAP):.3f}", f"{s.at(m, X_DATA):.3f}")
            for m in METHODS]
    return Table(("method", "s.d. at x = 0 (gap)", "at x = 1.5 (data)"), rows, widths=(-44, 19, 17))


def retraining_sentence(s: RetrainingSummary) -> str:
    """The section's reading of the table (Markdown), written from its numbers."""
    g = {m: s.at(m, X_GAP) for m in METHODS}
    d = {m: s.at(m, X_DATA) for m in METHODS}
    widen = g["retrain"] / g["retrain_no_prior"]
    off = 100 * max(abs(g[m] / g["laplace"] - 1) for m in ("retrain", "retrain_no_prior"))
    close_d = [d[m] for m in ("retrain", "retrain_no_prior", "laplace")]
    text = (f"In the gap (x = 0) the {s.n_draws} retrained networks give a predictive s.d. of {g['retrain']:.3f} "
            f"with the prior's mean perturbed and {g['retrain_no_prior']:.3f} without, within {off:.0f} % of "
            f"Laplace's {g['laplace']:.3f}: retraining from w_MP at fixed α_MP, β_MP samples the same local "
            f"Gaussian that Laplace linearises. The ensemble's band ({g['ensemble']:.3f}) is "
            f"{g['ensemble'] / g['laplace']:.1f} times as wide and HMC's ({g['hmc']:.3f}) "
            f"{g['hmc'] / g['laplace']:.1f} times: HMC also integrates over α, β and over the other modes, which "
            f"no retraining from one w_MP at fixed α, β reaches. Perturbing the prior's mean changes the band in "
            f"the gap by a factor of only {widen:.2f}, because γ = {s.gamma:.2f} of the k = {s.k} weights are "
            f"determined by the data, leaving the prior few directions of its own. Inside the data (x = 1.5) "
            f"retraining and Laplace give {min(close_d):.3f}–{max(close_d):.3f}, the ensemble {d['ensemble']:.3f} "
            f"and HMC {d['hmc']:.3f}. MacKay's twelve networks give {g['retrain12']:.3f} at x = 0: an s.d. from "
            f"twelve draws is itself uncertain by about {100 / math.sqrt(2 * (N_MACKAY - 1)):.0f} %.")
    return text


def plot_retraining(ax, s: RetrainingSummary, variant: str = "prior"):
    """One panel: the data, twelve retrained networks, their band (all draws) and the other bands."""
    xg = s.x_grid
    key = "retrain" if variant == "prior" else "retrain_no_prior"
    out = [ax.fill_between(xg, s.mean[key] - 2 * s.sd[key], s.mean[key] + 2 * s.sd[key], color=COLORS["map"],
                           alpha=0.2, lw=0, label=f"{s.n_draws} retrained: ± 2 s.d.")]
    for j, y in enumerate(s.curves[variant][:N_MACKAY]):
        out += ax.plot(xg, y, color=COLORS["map"], lw=0.7, alpha=0.8,
                       label=f"{N_MACKAY} retrained networks" if j == 0 else None)
    for m, lab in (("laplace", "Laplace"), ("ensemble", "ensemble (s = 1)"), ("hmc", "HMC")):
        st = style({"ensemble": "factor"}.get(m, m), lw=1.1, ms=4, markevery=0.25)
        out += ax.plot(xg, s.mean[m] + 2 * s.sd[m], **st, label=f"{lab} ± 2 s.d.")
        out += ax.plot(xg, s.mean[m] - 2 * s.sd[m], **st)
    out += ax.plot(s.x, s.t, **style("data", ms=4), label="data", zorder=5)
    ax.set_xlim(-3.0, 3.0)
    ax.set_ylim(-3.0, 3.0)
    ax.set_xlabel("x")
    ax.set_title("prior mean perturbed, m_j ~ N(0, I/α)" if variant == "prior" else "prior mean fixed at 0")
    return out


def retraining_figure(s: RetrainingSummary | None = None):
    """Both panels side by side (with and without the perturbed prior mean)."""
    s = retraining_summary() if s is None else s
    fig, axes = new_figure(10.0, 4.0, ncols=2, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        plot_retraining(ax, s, v)
    axes[0].set_ylabel("t")
    axes[1].legend(loc="lower right", fontsize=7)
    return fig


# -- the exercise (lesson 4's q5) -----------------------------------------------------------------

def _q5_truth() -> tuple[list[float], bool]:
    s = retraining_summary()
    j = int(np.argmin(np.abs(s.x_grid - X_GAP)))
    f12 = s.curves["prior"][:N_MACKAY, j]
    sds = [math.sqrt(f12.var(ddof=dd) + 1.0 / s.beta) for dd in (0, 1)]
    return sds, bool(s.at("retrain", X_GAP) > s.at("retrain_no_prior", X_GAP))


def _check_q5(sd_gap, prior_widens):
    sd = real("sd_gap", sd_gap)
    widens = boolean("prior_widens", prior_widens)
    sds, want = _q5_truth()
    if not any(close(sd, w, 1e-3) for w in sds):
        s = retraining_summary()
        f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
        if any(close(sd, f12.std(ddof=dd), 1e-3) for dd in (0, 1)):
            return ("that is the spread of the networks' outputs f(0, w_j) alone; a new target also carries the "
                    "noise, of variance 1/β.")
        return ("take the first twelve rows of cheap.curves[\"prior\"] at the grid point x = 0, their variance, "
                "add the noise variance 1/β (cheap.beta) and take the square root.")
    if widens != want:
        return "compare the two retrained rows of the table at x = 0 (prior mean perturbed, and fixed at 0)."
    return None


def _wrong_q5(ns):
    s = retraining_summary()
    f12 = s.curves["prior"][:N_MACKAY, int(np.argmin(np.abs(s.x_grid - X_GAP)))]
    return {"sd_gap": float(f12.std(ddof=1)), "prior_widens": not _q5_truth()[1]}  # the noise forgotten


RETRAINING_EXERCISE = Exercise("q5", ("sd_gap", "prior_widens"), _check_q5, _wrong_q5)

__all__ = ["METHODS", "RETRAINING_EXERCISE", "RetrainingSummary", "X_DATA", "X_GAP", "plot_retraining",
           "retraining_figure", "retraining_sentence", "retraining_summary", "retraining_table"]
