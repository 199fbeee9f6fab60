"""Hyperparameter adaptation by ensemble learning: Gamma hyperpriors on α and β.

Barber & Bishop (1998), §2.2, eqs (27)–(38). The prior precision α and the
noise precision β get Gamma hyperpriors

.. math::
    p(\\alpha) \\propto \\alpha^{a-1} e^{-\\alpha/b}, \\qquad
    p(\\beta) \\propto \\beta^{c-1} e^{-\\beta/d}                          \\quad (27, 28)

(shape a, scale b; mean ab), and the joint posterior p(w, α, β | D) is
approximated by a factorised ``Q(w) R(α) S(β)`` (32) with Q Gaussian. The
lower bound (33), to be *maximised*,

.. math::
    F[Q, R, S] = \\Big\\langle \\ln \\frac{P(D\\mid w,\\beta)\\,p(w\\mid\\alpha)\\,p(\\alpha)\\,p(\\beta)}
                 {Q(w) R(\\alpha) S(\\beta)} \\Big\\rangle_{QRS},

is raised by alternating two exact coordinate steps:

* for fixed R, S, Q is the KL fit of eq. (34): the fixed-hyperparameter
  problem (17) with α, β replaced by their means ᾱ, β̄ (:func:`~ensemble_lib.inference.kl_fit`);
* for fixed Q, the optimal R and S over *all* distributions are Gamma (35)–(36):
  ``R = Gamma(r, s)``, ``r = k/2 + a``, ``2/s = ‖w̄‖² + Tr C + 2/b``, so
  ``ᾱ = r s`` (37); ``S = Gamma(u, v)``, ``u = N/2 + c``,
  ``1/v = ⟨E_D⟩ + 1/d``, so ``β̄ = u v`` (38).

The printed (31) has ``−α‖w‖²`` and (35) ``+α/s``; the prior term is
``−(α/2)‖w‖²`` and the bracket carries ``−α/s`` (see the papers' INDEX). The
updates above use the corrected forms, and the tests check them against a
direct numerical maximisation and a quadrature of the free-form optimum.

The bound, with ``⟨α⟩ = rs``, ``⟨ln α⟩ = ψ(r) + ln s`` (and likewise for β), is

.. math::
    F = H[Q] - \\bar\\beta\\langle E_D\\rangle + \\tfrac N2\\langle\\ln\\beta\\rangle
        - \\tfrac{\\bar\\alpha}2(\\|\\bar w\\|^2 + \\operatorname{Tr}C) + \\tfrac k2\\langle\\ln\\alpha\\rangle
        - \\tfrac{N+k}2\\ln 2\\pi + \\langle\\ln p(\\alpha)\\rangle + \\langle\\ln p(\\beta)\\rangle + H[R] + H[S].

Symbols → code: a, b, c, d → ``GammaHyperprior.a/.b/.c/.d``; r, s → ``r``,
``s``; u, v → ``u``, ``v``; ᾱ, β̄ → ``alpha``, ``beta``; w̄, C → ``mean``,
``cov``; k → ``post.dim``; N → ``post.n_data``.

The alternation is :func:`~ensemble_lib.inference.reestimation.reestimate`'s fixed-point
iteration (its convergence test, cap and warning); :func:`fit_hyperparameters` supplies the step.

Works for any :class:`~ensemble_lib.models.posterior.RegressionPosterior` (it only
needs ``expected_data_error`` and ``with_hyperparameters``), so a multi-layer
network can reuse it. Where the model's ln Z is exact (the toy, the linear
model), the exact ``KL(Q‖P(w|D, ᾱ, β̄))`` and ``ln P(D|ᾱ, β̄)`` are recorded
at each iteration as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import digamma, gammaln

from ..core import validation as check
from ..core.gaussian import LOG_2PI, CovarianceFamily, gaussian_entropy
from .kl_fit import kl_fit
from .reestimation import HyperparameterConvergenceWarning, ReestimationStep, reestimate

#: HyperparameterConvergenceWarning lives in :mod:`.reestimation` (the driver); re-exported here
__all__ = ["GammaHyperprior", "GammaPosterior", "HyperparameterConvergenceWarning",
           "HyperparameterRun", "fit_hyperparameters", "full_bound", "gamma_updates"]


@dataclass(frozen=True)
class GammaHyperprior:
    """Gamma hyperpriors B&B (27)–(28): ``p(α) ∝ α^{a−1} e^{−α/b}``, ``p(β) ∝ β^{c−1} e^{−β/d}``.

    Parameters
    ----------
    a, b : float
        Shape and scale of the hyperprior on α (both > 0); mean ``a b``.
    c, d : float
        Shape and scale of the hyperprior on β (both > 0); mean ``c d``.

    Notes
    -----
    The defaults are the broad hyperpriors Barber & Bishop (1998, §2.3)
    used for the Boston data: a = 0.25, b = 400, c = 0.05, d = 2000
    (hyperprior means α = β = 100).
    """

    a: float = 0.25
    b: float = 400.0
    c: float = 0.05
    d: float = 2000.0

    def __post_init__(self):
        for name in ("a", "b", "c", "d"):
            object.__setattr__(self, name, check.positive(name, getattr(self, name)))

    @property
    def alpha_mean(self) -> float:
        """Hyperprior mean of α, ``a b`` (the starting value of ᾱ)."""
        return self.a * self.b

    @property
    def beta_mean(self) -> float:
        """Hyperprior mean of β, ``c d`` (the starting value of β̄)."""
        return self.c * self.d


@dataclass(frozen=True)
class GammaPosterior:
    """A Gamma distribution ``∝ x^{shape−1} e^{−x/scale}`` (R(α) of eq. 36, or S(β))."""

    shape: float
    scale: float

    @property
    def mean(self) -> float:
        return self.shape * self.scale

    @property
    def mean_log(self) -> float:
        """⟨ln x⟩ = ψ(shape) + ln scale."""
        return float(digamma(self.shape) + math.log(self.scale))

    @property
    def entropy(self) -> float:
        """shape + ln scale + ln Γ(shape) + (1 − shape) ψ(shape)."""
        k = self.shape
        return float(k + math.log(self.scale) + gammaln(k) + (1.0 - k) * digamma(k))

    def expected_log_density(self, shape: float, scale: float) -> float:
        """⟨ln Gamma(x | shape, scale)⟩ under this distribution (a hyperprior's expected log density)."""
        shape = check.positive("shape", shape)
        scale = check.positive("scale", scale)
        return float(
            (shape - 1.0) * self.mean_log - self.mean / scale - shape * math.log(scale) - gammaln(shape)
        )


def _check_prior(prior) -> GammaHyperprior:
    if not isinstance(prior, GammaHyperprior):
        raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
    return prior


def gamma_updates(post, mean, cov, prior: GammaHyperprior, expected_data_error=None):
    """The optimal R(α), S(β) for a fixed Q = N(mean, cov): B&B (35)–(38).

    Parameters
    ----------
    post : RegressionPosterior
        Supplies ``dim`` (k), ``n_data`` (N) and ``expected_data_error``.
    mean, cov : array_like
        Q's mean w̄ and covariance C.
    prior : GammaHyperprior
        The constants a, b, c, d.
    expected_data_error : float, optional
        ⟨E_D⟩ under Q if already known (saves one evaluation).

    Returns
    -------
    (R, S) : tuple of GammaPosterior
        ``R = Gamma(r, s)`` with ``r = k/2 + a``, ``1/s = (‖w̄‖² + Tr C)/2 + 1/b``;
        ``S = Gamma(u, v)`` with ``u = N/2 + c``, ``1/v = ⟨E_D⟩ + 1/d``.
        Their means are ᾱ = r s (37) and β̄ = u v (38).
    """
    post = check.posterior("post", post)
    _check_prior(prior)
    mean, cov = check.mean_cov(mean, cov, post.dim)
    if expected_data_error is None:
        expected_data_error = post.expected_data_error(mean, cov).value
    ww = float(mean @ mean + np.trace(cov))
    r = 0.5 * post.dim + prior.a
    s = 1.0 / (0.5 * ww + 1.0 / prior.b)
    u = 0.5 * post.n_data + prior.c
    v = 1.0 / (float(expected_data_error) + 1.0 / prior.d)
    return GammaPosterior(r, s), GammaPosterior(u, v)


def full_bound(post, mean, cov, R: GammaPosterior, S: GammaPosterior, prior: GammaHyperprior,
               expected_data_error=None) -> float:
    """The lower bound F[Q, R, S] of B&B (33) for Gaussian Q and Gamma R, S.

    Includes every term: Q's entropy (18), the expected log likelihood (30)
    and log prior (31, with α/2), the expected log hyperpriors (27)–(28) and
    the entropies of R and S. ``R`` and ``S`` may be any Gamma distributions,
    not only the optimal ones from :func:`gamma_updates`.
    """
    post = check.posterior("post", post)
    for name, dist in (("R", R), ("S", S)):
        if not isinstance(dist, GammaPosterior):
            raise ValueError(f"{name} must be a GammaPosterior, got {type(dist).__name__}")
    _check_prior(prior)
    mean, cov = check.mean_cov(mean, cov, post.dim)
    if expected_data_error is None:
        expected_data_error = post.expected_data_error(mean, cov).value
    k, N = post.dim, post.n_data
    ww = float(mean @ mean + np.trace(cov))
    value = (
        gaussian_entropy(cov)
        - S.mean * float(expected_data_error) + 0.5 * N * S.mean_log
        - 0.5 * R.mean * ww + 0.5 * k * R.mean_log
        - 0.5 * (N + k) * LOG_2PI
        + R.expected_log_density(prior.a, prior.b) + S.expected_log_density(prior.c, prior.d)
        + R.entropy + S.entropy
    )
    return float(value)


@dataclass(frozen=True)
class HyperparameterRun:
    """Result of :func:`fit_hyperparameters`: the whole trajectory.

    Iteration i fits Q_i at (``alpha[i]``, ``beta[i]``) and then updates R, S.

    Attributes
    ----------
    alpha, beta : ndarray (n_iter,)
        ᾱ_i, β̄_i used for the i-th Q fit; ``alpha[0]``, ``beta[0]`` are the
        hyperprior means ab, cd.
    bound : ndarray (n_iter,)
        F[Q_i, R_i, S_i] (B&B (33), every term), R_0, S_0 being the hyperpriors.
    bound_after_update : ndarray (n_iter,)
        F[Q_i, R_{i+1}, S_{i+1}] after the Gamma updates (37)–(38).
    bound_q : ndarray (n_iter,)
        The fixed-hyperparameter bound F[Q_i] at (ᾱ_i, β̄_i) (B&B (17)).
    kl : ndarray (n_iter,)
        Exact KL(Q_i ‖ P(w | D, ᾱ_i, β̄_i)) (nan if the model has no exact ln Z).
    log_evidence : ndarray (n_iter,)
        Exact ln P(D | ᾱ_i, β̄_i) (nan if not computable); ``bound_q + kl``.
    means, covs : ndarray (n_iter, k), (n_iter, k, k)
        Q_i.
    R, S : GammaPosterior
        The final R(α), S(β) (the last update).
    converged : bool
    tol_reached : float
        The last change max(|Δ ln ᾱ|, |Δ ln β̄|).
    notes : tuple of str
        Plain-language diagnoses (a hyperparameter set by its hyperprior
        rather than by the data, i.e. running towards 0 or ∞).
    """

    alpha: np.ndarray
    beta: np.ndarray
    bound: np.ndarray
    bound_after_update: np.ndarray
    bound_q: np.ndarray
    kl: np.ndarray
    log_evidence: np.ndarray
    means: np.ndarray = field(repr=False)
    covs: np.ndarray = field(repr=False)
    R: GammaPosterior
    S: GammaPosterior
    prior: GammaHyperprior
    family: str
    converged: bool
    tol_reached: float
    notes: tuple = ()

    @property
    def n_iter(self) -> int:
        return int(self.alpha.size)

    @property
    def alpha_final(self) -> float:
        """ᾱ = r s of the final R (B&B (37))."""
        return self.R.mean

    @property
    def beta_final(self) -> float:
        """β̄ = u v of the final S (B&B (38))."""
        return self.S.mean

    @property
    def bound_final(self) -> float:
        return float(self.bound_after_update[-1])

    @property
    def mean(self) -> np.ndarray:
        return self.means[-1]

    @property
    def cov(self) -> np.ndarray:
        return self.covs[-1]


def _diagnose(post, prior: GammaHyperprior, ww: float, ed: float) -> list[str]:
    """Explain a hyperparameter that the hyperprior, not the data, has set."""
    notes = []
    if 0.5 * ww < 1.0 / prior.b:
        cap = (0.5 * post.dim + prior.a) * prior.b
        notes.append(
            f"alpha is set by its hyperprior, not by the data: <|w|^2>/2 = {0.5 * ww:.3g} is below "
            f"1/b = {1.0 / prior.b:.3g}. The data do not support weights away from zero, so alpha "
            f"runs towards infinity (Q shrinks to w = 0) and is held only by the hyperprior's "
            f"ceiling (k/2 + a) b = {cap:.4g}; a larger b lets it grow further."
        )
    if ed < 1.0 / prior.d:
        cap = (0.5 * post.n_data + prior.c) * prior.d
        notes.append(
            f"beta is set by its hyperprior, not by the data: <E_D> = {ed:.3g} is below "
            f"1/d = {1.0 / prior.d:.3g}. The model (nearly) interpolates the data, so beta runs "
            f"towards infinity (zero noise) and is held only by the ceiling (N/2 + c) d = {cap:.4g}."
        )
    return notes


def fit_hyperparameters(
    post,
    prior: GammaHyperprior | None = None,
    family: str = "full",
    rank: int | None = None,
    tol: float = 1e-6,
    max_iter: int = 50,
    init=None,
) -> HyperparameterRun:
    """Alternate KL fits of Q with the Gamma updates B&B (37)–(38) until ᾱ, β̄ settle.

    Parameters
    ----------
    post : RegressionPosterior
        The model and data (its own α, β are ignored: the run starts at the
        hyperprior means ab, cd, as Barber & Bishop do).
    prior : GammaHyperprior, optional
        Constants a, b, c, d (default: Barber & Bishop's broad Boston values).
    family, rank : str, int
        Covariance family of Q (see :func:`~ensemble_lib.inference.kl_fit`).
    tol : float
        Stop when max(|Δ ln ᾱ|, |Δ ln β̄|) over one update is below ``tol`` (> 0).
    max_iter : int
        At most this many Q fits (1 to 10 000); if reached, a
        :class:`HyperparameterConvergenceWarning` gives the tolerance reached.
    init : (mean, cov), optional
        Starting Q for the first fit (default: the KL fit's own starts).

    Returns
    -------
    HyperparameterRun

    Notes
    -----
    Each Q fit is warm-started at the previous Q and each R, S update is the
    exact maximiser of F over all R, S for that Q (B&B (35)–(36)), so F[Q, R, S]
    never decreases (up to the KL optimiser's tolerance). ᾱ and β̄ always stay
    finite and positive: ``0 < ᾱ < (k/2 + a) b`` and ``0 < β̄ < (N/2 + c) d``.
    When a ceiling is approached (the hyperprior term 1/b or 1/d dominates),
    ``notes`` explain that the hyperparameter is running to ∞ and why.
    """
    post = check.posterior("post", post)
    prior = _check_prior(GammaHyperprior() if prior is None else prior)
    CovarianceFamily.make(family, post.dim, rank)  # refuses a bad family or rank, naming it
    if init is not None:
        if isinstance(init, str) or not hasattr(init, "__len__") or len(init) != 2:
            raise ValueError(f"init must be a (mean, cov) pair, got {init!r}")
        check.mean_cov(init[0], init[1], post.dim, ("init mean", "init cov"))
    tol = check.positive("tol", tol)
    max_iter = check.integer("max_iter", max_iter, low=1, high=10_000)
    R = GammaPosterior(prior.a, prior.b)
    S = GammaPosterior(prior.c, prior.d)
    start = None if init is None else [tuple(np.asarray(x, float) for x in init)]

    def update(hyper) -> ReestimationStep:
        """A KL fit of Q at (ᾱ, β̄), then the optimal R, S of B&B (35)–(36) and their means (37)–(38)."""
        nonlocal R, S, start
        alpha, beta = hyper
        p = post.with_hyperparameters(alpha=alpha, beta=beta)
        # warm starts after the first fit (F can then only rise); the first uses kl_fit's own starts
        fit = kl_fit(p, family, rank, init=start, symmetric=None if start is None else False)
        ed = float(p.expected_data_error(fit.mean, fit.cov).value)
        ww = float(fit.mean @ fit.mean + np.trace(fit.cov))
        bound = full_bound(p, fit.mean, fit.cov, R, S, prior, ed)
        R, S = gamma_updates(p, fit.mean, fit.cov, prior, ed)
        record = {"alpha": alpha, "beta": beta, "bound": bound,
                  "after": full_bound(p, fit.mean, fit.cov, R, S, prior, ed),
                  "bound_q": fit.bound, "kl": fit.kl, "logev": fit.bound + fit.kl,
                  "m": fit.mean, "C": fit.cov, "ww": ww, "ed": ed}
        start = [(fit.mean, fit.cov)]
        return ReestimationStep(new=(R.mean, S.mean), record=record)

    run = reestimate(update, (R.mean, S.mean), tol, max_iter, name="fit_hyperparameters")
    col, last = run.column, run.history[-1]
    return HyperparameterRun(
        alpha=col("alpha"), beta=col("beta"), bound=col("bound"), bound_after_update=col("after"),
        bound_q=col("bound_q"), kl=col("kl"), log_evidence=col("logev"), means=col("m"),
        covs=col("C"), R=R, S=S, prior=prior, family=family, converged=run.converged,
        tol_reached=run.tol_reached, notes=tuple(_diagnose(post, prior, last["ww"], last["ed"])),
    )
