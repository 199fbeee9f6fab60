"""Every covariance family fitted from the same starts, each family's best bound kept (a fair comparison).

Comparing Gaussian families (diagonal, factor s, full; B&B (26)) by the predictions of one fit
each is only fair when every family gets the same starts, the same optimiser budget and the same
selection rule. :func:`fit_families` does that for a network posterior with Gamma hyperpriors
(the collapsed bound F*(Q) of B&B (33)–(38), :class:`~ensemble_lib.inference.network_fits.CollapsedBound`):

1. **Shared starts.** Every family is fitted from every start in ``starts`` — typically the
   Laplace Gaussians of several MAP restarts (:func:`laplace_starts`: N(w_MP, A⁻¹), and the
   diagonal variances 1/A_ii and (A⁻¹)_ii a diagonal family needs). A start is mapped into a
   family by :meth:`~ensemble_lib.core.gaussian.CovarianceFamily.pack` (a diagonal family
   keeps the variances, a factor family the s leading eigen-directions).
2. **Every other family's solution as a start.** Then each family is restarted from every other
   family's best solution: a poorer family's solution is embedded exactly (``warm``, so the
   richer family starts at the same bound), a richer family's solution is projected. This is
   repeated, from the solutions that changed in the last round, until no family's best bound
   improves by more than ``tol`` (at most ``max_rounds``).
3. **One selection rule.** Within each family the largest bound wins.

So no family's reported bound improves when it is started from another family's reported
solution (up to ``tol`` and the optimiser's tolerance) — the property the tests check. Every
trial (family, start, bound, convergence) is kept, so a study can show how far apart the local
optima are.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..core import validation as check
from ..core.gaussian import CovarianceFamily, GaussianFactor
from ..core.progress import report
from .hyperparameters import GammaHyperprior
from .kl_fit import LBFGS_MEMORY, KLFitWarning
from .laplace import laplace_diagonal_start
from .network_fits import EnsembleFit, fit_ensemble


@dataclass(frozen=True)
class Family:
    """A covariance family of Q: ``name`` in {"diagonal", "factor", "full"} and its rank s."""

    key: str
    name: str
    rank: int | None = None

    def richness(self, k: int) -> int:
        """0 for diagonal, s for factor s, k for full: a poorer family embeds in a richer one."""
        k = check.integer("k", k, low=1)
        return {"diagonal": 0, "full": k}.get(self.name, self.rank or 0)


def families(ranks=(1,), full: bool = True) -> list[Family]:
    """The Table-1 families: diagonal, factor s for each s in ``ranks`` (integers ≥ 1), and full."""
    ranks = check.ranks("ranks", ranks)
    full = check.flag("full", full)
    out = [Family("ensemble_diagonal", "diagonal")]
    out += [Family(f"ensemble_s{int(r)}", "factor", int(r)) for r in ranks]
    if full:
        out.append(Family("ensemble_full", "full"))
    return out


def laplace_starts(mean, hessian, label: str = "laplace") -> list[tuple]:
    """Starting Gaussians from a Laplace fit N(mean, A⁻¹): A⁻¹, diag(1/A_ii) and diag((A⁻¹)_ii).

    A family with a full or factor covariance uses A⁻¹ (projected); a diagonal family needs
    variances, and the two natural choices — the inverse diagonal of the Hessian and the diagonal
    of its inverse — can lead to different local optima, so both are offered to it (the two
    diagonal starts carry a fourth element, ``("diagonal",)``: the families they are for).
    """
    A = GaussianFactor(hessian, "hessian")
    mean = check.finite_array("mean", mean)
    cov = A.inverse()
    return [(f"{label}:A^-1", mean, cov),
            (f"{label}:1/A_ii", *laplace_diagonal_start(mean, A.matrix), ("diagonal",)),
            (f"{label}:diag(A^-1)", mean, np.diag(np.diag(cov)), ("diagonal",))]


@dataclass(frozen=True)
class Trial:
    """One fit of one family from one start."""

    family: str
    start: str
    bound: float
    converged: bool
    n_iter: int
    fit: EnsembleFit = field(repr=False)


@dataclass(frozen=True)
class FamilySearch:
    """The best fit of every family, which start it came from, and every trial."""

    best: dict
    origin: dict
    trials: list = field(repr=False)
    rounds: int
    #: the last round improved no family (False: ``max_rounds`` ran out first)
    settled: bool = True

    def bound(self, key: str) -> float:
        check.choice("key", key, tuple(self.best))
        return float(self.best[key].bound)


def _fit(post, prior, fam: Family, start, *, gtol, maxiter, rng, maxcor=LBFGS_MEMORY) -> EnsembleFit | None:
    """One start: ``("init", mean, cov)`` or ``("warm", EnsembleFit)``; None if the fit failed."""
    with warnings.catch_warnings():
        # a start that stops early is recorded (``converged``, ``at_limit``) and competes on its
        # bound; fit_families warns if a family's best fit is such a one
        warnings.simplefilter("ignore", KLFitWarning)
        try:
            if start[0] == "warm":
                return fit_ensemble(post, prior, fam.name, fam.rank, warm=start[1], gtol=gtol,
                                    maxiter=maxiter, rng=rng, maxcor=maxcor)
            return fit_ensemble(post, prior, fam.name, fam.rank, init=[(start[1], start[2])],
                                gtol=gtol, maxiter=maxiter, rng=rng, maxcor=maxcor)
        except (RuntimeError, ValueError):
            return None


def fit_families(post, prior: GammaHyperprior | None, starts, fams: list[Family], *,
                 rng: np.random.Generator, gtol: float = 1e-6, maxiter: int = 3000,
                 tol: float = 1e-6, max_rounds: int = 3, progress=None,
                 maxcor: int = LBFGS_MEMORY) -> FamilySearch:
    """Fit every family from every start and from every other family's best; keep each family's best.

    Parameters
    ----------
    post : NetworkPosterior
        Model and data (α, β are adapted through ``prior``).
    prior : GammaHyperprior or None
        Default: B&B's Boston hyperpriors.
    starts : list of (label, mean, cov) or (label, mean, cov, family names)
        Shared starting Gaussians, e.g. :func:`laplace_starts` of several MAP restarts; a
        fourth element restricts a start to the families of those names (e.g. ``("diagonal",)``).
    fams : list of Family
        The families compared (:func:`families`).
    rng : numpy.random.Generator
        Draws the small extra factors of exact warm starts (see
        :func:`~ensemble_lib.inference.network_fits.fit_family`); one child generator per fit.
    gtol, maxiter : float, int
        The same optimiser budget for every fit.
    maxcor : int
        L-BFGS-B's memory (past steps kept), the same for every fit.
    tol : float
        A cross-family restart replaces a family's best only if it raises the bound by more.
    max_rounds : int
        Rounds of cross-family restarts (≥ 1).
    progress : callable, optional
        ``progress(done, total, what=None)`` after each fit of the first stage.

    Returns
    -------
    FamilySearch
    """
    rng = check.generator("rng", rng)
    gtol = check.positive("gtol", gtol)
    tol = check.positive("tol", tol)
    max_rounds = check.integer("max_rounds", max_rounds, low=1, high=20)
    maxcor = check.integer("maxcor", maxcor, low=1, high=1000)
    starts = list(starts)
    if not starts:
        raise ValueError("starts must hold at least one (label, mean, cov) Gaussian, got none")
    if not fams:
        raise ValueError("fams must name at least one family, got none")
    k = post.dim
    trials: list[Trial] = []
    best: dict = {}
    origin: dict = {}
    starts = [(st[0], st[1], st[2], None if len(st) < 4 else tuple(st[3])) for st in starts]
    total, done = len(fams) * len(starts), 0

    def consider(fam: Family, label: str, fit: EnsembleFit | None, margin: float = 0.0) -> bool:
        if fit is None or not np.isfinite(fit.bound):
            return False
        trials.append(Trial(fam.key, label, float(fit.bound), bool(fit.converged), int(fit.n_iter), fit))
        if fam.key not in best or fit.bound > best[fam.key].bound + margin:
            best[fam.key], origin[fam.key] = fit, label
            return True
        return False

    report(progress, 0, total)
    for fam in fams:
        seen = []
        for label, mean, cov, only in starts:
            if only is not None and fam.name not in only:  # a start meant for other families
                done += 1
                continue
            theta = _packed(fam, k, mean, cov)
            if any(np.array_equal(theta, t) for t in seen):  # same Gaussian in this family
                done += 1
                continue
            seen.append(theta)
            consider(fam, label, _fit(post, prior, fam, ("init", mean, cov), gtol=gtol,
                                      maxiter=maxiter, rng=rng.spawn(1)[0], maxcor=maxcor))
            done += 1
            report(progress, done, total, what=f"{fam.key} from {label}")
    missing = [f.key for f in fams if f.key not in best]
    if missing:
        raise RuntimeError(f"fit_families: every start failed for {missing}")
    rounds = 0
    changed = {f.key for f in fams}  # families whose best is new since they were last a start
    for rounds in range(1, max_rounds + 1):
        improved = False
        snapshot = dict(best)
        for fam in fams:
            for other in fams:
                # a start already tried (same source solution) would give the same result again
                if other.key == fam.key or other.key not in changed:
                    continue
                src = snapshot[other.key]
                label = f"{other.key} (round {rounds})"
                if other.richness(k) <= fam.richness(k):
                    start = ("warm", src)
                else:
                    start = ("init", src.mean, src.cov)
                fit = _fit(post, prior, fam, start, gtol=gtol, maxiter=maxiter, rng=rng.spawn(1)[0],
                           maxcor=maxcor)
                improved |= consider(fam, label, fit, margin=tol)
        changed = {f.key for f in fams if best[f.key] is not snapshot[f.key]}
        if not improved:
            break
    # a trial that stopped early was recorded and competed on its bound; a family whose *best* fit
    # did not converge is said once here
    for fam in fams:
        fit = best[fam.key]
        if not fit.converged:
            why = "its iteration limit" if fit.at_limit else "a stalled line search"
            warnings.warn(f"fit_families: the best {fam.key} fit (from {origin[fam.key]}) stopped at "
                          f"{why} before max|gradient| <= gtol = {gtol:g}", KLFitWarning, stacklevel=2)
    return FamilySearch(best=best, origin=origin, trials=trials, rounds=rounds, settled=not improved)


def _packed(fam: Family, k: int, mean, cov) -> np.ndarray:
    return CovarianceFamily.make(fam.name, k, fam.rank).pack(mean, cov)


__all__ = ["Family", "FamilySearch", "Trial", "families", "fit_families", "laplace_starts"]
