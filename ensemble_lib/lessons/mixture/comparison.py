"""Lesson 7's fits and tables: mixtures of K = 1 … 4 Gaussians fitted to a toy posterior with the entropy
by quadrature and by its lower bound, remembered per (α, seed); the tables the notebook shows and how a
mixture is drawn."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ...core import validation as check
from ...inference.kl_fit import KLFit, kl_fit
from ...inference.mixture import (MixtureFit, MixtureLadder, entropy_lower_bound, iter_mixture_ladder, mirror_overlap,
                                  mixture_entropy)
from ...models.toy import PAPER_PRESET, ToyPosterior, kl_by_quadrature, make_posterior
from ...core.gaussian import gaussian_entropy
from ...ui.memo import LRUMemo
from ...ui.tables import Table
from ...ui.plotting import COLORS, STYLES, plot_gaussian_ellipses


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


__all__ = ["K_MAX", "entropy_table", "fit_mixtures", "forget_mixtures", "kl_check_table", "ladder_table",
           "mixtures_for"]
