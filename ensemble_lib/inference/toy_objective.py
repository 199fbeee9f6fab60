"""KL(Q‖P) − ln Z of the 2-parameter toy in the conditional coordinates of Q (B&B §2.1, (16)–(20)).

For the toy posterior (:class:`~ensemble_lib.models.toy.ToyPosterior`) the objective of
:func:`~ensemble_lib.inference.kl_fit.kl_objective` — ``⟨βE_D + (α/2)‖w‖²⟩_Q − H[Q]`` — has a
short closed form once Q = N(w̄, C) is written through the law of v given u:
``u = ū + ℓz`` (z ~ N(0, 1)), ``v | u ~ N(v̄ + κz, V)`` with

.. math:: \\ell = \\sqrt{C_{uu}},\\quad \\kappa = C_{uv}/\\ell,\\quad V = C_{vv} - \\kappa^2,
          \\qquad |C| = \\ell^2 V,\\quad \\operatorname{Tr} C = \\ell^2 + \\kappa^2 + V.

Then (the 1-D rule ``(z_i, p_i)`` of :func:`~ensemble_lib.models.toy.u_rule`, ``u_i = ū + ℓz_i``,
``q_i = v̄ + κz_i``, and ``A(u) = Σσ(ux_n)²``, ``B(u) = Σt_nσ(ux_n)`` as in the model)

.. math:: f = \\beta\\Big[\\sum_i p_i\\big(\\tfrac12 A(u_i)(q_i^2 + V) - B(u_i)q_i\\big)
          + \\tfrac12 T\\Big] + \\tfrac{\\alpha}{2}(\\bar u^2 + \\bar v^2 + \\ell^2 + \\kappa^2 + V)
          - \\ln\\ell - \\tfrac12\\ln V - (1 + \\ln 2\\pi)

(the entropy is B&B (18) with k = 2). Each covariance family maps its parameters θ to
(ℓ, κ, V) directly, so no 2 × 2 Cholesky, inverse or validation is repeated per evaluation:

* ``full`` (θ = [w̄, ln L₀₀, L₁₀, ln L₁₁], C = L Lᵀ): ℓ = L₀₀, κ = L₁₀, V = L₁₁²;
* ``diagonal`` (θ = [w̄, ln d_u, ln d_v]): ℓ = d_u, κ = 0, V = d_v²;
* ``factor`` s = 1 (θ = [w̄, ln d_u, ln d_v, s_u, s_v], C = diag(d²) + s sᵀ, B&B (26)):
  ℓ² = d_u² + s_u², κ = s_u s_v/ℓ, V = d_v² + s_v² d_u²/ℓ² (no cancellation).

It is the same function as the general path (the model's ``expected_energy`` and the family's
chain rule), evaluated with less overhead: ``tests/inference/test_toy_objective.py`` checks value and
gradient against that path and against central differences. Symbols: ``ell`` = ℓ,
``kappa`` = κ, ``V``; ``alpha``, ``beta`` as in the model.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from scipy.special import erf

from ..models.erf_network import SQRT_2_OVER_PI
from ..models.toy import ToyPosterior, u_rule
from ..core.gaussian import LOG_2PI, CovarianceFamily

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_ENTROPY_CONST = 1.0 + LOG_2PI  # (k/2)(1 + ln 2π) with k = 2


def _exp(x) -> float:
    """e^x, inf where it overflows (the objective is then inf: the line search backs off)."""
    x = float(x)
    return math.exp(x) if x < 709.0 else math.inf


def applies(post, fam: CovarianceFamily) -> bool:
    """The closed form covers ``post`` and ``fam``: an exact :class:`ToyPosterior` (any family, k = 2)."""
    return type(post) is ToyPosterior and fam.dim == 2


def _conditional(post: ToyPosterior, mu: float, mv: float, ell: float, kappa: float, V: float):
    """f(ū, v̄, ℓ, κ, V) and its five partial derivatives (the module docstring's formula)."""
    z, p = u_rule(mu, ell, post._x_max, post.n_quad)
    u = mu + ell * z
    q = mv + kappa * z
    a = np.multiply.outer(u, post.x)
    s = erf(a * _INV_SQRT2)
    ds = (SQRT_2_OVER_PI * np.exp(-0.5 * a * a)) * post.x
    A = np.einsum("ij,ij->i", s, s)
    B = s @ post.t
    dA = 2.0 * np.einsum("ij,ij->i", s, ds)
    dB = ds @ post.t
    qqV = q * q + V
    beta, alpha = post.beta, post.alpha
    ed = p @ (0.5 * A * qqV - B * q) + 0.5 * post._T
    D = 0.5 * dA * qqV - dB * q  # ∂/∂u of the conditional expectation
    E = A * q - B  # ∂/∂q
    pD, pE = p * D, p * E
    value = (beta * ed + 0.5 * alpha * (mu * mu + mv * mv + ell * ell + kappa * kappa + V)
             - math.log(ell) - 0.5 * math.log(V) - _ENTROPY_CONST)
    g_mu = beta * pD.sum() + alpha * mu
    g_mv = beta * pE.sum() + alpha * mv
    g_ell = beta * (pD @ z) + alpha * ell - 1.0 / ell
    g_kappa = beta * (pE @ z) + alpha * kappa
    g_V = 0.5 * beta * (p @ A) + 0.5 * alpha - 0.5 / V
    return float(value), g_mu, g_mv, g_ell, g_kappa, g_V


def toy_kl_objective(post: ToyPosterior, fam: CovarianceFamily, theta) -> tuple[float, np.ndarray]:
    """⟨βE_D + (α/2)‖w‖²⟩_Q − H[Q] and its gradient in ``theta`` for the toy (see the module docstring).

    The same value as :func:`~ensemble_lib.inference.kl_fit.kl_objective` (to round-off); ``(inf, 0)``
    where Q is not a proper, finite Gaussian.
    """
    th = np.asarray(theta, dtype=float)
    zero = (np.inf, np.zeros_like(th))
    with np.errstate(all="ignore"):
        mu, mv = float(th[0]), float(th[1])
        if fam.name == "full":
            ell, kappa, V = _exp(th[2]), float(th[3]), _exp(2.0 * th[4])
        else:
            du2, dv2 = _exp(2.0 * th[2]), _exp(2.0 * th[3])
            if fam.rank == 0:
                ell, kappa, V = math.sqrt(du2), 0.0, dv2
                su = sv = 0.0
            else:
                su, sv = float(th[4]), float(th[5])
                cuu = du2 + su * su
                if not 0.0 < cuu < math.inf:
                    return zero
                ell = math.sqrt(cuu)
                kappa = su * sv / ell
                V = dv2 + sv * sv * (du2 / cuu)
        if not (ell > 0.0 and V > 0.0 and math.isfinite(ell * ell * V + kappa * kappa)
                and math.isfinite(mu) and math.isfinite(mv)):
            return zero
        value, g_mu, g_mv, g_ell, g_kappa, g_V = _conditional(post, mu, mv, ell, kappa, V)
        if fam.name == "full":
            g = [g_mu, g_mv, g_ell * ell, g_kappa, 2.0 * V * g_V]
        elif fam.rank == 0:
            g = [g_mu, g_mv, g_ell * ell, 2.0 * V * g_V]
        else:
            # (ℓ, κ, V) → (C_uu, C_uv, C_vv) → (ln d_u, ln d_v, s_u, s_v)
            g_cuu = g_ell / (2.0 * ell) - g_kappa * kappa / (2.0 * cuu) + g_V * kappa * kappa / cuu
            g_cuv = g_kappa / ell - 2.0 * g_V * kappa / ell
            g_cvv = g_V
            g = [g_mu, g_mv, 2.0 * du2 * g_cuu, 2.0 * dv2 * g_cvv,
                 2.0 * g_cuu * su + g_cuv * sv, 2.0 * g_cvv * sv + g_cuv * su]
        g = np.array(g, dtype=float)
    if not (math.isfinite(value) and np.all(np.isfinite(g))):
        return zero
    return value, g


def toy_energy_terms(post: ToyPosterior, w) -> tuple[float, np.ndarray, np.ndarray]:
    """φ(w) = βE_D(w) + (α/2)‖w‖² (B&B (6), minus ln p̃), its gradient and Hessian at one w = (u, v).

    With ``E_D = ½A(u)v² − B(u)v + ½T``: ``∂φ/∂u = β(½A'v² − B'v) + αu``, ``∂φ/∂v = β(Av − B) + αv``,
    and the Hessian from ``A'' = 2Σ(σ'² + σσ'')x²``, ``B'' = Σt σ''x²`` (σ''(a) = −aσ'(a)): the
    model's ``log_unnorm``, ``grad`` and ``hessian`` at once (σ evaluated once at the N inputs),
    for the Laplace mode search. The operations are the model's, in its order, so the three
    agree with it to the last bit (the mode search's end game is decided at round-off).
    """
    u, v = float(w[0]), float(w[1])
    x, t = post.x, post.t
    a = u * x
    s = erf(a / np.sqrt(2.0))
    sp = SQRT_2_OVER_PI * np.exp(-0.5 * a * a)
    ds = sp * x
    A = np.sum(s * s, axis=-1)
    B = s @ t
    dA = 2.0 * np.sum(s * ds, axis=-1)
    dB = ds @ t
    d2s = -a * sp
    x2 = x * x
    d2A = 2.0 * np.sum((sp * sp + s * d2s) * x2)
    d2B = np.sum(t * d2s * x2)
    beta, alpha = post.beta, post.alpha
    wv = np.array([u, v])
    e_d = 0.5 * A * v * v - B * v + 0.5 * post._T
    value = -(-beta * e_d - 0.5 * alpha * np.sum(wv * wv, axis=-1))
    grad = -(-beta * np.array([0.5 * dA * v * v - dB * v, A * v - B]) - alpha * wv)
    huv = dA * v - dB
    H = np.array([[0.5 * d2A * v * v - d2B * v, huv], [huv, A]])
    hess = -(-beta * H - alpha * np.eye(2))
    return float(value), grad, hess


def _centred_profile(post: ToyPosterior, log_ell: float, correlated: bool):
    """The objective of a centred Q (w̄ = 0) at ℓ = e^log_ell, minimised over κ and V; its derivative.

    With w̄ = 0 the objective is quadratic in κ and of the form aV − ½ln V in V, so for each ℓ
    (the module docstring's formula with ū = v̄ = 0, ⟨·⟩ the rule's average over z)

    .. math:: V^* = 1/(\\beta\\langle A\\rangle + \\alpha),\\qquad
              \\kappa^* = \\beta\\langle Bz\\rangle / (\\beta\\langle Az^2\\rangle + \\alpha)

    (κ* = 0 for a diagonal Q). By the envelope theorem the derivative of the minimum in ln ℓ is
    ℓ ∂f/∂ℓ at (κ*, V*). Returns ``(value, derivative, kappa, V)``.
    """
    ell = _exp(log_ell)
    if not 0.0 < ell < math.inf:
        return math.inf, 0.0, 0.0, 1.0
    z, p = u_rule(0.0, ell, post._x_max, post.n_quad)
    u = ell * z
    a = np.multiply.outer(u, post.x)
    s = erf(a * _INV_SQRT2)
    A = np.einsum("ij,ij->i", s, s)
    B = s @ post.t
    beta, alpha = post.beta, post.alpha
    pA = p * A
    V = 1.0 / (beta * pA.sum() + alpha)
    kappa = beta * float((p * B) @ z) / (beta * float(pA @ (z * z)) + alpha) if correlated else 0.0
    value, _, _, g_ell, _, _ = _conditional(post, 0.0, 0.0, ell, kappa, V)
    return value, g_ell * ell, kappa, V


def toy_centred_fit(post: ToyPosterior, fam: CovarianceFamily, start_cov, gtol: float = 1e-8):
    """The best Q of a diagonal or full family with its mean at the origin, for the toy: (mean, cov).

    The same optimum as :func:`~ensemble_lib.inference.kl_fit.centred_fit_start` (which optimises
    the covariance parameters by BFGS), found as a one-dimensional problem: κ and V are
    minimised in closed form (:func:`_centred_profile`) and scipy's BFGS descends in ln ℓ from
    ``ℓ = √start_cov_uu`` with the exact derivative.
    """
    correlated = fam.name == "full"
    res = optimize.minimize(lambda t: _centred_profile(post, float(t[0]), correlated)[:2],
                            np.array([0.5 * math.log(float(start_cov[0][0]))]), jac=True,
                            method="BFGS", options={"gtol": gtol})
    ell = _exp(float(res.x[0]))
    _, _, kappa, V = _centred_profile(post, float(res.x[0]), correlated)
    cov = np.array([[ell * ell, kappa * ell], [kappa * ell, V + kappa * kappa]])
    return np.zeros(2), cov


#: Nothing here is public: the closed-form toy objective is reached through
#: :func:`ensemble_lib.inference.kl_fit.kl_fit`, which checks its arguments.
__all__: list[str] = []
