"""Lesson 8: classification with an exact answer — MacKay's single neuron (MacKay §2.3–2.5, §5.4).

The sequel of lesson 1 for a classifier: the exact posterior of MacKay's neuron (MacKay (17), two
weights, no bias, prior N(0, I/α)) on a grid with its normaliser, Laplace's Gaussian and the
KL-optimal diagonal and full Gaussians on it (B&B (9)–(20)), and the predictive probabilities of
MacKay's Fig. 9 (a neuron with a bias): best fit, exact, MacKay's moderated output and each
Gaussian's.

* :func:`neuron_data` / :func:`neuron_state` — the data as they arrive (the first ``n`` of one
  draw) and the posterior with its three Gaussians;
* :func:`plot_arrival` — Fig. 7: the posterior concentrating as data arrive;
* :class:`NeuronPanel` — sliders N, α, seed; contours, ellipses, KL and F live;
* :func:`fig9_state`, :func:`plot_fig9` and :class:`ModeratedPanel` — Fig. 9's contours (stored
  exact predictive, :mod:`ensemble_lib.studies.classification_demo`) and a test point moved along
  the best fit's 0.9 contour away from the data;
* :data:`EXERCISES` — the lesson's four exercises (:mod:`ensemble_lib.ui.exercises`);
* :func:`write_figures` — ``figures/classification_fig7.png`` and ``classification_fig9.png``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.classification_fits import (CONTOUR_LEVELS, ClassificationFits, fit_classification,
                                             gaussian_predictive)
from ..models.classification import (MACKAY_FIG5_W, ClassificationData, LogisticPosterior,
                                     logistic, moderated_output, predictive_probability, softmax_log_likelihood)
from ..models.toy import PosteriorGrid
from ..studies.classification_demo import (FAMILIES, FIG9, NEURON_INPUT_SD, NEURON_N_MAX, contour_path, fits_row,
                                           load_neuron_store, load_store, neuron_data)
from ..ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real
from ..ui.panel import FigurePanel
from ..ui.plotting import (COLORS, LABELS, STYLE_ALIASES, STYLES, new_figure, plot_gaussian_ellipses, save_figure,
                           style, update_gaussian_ellipses)

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
    ax_x.set_xlim(*X_LIMITS[:2])
    ax_x.set_ylim(*X_LIMITS[2:])
    ax_x.set_aspect("equal")
    ax_x.set_xlabel("x₁")
    ax_x.set_ylabel("x₂")
    ax_x.set_title(X_TITLE, fontsize=9)
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
        ax_x.set_xlim(*X_LIMITS[:2])
        ax_x.set_ylim(*X_LIMITS[2:])
        ax_x.set_aspect("equal")
        ax_x.set_xlabel("x₁")
        ax_x.set_ylabel("x₂")
        ax_x.set_title(X_TITLE, fontsize=9)
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


# ---------------------------------------------------------------------------
# Fig. 9: moderated outputs of the neuron with a bias
# ---------------------------------------------------------------------------

#: the methods compared at a test point, in the readout's order
PREDICTIVES = ("best_fit", "exact", "moderated", "laplace", "diagonal", "full")
PREDICTIVE_LABELS = {"best_fit": "best fit σ(a_MP)", "exact": "exact (grid posterior)",
                     "moderated": "MacKay ψ = σ(κ(s) a_MP)", "laplace": "Laplace Gaussian, by quadrature",
                     "diagonal": "KL diagonal Gaussian", "full": "KL full Gaussian"}
#: the same, short, for the panel's readout beside its figure
SHORT_LABELS = {"best_fit": "best fit", "exact": "exact", "moderated": "MacKay ψ", "laplace": "Laplace (quadr.)",
                "diagonal": "KL diagonal", "full": "KL full"}
#: the panel's distances from A (those the study stored) and B's
DISTANCE_STEP = 0.25
B_DISTANCE = 6.0


@dataclass(frozen=True)
class Fig9State:
    """Fig. 9's stored data, Gaussians and exact predictive, and every predictive on the plane and
    along the test path (``maps[name]`` (41, 41), ``path[name]`` (M,), names :data:`PREDICTIVES`)."""

    x: np.ndarray
    t: np.ndarray
    alpha: float
    x1: np.ndarray
    x2: np.ndarray
    distances: np.ndarray
    points: np.ndarray
    A: np.ndarray
    gaussians: dict
    maps: dict
    path: dict
    log_evidence: float


def _predictives(gaussians: dict, X: np.ndarray) -> dict:
    lap_mean, lap_cov = gaussians["laplace"]
    a_mp = X @ lap_mean
    s2 = np.maximum(np.einsum("mi,ij,mj->m", X, lap_cov, X), 0.0)
    return {"best_fit": logistic(a_mp), "moderated": moderated_output(a_mp, s2),
            "laplace": predictive_probability(a_mp, s2),
            **{k: gaussian_predictive(*gaussians[k], X) for k in ("diagonal", "full")}}


@lru_cache(maxsize=1)
def fig9_state() -> Fig9State:
    """Fig. 9 from the stored study (:mod:`ensemble_lib.studies.classification_demo`)."""
    s = load_store()
    gaussians = {k: (s[f"{k}_mean"], s[f"{k}_cov"]) for k in FAMILIES}
    X1, X2 = np.meshgrid(s["x1"], s["x2"])
    plane = np.column_stack([X1.ravel(), X2.ravel(), np.full(X1.size, FIG9["bias"])])
    maps = {k: v.reshape(X1.shape) for k, v in _predictives(gaussians, plane).items()}
    maps["exact"] = s["exact_map"]
    path = contour_path(gaussians["laplace"][0], s["x"], s["distances"])
    along = _predictives(gaussians, path.inputs())
    along["exact"] = s["exact_path"]
    return Fig9State(s["x"], s["t"], float(s["alpha"]), s["x1"], s["x2"], s["distances"], path.points, path.A,
                     gaussians, maps, along, float(s["log_evidence"]))


def predictive_at(state: Fig9State, distance: float) -> dict:
    """Every predictive (:data:`PREDICTIVES`) at the stored test point ``distance`` from A."""
    distance = check.real("distance", distance)
    i = int(np.argmin(np.abs(state.distances - distance)))
    if abs(state.distances[i] - distance) > 1e-9:
        raise ValueError(f"distance must be one of the stored distances 0, {DISTANCE_STEP}, …, "
                         f"{state.distances[-1]:g} (a multiple of {DISTANCE_STEP}), got {distance}")
    return {k: float(state.path[k][i]) for k in PREDICTIVES}


def plot_fig9(ax_best, ax_bayes, state: Fig9State | None = None):
    """Fig. 9b (best fit, dashed, with the exact predictive, solid) and 9f (exact, solid, with MacKay's
    moderated output and the KL full Gaussian's predictive): 0.1/0.5/0.9 contours, the data, A and B."""
    st = fig9_state() if state is None else state
    artists = []
    # each method's colour and line style (:data:`STYLES`); a contour has no markers, so the KL full
    # Gaussian, solid like the exact one in the table, is dotted here (its legend entry has its marker)
    styles = {key: (STYLES[STYLE_ALIASES.get(key, key)]["color"], STYLES[STYLE_ALIASES.get(key, key)]["linestyle"])
              for key in ("best_fit", "exact", "moderated")}
    styles["full"] = (STYLES["full"]["color"], ":")
    for ax, keys, title in ((ax_best, ("best_fit", "exact"), "(b) best fit vs exact"),
                            (ax_bayes, ("exact", "moderated", "full"), "(f) exact vs approximations")):
        for key in keys:
            color, ls = styles[key]
            cs = ax.contour(st.x1, st.x2, st.maps[key], levels=CONTOUR_LEVELS, colors=color, linestyles=ls,
                            linewidths=1.1)
            artists.append(cs)
            artists += ax.plot([], [], **style(key, ls=ls, markevery=None), label=PREDICTIVE_LABELS[key])
        one = st.t == 1
        artists.append(ax.scatter(st.x[one, 0], st.x[one, 1], marker="x", color="k", s=20))
        artists.append(ax.scatter(st.x[~one, 0], st.x[~one, 1], marker="o", facecolors="none", edgecolors="k", s=20))
        B = st.points[-1]
        for label, p in (("A", st.A), ("B", B)):
            artists += ax.plot(*p, **style("test_point", markevery=None), markersize=5)
            artists.append(ax.annotate(label, p, xytext=(4, 4), textcoords="offset points", fontsize=10))
        ax.set_xlim(st.x1[0], st.x1[-1])
        ax.set_ylim(st.x2[0], st.x2[-1])
        ax.set_aspect("equal")
        ax.set_xlabel("x₁")
        ax.set_title(title, fontsize=9)
        ax.legend(loc="lower right", fontsize=7, framealpha=1.0)
    ax_best.set_ylabel("x₂")
    return artists


def fig9_figure():
    """A new Figure with :func:`plot_fig9`."""
    fig, (a, b) = new_figure(8.4, 4.0, ncols=2, sharey=True)
    plot_fig9(a, b)
    return fig


def fig9_table(state: Fig9State | None = None) -> str:
    """Every predictive at A and at B, and each one's miss from the exact, as fixed-width text."""
    if state is not None:
        check.instance("state", state, Fig9State, "a Fig9State (fig9_state()) or None")
    st = fig9_state() if state is None else state
    at_a, at_b = predictive_at(st, 0.0), predictive_at(st, B_DISTANCE)
    lines = [f"{'P(t = 1 | x, D)':<32} {'A':>7} {'B':>7} {'B − exact':>10}"]
    for k in PREDICTIVES:
        lines.append(f"{PREDICTIVE_LABELS[k]:<32} {at_a[k]:>7.4f} {at_b[k]:>7.4f} {at_b[k] - at_b['exact']:>+10.4f}")
    return "\n".join(lines)


def fig9_sentence(state: Fig9State | None = None) -> str:
    """What Fig. 9's numbers say at A and B, in words (Markdown), from the numbers."""
    if state is not None:
        check.instance("state", state, Fig9State, "a Fig9State (fig9_state()) or None")
    st = fig9_state() if state is None else state
    at_a, at_b = predictive_at(st, 0.0), predictive_at(st, B_DISTANCE)
    miss = {k: at_b[k] - at_b["exact"] for k in ("moderated", "diagonal", "full")}
    closest = min(miss, key=lambda k: abs(miss[k]))
    return (f"The best fit gives {at_a['best_fit']:.4f} at A and {at_b['best_fit']:.4f} at B. The exact predictive "
            f"gives {at_a['exact']:.4f} at A and {at_b['exact']:.4f} at B, {B_DISTANCE:g} further along the contour. "
            f"At B MacKay's moderated output is {at_b['moderated']:.4f} ({miss['moderated']:+.4f} from the exact), "
            f"the diagonal KL Gaussian's {at_b['diagonal']:.4f} ({miss['diagonal']:+.4f}) and the full KL Gaussian's "
            f"{at_b['full']:.4f} ({miss['full']:+.4f}): closest is {PREDICTIVE_LABELS[closest]}.")


class ModeratedPanel(FigurePanel):
    """A test point moved along the best fit's 0.9 contour away from the data (slider: its distance
    from A): the contours of Fig. 9 and, in the readout, every predictive there beside the exact."""

    #: a step redraws one marker; JPEG encodes the figure several times faster than PNG
    image_format = "jpeg"
    blit = True

    def __init__(self):
        self.fig9 = fig9_state()
        # 580 × 330 px with the readout beside it (a 1366 × 768 screen holds the whole panel)
        fig, (a, b) = new_figure(5.8, 3.3, ncols=2, sharey=True)
        plot_fig9(a, b, self.fig9)
        self._marks = [ax.plot([], [], "*", color=COLORS["svi"], markersize=13, markeredgecolor="k")[0]
                       for ax in (a, b)]
        controls = {"distance": self.slider("test point: distance from A along the 0.9 contour", 0.0, 0.0,
                                            float(self.fig9.distances[-1]), step=DISTANCE_STEP)}
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return list(self._marks)

    def compute(self, distance):
        st = self.fig9
        probs = predictive_at(st, distance)  # refuses a distance off the stored grid
        i = int(np.argmin(np.abs(st.distances - distance)))
        return ModeratedState(float(st.distances[i]), st.points[i].copy(), probs)

    def draw(self, st: "ModeratedState") -> None:
        for m in self._marks:
            m.set_data([st.point[0]], [st.point[1]])

    def format_readout(self, st: "ModeratedState") -> str:
        exact = st.probabilities["exact"]
        at_a, at_b = predictive_at(self.fig9, 0.0), predictive_at(self.fig9, B_DISTANCE)
        rows = [(SHORT_LABELS[k], f"{at_a[k]:.4f}", f"{st.probabilities[k]:.4f}",
                 "" if k == "exact" else f"{st.probabilities[k] - exact:+.4f}", f"{at_b[k]:.4f}")
                for k in PREDICTIVES]
        return (f"test point ★ x = ({st.point[0]:.2f}, {st.point[1]:.2f}), {st.distance:g} from A"
                + self.readout_table(rows, header=("P(t = 1 | x, D)", "A", "★", "★ − exact", "B")))


@dataclass(frozen=True)
class ModeratedState:
    """The test point of :class:`ModeratedPanel`, its distance from A and every predictive there."""

    distance: float
    point: np.ndarray
    probabilities: dict


# ---------------------------------------------------------------------------
# Several classes: the softmax (MacKay (16))
# ---------------------------------------------------------------------------

def softmax_demo(rng: np.random.Generator, n: int = 12, classes: int = 3) -> dict:
    """A softmax log likelihood (MacKay (16)) on random data: its value, its gradient beside central
    differences, and the two-class case beside the neuron's ln P(D|w) with w = W[:, 1] − W[:, 0]."""
    n = check.integer("n", n, low=1, high=10_000)
    classes = check.integer("classes", classes, low=2, high=100)
    rng = check.generator("rng", rng)
    x = rng.normal(size=(n, 2))
    W = rng.normal(size=(2, classes))
    T = np.eye(classes)[rng.integers(0, classes, size=n)]
    value, grad = softmax_log_likelihood(W, x, T)
    h = 1e-6
    numeric = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        e = np.zeros_like(W)
        e[idx] = h
        numeric[idx] = (softmax_log_likelihood(W + e, x, T)[0] - softmax_log_likelihood(W - e, x, T)[0]) / (2 * h)
    W2 = W[:, :2]
    T2 = np.eye(2)[rng.integers(0, 2, size=n)]
    two = softmax_log_likelihood(W2, x, T2)[0]
    neuron = float(LogisticPosterior(x, T2[:, 1], 1.0).log_likelihood(W2[:, 1] - W2[:, 0]))
    return {"value": value, "grad_error": float(np.max(np.abs(grad - numeric))), "two_class": two,
            "neuron": neuron}


# ---------------------------------------------------------------------------
# The exercises
# ---------------------------------------------------------------------------

_EX1 = {"n": 30, "alpha": 1.0, "seed": 0}


def _check_q1(ex1_panel, kl_full, laplace_below):
    if not isinstance(ex1_panel, NeuronPanel):
        raise AnswerError("ex1_panel must be the lesson's neuron panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    kl = real("kl_full", kl_full)
    below = boolean("laplace_below", laplace_below)
    v = ex1_panel.values()
    if v["n"] != _EX1["n"] or v["seed"] != _EX1["seed"] or not close(v["alpha"], _EX1["alpha"], 1e-6):
        return "set the panel to N = 30 (the slider's right end), α = 1 and data seed 0, and leave it there."
    f = ex1_panel.update()
    if abs(kl - f.kls["full"]) > 6e-5:  # the readout's 4 decimals
        return "read KL(Q‖P) of the full Gaussian (the 'KL, full' row of the readout), to 4 decimals."
    if below != (f.log_evidence_laplace < f.log_evidence):
        return "compare the readout's ln P(D | α): is Laplace's number smaller than the exact one?"
    return None


def _wrong_q1(ns):
    p = NeuronPanel()  # a panel of its own (at the start values): the lesson's stays as shown
    st = p.update()
    return {"ex1_panel": p, "kl_full": st.kls["laplace"], "laplace_below": False}


_S2_CASES = ((0.0,), (0.5,), (2.0,), (10.0,), (100.0,))


def _check_q2(kappa, p_moderated_B):
    got = function_values("kappa", function("kappa", kappa, "kappa(s2)"), _S2_CASES)
    # the library's ψ at a_MP = 1 is σ(κ(s)): its logit is κ, so the check does not restate the formula
    want = [float(np.log(p / (1.0 - p))) for p in (moderated_output(1.0, s2) for (s2,) in _S2_CASES)]
    if not all(close(g, w, 1e-9) for g, w in zip(got, want)):
        return ("κ(s) is the factor that multiplies a_MP inside σ; it is 1 at s² = 0 and shrinks like "
                "1/s for large s (MacKay §5.4, the probit with the sigmoid's slope at 0).")
    p = real("p_moderated_B", p_moderated_B)
    want_b = predictive_at(fig9_state(), B_DISTANCE)["moderated"]
    if not close(p, want_b, 1e-6):
        return ("p_moderated_B is σ(κ(s) a_MP) at B with a_MP = w_MP·(x_B, 1) and s² = (x_B, 1)ᵀ A⁻¹ (x_B, 1) "
                "from the Laplace Gaussian (fig9.gaussians['laplace']); the panel's readout at the slider's "
                "right end shows it.")
    return None


def _wrong_q2(ns):
    # κ without the square root, and the best fit's 0.9 at B
    return {"kappa": lambda s2: 1.0 / (1.0 + np.pi * s2 / 8.0), "p_moderated_B": 0.9}


def _check_q3(w_equiv):
    f = function("w_equiv", w_equiv, "w_equiv(W)")
    rng = np.random.default_rng(8)
    for _ in range(3):
        x = rng.normal(size=(7, 2))
        W = rng.normal(size=(2, 2))
        t = rng.integers(0, 2, size=7)
        w = np.asarray(f(W), dtype=float)
        if w.shape != (2,):
            raise AnswerError(f"w_equiv(W) must return 2 numbers (one weight per input), got shape {w.shape}")
        soft = softmax_log_likelihood(W, x, np.eye(2)[t])[0]
        if not close(float(LogisticPosterior(x, t, 1.0).log_likelihood(w)), soft, 1e-9):
            return ("with two classes y₁ = e^{a₁}/(e^{a₀} + e^{a₁}): divide top and bottom by e^{a₁} and "
                    "compare with σ(w·x); which combination of W's columns is w?")
    return None


def _wrong_q3(ns):
    return {"w_equiv": lambda W: np.asarray(W)[:, 1]}  # the class-1 column alone


#: exercise 4: the exact predictive's level the test point is moved to, and the approximations compared
_EX4_LEVEL = 0.7
_EX4_CHOICES = ("moderated", "laplace", "diagonal", "full")


def _check_q4(ex4_panel, d_07, closest):
    if not isinstance(ex4_panel, ModeratedPanel):
        raise AnswerError("ex4_panel must be the lesson's moderated-output panel (ex4_panel = mod_panel), "
                          f"got {type(ex4_panel).__name__}")
    d = real("d_07", d_07)
    if not isinstance(closest, str) or closest not in _EX4_CHOICES:
        raise AnswerError(f"closest must be one of {', '.join(repr(c) for c in _EX4_CHOICES)}, got {closest!r}")
    st = ex4_panel.fig9
    exact = [predictive_at(st, x)["exact"] for x in st.distances]
    below = [x for x, e in zip(st.distances, exact) if e < _EX4_LEVEL]
    want = float(below[0])
    at = ex4_panel.values()["distance"]
    if not close(at, want, 1e-9):
        if at < want:
            return ("move the test point further out: the readout's exact P(t = 1 | x, D) at ★ is still "
                    "0.7 or more there.")
        return ("move the test point back: the exact predictive at ★ is already below 0.7 one step "
                "nearer to A; leave it at the first stored distance where it is.")
    if not close(d, want, 1e-9):
        return "d_07 is the test point's distance from A, the number in the readout's first line."
    p = predictive_at(st, want)
    best = min(_EX4_CHOICES, key=lambda k: abs(p[k] - p["exact"]))
    if closest != best:
        return ("compare the column ★ − exact of the readout: the approximation with the smallest "
                "difference in size, whatever its sign, is the closest.")
    return None


def _wrong_q4(ns):
    # the slider's right end (B) and the approximation MacKay recommends
    p = ModeratedPanel()  # a panel of its own: the lesson's stays as shown
    p.set_values({"distance": B_DISTANCE})
    return {"ex4_panel": p, "d_07": B_DISTANCE, "closest": "moderated"}


#: lesson 8's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("08_classification.ipynb", (
    Exercise("q1", ("ex1_panel", "kl_full", "laplace_below"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("kappa", "p_moderated_B"), _check_q2, _wrong_q2),
    Exercise("q3", ("w_equiv",), _check_q3, _wrong_q3),
    Exercise("q4", ("ex4_panel", "d_07", "closest"), _check_q4, _wrong_q4, uses_panel="mod_panel"),
))


def write_figures(outdir) -> list[Path]:
    """Write Fig. 7 (``classification_fig7.png``, the lesson's main figure) and Fig. 9
    (``classification_fig9.png``) into ``outdir``."""
    outdir = Path(outdir)
    return [save_figure(arrival_figure(), outdir / "classification_fig7.png"),
            save_figure(fig9_figure(), outdir / "classification_fig9.png")]


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["DEFAULTS", "EXERCISES", "ModeratedPanel", "NeuronPanel", "arrival_figure", "evidence_sentence",
           "fig9_figure", "fig9_sentence", "fig9_state", "fig9_table", "fits_table", "neuron_figure",
           "neuron_state", "softmax_demo"]
