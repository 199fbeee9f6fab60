"""A mixture of Gaussians as Q fitted by minimising KL(Q‖P) (Barber & Bishop (1998), §3, B&B (39)).

The data and prior terms of the bound are linear combinations of the single-Gaussian
results (each component's ``expected_energy``, with its gradients); the entropy is
:mod:`ensemble_lib.inference.mixture_entropy`'s, by quadrature or its lower bound.
:func:`mixture_objective` is ``Σ_i π_i ⟨energy⟩_{Q_i} − H`` with its exact gradient in θ
(:class:`~ensemble_lib.inference.mixture_entropy.MixtureParams`), which
:func:`mixture_fit` minimises by BFGS from a given start; :func:`mixture_kl` is KL(Q‖P) of a
given mixture, and :func:`mirror_overlap` the overlap that bounds the two-mirror-modes fit.
The warm-started ladder over K is :mod:`ensemble_lib.inference.mixture_ladder`.

Code names: ``weights`` = π, ``means`` = w̄_i, ``covs`` = C_i, ``K`` = number of
components.

References: Barber & Bishop (1998), §3, B&B (16), B&B (39).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..core import validation as check
from .mixture_entropy import (_FIT_RADIUS, ENTROPIES, FIT_SPACING, REPORT_SPACING, MixtureParams, _entropy_bound,
                              _entropy_quadrature, _lse, _spacing, check_mixture)


# ---------------------------------------------------------------------------
# The objective
# ---------------------------------------------------------------------------

def _unpack2(K: int, theta: np.ndarray):
    """θ → (π, means (K, 2), L entries l11, l21, l22, covs (K, 2, 2)) for k = 2, vectorised."""
    a = np.zeros(K)
    a[: K - 1] = theta[: K - 1]
    pis = np.exp(a - _lse(a, axis=0))
    T = theta[K - 1:].reshape(K, 5)
    l11, l21, l22 = np.exp(T[:, 2]), T[:, 3], np.exp(T[:, 4])
    covs = np.empty((K, 2, 2))
    covs[:, 0, 0] = l11 * l11
    covs[:, 0, 1] = covs[:, 1, 0] = l11 * l21
    covs[:, 1, 1] = l21 * l21 + l22 * l22
    return pis, T[:, :2], l11, l21, l22, covs


def _objective_bound_any_dim(post, params: MixtureParams, theta) -> tuple[float, np.ndarray]:
    """:func:`mixture_objective` with the entropy's lower bound, for any number of parameters k."""
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(theta)):
            return np.inf, np.zeros_like(theta)
        try:
            pis, means, covs = params.unpack(theta)
            energies = [post.expected_energy(m, C) for m, C in zip(means, covs)]
            H, g_pi_H, g_m_H, g_C_H = _entropy_bound(pis, means, covs, grad=True)
        except (ValueError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        e_val = np.array([e.value for e in energies])
        value = float(pis @ e_val - H)
        g = [params.chain_weights(pis, e_val - g_pi_H)]
        for i, (e, t) in enumerate(zip(energies, params.components(theta))):
            g.append(params.fam.chain(t, pis[i] * e.d_mean - g_m_H[i], pis[i] * e.d_cov - g_C_H[i]))
        g = np.concatenate(g)
    if not (np.isfinite(value) and np.all(np.isfinite(g))):
        return np.inf, np.zeros_like(theta)
    return value, g


def mixture_objective(post, params: MixtureParams, theta, entropy: str = "quadrature",
                      spacing: float = FIT_SPACING) -> tuple[float, np.ndarray]:
    """``Σ_i π_i ⟨energy⟩_{Q_i} − H`` (KL(Q‖P) − ln Z, or its upper bound) and its gradient in θ.

    ``H`` is the quadrature entropy (trapezoid rule of spacing ``spacing``) or its
    Bhattacharyya lower bound (``entropy="bound"``); the gradient is exact for the
    rule used (its nodes move with the components). The quadrature needs a
    two-parameter posterior; the bound works for any (a network's).
    Returns ``(inf, 0)`` where θ gives no proper mixture (a line search then backs off).
    """
    post = check.posterior("post", post)
    if not isinstance(params, MixtureParams) or params.dim != post.dim:
        raise ValueError(f"params must be a MixtureParams of dimension {post.dim}, got {params!r}")
    theta = params._theta(theta)
    entropy = _check_entropy(entropy)
    K = params.K
    if params.dim != 2:
        return _objective_bound_any_dim(post, params, theta)
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(theta)):
            return np.inf, np.zeros_like(theta)
        pis, means, l11, l21, l22, covs = _unpack2(K, theta)
        if not (np.all(pis > 0) and np.all(l11 > 0) and np.all(l22 > 0) and np.all(np.isfinite(covs))):
            return np.inf, np.zeros_like(theta)
        Ls = np.zeros((K, 2, 2))
        Ls[:, 0, 0], Ls[:, 1, 0], Ls[:, 1, 1] = l11, l21, l22
        try:
            energies = [post.expected_energy(m, C) for m, C in zip(means, covs)]
            if entropy == "quadrature":
                H, g_pi_H, g_m_H, g_C_H, g_L_H = _entropy_quadrature(pis, means, Ls, spacing, True, _FIT_RADIUS)
            else:
                H, g_pi_H, g_m_H, g_C_H = _entropy_bound(pis, means, covs, grad=True)
                g_L_H = np.zeros_like(g_C_H)
        except (ValueError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        e_val = np.array([e.value for e in energies])
        value = float(pis @ e_val - H)
        g_pi = e_val - g_pi_H
        g_mean = pis[:, None] * np.array([e.d_mean for e in energies]) - g_m_H
        G = pis[:, None, None] * np.array([e.d_cov for e in energies]) - g_C_H
        G = G + np.swapaxes(G, 1, 2)  # ∂/∂L of f(C = LLᵀ) is 2GL for symmetric G
        g = np.empty((K, 5))
        g[:, :2] = g_mean
        g[:, 2] = (G[:, 0, 0] * l11 + G[:, 0, 1] * l21 - g_L_H[:, 0, 0]) * l11  # log-diagonal
        g[:, 3] = G[:, 1, 0] * l11 + G[:, 1, 1] * l21 - g_L_H[:, 1, 0]
        g[:, 4] = (G[:, 1, 1] * l22 - g_L_H[:, 1, 1]) * l22
        g = np.concatenate([params.chain_weights(pis, g_pi), g.ravel()])
    if not (np.isfinite(value) and np.all(np.isfinite(g))):
        return np.inf, np.zeros_like(theta)
    return value, g


# ---------------------------------------------------------------------------
# Fits
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MixtureFit:
    """A K-component mixture Q fitted by minimising KL(Q‖P) (B&B (39)), or its bounded version.

    Attributes
    ----------
    weights, means, covs : ndarray
        π (K,), w̄_i (K, k), C_i (K, k, k).
    kl : float
        KL(Q‖P) with the entropy by quadrature at :data:`REPORT_SPACING`, whichever
        entropy the fit minimised.
    kl_bound : float
        ``ln P(D) − bound``: KL(Q‖P) with the entropy's lower bound, so
        ``kl ≤ kl_bound`` (equal for K = 1).
    F : float
        The bound F[Q] (B&B (17)) with the quadrature entropy: ``ln P(D) − kl``.
    bound : float
        F[Q] with the entropy's lower bound: a rigorous lower bound on ln P(D)
        (F is the lower bound everywhere), ``≤ F``.
    entropy : str
        What the fit minimised with: ``"quadrature"`` or ``"bound"``.
    n_iter, grad_norm, converged :
        BFGS iterations, ``max |∂objective/∂θ|`` at the end, and whether that is
        within ten times the tolerance.
    """

    weights: np.ndarray
    means: np.ndarray
    covs: np.ndarray
    kl: float
    kl_bound: float
    F: float
    bound: float
    entropy: str
    n_iter: int
    grad_norm: float
    converged: bool
    theta: np.ndarray = field(repr=False)

    @property
    def K(self) -> int:
        return int(self.weights.size)

    @property
    def objective(self) -> float:
        """What the fit minimised, at the reporting accuracy, less ln Z: ``−F`` or ``−bound``.

        (``kl − ln P(D)`` or ``kl_bound − ln P(D)``; defined also where ln Z is not known.)
        """
        return -self.F if self.entropy == "quadrature" else -self.bound


def _evaluate(post, params, theta, entropy, spacing, n_iter, gtol, g=None) -> MixtureFit:
    """The :class:`MixtureFit` at θ: KL with the reporting rule and with the bound; the fit's gradient
    (``g``, the gradient of the fit's objective at θ, if the optimiser has it already).

    Where the posterior has no exact ln Z (a network), ``kl`` and ``kl_bound`` are nan; where it
    has more than two parameters, the quadrature entropy is not computed (``kl``, ``F`` nan).
    """
    theta = np.asarray(theta, dtype=float)
    pis, means, covs = params.unpack(theta)
    if g is None:
        g = mixture_objective(post, params, theta, entropy, spacing)[1]
    energy = sum(p * post.expected_energy(m, C).value for p, m, C in zip(pis, means, covs))
    if params.dim == 2:
        H = _entropy_quadrature(pis, means, params.lowers(theta), REPORT_SPACING, grad=False)
    else:
        H = float("nan")
    H_lb = _entropy_bound(pis, means, covs, grad=False)
    try:
        log_Z = post.log_Z
    except NotImplementedError:
        log_Z = float("nan")
    norm = post.log_normalisers
    gmax = float(np.max(np.abs(g))) if g.size else 0.0
    return MixtureFit(
        weights=pis, means=means, covs=covs, kl=float(energy - H + log_Z),
        kl_bound=float(energy - H_lb + log_Z), F=float(H - energy - norm), bound=float(H_lb - energy - norm),
        entropy=entropy, n_iter=int(n_iter), grad_norm=gmax, converged=bool(gmax <= 10 * gtol),
        theta=theta,
    )


def _check_entropy(entropy) -> str:
    return check.choice("entropy", entropy, ENTROPIES)


def _check_options(post, entropy, spacing, gtol, maxiter):
    post = check.posterior("post", post)
    entropy = _check_entropy(entropy)
    if post.dim != 2 and entropy == "quadrature":
        raise ValueError(f"post must be a 2-parameter posterior (e.g. the toy's) for entropy='quadrature', "
                         f"got dim = {post.dim}; use entropy='bound'")
    return (post, entropy, _spacing(spacing),
            check.positive("gtol", gtol), check.integer("maxiter", maxiter, low=1, high=100_000))


def mixture_fit(post, init, entropy: str = "quadrature", spacing: float = FIT_SPACING,
                gtol: float = 1e-6, maxiter: int = 2000) -> MixtureFit:
    """One fit of a K-component mixture Q by minimising KL(Q‖P) from a given start (B&B (39)).

    Parameters
    ----------
    post : RegressionPosterior
        The target, with an exact ``log_Z`` (e.g. a :class:`~ensemble_lib.ToyPosterior`).
    init : tuple (weights, means, covs)
        The start: K components (:func:`check_mixture`); K is the size of the fit.
    entropy : {"quadrature", "bound"}
        Minimise with the quadrature entropy (:func:`mixture_entropy`) or with its
        Bhattacharyya lower bound (:func:`entropy_lower_bound`; the fit then
        maximises a rigorous lower bound on ln P(D)).
    spacing : float
        Spacing of the entropy's trapezoid rule during the fit (0.02 to 0.5
        standard deviations; the reported KL always uses :data:`REPORT_SPACING`).
    gtol : float
        BFGS gradient tolerance (> 0).
    maxiter : int
        BFGS iterations (1 to 100 000).

    Returns
    -------
    MixtureFit
        The end point; the start itself if BFGS found nothing lower.
    """
    post, entropy, spacing, gtol, maxiter = _check_options(post, entropy, spacing, gtol, maxiter)
    if not (isinstance(init, (tuple, list)) and len(init) == 3):
        raise ValueError(f"init must be a (weights, means, covs) triple, got {check._describe(init)}")
    weights, means, covs = check_mixture(*init, dim=post.dim)
    params = MixtureParams(weights.size, post.dim)
    return _optimise(post, params, params.pack(weights, means, covs), entropy, spacing, gtol, maxiter)


def _minimise(post, params, theta0, entropy, spacing, gtol, maxiter):
    """BFGS from θ₀: ``(θ, objective, iterations, gradient)``; θ₀ itself if BFGS found nothing lower.

    (The objective and gradient at θ₀ are computed once: BFGS's first evaluation is remembered.)
    """
    theta0 = np.asarray(theta0, dtype=float)
    first = []

    def fun(th):
        out = mixture_objective(post, params, th, entropy, spacing)
        if not first and np.array_equal(th, theta0):
            first.append(out)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = optimize.minimize(fun, theta0, jac=True, method="BFGS",
                                options={"gtol": gtol, "maxiter": maxiter})
    f0, g0 = first[0] if first else mixture_objective(post, params, theta0, entropy, spacing)
    if np.isfinite(res.fun) and res.fun <= f0:
        return res.x, float(res.fun), int(res.nit), np.asarray(res.jac, dtype=float)
    return theta0, float(f0), int(res.nit), g0


def _optimise(post, params, theta0, entropy, spacing, gtol, maxiter) -> MixtureFit:
    theta, _, nit, g = _minimise(post, params, theta0, entropy, spacing, gtol, maxiter)
    return _evaluate(post, params, theta, entropy, spacing, nit, gtol, g)


def mixture_kl(post, weights, means, covs, entropy: str = "quadrature") -> float:
    """KL(Q‖P) of a given mixture (no fit): ``Σ π_i ⟨energy⟩_{Q_i} − H[Q] + ln Z``.

    ``entropy="quadrature"`` uses :func:`mixture_entropy` at :data:`REPORT_SPACING`;
    ``"bound"`` its lower bound, which gives an upper bound on the KL.
    """
    post = _check_options(post, "quadrature", REPORT_SPACING, 1.0, 1)[0]
    entropy = _check_entropy(entropy)
    pis, means, covs = check_mixture(weights, means, covs, dim=2)
    energy = sum(p * post.expected_energy(m, C).value for p, m, C in zip(pis, means, covs))
    if entropy == "quadrature":
        H = _entropy_quadrature(pis, means, [np.linalg.cholesky(C) for C in covs], REPORT_SPACING, grad=False)
    else:
        H = _entropy_bound(pis, means, covs, grad=False)
    return float(energy - H + post.log_Z)


def mirror_overlap(mean, cov) -> float:
    """Bhattacharyya coefficient ρ = ∫√(Q Q') of N(w̄, C) and its mirror image N(−w̄, C).

    ``ρ = exp(−½ w̄ᵀC⁻¹w̄)``. For a posterior symmetric under w → −w and its best
    single Gaussian Q (KL₁), the mixture ½(Q + Q') has KL = KL₁ − ln 2 + δ with
    ``0 ≤ δ = E_Q[ln(1 + Q'/Q)] ≤ ρ`` (``ln(1 + x) ≤ √x``); so the best symmetric
    two-component fit lies in ``[KL₁ − ln 2, KL₁ − ln 2 + ρ]``.
    """
    mean, cov = check.mean_cov(mean, cov, len(np.atleast_1d(mean)))
    return float(np.exp(-0.5 * mean @ np.linalg.solve(cov, mean)))


__all__ = ["MixtureFit", "mirror_overlap", "mixture_fit", "mixture_kl", "mixture_objective"]
