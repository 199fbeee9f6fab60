"""Lesson 6, §1: Occam's razor where everything is exact (MacKay "Probable networks" §1.5–1.8, §4).

* :func:`polynomial_occam`: polynomial models of degree 0 … 7 (linear in the weights) with Gamma
  hyperpriors: the exact ln P(D) (quadrature over ln α, ln β;
  :func:`~ensemble_lib.inference.model_comparison.exact_log_evidence`), MacKay's (30) and the
  ensemble's bound F* (full covariance, :func:`~ensemble_lib.fit_ensemble`; Barber & Bishop §2.2);
* :func:`toy_occam`: the 2-weight toy at fixed α, β: exact ln P(D|α,β) by quadrature, Laplace's
  (20) with the mirror factor 2, and the full-covariance bound F;
* :func:`format_occam`, :func:`plot_occam`, :func:`occam_figure`: their table and figure;
* both tables are stored, so the lesson fits nothing here: :mod:`.occam_store`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...core import validation as check
from ...inference.evidence import evidence_reestimation, laplace_evidence
from ...inference.hyperparameters import GammaHyperprior, HyperparameterConvergenceWarning
from ...inference.kl_fit import kl_fit
from ...inference.model_comparison import exact_log_evidence, model_log_evidence
from ...inference.network_fits import fit_ensemble
from ...models.linear import LinearGaussianPosterior
from ...models.toy import make_posterior
from ...ui.plotting import new_figure, style
from ...ui.tables import Table

#: the hyperpriors of the exact Occam comparison (Barber & Bishop's broad ones)
OCCAM_PRIOR = GammaHyperprior()


def polynomial_data(n: int = 20, seed: int = 0, noise_sd: float = 0.2):
    """``x`` uniform in (−1, 1), ``t = x − 2x³ + 0.5`` plus N(0, noise_sd²) noise (a cubic)."""
    n = check.integer("n", n, low=3, high=10_000)
    noise_sd = check.positive("noise_sd", noise_sd)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = rng.uniform(-1.0, 1.0, n)
    return x, x - 2.0 * x**3 + 0.5 + noise_sd * rng.standard_normal(n)


def polynomial_design(x, degree: int) -> np.ndarray:
    """Legendre features P_0(x) … P_degree(x) (well conditioned on (−1, 1))."""
    degree = check.integer("degree", degree, low=0, high=20)
    return np.polynomial.legendre.legvander(np.asarray(x, dtype=float), degree)


@dataclass(frozen=True)
class OccamRow:
    """One model: exact ln P(D), MacKay (30), the bound F*, and their gaps."""

    label: str
    k: int
    log_evidence_exact: float
    log_evidence_laplace: float
    bound: float


@lru_cache(maxsize=4)
def polynomial_occam(degrees: tuple = tuple(range(8)), n: int = 20, seed: int = 0) -> tuple:
    """:class:`OccamRow` per polynomial degree (module docstring), Gamma hyperpriors :data:`OCCAM_PRIOR`."""
    degrees = [check.integer("degrees", d, low=0, high=15) for d in check.sequence("degrees", degrees)]
    if not degrees:
        raise ValueError("degrees must be a non-empty sequence of integers in [0, 15], got none")
    x, t = polynomial_data(n, seed)
    rows = []
    for deg in degrees:
        lin = LinearGaussianPosterior(polynomial_design(x, deg), t, 1.0, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
            run = evidence_reestimation(lin, tol=1e-10, exact=False)
        lap = model_log_evidence(run, prior=OCCAM_PRIOR).log_evidence
        exact = exact_log_evidence(lin.with_hyperparameters(alpha=run.alpha_final, beta=run.beta_final),
                                   OCCAM_PRIOR)
        fit = fit_ensemble(lin, OCCAM_PRIOR, "full", init=[(run.final.mean, run.final.cov)], gtol=1e-8)
        rows.append(OccamRow(f"degree {deg}", lin.dim, exact, lap, fit.bound))
    return tuple(rows)


@lru_cache(maxsize=4)
def toy_occam(alphas: tuple = (0.02, 0.2, 2.0, 20.0), seed: int = 25) -> tuple:
    """The toy at fixed α (β = 100): exact ln P(D|α,β), Laplace (20) with factor 2, full-covariance F."""
    alphas = [check.precision("alphas", a) for a in check.sequence("alphas", alphas)]
    if not alphas:
        raise ValueError("alphas must be a non-empty sequence of precisions in [1e-08, 1e+08], got none")
    seed = check.integer("seed", seed, low=0)
    rows = []
    for a in alphas:
        post = make_posterior(seed=seed, alpha=a)
        lap = laplace_evidence(post, symmetry_factor=2).log_evidence
        fit = kl_fit(post, "full")
        rows.append(OccamRow(f"α = {a:g}", 2, float(post.log_evidence), lap, fit.bound))
    return tuple(rows)


def format_occam(rows) -> Table:
    """The table of :class:`OccamRow` s (text; an HTML table in a notebook)."""
    rows = _rows("rows", rows)
    cells = [(r.label, f"{r.log_evidence_exact:.4f}", f"{r.log_evidence_laplace:.4f}", f"{r.bound:.4f}",
              f"{r.log_evidence_laplace - r.log_evidence_exact:+.4f}", f"{r.log_evidence_exact - r.bound:.4f}")
             for r in rows]
    return Table(("model", "ln P(D) exact", "Laplace (30)", "bound F*", "Laplace-exact", "exact-F*"), cells,
                 widths=(-12, 14, 13, 10, 14, 9))


def plot_occam(ax, rows, title: str = "", fixed: bool = False):
    """Exact ln P(D), Laplace and the bound per model; ``fixed``: at fixed α, β (MacKay (20), F)."""
    k = np.arange(len(rows))
    ax.plot(k, [r.log_evidence_exact for r in rows], **style("exact", markevery=None),
            label="exact ln P(D|α,β)" if fixed else "exact ln P(D)")
    ax.plot(k, [r.log_evidence_laplace for r in rows], **style("laplace", markevery=None),
            label="Laplace, MacKay (20) × 2 modes" if fixed else "Laplace, MacKay (30)")
    ax.plot(k, [r.bound for r in rows], **style("full", markevery=None),
            label="bound F (full Q)" if fixed else "bound F*")
    ax.set_xticks(k, [r.label.split()[-1] for r in rows])
    ax.set_ylabel("nats")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)


def occam_figure(poly=None, toy=None):
    """Both tables as curves: ``poly`` and ``toy`` are their rows (default: computed,
    :func:`polynomial_occam` and :func:`toy_occam`; the lesson passes the stored ones,
    :func:`~ensemble_lib.lessons.model_choice.occam_store.load_occam`)."""
    poly = polynomial_occam() if poly is None else _rows("poly", poly)
    toy = toy_occam() if toy is None else _rows("toy", toy)
    fig, axes = new_figure(10.0, 3.8, ncols=2)
    plot_occam(axes[0], poly, "polynomial degree (linear model, N = 20)")
    plot_occam(axes[1], toy, "toy at fixed α (β = 100)", fixed=True)
    axes[1].set_xlabel("prior precision α")
    axes[0].set_xlabel("degree")
    return fig, axes


def _rows(name: str, rows) -> tuple:
    rows = check.sequence(name, rows)
    if not rows or not all(isinstance(r, OccamRow) for r in rows):
        raise ValueError(f"{name} must be a non-empty sequence of OccamRow (polynomial_occam(), toy_occam(), "
                         f"occam_store.load_occam()), got {rows!r:.80}")
    return tuple(rows)


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["OCCAM_PRIOR", "format_occam", "occam_figure", "polynomial_occam", "toy_occam"]
