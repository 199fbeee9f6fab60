"""Ensemble learning: the Gaussian Q that minimises KL(Q‖P) (Barber & Bishop 1998, §2–2.1).

Minimising KL(Q‖P) = ⟨βE_D + (α/2)‖w‖²⟩_Q − H[Q] + ln Z (B&B (16)–(20)) over the
mean and covariance of ``Q = N(w̄, C)`` is the same as maximising the bound
F[Q], since ln Z does not depend on Q. The objective and its exact
gradient come from the model's ``expected_energy`` (∂/∂w̄ and the symmetric
∂/∂C) plus the entropy term ``−½ ln|C|`` (gradient ``−½ C⁻¹``), and are
mapped to the family's unconstrained parameters by the chain rule
(:class:`~ensemble_lib.core.gaussian.CovarianceFamily`). ``scipy.optimize``
(BFGS for small problems, L-BFGS-B for large ones) does the search.

Families: ``"full"`` (any C), ``"factor"`` (B&B (26) with rank s),
``"diagonal"`` (s = 0).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..core import validation as check
from . import toy_objective
from ..core.gaussian import CovarianceFamily, GaussianFactor
from .laplace import LaplaceFit, laplace_fit
from .stopping import _newton_polish, finish_lbfgs, gradient_converged, gradient_floor, no_descent


#: up to this many parameters, BFGS + gradient polish; above, L-BFGS-B
_SMALL = 40
#: L-BFGS-B's memory (its ``maxcor``: the number of past steps its inverse-Hessian estimate keeps)
#: unless the caller gives one. 30 is what every stored result was made with; the Table-1 study
#: passes its own (:class:`~ensemble_lib.studies.splits.TableConfig`'s ``maxcor``)
LBFGS_MEMORY = 30


class KLFitWarning(UserWarning):
    """The KL optimisation stopped before reaching its tolerance."""


@dataclass(frozen=True)
class KLFit:
    """Result of :func:`kl_fit`: Q = N(mean, cov) with its KL and bound.

    ``kl`` is nan for models whose exact ln Z is not computable; ``bound``
    (F[Q], B&B (17)) is always given. ``grad_norm`` is the norm of the
    objective's gradient in the family's parameters at the end; ``converged`` is
    :func:`~ensemble_lib.inference.stopping.gradient_converged` at the tolerance the fit used,
    and ``at_limit`` says the optimiser used all ``maxiter`` iterations. (A gradient above the
    tolerance but within its round-off level,
    :func:`~ensemble_lib.inference.stopping.gradient_floor`, also counts as converged: no
    representable parameter vector is closer to stationary.)
    """

    mean: np.ndarray
    cov: np.ndarray
    kl: float
    bound: float
    family: str
    rank: int
    n_iter: int
    grad_norm: float
    converged: bool
    theta: np.ndarray = field(repr=False)
    at_limit: bool = False


def kl_objective(post, fam: CovarianceFamily, theta) -> tuple[float, np.ndarray]:
    """KL(Q‖P) − ln Z = ⟨energy⟩_Q − H[Q] and its gradient with respect to ``theta``.

    Returns ``(inf, 0)`` where the parameters are outside the range in which
    Q is a proper, finite Gaussian (the optimiser's line search then backs off). For the
    2-parameter toy the same function is evaluated in closed form with less overhead
    (:func:`~ensemble_lib.inference.toy_objective.toy_kl_objective`).
    """
    post = check.posterior("post", post)
    if not isinstance(fam, CovarianceFamily) or fam.dim != post.dim:
        raise ValueError(f"fam must be a CovarianceFamily of dimension {post.dim} "
                         f"(CovarianceFamily.make(family, {post.dim})), got {fam!r}")
    theta = check.real_array("theta", theta)
    if theta.shape != (fam.n_params,):
        raise ValueError(f"theta must have shape ({fam.n_params},) for the {fam.name} family "
                         f"(k = {fam.dim}), got {theta.shape}")
    if toy_objective.applies(post, fam):
        return toy_objective.toy_kl_objective(post, fam, theta)
    with np.errstate(all="ignore"):
        mean, cov, lower = fam.unpack_lower(theta)
        try:
            factor = GaussianFactor(cov, "cov")  # one Cholesky: H[Q] (B&B (18)) and C⁻¹
        except ValueError:
            return np.inf, np.zeros_like(theta)
        e = post.expected_energy(mean, cov)
        g = fam.chain(theta, e.d_mean, e.d_cov - 0.5 * factor.inverse(), lower=lower)
        value = e.value - factor.entropy()
    if not (np.isfinite(value) and np.all(np.isfinite(g))):
        return np.inf, np.zeros_like(theta)
    return float(value), g


def _checked_laplace(laplace, post):
    """``laplace`` if it is a Laplace fit of a posterior of ``post``'s dimension (or None)."""
    if laplace is None:
        return None
    if not isinstance(laplace, LaplaceFit) or np.shape(laplace.mean) != (post.dim,):
        raise ValueError(f"laplace must be a LaplaceFit of this posterior (a mode of dimension "
                         f"{post.dim}, from laplace_fit(post)), got {type(laplace).__name__}")
    return laplace


def _starts(post, fam: CovarianceFamily, init, laplace=None):
    """Starting (mean, cov) pairs and a centred-start covariance.

    The caller's pairs, else a narrow Gaussian at a mode (variances 1/H_ii) of ``laplace``
    (a :class:`~ensemble_lib.inference.laplace.LaplaceFit`; searched for if None).
    """
    if init is not None:
        return [tuple(np.asarray(a, float) for a in pair) for pair in init], None
    lap = laplace_fit(post, compute_kl=False) if laplace is None else laplace
    second_moment = lap.cov + np.outer(lap.mean, lap.mean)
    return [lap.diagonal_start()], second_moment


#: a factor added to embed a poorer family's Q exactly has this length relative to d_a (and d_a²
#: shrinks by (1 − ε²)): a zero factor would be a stationary point (∂/∂S = 2GS)
_EMBED_EPS = 1e-3


def embed_fit(fam: CovarianceFamily, fit: KLFit) -> np.ndarray:
    """Parameters of ``fam`` giving exactly the Gaussian of ``fit``, a fit of a poorer or equal family.

    Families are ordered diagonal ⊂ factor s ⊂ factor s + 1 ⊂ … ⊂ factor k − 1 = full (any
    covariance C is ``λ_min I + (C − λ_min I)``, a rank-(k − 1) factor model). So:

    * → ``full``: the Cholesky factor of C;
    * diagonal or factor s' → factor s > s': the old d and factors, and s − s' new factors
      ``ε d_a e_a`` along the axes a of largest d, with ``d_a² ← (1 − ε²) d_a²`` (ε = 10⁻³);
    * full → factor k − 1: ``d² = λ_min``, factors ``√(λ_i − λ_min) v_i`` of the other eigenpairs.

    Raises ``ValueError`` if ``fit``'s family is richer than ``fam``.
    """
    k, s = fam.dim, fam.rank
    if fam.name == "full":
        return fam.pack(fit.mean, fit.cov)
    src_rank = k - 1 if fit.family == "full" else (0 if fit.family == "diagonal" else fit.rank)
    if src_rank > s:
        raise ValueError(f"fit (family {fit.family}, s={src_rank}) is richer than the target family "
                         f"({fam.name}, s={s}); it cannot be embedded exactly")
    if fit.family == "full":  # s = k − 1 here
        vals, vecs = np.linalg.eigh(0.5 * (fit.cov + fit.cov.T))
        S = vecs[:, 1:] * np.sqrt(np.clip(vals[1:] - vals[0], 0.0, None))[None, :]
        log_d = np.full(k, 0.5 * np.log(vals[0]))
        return np.concatenate([fit.mean, log_d, S.ravel()])
    theta = np.asarray(fit.theta, dtype=float)
    d2 = np.exp(2.0 * theta[k:2 * k])
    S = np.zeros((k, s))
    S[:, :src_rank] = theta[2 * k:].reshape(k, src_rank)
    for j, a in enumerate(np.argsort(-d2, kind="stable")[: s - src_rank]):
        S[a, src_rank + j] = _EMBED_EPS * np.sqrt(d2[a])
        d2[a] *= 1.0 - _EMBED_EPS**2
    return np.concatenate([fit.mean, 0.5 * np.log(d2), S.ravel()])


def _poorer_family_starts(post, fam: CovarianceFamily, **options) -> list[np.ndarray]:
    """kl_fit's default starts from the next poorer family's fit, embedded exactly (:func:`embed_fit`).

    factor s ← factor s − 1 (factor 0 = diagonal); full ← factor k − 2 (diagonal for k ≤ 2). The
    poorer fit runs with kl_fit's own default starts, so the chain reaches down to the diagonal
    family and the fitted KLs are ordered: full ≤ factor s ≤ factor s − 1 ≤ … ≤ diagonal.
    """
    richness = fam.dim if fam.name == "full" else fam.rank
    if richness == 0:
        return []
    poorer_rank = min(richness - 1, fam.dim - 2)
    with warnings.catch_warnings():
        # the poorer fit is a start: only the final fit's convergence is reported
        warnings.simplefilter("ignore", KLFitWarning)
        if poorer_rank <= 0:
            poorer = kl_fit(post, "diagonal", **options)
        else:
            poorer = kl_fit(post, "factor", poorer_rank, **options)
    return [embed_fit(fam, poorer)]


def _proper_cov(cov) -> np.ndarray:
    """A start's covariance made symmetric with eigenvalues ≥ 10⁻¹² × the largest (a start only)."""
    cov = 0.5 * (np.asarray(cov, dtype=float) + np.asarray(cov, dtype=float).T)
    vals, vecs = np.linalg.eigh(cov)
    floor = 1e-12 * max(float(vals.max()), 1e-300)
    if vals.min() >= floor:
        return cov
    return (vecs * np.clip(vals, floor, None)) @ vecs.T


def centred_fit_start(post, fam: CovarianceFamily, start_cov=None, gtol: float = 1e-5):
    """The best Q with its mean held at the origin: a start for posteriors symmetric under w → −w.

    For such a posterior (the toy's), the origin is a stationary point of the
    mean, and a broad Gaussian there covering both mirror modes can beat any
    Gaussian at one mode when the modes overlap. Only the covariance
    parameters are optimised, which is cheap. A good ``start_cov`` is the
    second moment of the two mirror Laplace Gaussians, ``H⁻¹ + w* w*ᵀ``. For the toy's
    diagonal and full families the covariance's κ and V are found in closed form and only
    ln ℓ by BFGS (:func:`~ensemble_lib.inference.toy_objective.toy_centred_fit`).
    """
    k = fam.dim
    if start_cov is None:
        start_cov = np.eye(k) / post.alpha
    if toy_objective.applies(post, fam) and fam.name != "factor":
        # the toy: κ and V in closed form, a one-dimensional search in ln ℓ (the same optimum)
        return toy_objective.toy_centred_fit(post, fam, start_cov)
    theta0 = fam.pack(np.zeros(k), start_cov)

    def fun(cov_params):
        f, g = kl_objective(post, fam, np.concatenate([np.zeros(k), cov_params]))
        return f, g[k:]

    res = optimize.minimize(fun, theta0[k:], jac=True, method="BFGS", options={"gtol": gtol})  # noqa: E501
    return fam.unpack(np.concatenate([np.zeros(k), res.x]))


def kl_fit(
    post,
    family: str = "full",
    rank: int | None = None,
    init=None,
    gtol: float = 1e-9,
    maxiter: int = 2000,
    symmetric: bool | None = None,
    callback=None,
    laplace=None,
    maxcor: int = LBFGS_MEMORY,
) -> KLFit:
    """Fit Q = N(w̄, C) by minimising KL(Q‖P) (B&B (16)–(20)) within a covariance family.

    Parameters
    ----------
    post : RegressionPosterior
        The target, e.g. a :class:`~ensemble_lib.ToyPosterior`.
    family : {"full", "factor", "diagonal"} or CovarianceFamily
        Covariance family of Q (Barber & Bishop §2.1, eq. 26); a :class:`CovarianceFamily` made by
        the caller is used as it is (``rank`` is then ignored).
    rank : int, optional
        Number of factors s for ``"factor"`` (0 ≤ s ≤ k − 1; default 1).
    init : list of (mean, cov) pairs, optional
        Starting points; the best result wins. By default: the Laplace
        mode with a narrow diagonal covariance (variances 1/H_ii), and the
        next poorer family's default fit embedded exactly (:func:`embed_fit`), so
        that default fits respect the family order KL(full) ≤ KL(factor s) ≤
        KL(factor s − 1) ≤ KL(diagonal); factor k − 1, the full family in other
        coordinates, is the full fit re-expressed.
    symmetric : bool
        The posterior is symmetric under w → −w (as the toy's is): also start
        from the best Gaussian centred at the origin (:func:`centred_fit_start`).
        Default: True for a 2-parameter ``ToyPosterior``.
    gtol : float
        Gradient tolerance (> 0). Small problems (≤ 40 parameters) run BFGS and
        then polish the gradient to ``gtol``; larger ones (a network's full
        covariance has k(k+1)/2 of them) run L-BFGS-B with a per-component
        tolerance of ``max(gtol, 1e-6)`` and no polish. ``converged`` means every
        gradient component is within that tolerance
        (:func:`~ensemble_lib.inference.stopping.gradient_converged`).
    maxiter : int
        Optimiser iterations per start (1 to 100 000); ``at_limit`` marks a fit that used them all.
    callback : callable, optional
        Called with the parameter vector after each iteration (progress bars).
    laplace : LaplaceFit, optional
        ``laplace_fit(post)``, if already computed: its mode and Hessian give the default
        starts (one mode search shared by every family's fit and the poorer fits of the
        default starts). Searched for once per call if not given.
    maxcor : int
        L-BFGS-B's memory (past steps kept, 1 to 1000) for fits of more than 40 parameters.

    Warns
    -----
    KLFitWarning
        When the optimiser stops before reaching the tolerance.

    Returns
    -------
    KLFit
        The best fit over the starts. ``kl`` is the exact KL(Q‖P)
        (``post.log_Z`` + objective) and ``bound`` is F[Q].
    """
    post = check.posterior("post", post)
    if init is not None:
        check.gaussians("init", init, post.dim)
    symmetric = symmetric if symmetric is None else check.flag("symmetric", symmetric)
    callback = check.callback("callback", callback)
    gtol = check.positive("gtol", gtol)
    maxiter = check.integer("maxiter", maxiter, low=1, high=100_000)
    maxcor = check.integer("maxcor", maxcor, low=1, high=1000)
    # a CovarianceFamily already made (and so checked) by the caller is taken as it is; a name and
    # rank are checked here, once
    fam = family if isinstance(family, CovarianceFamily) else CovarianceFamily.make(family, post.dim, rank)
    if fam.dim != post.dim:
        raise ValueError(f"family must have dim = post.dim = {post.dim}, got a family of dimension {fam.dim}")
    laplace = _checked_laplace(laplace, post)
    if init is None and laplace is None:
        laplace = laplace_fit(post, compute_kl=False)  # one mode search for every default start
    if symmetric is None:
        symmetric = type(post).__name__ == "ToyPosterior"
    if init is None and fam.name == "factor" and fam.dim >= 2 and fam.rank == fam.dim - 1:
        # factor k − 1 is the full family in other coordinates: its fit is the full fit's, so the
        # two agree exactly (then polished here)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KLFitWarning)
            # (no callback: it is given this family's parameter vectors only)
            full = kl_fit(post, "full", gtol=gtol, maxiter=maxiter, symmetric=symmetric,
                          laplace=laplace, maxcor=maxcor)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", KLFitWarning)
            fit = fit_from_starts(post, fam, [embed_fit(fam, full)], gtol, maxiter, callback,
                                  maxcor=maxcor, _stacklevel=3)[0]
        if fit.converged or _converged_as_full(post, fit, gtol):
            return dataclasses.replace(fit, converged=True)
        for w in caught:  # not at the full family's optimum either: say so
            warnings.warn(w.message, w.category, stacklevel=2)
        return fit
    thetas = start_thetas(post, fam, init, symmetric, laplace)
    if init is None:
        thetas += _poorer_family_starts(post, fam, gtol=gtol, maxiter=maxiter,
                                        symmetric=symmetric, laplace=laplace, maxcor=maxcor)
    return fit_from_starts(post, fam, thetas, gtol, maxiter, callback, maxcor=maxcor, _stacklevel=3)[0]


def _converged_as_full(post, fit: KLFit, gtol: float) -> bool:
    """Whether ``fit`` (of the factor family of rank k − 1) is stationary as a full-covariance Q.

    That family holds every Gaussian, with more parameters than the full family (redundant
    directions), so its gradient is the full family's times a Jacobian that can be large (a sharp
    posterior's small variances), and its polish can stall a little above ``gtol`` at the very
    optimum the full fit reached. Judged in the full family's coordinates instead, with the same
    tolerance and round-off floor as any fit.
    """
    full = CovarianceFamily.make("full", fit.mean.size)
    theta = full.pack(fit.mean, fit.cov)
    fun = lambda th: kl_objective(post, full, th)  # noqa: E731
    g = fun(theta)[1]
    return gradient_converged(g, gtol) or gradient_converged(g, max(gtol, gradient_floor(fun, theta)))


def _positive_definite(h):
    """``h`` made exactly symmetric if it is a positive-definite matrix, else None (BFGS's identity)."""
    if h is None:
        return None
    h = 0.5 * (np.asarray(h, dtype=float) + np.asarray(h, dtype=float).T)
    try:
        np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        return None
    return h if np.all(np.isfinite(h)) else None


def start_thetas(post, fam: CovarianceFamily, init, symmetric: bool, laplace=None) -> list[np.ndarray]:
    """:func:`kl_fit`'s starting parameter vectors of ``fam``, except the poorer family's fit.

    The caller's ``init`` pairs (else the narrow Gaussian at ``laplace``'s mode, variances
    1/H_ii) and, if ``symmetric``, the best Gaussian centred at the origin
    (:func:`centred_fit_start`) from the largest second moment of those starts, in that order.
    """
    if init is not None:
        check.gaussians("init", init, post.dim)
    starts, second_moment = _starts(post, fam, init, laplace)
    if symmetric:
        if second_moment is None:
            second_moment = max((c + np.outer(m, m) for m, c in starts), key=np.trace)
        if fam.name != "full":
            second_moment = np.diag(np.diag(second_moment))
        starts.append(centred_fit_start(post, fam, _proper_cov(second_moment)))
    return [fam.pack(m, _proper_cov(c) if init is None else c) for m, c in starts]


def fit_from_starts(post, fam: CovarianceFamily, thetas, gtol: float = 1e-9, maxiter: int = 2000,
                    callback=None, hess_inv0=None, maxcor: int = LBFGS_MEMORY,
                    _stacklevel: int = 2) -> tuple[KLFit, list, int]:
    """:func:`kl_fit`'s optimisation from given parameter vectors: each start run, the best polished.

    ``thetas`` are parameter vectors of ``fam`` (already checked: finite, shape ``(fam.n_params,)``).
    ``hess_inv0`` optionally gives, per start, BFGS's initial inverse-Hessian estimate (None:
    the identity), e.g. the one a run from the same start ended with at a nearby setting.
    Returns the :class:`KLFit`; per start, ``(theta, hess_inv)`` where its BFGS run ended before
    the polish (for L-BFGS-B, ``hess_inv`` is None; the entry is None where the objective was
    not finite), a warm start for the same start's run at a nearby setting
    (:func:`~ensemble_lib.inference.toy_fits.fit_all`); and the index of the start whose run
    won (the one polished). ``maxcor`` is L-BFGS-B's memory (fits of more than 40 parameters).
    """
    maxcor = check.integer("maxcor", maxcor, low=1, high=1000)
    thetas = [check.finite_array("thetas", th) for th in thetas]
    if not thetas or any(th.shape != (fam.n_params,) or not np.all(np.isfinite(th)) for th in thetas):
        raise ValueError(f"thetas must be one or more finite parameter vectors of shape ({fam.n_params},) "
                         f"for the {fam.name} family (k = {fam.dim}, s = {fam.rank})")
    if hess_inv0 is not None and len(hess_inv0) != len(thetas):
        raise ValueError(f"hess_inv0 must give one matrix (or None) per start: {len(thetas)} starts, "
                         f"got {len(hess_inv0)}")
    fun = lambda th: kl_objective(post, fam, th)  # noqa: E731
    small = fam.n_params <= _SMALL
    best = None
    ends = []
    hess_inv0 = [None] * len(thetas) if hess_inv0 is None else [_positive_definite(h) for h in hess_inv0]
    for theta0, h0 in zip(thetas, hess_inv0):
        if small:
            # BFGS to a moderate tolerance (its line search wastes evaluations once
            # the objective's changes reach round-off), then polish to ``gtol``
            res = optimize.minimize(
                fun, theta0, jac=True, method="BFGS", callback=callback,
                options={"gtol": max(gtol, 1e-6), "maxiter": maxiter, "hess_inv0": h0},
            )
        else:
            res = optimize.minimize(
                fun, theta0, jac=True, method="L-BFGS-B", callback=callback,
                options={"gtol": max(gtol, 1e-6), "ftol": 1e-14, "maxiter": maxiter, "maxcor": maxcor},
            )
        ends.append((res.x, res.hess_inv if small else None) if np.isfinite(res.fun) else None)
        if np.isfinite(res.fun) and (best is None or res.fun < best.fun):
            best, best_index = res, len(ends) - 1
    if best is None:
        raise RuntimeError("kl_fit: every start failed (the objective was not finite)")
    if small:
        k = fam.dim
        widths = np.concatenate([np.sqrt(np.diag(fam.unpack(best.x)[1])), np.full(fam.n_params - k, np.nan)])
        theta, g = _newton_polish(fun, best.x, best.jac, gtol, hess_inv=best.hess_inv, widths=widths)
        tol = gtol
    else:
        theta, g = best.x, best.jac
        tol = max(gtol, 1e-6)
        theta, g = finish_lbfgs(fun, fam, theta, g, tol)
    converged = gradient_converged(g, tol)
    if not converged:
        # a gradient at its round-off level is as small as this θ can make it
        converged = gradient_converged(g, max(tol, gradient_floor(fun, theta)))
    if not converged and small:
        # or at the objective's own noise (its quadrature's error, for a very sharp posterior):
        # then no step down the gradient lowers the objective
        converged = no_descent(fun, theta, g)
    if not converged:
        warnings.warn(
            f"kl_fit ({fam.name}, s={fam.rank}) stopped before converging: gradient norm "
            f"{np.linalg.norm(g):.2e} ({best.message})", KLFitWarning, stacklevel=_stacklevel,
        )
    obj = float(fun(theta)[0])
    mean, cov = fam.unpack(theta)
    try:
        log_Z = post.log_Z
    except NotImplementedError:
        log_Z = float("nan")
    kl = obj + log_Z
    bound = -obj - post.log_normalisers
    gnorm = float(np.linalg.norm(g))
    fit = KLFit(
        mean=mean, cov=cov, kl=float(kl), bound=float(bound), family=fam.name, rank=fam.rank,
        n_iter=int(best.nit), grad_norm=gnorm, converged=converged,
        theta=theta, at_limit=bool(best.nit >= maxiter),
    )
    return fit, ends, best_index


__all__ = ["KLFit", "KLFitWarning", "kl_fit", "kl_objective"]
