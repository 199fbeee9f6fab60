"""Lesson 8's neuron without a bias: the data as they arrive (Fig. 7), the exact posterior with Laplace's and
the KL Gaussians, their table and sentences, and :class:`NeuronPanel` (sliders N, α, seed)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...core import validation as check
from ...inference.classification_fits import ClassificationFits, fit_classification
from ...models.classification import MACKAY_FIG5_W, ClassificationData, LogisticPosterior
from ...models.toy import PosteriorGrid
from ...studies.classification_demo import NEURON_INPUT_SD, NEURON_N_MAX, fits_row, load_neuron_store, neuron_data
from ...ui.panel import FigurePanel
from ...ui.plotting import LABELS, new_figure, plot_gaussian_ellipses, style, update_gaussian_ellipses


#: Slider ranges of :class:`NeuronPanel` (every value gives finite results) and its start.
N_RANGE = (1, NEURON_N_MAX)
ALPHA_RANGE = (0.1, 10.0)
SEED_RANGE = (0, 4)
DEFAULTS = {"n": 10, "alpha": 1.0, "seed": 0}
#: inputs x ~ N(0, 2² I), labels from MacKay's Fig. 5 weights w = (0, 2)
INPUT_SD = NEURON_INPUT_SD
#: the weight-space window of the figures (fixed, as in MacKay's Fig. 7)
W_LIMITS = (-4.0, 4.0, -2.0, 6.0)
#: the input-space window of the data plot
X_LIMITS = (-6.0, 6.0, -6.0, 6.0)
#: numbers of data points in the static Fig. 7
ARRIVAL_NS = (1, 2, 5, 10, 30)
_FAMILIES = ("laplace", "diagonal", "full")
#: the best fit's boundary w_MP·x = 0 in the data plot: the best fit's line (STYLES' "map"), no markers
BOUNDARY_STYLE = style("map", marker="None", markevery=None, lw=1.2)
X_TITLE = "× t = 1, ○ t = 0, ··· w_MP·x = 0"


# ---------------------------------------------------------------------------
# The neuron without a bias: data as they arrive, the posterior and its Gaussians
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class NeuronState:
    """One setting of :class:`NeuronPanel`: the data, the exact posterior, each Gaussian
    (``gaussians[key] = (mean, cov)``) with its KL(Q‖P) and F[Q], ln P(D|α) exact and Laplace's,
    the normalised log density on the plot's grid, and whether the numbers came from the store."""

    n: int
    alpha: float
    seed: int
    data: ClassificationData
    posterior: LogisticPosterior
    gaussians: dict
    kls: dict
    bounds: dict
    log_evidence: float
    log_evidence_laplace: float
    grid: PosteriorGrid
    fits: ClassificationFits | None  # the live fit (None: the numbers came from the store)


def _plot_grid(post: LogisticPosterior, log_Z: float, n: int) -> PosteriorGrid:
    u = np.linspace(*W_LIMITS[:2], n)
    v = np.linspace(*W_LIMITS[2:], n)
    return PosteriorGrid(u, v, post.log_unnorm(np.stack(np.meshgrid(u, v), axis=-1)) - log_Z)


@lru_cache(maxsize=1)
def _neuron_store() -> dict:
    s = load_neuron_store()
    keys = zip(s["n"], s["log10_alpha"], s["seed"])
    index = {(int(n), float(a), int(seed)): i for i, (n, a, seed) in enumerate(keys)}
    return {"arrays": s, "index": index}


def _stored_row(n: int, alpha: float, seed: int) -> dict | None:
    """The stored fits of a setting on the panel's slider grid, else None."""
    la = float(np.round(2.0 * np.log10(alpha)) / 2.0)
    if abs(10.0 ** la - alpha) > 1e-9 * alpha:
        return None
    store = _neuron_store()
    i = store["index"].get((int(n), la, int(seed)))
    return None if i is None else {k: v[i] for k, v in store["arrays"].items()}


def neuron_state(n: int, alpha: float, seed: int, warm: ClassificationFits | None = None,
                 grid_n: int = 81, use_store: bool = True) -> NeuronState:
    """The exact posterior of the first ``n`` points of data set ``seed`` with prior precision α,
    Laplace's and the KL-optimal diagonal and full Gaussians, and the log density on
    :data:`W_LIMITS` (``grid_n`` × ``grid_n``).

    A setting on the panel's slider grid is read from the stored fits
    (:func:`~ensemble_lib.studies.classification_demo.compute_neuron_store`, re-derived by
    ``tests/studies/test_classification_demo.py``) unless ``use_store`` is false; any other is fitted
    here (:func:`~ensemble_lib.inference.classification_fits.fit_classification`, warm-started
    from ``warm``).
    """
    d = neuron_data(n, seed)
    alpha = check.precision("alpha", alpha)
    post = LogisticPosterior(d.x, d.t, alpha)
    row = _stored_row(n, alpha, seed) if use_store else None
    fits = None
    if row is None:
        fits = fit_classification(post, warm=warm)
        row = {**fits_row(fits), "log_Z": post.log_Z}
    gaussians = {k: (np.asarray(row[f"{k}_mean"]), np.asarray(row[f"{k}_cov"])) for k in _FAMILIES}
    return NeuronState(int(n), float(alpha), int(seed), d, post, gaussians,
                       {k: float(row[f"{k}_kl"]) for k in _FAMILIES}, {k: float(row[f"{k}_bound"]) for k in _FAMILIES},
                       float(row["log_evidence"]), float(row["log_evidence_laplace"]),
                       _plot_grid(post, float(row["log_Z"]), grid_n), fits)


def _weight_axes(ax):
    ax.set_xlim(*W_LIMITS[:2])
    ax.set_ylim(*W_LIMITS[2:])
    ax.set_xlabel("w₁")
    ax.set_ylabel("w₂")
    ax.set_aspect("equal")


def _input_axes(ax):
    ax.set_xlim(*X_LIMITS[:2])
    ax.set_ylim(*X_LIMITS[2:])
    ax.set_aspect("equal")
    ax.set_xlabel("x₁")
    ax.set_ylabel("x₂")
    ax.set_title(X_TITLE, fontsize=9)


def _posterior_contours(ax, grid: PosteriorGrid):
    """Contours of the exact posterior at Δ ln P = −½, −2, −9/2, −8 from its peak (grey)."""
    top = float(np.max(grid.log_density))
    levels = top + np.array([-8.0, -4.5, -2.0, -0.5])
    return [ax.contour(grid.u, grid.v, grid.log_density, levels=levels, colors="0.35", linewidths=0.8,
                       linestyles="solid")]


def plot_arrival(axes, seed: int = DEFAULTS["seed"], alpha: float = DEFAULTS["alpha"], ns=ARRIVAL_NS):
    """MacKay's Fig. 7: the exact posterior after each N of ``ns`` (one axes each), with the
    generating w = (0, 2) (+) and the full KL Gaussian's 1-σ ellipse; returns the artists."""
    artists = []
    for ax, n in zip(np.ravel(axes), ns):
        st = neuron_state(n, alpha, seed, grid_n=101)
        artists += _posterior_contours(ax, st.grid)
        artists += plot_gaussian_ellipses(ax, *st.gaussians["full"], n_sigmas=(1,), **style("full"))
        artists += ax.plot(*MACKAY_FIG5_W, "+", color="k", markersize=9)
        _weight_axes(ax)
        ax.set_title(f"N = {n}")
        ax.label_outer()
    return artists


def arrival_figure(seed: int = DEFAULTS["seed"], alpha: float = DEFAULTS["alpha"]):
    """A new Figure with :func:`plot_arrival`."""
    check.integer("seed", seed, low=0)
    check.precision("alpha", alpha)
    fig, axes = new_figure(11.0, 2.8, ncols=len(ARRIVAL_NS), sharey=True)
    plot_arrival(axes, seed, alpha)
    return fig


def plot_neuron(ax_x, ax_w, st: NeuronState):
    """The panel's picture of one state: the data and the best fit's boundary w_MP·x = 0 (left), the
    exact posterior with the 1- and 2-σ ellipses of each Gaussian (right); returns the artists."""
    x, t = st.data.x, st.data.t
    artists = [ax_x.scatter(*x[t == 1].T, marker="x", color="k", s=22),
               ax_x.scatter(*x[t == 0].T, marker="o", facecolors="none", edgecolors="k", s=22)]
    w = st.gaussians["laplace"][0]
    u = np.linspace(*X_LIMITS[:2], 2)
    artists += ax_x.plot(u, -w[0] * u / w[1], **BOUNDARY_STYLE)
    _input_axes(ax_x)
    artists += _posterior_contours(ax_w, st.grid)
    for key in _FAMILIES:
        artists += plot_gaussian_ellipses(ax_w, *st.gaussians[key], n_sigmas=(1, 2), **style(key),
                                          label=f"{LABELS[key]}: KL = {st.kls[key]:.4f}")
    artists += ax_w.plot(*MACKAY_FIG5_W, "+", color="k", markersize=9)
    _weight_axes(ax_w)
    ax_w.set_title("exact posterior P(w | D, α) and Gaussians", fontsize=9)
    ax_w.legend(loc="upper left", fontsize=7, framealpha=1.0)
    return artists


def neuron_figure(st: NeuronState | None = None):
    """A new Figure with :func:`plot_neuron` (default: the panel's start, :data:`DEFAULTS`)."""
    if st is not None:
        check.instance("st", st, NeuronState, "a NeuronState (neuron_state()) or None")
    st = neuron_state(**DEFAULTS) if st is None else st
    fig, (a, b) = new_figure(8.4, 3.9, ncols=2)
    plot_neuron(a, b, st)
    return fig


def fits_table(fits: NeuronState) -> str:
    """KL(Q‖P) and F[Q] of each Gaussian and ln P(D|α) exact vs Laplace, as fixed-width text."""
    check.instance("fits", fits, NeuronState, "a NeuronState (neuron_state())")
    lines = [f"{'Q':<14} {'KL(Q‖P)':>9} {'F[Q]':>10}"]
    for key in _FAMILIES:
        lines.append(f"{LABELS[key]:<14} {fits.kls[key]:>9.4f} {fits.bounds[key]:>10.4f}")
    lines.append(f"ln P(D|α): exact {fits.log_evidence:.4f}, Laplace {fits.log_evidence_laplace:.4f}, "
                 f"best bound F {fits.bounds['full']:.4f}")
    return "\n".join(lines)


def kl_ranking(fits: NeuronState) -> str:
    """The Gaussians from the smallest KL(Q‖P) to the largest, as a sentence fragment."""
    order = sorted(_FAMILIES, key=lambda k: fits.kls[k])
    return " < ".join(f"{LABELS[k]} ({fits.kls[k]:.4f})" for k in order)


def evidence_sentence(fits: NeuronState) -> str:
    """ln P(D|α) exact vs Laplace vs the best bound, in words (Markdown), from the numbers."""
    check.instance("fits", fits, NeuronState, "a NeuronState (neuron_state())")
    lap, ex, F = fits.log_evidence_laplace, fits.log_evidence, fits.bounds["full"]
    side = "below" if lap < ex else "above"
    return (f"The exact ln P(D|α) is {ex:.4f}. Laplace's approximation (MacKay (20)) is {lap:.4f}, "
            f"{abs(ex - lap):.4f} {side} it; the full Gaussian's bound F is {F:.4f}, {ex - F:.4f} below it "
            f"(that gap is its KL, B&B (16)). Ranked by KL(Q‖P): {kl_ranking(fits)}.")


def _controls():
    slider = FigurePanel.slider
    return {
        "n": slider("data points N", DEFAULTS["n"], *N_RANGE),
        "alpha": slider("prior precision α", DEFAULTS["alpha"], *ALPHA_RANGE, step=0.5, log=True),
        "seed": slider("data seed", DEFAULTS["seed"], *SEED_RANGE),
    }


class NeuronPanel(FigurePanel):
    """Sliders N, α and seed: the data (left) and the exact posterior of MacKay's neuron with the
    Laplace, diagonal-KL and full-KL Gaussians (right); KL(Q‖P), F[Q] and ln P(D|α) live."""

    image_format = "jpeg"
    #: axes, ticks and legend are fixed (the windows do not follow the data): drawn once
    blit = True
    MEMO_SIZE = 256
    #: the posterior's contour grid (GRID_N × GRID_N over :data:`W_LIMITS`)
    GRID_N = 61

    def __init__(self):
        # 580 × 310 px with the readout beside it: controls, figure and readout fit a 1366 × 768 screen
        fig, (ax_x, ax_w) = new_figure(5.8, 3.1, ncols=2, width_ratios=[1, 1])
        self.ax_x, self.ax_w = ax_x, ax_w
        _input_axes(ax_x)
        self._ones = ax_x.scatter([], [], marker="x", color="k", s=22)
        self._zeros = ax_x.scatter([], [], marker="o", facecolors="none", edgecolors="k", s=22)
        self._boundary, = ax_x.plot([], [], **BOUNDARY_STYLE, label="w_MP·x = 0")
        _weight_axes(ax_w)
        ax_w.set_title("exact posterior and Gaussians", fontsize=9)
        ax_w.plot(*MACKAY_FIG5_W, "+", color="k", markersize=9)
        self._contours = []
        self._ellipses = {key: plot_gaussian_ellipses(ax_w, [0.0, 0.0], np.eye(2), n_sigmas=(1, 2),
                                                      label=LABELS[key], **style(key))
                          for key in _FAMILIES}
        ax_w.legend(loc="upper left", fontsize=7, framealpha=1.0)
        super().__init__(_controls(), fig)

    def animated_artists(self) -> list:
        return [self._ones, self._zeros, self._boundary, *self._contours,
                *(a for arts in self._ellipses.values() for a in arts)]

    def overlay_artists(self) -> list:
        return [self.ax_w.get_legend()]

    def compute(self, n, alpha, seed):
        key = repr((n, alpha, seed))
        state = self.memo(key, lambda: neuron_state(n, alpha, seed, warm=self.__dict__.get("_warm"),
                                                    grid_n=self.GRID_N))
        if state.fits is not None:
            self._warm = state.fits
        return state

    def draw(self, st: NeuronState) -> None:
        x, t = st.data.x, st.data.t
        self._ones.set_offsets(x[t == 1] if np.any(t == 1) else np.empty((0, 2)))
        self._zeros.set_offsets(x[t == 0] if np.any(t == 0) else np.empty((0, 2)))
        w = st.gaussians["laplace"][0]
        if abs(w[1]) >= abs(w[0]):
            u = np.array(X_LIMITS[:2])
            self._boundary.set_data(u, -w[0] * u / w[1])
        else:
            v = np.array(X_LIMITS[2:])
            self._boundary.set_data(-w[1] * v / w[0], v)
        self._contours = self.replace_artists(self._contours, lambda: _posterior_contours(self.ax_w, st.grid))
        for key in _FAMILIES:
            update_gaussian_ellipses(self._ellipses[key], *st.gaussians[key], n_sigmas=(1, 2))

    def format_readout(self, st: NeuronState) -> str:
        f = st
        rows = [(LABELS[k], f"{f.kls[k]:.4f}", f"{f.bounds[k]:.4f}") for k in _FAMILIES]
        table = self.readout_table(rows, header=("Q", "KL(Q‖P)", "bound F[Q]"))
        return (table + f"ln P(D | α): exact {f.log_evidence:.4f} · Laplace {f.log_evidence_laplace:.4f}"
                f" · F (full) {f.bounds['full']:.4f}<br>smallest KL: {LABELS[min(_FAMILIES, key=f.kls.get)]}"
                + ("" if f.fits is None else " (fitted now: this setting is off the stored slider grid)"))


__all__ = ["DEFAULTS", "NeuronPanel", "arrival_figure", "evidence_sentence", "fits_table", "neuron_figure",
           "neuron_state"]
