"""Lesson 8's Fig. 9: the moderated outputs of MacKay's neuron with a bias (the stored exact predictive,
:mod:`ensemble_lib.studies.classification_demo`) and :class:`ModeratedPanel`, a test point moved along the
best fit's 0.9 contour away from the data."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...core import validation as check
from ...inference.classification_fits import CONTOUR_LEVELS, gaussian_predictive
from ...models.classification import logistic, moderated_output, predictive_probability
from ...studies.classification_demo import FAMILIES, FIG9, contour_path, load_store
from ...ui.panel import FigurePanel
from ...ui.plotting import COLORS, STYLE_ALIASES, STYLES, new_figure, style


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


__all__ = ["ModeratedPanel", "fig9_figure", "fig9_sentence", "fig9_state", "fig9_table"]
