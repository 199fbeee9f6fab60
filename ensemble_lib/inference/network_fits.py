"""Lesson 4: ensemble learning for real networks — Barber & Bishop's Table 1 and a 1-D demo.

Barber & Bishop (1998), §2.1 (eqs 17–26), §2.2 (eqs 27–38), §2.3 (Table 1);
MacKay (1995), "Probable networks", §3 (eqs 18–25), §4.1 (symmetry factor
H! 2^H) and §5.2 (predictive error bars gᵀA⁻¹g + 1/β).

* :class:`CollapsedBound` and :func:`fit_ensemble`: the Gaussian Q = N(w̄, C)
  of a family (diagonal, factor s, full; B&B (26)) with the Gamma hyperpriors
  (27)–(28), maximising the bound F[Q, R, S] of eq. (33); :func:`fit_family`
  also warm-starts a richer family exactly from a poorer one's solution, so
  the bound cannot fall as s grows;
* :func:`fit_evidence`: MacKay's evidence framework with several random
  restarts of the MAP (the best Laplace evidence wins);
* :func:`laplace_error_bars`: ``gᵀA⁻¹g + 1/β`` (MacKay §5.2);
* :func:`run_split`, :func:`run_table`: the Table-1 study over random splits
  (:class:`TableConfig`; ``python -m ensemble_lib.studies.table1 --table``),
  stored in ``figures/boston_table1.json`` and ``figures/diabetes_table.json``.
  The paper used 128 training and 250 test points; we test on all the other
  378 rows (the issue's protocol) and average over random splits;
* :class:`Network1DPanel` (:func:`demo_fit`): the 1-D regression demo
  (sliders H, s, α or "adapt hyperparameters"), ensemble vs Laplace error bars;
* :func:`write_figures`: ``network_1d_demo.png`` and a re-plot of the stored
  tables (``boston_table1.png``) without refitting anything.

Hyperparameters by the collapsed bound
--------------------------------------
For fixed Q the optimal R(α), S(β) are Gamma (B&B (35)–(38)) and, substituting
them, the bound becomes a function of Q alone,

.. math::
    F^*(Q) = \\max_{R,S} F[Q,R,S] = H[Q] - r\\ln\\big(\\tfrac12 W + \\tfrac1b\\big)
             - u\\ln\\big(\\langle E_D\\rangle + \\tfrac1d\\big) + c_0,

``W = ‖w̄‖² + Tr C``, ``r = k/2 + a``, ``u = N/2 + c``,
``c_0 = ln Γ(r) + ln Γ(u) − ln Γ(a) − a ln b − ln Γ(c) − c ln d − ((N+k)/2) ln 2π``.
Its gradient with respect to Q is the gradient of the fixed-hyperparameter
bound (17) at ``ᾱ = r/(W/2 + 1/b)``, ``β̄ = u/(⟨E_D⟩ + 1/d)`` — exactly the
updates (37)–(38) — so a stationary point of F* is a fixed point of the
paper's alternation (fit Q, update ᾱ, β̄) with the same bound. Maximising F*
with one quasi-Newton run replaces the alternation, whose outer loop
converges only linearly (each outer step refits Q from scratch to a
tolerance, so a Boston-sized run costs many full fits). The tests check
F* against :func:`~ensemble_lib.inference.hyperparameters.full_bound` and its optimum
against :func:`~ensemble_lib.fit_hyperparameters` on a small problem.

Symbols → code: w̄, C → ``mean``, ``cov``; ᾱ, β̄ → ``alpha``, ``beta``;
a, b, c, d → ``prior``; H → ``n_hidden``; s → ``rank``; F → ``bound``;
A (MacKay's Hessian) → ``hessian``; g → ``jacobian`` rows.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize
from scipy.special import gammaln

from ..core import validation as check
from .evidence import EvidenceRun, evidence_reestimation
from ..core.gaussian import LOG_2PI, CovarianceFamily, GaussianFactor, gaussian_entropy
from .hyperparameters import GammaHyperprior, HyperparameterConvergenceWarning
from .kl_fit import LBFGS_MEMORY, KLFit, KLFitWarning, kl_fit, kl_objective
from .stopping import finish_lbfgs, gradient_converged
from ..models.network import network_jacobian
from ..models.posterior import Expectation


# ---------------------------------------------------------------------------
# The bound with the hyperparameters maximised out (B&B (33)–(38))
# ---------------------------------------------------------------------------


class CollapsedBound:
    """F*(Q) = max over R(α), S(β) of F[Q, R, S] (B&B (33)–(38)), in the interface of ``kl_fit``.

    ``kl_fit`` minimises ``expected_energy − H[Q]``; here the "energy" is
    ``r ln(W/2 + 1/b) + u ln(⟨E_D⟩ + 1/d)`` and ``log_normalisers = −c_0``,
    so ``kl_fit(...).bound`` is F*(Q) (module docstring).

    The formulas are written once for any number of weight classes, each with its own
    R_c(α_c) (a sum over the classes, with ``r``, ``W`` and ᾱ one per class):
    :class:`~ensemble_lib.inference.ard.ClassCollapsedBound` supplies the classes through
    :meth:`_W` and :meth:`_alpha_per_weight`; here every weight is in the one class.

    Parameters
    ----------
    post : NetworkPosterior
        Model and data (its own α, β are not used).
    prior : GammaHyperprior
        Constants a, b, c, d.
    """

    #: number of weight classes, each with its own Gamma posterior R_c(α_c)
    n_classes = 1

    def __init__(self, post, prior: GammaHyperprior):
        post = check.posterior("post", post)
        if not isinstance(prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
        self.post, self.prior = post, prior
        self.dim, self.n_data = post.dim, post.n_data
        self.r = 0.5 * self.dim + prior.a
        self.u = 0.5 * self.n_data + prior.c

    # -- what the weight classes decide -------------------------------------
    def _W(self, mean, cov):
        """``W = ‖w̄‖² + Tr C`` (one class: a number)."""
        return float(mean @ mean + np.trace(cov))

    def _alpha_per_weight(self, alpha) -> np.ndarray:
        """ᾱ of each weight (one class: ᾱ everywhere)."""
        return np.full(self.dim, alpha)

    # -- the bound ------------------------------------------------------------
    def hyperparameters(self, mean, cov, expected_data_error=None):
        """(ᾱ, β̄) of the optimal R, S for Q = N(mean, cov): B&B (37), (38) (ᾱ one per class)."""
        if expected_data_error is None:
            expected_data_error = self.post.expected_data_error(mean, cov).value
        else:
            mean, cov = check.mean_cov(mean, cov, self.dim)
            expected_data_error = check.real("expected_data_error", expected_data_error)
            if expected_data_error < 0.0:
                raise ValueError(f"expected_data_error must be a finite number >= 0 (⟨E_D⟩ is a sum of "
                                 f"squares), got {expected_data_error!r}")
        return self._hyperparameters(mean, cov, expected_data_error)

    def _hyperparameters(self, mean, cov, expected_data_error):
        W = self._W(mean, cov)
        return (self.r / (0.5 * W + 1.0 / self.prior.b),
                self.u / (float(expected_data_error) + 1.0 / self.prior.d))

    def expected_energy(self, mean, cov) -> Expectation:
        ed = self.post.expected_data_error(mean, cov)
        alpha, beta = self._hyperparameters(mean, cov, ed.value)
        W = self._W(mean, cov)
        value = (sum(r * math.log(0.5 * w + 1.0 / self.prior.b) for r, w in zip(np.ravel(self.r), np.ravel(W)))
                 + self.u * math.log(ed.value + 1.0 / self.prior.d))
        alpha = self._alpha_per_weight(alpha)
        return Expectation(float(value), beta * ed.d_mean + alpha * mean,
                           beta * ed.d_cov + 0.5 * np.diag(alpha))

    @property
    def log_normalisers(self) -> float:
        """``−c_0``, ``c_0 = Σ_c[ln Γ(r_c) − ln Γ(a) − a ln b] + ln Γ(u) − ln Γ(c) − c ln d − ((N+k)/2) ln 2π``.

        Kept once computed (for the r, u it was computed with): every evaluation of a fit asks
        for it (``check.posterior`` looks it up), and its ln Γ's cost as much as a small product.
        """
        key = (tuple(np.ravel(self.r).tolist()), self.u, self.n_classes, self.prior)
        cached = self.__dict__.get("_log_normalisers")
        if cached is not None and cached[0] == key:
            return cached[1]
        p, n = self.prior, self.n_classes
        c0 = (float(np.sum(gammaln(self.r))) + gammaln(self.u) - n * gammaln(p.a) - n * p.a * math.log(p.b)
              - gammaln(p.c) - p.c * math.log(p.d) - 0.5 * (self.n_data + self.dim) * LOG_2PI)
        self.__dict__["_log_normalisers"] = (key, -float(c0))
        return -float(c0)

    @property
    def log_Z(self) -> float:
        raise NotImplementedError("the collapsed bound has no exact normaliser")

    def bound(self, mean, cov) -> float:
        """F*(Q) for Q = N(mean, cov)."""
        mean, cov = check.mean_cov(mean, cov, self.dim)
        return float(gaussian_entropy(cov) - self.expected_energy(mean, cov).value
                     - self.log_normalisers)


@dataclass(frozen=True)
class EnsembleFit:
    """An ensemble-learning fit with adapted hyperparameters.

    ``alpha``, ``beta`` are the means ᾱ = rs, β̄ = uv of the optimal R, S
    (B&B (37)–(38)) for the final Q; ``bound`` is F[Q, R, S] (B&B (33)) with those
    R, S, i.e. the collapsed bound F*(Q). ``theta`` are the family's
    parameters (:class:`~ensemble_lib.core.gaussian.CovarianceFamily`), used to
    warm-start a richer family exactly. ``converged`` is
    :func:`~ensemble_lib.inference.stopping.gradient_converged` (every component of ∇F* in θ
    within the fit's gtol); ``at_limit`` marks a fit stopped by its iteration limit.
    """

    mean: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    alpha: float
    beta: float
    bound: float
    family: str
    rank: int
    converged: bool
    n_iter: int
    theta: np.ndarray = field(repr=False, default=None)
    at_limit: bool = False


def _embed(warm, fam: CovarianceFamily, rng: np.random.Generator) -> np.ndarray:
    """Parameters of ``fam`` giving (almost exactly) the Gaussian of a poorer family's fit.

    Diagonal or factor s' → factor s ≥ s': keep w̄, d and the s' factors and
    add s − s' factors of length 10⁻³·‖d‖ in directions drawn from ``rng`` (a
    zero factor would be a stationary point: ∂F/∂S = 2GS). → full: the exact
    Cholesky factor.
    """
    k = fam.dim
    if fam.name == "full":
        return fam.pack(warm.mean, warm.cov)
    if fam.name == "diagonal":
        return fam.pack(warm.mean, np.diag(np.diag(warm.cov)))
    old_rank = 0 if warm.family == "diagonal" else warm.rank
    if warm.family == "full" or old_rank > fam.rank or warm.theta is None:
        return fam.pack(warm.mean, warm.cov)
    theta = np.asarray(warm.theta, dtype=float)
    log_d = theta[k:2 * k]
    S_old = theta[2 * k:].reshape(k, old_rank)
    extra = rng.standard_normal((k, fam.rank - old_rank))
    extra *= 1e-3 * np.exp(log_d)[:, None]
    return np.concatenate([warm.mean, log_d, np.hstack([S_old, extra]).ravel()])


def fit_family(target, family: str = "diagonal", rank: int | None = None, init=None,
               warm=None, gtol: float = 1e-6, maxiter: int = 3000, callback=None,
               rng: np.random.Generator | None = None, maxcor: int = LBFGS_MEMORY) -> KLFit:
    """Minimise ``⟨energy⟩ − H[Q]`` of ``target`` over a family from Gaussians and/or a warm start.

    ``target`` is anything :func:`~ensemble_lib.inference.kl_fit` accepts (a posterior
    at fixed α, β, or a :class:`CollapsedBound`); ``init`` are (mean, cov)
    pairs run through :func:`~ensemble_lib.inference.kl_fit`, ``warm`` a poorer
    family's fit (with ``theta``) embedded exactly by :func:`_embed` and
    polished by L-BFGS-B. The best bound wins. ``rng`` draws the directions of
    the small factors a warm start adds (:func:`_embed`); it is required with ``warm``
    (the caller owns every random choice). ``maxcor`` is L-BFGS-B's memory (past steps kept).
    """
    target = check.posterior("target", target)
    gtol = check.positive("gtol", gtol)
    maxiter = check.integer("maxiter", maxiter, low=1, high=100_000)
    maxcor = check.integer("maxcor", maxcor, low=1, high=1000)
    callback = check.callback("callback", callback)
    fam = family if isinstance(family, CovarianceFamily) else CovarianceFamily.make(family, target.dim, rank)
    if init is not None:
        check.gaussians("init", init, target.dim)
    if warm is not None and not hasattr(warm, "theta"):
        raise ValueError(f"warm must be a fit with parameters theta (an EnsembleFit or KLFit), "
                         f"got {type(warm).__name__}")
    if init is None and warm is None:
        raise ValueError("init (a list of (mean, cov) starting Gaussians) or warm (an EnsembleFit) "
                         "is required, got neither")
    fits = []
    if init is not None:
        fits.append(kl_fit(target, fam, init=init, gtol=gtol, maxiter=maxiter,
                           symmetric=False, callback=callback, maxcor=maxcor))
    if warm is not None:
        if rng is None:
            raise ValueError("rng (a numpy.random.Generator) is required with warm: it draws the "
                             "directions of the small factors the richer family adds")
        rng = check.generator("rng", rng)
        theta0 = _embed(warm, fam, rng)
        res = optimize.minimize(lambda th: kl_objective(target, fam, th), theta0, jac=True,
                                method="L-BFGS-B", callback=callback,
                                options={"gtol": gtol, "ftol": 1e-14, "maxiter": maxiter,
                                         "maxcor": maxcor})
        if np.isfinite(res.fun):
            # as in kl_fit: L-BFGS-B's line search stalls where the objective's changes reach
            # round-off; gradient steps finish a small fit
            fun = lambda th: kl_objective(target, fam, th)  # noqa: E731
            theta, g = finish_lbfgs(fun, fam, res.x, res.jac, gtol)
            f_val = float(res.fun) if theta is res.x else float(fun(theta)[0])
            mean, cov = fam.unpack(theta)
            # the library's one meaning of converged, whatever stopped the optimiser
            converged = gradient_converged(g, gtol)
            fits.append(KLFit(mean=mean, cov=cov, kl=math.nan,
                              bound=float(-f_val - target.log_normalisers),
                              family=fam.name, rank=fam.rank, n_iter=int(res.nit),
                              grad_norm=float(np.linalg.norm(g)), converged=converged,
                              theta=theta, at_limit=bool(res.nit >= maxiter)))
            if init is None and not converged:
                warnings.warn(f"fit_family ({fam.name}, s={fam.rank}) stopped before converging: "
                              f"gradient norm {np.linalg.norm(g):.2e} ({res.message})",
                              KLFitWarning, stacklevel=2)
    if not fits:
        raise RuntimeError("fit_family: every start failed (the bound was not finite)")
    return max(fits, key=lambda f: f.bound)


def fit_ensemble(post, prior: GammaHyperprior | None = None, family: str = "diagonal",
                 rank: int | None = None, init=None, warm: EnsembleFit | None = None,
                 gtol: float = 1e-6, maxiter: int = 3000, callback=None,
                 rng: np.random.Generator | None = None, maxcor: int = LBFGS_MEMORY) -> EnsembleFit:
    """Maximise F[Q, R, S] over Gaussian Q of a family and Gamma R(α), S(β) (B&B (26), (33)–(38)).

    Parameters
    ----------
    post : NetworkPosterior
        Model and data (its α, β are ignored: they are adapted).
    prior : GammaHyperprior, optional
        Default: Barber & Bishop's Boston values a = 0.25, b = 400, c = 0.05, d = 2000.
    family, rank : str, int
        ``"diagonal"``, ``"factor"`` (rank s, 0 ≤ s ≤ k − 1) or ``"full"``.
    init : list of (mean, cov), optional
        Starting Gaussians, e.g. the Laplace fit ``(w_MP, A⁻¹)``.
    warm : EnsembleFit, optional
        The fit of a poorer family (diagonal, smaller s) to start from
        exactly (:func:`_embed`), so that the richer family's bound cannot
        end below it. At least one of ``init`` and ``warm`` is required; the
        best bound over all starts wins.
    gtol : float
        Gradient tolerance (> 0) passed to :func:`~ensemble_lib.inference.kl_fit`.
    maxiter : int
        Optimiser iterations per start (1 to 100 000).
    callback : callable, optional
        Called after each optimiser iteration (progress bars).
    rng : numpy.random.Generator, optional
        Draws the directions of the small factors added to a ``warm`` start
        (:func:`_embed`); required with ``warm``.
    maxcor : int
        L-BFGS-B's memory: past steps its inverse-Hessian estimate keeps (1 to 1000; default 30,
        what the stored results were made with). The Table-1 study uses 100
        (:class:`~ensemble_lib.studies.splits.TableConfig`): its factor families then need a third
        to a half of the evaluations to the same optimum.

    Warns
    -----
    KLFitWarning
        If the best start stopped before reaching the tolerance.

    Notes
    -----
    Maximises the collapsed bound F*(Q) of :class:`CollapsedBound` (module
    docstring); at its optimum ᾱ, β̄ satisfy (37)–(38) for Q, and Q is the
    KL-optimal Gaussian (B&B (34)) at those ᾱ, β̄.
    """
    post = check.posterior("post", post)
    prior = GammaHyperprior() if prior is None else prior
    cb = CollapsedBound(post, prior)
    gtol = check.positive("gtol", gtol)
    maxiter = check.integer("maxiter", maxiter, low=1, high=100_000)
    fam = CovarianceFamily.make(family, post.dim, rank)  # refuses a bad family or rank, naming it, once
    fit = fit_family(cb, fam, init=init, warm=warm, gtol=gtol, maxiter=maxiter, rng=rng,
                     callback=callback, maxcor=maxcor)
    alpha, beta = cb.hyperparameters(fit.mean, fit.cov)
    return EnsembleFit(mean=fit.mean, cov=fit.cov, alpha=float(alpha), beta=float(beta),
                       bound=float(fit.bound), family=fit.family, rank=fit.rank,
                       converged=fit.converged, n_iter=fit.n_iter, theta=fit.theta,
                       at_limit=fit.at_limit)


# ---------------------------------------------------------------------------
# MacKay's evidence framework with restarts (MacKay 1995 §3, §4.1)
# ---------------------------------------------------------------------------


def symmetry_factor(n_hidden: int) -> int:
    """H! 2^H equivalent modes of a one-hidden-layer network (MacKay §4.1)."""
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=20)
    return math.factorial(n_hidden) * 2**n_hidden


def fit_evidence(post, rng: np.random.Generator, n_restarts: int = 3,
                 alpha0: float = 1.0, beta0: float = 10.0, tol: float = 1e-6,
                 max_iter: int = 200) -> EvidenceRun:
    """MacKay's evidence framework from several random starts; the best Laplace evidence wins.

    Parameters
    ----------
    post : NetworkPosterior
        Model and data (its α, β are ignored).
    rng : numpy.random.Generator
        Draws the starting weights ``w ~ N(0, I/α0)`` of each restart.
    n_restarts : int
        Random starts of the MAP search (1 to 100).
    alpha0, beta0 : float
        Starting α, β (> 0) of every restart.
    tol, max_iter : float, int
        Passed to :func:`~ensemble_lib.inference.evidence.evidence_reestimation`.

    Returns
    -------
    EvidenceRun
        The restart with the largest Laplace log evidence (MacKay (20),
        including ``ln(H! 2^H)``, §4.1) among those whose re-estimation
        converged; if none converged, the best one with a
        :class:`~ensemble_lib.inference.hyperparameters.HyperparameterConvergenceWarning`.
        Its ``restarts`` hold every restart that ran (each with its own ``converged`` and
        ``notes``), in the order drawn, so a study can start from every local optimum.

    Warns
    -----
    Every warning a restart raised other than its own non-convergence (which its run records)
    is passed on.

    Raises
    ------
    RuntimeError
        If every restart failed (e.g. every mode search ended at a saddle).
    """
    post = check.posterior("post", post)
    rng = check.generator("rng", rng)
    n_restarts = check.integer("n_restarts", n_restarts, low=1, high=100)
    tol = check.positive("tol", tol)
    max_iter = check.integer("max_iter", max_iter, low=1, high=100_000)
    alpha0 = check.positive("alpha0", alpha0)
    beta0 = check.positive("beta0", beta0)
    sym = symmetry_factor(post.n_hidden)
    runs, errors, passed_on = [], [], []
    for _ in range(n_restarts):
        start = rng.normal(size=post.dim) / math.sqrt(alpha0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                run = evidence_reestimation(post, alpha0=alpha0, beta0=beta0, tol=tol,
                                            max_iter=max_iter, symmetry_factor=sym, start=start,
                                            exact=False)
            except (ValueError, np.linalg.LinAlgError) as exc:
                errors.append(str(exc))
                run = None
        # a restart's non-convergence is recorded in its run (``converged``, ``notes``) and
        # summarised below; every other warning is passed on to the caller
        passed_on += [c for c in caught if not issubclass(c.category, HyperparameterConvergenceWarning)]
        if run is not None:
            runs.append(run)
    for c in passed_on:
        warnings.warn_explicit(c.message, c.category, c.filename, c.lineno)
    if not runs:
        raise RuntimeError(f"fit_evidence: all {n_restarts} restarts failed: {errors[-1]}")
    good = [r for r in runs if r.converged]
    if not good:
        best = max(runs, key=lambda r: r.final.log_evidence)
        warnings.warn(
            f"fit_evidence: none of the {n_restarts} restarts converged; returning the best "
            f"(alpha = {best.alpha_final:.4g}, beta = {best.beta_final:.4g}). "
            + " ".join(best.notes), HyperparameterConvergenceWarning, stacklevel=2)
    else:
        best = max(good, key=lambda r: r.final.log_evidence)
    return dataclasses.replace(best, restarts=tuple(runs))


def laplace_error_bars(post, w_mp, hessian, beta, X) -> tuple[np.ndarray, np.ndarray]:
    """Laplace predictive mean and variance at new inputs: f(x, w_MP) and gᵀA⁻¹g + 1/β (MacKay §5.2).

    MacKay (1995), "Probable networks", §5.2: with the output linearised
    about the mode, ``f(x, w) ≈ f(x, w_MP) + gᵀ(w − w_MP)``, ``g = ∂f/∂w``,
    and ``w ~ N(w_MP, A⁻¹)``, the predictive distribution of a new target is
    Gaussian with mean ``f(x, w_MP)`` and variance ``gᵀA⁻¹g + 1/β``.

    Parameters
    ----------
    post : NetworkPosterior
        Supplies H (its data are not used).
    w_mp : array_like, shape (k,)
        The mode (packing as in :func:`~ensemble_lib.network_output`).
    hessian : array_like, shape (k, k)
        A = ∇∇(βE_D + αE_W) at the mode, positive definite.
    beta : float
        Noise precision β > 0.
    X : array_like, shape (M, d)
        New inputs (with the bias column).

    Returns
    -------
    (mean, var) : ndarrays of shape (M,)
    """
    post = check.posterior("post", post)
    w_mp, A = check.mean_cov(w_mp, hessian, post.dim, ("w_mp", "hessian"))
    beta = check.positive("beta", beta)
    G = network_jacobian(w_mp, X, post.n_hidden)  # (M, k)
    mean = G[:, -post.n_hidden:] @ w_mp[-post.n_hidden:]  # Σ v_i σ(u_iᵀx) = f(x, w_MP)
    return mean, GaussianFactor(A, "hessian").quad(G.T) + 1.0 / beta  # g_mᵀ A⁻¹ g_m per input


__all__ = ["CollapsedBound", "EnsembleFit", "fit_ensemble", "fit_evidence", "fit_family",
           "laplace_error_bars", "symmetry_factor"]
