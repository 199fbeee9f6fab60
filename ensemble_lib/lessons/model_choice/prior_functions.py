"""Lesson 6, §6: priors over functions (MacKay "Probable networks" §8).

:func:`prior_functions` draws functions of a 1-input network from the prior (26) with layer
classes, beside the ±2 s.d. band of :func:`~ensemble_lib.inference.function_prior.prior_output_sd`;
:class:`PriorFunctionsPanel` puts sliders on H and each class's width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core import validation as check
from ...inference.ard import network_classes, sample_prior_functions
from ...inference.function_prior import prior_output_sd
from ...models.network import add_bias
from ...ui.panel import FigurePanel
from ...ui.plotting import new_figure

X_PRIOR = np.linspace(-5.0, 5.0, 201)
N_FUNCTIONS = 6
#: Ranges of the log sliders (steps of 0.05 in log10), chosen so that the lesson's values lie on the
#: grid a front end snaps to: the widths' 2 (2·10^(−1.3) to 2·10^(1.3)) and the output scale's 1.
WIDTH_RANGE = (2.0 * 10**-1.3, 2.0 * 10**1.3)
SCALE_RANGE = (0.1, 10.0)


@dataclass(frozen=True)
class PriorState:
    x: np.ndarray
    f: np.ndarray
    sd: np.ndarray
    H: int
    sd_in: float
    sd_bias: float
    sd_out: float
    scale_out: bool


def prior_functions(H, sd_in, sd_bias, sd_out, scale_out: bool = True, seed: int = 0) -> PriorState:
    """``N_FUNCTIONS`` functions of a 1-input network drawn from the prior (26) (layer classes).

    ``sd_out`` is σ_out·√H if ``scale_out`` (MacKay §8: the output scale stays fixed as H grows),
    else σ_out itself (the output grows like √H).
    """
    H = check.integer("H", H, low=1, high=2000)
    sd_in = check.positive("sd_in", sd_in)
    sd_bias = check.positive("sd_bias", sd_bias)
    sd_out = check.positive("sd_out", sd_out)
    scale_out = check.flag("scale_out", scale_out)
    sigma_out = sd_out / math.sqrt(H) if scale_out else sd_out
    alphas = [1.0 / sd_in**2, 1.0 / sd_bias**2, 1.0 / sigma_out**2]
    X = add_bias(X_PRIOR[:, None])
    f = sample_prior_functions(X, H, network_classes(2, H, "layers"), alphas, N_FUNCTIONS,
                               np.random.default_rng(check.integer("seed", seed, low=0)))
    sd = prior_output_sd(X_PRIOR, sd_in, sd_bias, sigma_out * math.sqrt(H))
    return PriorState(X_PRIOR, f, sd, H, sd_in, sd_bias, sd_out, scale_out)


class PriorFunctionsPanel(FigurePanel):
    """Sliders for H and each class's prior s.d. (input weights, hidden biases, output weights):
    functions drawn from the prior, and the ±2 s.d. band of the prior over functions."""

    #: a step redraws the functions, the band and the title; the frame and ticks only when the range
    #: (which follows the functions in nice steps: :meth:`follow_range`) changes
    blit = True

    def __init__(self):
        fig, ax = new_figure(8.0, 4.0)
        self.ax = ax
        self._lines = [ax.plot([], [], lw=1.2)[0] for _ in range(N_FUNCTIONS)]
        self._band = []
        ax.set_xlim(X_PRIOR[0], X_PRIOR[-1])
        ax.set_xlabel("input x")
        ax.set_ylabel("f(x)")
        ax.set_title("H = 1000: functions from the prior")
        # the panel lays its figure out once: lay it out for the widest y tick labels it will show
        # (the smallest output scale, ticks like −0.10), so that f(x) stays inside at every setting
        ax.set_ylim(-0.11, 0.11)
        s = FigurePanel.slider
        controls = {
            "H": s("hidden units H", 10, 1, 400),
            "sd_in": s("σ_in (input weights)", 2.0, *WIDTH_RANGE, step=0.05, log=True),
            "sd_bias": s("σ_bias (hidden biases)", 2.0, *WIDTH_RANGE, step=0.05, log=True),
            "sd_out": s("output scale (σ_out √H if scaled)", 1.0, *SCALE_RANGE, step=0.05, log=True),
            "scale_out": __import__("ipywidgets").Checkbox(value=True, description="σ_out ∝ 1/√H"),
            "seed": s("seed", 0, 0, 99),
        }
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return [*self._band, *self._lines, self.ax.title]

    def background_key(self):
        """The static parts (frame, ticks, labels) follow the y range alone."""
        return self.ax.get_ylim()

    def compute(self, H, sd_in, sd_bias, sd_out, scale_out, seed):
        return prior_functions(H, sd_in, sd_bias, sd_out, scale_out, seed)

    def draw(self, state: PriorState) -> None:
        for line, f in zip(self._lines, state.f):
            line.set_data(state.x, f)
        self._band = self.replace_artists(self._band, lambda: [self.ax.fill_between(
            state.x, -2 * state.sd, 2 * state.sd, color="0.85", zorder=0, label="±2 s.d. of the prior")])
        lim = 1.05 * max(float(np.max(np.abs(state.f))), float(2 * state.sd.max()))
        self.follow_range(self.ax, y=(-lim, lim))
        self.ax.set_title(f"H = {state.H}: functions from the prior")

    def format_readout(self, state: PriorState) -> str:
        mid, at3 = len(state.x) // 2, int(np.argmin(np.abs(state.x - 3.0)))
        mc = float(np.std(state.f[:, mid]))
        return (f"prior s.d. of f(0) = {state.sd[mid]:.4f}, of f(3) = {state.sd[at3]:.4f} (arcsine kernel); "
                f"the {N_FUNCTIONS} draws' s.d. at x = 0: {mc:.4f}. "
                f"σ_out = {state.sd_out / math.sqrt(state.H) if state.scale_out else state.sd_out:.4g}"
                + ("" if state.scale_out or state.H == 1 else
                   f"\nThe box is unticked, so σ_out stays fixed and the band is √H = {math.sqrt(state.H):.3g} times "
                   "as wide as with σ_out ∝ 1/√H: it grows with H, unlike the lesson's fixed band."))


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["N_FUNCTIONS", "X_PRIOR", "PriorFunctionsPanel"]
