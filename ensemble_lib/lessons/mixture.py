"""Lesson 7: a mixture of Gaussians as Q — closing the two-mode gap on the toy (B&B §3, eq. 39).

* :func:`fit_mixtures` fits mixtures of K = 1 … 4 full-covariance Gaussians to one toy
  posterior twice — minimising KL(Q‖P) with the entropy by quadrature, and with its
  Bhattacharyya lower bound (:mod:`ensemble_lib.inference.mixture`); :func:`iter_mixtures`
  gives the same fits as they come (the panel streams them);
* :func:`format_ladder` is the table the notebook prints (KL, bound, the drop per K);
* :func:`mixture_kl_by_quadrature` is the notebook's independent check of a mixture's KL;
* :func:`plot_mixture` and :func:`plot_ladder` draw a mixture over the exact posterior and KL
  against K;
* :class:`MixtureExplorer` is the interactive panel (K, α, data seed): K redraws over a kept
  image of the rest; a new α or seed shows the exact posterior first, then the K = 1 fits and the
  ladders as they fill in;
* :func:`write_figures` writes ``figures/mixture_fits.png``.

Fits are shown as they come out; the posterior is symmetric under (u, v) → (−u, −v), so a
fit's mirror image has the same KL.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import permutations, product
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from ..core import validation as check
from ..inference.kl_fit import KLFit, KLFitWarning, kl_fit
from ..inference.mixture import (MixtureFit, MixtureLadder, MixtureParams, entropy_lower_bound, iter_mixture_ladder,
                                mirror_overlap, mixture_entropy, mixture_kl)
from ..models.network import NetworkPosterior, add_bias
from ..models.toy import PAPER_PRESET, ToyPosterior, kl_by_quadrature, make_posterior
from ..core.gaussian import gaussian_entropy
from ..ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, function_values, real
from ..ui.memo import LRUMemo
from ..ui.panel import FigurePanel
from ..ui.tables import Table
from ..ui.plotting import (COLORS, STYLES, new_figure, plot_gaussian_ellipses, plot_posterior_contours,
                           save_figure, style, update_gaussian_ellipses)

#: the largest K the lesson fits
K_MAX = 4
#: colours: the mixture fitted with the entropy by quadrature, and with its lower bound
COLOR_QUADRATURE = COLORS["mixture"]
COLOR_BOUND = COLORS["mixture_bound"]
#: slider ranges of the panel
ALPHA_RANGE = (0.01, 10.0)
SEED_RANGE = (0, 99)


@dataclass(frozen=True)
class MixtureComparison:
    """Mixture fits K = 1 … 4 to one toy posterior, with each entropy (or the first few, as they come)."""

    posterior: ToyPosterior
    single: KLFit  # the full-covariance single Gaussian (K = 1)
    quadrature: MixtureLadder  # fitted with the entropy by quadrature
    bound: MixtureLadder  # fitted with the entropy's lower bound
    K_max: int = K_MAX  # the ladders' length when complete

    @property
    def rho(self) -> float:
        """Overlap ∫√(QQ') of the single fit and its mirror image (:func:`mirror_overlap`)."""
        return mirror_overlap(self.single.mean, self.single.cov)

    @property
    def complete(self) -> bool:
        """Both ladders hold their K_max fits (:func:`iter_mixtures` yields incomplete ones first)."""
        return len(self.quadrature.fits) == len(self.bound.fits) == self.K_max


def iter_mixtures(post: ToyPosterior, K_max: int = K_MAX) -> Iterator[MixtureComparison]:
    """:func:`fit_mixtures` as it goes: the comparison after each fit.

    First both K = 1 fits (the single full-covariance Gaussian, refined as a one-component
    mixture: cheap), then K = 2, 3, … for each entropy in turn (quadrature first); the
    last item is complete and equals :func:`fit_mixtures`'s result. Arguments are checked
    at the call.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    K_max = check.integer("K_max", K_max, low=1, high=8)
    return _mixture_steps(post, K_max)


def _mixture_steps(post: ToyPosterior, K_max: int) -> Iterator[MixtureComparison]:
    single = kl_fit(post, "full")
    steps = {e: iter_mixture_ladder(post, K_max, e, single=single) for e in ("quadrature", "bound")}
    q, b = next(steps["quadrature"]), next(steps["bound"])
    yield MixtureComparison(post, single, q, b, K_max)
    for _ in range(1, K_max):
        q = next(steps["quadrature"])
        yield MixtureComparison(post, single, q, b, K_max)
        b = next(steps["bound"])
        yield MixtureComparison(post, single, q, b, K_max)


def fit_mixtures(post: ToyPosterior, K_max: int = K_MAX) -> MixtureComparison:
    """Fit K = 1 … ``K_max`` (1 to 8) mixtures to ``post`` with both entropies (warm-started ladders)."""
    check.instance("post", post, ToyPosterior)
    K_max = check.integer("K_max", K_max, low=1, high=8)
    comp = None
    for comp in iter_mixtures(post, K_max):
        pass
    return comp


def posterior_only(post: ToyPosterior, K_max: int = K_MAX) -> MixtureComparison:
    """A comparison with no fit yet (``single`` None, empty ladders): the panel's first frame for a
    new posterior, drawn before its fits (:meth:`MixtureExplorer.compute_stream`)."""
    return MixtureComparison(post, None, MixtureLadder(None, (), "quadrature"), MixtureLadder(None, (), "bound"),
                             K_max)


#: the comparisons of the latest 32 (α, seed): the notebook and its panel share them
_REMEMBERED = LRUMemo(32)


def forget_mixtures() -> None:
    """Forget every remembered comparison (:func:`mixtures_for`): the next ones are fitted afresh."""
    _REMEMBERED.clear()


def _lesson_posterior(alpha: float, seed: int) -> ToyPosterior:
    return make_posterior(seed, alpha, PAPER_PRESET["noise_sd"], PAPER_PRESET["n"])


def _key(alpha, seed) -> tuple[float, int]:
    return float(check.precision("alpha", alpha)), int(check.integer("seed", seed, low=0))


def mixtures_for(alpha: float = PAPER_PRESET["alpha"], seed: int = PAPER_PRESET["seed"]) -> MixtureComparison:
    """:func:`fit_mixtures` for the toy data of ``seed`` (N = 6, noise s.d. 0.1) and prior α.

    Remembered (the 32 latest): the notebook and its panel share one computation.
    """
    key = _key(alpha, seed)
    return _REMEMBERED.get(key, lambda: fit_mixtures(_lesson_posterior(*key)))


def format_ladder(comp: MixtureComparison) -> str:
    """The fits per K as a fixed-width table (4 decimals, for nbval).

    Columns: KL(Q‖P) of the quadrature-entropy fit and its drop from K − 1; for the
    bounded-entropy fit, its true KL and the KL its bound claims (``ln P(D) − bound``).
    """
    head = f"{'K':>2} {'KL exact-H fit':>15} {'drop':>7} {'KL bound-H fit':>15} {'its bound says':>15}"
    lines = [head, "-" * len(head)]
    prev = None
    for fq, fb in zip(comp.quadrature.fits, comp.bound.fits):
        drop = "" if prev is None else f"{prev - fq.kl:.4f}"
        lines.append(f"{fq.K:>2} {fq.kl:>15.4f} {drop:>7} {fb.kl:>15.4f} {fb.kl_bound:>15.4f}")
        prev = fq.kl
    return "\n".join(lines)


def ladder_table(comp: MixtureComparison) -> Table:
    """:func:`format_ladder`'s numbers as a :class:`Table` (HTML in the notebook)."""
    check.instance("comp", comp, MixtureComparison, "a MixtureComparison (fit_mixtures())")
    rows, prev = [], None
    for fq, fb in zip(comp.quadrature.fits, comp.bound.fits):
        rows.append((f"{fq.K}", f"{fq.kl:.4f}", "" if prev is None else f"{prev - fq.kl:.4f}",
                     f"{fb.kl:.4f}", f"{fb.kl_bound:.4f}"))
        prev = fq.kl
    return Table(("K", "KL exact-H fit", "drop", "KL bound-H fit", "its bound says"), tuple(rows), rule=True)


#: §2's example: two unit Gaussians at ±s e₁, for these s
ENTROPY_SEPARATIONS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)


def two_gaussians(s: float):
    """(weights, means, covariances) of ½N(−s e₁, I) + ½N(s e₁, I) (§2's example)."""
    return [0.5, 0.5], [[-s, 0.0], [s, 0.0]], [np.eye(2), np.eye(2)]


def entropy_table(separations=ENTROPY_SEPARATIONS) -> Table:
    """§2's table: H of ½N(−s e₁, I) + ½N(s e₁, I) by quadrature, its bound (39c), and H₁ + ln 2."""
    separations = check.finite_vector("separations", separations)
    if np.any(separations < 0):
        raise ValueError(f"separations must be finite numbers >= 0, got {separations}")
    far = gaussian_entropy(np.eye(2)) + np.log(2.0)
    rows = tuple((f"{s:g}", f"{mixture_entropy(*two_gaussians(s)):.6f}",
                  f"{entropy_lower_bound(*two_gaussians(s)):.6f}", f"{far:.6f}") for s in separations)
    return Table(("s", "H by quadrature", "lower bound", "H_1 + ln 2"), rows, rule=True)


def kl_check_table(post, comp: MixtureComparison) -> Table:
    """§4's table: each fit's KL from the library beside :func:`mixture_kl_by_quadrature`."""
    check.instance("post", post, ToyPosterior)
    check.instance("comp", comp, MixtureComparison, "a MixtureComparison (fit_mixtures())")
    rows = tuple((f"{f.K}", f"{f.kl:.6f}", f"{mixture_kl_by_quadrature(post, f):.6f}") for f in comp.quadrature.fits)
    return Table(("K", "KL (library)", "2-D Simpson"), rows, rule=True)


def symmetry_table(demo) -> Table:
    """§6's table: the bound F of the mixture of K symmetric images, its gain over K = 1, and ln K."""
    check.instance("demo", demo, NetworkSymmetryDemo, "a NetworkSymmetryDemo (network_symmetry_demo())")
    rows = tuple((f"{K}", f"{F:.5f}", f"{g:.5f}", f"{np.log(K):.5f}") for K, F, g in zip(demo.K, demo.bound, demo.gain))
    return Table(("K", "bound F (39c)", "gain", "ln K"), rows, rule=True)


def mixture_kl_by_quadrature(post, fit: MixtureFit, n: int = 301, z_max: float = 8.0) -> float:
    """The notebook's independent check of a mixture's KL(Q‖P): brute-force 2-D quadrature of
    ∫ Q ln(Q/P) (:func:`~ensemble_lib.models.toy.kl_by_quadrature`) on ``fit``'s components."""
    return kl_by_quadrature(post, fit.means, fit.covs, weights=fit.weights, n=n, z_max=z_max)


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------

def view_extent(comp: MixtureComparison, reach: float = 4.0) -> tuple[float, float, float, float]:
    """A box symmetric about the origin holding every fitted component's ±``reach`` s.d. (both modes)."""
    fits = comp.quadrature.fits + comp.bound.fits
    means = np.concatenate([f.means for f in fits])
    sds = np.sqrt(np.concatenate([[np.diag(C) for C in f.covs] for f in fits]))
    u, v = np.max(np.abs(means) + reach * sds, axis=0)
    return -u, u, -v, v


#: the panel's view: this many standard deviations of the single Gaussian (and its mirror image)
PANEL_REACH = 8.0


def panel_extent(comp: MixtureComparison) -> tuple[float, float, float, float]:
    """The panel's box: the single full-covariance fit's ±:data:`PANEL_REACH` s.d., symmetric.

    Known from the first fit, so the view stays put while the ladders fill in; wide enough for
    the components along each banana (``tests/lessons/test_mixture.py`` checks their 1-σ ellipses).
    """
    s = comp.single
    u, v = np.abs(s.mean) + PANEL_REACH * np.sqrt(np.diag(s.cov))
    return -u, u, -v, v


def plot_mixture(ax, fit: MixtureFit, color=COLOR_QUADRATURE, label=None, linestyle="-", marker="o", **line):
    """Each component's 1-σ ellipse (line width ∝ its weight) and mean; returns the artists.

    ``**style("mixture")`` gives the colour, line style and marker (other line keywords are ignored)."""
    artists = []
    for i, (p, m, C) in enumerate(zip(fit.weights, fit.means, fit.covs)):
        arts = plot_gaussian_ellipses(ax, m, C, n_sigmas=(1,), color=color, linestyle=linestyle, marker=marker,
                                      label=label if i == 0 else None, linewidth=0.8 + 4.0 * p)
        artists += arts
    return artists


#: the three curves of :func:`plot_ladder`: (ladder, attribute, format, keyword arguments)
LADDER_CURVES = (
    ("quadrature", "kl", "-", dict(marker=STYLES["mixture"]["marker"], color=COLOR_QUADRATURE,
                                   label="fit with H by quadrature")),
    ("bound", "kl", "--", dict(marker=STYLES["mixture_bound"]["marker"], color=COLOR_BOUND,
                               label="fit with H's lower bound: true KL")),
    ("bound", "kl_bound", ":", dict(marker=STYLES["mixture_bound"]["marker"], mfc="none", color=COLOR_BOUND,
                                    label="... the KL its bound claims")),
)
#: ... and its line at KL₁ − ln 2
LN2_LINE = dict(color="0.5", lw=0.8, ls="--", label="KL(K = 1) − ln 2")


def plot_ladder(ax, comp: MixtureComparison, K: int | None = None):
    """KL(Q‖P) against K for both fits, the bounded fit's claimed KL, and KL₁ − ln 2."""
    artists = []
    for which, attr, fmt, kw in LADDER_CURVES:
        ladder = getattr(comp, which)  # (a comparison still filling in: the fits so far)
        artists += ax.plot(np.arange(1, len(ladder.fits) + 1), getattr(ladder, attr), fmt, **kw)
    artists.append(ax.axhline(comp.quadrature.kl[0] - np.log(2.0), **LN2_LINE))
    if K is not None:
        artists.append(ax.axvline(K, color="0.7", lw=6, alpha=0.4, zorder=0))
    ax.set_xticks(np.arange(1, comp.K_max + 1))
    ax.set_xlabel("number of components K")
    ax.set_ylabel("KL(Q‖P)")
    return artists


# ---------------------------------------------------------------------------
# the panel
# ---------------------------------------------------------------------------

def _controls():
    slider = FigurePanel.slider
    return {
        "K": slider("components K", 2, 1, K_MAX),
        "alpha": slider("prior precision α", PAPER_PRESET["alpha"], *ALPHA_RANGE, step=0.05, log=True),
        "seed": slider("data seed", PAPER_PRESET["seed"], *SEED_RANGE),
    }


@dataclass(frozen=True)
class MixtureState:
    """The panel's state: the fits for (α, seed) (all, or the first few while they come) and the K shown."""

    comparison: MixtureComparison
    K: int

    @property
    def complete(self) -> bool:
        return self.comparison.complete

    @property
    def fit(self) -> MixtureFit:
        """The K-component fit with the entropy by quadrature (while fitting: the largest so far)."""
        fits = self.comparison.quadrature.fits
        return fits[min(self.K, len(fits)) - 1]

    @property
    def fit_bound(self) -> MixtureFit:
        """The K-component fit with the entropy's lower bound (while fitting: the largest so far)."""
        fits = self.comparison.bound.fits
        return fits[min(self.K, len(fits)) - 1]


class MixtureExplorer(FigurePanel):
    """Sliders for K, α and the data seed: the mixtures over the exact posterior, and KL against K.

    Left: the exact posterior's contours with the K components' 1-σ ellipses of the
    mixture fitted with the entropy by quadrature (solid) and with its lower bound
    (dashed). Right: KL(Q‖P) for K = 1 … 4 of both fits.

    Moving K only redraws the ellipses and the title over a kept image of the rest (the fits
    for an (α, seed) are computed once, for every K). A new α or seed streams (when moved
    in a browser): first the posterior with both K = 1 fits, then the ladders fill in, fit by
    fit, and the readout says "fitting K = … of 4" until they are complete
    (:meth:`compute_stream`). Shown as JPEG (mostly shaded contours).
    """

    image_format = "jpeg"
    blit = True  # the static parts are drawn again only for a new posterior (invalidate_background)

    def __init__(self):
        # 900 x 340 px: with its controls and table within a 1366 x 768 screen's notebook
        fig, axes = new_figure(9.0, 3.4, ncols=2, gridspec_kw={"width_ratios": [1.2, 1.0]})
        self.ax, self.ax_kl = axes
        self._contours = []
        self._mix = {"quadrature": [], "bound": []}  # the fits' ellipses, made after the layout pass
        self._posterior = None  # the posterior the contours, axes and KL range are drawn for
        # the layout is computed once: give it every label and title it will hold
        self.ax.set_xlabel("u (input-to-hidden weight)")
        self.ax.set_ylabel("v (hidden-to-output weight)")
        self._title = self.ax.set_title("K = 4: KL = 0.000 (bounded fit 0.000)")
        self.ax_kl.set_xlabel("number of components K")
        self.ax_kl.set_ylabel("KL(Q‖P)")
        self.ax_kl.set_xticks(np.arange(1, K_MAX + 1))
        self.ax_kl.set_xlim(0.7, K_MAX + 0.3)  # K = 1 … 4, also while the ladders fill in
        self._k_marker = self.ax_kl.axvline(2, color="0.7", lw=6, alpha=0.4, zorder=0)
        self._curves = [self.ax_kl.plot([], [], fmt, **kw)[0] for _, _, fmt, kw in LADDER_CURVES]
        self._ln2 = self.ax_kl.axhline(0.0, **LN2_LINE)
        self.ax_kl.legend(loc="upper right")
        # the legend of the left plot names the two fits
        handles = [Line2D([], [], **style("mixture", lw=2.5)), Line2D([], [], **style("mixture_bound", lw=2.5))]
        self.ax.legend(handles, ["H by quadrature", "H's lower bound"], loc="lower right")
        self.ax.set_ylim(-10.0, 10.0)  # tick labels as wide as any later ones, for the layout pass
        self.ax_kl.set_ylim(-10.0, 10.0)
        super().__init__(_controls(), fig)
        # pin the y labels where that one layout pass put them: narrower or wider tick labels
        # later never move them (off the canvas)
        renderer = fig.canvas.get_renderer()
        for ax in (self.ax, self.ax_kl):
            right = ax.yaxis.label.get_window_extent(renderer).x1
            ax.yaxis.set_label_coords(ax.transAxes.inverted().transform((right, 0.0))[0], 0.5)
        # each fit's K_MAX components (1-σ ellipse and mean), made once and moved (hidden if unused)
        for which, key in (("quadrature", "mixture"), ("bound", "mixture_bound")):
            for _ in range(K_MAX):
                arts = plot_gaussian_ellipses(self.ax, [0.0, 0.0], np.eye(2), n_sigmas=(1,), **style(key))
                for a in arts:
                    a.set_visible(False)
                self._mix[which].append(arts)

    def animated_artists(self) -> list:
        """What a step changes: the contours, the ellipses, the title, the KL curves and marks.

        They are drawn over a kept image of the rest (axes, ticks, legends), which is drawn again
        only when a new posterior needs other ranges (they follow it in nice steps:
        :meth:`follow_range`).
        """
        mix = [a for which in ("quadrature", "bound") for arts in self._mix[which] for a in arts]
        return [*self._contours, self._k_marker, self._ln2, *self._curves, *mix, self._title]

    def compute(self, K, alpha, seed):
        K = check.integer("K", K, low=1, high=K_MAX)
        return MixtureState(mixtures_for(alpha, seed), K)

    def compute_stream(self, K, alpha, seed) -> Iterator[MixtureState]:
        """The exact posterior alone, then the fits for (α, seed) as they come (:func:`iter_mixtures`);
        the last item is :meth:`compute`'s.

        The first item has no fit yet (:func:`posterior_only`): a new posterior's contours are shown
        before its first fit (about 20 ms) is made. Remembered fits (K moved alone, an (α, seed)
        seen before) come at once, complete.
        """
        K = check.integer("K", K, low=1, high=K_MAX)
        key = _key(alpha, seed)
        comp = _REMEMBERED.find(key)
        if comp is not None:
            yield MixtureState(comp, K)
            return
        post = _lesson_posterior(*key)
        yield MixtureState(posterior_only(post), K)  # the cheap part first: the exact posterior
        for comp in iter_mixtures(post):
            if comp.complete:
                comp = _REMEMBERED.put(key, comp)
            yield MixtureState(comp, K)

    def draw(self, state: MixtureState) -> None:
        comp = state.comparison
        fitted = bool(comp.quadrature.fits)
        if fitted and self._posterior is not comp.posterior:  # what stays while K moves and the ladders fill in
            u0, u1, v0, v1 = panel_extent(comp)
            self.follow_range(self.ax, (u0, u1), (v0, v1))
            kl1 = comp.quadrature.kl[0]  # every KL drawn lies in [0, KL₁]; KL₁ − ln 2 may be below 0
            lo, hi = min(0.0, kl1 - np.log(2.0)), kl1
            self.follow_range(self.ax_kl, y=(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)))
            self._ln2.set_ydata([kl1 - np.log(2.0)] * 2)
            self._posterior = comp.posterior
        # the contours of this posterior in the view shown (before its first fit: the view so far)
        view = (comp.posterior, *self.ax.get_xlim(), *self.ax.get_ylim())
        if view != self.__dict__.get("_contoured"):
            grid = comp.posterior.grid(n=101, extent=view[1:])
            self._contours = self.replace_artists(self._contours, lambda: plot_posterior_contours(self.ax, grid))
            self._contoured = view
        self._ln2.set_visible(fitted)
        for line, (which, attr, _, _) in zip(self._curves, LADDER_CURVES):
            ladder = getattr(comp, which)
            line.set_data(np.arange(1, len(ladder.fits) + 1), getattr(ladder, attr))
        self._k_marker.set_xdata([state.K, state.K])
        if not fitted:
            for arts in (*self._mix["quadrature"], *self._mix["bound"]):
                for a in arts:
                    a.set_visible(False)
            self._title.set_text(f"K = {state.K}: fitting… (shown: the exact posterior)")
            return
        for which, fit in (("quadrature", state.fit), ("bound", state.fit_bound)):  # as plot_mixture draws
            for i, arts in enumerate(self._mix[which]):
                if i < fit.K:
                    update_gaussian_ellipses(arts, fit.means[i], fit.covs[i], n_sigmas=(1,))
                    arts[0].set_linewidth(0.8 + 4.0 * fit.weights[i])
                for a in arts:
                    a.set_visible(i < fit.K)
        if state.complete:
            self._title.set_text(f"K = {state.K}: KL = {state.fit.kl:.3f} (bounded fit {state.fit_bound.kl:.3f})")
        else:
            self._title.set_text(f"K = {state.K}: fitting… (shown: K = {state.fit.K}, KL = {state.fit.kl:.3f})")

    def format_readout(self, state: MixtureState) -> str:
        comp = state.comparison
        rows = []
        q, b = comp.quadrature.fits, comp.bound.fits
        for K in range(1, comp.K_max + 1):
            mark = " ◀" if K == state.K else ""
            fq = f"{q[K - 1].kl:.4f}" if K <= len(q) else "…"
            fb = (f"{b[K - 1].kl:.4f}", f"{b[K - 1].kl_bound:.4f}", f"{b[K - 1].bound:.4f}") if K <= len(b) \
                else ("…",) * 3
            rows.append((f"{K}{mark}", fq, *fb))
        table = self.readout_table(rows, header=("K", "KL(Q‖P), H by quadrature", "KL(Q‖P), H bounded",
                                                 "KL the bound claims", "lower bound on ln P(D)"))
        note = ""
        if not state.complete:  # on the line under the table (the readout keeps its height)
            n = min(len(q), len(b)) + 1
            which = "H by quadrature" if len(q) < n else "H bounded"
            note = f"<b>fitting K = {n} of {comp.K_max}</b> ({which})…; "
        if not q:  # the posterior alone, before its first fit
            return table + note + f"ln P(D | α, β) = {comp.posterior.log_evidence:.4f} (exact); KL(K=1) − ln 2 = …"
        return (table + note + f"ln P(D | α, β) = {comp.posterior.log_evidence:.4f} (exact); "
                f"KL(K=1) − ln 2 = {comp.quadrature.kl[0] - np.log(2.0):.4f}; "
                f"mirror overlap ρ = {comp.rho:.2g}" + off_story_note(comp))


#: how far the K = 1 → 2 drop may differ from ln 2 before the readout says the panel left the story
LN2_TOLERANCE = 1e-4


def off_story_note(comp: MixtureComparison) -> str:
    """The readout's line when this posterior contradicts the lesson's "K = 1 → 2 drops the KL by
    ln 2" (modes that overlap or merge), else ``""``."""
    if len(comp.quadrature.fits) < 2:
        return ""
    drop = comp.quadrature.kl[0] - comp.quadrature.kl[1]
    if abs(drop - np.log(2.0)) <= LN2_TOLERANCE:
        return ""
    where = ("the single Gaussian sits between the modes, at the origin: they have merged into one"
             if np.allclose(comp.single.mean, 0.0, atol=1e-6) else
             "the single Gaussian's mirror image overlaps it")
    return (f"<br><b>Not the lesson's ln 2:</b> here K = 1 → 2 lowers the KL by {drop:.4f}, not "
            f"ln 2 = {np.log(2.0):.4f}, because {where} (ρ = {comp.rho:.2g}); §4's sandwich needs ρ ≈ 0, "
            "separate mirror modes, and a second component can only improve the shape.")


# ---------------------------------------------------------------------------
# the stretch: a network's symmetric modes (the entropy needs the bound there)
# ---------------------------------------------------------------------------

def network_demo_data(n: int = 16, seed: int = 3):
    """1-D data with a gap, the recipe of lesson 4's demo: x in [−2, −0.4] ∪ [0.6, 2], t = sin(1.5x) + N(0, 0.1²).

    (Written out here because lessons do not import each other.) Returns ``(x, t)``.
    """
    n = check.integer("n", n, low=4, high=1000)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = np.sort(np.concatenate([rng.uniform(-2.0, -0.4, n // 2), rng.uniform(0.6, 2.0, n - n // 2)]))
    return x, np.sin(1.5 * x) + 0.1 * rng.standard_normal(n)


def symmetry_maps(n_hidden: int, d: int) -> list[np.ndarray]:
    """The H!·2^H signed permutations S of a network's weights ``w = [u_1 … u_H, v]`` (B&B (1)).

    Swapping hidden units, or flipping the signs of a unit's input and output weights (σ is
    odd), leaves every output unchanged (MacKay, 'Probable networks' §4.1). Each map is a
    (k, k) matrix, the identity first.
    """
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=4)
    d = check.integer("d", d, low=1)
    k = n_hidden * (d + 1)
    maps = []
    for perm in permutations(range(n_hidden)):
        for signs in product((1.0, -1.0), repeat=n_hidden):
            S = np.zeros((k, k))
            for j, (i, sg) in enumerate(zip(perm, signs)):
                for a in range(d):
                    S[j * d + a, i * d + a] = sg  # u_j ← s_j u_{perm(j)}
                S[n_hidden * d + j, n_hidden * d + i] = sg  # v_j ← s_j v_{perm(j)}
            maps.append(S)
    return maps


@dataclass(frozen=True)
class NetworkSymmetryDemo:
    """The bound F of the single Gaussian and of mixtures of its symmetric images, on a network."""

    posterior: object  # NetworkPosterior
    single: KLFit
    K: tuple  # 1, 2, H!2^H ... mixture sizes
    bound: tuple  # the mixture's lower bound on ln P(D) (Bhattacharyya entropy), per K
    min_distance: float  # the smallest Bhattacharyya distance between two images

    @property
    def gain(self) -> np.ndarray:
        """``bound − bound(K = 1)``: ln K when the images are far apart."""
        return np.array(self.bound) - self.bound[0]


def network_symmetry_demo(n_hidden: int = 2, alpha: float = 1.0, beta: float = 100.0, n_starts: int = 2,
                          rng=None) -> NetworkSymmetryDemo:
    """The stretch goal: a mixture of the single Gaussian's symmetric images on the 1-D network.

    The full-covariance fit (best of ``n_starts`` random starts) and mixtures, with equal
    weights, of its images under the sign flip ``w → −w`` (K = 2), all sign flips (K = 2^H) and
    all signed permutations (K = H!·2^H); their bound F uses the Bhattacharyya entropy (39c).
    ``rng``: a ``numpy.random.Generator`` for the starts (default ``default_rng(0)``).
    """
    rng = np.random.default_rng(0) if rng is None else check.generator("rng", rng)
    n_starts = check.integer("n_starts", n_starts, low=1, high=50)
    x, t = network_demo_data()
    post = NetworkPosterior(add_bias(x[:, None]), t, n_hidden, alpha=alpha, beta=beta)
    single = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KLFitWarning)
        for _ in range(n_starts):
            start = [(0.5 * rng.standard_normal(post.dim), 0.01 * np.eye(post.dim))]
            fit = kl_fit(post, "full", init=start, symmetric=False)
            if single is None or fit.bound > single.bound:
                single = fit
    maps = symmetry_maps(n_hidden, 2)
    flips = [S for S in maps if np.allclose(np.abs(S), np.eye(post.dim))]
    groups = [maps[:1], [maps[0], -maps[0]], flips, maps]
    Ks, bounds = [], []
    for group in groups:
        if len(group) in Ks:
            continue
        means = np.array([S @ single.mean for S in group])
        covs = np.array([S @ single.cov @ S.T for S in group])
        w = np.full(len(group), 1.0 / len(group))
        params = MixtureParams(len(group), post.dim)
        energy = sum(wi * post.expected_energy(m, C).value for wi, m, C in zip(w, means, covs))
        bound = entropy_lower_bound(w, means, covs) - energy - post.log_normalisers
        Ks.append(params.K)
        bounds.append(float(bound))
    means = np.array([S @ single.mean for S in maps])
    covs = np.array([S @ single.cov @ S.T for S in maps])
    logdet = np.linalg.slogdet(covs)[1]
    dist = []
    for i in range(len(maps)):
        for j in range(i):  # Bhattacharyya distance D_ij of (39c)
            Cm, delta = 0.5 * (covs[i] + covs[j]), means[i] - means[j]
            dist.append(0.125 * delta @ np.linalg.solve(Cm, delta) + 0.5 * np.linalg.slogdet(Cm)[1]
                        - 0.25 * (logdet[i] + logdet[j]))
    return NetworkSymmetryDemo(post, single, tuple(Ks), tuple(bounds), float(min(dist)) if dist else np.inf)


# ---------------------------------------------------------------------------
# the exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: exercise 1's panel setting: the strongest prior of the slider and a data seed whose modes merge
EX1_ALPHA, EX1_SEED = ALPHA_RANGE[1], 24
#: exercise 2's noisier data: (seed, α) and the two noise s.d.s
EX2_POSTERIOR, EX2_NOISE = (25, 1.0), (0.3, 0.5)
#: exercise 4's width ratios λ
EX4_LAMBDAS = (1.0, 2.0, 5.0, 20.0)


def _check_q1(ex1_panel, drop_12, single_at_origin):
    if not isinstance(ex1_panel, MixtureExplorer):
        raise AnswerError("ex1_panel must be a MixtureExplorer (the lesson's panel, or one of your own), "
                          f"got {type(ex1_panel).__name__}")
    drop, origin = real("drop_12", drop_12), boolean("single_at_origin", single_at_origin)
    v, st = ex1_panel.values(), getattr(ex1_panel, "state", None)
    if not close(v["alpha"], EX1_ALPHA, 1e-6) or v["seed"] != EX1_SEED:
        return f"set the panel's α to {EX1_ALPHA:g} (the right end of its slider) and the data seed to {EX1_SEED}."
    if st is None or not st.complete or st.comparison.posterior.alpha != v["alpha"]:
        return "let the panel finish fitting (the readout stops saying 'fitting K = …'), then answer."
    comp = st.comparison
    if not close(drop, comp.quadrature.kl[0] - comp.quadrature.kl[1], 1e-3):
        return ("drop_12 is KL(K=1) − KL(K=2) from the readout's column 'H by quadrature'; compare it with "
                "ln 2 = 0.6931.")
    if origin != bool(np.allclose(comp.single.mean, 0.0, atol=1e-6)):
        return "look at the left plot at K = 1 (or the readout's ρ): where does the single Gaussian sit?"
    return None


def _wrong_q1(ns):
    panel = MixtureExplorer()  # a panel of its own: the lesson's stays as shown
    with panel.hold():
        panel.controls["alpha"].value, panel.controls["seed"].value = EX1_ALPHA, EX1_SEED
    return {"ex1_panel": panel, "drop_12": float(np.log(2.0)), "single_at_origin": False}  # the story's ln 2


_EX2_MEMO = LRUMemo(4)


def _ex2_fits(noise_sd: float) -> MixtureComparison:
    """K = 1, 2 fits to exercise 2's data with noise s.d. ``noise_sd`` (the check's reference, kept)."""
    return _EX2_MEMO.get(noise_sd, lambda: fit_mixtures(make_posterior(*EX2_POSTERIOR, noise_sd), K_max=2))


def _check_q2(rho_03, rho_05, drop_03, merged_05):
    r3, r5, d3 = real("rho_03", rho_03), real("rho_05", rho_05), real("drop_03", drop_03)
    merged = boolean("merged_05", merged_05)
    c3, c5 = (_ex2_fits(sd) for sd in EX2_NOISE)
    if not (close(r3, c3.rho, 1e-3) and close(r5, c5.rho, 1e-3)):
        return ("ρ is the overlap of the single fit and its mirror image: the comparison's .rho, or "
                "mirror_overlap(mean, cov) of kl_fit(post, 'full').")
    if not close(d3, c3.quadrature.kl[0] - c3.quadrature.kl[1], 1e-4):
        return "drop_03 is KL(K=1) − KL(K=2) of the fits with H by quadrature (.quadrature.kl) at s.d. 0.3."
    if merged != bool(np.allclose(c5.single.mean, 0.0, atol=1e-6)):
        return "print the single fit's mean at s.d. 0.5 (.single.mean): where is it, and what does ρ = 1 mean?"
    return None


def _wrong_q2(ns):
    c3, c5 = (_ex2_fits(sd) for sd in EX2_NOISE)
    return {"rho_03": c3.rho, "rho_05": c5.rho, "drop_03": float(np.log(2.0)), "merged_05": True}  # "exactly ln 2"


def _ex3_delta() -> tuple[float, float]:
    post = make_posterior(*EX2_POSTERIOR, EX2_NOISE[0])
    f = kl_fit(post, "full")
    kl2 = mixture_kl(post, [0.5, 0.5], [f.mean, -f.mean], [f.cov, f.cov])
    return kl2 - (f.kl - np.log(2.0)), mirror_overlap(f.mean, f.cov)


def _check_q3(delta_03, delta_le_rho):
    d, le = real("delta_03", delta_03), boolean("delta_le_rho", delta_le_rho)
    delta, rho = _ex3_delta()
    if not close(d, delta, 1e-6):
        return ("δ = KL(½Q₁ + ½Q₁′) − (KL₁ − ln 2), with Q₁ = kl_fit(post, 'full') and the mixture's KL from "
                "mixture_kl(post, [0.5, 0.5], [m, −m], [C, C]); it cannot be negative.")
    if le != bool(delta <= rho):
        return "compare your δ with ρ = mirror_overlap(m, C): does (39d) hold?"
    return None


def _wrong_q3(ns):
    delta, rho = _ex3_delta()
    return {"delta_03": -delta, "delta_le_rho": True}  # the difference the wrong way round


def _ex4_gaps() -> list[float]:
    out = []
    for lam in EX4_LAMBDAS:
        w, mu, Cs = [0.5, 0.5], [[0.0, 0.0], [0.0, 0.0]], [np.eye(2), lam ** 2 * np.eye(2)]
        out.append(mixture_entropy(w, mu, Cs, spacing=0.05) - entropy_lower_bound(w, mu, Cs))
    return out


def _check_q4(gap_5, largest_gap_lambda):
    g5, lam = real("gap_5", gap_5), real("largest_gap_lambda", largest_gap_lambda)
    gaps = _ex4_gaps()
    if not close(g5, gaps[EX4_LAMBDAS.index(5.0)], 1e-4):
        return ("gap_5 is H[Q] − bound at λ = 5: mixture_entropy(w, means, covs, spacing=0.05) minus "
                "entropy_lower_bound(w, means, covs); a bound is below the truth, so the gap is ≥ 0.")
    if lam not in EX4_LAMBDAS or gaps[EX4_LAMBDAS.index(lam)] != max(gaps):
        return f"largest_gap_lambda is the λ among {EX4_LAMBDAS} whose gap is largest: print all four."
    return None


def _wrong_q4(ns):
    gaps = _ex4_gaps()
    return {"gap_5": -gaps[2], "largest_gap_lambda": EX4_LAMBDAS[-1]}  # bound − H; "grows with λ"


#: covariances exercise 5's function is tried on (k = 1, 2, 3)
_Q5_COVS = (np.array([[0.4]]), np.array([[0.3, 0.1], [0.1, 0.2]]), np.diag([2.0, 0.5, 1.5]) + 0.1)


def _plain_jensen(C) -> float:
    """−ln N(m | m, 2C): the plain Jensen bound for one Gaussian (computed independently of the answer)."""
    k = C.shape[0]
    return 0.5 * k * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(2 * C)[1]


def _check_q5(jensen_bound, gap_per_dimension):
    f = function("jensen_bound", jensen_bound, "jensen_bound(C)")
    got = function_values("jensen_bound", f, [(C,) for C in _Q5_COVS])
    if not all(close(g, _plain_jensen(C), 1e-8) for g, C in zip(got, _Q5_COVS)):
        return ("for K = 1 the bound is −ln ∫Q₁Q₁ = −ln N(m | m, 2C): the density of N(0, 2C) at its mean "
                "(scipy.stats.multivariate_normal, or by hand with the log-determinant of 2C).")
    gap = real("gap_per_dimension", gap_per_dimension)
    if not close(gap, (gaussian_entropy(_Q5_COVS[1]) - _plain_jensen(_Q5_COVS[1])) / 2, 1e-8):
        return "gap_per_dimension is (H − bound)/k: subtract, with H = gaussian_entropy(C), and divide by k."
    return None


def _wrong_q5(ns):
    # N(m | m, C) in place of 2C: ∫Q₁Q₁ needs the covariances added
    return {"jensen_bound": lambda C: 0.5 * C.shape[0] * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(C)[1],
            "gap_per_dimension": 0.5}


#: lesson 7's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("07_mixture_of_gaussians.ipynb", (
    Exercise("q1", ("ex1_panel", "drop_12", "single_at_origin"), _check_q1, _wrong_q1, uses_panel="panel"),
    Exercise("q2", ("rho_03", "rho_05", "drop_03", "merged_05"), _check_q2, _wrong_q2),
    Exercise("q3", ("delta_03", "delta_le_rho"), _check_q3, _wrong_q3),
    Exercise("q4", ("gap_5", "largest_gap_lambda"), _check_q4, _wrong_q4),
    Exercise("q5", ("jensen_bound", "gap_per_dimension"), _check_q5, _wrong_q5),
))


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------

def plot_comparison(axes, comp: MixtureComparison):
    """Five axes: the mixtures for K = 1 … 4 over the exact posterior (quadrature-entropy fit solid,
    bounded-entropy fit dashed), then KL against K."""
    check.instance("comp", comp, MixtureComparison, "a MixtureComparison (fit_mixtures())")
    if not all(isinstance(a, Axes) for a in np.ravel(np.asarray(axes, dtype=object))) or np.size(axes) < K_MAX + 1:
        raise ValueError(f"axes must be at least {K_MAX + 1} matplotlib Axes, got {axes!r:.80}")
    grid = comp.posterior.grid(n=201, extent=view_extent(comp))
    axes = list(np.ravel(axes))
    artists = []
    for K, ax in zip(range(1, K_MAX + 1), axes[:K_MAX]):
        artists += plot_posterior_contours(ax, grid)
        fit = comp.quadrature.fits[K - 1]
        artists += plot_mixture(ax, fit, label="H by quadrature", **style("mixture"))
        artists += plot_mixture(ax, comp.bound.fits[K - 1], label="H's lower bound", **style("mixture_bound"))
        ax.set_title(f"K = {K}: KL = {fit.kl:.3f}")
    axes[0].legend(loc="lower right")
    artists += plot_ladder(axes[K_MAX], comp)
    axes[K_MAX].legend(loc="upper right")
    return artists


def mixtures_figure(preset: dict | None = None):
    """A new Figure of :func:`plot_comparison` for ``preset`` (default: the paper-like preset)."""
    comp = fit_mixtures(make_posterior(**(PAPER_PRESET if preset is None else preset)))
    fig, axes = new_figure(12.0, 6.4, nrows=2, ncols=3)
    plot_comparison([axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1], axes[0, 2]], comp)
    axes[1, 2].axis("off")
    return fig, comp


def write_figures(outdir) -> list[Path]:
    """Write ``mixture_fits.png`` into ``outdir``."""
    fig, _ = mixtures_figure()
    return [save_figure(fig, Path(outdir) / "mixture_fits.png")]


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["EXERCISES", "EX1_ALPHA", "EX1_SEED", "K_MAX", "LN2_TOLERANCE", "MixtureExplorer", "MixtureState",
           "entropy_table", "fit_mixtures", "forget_mixtures", "kl_check_table", "ladder_table",
           "mixtures_for", "network_symmetry_demo", "plot_comparison", "symmetry_table"]
