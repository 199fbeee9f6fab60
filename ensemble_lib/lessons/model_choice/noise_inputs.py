"""Lesson 6, §3b: ARD with a slider for the number of pure-noise inputs (MacKay §7, eq. (27)).

:class:`NoiseInputsPanel` (:func:`noise_ard`): ARD of a linear model on Boston with pure-noise
inputs appended, at the hyperparameters stored by :mod:`ensemble_lib.studies.noise_inputs`;
:func:`noise_summary`, :func:`format_noise_summary`: over the stored noise seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.collections import LineCollection

from ...core import validation as check
from ...studies import noise_inputs as NI
from ...ui.memo import LRUMemo
from ...ui.panel import FigurePanel
from ...ui.plotting import new_figure
from ...ui.tables import Table
from .ard_boston import ARD_COLOR, INPUT_BARS

#: the α limit of the re-estimation: an input whose α_c runs to it is switched off
ARD_LIMIT = check.PRECISION_RANGE[1]


@dataclass(frozen=True)
class NoiseARDState:
    """Linear-model ARD on Boston with ``n_noise`` pure-noise inputs appended (MacKay (27), §7).

    ``alphas``, ``gammas``, ``weights``, ``weight_sd``: per input (13 real, then the noise inputs),
    the evidence's α_c, γ_c, w_MP and √(A⁻¹)_ii; ``one_alpha_weights``: w_MP with one α for all;
    test errors of both (standardised targets) and, for reference, both without noise inputs.
    """

    n_noise: int
    seed: int
    names: tuple
    alphas: np.ndarray
    gammas: np.ndarray
    weights: np.ndarray
    weight_sd: np.ndarray
    one_alpha_weights: np.ndarray
    test_mse: float
    one_alpha_test_mse: float
    clean_test_mse: float
    clean_one_alpha_test_mse: float

    @property
    def switched_off(self) -> np.ndarray:
        """Inputs whose α_c ran to the limit (their weights are held at ≈ 0)."""
        return self.alphas >= ARD_LIMIT

    @property
    def n_real(self) -> int:
        return len(self.names) - self.n_noise


def _fit_noise_inputs(n_noise: int, seed: int):
    """(ARD state, one-α state, their test MSEs) at the stored hyperparameters."""
    stored = NI.load_result()
    config = NI.NoiseInputsConfig(**stored["config"])
    row = stored["fits"][str(seed)][n_noise]
    ard = NI.posterior_at(n_noise, seed, row["alphas"], row["beta"], config)
    one = NI.posterior_at(n_noise, seed, row["one_alpha"]["alpha"], row["one_alpha"]["beta"], config)
    _, Xte = NI.design(n_noise, seed, config)
    y_test = NI.boston_split(config)[4]
    return (ard, one, float(np.mean((Xte @ ard.mean - y_test) ** 2)),
            float(np.mean((Xte @ one.mean - y_test) ** 2)))


#: the fits by (n_noise, seed), kept by the panel machine's memo (a slider step back is free)
_NOISE_FITS = LRUMemo(512)


def _noise_fit(n_noise: int, seed: int):
    """:func:`_fit_noise_inputs`, memoised by (n_noise, seed)."""
    return _NOISE_FITS.get((n_noise, seed), lambda: _fit_noise_inputs(n_noise, seed))


def noise_ard(n_noise: int = 3, seed: int = 0) -> NoiseARDState:
    """ARD (one α per input, MacKay (27)) of a linear model on Boston with ``n_noise`` noise inputs.

    A linear model, not the network of the stored study, and its hyperparameters precomputed for
    every setting (``figures/ard_noise_inputs.json``, :mod:`ensemble_lib.studies.noise_inputs`): from
    some starts MacKay's iteration needs thousands of steps, too many for a slider. The weights,
    error bars and test errors at those α_c, β are one Cholesky factorisation each. Beside it the
    same model with one α. ``n_noise`` in [0, 30], ``seed`` (of the noise) in [0, 4].
    """
    stored = NI.load_result()
    cfg = stored["config"]
    n_noise = check.integer("n_noise", n_noise, low=0, high=cfg["n_max"])
    seed = check.integer("seed", seed, low=0, high=cfg["n_seeds"] - 1)
    names = NI.boston_split()[0] + tuple(f"n{j + 1}" for j in range(n_noise))
    ard, one, mse, mse1 = _noise_fit(n_noise, seed)
    _, _, mse0, mse01 = _noise_fit(0, seed)
    return NoiseARDState(n_noise=n_noise, seed=seed, names=names, alphas=ard.alphas.copy(),
                         gammas=ard.gammas.copy(), weights=ard.mean.copy(), weight_sd=np.sqrt(np.diag(ard.cov)),
                         one_alpha_weights=one.mean.copy(), test_mse=mse, one_alpha_test_mse=mse1,
                         clean_test_mse=mse0, clean_one_alpha_test_mse=mse01)


#: the most noise inputs the panel appends (the stored table's n_max)
NOISE_MAX = 30


def _feature_names() -> tuple:
    return NI.boston_split()[0]


def noise_summary(ns: tuple = (1, 3, 5, 10, 20, 30)) -> list[dict]:
    """Per number of noise inputs, over the stored noise seeds: the share of noise inputs switched off,
    how many seeds have every noise α_c above every real α_c (strictly), ARD's test MSE beside one α's."""
    ns = [check.integer("ns", n, low=0, high=NOISE_MAX) for n in check.sequence("ns", ns)]
    if not ns:
        raise ValueError(f"ns must be a non-empty sequence of integers in [0, {NOISE_MAX}], got none")
    seeds = range(NI.load_result()["config"]["n_seeds"])
    out = []
    for n in ns:
        rows = [noise_ard(n, s) for s in seeds]
        out.append({"n_noise": n, "n_seeds": len(rows),
                    "off": [float(np.mean(r.switched_off[r.n_real:])) for r in rows],
                    "every_noise_above_every_real": sum(bool(r.alphas[r.n_real:].min() > r.alphas[:r.n_real].max())
                                                        for r in rows),
                    "real_off": sorted({nm for r in rows for nm, o in zip(r.names, r.switched_off[: r.n_real]) if o}),
                    "ard_mse": [r.test_mse for r in rows], "one_alpha_mse": [r.one_alpha_test_mse for r in rows]})
    return out


def format_noise_summary(rows) -> Table:
    """The table of :func:`noise_summary` (text; an HTML table in a notebook): per number of noise
    inputs, over the seeds, the range of the share switched off and of both test MSEs, and counts."""
    rows = check.records("rows", rows, ("n_noise", "n_seeds", "off", "ard_mse", "one_alpha_mse"))
    cells = []
    for r in rows:
        n = r["n_seeds"]
        better = sum(a < b for a, b in zip(r["ard_mse"], r["one_alpha_mse"]))
        cells.append((f"{r['n_noise']}", f"{min(r['off']):.0%}–{max(r['off']):.0%}",
                      f"{r['every_noise_above_every_real']} of {n}", f"{better} of {n}",
                      f"{min(r['ard_mse']):.3f}–{max(r['ard_mse']):.3f}",
                      f"{min(r['one_alpha_mse']):.3f}–{max(r['one_alpha_mse']):.3f}"))
    return Table(("noise", "switched off", "all noise > all real", "ARD better", "test MSE ARD", "test MSE one α"),
                 cells, caption="Pure-noise inputs appended to Boston, over the noise seeds (ranges: lowest–highest)")


def real_inputs_switched_off(rows) -> list[str]:
    """The real inputs switched off in some setting of :func:`noise_summary`'s rows."""
    rows = check.records("rows", rows, ("real_off",))
    return sorted({n for r in rows for n in r["real_off"]})


def story_exceptions(state: NoiseARDState) -> list[str]:
    """Readout lines for a setting that leaves the lesson's story ("most noise inputs are switched off";
    "ARD pays off as the noise grows": below one α's test error from 5 noise inputs on)."""
    lines = []
    noise_off = float(np.mean(state.switched_off[state.n_real:]))
    if noise_off <= 0.5:
        lines.append(f"Unlike most settings, only {noise_off:.0%} of the noise inputs are switched off here: "
                     "the rest keep a finite α_c, their weights within their error bars of zero.")
    if state.n_noise >= 5 and state.test_mse >= state.one_alpha_test_mse:
        lines.append("Here ARD's test error is not below one α's, against the lesson's 'from 5 on' "
                     "(which holds at every stored seed for 5, 10, 20 and 30 noise inputs).")
    return lines


#: ARD's colour and the input bars' looks: the same as lesson 6's ARD figure's
_ARD, _INPUT_BARS = ARD_COLOR, INPUT_BARS


class NoiseInputsPanel(FigurePanel):
    """ARD on Boston with a slider for the number of pure-noise inputs appended (MacKay §7).

    Top: each input's α_c (log scale; red: noise; the dashed line is the limit where an input is
    switched off); bottom: its weight w_MP ± 2 s.d. with ARD (dots), and with one α (crosses). The
    axes, ticks and labels never change (a slot per possible input), so only the bars and points
    are redrawn (:attr:`~ensemble_lib.ui.panel.FigurePanel.blit`)."""

    blit = True

    def __init__(self):
        fig, (ax1, ax2) = new_figure(8.8, 4.0, nrows=2, sharex=True)
        self.ax1, self.ax2 = ax1, ax2
        n_real = len(_feature_names())
        n_all = n_real + NOISE_MAX
        x = np.arange(n_all)
        self._bars = list(ax1.bar(x, np.ones(n_all), width=0.7, **_INPUT_BARS[False]))
        ax1.axhline(ARD_LIMIT, color="0.4", ls="--", lw=1)
        ax1.text(n_all - 0.5, ARD_LIMIT * 2.5, "limit: switched off", ha="right", va="bottom", fontsize=7,
                 color="0.3")
        ax1.set_yscale("log")
        ax1.set_ylim(1e-1, 1e10)
        ax1.set_ylabel("α_c")
        ax1.set_title("ARD of a linear model on Boston: one α per input (hatched, vermillion: pure noise)")
        self._errs = ax2.add_collection(LineCollection(np.zeros((n_all, 2, 2)), colors=_ARD, linewidths=1))
        self._pts = ax2.plot(x, np.zeros(n_all), "o", ms=3, color=_ARD, label="w_MP ± 2 s.d., ARD")[0]
        self._one = ax2.plot(x, np.zeros(n_all), "kx", ms=4, label="w_MP, one α")[0]
        ax2.axhline(0.0, color="0.6", lw=0.8)
        ax2.set_ylim(-0.8, 0.8)
        ax2.set_ylabel("weight")
        ax2.legend(fontsize=7, loc="upper right", ncol=2)
        ax2.set_xticks(x, list(_feature_names()) + [f"n{j + 1}" for j in range(NOISE_MAX)], rotation=90,
                       fontsize=7)
        ax2.set_xlim(-0.6, n_all - 0.4)
        s = FigurePanel.slider
        controls = {
            "n_noise": s("pure-noise inputs", 3, 1, NOISE_MAX),
            "seed": s("noise seed", 0, 0, 4),
        }
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        """The bars, the error bars and the two sets of points."""
        return [*self._bars, self._errs, self._pts, self._one]

    def compute(self, n_noise, seed):
        return noise_ard(n_noise, seed)

    def draw(self, state: NoiseARDState) -> None:
        n = len(state.names)
        for j, bar in enumerate(self._bars):
            bar.set_visible(j < n)
            if j < n:
                bar.set_height(state.alphas[j])
                bar.set(**_INPUT_BARS[j >= state.n_real])
        x = np.arange(n)
        lo, hi = state.weights - 2 * state.weight_sd, state.weights + 2 * state.weight_sd
        self._errs.set_segments(np.stack([np.column_stack([x, lo]), np.column_stack([x, hi])], axis=1))
        self._pts.set_data(x, state.weights)
        self._one.set_data(x, state.one_alpha_weights)

    def format_readout(self, state: NoiseARDState) -> str:
        off = state.switched_off
        real_off = [nm for nm, o in zip(state.names[: state.n_real], off[: state.n_real]) if o]
        noise_on = state.alphas[state.n_real:][~off[state.n_real:]]
        kept = (f"; the others have α_c = {', '.join(f'{a:.4g}' for a in np.sort(noise_on))}"
                if noise_on.size else "")
        text = (f"{int(np.sum(off[state.n_real:]))} of {state.n_noise} noise inputs switched off "
                f"(α_c at the limit 1e8){kept}; real inputs switched off too: "
                f"{', '.join(real_off) or 'none'}. Test MSE: ARD {state.test_mse:.4f}, one α "
                f"{state.one_alpha_test_mse:.4f} (without noise inputs: {state.clean_test_mse:.4f}, "
                f"{state.clean_one_alpha_test_mse:.4f}).")
        return "\n".join([text, *story_exceptions(state)])


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["ARD_LIMIT", "NOISE_MAX", "NoiseInputsPanel", "format_noise_summary", "noise_summary",
           "real_inputs_switched_off"]
