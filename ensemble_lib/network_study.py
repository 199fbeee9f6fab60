"""Lesson 4: ensemble learning for real networks — Barber & Bishop's Table 1 and a 1-D demo.

Barber & Bishop (1998), §2.1 (eqs 17–26), §2.2 (eqs 27–38), §2.3 (Table 1);
MacKay (1995), "Probable networks", §3 (eqs 18–25), §4.1 (symmetry factor
H! 2^H) and §5.2 (predictive error bars gᵀA⁻¹g + 1/β).

* :class:`CollapsedBound` and :func:`fit_ensemble`: the Gaussian Q = N(w̄, C)
  of a family (diagonal, factor s, full; eq. 26) with the Gamma hyperpriors
  (27)–(28), maximising the bound F[Q, R, S] of eq. (33); :func:`fit_family`
  also warm-starts a richer family exactly from a poorer one's solution, so
  the bound cannot fall as s grows;
* :func:`fit_evidence`: MacKay's evidence framework with several random
  restarts of the MAP (the best Laplace evidence wins);
* :func:`laplace_error_bars`: ``gᵀA⁻¹g + 1/β`` (MacKay §5.2);
* :func:`run_split`, :func:`run_table`: the Table-1 study over random splits
  (:class:`TableConfig`; ``python -m ensemble_lib.network_study --table``),
  stored in ``figures/boston_table1.json`` and ``figures/diabetes_table.json``.
  The paper used 128 training and 250 test points; we test on all the other
  378 rows (the issue's protocol) and average over random splits;
* :class:`Network1DPanel` (:func:`demo_fit`): the 1-D regression demo
  (sliders H, s, α or "adapt hyperparameters"), ensemble vs Laplace error bars;
* :func:`write_figures`: ``network_1d_demo.png`` and a re-plot of the stored
  tables (``boston_table1.png``) without refitting anything.

Hyperparameters by the collapsed bound
--------------------------------------
For fixed Q the optimal R(α), S(β) are Gamma (eqs 35–38) and, substituting
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
F* against :func:`~ensemble_lib.hyperparameters.full_bound` and its optimum
against :func:`~ensemble_lib.fit_hyperparameters` on a small problem.

Symbols → code: w̄, C → ``mean``, ``cov``; ᾱ, β̄ → ``alpha``, ``beta``;
a, b, c, d → ``prior``; H → ``n_hidden``; s → ``rank``; F → ``bound``;
A (MacKay's Hessian) → ``hessian``; g → ``jacobian`` rows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize
from scipy.special import gammaln

from . import _validation as check
from .evidence import EvidenceRun, evidence_reestimation
from .gaussian import LOG_2PI, CovarianceFamily, gaussian_entropy
from .hyperparameters import GammaHyperprior, HyperparameterConvergenceWarning
from .kl_fit import KLFit, KLFitWarning, kl_fit, kl_objective
from .network import NetworkPosterior, network_jacobian, network_output
from .posterior import Expectation
from .widgets import FigurePanel


# ---------------------------------------------------------------------------
# The bound with the hyperparameters maximised out (eqs 33–38)
# ---------------------------------------------------------------------------


class CollapsedBound:
    """F*(Q) = max over R(α), S(β) of F[Q, R, S] (eqs 33–38), in the interface of ``kl_fit``.

    ``kl_fit`` minimises ``expected_energy − H[Q]``; here the "energy" is
    ``r ln(W/2 + 1/b) + u ln(⟨E_D⟩ + 1/d)`` and ``log_normalisers = −c_0``,
    so ``kl_fit(...).bound`` is F*(Q) (module docstring).

    Parameters
    ----------
    post : NetworkPosterior
        Model and data (its own α, β are not used).
    prior : GammaHyperprior
        Constants a, b, c, d.
    """

    def __init__(self, post, prior: GammaHyperprior):
        if not isinstance(prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
        self.post, self.prior = post, prior
        self.dim, self.n_data = post.dim, post.n_data
        self.r = 0.5 * self.dim + prior.a
        self.u = 0.5 * self.n_data + prior.c

    def hyperparameters(self, mean, cov, expected_data_error=None) -> tuple[float, float]:
        """(ᾱ, β̄) of the optimal R, S for Q = N(mean, cov): eqs (37), (38)."""
        if expected_data_error is None:
            expected_data_error = self.post.expected_data_error(mean, cov).value
        W = float(mean @ mean + np.trace(cov))
        return (self.r / (0.5 * W + 1.0 / self.prior.b),
                self.u / (float(expected_data_error) + 1.0 / self.prior.d))

    def expected_energy(self, mean, cov) -> Expectation:
        ed = self.post.expected_data_error(mean, cov)
        alpha, beta = self.hyperparameters(mean, cov, ed.value)
        W = float(mean @ mean + np.trace(cov))
        value = (self.r * math.log(0.5 * W + 1.0 / self.prior.b)
                 + self.u * math.log(ed.value + 1.0 / self.prior.d))
        return Expectation(value, beta * ed.d_mean + alpha * mean,
                           beta * ed.d_cov + 0.5 * alpha * np.eye(self.dim))

    @property
    def log_normalisers(self) -> float:
        p = self.prior
        c0 = (gammaln(self.r) + gammaln(self.u) - gammaln(p.a) - p.a * math.log(p.b)
              - gammaln(p.c) - p.c * math.log(p.d) - 0.5 * (self.n_data + self.dim) * LOG_2PI)
        return -float(c0)

    @property
    def log_Z(self) -> float:
        raise NotImplementedError("the network posterior has no exact normaliser")

    def bound(self, mean, cov) -> float:
        """F*(Q) for Q = N(mean, cov)."""
        mean, cov = check.mean_cov(mean, cov, self.dim)
        return float(gaussian_entropy(cov) - self.expected_energy(mean, cov).value
                     - self.log_normalisers)


@dataclass(frozen=True)
class EnsembleFit:
    """An ensemble-learning fit with adapted hyperparameters.

    ``alpha``, ``beta`` are the means ᾱ = rs, β̄ = uv of the optimal R, S
    (eqs 37–38) for the final Q; ``bound`` is F[Q, R, S] (eq. 33) with those
    R, S, i.e. the collapsed bound F*(Q). ``theta`` are the family's
    parameters (:class:`~ensemble_lib.gaussian.CovarianceFamily`), used to
    warm-start a richer family exactly.
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


def _embed(warm, fam: CovarianceFamily) -> np.ndarray:
    """Parameters of ``fam`` giving (almost exactly) the Gaussian of a poorer family's fit.

    Diagonal or factor s' → factor s ≥ s': keep w̄, d and the s' factors and
    add s − s' factors of length 10⁻³·‖d‖ (a zero factor would be a
    stationary point: ∂F/∂S = 2GS). → full: the exact Cholesky factor.
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
    extra = np.random.default_rng(0).standard_normal((k, fam.rank - old_rank))
    extra *= 1e-3 * np.exp(log_d)[:, None]
    return np.concatenate([warm.mean, log_d, np.hstack([S_old, extra]).ravel()])


def fit_family(target, family: str = "diagonal", rank: int | None = None, init=None,
               warm=None, gtol: float = 1e-6, maxiter: int = 3000, callback=None) -> KLFit:
    """Minimise ``⟨energy⟩ − H[Q]`` of ``target`` over a family from Gaussians and/or a warm start.

    ``target`` is anything :func:`~ensemble_lib.kl_fit` accepts (a posterior
    at fixed α, β, or a :class:`CollapsedBound`); ``init`` are (mean, cov)
    pairs run through :func:`~ensemble_lib.kl_fit`, ``warm`` a poorer
    family's fit (with ``theta``) embedded exactly by :func:`_embed` and
    polished by L-BFGS-B. The best bound wins.
    """
    if init is None and warm is None:
        raise ValueError("init (a list of (mean, cov) starting Gaussians) or warm (an EnsembleFit) "
                         "is required, got neither")
    gtol = check.positive("gtol", gtol)
    maxiter = check.integer("maxiter", maxiter, low=1, high=100_000)
    fam = CovarianceFamily.make(family, target.dim, rank)
    fits = []
    if init is not None:
        fits.append(kl_fit(target, family, rank, init=init, gtol=gtol, maxiter=maxiter,
                           symmetric=False, callback=callback))
    if warm is not None:
        theta0 = _embed(warm, fam)
        res = optimize.minimize(lambda th: kl_objective(target, fam, th), theta0, jac=True,
                                method="L-BFGS-B", callback=callback,
                                options={"gtol": gtol, "ftol": 1e-14, "maxiter": maxiter,
                                         "maxcor": 30})
        if np.isfinite(res.fun):
            mean, cov = fam.unpack(res.x)
            # L-BFGS-B may end with "ABNORMAL" (a failed line search) where the objective's changes
            # are below round-off; with every gradient component under 1e-4 that is an optimum
            converged = bool(res.success) or float(np.max(np.abs(res.jac))) <= 1e-4
            fits.append(KLFit(mean=mean, cov=cov, kl=math.nan,
                              bound=float(-res.fun - target.log_normalisers),
                              family=fam.name, rank=fam.rank, n_iter=int(res.nit),
                              grad_norm=float(np.linalg.norm(res.jac)), converged=converged,
                              theta=res.x))
            if init is None and not converged:
                warnings.warn(f"fit_family ({fam.name}, s={fam.rank}) stopped before converging: "
                              f"gradient norm {np.linalg.norm(res.jac):.2e} ({res.message})",
                              KLFitWarning, stacklevel=2)
    if not fits:
        raise RuntimeError("fit_family: every start failed (the bound was not finite)")
    return max(fits, key=lambda f: f.bound)


def fit_ensemble(post, prior: GammaHyperprior | None = None, family: str = "diagonal",
                 rank: int | None = None, init=None, warm: EnsembleFit | None = None,
                 gtol: float = 1e-6, maxiter: int = 3000, callback=None) -> EnsembleFit:
    """Maximise F[Q, R, S] over Gaussian Q of a family and Gamma R(α), S(β) (eqs 26, 33–38).

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
        Gradient tolerance (> 0) passed to :func:`~ensemble_lib.kl_fit`.
    maxiter : int
        Optimiser iterations per start (1 to 100 000).
    callback : callable, optional
        Called after each optimiser iteration (progress bars).

    Warns
    -----
    KLFitWarning
        If the best start stopped before reaching the tolerance.

    Notes
    -----
    Maximises the collapsed bound F*(Q) of :class:`CollapsedBound` (module
    docstring); at its optimum ᾱ, β̄ satisfy (37)–(38) for Q, and Q is the
    KL-optimal Gaussian (eq. 34) at those ᾱ, β̄.
    """
    prior = GammaHyperprior() if prior is None else prior
    cb = CollapsedBound(post, prior)
    fit = fit_family(cb, family, rank, init=init, warm=warm, gtol=gtol, maxiter=maxiter,
                     callback=callback)
    alpha, beta = cb.hyperparameters(fit.mean, fit.cov)
    return EnsembleFit(mean=fit.mean, cov=fit.cov, alpha=float(alpha), beta=float(beta),
                       bound=float(fit.bound), family=fit.family, rank=fit.rank,
                       converged=fit.converged, n_iter=fit.n_iter, theta=fit.theta)


# ---------------------------------------------------------------------------
# MacKay's evidence framework with restarts (MacKay 1995 §3, §4.1)
# ---------------------------------------------------------------------------


def symmetry_factor(n_hidden: int) -> int:
    """H! 2^H equivalent modes of a one-hidden-layer network (MacKay 1995, §4.1)."""
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
        Passed to :func:`~ensemble_lib.evidence.evidence_reestimation`.

    Returns
    -------
    EvidenceRun
        The restart with the largest Laplace log evidence (MacKay eq. 20,
        including ``ln(H! 2^H)``, §4.1) among those whose re-estimation
        converged; if none converged, the best one with a
        :class:`~ensemble_lib.hyperparameters.HyperparameterConvergenceWarning`.

    Raises
    ------
    RuntimeError
        If every restart failed (e.g. every mode search ended at a saddle).
    """
    rng = check.generator("rng", rng)
    n_restarts = check.integer("n_restarts", n_restarts, low=1, high=100)
    alpha0 = check.positive("alpha0", alpha0)
    beta0 = check.positive("beta0", beta0)
    sym = symmetry_factor(post.n_hidden)
    runs, errors = [], []
    for _ in range(n_restarts):
        start = rng.normal(size=post.dim) / math.sqrt(alpha0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HyperparameterConvergenceWarning)
            try:
                run = evidence_reestimation(post, alpha0=alpha0, beta0=beta0, tol=tol,
                                            max_iter=max_iter, symmetry_factor=sym, start=start,
                                            exact=False)
            except (ValueError, np.linalg.LinAlgError) as exc:
                errors.append(str(exc))
                continue
        ok = run.converged and not any(issubclass(c.category, HyperparameterConvergenceWarning)
                                       for c in caught)
        runs.append((ok, run))
    if not runs:
        raise RuntimeError(f"fit_evidence: all {n_restarts} restarts failed: {errors[-1]}")
    good = [r for ok, r in runs if ok]
    if not good:
        best = max((r for _, r in runs), key=lambda r: r.final.log_evidence)
        warnings.warn(
            f"fit_evidence: none of the {n_restarts} restarts converged; returning the best "
            f"(alpha = {best.alpha_final:.4g}, beta = {best.beta_final:.4g}). "
            + " ".join(best.notes), HyperparameterConvergenceWarning, stacklevel=2)
        return best
    return max(good, key=lambda r: r.final.log_evidence)


def laplace_error_bars(post, w_mp, hessian, beta, X) -> tuple[np.ndarray, np.ndarray]:
    """Laplace predictive mean and variance at new inputs: f(x, w_MP) and gᵀA⁻¹g + 1/β.

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
    w_mp, A = check.mean_cov(w_mp, hessian, post.dim)
    beta = check.positive("beta", beta)
    G = network_jacobian(w_mp, X, post.n_hidden)  # (M, k)
    L = np.linalg.cholesky(A)
    Z = np.linalg.solve(L, G.T)  # L⁻¹ gᵀ, so ‖Z_m‖² = g_mᵀ A⁻¹ g_m
    mean = G[:, -post.n_hidden:] @ w_mp[-post.n_hidden:]  # Σ v_i σ(u_iᵀx) = f(x, w_MP)
    return mean, np.sum(Z * Z, axis=0) + 1.0 / beta


# ---------------------------------------------------------------------------
# The Table-1 study (Barber & Bishop §2.3)
# ---------------------------------------------------------------------------

#: Barber & Bishop's Table 1 (test mean squared error, Boston, 128 training points)
PAPER_TABLE1 = {"ensemble_s1": 0.22, "ensemble_diagonal": 0.28, "laplace_evidence": 0.33}
#: method keys in table order, with their labels
METHOD_LABELS = {
    "ensemble_s1": "Ensemble (s = 1)",
    "ensemble_diagonal": "Ensemble (diagonal)",
    "laplace_evidence": "Laplace (MacKay evidence)",
    "ensemble_s2": "Ensemble (s = 2)",
    "ensemble_s4": "Ensemble (s = 4)",
    "ensemble_full": "Ensemble (full covariance)",
}
#: where ``--table`` stores its results (relative to the repository root)
TABLE_FILES = {"boston": "boston_table1.json", "diabetes": "diabetes_table.json"}


@dataclass(frozen=True)
class TableConfig:
    """The Table-1 protocol (Barber & Bishop §2.3) and our additions.

    Attributes
    ----------
    n_train : int
        Training rows (128 in the paper); the rest are the test set.
    n_hidden : int
        Hidden units H (4 in the paper).
    prior : GammaHyperprior
        a = 0.25, b = 400, c = 0.05, d = 2000 (the paper's).
    ranks : tuple of int
        Factor-analysis ranks s fitted besides the diagonal (eq. 26).
    full : bool
        Also fit the full covariance.
    n_splits : int
        Random train/test splits (mean ± standard error over them).
    n_restarts : int
        Random restarts of MacKay's MAP search per split.
    seed : int
        Split i uses ``default_rng([seed, i])``, its restarts ``default_rng([seed, i, 1])``.
    """

    n_train: int = 128
    n_hidden: int = 4
    prior: GammaHyperprior = GammaHyperprior()
    ranks: tuple = (1, 2, 4)
    full: bool = True
    n_splits: int = 10
    n_restarts: int = 3
    seed: int = 0

    def __post_init__(self):
        check.integer("n_train", self.n_train, low=2)
        check.integer("n_hidden", self.n_hidden, low=1, high=20)
        check.integer("n_splits", self.n_splits, low=1, high=1000)
        check.integer("n_restarts", self.n_restarts, low=1, high=100)
        check.integer("seed", self.seed, low=0)
        if not isinstance(self.prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(self.prior).__name__}")
        ranks = tuple(sorted(set(check.integer("ranks", r, low=1) for r in self.ranks)))
        object.__setattr__(self, "ranks", ranks)

    def as_dict(self) -> dict:
        return {"n_train": self.n_train, "n_hidden": self.n_hidden,
                "prior": {"a": self.prior.a, "b": self.prior.b, "c": self.prior.c, "d": self.prior.d},
                "ranks": list(self.ranks), "full": self.full, "n_splits": self.n_splits,
                "n_restarts": self.n_restarts, "seed": self.seed}


def _ensemble_row(fit: EnsembleFit, post, X_test, y_test) -> dict:
    pred = post.predictive_mean(fit.mean, fit.cov, X_test)
    return {"test_mse": float(np.mean((pred - y_test) ** 2)), "bound": fit.bound,
            "log_evidence": None, "alpha": fit.alpha, "beta": fit.beta,
            "converged": fit.converged, "n_iter": fit.n_iter}


def run_split(X, y, config: TableConfig, index: int = 0) -> dict:
    """Fit every method on one random split and return its test errors and diagnostics.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Raw inputs (a bias column is appended after standardising).
    y : array_like, shape (N,)
        Raw targets.
    config : TableConfig
    index : int
        Split number i ≥ 0 (selects the random generators, see :class:`TableConfig`).

    Returns
    -------
    dict
        ``methods``: method key → ``test_mse`` (standardised target units),
        ``bound`` (F*(Q) of the method's Gaussian; for Laplace, of
        N(w_MP, A⁻¹)), ``log_evidence`` (MacKay's eq. 20 with ln H!2^H, Laplace
        only), ``alpha``, ``beta``, ``converged``; ``baseline_mse`` (predicting
        the training mean, i.e. 0) and ``seconds``.

    Notes
    -----
    Order of fits: MacKay's evidence (restarts; best Laplace evidence wins);
    the diagonal ensemble from the Laplace mode with variances 1/A_ii; each
    factor rank from the poorer family's solution *and* from the Laplace
    Gaussian (best bound wins); the full covariance from the richest factor
    solution and from the Laplace Gaussian. So the bound cannot decrease
    from diagonal to s to full (up to the optimiser's tolerance).
    """
    import time

    from .datasets import train_test_split_standardised
    from .network import add_bias

    if not isinstance(config, TableConfig):
        raise ValueError(f"config must be a TableConfig, got {type(config).__name__}")
    index = check.integer("index", index, low=0)
    t0 = time.perf_counter()
    split = train_test_split_standardised(X, y, config.n_train,
                                          np.random.default_rng([config.seed, index]))
    Xtr, Xte = add_bias(split.X_train), add_bias(split.X_test)
    post = NetworkPosterior(Xtr, split.y_train, config.n_hidden, alpha=1.0, beta=1.0)
    bad = [r for r in config.ranks if r > post.dim - 1]
    if bad:
        raise ValueError(f"ranks must lie in [1, k - 1] = [1, {post.dim - 1}] for this network, got {bad}")
    ev = fit_evidence(post, np.random.default_rng([config.seed, index, 1]),
                      n_restarts=config.n_restarts)
    st = ev.final
    cb = CollapsedBound(post, config.prior)
    rows = {"laplace_evidence": {
        "test_mse": float(np.mean((network_output(st.mean, Xte, post.n_hidden) - split.y_test) ** 2)),
        "bound": cb.bound(st.mean, st.cov), "log_evidence": float(st.log_evidence),
        "alpha": float(st.alpha), "beta": float(st.beta), "gamma": float(st.gamma),
        "converged": bool(ev.converged), "n_iter": int(ev.n_iter)}}
    laplace_start = [(st.mean, st.cov)]
    prev = fit_ensemble(post, config.prior, "diagonal",
                        init=[(st.mean, np.diag(1.0 / np.diag(st.hessian)))])
    rows["ensemble_diagonal"] = _ensemble_row(prev, post, Xte, split.y_test)
    for r in config.ranks:
        prev = fit_ensemble(post, config.prior, "factor", r, init=laplace_start, warm=prev)
        rows[f"ensemble_s{r}"] = _ensemble_row(prev, post, Xte, split.y_test)
    if config.full:
        full = fit_ensemble(post, config.prior, "full", init=[(prev.mean, prev.cov)] + laplace_start)
        rows["ensemble_full"] = _ensemble_row(full, post, Xte, split.y_test)
    return {"index": index, "methods": rows, "baseline_mse": float(np.mean(split.y_test ** 2)),
            "n_test": split.n_test, "seconds": time.perf_counter() - t0}


def _mean_se(values) -> dict:
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size == 0:
        return {"mean": None, "se": None}
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else None
    return {"mean": float(v.mean()), "se": se}


def summarise(splits: list[dict]) -> dict:
    """Method → mean and standard error (s.d./√n over splits) of each recorded quantity."""
    keys = [k for k in METHOD_LABELS if k in splits[0]["methods"]]
    out = {}
    for key in keys:
        rows = [s["methods"][key] for s in splits]
        out[key] = {q: _mean_se([r[q] for r in rows])
                    for q in ("test_mse", "bound", "log_evidence", "alpha", "beta")}
        out[key]["label"] = METHOD_LABELS[key]
        out[key]["n_converged"] = int(sum(bool(r["converged"]) for r in rows))
    return out


def run_table(dataset: str = "boston", config: TableConfig | None = None, progress=None) -> dict:
    """The Table-1 study: :func:`run_split` over ``config.n_splits`` splits, summarised.

    Parameters
    ----------
    dataset : {"boston", "diabetes"}
    config : TableConfig, optional
        Default: the paper's protocol with 10 splits.
    progress : callable, optional
        Called as ``progress(i, split_result)`` after each split.

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``config``, ``methods`` (method → mean and
        standard error of ``test_mse``, ``bound``, ``log_evidence``, ``alpha``,
        ``beta``), ``paper`` (Table 1, Boston only), ``baseline_mse``,
        ``splits`` (every split's numbers) and ``note``.
    """
    from .datasets import load_boston, load_diabetes

    loaders = {"boston": load_boston, "diabetes": load_diabetes}
    if dataset not in loaders:
        raise ValueError(f"dataset must be one of {sorted(loaders)}, got {dataset!r}")
    config = TableConfig() if config is None else config
    data = loaders[dataset]()
    splits = []
    for i in range(config.n_splits):
        splits.append(run_split(data.X, data.y, config, i))
        if progress is not None:
            progress(i, splits[-1])
    return {
        "dataset": dataset,
        "n_samples": data.n_samples,
        "n_inputs": data.n_features,
        "config": config.as_dict(),
        "units": "mean squared error of targets standardised with the training mean and s.d.",
        "command": f"python -m ensemble_lib.network_study --table --datasets {dataset}",
        "methods": summarise(splits),
        "paper": PAPER_TABLE1 if dataset == "boston" else None,
        "baseline_mse": _mean_se([s["baseline_mse"] for s in splits]),
        "splits": splits,
        "note": data.note,
    }


def write_table(result: dict, path) -> "Path":
    """Write a :func:`run_table` result as indented JSON (sorted keys) and return the path."""
    import json
    from pathlib import Path

    path = Path(path)
    path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return path


def load_table(name: str = "boston", directory=None) -> dict:
    """Read a stored table (``figures/boston_table1.json`` or ``figures/diabetes_table.json``)."""
    import json

    from .figures import DEFAULT_OUTDIR

    if name not in TABLE_FILES:
        raise ValueError(f"name must be one of {sorted(TABLE_FILES)}, got {name!r}")
    directory = DEFAULT_OUTDIR if directory is None else directory
    from pathlib import Path

    path = Path(directory) / TABLE_FILES[name]
    if not path.is_file():
        raise FileNotFoundError(
            f"{path.name} is missing: run `python -m ensemble_lib.network_study --table` to make it")
    return json.loads(path.read_text())


def format_table(result: dict) -> str:
    """The stored table as fixed-precision text: test MSE ± s.e., bound, α, β (and the paper's)."""
    paper = result.get("paper") or {}
    lines = [f"{'method':28s} {'test MSE':>15s} {'paper':>6s} {'bound F*':>16s} "
             f"{'ln ev (Lapl.)':>13s} {'alpha':>8s} {'beta':>8s}"]
    for key in [k for k in METHOD_LABELS if k in result["methods"]]:
        m = result["methods"][key]
        mse, F, le = m["test_mse"], m["bound"], m["log_evidence"]
        lines.append(
            f"{m['label']:28s} {mse['mean']:7.3f} ± {mse['se']:5.3f} "
            f"{paper.get(key, float('nan')):6.2f} {F['mean']:8.1f} ± {F['se']:5.1f} "
            + (f"{le['mean']:13.1f}" if le["mean"] is not None else f"{'-':>13s}")
            + f" {m['alpha']['mean']:8.3g} {m['beta']['mean']:8.3g}")
    b = result["baseline_mse"]
    lines.append(f"{'(predict the training mean)':28s} {b['mean']:7.3f} ± {b['se']:5.3f}")
    return "\n".join(lines).replace(" nan", "   -")



# ---------------------------------------------------------------------------
# The 1-D regression demo (ensemble vs Laplace error bars)
# ---------------------------------------------------------------------------

#: slider ranges of :class:`Network1DPanel`
H_RANGE = (1, 4)
S_RANGE = (0, 2)  # s = 0 is the diagonal family; k = 3H ≥ 3 so s ≤ 2 ≤ k − 1 always
LOG10_ALPHA_RANGE = (-2.0, 2.0)
#: noise precision used when the hyperparameters are not adapted (the data's 1/σ²)
DEMO_NOISE_SD = 0.1
DEMO_BETA = 1.0 / DEMO_NOISE_SD**2
DEMO_DEFAULTS = {"n_hidden": 2, "rank": 1, "alpha": 1.0, "adapt": True}


def demo_data(n: int = 16, seed: int = 3):
    """1-D regression data with a gap: x in [−2, −0.4] ∪ [0.6, 2], t = sin(1.5x) + N(0, 0.1²).

    Returns ``(x, t)``; ``seed`` fixes a ``numpy.random.default_rng``.
    """
    n = check.integer("n", n, low=4, high=1000)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = np.sort(np.concatenate([rng.uniform(-2.0, -0.4, n // 2), rng.uniform(0.6, 2.0, n - n // 2)]))
    return x, np.sin(1.5 * x) + DEMO_NOISE_SD * rng.standard_normal(n)


@dataclass(frozen=True)
class DemoState:
    """Predictions of the ensemble Q and of Laplace on a grid of x, with their hyperparameters."""

    n_hidden: int
    rank: int
    adapt: bool
    x_grid: np.ndarray = field(repr=False)
    ens_mean: np.ndarray = field(repr=False)
    ens_sd: np.ndarray = field(repr=False)
    lap_mean: np.ndarray = field(repr=False)
    lap_sd: np.ndarray = field(repr=False)
    ens_alpha: float
    ens_beta: float
    lap_alpha: float
    lap_beta: float
    bound: float
    lap_bound: float
    lap_log_evidence: float
    notes: tuple = ()


def _best_mode(post, rng, n_starts: int = 4):
    """Laplace at fixed α, β: the best of several random starts (highest log posterior)."""
    from .laplace import laplace_fit

    best = None
    for _ in range(n_starts):
        try:
            fit = laplace_fit(post, start=rng.standard_normal(post.dim), compute_kl=False)
        except ValueError:
            continue
        if best is None or post.log_unnorm(fit.mean) > post.log_unnorm(best.mean):
            best = fit
    if best is None:
        raise RuntimeError("every mode search ended at a saddle point")
    return best


def demo_fit(x, t, n_hidden: int, rank: int, alpha: float, adapt: bool,
             prior: GammaHyperprior | None = None, n_grid: int = 121) -> DemoState:
    """Fit the 1-D demo: ensemble Q (diagonal for s = 0, else factor s) and Laplace.

    With ``adapt`` the hyperparameters are inferred (ensemble: Gamma
    hyperpriors, eqs 35–38 via :func:`fit_ensemble`; Laplace: MacKay's
    re-estimation via :func:`fit_evidence`) and ``alpha`` is ignored;
    otherwise both use the given α and β = 1/0.1². Error bars are one
    predictive standard deviation: ensemble ``√(⟨f²⟩ − ⟨f⟩² + 1/β̄)``,
    Laplace ``√(gᵀA⁻¹g + 1/β)`` (MacKay §5.2).
    """
    from .network import add_bias

    n_hidden = check.integer("n_hidden", n_hidden, low=H_RANGE[0], high=H_RANGE[1])
    rank = check.integer("rank", rank, low=S_RANGE[0], high=S_RANGE[1])
    alpha = check.positive("alpha", alpha)
    x = check.finite_vector("x", x, min_len=2)
    t = check.finite_vector("t", t, min_len=2)
    prior = GammaHyperprior() if prior is None else prior
    X = add_bias(x[:, None])
    post = NetworkPosterior(X, t, n_hidden, alpha=alpha, beta=DEMO_BETA)
    family = "diagonal" if rank == 0 else "factor"
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if adapt:
            ev = fit_evidence(post, np.random.default_rng(0), n_restarts=4)
            st = ev.final
            w_mp, A, la, lb = st.mean, st.hessian, st.alpha, st.beta
            lap_le = float(st.log_evidence)
            Ainv = st.cov
            start = [(w_mp, np.diag(1.0 / np.diag(A)))]
            fit = fit_ensemble(post, prior, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_ensemble(post, prior, family, rank, warm=fit, gtol=1e-5, maxiter=300)
            ea, eb, F = fit.alpha, fit.beta, fit.bound
            lap_F = CollapsedBound(post, prior).bound(w_mp, Ainv)
        else:
            lap = _best_mode(post, np.random.default_rng(0))
            w_mp, A, la, lb, Ainv = lap.mean, lap.hessian, alpha, DEMO_BETA, lap.cov
            lap_le = float(lap.log_evidence_laplace + math.log(symmetry_factor(n_hidden)))
            start = [(w_mp, np.diag(1.0 / np.diag(A)))]
            fit = fit_family(post, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_family(post, family, rank, warm=fit, gtol=1e-5, maxiter=300)
            ea, eb, F, lap_F = alpha, DEMO_BETA, fit.bound, lap.bound
    notes = tuple(sorted({str(c.message).split(":")[0] for c in caught}))
    xg = np.linspace(-3.0, 3.0, check.integer("n_grid", n_grid, low=10, high=10_000))
    Xg = add_bias(xg[:, None])
    em = post.predictive_mean(fit.mean, fit.cov, Xg)
    ev_ = post.predictive_variance(fit.mean, fit.cov, Xg, beta=eb)
    lm, lv = laplace_error_bars(post, w_mp, A, lb, Xg)
    return DemoState(n_hidden, rank, bool(adapt), xg, em, np.sqrt(ev_), lm, np.sqrt(lv),
                     float(ea), float(eb), float(la), float(lb), float(F), float(lap_F), lap_le,
                     notes)


class _DemoPlot:
    """The demo's artists: data, ensemble mean and ±2 s.d. band, Laplace mean and ±2 s.d. lines."""

    def __init__(self, ax, x, t):
        from .plotting import COLORS

        self.ax = ax
        self.c_ens, self.c_lap = COLORS["factor"], COLORS["laplace"]
        ax.plot(x, t, "o", color="0.2", ms=4, label="data", zorder=5)
        (self.ens_line,) = ax.plot([], [], color=self.c_ens, lw=2, label="ensemble ⟨f(x)⟩")
        self.band = None
        (self.lap_line,) = ax.plot([], [], color=self.c_lap, lw=1.5, ls="--", label="Laplace f(x, w_MP)")
        (self.lap_hi,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":", label="Laplace ± 2 s.d.")
        (self.lap_lo,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":")
        ax.set_xlim(-3.0, 3.0)
        ax.set_ylim(-2.5, 2.5)
        ax.set_xlabel("x")
        ax.set_ylabel("t")
        self.title = ax.set_title(" ")

    def update(self, s: DemoState):
        xg = s.x_grid
        self.ens_line.set_data(xg, s.ens_mean)
        if self.band is not None:
            self.band.remove()
        self.band = self.ax.fill_between(xg, s.ens_mean - 2 * s.ens_sd, s.ens_mean + 2 * s.ens_sd,
                                         color=self.c_ens, alpha=0.2, lw=0, label="ensemble ± 2 s.d.")
        self.lap_line.set_data(xg, s.lap_mean)
        self.lap_hi.set_data(xg, s.lap_mean + 2 * s.lap_sd)
        self.lap_lo.set_data(xg, s.lap_mean - 2 * s.lap_sd)
        fam = "diagonal" if s.rank == 0 else f"factor s = {s.rank}"
        how = "adapted α, β" if s.adapt else f"fixed α = {s.ens_alpha:.3g}, β = {s.ens_beta:.3g}"
        self.title.set_text(f"H = {s.n_hidden}, Q {fam}, {how}")
        handles, labels = self.ax.get_legend_handles_labels()
        if self.ax.get_legend() is not None:
            self.ax.get_legend().remove()
        self.ax.legend(handles, labels, loc="lower right", fontsize=7)


def demo_figure(state: DemoState | None = None, data=None):
    """The static 1-D demo at the default slider values (``figures/network_1d_demo.png``)."""
    from .plotting import new_figure

    x, t = demo_data() if data is None else data
    if state is None:
        state = demo_fit(x, t, **DEMO_DEFAULTS)
    fig, ax = new_figure(7.0, 4.0)
    _DemoPlot(ax, x, t).update(state)
    return fig, state


def format_demo_readout(s: DemoState) -> str:
    """Plain-text readout of a :class:`DemoState` (the panel escapes it)."""
    text = (f"ensemble: alpha = {s.ens_alpha:.4g}, beta = {s.ens_beta:.4g}, bound F = {s.bound:.3f}; "
            f"Laplace: alpha = {s.lap_alpha:.4g}, beta = {s.lap_beta:.4g}, ln P(D) (eq. 20) = "
            f"{s.lap_log_evidence:.3f}, bound of N(w_MP, A^-1) = {s.lap_bound:.3f}; "
            f"error bar at x = 0 (in the gap): ensemble {s.ens_sd[s.x_grid.size // 2]:.3f}, "
            f"Laplace {s.lap_sd[s.x_grid.size // 2]:.3f}")
    if s.notes:
        text += " | warnings: " + "; ".join(s.notes)
    return text


class Network1DPanel(FigurePanel):
    """Sliders H, s, α and an "adapt hyperparameters" box; ensemble vs Laplace error bars.

    Every fit is memoised, so returning to a setting costs only the redraw.
    With "adapt" ticked the α slider is ignored (α, β are inferred).

    Parameters
    ----------
    data : (x, t), optional
        Default :func:`demo_data`.
    """

    def __init__(self, data=None):
        import ipywidgets as w

        from .plotting import new_figure

        self.x, self.t = demo_data() if data is None else data
        self._memo: dict = {}
        fig, ax = new_figure(7.0, 3.8)
        fig.set_dpi(80)
        self.plot = _DemoPlot(ax, self.x, self.t)
        d = DEMO_DEFAULTS
        common = dict(continuous_update=False, style={"description_width": "initial"})
        controls = {
            "n_hidden": w.IntSlider(value=d["n_hidden"], min=H_RANGE[0], max=H_RANGE[1],
                                    description="hidden units H", **common),
            "rank": w.IntSlider(value=d["rank"], min=S_RANGE[0], max=S_RANGE[1],
                                description="factors s (0 = diagonal)", **common),
            "alpha": w.FloatLogSlider(value=d["alpha"], base=10, min=LOG10_ALPHA_RANGE[0],
                                      max=LOG10_ALPHA_RANGE[1], step=0.25,
                                      description="prior precision α", **common),
            "adapt": w.Checkbox(value=d["adapt"], description="adapt hyperparameters α, β"),
        }
        self.draw(self.compute(**{k: c.value for k, c in controls.items()}))
        super().__init__(controls, fig, columns=2)

    def inactive_controls(self, n_hidden, rank, alpha, adapt) -> set[str]:
        """The α slider is shown disabled while α, β are adapted (it is ignored then)."""
        return {"alpha"} if adapt else set()

    def compute(self, n_hidden, rank, alpha, adapt):
        key = (int(n_hidden), int(rank), None if adapt else round(math.log10(alpha), 6), bool(adapt))
        if key not in self._memo:
            self._memo[key] = demo_fit(self.x, self.t, n_hidden, rank, alpha, adapt)
        return self._memo[key]

    def draw(self, state: DemoState) -> None:
        self.plot.update(state)

    def format_readout(self, state: DemoState) -> str:
        import html

        return html.escape(format_demo_readout(state))


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_table(ax, result: dict, title: str | None = None):
    """Test MSE ± 1 standard error per method (bars), the paper's Table 1 as crosses."""
    from .plotting import COLORS

    keys = [k for k in METHOD_LABELS if k in result["methods"]]
    colors = {"laplace_evidence": COLORS["laplace"], "ensemble_diagonal": COLORS["diagonal"],
              "ensemble_full": COLORS["full"]}
    y = np.arange(len(keys))[::-1]
    m = [result["methods"][k]["test_mse"]["mean"] for k in keys]
    se = [result["methods"][k]["test_mse"]["se"] or 0.0 for k in keys]
    arts = [ax.barh(y, m, xerr=se, color=[colors.get(k, COLORS["factor"]) for k in keys],
                    alpha=0.6, capsize=3, label=f"ours: mean ± s.e. over {len(result['splits'])} splits")]
    paper = result.get("paper") or {}
    py = [yy for yy, k in zip(y, keys) if k in paper]
    if py:
        arts.append(ax.plot([paper[k] for k in keys if k in paper], py, "kx", ms=9, mew=2,
                            label="Barber & Bishop Table 1")[0])
    b = result["baseline_mse"]["mean"]
    arts.append(ax.axvline(b, color="0.5", ls="--", lw=1, label="predict the training mean"))
    ax.set_yticks(y, [result["methods"][k]["label"] for k in keys])
    ax.set_xlabel("test mean squared error (standardised targets)")
    ax.set_title(title or result["dataset"])
    ax.legend(loc="lower right", fontsize=7)
    return arts


def table_figure(boston: dict, diabetes: dict | None = None):
    """Both stored tables side by side (``figures/boston_table1.png``)."""
    from .plotting import new_figure

    cfg = boston["config"]
    fig, axes = new_figure(11.0, 3.8, ncols=2 if diabetes else 1)
    axes = np.atleast_1d(axes)
    plot_table(axes[0], boston, f"Boston housing: N = {cfg['n_train']} training, "
               f"{boston['splits'][0]['n_test']} test, H = {cfg['n_hidden']}")
    if diabetes:
        cfg = diabetes["config"]
        plot_table(axes[1], diabetes, f"Diabetes: N = {cfg['n_train']} training, "
                   f"{diabetes['splits'][0]['n_test']} test, H = {cfg['n_hidden']}")
        axes[1].set_yticks(axes[1].get_yticks(), [""] * len(axes[1].get_yticks()))
    return fig


def write_figures(outdir) -> list:
    """Write ``network_1d_demo.png`` and ``boston_table1.png`` (a re-plot of the stored JSON).

    Nothing in the table is refitted: it reads ``boston_table1.json`` and
    ``diabetes_table.json`` from the repository's ``figures/`` folder.
    """
    from pathlib import Path

    from .plotting import figure_png

    outdir = Path(outdir)
    fig, _ = demo_figure()
    p1 = outdir / "network_1d_demo.png"
    p1.write_bytes(figure_png(fig))
    p2 = outdir / "boston_table1.png"
    p2.write_bytes(figure_png(table_figure(load_table("boston"), load_table("diabetes"))))
    return [p1, p2]


def main(argv=None) -> None:
    """``python -m ensemble_lib.network_study --table``: recompute and store the tables."""
    import argparse
    import sys
    from pathlib import Path

    from .figures import DEFAULT_OUTDIR

    parser = argparse.ArgumentParser(description="Barber & Bishop's Table 1 (Boston) and the "
                                     "same study on the diabetes data")
    parser.add_argument("--table", action="store_true", help="recompute and store the tables")
    parser.add_argument("--datasets", nargs="*", default=["boston", "diabetes"])
    parser.add_argument("--n-splits", type=int, default=TableConfig.n_splits)
    parser.add_argument("--n-train", type=int, default=TableConfig.n_train)
    parser.add_argument("--n-hidden", type=int, default=TableConfig.n_hidden)
    parser.add_argument("--ranks", type=int, nargs="*", default=list(TableConfig.ranks))
    parser.add_argument("--outdir", default=str(DEFAULT_OUTDIR))
    args = parser.parse_args(argv)
    if not args.table:
        parser.error("nothing to do: pass --table")
    config = TableConfig(n_train=args.n_train, n_hidden=args.n_hidden, ranks=tuple(args.ranks),
                         n_splits=args.n_splits)

    def progress(i, res):
        mse = ", ".join(f"{k} {v['test_mse']:.3f}" for k, v in res["methods"].items())
        print(f"split {i}: {res['seconds']:.0f} s; test MSE {mse}", file=sys.stderr, flush=True)

    for name in args.datasets:
        result = run_table(name, config, progress)
        path = write_table(result, Path(args.outdir) / TABLE_FILES[name])
        print(f"{path.name}\n{format_table(result)}", flush=True)


if __name__ == "__main__":
    main()
