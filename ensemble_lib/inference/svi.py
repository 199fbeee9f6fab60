"""Stochastic variational inference: the same KL(Q‖P) minimised with reparameterisation gradients.

Barber & Bishop (1998, §2–2.1) minimise

.. math:: \\mathrm{KL}(Q\\|P) - \\ln Z = \\langle \\beta E_D + \\tfrac{\\alpha}{2}\\|\\mathbf w\\|^2\\rangle_Q - H[Q]

(B&B (16)–(20)) with *exact* expectations and gradients (:mod:`~ensemble_lib.inference.kl_fit`).
Stochastic VI (the method behind ADVI, Pyro and NumPyro) replaces the
expectation by a Monte Carlo average over S draws written as a function of the
parameters, ``w_s = w̄ + L ε_s`` with ``ε_s ~ N(0, I)`` and ``C = L Lᵀ``
(the "reparameterisation trick"). With ``φ(w) = βE_D + (α/2)‖w‖²`` (minus
:meth:`~ensemble_lib.RegressionPosterior.log_unnorm`) and the entropy
``H[Q] = Σ_i ln L_ii + (k/2)(1 + ln 2π)`` (B&B (18)), the estimator is

.. math::
    \\hat g_{\\bar w} = \\frac1S \\sum_s \\nabla\\phi(\\mathbf w_s),\\qquad
    \\hat g_{L} = \\frac1S \\sum_s \\nabla\\phi(\\mathbf w_s)\\,\\boldsymbol\\epsilon_s^T
    \\ (\\text{lower triangle}),\\qquad
    \\hat g_{\\ln L_{ii}} = L_{ii}\\,(\\hat g_L)_{ii} - 1 .

Its mean over ε is the exact gradient of the objective (differentiation and
expectation commute), so it is unbiased; the entropy's gradient is exact. The
parameter vector is that of :class:`~ensemble_lib.core.gaussian.CovarianceFamily`
(``"full"``: mean, then the lower triangle of L row by row with its diagonal
stored as logarithms; ``"diagonal"``: mean, then ``ln d`` with ``C = diag(d²)``),
so :func:`~ensemble_lib.inference.kl_fit.kl_objective` gives the exact gradient of the
very same function.

The update is **Adam** (Kingma & Ba 2015) with a step size that is either
fixed or decays as Robbins–Monro requires, ``ρ_t = a/(1 + t/τ)^κ`` with
``½ < κ ≤ 1`` (so Σρ_t = ∞ and Σρ_t² < ∞). Adam rather than plain SGD
because the toy's objective is badly conditioned (the curvature of the
mean's directions differs by a factor of about 140 at the paper-like preset):
plain SGD's stable step is set by the stiffest direction and then crawls
along the flattest, while Adam rescales each coordinate; Adam is also the
default of the NumPyro and Pyro examples whose numbers the lesson quotes. With
a fixed ρ the iterates keep jumping about the optimum by an amount that
scales with ρ and the gradient noise (the *noise floor*); only a decaying ρ
lets them settle.

Code names: ``alpha`` = α, ``beta`` = β, ``mean`` = w̄, ``cov`` = C,
``n_samples`` = S, ``step_size`` = a, ``tau`` = τ, ``kappa`` = κ, ``eps`` = ε.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.special import erf

from ..core import validation as check
from ..models.erf_network import SQRT_2_OVER_PI, sigma, sigma_prime
from ..core.gaussian import CovarianceFamily, diag_positions, tril_positions
from ..models.toy import ToyPosterior
from .laplace import laplace_fit

_INV_SQRT2 = 1.0 / np.sqrt(2.0)
#: Covariance families the SVI loop supports.
SVI_FAMILIES = ("full", "diagonal")
#: Step-size schedules: constant a, or Robbins–Monro a/(1 + t/τ)^κ.
SCHEDULES = ("fixed", "decaying")
#: Adam's moment decay rates and denominator guard (Kingma & Ba 2015 defaults).
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8


class Settling(NamedTuple):
    """Has an SVI run stopped descending? (:meth:`SVIHistory.settling`)

    ``change`` = mean recorded KL over the last quarter of the run minus that over the
    quarter before (nats; negative while the run still descends), ``se`` its standard
    error (batch means: the records are autocorrelated), ``settled`` = ``change > -2 se``.
    """

    change: float
    se: float
    settled: bool


@dataclass(frozen=True)
class SVIHistory:
    """The record of one SVI run (:func:`svi_fit`).

    Attributes
    ----------
    iterations : int array (R,)
        Iterations at which the fit was recorded (0 = the start, then every
        ``kl_every`` steps, and the last step).
    kl : array (R,)
        Exact KL(Q‖P) at those iterations (nan if the model has no exact ln Z).
    bound : array (R,)
        F[Q] (B&B (17)) at those iterations.
    time_s : array (R,)
        Cumulative CPU time of the SVI steps up to each record, in seconds: the
        calling thread's (:func:`time.thread_time`), so other programs running
        beside it change it far less than they change wall time (the time spent on
        recording the exact KL is excluded).
    thetas : array (R, P)
        The parameters at each record.
    mean, cov : arrays
        The final Q = N(mean, cov).
    """

    iterations: np.ndarray
    kl: np.ndarray
    bound: np.ndarray
    time_s: np.ndarray
    thetas: np.ndarray = field(repr=False)
    mean: np.ndarray
    cov: np.ndarray
    family: str
    n_samples: int
    step_size: float
    schedule: str
    tau: float
    kappa: float
    n_iter: int

    @property
    def final_kl(self) -> float:
        return float(self.kl[-1])

    def tail_kl(self, fraction: float = 0.25) -> float:
        """Mean recorded KL over the last ``fraction`` of the run (the level it fluctuates about)."""
        fraction = check.positive("fraction", fraction, upper=1.0)
        keep = self.iterations >= (1.0 - fraction) * self.n_iter
        return float(np.mean(self.kl[keep]))

    def settling(self, fraction: float = 0.5, batches: int = 5) -> Settling:
        """Whether the run has stopped descending, by a stated test.

        The records of the last ``fraction`` of the run are split into two equal
        parts (for ``fraction = 0.5``: the third and the last quarter). ``change`` is
        the mean KL of the second part minus that of the first, and ``se`` its
        standard error from ``batches`` batch means per part (consecutive records
        are correlated, so the spread of single records would understate it). The
        run has *settled* unless its mean KL still fell by more than two standard
        errors: only then is the gap between :meth:`tail_kl` and the optimum a noise
        floor rather than the distance still to travel.
        """
        fraction = check.positive("fraction", fraction, upper=1.0)
        batches = check.integer("batches", batches, low=2, high=1000)
        y = self.kl[self.iterations >= (1.0 - fraction) * self.n_iter]
        half = y.size // 2
        if half < 2 * batches:
            raise ValueError(f"the last {fraction:g} of the run has {y.size} KL records; settling needs at least "
                             f"{4 * batches} (record more often with kl_every, or use fewer batches)")
        means, variances = [], []
        for part in (y[:half], y[-half:]):
            batch = np.array([b.mean() for b in np.array_split(part, batches)])
            means.append(batch.mean())
            variances.append(batch.var(ddof=1) / batches)
        change, se = float(means[1] - means[0]), float(np.sqrt(sum(variances)))
        return Settling(change, se, bool(change > -2.0 * se))


# ---------------------------------------------------------------------------
# The pieces: gradients of ln p~ for a batch, the scale matrix L, the estimator
# ---------------------------------------------------------------------------

def toy_grad_batch(post: ToyPosterior, w) -> np.ndarray:
    """∇ ln p̃(w) = −β∇E_D − αw of the toy for a batch of weights ``w`` of shape (S, 2).

    With residuals ``r_n = vσ(u x_n) − t_n``: ``∂E_D/∂u = Σ r_n v σ'(u x_n) x_n``
    and ``∂E_D/∂v = Σ r_n σ(u x_n)`` (B&B (4) differentiated).
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    return _toy_grad(post, _batch(w, 2))


def _toy_grad(post, w):
    """:func:`toy_grad_batch` on checked arguments (SVI's inner loop: an iterate that overflows
    gives NaN here, and the loop stops with its own "SVI diverged" error)."""
    u, v = w[:, 0], w[:, 1]
    a = np.multiply.outer(u, post.x)
    s = sigma(a)
    r = v[:, None] * s - post.t
    g_u = np.sum(r * v[:, None] * sigma_prime(a) * post.x, axis=1)
    g_v = np.sum(r * s, axis=1)
    return -post.beta * np.stack([g_u, g_v], axis=1) - post.alpha * w


def grad_log_unnorm_batch(post, w) -> np.ndarray:
    """∇ ln p̃ at each row of ``w`` (S, k): vectorised for the toy, else one ``post.grad`` per row."""
    post = check.posterior("post", post)
    if isinstance(post, ToyPosterior):
        return toy_grad_batch(post, w)
    return _grad_batch(post, _batch(w, post.dim))


def _grad_batch(post, w):
    if isinstance(post, ToyPosterior):
        return _toy_grad(post, w)
    return np.stack([post.grad(wi) for wi in w])


def _batch(w, k: int) -> np.ndarray:
    """A batch of weight vectors: a finite real array of shape (S, k), S >= 1."""
    w = check.finite_array("w", w)
    if w.ndim != 2 or w.shape[0] < 1 or w.shape[1] != k:
        raise ValueError(f"w must have shape (S, {k}) with S >= 1, got {w.shape}")
    return w


def _family(fam) -> CovarianceFamily:
    if not isinstance(fam, CovarianceFamily):
        raise ValueError(f"fam must be a CovarianceFamily (CovarianceFamily.make(family, dim)), "
                         f"got {type(fam).__name__}")
    return fam


def scale_matrix(fam: CovarianceFamily, theta) -> np.ndarray:
    """The factor L with C = L Lᵀ for the parameters ``theta`` of ``fam``: :meth:`CovarianceFamily.lower`."""
    return _family(fam).lower(theta)


def reparam_gradient(post, fam: CovarianceFamily, theta, eps) -> np.ndarray:
    """The reparameterisation estimate of ∇_θ [⟨φ⟩_Q − H[Q]] from standard-normal draws ``eps`` (S, k).

    Unbiased: its mean over ``eps ~ N(0, I)`` is the gradient returned by
    :func:`~ensemble_lib.inference.kl_fit.kl_objective` for the same ``fam`` and ``theta``.
    """
    post = check.posterior("post", post)
    if not isinstance(fam, CovarianceFamily):
        raise ValueError(f"fam must be a CovarianceFamily, got {type(fam).__name__}")
    if fam.dim != post.dim or fam.name not in SVI_FAMILIES:
        raise ValueError(f"fam must be a {' or '.join(SVI_FAMILIES)} family of dimension {post.dim}, "
                         f"got {fam.name} of dimension {fam.dim}")
    k = fam.dim
    theta = fam._theta(theta)
    eps = np.atleast_2d(check.finite_array("eps", eps))
    if eps.ndim != 2 or eps.shape[1] != k or eps.shape[0] < 1:
        raise ValueError(f"eps must have shape (S, {k}) with S >= 1, got {eps.shape}")
    L = fam.lower(theta)
    w = theta[:k] + eps @ L.T
    g_phi = -_grad_batch(post, w)  # ∇φ at each draw, (S, k)
    S = eps.shape[0]
    g_mean = g_phi.sum(axis=0) / S
    g_L = g_phi.T @ eps / S  # ∂/∂L_ij of the MC average of φ(w̄ + Lε)
    return np.concatenate([g_mean, _scale_gradient(fam, g_L, np.diag(L))])


def _scale_gradient(fam: CovarianceFamily, g_L, diag_L) -> np.ndarray:
    """The scale parameters' part of the gradient from ∂/∂L (shape (..., k, k), any leading axes)."""
    if fam.name == "diagonal":
        return np.diagonal(g_L, axis1=-2, axis2=-1) * diag_L - 1.0
    rows, cols = tril_positions(fam.dim)  # the order of CovarianceFamily's "full" parameters
    on_diag = diag_positions(fam.dim)
    g_scale = g_L[..., rows, cols]
    g_scale[..., on_diag] = g_scale[..., on_diag] * diag_L - 1.0  # chain to ln L_ii; entropy term
    return g_scale


def step_sizes(step_size: float, schedule: str, n_iter: int, tau: float = 100.0,
               kappa: float = 0.75) -> np.ndarray:
    """ρ_t for t = 0 … n_iter − 1: ``a`` (fixed) or ``a/(1 + t/τ)^κ`` (decaying, Robbins–Monro)."""
    step_size = check.positive("step_size", step_size, upper=1.0)
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    n_iter = check.integer("n_iter", n_iter, low=1, high=1_000_000)
    tau = check.positive("tau", tau)
    kappa = check.positive("kappa", kappa, upper=1.0)
    if kappa <= 0.5:
        raise ValueError(f"kappa must be in (0.5, 1] (Robbins–Monro), got {kappa!r}")
    t = np.arange(n_iter, dtype=float)
    if schedule == "fixed":
        return np.full(n_iter, step_size)
    return step_size / (1.0 + t / tau) ** kappa


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------

def default_start(post, fam: CovarianceFamily) -> tuple[np.ndarray, np.ndarray]:
    """The start :func:`~ensemble_lib.inference.kl_fit.kl_fit` also uses: the Laplace mode, variances 1/H_ii."""
    post = check.posterior("post", post)
    _family(fam)
    return laplace_fit(post, compute_kl=False).diagonal_start()


def svi_fit(
    post,
    family: str = "full",
    *,
    rng: np.random.Generator,
    n_samples: int = 1,
    step_size: float = 0.03,
    schedule: str = "decaying",
    n_iter: int = 3000,
    tau: float = 100.0,
    kappa: float = 0.75,
    kl_every: int = 10,
    init=None,
) -> SVIHistory:
    """Minimise KL(Q‖P) (B&B (16)–(20)) over Gaussians Q by reparameterisation-gradient SVI with Adam.

    Parameters
    ----------
    post : RegressionPosterior
        Needs ``log_unnorm``/``grad`` (and ``log_Z`` for the exact KL record),
        e.g. a :class:`~ensemble_lib.ToyPosterior`.
    family : {"full", "diagonal"}
        Covariance family of Q (Cholesky factor with log-diagonal, or diagonal).
    rng : numpy.random.Generator
        Source of the draws ε; the run is a deterministic function of its state.
    n_samples : int
        Draws S per step (1 to 4096).
    step_size : float
        Adam's step a, in (0, 1].
    schedule : {"fixed", "decaying"}
        Constant a, or ρ_t = a/(1 + t/τ)^κ.
    n_iter : int
        Number of steps (1 to 10⁶).
    tau, kappa : float
        Decay time τ > 0 and exponent κ in (0.5, 1] of the decaying schedule.
    kl_every : int
        Record the exact KL every this many steps (≥ 1).
    init : (mean, cov), optional
        Starting Q; default :func:`default_start`.

    Returns
    -------
    SVIHistory

    Raises
    ------
    ValueError
        For an argument out of its range.
    RuntimeError
        If the iterates leave the range where Q is a finite Gaussian (step too large).

    Notes
    -----
    Objective: Barber & Bishop (1998) eqs (16)–(20); estimator: see the module
    docstring. Adam: ``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``,
    ``θ ← θ − ρ_t m̂/(√v̂ + ε)`` with bias-corrected m̂, v̂.
    """
    for history in svi_stream(post, family, rng=rng, n_samples=n_samples, step_size=step_size,
                              schedule=schedule, n_iter=n_iter, tau=tau, kappa=kappa,
                              kl_every=kl_every, init=init):
        pass
    return history


def svi_stream(
    post,
    family: str = "full",
    *,
    rng: np.random.Generator,
    n_samples: int = 1,
    step_size: float = 0.03,
    schedule: str = "decaying",
    n_iter: int = 3000,
    tau: float = 100.0,
    kappa: float = 0.75,
    kl_every: int = 10,
    init=None,
    yield_every: int | None = None,
):
    """:func:`svi_fit` as it runs: yields the history so far every ``yield_every`` steps, then the whole run.

    The same run as :func:`svi_fit` with the same arguments (the last item it yields
    is equal to what :func:`svi_fit` returns); the items before it are the history of
    the first steps (their ``n_iter`` is the number of steps done), for a panel that
    draws a long run while it fills in. ``yield_every`` (a multiple of ``kl_every``
    is best; None: only the final history) is the number of steps between items.
    The other parameters are :func:`svi_fit`'s.

    Parameters
    ----------
    post, family, rng, n_samples, step_size, schedule, n_iter, tau, kappa, kl_every, init
        As for :func:`svi_fit`.
    yield_every : int, optional
        Steps between the items yielded before the last (None: only the final history).

    Yields
    ------
    SVIHistory
        The history so far; the last item is the whole run.

    Raises
    ------
    ValueError
        For an argument out of its range.
    RuntimeError
        If the iterates leave the range where Q is a finite Gaussian (step too large).

    Notes
    -----
    The objective, the estimator and Adam are :func:`svi_fit`'s.
    """
    post = check.posterior("post", post)
    family = check.choice("family", family, SVI_FAMILIES)
    rng = check.generator("rng", rng)
    n_samples = check.integer("n_samples", n_samples, low=1, high=4096)
    kl_every = check.integer("kl_every", kl_every, low=1)
    if yield_every is not None:
        yield_every = check.integer("yield_every", yield_every, low=1)
    rho = step_sizes(step_size, schedule, n_iter, tau, kappa)
    n_iter = rho.size
    fam = CovarianceFamily.make(family, post.dim)
    if init is not None and (isinstance(init, str) or not hasattr(init, "__len__") or len(init) != 2):
        raise ValueError(f"init must be a (mean, cov) pair, got {init!r}")
    mean0, cov0 = default_start(post, fam) if init is None else init
    mean0, cov0 = check.mean_cov(mean0, cov0, post.dim)
    if family == "diagonal":
        cov0 = np.diag(np.diag(cov0))
    theta = fam.pack(mean0, cov0)
    try:
        log_evidence = post.log_evidence
    except NotImplementedError:
        log_evidence = float("nan")

    # the checks above run at the call (a generator's body would run only at the first next())
    return _svi_steps(post, fam, rng, theta, rho, n_iter, n_samples, kl_every, yield_every, log_evidence,
                      family, step_size, schedule, tau, kappa)


def _svi_steps(post, fam, rng, theta, rho, n_iter, n_samples, kl_every, yield_every, log_evidence,
               family, step_size, schedule, tau, kappa):
    """The loop of :func:`svi_stream` (a generator), on arguments already checked.

    The draws of a stretch of steps (up to the next yield) come from one call of ``rng`` (the same
    numbers as one call a step); the exact KL of the recorded iterates is computed once per stretch
    (:func:`_record_bounds`), where a Q that is no longer a proper Gaussian stops the run with the
    error of its own step. On the toy the gradient is :func:`_toy_gradient_fn`'s (the same
    estimator as :func:`reparam_gradient`, without its per-call checks).
    """
    records: list[tuple] = []  # (t, elapsed, theta) of every recorded iterate
    done: list[tuple] = []  # records with their bound: (t, KL, bound, elapsed, theta)

    def settle():
        bounds = _record_bounds(post, fam, [r[2] for r in records[len(done):]])
        for (t, elapsed, th), bound in zip(records[len(done):], bounds):
            if bound is None:
                raise RuntimeError(
                    f"SVI diverged at step {t} (Q is no longer a proper Gaussian); "
                    f"reduce step_size (got {step_size!r})"
                )
            done.append((t, log_evidence - bound, bound, elapsed, th))

    grad = _toy_gradient_fn(post, fam) if isinstance(post, ToyPosterior) else (
        lambda th, eps: reparam_gradient(post, fam, np.array(th), eps).tolist())
    # Adam on the parameters as Python floats: the same IEEE operations, element by element, as on
    # an array, without an array operation's overhead for a vector of 4 or 5
    th = theta.tolist()
    n_par = len(th)
    m1, m2 = [0.0] * n_par, [0.0] * n_par
    c1 = (1.0 - ADAM_BETA1 ** np.arange(1, n_iter + 1)).tolist()  # Adam's bias corrections
    c2 = (1.0 - ADAM_BETA2 ** np.arange(1, n_iter + 1)).tolist()
    rho = np.asarray(rho, dtype=float).tolist()
    b1, b2, d1, d2 = ADAM_BETA1, ADAM_BETA2, 1.0 - ADAM_BETA1, 1.0 - ADAM_BETA2
    elapsed = 0.0
    records.append((0, elapsed, theta.copy()))
    k = post.dim
    stretch = yield_every or n_iter
    for t0_stretch in range(0, n_iter, stretch):
        t1_stretch = min(n_iter, t0_stretch + stretch)
        draws = rng.standard_normal((t1_stretch - t0_stretch, n_samples, k))
        if n_samples == 1 and isinstance(post, ToyPosterior):
            draws = draws.tolist()  # the toy's one-draw gradient works on floats
        mark = time.thread_time()
        for t in range(t0_stretch, t1_stretch):
            g = grad(th, draws[t - t0_stretch])
            step, s1, s2 = rho[t], c1[t], c2[t]
            for j in range(n_par):
                gj = g[j]
                m1[j] = b1 * m1[j] + d1 * gj
                m2[j] = b2 * m2[j] + d2 * gj * gj
                th[j] = th[j] - step * (m1[j] / s1) / (math.sqrt(m2[j] / s2) + ADAM_EPS)
            if not all(map(math.isfinite, th)):
                settle()  # an earlier recorded Q that was already improper says so first
                raise RuntimeError(f"SVI diverged at step {t + 1}; reduce step_size (got {step_size!r})")
            if (t + 1) % kl_every == 0 or t + 1 == n_iter:
                # the clock is read at the records only (a CPU clock costs about 1 µs a read, a tenth
                # of a step); the exact KL of the records is computed after the stretch, untimed
                elapsed += time.thread_time() - mark
                records.append((t + 1, elapsed, np.array(th)))
                mark = time.thread_time()
        elapsed += time.thread_time() - mark  # the stretch's steps after its last record
        settle()
        if t1_stretch < n_iter:
            yield _history(done, fam, np.array(th), family, n_samples, step_size, schedule, tau, kappa,
                           t1_stretch)

    yield _history(done, fam, np.array(th), family, n_samples, step_size, schedule, tau, kappa, n_iter)


def _toy_gradient_fn(post: ToyPosterior, fam: CovarianceFamily):
    """``grad(theta, eps)``: :func:`reparam_gradient` on the toy (k = 2) for checked arguments.

    The same estimator — ``w = w̄ + L ε``, ∇φ at each draw (:func:`_toy_grad`), then the mean and
    the chain to the family's parameters — written out for the 2 × 2 factor, so one SVI step
    costs a few small operations (the lesson-5 panel runs 1000 of them a slider step): with one
    draw (``eps`` a list ``[[ε_u, ε_v]]``) in Python floats, with S draws (an (S, 2) array) on
    arrays. ``theta`` is a list of floats; so is the gradient returned.
    ``tests/inference/test_svi.py`` checks both against :func:`reparam_gradient`.
    """
    xs, ts = post.x.tolist(), post.t.tolist()
    x, t, alpha, beta = post.x, post.t, post.alpha, post.beta
    full = fam.name == "full"
    erf1, exp1 = math.erf, math.exp

    def scale(th):
        if full:  # theta = [w̄_u, w̄_v, ln L_uu, L_vu, ln L_vv]
            return exp1(th[2]), th[3], exp1(th[4])
        return exp1(th[2]), 0.0, exp1(th[3])  # theta = [w̄_u, w̄_v, ln d_u, ln d_v]

    def chain(gm_u, gm_v, g_ue0, g_ve0, g_ve1, l00, l11):
        if full:
            return [gm_u, gm_v, g_ue0 * l00 - 1.0, g_ve0, g_ve1 * l11 - 1.0]
        return [gm_u, gm_v, g_ue0 * l00 - 1.0, g_ve1 * l11 - 1.0]

    def grad_one(th, eps):
        (e0, e1), = eps
        l00, l10, l11 = scale(th)
        u = th[0] + l00 * e0
        v = th[1] + l10 * e0 + l11 * e1
        gu = gv = 0.0
        for xn, tn in zip(xs, ts):  # ∇E_D as in _toy_grad
            a = u * xn
            s = erf1(a * _INV_SQRT2)
            r = v * s - tn
            gu += r * v * (SQRT_2_OVER_PI * exp1(-0.5 * a * a)) * xn
            gv += r * s
        gu = beta * gu + alpha * u  # ∇φ = β∇E_D + αw (φ = −ln p̃)
        gv = beta * gv + alpha * v
        return chain(gu, gv, gu * e0, gv * e0, gv * e1, l00, l11)

    def grad_many(th, eps):
        e0, e1 = eps[:, 0], eps[:, 1]
        l00, l10, l11 = scale(th)
        u = th[0] + l00 * e0
        v = th[1] + l10 * e0 + l11 * e1
        a = np.multiply.outer(u, x)
        s = erf(a * _INV_SQRT2)
        r = v[:, None] * s - t
        gu = beta * ((r * (SQRT_2_OVER_PI * np.exp(-0.5 * a * a))) @ x) * v + alpha * u
        gv = beta * (r * s).sum(axis=1) + alpha * v
        S = u.size
        return chain(float(gu.sum()) / S, float(gv.sum()) / S, float(gu @ e0) / S, float(gv @ e0) / S,
                     float(gv @ e1) / S, l00, l11)

    return lambda th, eps: grad_one(th, eps) if isinstance(eps, list) else grad_many(th, eps)


def _record_bounds(post, fam: CovarianceFamily, thetas) -> list:
    """The bound F[Q] (B&B (15)) of each recorded iterate, or None where Q is not a proper Gaussian.

    One :meth:`~ensemble_lib.RegressionPosterior.bound` per iterate; on the toy, one batched
    quadrature (:meth:`~ensemble_lib.ToyPosterior.bounds`) for the iterates whose covariance is
    finite and positive definite.
    """
    out = []
    if not isinstance(post, ToyPosterior):
        for th in thetas:
            with np.errstate(over="ignore", invalid="ignore"):
                mean, cov = fam.unpack(th)
            try:
                out.append(post.bound(mean, cov))
            except ValueError:
                out.append(None)
        return out
    means, covs = [], []
    with np.errstate(over="ignore", invalid="ignore"):  # an overflowing C is reported as None
        for th in thetas:
            mean, cov = fam.unpack(th)
            means.append(mean)
            covs.append(cov)
    return post.bounds(means, covs) if thetas else []


def _history(records, fam, theta, family, n_samples, step_size, schedule, tau, kappa, n_done) -> SVIHistory:
    """The :class:`SVIHistory` of the records so far (``n_done`` steps, ending at ``theta``)."""
    its, kls, bounds, times, thetas = (np.array(c) for c in zip(*records))
    mean, cov = fam.unpack(theta)
    return SVIHistory(
        iterations=its.astype(int), kl=kls.astype(float), bound=bounds.astype(float),
        time_s=times.astype(float), thetas=np.stack(thetas), mean=mean, cov=cov, family=family,
        n_samples=n_samples, step_size=float(step_size), schedule=schedule, tau=float(tau),
        kappa=float(kappa), n_iter=n_done,
    )


__all__ = [
    "SVIHistory", "Settling", "SVI_FAMILIES", "SCHEDULES", "svi_fit", "svi_stream", "reparam_gradient",
    "toy_grad_batch",
    "grad_log_unnorm_batch", "scale_matrix", "step_sizes", "default_start",
]
