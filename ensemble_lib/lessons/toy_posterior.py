"""Lesson 1: the toy posterior of Barber & Bishop (1998) Fig. 2 — Laplace vs KL fits.

* :func:`fit_all` fits Laplace (B&B (9)–(12)), the diagonal and the full KL
  Gaussians (§2.1) and a factor-analysis Gaussian (B&B (26)) to one posterior;
* :data:`PAPER_PRESET` is a documented "paper-like" setting: the paper's data
  (6 points, x ~ U(−2, 2), t = −2.5σ(−0.13x) + noise of s.d. 0.1, so β = 100)
  were never published, nor was α; the preset's seed and α were chosen by
  :func:`find_preset` so that KL(Laplace) lands near the paper's 41;
* :func:`kl_table` computes the three KL values over many random data sets and
  several α (does Laplace ≫ diagonal > full hold?); :func:`load_kl_table` reads
  the stored table the lesson shows;
* :func:`plot_fig2` draws the four panels of Fig. 2;
* :class:`ToyExplorer` is the interactive panel (α, noise s.d., N, seed, rank);
* :func:`write_figures` writes ``figures/toy_fig2.png``, ``figures/toy_kl_table.png``
  and ``figures/toy_kl_table.csv``.

The lesson's independent check of a fit's KL, brute-force 2-D quadrature, is the library's
:func:`~ensemble_lib.models.toy.kl_by_quadrature`.

The posterior is symmetric under (u, v) → (−u, −v): a fit and its mirror image
have the same KL. Fits are reported in the quadrant of the generating
parameters (u, v) = (−0.13, −2.5) for display.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from ..core import validation as check
from ..models.erf_network import TOY_N, TOY_NOISE_SD, TOY_V_TRUE
from ..inference.laplace import LaplaceFit, laplace_fit
from ..ui.plotting import (COLORS, LABELS, STYLES, new_figure, nice_ceiling, plot_gaussian_ellipses,
                           plot_posterior_contours, save_figure, style, update_gaussian_ellipses)
from ..models.toy import PAPER_PRESET, PosteriorGrid, ToyPosterior, kl_by_quadrature, make_posterior
from ..inference.toy_fits import ToyFits, fit_all
from ..core.progress import report
from ..ui.panel import FigurePanel
from ..ui.exercises import AnswerError, Exercise, ExerciseSet, boolean, close, function, real
from ..models.linear import LinearGaussianPosterior
from ..inference.kl_fit import KLFit, kl_fit
from ..ui.tables import Table

#: The values printed in the paper's Fig. 2 caption.
PAPER_KL = {"laplace": 41.0, "diagonal": 4.6, "full": 3.9}

#: Slider ranges of the interactive panel (every value gives finite results).
ALPHA_RANGE = (0.01, 10.0)
NOISE_SD_RANGE = (0.02, 1.0)
N_RANGE = (1, 50)
SEED_RANGE = (0, 99)


# ---------------------------------------------------------------------------
# Fig. 2
# ---------------------------------------------------------------------------

def plot_fig2(axes, fits: ToyFits, grid=None):
    """The four panels of Fig. 2: (a) posterior, (b) Laplace, (c) diagonal KL, (d) full KL."""
    _check_axes_grid(axes)
    check.instance("fits", fits, ToyFits)
    if grid is not None:
        check.instance("grid", grid, PosteriorGrid)
    grid = fits.posterior.grid() if grid is None else grid
    artists = []
    titles = ["(a) true posterior", "(b) Laplace", "(c) KL, diagonal", "(d) KL, full"]
    for ax, title, key in zip(np.ravel(axes), titles, [None, "laplace", "diagonal", "full"]):
        artists += plot_posterior_contours(ax, grid)
        if key is not None:
            fit = getattr(fits, key)
            artists += plot_gaussian_ellipses(ax, fit.mean, fit.cov, **style(key))
            title += f": KL = {fit.kl:.2f}"
        ax.set_title(title)
        ax.label_outer()
    return artists


def fig2_figure(preset: dict | None = None):
    """A new Figure with the Fig. 2 reproduction for ``preset`` (default :data:`PAPER_PRESET`)."""
    preset = PAPER_PRESET if preset is None else preset
    fits = fit_all(make_posterior(**preset))
    fig, axes = new_figure(9.0, 7.0, nrows=2, ncols=2, sharex=True, sharey=True)
    plot_fig2(axes, fits)
    return fig, fits


# ---------------------------------------------------------------------------
# The table over many data sets
# ---------------------------------------------------------------------------

def kl_table(seeds=range(20), alphas=(0.1, 0.3, 1.0, 3.0), noise_sd: float = TOY_NOISE_SD,
             n: int = TOY_N, progress=None) -> list[dict]:
    """KL of Laplace, diagonal and full fits for every (seed, α); one dict per row.

    ``progress``, if given, is called as ``progress(done, total)`` after each
    data set (e.g. a :class:`~ensemble_lib.ui.progress.ProgressBar`).
    """
    rows = []
    seeds = [check.integer("seeds", s, low=0) for s in check.sequence("seeds", seeds)]
    alphas = [check.precision("alphas", a) for a in check.sequence("alphas", alphas)]
    total = len(seeds) * len(alphas)
    report(progress, 0, total)
    for alpha in alphas:
        for seed in seeds:
            f = fit_all(make_posterior(seed, alpha, noise_sd, n))
            rows.append({"alpha": float(alpha), "seed": int(seed), "laplace": f.laplace.kl,
                         "diagonal": f.diagonal.kl, "full": f.full.kl})
            report(progress, len(rows), total)
    return rows


#: where :func:`write_figures` stores the table (``make figures``)
KL_TABLE_CSV = Path(__file__).resolve().parents[2] / "figures" / "toy_kl_table.csv"


def load_kl_table(path: Path | str = KL_TABLE_CSV) -> list[dict]:
    """The stored :func:`kl_table` (its default seeds and α), as written by :func:`write_figures`.

    The values are stored to 6 significant figures; ``tests/lessons/test_toy_posterior.py`` re-derives the
    file from :func:`kl_table` (every value to one unit in its 6th figure, the most another CPU's
    floating point can move it), so a change that moves a value fails there.
    """
    if not isinstance(path, (str, Path)):
        raise ValueError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must name an existing file (a KL table from write_figures); got {path}")
    lines = path.read_text().split()
    if not lines or lines[0] != "alpha,seed,kl_laplace,kl_diagonal,kl_full":
        raise ValueError(f"path must be a KL table written by write_figures; {path} is not")
    rows = []
    for line in lines[1:]:
        alpha, seed, lap, dia, ful = line.split(",")
        rows.append({"alpha": float(alpha), "seed": int(seed), "laplace": float(lap),
                     "diagonal": float(dia), "full": float(ful)})
    return rows


def summarise_table(rows: list[dict]) -> list[dict]:
    """Per α: median KL of each method and how often Laplace > diagonal > full holds."""
    rows = check.records("rows", rows, ("alpha", "laplace", "diagonal", "full"))
    out = []
    for alpha in sorted({r["alpha"] for r in rows}):
        sel = [r for r in rows if r["alpha"] == alpha]
        lap = np.array([r["laplace"] for r in sel])
        dia = np.array([r["diagonal"] for r in sel])
        ful = np.array([r["full"] for r in sel])
        out.append({
            "alpha": alpha, "n_sets": len(sel),
            "laplace_median": float(np.median(lap)), "diagonal_median": float(np.median(dia)),
            "full_median": float(np.median(ful)),
            "frac_laplace_gt_diag": float(np.mean(lap > dia)),
            "frac_diag_gt_full": float(np.mean(dia > ful)),
        })
    return out


def format_summary(summary: list[dict]) -> str:
    """The summary as a fixed-width text table (3 significant figures, for nbval)."""
    head = (f"{'alpha':>6} {'sets':>5} {'KL Laplace':>11} {'KL diag':>8} {'KL full':>8} "
            f"{'Lap>diag':>9} {'diag>full':>10}")
    lines = [head, "-" * len(head)]
    for s in summary:
        lines.append(
            f"{s['alpha']:>6.2g} {s['n_sets']:>5d} {s['laplace_median']:>11.3g} {s['diagonal_median']:>8.3g} "
            f"{s['full_median']:>8.3g} {s['frac_laplace_gt_diag']:>9.0%} {s['frac_diag_gt_full']:>10.0%}"
        )
    return "\n".join(lines)


def plot_kl_table(ax, rows: list[dict]):
    """KL of each method against α for every data set (log scale), medians joined."""
    check.instance("ax", ax, Axes, "a matplotlib Axes")
    rows = check.records("rows", rows, ("alpha", "laplace", "diagonal", "full"))
    artists = []
    alphas = sorted({r["alpha"] for r in rows})
    offsets = {"laplace": 0.94, "diagonal": 1.0, "full": 1.06}
    for key in ("laplace", "diagonal", "full"):
        xs = [r["alpha"] * offsets[key] for r in rows]
        ys = [r[key] for r in rows]
        artists.append(ax.scatter(xs, ys, s=9, color=COLORS[key], marker=STYLES[key]["marker"], alpha=0.5))
        med = [np.median([r[key] for r in rows if r["alpha"] == a]) for a in alphas]
        artists += ax.plot(np.array(alphas) * offsets[key], med, **style(key, markevery=None),
                           label=f"{LABELS[key]} (median)")
    for key, val in PAPER_KL.items():
        artists.append(ax.axhline(val, **style(key, lw=0.8, ls=":", marker="None")))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("prior precision α")
    ax.set_ylabel("KL(Q‖P)  (dotted: the paper's values)")
    ax.legend(loc="upper right")
    return artists


# ---------------------------------------------------------------------------
# The interactive panel
# ---------------------------------------------------------------------------

def _controls():
    slider = FigurePanel.slider
    return {
        "alpha": slider("prior precision α", PAPER_PRESET["alpha"], *ALPHA_RANGE, step=0.05, log=True),
        "noise_sd": slider("noise s.d. (β = 1/s.d.²)", PAPER_PRESET["noise_sd"], *NOISE_SD_RANGE,
                           step=0.05, log=True),
        "n": slider("data points N", PAPER_PRESET["n"], *N_RANGE),
        "seed": slider("data seed", PAPER_PRESET["seed"], *SEED_RANGE),
        "rank": slider("factor rank s (B&B (26))", 1, 0, 1),
    }


class ToyExplorer(FigurePanel):
    """Sliders for α, noise s.d., N, seed and factor rank s; the posterior and its fits, live.

    Shows the exact posterior's contours with the 1- and 2-σ ellipses of the
    Laplace, diagonal-KL and full-KL Gaussians and of the factor-analysis
    Gaussian of rank s (dashed), and a readout of every KL(Q‖P) and bound F[Q].
    """

    #: filled contours: JPEG encodes ten times faster than PNG (the ellipses stay sharp enough)
    image_format = "jpeg"
    #: the legend (beside the plot, names only: the KL values are in the table below) is drawn
    #: once; the plot, whose range follows the posterior, is redrawn at each step
    blit = True

    def __init__(self):
        fig, ax = new_figure(5.6, 3.9)  # 560 x 390 px: with its controls and table on a 1366 x 768 screen
        self.ax = ax
        # labelled before the layout is computed once (the base class), so the margins hold them
        ax.set_xlabel("u (input-to-hidden weight)")
        ax.set_ylabel("v (hidden-to-output weight)")
        ax.set_xlim(-10.0, 10.0)  # the widest tick labels the data can give, for the layout
        ax.set_ylim(-10.0, 10.0)
        ax.xaxis.set_major_locator(MaxNLocator(6))  # tick labels are most of a step's drawing
        ax.yaxis.set_major_locator(MaxNLocator(6))
        ax.yaxis.set_label_coords(-0.15, 0.5)  # clear of tick labels up to five characters ("−12.5")
        self._contours = []
        self._contoured = None  # the posterior whose contours are drawn
        self._ellipses = {}
        for key in ("laplace", "diagonal", "full", "factor"):
            arts = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), n_sigmas=(1, 2),
                                          label=LABELS[key], **style(key))
            if key == "factor":
                for a in arts[:2]:
                    a.set_linewidth(2.2)
            self._ellipses[key] = arts
        handles = [self._ellipses[k][-1] for k in ("laplace", "diagonal", "full", "factor")]
        labels = [LABELS[k] for k in ("laplace", "diagonal", "full")] + ["KL, factor s\n(dotted)"]
        self._legend = fig.legend(handles, labels, loc="outside right upper",
                                  title="1-, 2-σ ellipses", title_fontsize=8)
        super().__init__(_controls(), fig)

    def animated_artists(self) -> list:
        """The contours and ellipses. The axis range follows the posterior in steps
        (:meth:`limits`), so the ticks stay in the cached background until it changes."""
        return [*self._contours, *(a for arts in self._ellipses.values() for a in arts)]

    def background_key(self):
        """The static parts (frame, ticks, labels, legend) follow the plot's limits alone."""
        return (*self.ax.get_xlim(), *self.ax.get_ylim())

    @staticmethod
    def limits(post) -> tuple[float, float, float, float]:
        """The plot's range: the posterior's box (:meth:`ToyPosterior.extent`), each half-width
        rounded up to a nice number (:func:`~ensemble_lib.ui.plotting.nice_ceiling`: at most a third more),
        and 4 % more, so that the tick labels at the ends stay inside the plot."""
        if not isinstance(post, ToyPosterior):
            raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
        u0, u1, v0, v1 = post.extent()
        hu, hv = 1.04 * nice_ceiling(max(-u0, u1)), 1.04 * nice_ceiling(max(-v0, v1))
        return -hu, hu, -hv, hv

    #: settings remembered (:meth:`memo`: a drag back and forth, a rank toggle, costs only the
    #: redraw): the fits of 256 settings and the posteriors of their data sets
    MEMO_SIZE = 512

    def compute(self, alpha, noise_sd, n, seed, rank):
        data_key = repr((alpha, noise_sd, n, seed))  # exactly these values (2 and 2.5 differ)

        def fit():
            # one posterior object per data set (a rank toggle keeps the contours)
            post = self.memo(("posterior", data_key), lambda: make_posterior(seed, alpha, noise_sd, n))
            # warm-started from the last step's fits (same result as a cold fit: fit_all's guard)
            return fit_all(post, rank=rank, previous=self.__dict__.get("_previous"))

        self._previous = self.memo((data_key, repr(rank)), fit)
        return self._previous

    def draw(self, fits: ToyFits) -> None:
        if fits.posterior is not self._contoured:  # contours only when the posterior changes
            lim = self.limits(fits.posterior)
            grid = fits.posterior.grid(n=101, extent=lim)
            old, self._contours, self._contoured = self._contours, [], None  # consistent if this fails
            self._contours = self.replace_artists(old, lambda: plot_posterior_contours(self.ax, grid))
            self._contoured = fits.posterior
            if lim != self.__dict__.get("_shown_limits"):  # new ticks: redraw the background once
                self._shown_limits = lim
                self.invalidate_background()
        for key in ("laplace", "diagonal", "full", "factor"):
            fit = getattr(fits, key)
            update_gaussian_ellipses(self._ellipses[key], fit.mean, fit.cov, n_sigmas=(1, 2))

    def format_readout(self, fits: ToyFits) -> str:
        rows = [("Laplace", fits.laplace), ("KL, diagonal", fits.diagonal), ("KL, full", fits.full),
                (f"KL, factor s={fits.factor.rank}", fits.factor)]
        table = self.readout_table([(name, f"{f.kl:.3f}", f"{f.bound:.3f}") for name, f in rows],
                                   header=("Q", "KL(Q‖P)", "bound F[Q]"))
        notes = "".join(f"<p>{line}</p>" for line in ordering_notes(fits))
        return table + f"ln P(D | α, β) = {fits.posterior.log_evidence:.3f} (exact, by quadrature)" + notes


def ordering_notes(fits: ToyFits) -> list[str]:
    """Readout lines for a setting that breaks the lesson's ordering KL(Laplace) ≫ KL(diagonal) > KL(full).

    A scan of the panel's range (α 0.01–10, noise s.d. 0.02–1, N 1–50, six seeds) found one way it
    fails: Laplace at or below the diagonal fit, where the posterior near its mode is nearly Gaussian —
    a strong prior (α ≳ 3), or little information (N of 1–2, or a noise s.d. near 1). There Laplace's
    tilted covariance beats an axis-aligned Q. The diagonal stayed above the full fit everywhere (the
    diagonal family is inside the full one); a line says so too if an optimiser ever finds otherwise.
    """
    lap, dia, ful = fits.laplace.kl, fits.diagonal.kl, fits.full.kl
    notes = []
    if lap <= dia:
        notes.append(f"Why Laplace ({lap:.3f}) is not worse than the diagonal Q ({dia:.3f}) here: with this "
                     "prior and data the posterior is nearly Gaussian around its mode (a strong prior α, "
                     "broad noise or few data), so Laplace's tilted covariance fits it better than a "
                     "diagonal Q, which cannot tilt. Laplace ≫ diagonal is a property of the thin, curved "
                     "ridge (small α, small noise), as at the preset.")
    if dia < ful - 1e-6:
        notes.append(f"Why the diagonal Q ({dia:.3f}) beats the full one ({ful:.3f}): the full fit stopped "
                     "in a worse local optimum (the diagonal family is inside the full one).")
    return notes


def kl_summary_table(summary: list[dict]) -> Table:
    """:func:`summarise_table`'s rows as a :class:`~ensemble_lib.ui.tables.Table` (HTML in a notebook;
    its text is :func:`format_summary`'s, column for column)."""
    summary = check.records("summary", summary, ("alpha", "n_sets", "laplace_median", "diagonal_median", "full_median",
                                                 "frac_laplace_gt_diag", "frac_diag_gt_full"))
    rows = [(f"{s['alpha']:.2g}", f"{s['n_sets']:d}", f"{s['laplace_median']:.3g}", f"{s['diagonal_median']:.3g}",
             f"{s['full_median']:.3g}", f"{s['frac_laplace_gt_diag']:.0%}", f"{s['frac_diag_gt_full']:.0%}")
            for s in summary]
    return Table(("alpha", "sets", "KL Laplace", "KL diag", "KL full", "Lap>diag", "diag>full"), rows,
                 widths=(6, 5, 11, 8, 8, 9, 10), rule=True)


# ---------------------------------------------------------------------------
# The preset search and the figures command
# ---------------------------------------------------------------------------

def find_preset(target: float = PAPER_KL["laplace"], seeds=range(40),
                alphas=(0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0), beta: float = 100.0,
                progress=None) -> dict:
    """The (seed, α) whose Laplace KL (β fixed, N = 6) is closest to ``target``.

    ``progress``, if given, is called as ``progress(done, total)`` after each
    candidate (e.g. a :class:`~ensemble_lib.ui.progress.ProgressBar`).
    """
    best = None
    seeds, alphas = list(seeds), list(alphas)
    total, done = len(seeds) * len(alphas), 0
    report(progress, 0, total)
    for alpha in alphas:
        for seed in seeds:
            post = make_posterior(seed, alpha, 1.0 / np.sqrt(beta), TOY_N)
            kl = laplace_fit(post).kl
            if best is None or abs(kl - target) < abs(best[0] - target):
                best = (kl, seed, alpha)
            done += 1
            report(progress, done, total)
    return {"seed": best[1], "alpha": best[2], "noise_sd": 1.0 / np.sqrt(beta), "n": TOY_N,
            "laplace_kl": best[0]}


def write_figures(outdir) -> list[Path]:
    """Write the Fig. 2 reproduction and the KL table (PNG + CSV) into ``outdir``."""
    outdir = Path(outdir)
    fig, _ = fig2_figure()
    p1 = save_figure(fig, outdir / "toy_fig2.png")
    rows = kl_table()
    fig, ax = new_figure(6.4, 4.5)
    plot_kl_table(ax, rows)
    p2 = save_figure(fig, outdir / "toy_kl_table.png")
    p3 = outdir / "toy_kl_table.csv"
    lines = ["alpha,seed,kl_laplace,kl_diagonal,kl_full"]
    lines += [f"{r['alpha']:g},{r['seed']},{r['laplace']:.6g},{r['diagonal']:.6g},{r['full']:.6g}"
              for r in rows]
    p3.write_text("\n".join(lines) + "\n")
    return [p1, p2, p3]




# ---------------------------------------------------------------------------
# The exercises (ensemble_lib.ui.exercises): checks that answer back with a hint
# ---------------------------------------------------------------------------

#: exercise 1's setting: the preset with N data points
_EX1_N = 50


def _panel_fits(panel) -> ToyFits:
    """The fits a panel shows for its current slider values (memoised by the panel)."""
    return panel.compute(**panel.values())


def _check_q1(ex1_panel, kl_full_N50, laplace_better_with_more_data):
    if not isinstance(ex1_panel, ToyExplorer):
        raise AnswerError("ex1_panel must be the lesson's panel (ex1_panel = panel), "
                          f"got {type(ex1_panel).__name__}")
    kl_full = real("kl_full_N50", kl_full_N50)
    better = boolean("laplace_better_with_more_data", laplace_better_with_more_data)
    v = ex1_panel.values()
    preset = {k: PAPER_PRESET[k] for k in ("alpha", "noise_sd", "seed")}
    if v["n"] != _EX1_N or any(not close(v[k], preset[k], 1e-6) for k in preset):
        return (f"leave the panel at the preset (α = {PAPER_PRESET['alpha']:g}, noise s.d. "
                f"{PAPER_PRESET['noise_sd']:g}, seed {PAPER_PRESET['seed']}) with N = {_EX1_N}: "
                "the Reset button puts it back at the preset, then move N alone.")
    fits = _panel_fits(ex1_panel)
    if not close(kl_full, fits.full.kl, 2e-3):
        return "read KL(Q‖P) of the 'KL, full' row in the table under the panel (three decimals)."
    lap6 = fit_all(make_posterior(**PAPER_PRESET)).laplace.kl
    if better != (fits.laplace.kl < lap6):
        return ("compare Laplace's KL at N = 6 (the preset) with its KL at N = 50: does more data bring the "
                "Gaussian at the mode closer to the posterior here, or push it out of a thinner ridge?")
    return None


def _wrong_q1(ns):
    panel = ToyExplorer()  # a panel of its own: the lesson's stays as shown
    with panel.hold(update=False):
        panel.controls["n"].value = _EX1_N
    fits = _panel_fits(panel)
    lap6 = fit_all(make_posterior(**PAPER_PRESET)).laplace.kl
    # read the diagonal row instead of the full one, and guess that more data helps Laplace
    return {"ex1_panel": panel, "kl_full_N50": fits.diagonal.kl, "laplace_better_with_more_data":
            not (fits.laplace.kl < lap6)}


#: symmetric positive definite precisions the check of exercise 2 tries
_Q2_PRECISIONS = (np.array([[2.0, 0.9], [0.9, 1.0]]), np.array([[5.0, -1.5], [-1.5, 0.8]]),
                  np.array([[1.0, 0.2, 0.1], [0.2, 3.0, -0.7], [0.1, -0.7, 2.0]]))


def _diagonal_fit(A):
    """The library's diagonal KL fit to N(0, A⁻¹), as a LinearGaussianPosterior with that precision."""
    k = len(A)
    # A = α I + β ΦᵀΦ with β = 1: Φ from the Cholesky factor of A − α I (α small enough)
    alpha = 0.5 * float(np.linalg.eigvalsh(A).min())
    phi = np.linalg.cholesky(A - alpha * np.eye(k)).T
    post = LinearGaussianPosterior(phi, np.zeros(k), alpha=alpha, beta=1.0)
    return kl_fit(post, "diagonal")


def _check_q2(diag_variances, kl_min):
    f = function("diag_variances", diag_variances, "diag_variances(A)")
    g = function("kl_min", kl_min, "kl_min(A)")
    for A in _Q2_PRECISIONS:
        got = np.asarray(f(A), dtype=float)
        if got.shape != (len(A),):
            raise AnswerError(f"diag_variances(A) must return one variance per weight (shape ({len(A)},)), "
                              f"got shape {got.shape}")
        fit = _diagonal_fit(A)
        if not np.allclose(got, np.diag(fit.cov), rtol=1e-4):
            return ("set the derivative of KL with respect to d_i² to zero: KL = ½[Tr(AC) − ln|C| + …], "
                    "and only A's diagonal meets a diagonal C. (The posterior's marginal variances are "
                    "(A⁻¹)_ii, which is not the same thing.)")
        if not close(real("kl_min(A)", g(A)), fit.kl, 1e-4):
            return "put d_i² back into KL = ½[Tr(AC) − k − ln|C| − ln|A|] (the mean term vanishes at w̄ = m)."
    return None


def _wrong_q2(ns):
    # the posterior's marginal variances in place of the fitted ones, and the minimum with its sign flipped
    return {"diag_variances": lambda A: np.diag(np.linalg.inv(A)),
            "kl_min": lambda A: 0.5 * (np.linalg.slogdet(A)[1] - np.log(np.diag(A)).sum())}


def _preset_full_fit():
    return fit_all(make_posterior(**PAPER_PRESET)).full


def _check_q3(kl_mirrored):
    kl = real("kl_mirrored", kl_mirrored)
    full = _preset_full_fit()
    if not close(kl, full.kl, 1e-6):
        return ("mirror the whole mean, w̄ → −w̄ (both u and v), keep C, and evaluate post.kl(mean, cov); "
                "compare with fits.full.kl.")
    return None


def _wrong_q3(ns):
    full = _preset_full_fit()
    post = make_posterior(**PAPER_PRESET)
    return {"kl_mirrored": post.kl(full.mean * np.array([-1.0, 1.0]), full.cov)}  # only u mirrored


def _check_q4(ex4_panel, kl_floor):
    if not isinstance(ex4_panel, ToyExplorer):
        raise AnswerError(f"ex4_panel must be a ToyExplorer panel, got {type(ex4_panel).__name__}")
    floor = real("kl_floor", kl_floor)
    if not close(floor, math.log(2), 1e-3):
        return ("if P is half P₊ and half P₋ with no overlap and Q sits inside P₊, then ln P = ln P₊ − ln 2 "
                "wherever Q is: what does that add to KL(Q‖P)? Give it in nats.")
    full = _panel_fits(ex4_panel).full
    if not np.all(np.abs(full.mean) <= 0.05 * np.sqrt(np.diag(full.cov))):
        return ("find sliders where the full-KL Gaussian (green) is centred on the origin: the two modes must "
                "merge into one blob (a strong prior α, a large noise s.d., few data).")
    return None


def _wrong_q4(ns):
    return {"ex4_panel": ToyExplorer(), "kl_floor": 1.0}  # the preset (two separated modes), and 1 bit in nats


#: lesson 1's exercises (the notebook's ``check("q1")``; otter's tests call the same checks)
EXERCISES = ExerciseSet("01_toy_posterior_laplace_vs_kl.ipynb", (
    Exercise("q1", ("ex1_panel", "kl_full_N50", "laplace_better_with_more_data"), _check_q1, _wrong_q1,
             uses_panel="panel"),
    Exercise("q2", ("diag_variances", "kl_min"), _check_q2, _wrong_q2),
    Exercise("q3", ("kl_mirrored",), _check_q3, _wrong_q3),
    Exercise("q4", ("ex4_panel", "kl_floor"), _check_q4, _wrong_q4, uses_panel="panel"),
))



def table_sentences(rows: list[dict]) -> str:
    """What the KL table says, in sentences written from its numbers (the lesson displays them)."""
    rows = check.records("rows", rows, ("laplace", "diagonal", "full"))
    lap = np.array([r["laplace"] for r in rows])
    dia = np.array([r["diagonal"] for r in rows])
    ful = np.array([r["full"] for r in rows])
    held = int(np.sum((lap > dia) & (dia > ful)))
    fits = np.concatenate([dia, ful])
    below = "all below" if dia.max() < PAPER_KL["diagonal"] and ful.max() < PAPER_KL["full"] else "not all below"
    return (f"The ordering Laplace > diagonal > full holds on {held} of the {len(rows)} data sets in the table; "
            f"Laplace's KL runs from {lap.min():.3g} to {lap.max():.3g} nats, at least {np.min(lap / dia):.2f} "
            f"times the diagonal fit's. The KL fits stay between {fits.min():.2f} and {fits.max():.2f} nats "
            f"(diagonal {dia.min():.2f}–{dia.max():.2f}, full {ful.min():.2f}–{ful.max():.2f}), "
            f"{below} the "
            f"paper's {PAPER_KL['diagonal']:g} / {PAPER_KL['full']:g}.")




def fits_table(fits: ToyFits, names=("laplace", "diagonal", "full", "factor")) -> Table:
    """Each fit's mean, KL(Q‖P) and bound F[Q] (§3 of the lesson) as a table."""
    check.instance("fits", fits, ToyFits)
    names = _fit_names(fits, names)
    rows = [(n, str(np.round(getattr(fits, n).mean, 3)), f"{getattr(fits, n).kl:.3f}", f"{getattr(fits, n).bound:.3f}")
            for n in names]
    return Table(("fit", "mean (u, v)", "KL(Q‖P)", "bound F[Q]"), rows, widths=(8, 17, 9, 10))


def self_check_tables(fits: ToyFits) -> tuple[Table, Table]:
    """The self-check: (our KL beside the paper's Fig. 2, the library's ln P(D) − F[Q] beside an
    independent brute-force 2-D quadrature of ∫ Q ln(Q/P))."""
    check.instance("fits", fits, ToyFits)
    names = ("laplace", "diagonal", "full")
    paper = Table(("", "this data set", "paper (Fig. 2)"),
                  [(n, f"{getattr(fits, n).kl:.2f}", f"{PAPER_KL[n]:.1f}") for n in names], widths=(10, 14, 15))
    quad = Table(("", "ln P(D) - F[Q]", "2-D quadrature"),
                 [(n, f"{getattr(fits, n).kl:.6f}",
                   f"{kl_by_quadrature(fits.posterior, getattr(fits, n).mean, getattr(fits, n).cov):.6f}")
                  for n in names], widths=(10, 14, 15))
    return paper, quad




def _fit_names(fits, names) -> list:
    """``names``: a non-empty sequence of the fits ``fits`` holds (laplace, diagonal, full, factor)."""
    names = check.sequence("names", names)
    if not names or not all(isinstance(n, str) and isinstance(getattr(fits, n, None), (KLFit, LaplaceFit))
                            for n in names):
        raise ValueError(f"names must be a non-empty sequence of the fits held (laplace, diagonal, full, factor), "
                         f"got {names!r}")
    return names


def _check_axes_grid(axes) -> None:
    """``axes``: the four matplotlib Axes of a 2 × 2 figure (posterior, Laplace, diagonal, full)."""
    flat = np.ravel(np.asarray(axes, dtype=object))
    if isinstance(axes, Axes) or flat.size != 4 or not all(isinstance(a, Axes) for a in flat):
        raise ValueError(f"axes must be four matplotlib Axes (new_figure(..., nrows=2, ncols=2)), "
                         f"got {type(axes).__name__}")


#: the lesson's public names: what its notebook and the benchmarks use (issue 31)
__all__ = ["EXERCISES", "PAPER_KL", "PAPER_PRESET", "TOY_V_TRUE", "ToyExplorer", "fits_table",
           "kl_summary_table", "load_kl_table", "plot_fig2", "plot_kl_table", "self_check_tables",
           "summarise_table", "table_sentences"]
