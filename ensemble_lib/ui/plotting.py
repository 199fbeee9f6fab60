"""Plot helpers: each takes an ``ax``, draws, and returns the artists it made.

They never call ``plt.show()``; notebooks and the figure command decide how
a figure is shown or saved. ``set_style()`` is the one place where the look
is set.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse
from PIL import Image

from ..core import validation as check
from ..core.gaussian import ellipse_geometry

#: The Okabe–Ito palette (Okabe & Ito 2008), told apart by the common forms of colour blindness.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}

#: One look per method, used by every lesson and figure: a colour on the Okabe–Ito palette, and a
#: line style and marker that tell the methods apart without colour (no two share both).
STYLES = {
    "posterior": dict(color=OKABE_ITO["black"], linestyle="-", marker="None"),  # the exact answer
    "laplace": dict(color=OKABE_ITO["vermillion"], linestyle="--", marker="s"),
    "diagonal": dict(color=OKABE_ITO["sky blue"], linestyle="-.", marker="^"),
    "factor": dict(color=OKABE_ITO["reddish purple"], linestyle=":", marker="D"),
    "full": dict(color=OKABE_ITO["bluish green"], linestyle="-", marker="o"),
    "mixture": dict(color=OKABE_ITO["blue"], linestyle="-", marker="P"),  # K components, H by quadrature
    "mixture_bound": dict(color=OKABE_ITO["reddish purple"], linestyle="--", marker="X"),  # H's lower bound
    "svi": dict(color=OKABE_ITO["orange"], linestyle="--", marker="v"),
    "hmc": dict(color=OKABE_ITO["black"], linestyle="-.", marker="x"),
    "map": dict(color=OKABE_ITO["blue"], linestyle=":", marker="*"),  # the best fit w_MP
    "moderated": dict(color=OKABE_ITO["orange"], linestyle="-.", marker="h"),
    "data": dict(color=OKABE_ITO["black"], linestyle="None", marker="o"),
    "custom": dict(color=OKABE_ITO["orange"], linestyle=(0, (3, 1, 1, 1, 1, 1)), marker="+"),  # a Q set by hand
    "evidence": dict(color=OKABE_ITO["bluish green"], linestyle="--", marker="p"),  # P(D | hyperparameters)
    "obd": dict(color=OKABE_ITO["vermillion"], linestyle=":", marker="<"),  # pruning by OBD saliency
    "hyper_term": dict(color=OKABE_ITO["reddish purple"], linestyle="-.", marker=">"),  # MacKay §5.2.2's term
    # Table 1's factor covariances of rank s = 2 and 4 (s = 1 is "factor"): the factor's colour, own markers
    "factor_s2": dict(color=OKABE_ITO["reddish purple"], linestyle=":", marker="P"),
    "factor_s4": dict(color=OKABE_ITO["reddish purple"], linestyle=":", marker="X"),
    # a marked input (lesson 8's A and B): black, not Laplace's vermillion square
    "test_point": dict(color=OKABE_ITO["black"], linestyle="None", marker="s"),
}
#: other names of a method in :data:`STYLES`
STYLE_ALIASES = {"exact": "posterior", "best_fit": "map", "mp": "map", "data_points": "data"}
#: markers along a line at about this fraction of the axes' diagonal apart (matplotlib's float
#: ``markevery``): enough to name the method, few enough not to clutter a dense curve
MARKEVERY = 0.1

#: One hatch per method for bars (:func:`bar_style`): bars told apart without colour; no two alike.
HATCHES = {"posterior": "", "laplace": "//", "diagonal": "\\\\", "factor": "..", "full": "xx", "mixture": "++",
           "mixture_bound": "--", "svi": "oo", "hmc": "||", "map": "**", "moderated": "OO", "data": "+.",
           "custom": "/.", "evidence": "\\|", "obd": "-/", "hyper_term": "x.", "factor_s2": "o.",
           "factor_s4": "|.", "test_point": "O."}

#: One colour per method (derived from :data:`STYLES`).
COLORS = {k: v["color"] for k, v in STYLES.items()}
LABELS = {
    "laplace": "Laplace",
    "diagonal": "KL, diagonal",
    "factor": "KL, factor",
    "full": "KL, full",
}

_STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "image.cmap": "Greys",
    "svg.hashsalt": "ensemble-learning",
}


_KWARG_ALIASES = {"c": "color", "ls": "linestyle", "lw": "linewidth", "ms": "markersize",
                  "mec": "markeredgecolor", "mfc": "markerfacecolor", "mew": "markeredgewidth"}


def style(method: str, **overrides) -> dict:
    """Matplotlib keyword arguments drawing ``method``'s line (:data:`STYLES`): colour, line style,
    marker (every :data:`MARKEVERY` of the axes' diagonal), updated by ``overrides``.

    ``ax.plot(x, y, **style("laplace"))``; ``style("laplace", marker="None")`` for a line without
    markers. Short names in ``overrides`` (``ls``, ``c``, ``lw`` …) replace the long ones, so they
    never reach matplotlib twice. ``method`` is a key of :data:`STYLES` or :data:`STYLE_ALIASES`.

    A line whose data are all NaN cannot be drawn with a fractional ``markevery`` (matplotlib
    fails on it): give such a line ``markevery=None``.
    """
    key = STYLE_ALIASES.get(method, method)
    if key not in STYLES:
        raise ValueError(f"method must be one of {sorted(STYLES) + sorted(STYLE_ALIASES)}, got {method!r}")
    kw = dict(STYLES[key], markevery=MARKEVERY)
    for k, v in overrides.items():
        kw[_KWARG_ALIASES.get(k, k)] = v
    return kw


def bar_style(method: str, **overrides) -> dict:
    """Matplotlib keyword arguments for ``method``'s bar (``ax.bar`` / ``ax.barh``): its colour
    (:data:`STYLES`), pale as the face and full as the edge (the hatch is drawn in the edge's colour,
    so it shows), and its hatch (:data:`HATCHES`), updated by ``overrides``."""
    key = STYLE_ALIASES.get(method, method)
    if key not in STYLES:
        raise ValueError(f"method must be one of {sorted(STYLES) + sorted(STYLE_ALIASES)}, got {method!r}")
    color = STYLES[key]["color"]
    kw = dict(facecolor=mpl.colors.to_rgba(color, 0.45), edgecolor=color, hatch=HATCHES[key])
    for k, v in overrides.items():
        kw[_KWARG_ALIASES.get(k, k)] = v
    return kw


def set_style() -> None:
    """Apply the suite's matplotlib style (idempotent)."""
    mpl.rcParams.update(_STYLE)


def inline_figures() -> None:
    """In a notebook: show figures under their cells (``%matplotlib inline``), each drawn once.

    IPython's inline backend would crop every figure to its contents (``bbox_inches="tight"``),
    and finding those contents is a whole extra draw. The suite's figures lay themselves out inside
    their canvas (constrained layout), so the lessons show the whole canvas instead.
    ``tests/ui/test_plotting_inline.py`` checks that no lesson figure draws anything outside it.

    Even uncropped, matplotlib's ``print_figure`` lays a figure out in a hidden draw (text measured,
    nothing painted) and then draws it again. So the lessons' PNGs come from :func:`_inline_png`,
    which lays out and paints in one draw: the same pixels, about a fifth less time on lesson 6's
    figures. Outside IPython (a script, the figure command) nothing happens.
    """
    from IPython import get_ipython  # only in a notebook (IPython is optional)

    shell = get_ipython()
    if shell is None:
        return
    shell.run_line_magic("matplotlib", "inline")
    # kept for other formats a user may switch to (they go through print_figure)
    shell.run_line_magic("config", "InlineBackend.print_figure_kwargs = {'bbox_inches': None}")
    shell.display_formatter.formatters["image/png"].for_type(Figure, _inline_png)


def _inline_png(fig: Figure) -> bytes | None:
    """``fig``'s whole canvas as PNG bytes at its own dpi, laid out and painted in one draw.

    What IPython's inline PNG formatter shows with ``bbox_inches=None``, pixel for pixel
    (``tests/ui/test_plotting_inline.py``), and, like it, nothing for a figure with no axes.
    """
    if not fig.axes and not fig.lines:
        return None
    return _canvas_png(fig)  # Figure.draw runs the layout engine, then paints


def _canvas_png(fig: Figure, **pil) -> bytes:
    """``fig`` drawn once on its Agg canvas (made if it has none), encoded as PNG by Pillow (``pil``)."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    buf = io.BytesIO()
    Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).save(buf, format="png", **pil)
    return buf.getvalue()


def new_figure(width: float = 6.0, height: float = 4.5, **subplots) -> tuple[Figure, np.ndarray]:
    """A pyplot-free Figure (not shown automatically) and its axes (``width``, ``height`` > 0 inches)."""
    width = check.positive("width", width, upper=100.0)
    height = check.positive("height", height, upper=100.0)
    set_style()
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(**subplots) if subplots else fig.subplots()
    return fig, axes


def _figure(fig) -> Figure:
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure (new_figure()), got {type(fig).__name__}")
    return fig


def figure_png(fig: Figure, dpi: int | None = None) -> bytes:
    """Render a figure to PNG bytes with no volatile metadata (byte-stable)."""
    _figure(fig)
    if dpi is not None:
        dpi = check.integer("dpi", dpi, low=10, high=1200)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def save_figure(fig: Figure, path) -> Path:
    """Write ``fig`` as a byte-stable PNG (:func:`figure_png`) to ``path``; return the path.

    Every lesson's ``write_figures`` saves through this one function.
    """
    if not isinstance(path, (str, Path)) or not str(path):
        raise ValueError(f"path must be a non-empty str or pathlib.Path, got {path!r}")
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"path must be in an existing folder, got {str(path)!r}")
    path.write_bytes(figure_png(fig))
    return path


def fast_png(fig: Figure) -> bytes:
    """Render a figure as it is laid out (no layout pass) to a lightly compressed PNG.

    For interactive panels: about 25 % faster than :func:`figure_png`.
    """
    _figure(fig)
    return _canvas_png(fig, compress_level=1)


def fast_jpeg(fig: Figure, quality: int = 90) -> bytes:
    """Render a figure as it is laid out (no layout pass) to JPEG (for filled contours, densities).

    For interactive panels whose figure is mostly shaded areas: encoding takes about
    a tenth of :func:`fast_png`'s time and the bytes are about half.
    """
    _figure(fig)
    quality = check.integer("quality", quality, low=1, high=95)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    buf = io.BytesIO()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    rgba.convert("RGB").save(buf, format="jpeg", quality=quality)
    return buf.getvalue()


#: mantissas of :func:`nice_ceiling`: each at most a third above the one before
NICE_MANTISSAS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(x: float) -> float:
    """The smallest m·10^k ≥ ``x`` with m in :data:`NICE_MANTISSAS` (``x`` finite and > 0).

    For axis limits that follow the data in steps: neighbouring slider values give the same limits,
    so the ticks can stay in a panel's cached background (a step redraws only the plotted data).
    """
    x = check.positive("x", x)
    if not math.isfinite(x):
        raise ValueError(f"x must be finite, got {x}")
    base = 10.0 ** math.floor(math.log10(x))
    return float(next((m * base for m in NICE_MANTISSAS if m * base >= x), 10.0 * base))


def nice_range(lo: float, hi: float, *, log: bool = False, steps: int = 5,
               pad: float = 0.0) -> tuple[float, float]:
    """``[lo, hi]`` widened outward to multiples of a nice step (:func:`nice_ceiling` of
    (hi − lo)/``steps``; on a ``log`` axis, the same in log10), then by ``pad`` (in [0, 0.5]) of
    the result's span on each side: a tick at a limit then stays inside the plot.

    Axis limits that follow the data in steps, so that neighbouring slider values share them
    (:meth:`~ensemble_lib.ui.panel.FigurePanel.follow_range`). ``lo < hi`` finite (``0 < lo`` on a
    log axis); ``steps`` an integer in [1, 20].
    """
    lo, hi = check.interval("(lo, hi)", (lo, hi), positive=bool(log))
    steps = check.integer("steps", steps, low=1, high=20)
    pad = check.real("pad", pad)
    if not 0.0 <= pad <= 0.5:
        raise ValueError(f"pad must be in [0, 0.5], got {pad!r}")
    if log:
        a, b = nice_range(math.log10(lo), math.log10(hi), steps=steps, pad=pad)
        return 10.0 ** a, 10.0 ** b
    step = nice_ceiling((hi - lo) / steps)
    digits = 3 - math.floor(math.log10(step))  # multiples of the step without round-off (3.0, not 3.0000000000000004)
    a = min(round(math.floor(lo / step) * step, digits), lo)
    b = max(round(math.ceil(hi / step) * step, digits), hi)
    return a - pad * (b - a), b + pad * (b - a)


def replace_artists(old, make) -> list:
    """Remove the artists ``old`` and return the list of those ``make()`` draws in their place.

    For what a step redraws whole (contours, a filled band): the old ones are
    removed first, so the new ones take the same place in the drawing order.
    """
    old = check.sequence("old", old)
    if not callable(make):
        raise ValueError(f"make must be callable (it draws the new artists), got {type(make).__name__}")
    for a in old:
        if a.axes is not None or a.figure is not None:  # not removed already (e.g. by a step that failed)
            try:
                a.remove()
            except ValueError:  # no longer in its axes' list: it is not drawn either
                pass
    return list(make())


def plot_posterior_contours(ax, grid, levels: int = 7, filled: bool = True, **kwargs):
    """Contours of a normalised posterior density on a grid (``toy.PosteriorGrid``).

    Levels are spaced evenly in log density from the peak down to e^-8 of it,
    so the tails of a curved, two-moded posterior remain visible. The grid's axes must be
    finite and increasing and its log density finite where it is not −inf (a NaN grid is
    refused, never drawn as a blank plot); ``levels`` is an integer in [1, 100].
    """
    logp = _check_grid(grid)
    levels = check.integer("levels", levels, low=1, high=100)
    top = float(np.max(logp))
    lv = top - 8.0 * np.linspace(1.0, 0.0, levels + 1)[:-1] ** 1.5
    artists = []
    if filled:
        artists.append(
            ax.contourf(grid.u, grid.v, logp, levels=np.append(lv, top + 1.0),
                        cmap=kwargs.pop("cmap", "Greys"), alpha=kwargs.pop("alpha", 0.45))
        )
    artists.append(
        ax.contour(grid.u, grid.v, logp, levels=lv, colors=kwargs.pop("colors", "0.4"),
                   linewidths=kwargs.pop("linewidths", 0.5), linestyles="solid", **kwargs)
    )
    ax.set_xlim(grid.u[0], grid.u[-1])
    ax.set_ylim(grid.v[0], grid.v[-1])
    ax.set_xlabel("u (input-to-hidden weight)")
    ax.set_ylabel("v (hidden-to-output weight)")
    return artists


def _check_grid(grid) -> np.ndarray:
    """The log density of a :class:`~ensemble_lib.models.toy.PosteriorGrid`, checked."""
    if not all(hasattr(grid, a) for a in ("u", "v", "log_density")):
        raise ValueError(f"grid must be a PosteriorGrid (u, v, log_density), got {type(grid).__name__}")
    u = check.finite_vector("grid.u", grid.u, min_len=2)
    v = check.finite_vector("grid.v", grid.v, min_len=2)
    logp = check.real_array("grid.log_density", grid.log_density)
    if logp.shape != (v.size, u.size):
        raise ValueError(f"grid.log_density must have shape (len(v), len(u)) = {(v.size, u.size)}, "
                         f"got {logp.shape}")
    if np.any(np.diff(u) <= 0) or np.any(np.diff(v) <= 0):
        raise ValueError("grid.u and grid.v must be strictly increasing")
    if np.any(np.isnan(logp)) or np.any(logp == np.inf) or not np.any(np.isfinite(logp)):
        raise ValueError("grid.log_density must contain only finite values or -inf (no NaN or +inf), "
                         "and at least one finite value")
    return logp


def _gaussian_2d(mean, cov, n_sigmas) -> tuple[np.ndarray, tuple]:
    mean, cov = check.mean_cov(mean, cov, 2)
    if isinstance(n_sigmas, (str, bytes)) or not hasattr(n_sigmas, "__iter__"):
        raise ValueError(f"n_sigmas must be a sequence of numbers > 0, got {n_sigmas!r}")
    n_sigmas = tuple(check.positive("n_sigmas", ns) for ns in n_sigmas)
    return mean, n_sigmas


def plot_gaussian_ellipses(ax, mean, cov, n_sigmas=(1, 2, 3), color="C0", label=None, *,
                           linestyle="-", marker="o", linewidth=1.6, **kwargs):
    """The 1-, 2-, 3-σ ellipses of a 2-D Gaussian, plus a marker at its mean.

    ``mean`` (2,) finite, ``cov`` (2, 2) symmetric positive definite, ``n_sigmas`` numbers > 0.
    Every ellipse is drawn in ``linestyle`` (the 1-σ one ``linewidth`` wide, the others thinner)
    and the mean in ``marker``, so ``**style(method)`` tells methods apart without colour. The
    ``label`` goes on the mean's marker, drawn with the line style: a legend shows both.
    Other line keywords of :func:`style` (``markevery``) are accepted and ignored.
    """
    mean, n_sigmas = _gaussian_2d(mean, cov, n_sigmas)
    kwargs.pop("markevery", None)
    linewidth = kwargs.pop("lw", linewidth)
    linestyle = kwargs.pop("ls", linestyle)
    artists = []
    for i, ns in enumerate(n_sigmas):
        w, h, ang = ellipse_geometry(cov, ns)
        e = Ellipse(mean, w, h, angle=ang, fill=False, edgecolor=color,
                    linewidth=linewidth * (1.0 if i == 0 else 0.7), linestyle=linestyle)
        ax.add_patch(e)
        artists.append(e)
    artists.extend(ax.plot([mean[0]], [mean[1]], color=color, linestyle=linestyle, marker=marker,
                           markersize=kwargs.pop("markersize", 4.0), linewidth=linewidth, label=label))
    return artists


def update_gaussian_ellipses(artists, mean, cov, n_sigmas=(1, 2, 3)) -> None:
    """Move ellipses made by :func:`plot_gaussian_ellipses` to a new Gaussian in place."""
    mean, n_sigmas = _gaussian_2d(mean, cov, n_sigmas)
    for e, ns in zip(artists[: len(n_sigmas)], n_sigmas):
        w, h, ang = ellipse_geometry(cov, ns)
        e.set_center(mean)
        e.set_width(w)
        e.set_height(h)
        e.set_angle(ang)
    artists[len(n_sigmas)].set_data([mean[0]], [mean[1]])


def annotate_kl(ax, values: dict, loc=(0.02, 0.98), fmt: str = "{:.2f}"):
    """A text box listing ``name: KL`` lines in the upper-left corner; returns the Text.

    ``values`` maps names to finite numbers (a NaN would print as "nan").
    """
    if not isinstance(values, dict):
        raise ValueError(f"values must be a dict (name → KL), got {type(values).__name__}")
    values = {k: check.real(f"values[{k!r}]", v) for k, v in values.items()}
    lines = [f"KL({LABELS.get(k, k)}) = {fmt.format(v)}" for k, v in values.items()]
    return ax.text(*loc, "\n".join(lines), transform=ax.transAxes, va="top", ha="left",
                   fontsize=8, bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.85))


__all__ = ["COLORS", "LABELS", "NICE_MANTISSAS", "annotate_kl", "fast_jpeg", "fast_png", "figure_png",
           "inline_figures", "new_figure", "nice_ceiling", "nice_range", "plot_gaussian_ellipses",
           "plot_posterior_contours", "replace_artists", "save_figure", "set_style", "update_gaussian_ellipses"]
