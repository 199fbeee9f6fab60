"""Lesson 3, §5: cheap and cheerful re-estimation (MacKay §9.1) and the error bars on ln α (eq. 25).

MacKay (1995), "Probable networks", §3 eqs (22)–(25) and §9.1. Both on a model linear in its
weights, where ln P(D | α, β) is exact (so MacKay's fixed point *is* the exact evidence maximum):
Gaussian bumps φ_j(x) = exp(−(x − c_j)²/2s²) fitted to noisy sin(2πx) on [0, 1].

* :func:`bumps_posterior`: the model, with ``n_far`` extra bumps centred at 2, 2.5, … where there
  are no data: each adds a parameter the data do not determine (k grows, γ does not);
* :func:`cheap_comparison`: for each ``n_far``, MacKay's re-estimation (22)–(24), the cheap rule
  α := k/Σw², β := N/2E_D (:func:`~ensemble_lib.inference.evidence.cheap_reestimation`) and the
  exact maximiser by brute force (:func:`~ensemble_lib.inference.evidence.evidence_grid`);
  :func:`cheap_table`, :func:`plot_cheap`;
* :func:`log_alpha_cases`: the exact posterior of ln α at β = β_MP (flat prior on ln α over the
  library's range) where γ is small and where it is large, beside √(2/γ)
  (:func:`~ensemble_lib.inference.model_evidence.log_alpha_posterior`); :func:`log_alpha_table`,
  :func:`plot_log_alpha`;
* :func:`reestimation_figure`: the three panels together.

Symbols → code: k → ``k``; γ → ``gamma``; k − γ → ``poorly_determined``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ...core import validation as check
from ...inference.evidence import cheap_reestimation, evidence_grid, evidence_reestimation
from ...inference.model_evidence import LogAlphaPosterior, log_alpha_posterior
from ...inference.reestimation import HyperparameterConvergenceWarning
from ...models.linear import LinearGaussianPosterior
from ...ui.plotting import new_figure, style
from ...ui.tables import Table

#: the data and the bumps over them for the cheap-vs-MacKay sweep: N points, sin(2πx) of amplitude
#: ``amp`` plus noise of s.d. ``noise``, ``n_near`` bumps of width ``width`` centred on [0, 1]
CHEAP_CASE = dict(N=30, amp=1.0, noise=0.2, n_near=5, width=0.25, seed=9)
#: numbers of bumps placed away from the data in the sweep
FAR_COUNTS = tuple(range(0, 31, 2))
#: the two regimes of the ln α error bars: γ small (2 broad bumps, 20 noisy points) and γ large
#: (30 narrow bumps, 200 points)
ERRORBAR_CASES = {
    "small": dict(N=20, amp=1.0, noise=0.3, n_near=2, width=0.4, seed=9),
    "large": dict(N=200, amp=1.0, noise=0.2, n_near=30, width=0.05, seed=9),
}
#: the keyword arguments of :func:`bumps_posterior` a case may set
_CASE_KEYS = ("N", "amp", "noise", "n_near", "width", "seed")


def _case(name: str, case) -> dict:
    """``case`` if it is a dict of :func:`bumps_posterior`'s keyword arguments (checked when it is called)."""
    if not isinstance(case, dict) or not all(isinstance(k, str) and k in _CASE_KEYS for k in case):
        raise ValueError(f"{name} must be a dict of bumps_posterior's keyword arguments "
                         f"({', '.join(_CASE_KEYS)}), got {case!r:.80}")
    return case


def _log_alpha_cases(cases) -> dict:
    """``cases`` if it is a non-empty dict of name -> :class:`LogAlphaCase` (what :func:`log_alpha_cases` returns)."""
    if not isinstance(cases, dict) or not cases or not all(isinstance(c, LogAlphaCase) for c in cases.values()):
        raise ValueError(f"cases must be a non-empty dict of name -> LogAlphaCase (log_alpha_cases()), "
                         f"got {type(cases).__name__}")
    return cases


def bumps_posterior(n_far: int = 0, *, N: int = 30, amp: float = 1.0, noise: float = 0.2, n_near: int = 5,
                    width: float = 0.25, seed: int = 9) -> LinearGaussianPosterior:
    """Noisy sin(2πx) at N points of [0, 1] and ``n_near`` + ``n_far`` Gaussian bumps (α = 1, β = 10).

    ``n_near`` bumps are centred evenly on [0, 1], the ``n_far`` others at 2, 2.5, 3, … (at least
    four widths from every data point for the default width): the data hardly see them.
    """
    n_far = check.integer("n_far", n_far, low=0, high=500)
    N = check.integer("N", N, low=2, high=100_000)
    n_near = check.integer("n_near", n_near, low=1, high=500)
    amp = check.positive("amp", amp)
    noise = check.positive("noise", noise)
    width = check.positive("width", width)
    seed = check.integer("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 1.0, N))
    t = amp * np.sin(2 * np.pi * x) + noise * rng.normal(size=N)
    c = np.concatenate([np.linspace(0.0, 1.0, n_near), 2.0 + 0.5 * np.arange(n_far)])
    Phi = np.exp(-0.5 * ((x[:, None] - c[None, :]) / width) ** 2)
    return LinearGaussianPosterior(Phi, t, 1.0, 10.0)


@dataclass(frozen=True)
class CheapComparison:
    """The sweep of :func:`cheap_comparison`, one entry per number of far bumps.

    ``alpha_cheap``, ``beta_cheap`` are the cheap rule's last values (its fixed point where
    ``cheap_converged``, else where it stopped, α at the limit); ``alpha_mackay`` … MacKay's fixed
    point, ``alpha_exact`` … the brute-force maximiser of the exact evidence; ``gamma`` is γ at
    MacKay's fixed point.
    """

    n_far: np.ndarray
    k: np.ndarray
    gamma: np.ndarray
    alpha_mackay: np.ndarray
    beta_mackay: np.ndarray
    alpha_exact: np.ndarray
    beta_exact: np.ndarray
    alpha_cheap: np.ndarray
    beta_cheap: np.ndarray
    cheap_converged: np.ndarray
    n_data: int

    @property
    def poorly_determined(self) -> np.ndarray:
        """k − γ at MacKay's fixed point: the number of poorly determined parameters."""
        return self.k - self.gamma

    @property
    def first_singular(self) -> int | None:
        """The index of the first sweep entry where the cheap rule has no fixed point (None if none)."""
        bad = np.flatnonzero(~self.cheap_converged)
        return int(bad[0]) if bad.size else None


def cheap_comparison(far_counts=FAR_COUNTS, case: dict | None = None) -> CheapComparison:
    """MacKay's (22)–(24), the cheap §9.1 rule and the exact maximiser, for each number of far bumps.

    Parameters
    ----------
    far_counts : sequence of int
        Numbers of bumps away from the data (each ≥ 0), increasing.
    case : dict, optional
        Keyword arguments of :func:`bumps_posterior` (default :data:`CHEAP_CASE`).
    """
    counts = [check.integer("far_counts[i]", n, low=0, high=500) for n in np.atleast_1d(far_counts)]
    if not counts or any(b <= a for a, b in zip(counts, counts[1:])):
        raise ValueError(f"far_counts must be a non-empty increasing sequence of integers >= 0, got {far_counts!r}")
    case = dict(CHEAP_CASE if case is None else _case("case", case))
    rows = []
    for n_far in counts:
        post = bumps_posterior(n_far, **case)
        mk = evidence_reestimation(post, tol=1e-10, max_iter=5000, exact=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HyperparameterConvergenceWarning)  # the singular runs: recorded
            ch = cheap_reestimation(post, tol=1e-10, max_iter=5000, exact=False)
        la, lb = math.log(mk.alpha_final), math.log(mk.beta_final)
        grid = evidence_grid(post, la + np.linspace(-2, 2, 5), lb + np.linspace(-2, 2, 5), refine=True)
        rows.append((n_far, post.dim, mk.gamma_final, mk.alpha_final, mk.beta_final, grid.alpha_max,
                     grid.beta_max, ch.alpha_final, ch.beta_final, ch.converged))
    cols = list(zip(*rows))
    return CheapComparison(
        n_far=np.array(cols[0]), k=np.array(cols[1]), gamma=np.array(cols[2]), alpha_mackay=np.array(cols[3]),
        beta_mackay=np.array(cols[4]), alpha_exact=np.array(cols[5]), beta_exact=np.array(cols[6]),
        alpha_cheap=np.array(cols[7]), beta_cheap=np.array(cols[8]), cheap_converged=np.array(cols[9], dtype=bool),
        n_data=int(case.get("N", CHEAP_CASE["N"])),
    )


def cheap_table(comp: CheapComparison, rows=None) -> Table:
    """One row per sweep entry (or the indices ``rows``): k, γ, k − γ and the three answers' α, β."""
    check.instance("comp", comp, CheapComparison, "a CheapComparison (cheap_comparison())")
    n = comp.n_far.size
    idx = range(n) if rows is None else [check.integer("rows[i]", i, low=0, high=n - 1)
                                         for i in check.sequence("rows", rows)]
    out = []
    for i in idx:
        cheap_a = f"{comp.alpha_cheap[i]:.4g}" if comp.cheap_converged[i] else "→ ∞"
        out.append((f"{comp.n_far[i]}", f"{comp.k[i]}", f"{comp.gamma[i]:.2f}", f"{comp.poorly_determined[i]:.2f}",
                    f"{comp.alpha_exact[i]:.4g}", f"{comp.alpha_mackay[i]:.4g}", cheap_a,
                    f"{comp.beta_exact[i]:.4g}", f"{comp.beta_mackay[i]:.4g}",
                    f"{comp.beta_cheap[i]:.4g}" if comp.cheap_converged[i] else "—"))
    return Table(("far bumps", "k", "γ", "k − γ", "α exact", "α MacKay", "α cheap", "β exact", "β MacKay",
                  "β cheap"), out)


def plot_cheap(ax, comp: CheapComparison):
    """α against k − γ: the exact maximiser, MacKay's fixed point and the cheap one (× where singular)."""
    x = comp.poorly_determined
    ok = comp.cheap_converged
    arts = {
        "exact": ax.plot(x, comp.alpha_exact, label="exact maximiser", **style("posterior", lw=3, alpha=0.4))[0],
        "mackay": ax.plot(x, comp.alpha_mackay, label="MacKay (22)–(24)", **style("laplace"))[0],
        "cheap": ax.plot(x[ok], comp.alpha_cheap[ok], label="cheap: α := k/Σw²", **style("moderated"))[0],
        "first_order": ax.plot(x, comp.alpha_mackay * comp.k / comp.gamma, label="α_MP · k/γ (first order)",
                               color=style("moderated")["color"], linestyle=":", linewidth=1)[0],
    }
    top = float(np.max(comp.alpha_cheap[ok])) * 3 if ok.any() else 10.0
    if (~ok).any():
        arts["singular"] = ax.plot(x[~ok], np.full((~ok).sum(), top), linestyle="None", marker="x",
                                   color=style("moderated")["color"], label="cheap: no fixed point (α → ∞)")[0]
    ax.set_yscale("log")
    ax.set_ylim(0.5 * float(np.min(comp.alpha_exact)), 30 * top)  # room for the legend above the curves
    ax.set_xlabel("k − γ  (poorly determined parameters)")
    ax.set_ylabel("α")
    ax.set_title("MacKay §9.1: cheap vs γ-based re-estimation")
    ax.legend(loc="upper left")
    return arts


@dataclass(frozen=True)
class LogAlphaCase:
    """One regime of the ln α error bars: the evidence run at its optimum and p(ln α | D, β_MP)."""

    name: str
    n_data: int
    k: int
    posterior: LogAlphaPosterior


def log_alpha_cases(cases: dict | None = None) -> dict:
    """``{name: LogAlphaCase}`` for each case of :data:`ERRORBAR_CASES` (or ``cases``): MacKay's
    re-estimation to its optimum, then the exact p(ln α | D, β_MP) with a flat prior on ln α."""
    if cases is not None and (not isinstance(cases, dict) or not cases):
        raise ValueError(f"cases must be a non-empty dict of name -> bumps_posterior's keyword arguments, "
                         f"got {cases!r:.80}")
    cases = ERRORBAR_CASES if cases is None else {n: _case(f"cases[{n!r}]", kw) for n, kw in cases.items()}
    out = {}
    for name, kw in cases.items():
        post = bumps_posterior(0, **kw)
        run = evidence_reestimation(post, tol=1e-12, max_iter=5000, exact=False)
        if not run.converged:
            raise ValueError(f"cases[{name!r}]: MacKay's re-estimation did not converge ({run.notes})")
        r = log_alpha_posterior(post.with_hyperparameters(alpha=run.alpha_final, beta=run.beta_final))
        out[name] = LogAlphaCase(name, post.n_data, post.dim, r)
    return out


def log_alpha_table(cases: dict) -> Table:
    """γ, √(2/γ) (25), the exact curvature's width and the exact posterior s.d., per regime."""
    rows = []
    for c in _log_alpha_cases(cases).values():
        r = c.posterior
        rows.append((c.name, f"{c.n_data}", f"{c.k}", f"{r.gamma:.2f}", f"{r.mackay_sd:.3f}", f"{r.curvature_sd:.3f}",
                     f"{r.sd:.3f}", f"{r.mackay_sd / r.sd:.2f}", f"{r.mean - r.mode:+.2f}"))
    return Table(("γ regime", "N", "k", "γ", "√(2/γ) (25)", "curvature s.d.", "exact s.d.", "(25)/exact",
                  "mean − mode"), rows)


def plot_log_alpha(ax, case: LogAlphaCase, span: float | None = None):
    """The exact p(ln α | D, β_MP) against ln α − ln α_MP, with the Gaussian of (25) over it, over
    ± ``span`` (default four of the larger of the two s.d.s)."""
    r = case.posterior
    span = 4.0 * max(r.sd, r.mackay_sd) if span is None else check.positive("span", span)
    x = r.log_alpha - r.mode
    keep = np.abs(x) <= span
    g = np.exp(-0.5 * (x[keep] / r.mackay_sd) ** 2) / (math.sqrt(2 * math.pi) * r.mackay_sd)
    arts = {
        "exact": ax.plot(x[keep], r.density[keep], label="exact (flat prior on ln α)",
                         **style("posterior", marker="None"))[0],
        "mackay": ax.plot(x[keep], g, label=f"(25): s.d. √(2/γ) = {r.mackay_sd:.2f}",
                          **style("laplace", marker="None"))[0],
    }
    ax.set_xlabel("ln α − ln α_MP")
    ax.set_ylabel("p(ln α | D, β_MP)")
    ax.set_title(f"γ = {r.gamma:.2f} (k = {case.k}, N = {case.n_data}): exact s.d. {r.sd:.2f}")
    ax.legend(loc="upper right")
    return arts


def reestimation_figure(comp: CheapComparison, cases: dict):
    """The cheap-vs-MacKay sweep and the ln α posterior in each regime, side by side."""
    check.instance("comp", comp, CheapComparison, "a CheapComparison (cheap_comparison())")
    cases = _log_alpha_cases(cases)
    fig, axes = new_figure(13.0, 3.8, ncols=1 + len(cases))
    plot_cheap(axes[0], comp)
    for ax, case in zip(axes[1:], cases.values()):
        plot_log_alpha(ax, case)
    return fig, axes


#: the public names: what lesson 3's notebook uses (plot_cheap and plot_log_alpha are reestimation_figure's panels)
__all__ = ["CHEAP_CASE", "ERRORBAR_CASES", "FAR_COUNTS", "CheapComparison", "LogAlphaCase", "bumps_posterior",
           "cheap_comparison", "cheap_table", "log_alpha_cases", "log_alpha_table", "reestimation_figure"]
