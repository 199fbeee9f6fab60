"""Cheap predictive distributions by retraining on noisy data (MacKay "Probable networks" §9.2).

MacKay's recipe (after Skilling et al. 1991): start from a converged network ``w*``; make a new
data set by adding Gaussian noise of the model's level σ_ν to the targets (not the inputs);
retrain from ``w*``; repeat (twelve times in the paper) and use each retrained ``w_j`` to
predict. "In order to get a true sample from the posterior, we should also perturb the prior":
the mean to which each weight decays, ordinarily zero, is drawn from N(0, σ_w² = 1/α) for each
retraining. Retraining ``j`` minimises

.. math:: M_j(\\mathbf w) = \\beta E_D(\\mathbf w;\\ \\mathbf t + \\boldsymbol\\nu_j)
          + \\tfrac{\\alpha}{2}\\|\\mathbf w - \\mathbf m_j\\|^2,\\qquad
          \\boldsymbol\\nu_j \\sim \\mathcal N(0, \\sigma_\\nu^2 \\mathbf I),\\ \\
          \\mathbf m_j \\sim \\mathcal N(0, \\sigma_w^2 \\mathbf I)

with α, β held at their values (``m_j = 0`` without the prior perturbation).

**Exact for a linear-Gaussian model.** With ``f = Φw``, σ_ν² = 1/β and σ_w² = 1/α, the minimiser
is ``w_j = A⁻¹(βΦᵀ(t + ν_j) + α m_j)``, ``A = αI + βΦᵀΦ``: Gaussian with mean A⁻¹βΦᵀt (the
posterior mean) and covariance A⁻¹(βΦᵀΦ + αI)A⁻¹ = A⁻¹ (the posterior covariance): the draws are
exact posterior samples. Without the prior perturbation the covariance is A⁻¹βΦᵀΦA⁻¹ = A⁻¹ − αA⁻²,
too small in every direction the prior, not the data, determines. For a network the method is
accurate where the model is locally linear over the posterior's width (MacKay §9.2).

Code names: ``w_star`` = w*, ``sigma_nu`` = σ_ν, ``sigma_w`` = σ_w, ``prior_means`` = m_j,
``noise`` = ν_j.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..core import validation as check
from ..models.linear import LinearGaussianPosterior
from ..models.network import NetworkPosterior
from ..models.toy import ToyPosterior

#: the gradient tolerance of each retraining (trust-region Newton, exact Hessian) ...
RETRAIN_GTOL = 1e-6
#: ... and the largest |gradient| a retraining may stop at and count as converged: trust-exact can
#: stall a little above its tolerance where the objective (βE_D, ~10² here) is flat to round-off
CONVERGED_GRAD = 1e-4


@dataclass(frozen=True)
class RetrainingDraws:
    """The retrained weight vectors of :func:`noisy_retraining`, one row per retraining."""

    weights: np.ndarray = field(repr=False)  # (n_draws, k): w_j
    noise: np.ndarray = field(repr=False)  # (n_draws, N): ν_j added to the targets
    prior_means: np.ndarray = field(repr=False)  # (n_draws, k): m_j (zeros without the perturbation)
    sigma_nu: float
    sigma_w: float  # 1/√α, the s.d. of m_j (drawn only if perturb_prior)
    perturb_prior: bool
    n_iter: np.ndarray = field(repr=False)  # (n_draws,) Newton iterations of each retraining
    converged: np.ndarray = field(repr=False)  # (n_draws,) each stopped with max|∇M_j| ≤ CONVERGED_GRAD

    @property
    def n_draws(self) -> int:
        return int(self.weights.shape[0])


def with_targets(post, t):
    """The same model, weights' prior and α, β as ``post``, with targets ``t`` instead of its own.

    ``post`` is a :class:`~ensemble_lib.LinearGaussianPosterior`,
    :class:`~ensemble_lib.NetworkPosterior` or :class:`~ensemble_lib.ToyPosterior`; ``t`` has its
    number of data points and is finite.
    """
    if isinstance(post, LinearGaussianPosterior):
        make = lambda t_: LinearGaussianPosterior(post.Phi, t_, post.alpha, post.beta)  # noqa: E731
    elif isinstance(post, NetworkPosterior):
        make = lambda t_: NetworkPosterior(post.X, t_, post.n_hidden, post.alpha, post.beta,  # noqa: E731
                                           n_quad=post.n_quad)
    elif isinstance(post, ToyPosterior):
        make = lambda t_: ToyPosterior(post.x, t_, post.alpha, post.beta, n_quad=post.n_quad)  # noqa: E731
    else:
        raise ValueError("post must be a LinearGaussianPosterior, NetworkPosterior or ToyPosterior, "
                         f"got {type(post).__name__}")
    t = check.finite_vector("t", t)
    if t.size != post.n_data:
        raise ValueError(f"t must have length N = {post.n_data}, got {t.size}")
    return make(t)


def residual_noise_sd(post, w_star) -> float:
    """MacKay's §9.2 (i) noise level from the residuals: σ_ν² = Σ(t − y(w*))² / (N − k).

    ``post`` needs more data points than weights (N > k), else ValueError naming it.
    """
    post = check.posterior("post", post)
    if post.n_data <= post.dim:
        raise ValueError(f"post must have more data points than weights (N = {post.n_data}, k = {post.dim}) "
                         "for the residual estimate of the noise")
    w_star = _weights(post, w_star, "w_star")
    return math.sqrt(2.0 * float(post.data_error(w_star)) / (post.n_data - post.dim))


def _weights(post, w, name):
    w = check.finite_vector(name, w)
    if w.size != post.dim:
        raise ValueError(f"{name} must have length k = {post.dim}, got {w.size}")
    return w


def retrain(post, prior_mean, start) -> tuple[np.ndarray, int, bool]:
    """Minimise βE_D(w) + (α/2)‖w − m‖² (``post``'s own targets, α and β) from ``start``.

    One retraining of MacKay §9.2 (iii): the targets already perturbed (:func:`with_targets`), the
    prior's mean ``prior_mean``.

    Returns ``(w, iterations, converged)``: trust-region Newton with the exact gradient and
    Hessian (``scipy.optimize.minimize(method="trust-exact")``), to a gradient of
    :data:`RETRAIN_GTOL`; converged if it stops with max|∇| ≤ :data:`CONVERGED_GRAD`.
    ``prior_mean`` m and ``start`` are finite vectors of length k.
    """
    post = check.posterior("post", post)
    m = _weights(post, prior_mean, "prior_mean")
    start = _weights(post, start, "start")
    am = post.alpha * m

    def fun(w):  # −ln P*(w) − α mᵀw = βE_D + (α/2)‖w − m‖² − (α/2)‖m‖²
        return -float(post.log_unnorm(w)) - float(am @ w)

    res = optimize.minimize(fun, start, jac=lambda w: -post.grad(w) - am, hess=lambda w: -post.hessian(w),
                            method="trust-exact", options={"gtol": RETRAIN_GTOL, "maxiter": 500})
    return res.x, int(res.nit), bool(np.max(np.abs(-post.grad(res.x) - am)) <= CONVERGED_GRAD)


def noisy_retraining(post, w_star, n_draws: int = 12, *, rng: np.random.Generator, sigma_nu=None,
                     perturb_prior: bool = True) -> RetrainingDraws:
    """MacKay's cheap posterior samples: ``n_draws`` networks retrained on noise-perturbed targets.

    MacKay §9.2 (i)–(v), with the perturbed prior mean of its last paragraph (module docstring).

    Parameters
    ----------
    post : LinearGaussianPosterior, NetworkPosterior or ToyPosterior
        The model, data and α, β (held fixed in every retraining).
    w_star : array_like, shape (k,)
        The converged weights every retraining starts from (MacKay §9.2 (i)).
    n_draws : int
        Retrainings (1 to 100 000); MacKay uses twelve.
    rng : numpy.random.Generator
        Split once (``rng.spawn(2)``) into a generator of the target noise and one of the prior
        means, each drawn one retraining at a time: the first n draws do not depend on
        ``n_draws``, and runs with and without ``perturb_prior`` from equal generators add the
        same noise to the targets.
    sigma_nu : float, optional
        The noise s.d. σ_ν added to the targets (> 0); default 1/√β, the model's own. MacKay
        suggests the residual estimate (:func:`residual_noise_sd`) or a test set.
    perturb_prior : bool
        Also draw each retraining's prior mean m_j ~ N(0, I/α) (MacKay's "true sample").

    Returns
    -------
    RetrainingDraws
    """
    post = check.posterior("post", post)
    with_targets(post, post.t)  # the supported models, checked before any draw
    w_star = _weights(post, w_star, "w_star")
    n_draws = check.integer("n_draws", n_draws, low=1, high=100_000)
    rng = check.generator("rng", rng)
    sigma_nu = 1.0 / math.sqrt(post.beta) if sigma_nu is None else check.positive("sigma_nu", sigma_nu)
    perturb_prior = check.flag("perturb_prior", perturb_prior)
    sigma_w = 1.0 / math.sqrt(post.alpha)
    noise_rng, prior_rng = rng.spawn(2)
    W, V, Ms = np.empty((n_draws, post.dim)), np.empty((n_draws, post.n_data)), np.zeros((n_draws, post.dim))
    n_iter, ok = np.empty(n_draws, dtype=int), np.empty(n_draws, dtype=bool)
    for j in range(n_draws):
        V[j] = sigma_nu * noise_rng.standard_normal(post.n_data)
        if perturb_prior:
            Ms[j] = sigma_w * prior_rng.standard_normal(post.dim)
        W[j], n_iter[j], ok[j] = retrain(with_targets(post, post.t + V[j]), Ms[j], w_star)
    return RetrainingDraws(W, V, Ms, float(sigma_nu), float(sigma_w), perturb_prior, n_iter, ok)


def predictive_spread(outputs, noise_var: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Mean and s.d. over draws of predictions ``outputs`` (n_draws, M), plus ``noise_var`` ≥ 0.

    The s.d. is ``√(s² + noise_var)`` with s² the sample variance (ddof = 1) of each column: the
    predictive s.d. of a new target when ``noise_var`` = 1/β (MacKay §9.2 (v): "summarized by
    measuring their mean and variance"). Needs at least two draws.
    """
    Y = check.finite_array("outputs", outputs, ndim=2)
    if Y.shape[0] < 2 or Y.shape[1] < 1:
        raise ValueError(f"outputs must have at least 2 draws (rows) and 1 input, got shape {Y.shape}")
    noise_var = check.real("noise_var", noise_var)
    if noise_var < 0:
        raise ValueError(f"noise_var must be ≥ 0, got {noise_var}")
    return Y.mean(axis=0), np.sqrt(Y.var(axis=0, ddof=1) + noise_var)


__all__ = ["CONVERGED_GRAD", "RETRAIN_GTOL", "RetrainingDraws", "noisy_retraining", "predictive_spread",
           "residual_noise_sd", "retrain", "with_targets"]
