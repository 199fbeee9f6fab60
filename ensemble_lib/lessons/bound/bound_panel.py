"""Lesson 3, §1–2: the bound ln P(D) = F[Q] + KL(Q‖P) on the toy (Barber & Bishop (1998), §2 eqs (15)–(16), Fig. 1).

* :func:`bound_decomposition`: ln P(D | α, β) (exact), F[Q] and KL(Q‖P) for a
  Gaussian Q given by means, standard deviations and a correlation;
* :func:`plot_bound_bars`: Fig. 1 as a bar chart, the gap between F[Q] and
  ln P(D) being KL(Q‖P); :func:`bound_figure`, the static Fig. 1;
* :class:`BoundPanel`: sliders for Q (mean, s.d.s, correlation) and a
  selector snapping Q to the Laplace, diagonal-KL and full-KL solutions.

Sign convention: F is Barber & Bishop's lower bound (maximised); MacKay's
"variational free energy" is −F.

Symbols → code: Q = N(w̄, C) → ``mean``, ``cov``; ``sd_u``, ``sd_v``, ``rho``
parametrise C; α, β → ``alpha``, ``beta``; F → ``bound``.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as w
import numpy as np

from ...core import validation as check
from ...ui.plotting import (COLORS, HATCHES, LABELS, STYLE_ALIASES, new_figure, plot_gaussian_ellipses, style,
                            plot_posterior_contours, update_gaussian_ellipses)
from ...models.toy import ToyPosterior
from ...models.toy import PAPER_PRESET, make_posterior
from ...inference.toy_fits import ToyFits, fit_all
from ...ui.panel import FigurePanel
from ...ui.tables import Table

#: Largest |correlation| offered by the slider (Q stays positive definite).
RHO_MAX = 0.999
#: Values of the bound panel's ``snap`` selector: the sliders' own Q or a reference solution.
SNAP_CHOICES = ("custom", "laplace", "diagonal", "full")
#: Standard-deviation slider range, as powers of ten.
LOG10_SD_RANGE = (-3.0, 1.0)
#: Resolution of both panels' PNGs (fewer pixels: faster steps); see FigurePanel.dpi.
_PANEL_DPI = 80
#: Colours of the two hyperparameter methods.
METHOD_COLORS = {"ensemble": COLORS["full"], "ensemble_diag": COLORS["diagonal"],
                 "evidence": COLORS["laplace"], "exact": "0.2"}
#: The look (:data:`~ensemble_lib.ui.plotting.STYLES`) of each hyperparameter method.
METHOD_STYLES = {"ensemble": "full", "ensemble_diag": "diagonal", "evidence": "laplace", "exact": "posterior"}


def make_toy(alpha: float | None = None, beta: float | None = None) -> ToyPosterior:
    """The lesson's toy posterior: lesson 1's paper-like data (seed 25, N = 6, noise s.d. 0.1).

    By default α = 0.2 and β = 100 (the preset of :mod:`~ensemble_lib.models.toy`).
    """
    post = make_posterior(**PAPER_PRESET)
    if alpha is not None or beta is not None:
        post = post.with_hyperparameters(alpha=alpha, beta=beta)
    return post


# ---------------------------------------------------------------------------
# The bound (B&B (15)–(16), Fig. 1)
# ---------------------------------------------------------------------------

def gaussian_from_sliders(mean_u, mean_v, sd_u, sd_v, rho) -> tuple[np.ndarray, np.ndarray]:
    """(mean, cov) of the 2-D Gaussian with these means, standard deviations and correlation."""
    mean = np.array([check.real("mean_u", mean_u), check.real("mean_v", mean_v)])
    sd_u = check.positive("sd_u", sd_u)
    sd_v = check.positive("sd_v", sd_v)
    rho = check.real("rho", rho)
    if not abs(rho) < 1.0:
        raise ValueError(f"rho must be in (-1, 1), got {rho!r}")
    c = rho * sd_u * sd_v
    return mean, np.array([[sd_u * sd_u, c], [c, sd_v * sd_v]])


def sliders_from_gaussian(mean, cov) -> dict:
    """Inverse of :func:`gaussian_from_sliders`."""
    mean, cov = check.mean_cov(mean, cov, 2)
    sd = np.sqrt(np.diag(cov))
    return {"mean_u": float(mean[0]), "mean_v": float(mean[1]), "sd_u": float(sd[0]),
            "sd_v": float(sd[1]), "rho": float(cov[0, 1] / (sd[0] * sd[1]))}


@dataclass(frozen=True)
class BoundDecomposition:
    """ln P(D) = F[Q] + KL(Q‖P) for one Gaussian Q (B&B (15)–(16))."""

    mean: np.ndarray
    cov: np.ndarray
    log_evidence: float
    bound: float
    kl: float


def bound_decomposition(post, mean, cov) -> BoundDecomposition:
    """The exact ln P(D | α, β), the bound F[Q] (17) and KL(Q‖P) = ln P(D) − F[Q] (16)."""
    post = check.posterior("post", post)
    F = post.bound(mean, cov)
    log_ev = post.log_evidence
    return BoundDecomposition(np.asarray(mean, float), np.asarray(cov, float), float(log_ev),
                              float(F), float(log_ev - F))


def decomposition_table(post, fits: ToyFits, keys=("laplace", "diagonal", "full")) -> Table:
    """ln P(D) = F[Q] + KL(Q‖P) for each fit (:func:`bound_decomposition`), one row per fit."""
    check.instance("post", post, ToyPosterior)
    check.instance("fits", fits, ToyFits)
    keys = check.sequence("keys", keys)
    if not keys or not all(k in ("laplace", "diagonal", "full", "factor") for k in keys):
        raise ValueError(f"keys must be a non-empty sequence of 'laplace', 'diagonal', 'full', 'factor', got {keys!r}")
    rows = []
    for key in keys:
        fit = getattr(fits, key)
        d = bound_decomposition(post, fit.mean, fit.cov)
        rows.append((key, f"{d.log_evidence:.4f}", f"{d.bound:.4f}", f"{d.kl:.4f}"))
    return Table(("Q", "ln P(D)", "F[Q]", "KL(Q‖P)"), rows, widths=(-9, 9, 10, 9))


def plot_bound_bars(ax, log_evidence: float, entries: dict):
    """Fig. 1 as bars: for each Q, a bar from F[Q] up to ln P(D); its height is KL(Q‖P).

    ``entries`` maps a key (a colour in :data:`~ensemble_lib.ui.plotting.COLORS`
    or any label) to F[Q]. Returns a dict with the bar container, the F
    ticks, the KL labels and the ln P(D) line, for :func:`update_bound_bars`.
    """
    keys = list(entries)
    x = np.arange(len(keys))
    colors = [COLORS.get(k, "0.5") for k in keys]
    F = np.array([entries[k] for k in keys], dtype=float)
    bars = ax.bar(x, log_evidence - F, bottom=F, color=colors, alpha=0.35, edgecolor=colors, width=0.6)
    for rect, k in zip(bars, keys):  # each method's hatch: the bars are told apart without colour
        rect.set_hatch(HATCHES.get(STYLE_ALIASES.get(k, k), "//"))
    ticks = ax.hlines(F, x - 0.3, x + 0.3, colors=colors, linewidth=2.5)
    line = ax.axhline(log_evidence, color="0.2", linestyle="--", linewidth=1.2)
    texts = [ax.text(xi, log_evidence, "", ha="center", va="bottom", fontsize=8) for xi in x]
    lev_text = ax.text(0.99, 0.99, "", transform=ax.transAxes, ha="right", va="top", fontsize=8)
    ax.set_xticks(x, [LABELS.get(k, k) for k in keys], rotation=15)
    ax.set_ylabel("nats")
    ax.set_title("ln P(D) = F[Q] + KL(Q‖P)  (Fig. 1)")
    arts = {"bars": bars, "ticks": ticks, "line": line, "texts": texts, "lev": lev_text, "keys": keys}
    update_bound_bars(ax, arts, log_evidence, entries)
    return arts


def update_bound_bars(ax, arts: dict, log_evidence: float, entries: dict, set_ylim: bool = True):
    """Move the bars made by :func:`plot_bound_bars` to new values in place.

    Returns the y range ``(lo, hi)`` that shows them all, set as the limits unless ``set_ylim`` is
    false (a panel whose range follows it in steps: :meth:`FigurePanel.follow_range`).
    """
    keys = arts["keys"]
    F = np.array([entries[k] for k in keys], dtype=float)
    x = np.arange(len(keys))
    for rect, f in zip(arts["bars"], F):
        rect.set_y(f)
        rect.set_height(log_evidence - f)
    arts["ticks"].set_segments([np.array([[xi - 0.3, f], [xi + 0.3, f]]) for xi, f in zip(x, F)])
    arts["line"].set_ydata([log_evidence, log_evidence])
    for t, xi, f in zip(arts["texts"], x, F):
        t.set_position((xi, log_evidence))
        t.set_text(f"KL={log_evidence - f:.3g}")
    arts["lev"].set_text(f"ln P(D) = {log_evidence:.4f} (dashed)\nbar bottoms: F[Q]")
    lo = min(np.nanmin(F) if np.any(np.isfinite(F)) else 0.0, log_evidence, 0.0)
    hi = max(log_evidence, 0.0)
    span = max(hi - lo, 1.0)
    rng = (lo - 0.05 * span, hi + 0.18 * span)
    if set_ylim:
        ax.set_ylim(*rng)
    return rng


def _bound_controls(extent, start: dict) -> dict:
    """The bound panel's controls, the sliders at ``start`` (:func:`sliders_from_gaussian`), Q snapped to
    the full-KL fit: where the panel opens, and where its "Reset" button puts it back."""
    u0, u1, v0, v1 = (float(e) for e in extent)
    sd_lo, sd_hi = 10.0 ** LOG10_SD_RANGE[0], 10.0 ** LOG10_SD_RANGE[1]

    def slider(*args, **kw):
        # the start is the full-KL fit, off any round grid: each slider's grid is laid through it,
        # so the handle shows it exactly where its value box says (also after Reset)
        return FigurePanel.slider(*args, readout_format=".3f", grid_at_value=True, **kw)

    return {
        "mean_u": slider("mean of u", start["mean_u"], u0, u1, step=0.005),
        "mean_v": slider("mean of v", start["mean_v"], v0, v1, step=0.01),
        "sd_u": slider("s.d. of u", start["sd_u"], sd_lo, sd_hi, step=0.02, log=True),
        "sd_v": slider("s.d. of v", start["sd_v"], sd_lo, sd_hi, step=0.02, log=True),
        "rho": slider("correlation ρ", start["rho"], -RHO_MAX, RHO_MAX, step=0.001),
        "snap": w.Dropdown(options=[("custom (sliders)", "custom"), ("Laplace", "laplace"),
                                    ("KL, diagonal", "diagonal"), ("KL, full", "full")],
                           value="full", description="snap Q to", style={"description_width": "initial"}),
    }


class BoundPanel(FigurePanel):
    """Sliders for a Gaussian Q on the toy posterior; the bound F[Q], KL and ln P(D) live.

    Left: the exact posterior's contours with Q's 1-, 2-, 3-σ ellipses (and
    thin ellipses of the Laplace, diagonal-KL and full-KL fits). Right: Fig. 1
    as bars, one per Q, each from F[Q] up to ln P(D), its height KL(Q‖P).
    The ``snap`` selector moves the sliders to a reference solution.

    Parameters
    ----------
    post : ToyPosterior, optional
        Default :func:`make_toy` (α = 0.2, β = 100).
    """

    dpi = _PANEL_DPI
    #: the posterior and the fits' ellipses are drawn once; each step redraws Q and the bars' axes
    blit = True
    #: contour-heavy: JPEG encodes several times faster than PNG, in fewer bytes
    image_format = "jpeg"

    def __init__(self, post: ToyPosterior | None = None):
        if post is not None and not isinstance(post, ToyPosterior):
            raise ValueError(f"post must be a ToyPosterior or None, got {type(post).__name__}")
        self.post = make_toy() if post is None else post
        self.fits: ToyFits = fit_all(self.post)
        grid = self.post.grid(n=121)
        fig, (ax, bx) = new_figure(10.0, 4.2, ncols=2, gridspec_kw={"width_ratios": [1.25, 1.0]})
        self.ax, self.bx = ax, bx
        plot_posterior_contours(ax, grid)
        for key in ("laplace", "diagonal", "full"):
            fit = getattr(self.fits, key)
            plot_gaussian_ellipses(ax, fit.mean, fit.cov, n_sigmas=(1,), label=LABELS[key],
                                   **style(key, linewidth=0.8))
        self._q = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), label="your Q", **style("custom"))
        ax.legend(loc="lower right")
        ax.set_title("posterior P(w | D) and Q")
        self.references = {key: getattr(self.fits, key).bound for key in ("laplace", "diagonal", "full")}
        self._bars = plot_bound_bars(bx, self.post.log_evidence, {**self.references, "your Q": self.references["full"]})
        # Q starts snapped to the full-KL fit (the machine's reset returns there)
        start = sliders_from_gaussian(self.fits.full.mean, self.fits.full.cov)
        controls = _bound_controls((grid.u[0], grid.u[-1], grid.v[0], grid.v[-1]), start)
        super().__init__(controls, fig, columns=3)

    def animated_artists(self) -> list:
        """Q's ellipses and the bars. The bar chart's range follows F[Q] in nice steps
        (:meth:`follow_range`): its ticks are redrawn only when it changes."""
        b = self._bars
        return [*self._q, *b["bars"], b["ticks"], b["line"], *b["texts"], b["lev"]]

    # -- snapping to a reference solution -----------------------------------
    def snap(self, name: str, update: bool = True):
        """Move the sliders to the Laplace / diagonal-KL / full-KL solution (one redraw)."""
        if name not in ("laplace", "diagonal", "full"):
            raise ValueError(f"name must be 'laplace', 'diagonal' or 'full', got {name!r}")
        fit = getattr(self.fits, name)
        return self.set_values({**sliders_from_gaussian(fit.mean, fit.cov), "snap": name}, update=update)

    def link_controls(self, name: str, value) -> None:
        """The ``snap`` selector moves the sliders to its solution; a moved slider makes Q "custom"."""
        if name == "snap":
            value = check.choice("snap", value, SNAP_CHOICES)
            if value != "custom":
                self.snap(value, update=False)
        else:
            self.controls["snap"].value = "custom"

    # -- FigurePanel ---------------------------------------------------------
    def compute(self, mean_u, mean_v, sd_u, sd_v, rho, snap) -> BoundDecomposition:
        check.choice("snap", snap, SNAP_CHOICES)
        mean, cov = gaussian_from_sliders(mean_u, mean_v, sd_u, sd_v, rho)
        return bound_decomposition(self.post, mean, cov)

    def draw(self, state: BoundDecomposition) -> None:
        update_gaussian_ellipses(self._q, state.mean, state.cov)
        rng = update_bound_bars(self.bx, self._bars, state.log_evidence,
                                {**self.references, "your Q": state.bound}, set_ylim=False)
        self.follow_range(self.bx, y=rng)

    def format_readout(self, state: BoundDecomposition) -> str:
        note = ""
        if state.kl < self.fits.full.kl - 1e-9:
            note = (f"<p>Why your Q beats the full-KL fit ({state.kl:.6f} &lt; {self.fits.full.kl:.6f}): the fit "
                    "stopped short of the optimum; the lesson's 'tightest bound in its family' assumes it did not.</p>")
        return (
            f"ln P(D | α, β) = {state.log_evidence:.6f} (exact) &nbsp; = &nbsp; "
            f"F[Q] = {state.bound:.6f} &nbsp; + &nbsp; KL(Q‖P) = {state.kl:.6f}" + note
        )




def bound_figure(post: ToyPosterior | None = None):
    """The static Fig. 1: posterior with the three fits, and their bars F[Q] → ln P(D)."""
    if post is not None:
        check.instance("post", post, ToyPosterior)
    post = make_toy() if post is None else post
    fits = fit_all(post)
    fig, (ax, bx) = new_figure(10.0, 4.2, ncols=2, gridspec_kw={"width_ratios": [1.25, 1.0]})
    plot_posterior_contours(ax, post.grid(n=121))
    for key in ("laplace", "diagonal", "full"):
        fit = getattr(fits, key)
        plot_gaussian_ellipses(ax, fit.mean, fit.cov, n_sigmas=(1, 2), label=LABELS[key], **style(key))
    ax.legend(loc="lower right")
    ax.set_title(f"toy posterior (α = {post.alpha:g}, β = {post.beta:g}) and three Gaussians Q")
    plot_bound_bars(bx, post.log_evidence, {k: getattr(fits, k).bound for k in ("laplace", "diagonal", "full")})
    return fig, fits


__all__ = ["BoundDecomposition", "BoundPanel", "LOG10_SD_RANGE", "METHOD_COLORS", "METHOD_STYLES", "RHO_MAX",
           "SNAP_CHOICES", "bound_decomposition", "bound_figure", "decomposition_table", "gaussian_from_sliders",
           "make_toy", "sliders_from_gaussian"]
