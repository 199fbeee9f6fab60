"""Lesson 6, §1: Laplace's evidence as a basin's mass (MacKay §4.1) against the exact mass (the toy).

The toy of §1's second table (seed 25, β = 100, α = 0.02 … 20) has two mirror-image modes. MacKay
(§4.1) reads Laplace's evidence at a mode as the posterior mass of that mode's basin, and counts
the mirror mode with a factor 2; Barber & Bishop (NIPS, Fig. 1) say Laplace "underestimates the
local posterior mass by basing the covariance matrix on the mode alone". The library
(:func:`~ensemble_lib.inference.local_mass.toy_local_mass`) sums the exact mass of the basin on a
grid; here it is staged:

* :func:`local_mass_rows` — one :class:`~ensemble_lib.inference.local_mass.LocalMass` per α;
* :func:`format_local_mass`, :func:`local_mass_sentence` — the table and its reading, written from
  the numbers when the lesson runs;
* :func:`local_mass_figure` — the posterior at α = 0.2 with its two basins and Laplace's ellipses,
  and Laplace's error in the basin's mass against α;
* :data:`LOCAL_MASS_EXERCISE` — the section's exercise (lesson 6's ``q6``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ...core import validation as check
from ...inference.laplace import laplace_fit
from ...inference.local_mass import GAUSSIAN_INSIDE, LocalMass, toy_local_mass
from ...models.toy import make_posterior
from ...ui.exercises import Exercise, close, real
from ...ui.plotting import new_figure, plot_gaussian_ellipses, plot_posterior_contours, style
from ...ui.tables import Table

#: the toy of §1's table (the paper-like preset's data) and its α values
SEED, ALPHAS = 25, (0.02, 0.2, 2.0, 20.0)
#: grid points per axis of the basin sums (0.1 s per α; the basin masses to 2e-4 nats)
N_GRID = 301
#: the α of the figure's left panel and of the exercise
FIG_ALPHA, EX_ALPHA = 0.2, 2.0


def local_mass_rows(alphas=ALPHAS, seed: int = SEED) -> tuple:
    """:class:`~ensemble_lib.inference.local_mass.LocalMass` of the (−, −) mode for each α (β = 100)."""
    alphas = tuple(check.precision("alphas", a) for a in check.sequence("alphas", alphas))
    if not alphas:
        raise ValueError("alphas must be a non-empty sequence of finite numbers > 0, got none")
    return _local_mass_rows(alphas, check.integer("seed", seed, low=0))


@lru_cache(maxsize=4)
def _local_mass_rows(alphas: tuple, seed: int) -> tuple:
    return tuple(toy_local_mass(make_posterior(seed=seed, alpha=a), n=N_GRID) for a in alphas)


def _rows(rows) -> list:
    """``rows`` as a list if it is a non-empty sequence of LocalMass (what :func:`local_mass_rows` returns)."""
    out = check.sequence("rows", rows)
    if not out or not all(isinstance(r, LocalMass) for r in out):
        raise ValueError(f"rows must be a non-empty sequence of LocalMass (local_mass_rows()), got "
                         f"{[type(r).__name__ for r in out][:4]}")
    return out


def format_local_mass(rows) -> Table:
    """ln M of the basin (exact), Laplace's, their differences, and the share inside Laplace's ellipses."""
    rows = _rows(rows)
    cells = [(f"α = {r.alpha:g}", f"{r.log_basin_mass:.4f}", f"{r.log_laplace_mass:.4f}", f"{r.laplace_excess:+.4f}",
              f"{r.marginal_laplace_excess:+.4f}", f"{100 * r.inside_1sd:.1f} %", f"{100 * r.inside_2sd:.1f} %")
             for r in rows]
    return Table(("mode's basin", "ln M exact", "ln M Laplace", "Laplace-exact", "u-marginal-exact",
                  "in 1σ", "in 2σ"), cells, widths=(-12, 10, 12, 13, 16, 7, 7),
                 caption=f"a Gaussian holds {100 * GAUSSIAN_INSIDE[1]:.1f} % inside 1σ, "
                         f"{100 * GAUSSIAN_INSIDE[2]:.1f} % inside 2σ")


def local_mass_sentence(rows) -> str:
    """The section's reading of the table (Markdown), written from its numbers."""
    rows = _rows(rows)
    half = max(abs(r.log_basin_mass - (r.log_Z - math.log(2))) for r in rows)
    ex = [r.laplace_excess for r in rows]
    mex = [r.marginal_laplace_excess for r in rows]
    in2 = [100 * r.inside_2sd for r in rows]
    sign = "over" if min(ex) > 0 else ("under" if max(ex) < 0 else "mis")
    msign = "under" if max(mex) < 0 else ("over" if min(mex) > 0 else "mis")
    big = max(rows, key=lambda r: abs(r.laplace_excess))
    smallest = big.alpha == min(r.alpha for r in rows)
    return (f"Each basin holds half of the exact mass (the grid sum is within {half:.0e} nats of ln Z − ln 2 at "
            f"every α). Laplace's Gaussian at the mode **{sign}estimates** its basin's mass by "
            f"{min(ex):.3f}–{max(ex):.3f} nats, most at {'the smallest ' if smallest else ''}α = {big.alpha:g} "
            f"({big.laplace_excess:.3f}): "
            f"these are the \"Laplace-exact\" numbers of the toy's table above, to the grid's accuracy, because its "
            f"factor 2 counts the mirror basin. "
            f"Yet Laplace's 2σ ellipse holds only {min(in2):.0f}–{max(in2):.0f} % of the basin's mass, where "
            f"a Gaussian holds {100 * GAUSSIAN_INSIDE[2]:.1f} %. Applied to the exact u-marginal instead "
            f"(v integrated out first), Laplace **{msign}estimates** the same mass, by "
            f"{-max(mex):.3f}–{-min(mex):.3f} nats.").replace("e-0", "e−0")


def local_mass_figure(rows=None):
    """Left: the posterior at α = 0.2, its two basins, Laplace's 1σ and 2σ ellipses; right: the errors vs α."""
    rows = local_mass_rows() if rows is None else _rows(rows)
    fig, (ax, bx) = new_figure(10.0, 4.0, ncols=2)
    post = make_posterior(seed=SEED, alpha=FIG_ALPHA)
    grid = post.grid(n=241)
    plot_posterior_contours(ax, grid)
    ax.axvline(0.0, color="0.3", lw=0.8, ls=":", label="basins' boundary (u = 0 where there is mass)")
    for q in ((-1, -1), (1, 1)):
        lap = laplace_fit(post, quadrant=q, compute_kl=False)
        plot_gaussian_ellipses(ax, lap.mean, lap.cov, n_sigmas=(1, 2), color=style("laplace")["color"],
                               linestyle="--", marker="s", label="Laplace 1σ, 2σ" if q[0] < 0 else None)
    ax.set_xlabel("u")
    ax.set_ylabel("v")
    ax.set_title(f"toy posterior, α = {FIG_ALPHA:g}: two basins")
    ax.legend(loc="lower right", fontsize=7)
    a = [r.alpha for r in rows]
    bx.axhline(0.0, color="0.5", lw=0.8)
    bx.plot(a, [r.laplace_excess for r in rows], **style("laplace", markevery=None),
            label="Laplace at the mode (2-D)")
    bx.plot(a, [r.marginal_laplace_excess for r in rows], **style("diagonal", markevery=None),
            label="Laplace on the u-marginal")
    bx.set_xscale("log")
    bx.set_xlabel("prior precision α")
    bx.set_ylabel("ln M(Laplace) − ln M(basin), nats")
    bx.set_title("error in the basin's mass (> 0: over)")
    bx.legend(loc="lower right", fontsize=7)
    return fig


# -- the exercise (lesson 6's q6) ------------------------------------------------------------------

def _q6_truth() -> tuple[float, float]:
    post = make_posterior(seed=SEED, alpha=EX_ALPHA)
    lap = laplace_fit(post, compute_kl=False)
    log_m = float(post.log_unnorm(lap.mean)) + math.log(2 * math.pi) - 0.5 * math.log(np.linalg.det(lap.hessian))
    return log_m, log_m - (float(post.log_Z) - math.log(2))


def _check_q6(log_laplace_mass, excess):
    lm = real("log_laplace_mass", log_laplace_mass)
    ex = real("excess", excess)
    want_m, want_ex = _q6_truth()
    if not close(lm, want_m, 1e-6):
        return ("Laplace's mass is the peak height P*(w_MP) = exp(post.log_unnorm(w_MP)) times the Gaussian's volume "
                "(2π)^(k/2) |A|^(−1/2), with A = lap.hessian and k = 2; work in logs.")
    if not close(ex, want_ex, 1e-6):
        if close(ex, want_ex - math.log(2), 1e-6):
            return "post.log_Z is the mass of both basins: one basin holds half of it (the mirror symmetry)."
        return "the excess is ln M(Laplace) − ln M(basin), with ln M(basin) = post.log_Z − ln 2."
    return None


def _wrong_q6(ns):
    m, ex = _q6_truth()
    return {"log_laplace_mass": m, "excess": ex - math.log(2)}  # compared with both basins' mass


LOCAL_MASS_EXERCISE = Exercise("q6", ("log_laplace_mass", "excess"), _check_q6, _wrong_q6)

__all__ = ["ALPHAS", "EX_ALPHA", "FIG_ALPHA", "LOCAL_MASS_EXERCISE", "N_GRID", "SEED", "format_local_mass",
           "local_mass_figure", "local_mass_rows", "local_mass_sentence"]
