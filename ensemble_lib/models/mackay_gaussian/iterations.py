"""The family of priors P̃(μ, β) = e^{log_c} β^k exp(−b₀β − ½λ₀β(μ − μ₀)²) and the separable ensemble's
updates under it (MacKay's prior and the conjugate Normal–Gamma one are members; see the package docstring)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import special

from ...core import validation as check
from .likelihood import MAX_ITER, _LN_2PI
from .results import EnsembleIterate, EnsembleRun


# ---------------------------------------------------------------------------
# The family of priors P~(mu, beta) = e^{log_c} beta^k exp(-b0 beta - lambda0 beta (mu-mu0)^2 / 2)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Prior:
    k: float
    log_c: float
    b0: float = 0.0
    lambda0: float = 0.0
    mu0: float = 0.0


_MACKAY_PRIOR = _Prior(k=-1.0, log_c=math.log(0.5))


def _log_Z(N, xbar, S, p: _Prior) -> float:
    """ln ∫∫ P(D|μ,β) P̃(μ,β) dμ dβ in closed form (Normal–Gamma integrals)."""
    a = 0.5 * N + p.k + 0.5
    S_eff = S + p.lambda0 * N / (p.lambda0 + N) * (xbar - p.mu0) ** 2
    B = p.b0 + 0.5 * S_eff
    return (p.log_c - 0.5 * N * _LN_2PI + 0.5 * (_LN_2PI - math.log(N + p.lambda0))
            + special.gammaln(a) - a * math.log(B))


def _free_energy(N, xbar, S, p: _Prior, m, s2, b, c) -> float:
    r"""MacKay's free energy −F(Q) = −E_Q[ln P(D|μ,β) P̃(μ,β)] − H[Q] for Q = Normal(m, s2) Γ(β; b, c)."""
    E_beta = b * c
    E_lnbeta = special.digamma(c) + math.log(b)
    e_resid = S + N * ((m - xbar) ** 2 + s2)
    E_lnL = -0.5 * N * _LN_2PI + 0.5 * N * E_lnbeta - 0.5 * E_beta * e_resid
    E_lnprior = (p.log_c + p.k * E_lnbeta - p.b0 * E_beta
                 - 0.5 * p.lambda0 * E_beta * ((m - p.mu0) ** 2 + s2))
    H_mu = 0.5 * (_LN_2PI + 1.0 + math.log(s2))
    H_beta = c + math.log(b) + special.gammaln(c) + (1.0 - c) * special.digamma(c)
    return float(-(E_lnL + E_lnprior) - H_mu - H_beta)


def _update_mu(N, xbar, p: _Prior, beta_bar):
    """Optimal Q_μ for a Q_σ of mean β̄: Normal(μ_N, 1/((N + λ₀) β̄)) (MacKay-E (18) when λ₀ = 0)."""
    m = (p.lambda0 * p.mu0 + N * xbar) / (p.lambda0 + N)
    return m, 1.0 / ((N + p.lambda0) * beta_bar)


def _update_beta(N, xbar, S, p: _Prior, m, s2):
    """Optimal Q_σ for Q_μ = Normal(m, s2): Γ(β; b', c') (§3.2 when k = −1)."""
    c = 0.5 * N + p.k + 1.0
    rate = p.b0 + 0.5 * (S + N * ((m - xbar) ** 2 + s2) + p.lambda0 * ((m - p.mu0) ** 2 + s2))
    return 1.0 / rate, c


def _run(N, xbar, S, p: _Prior, beta0, n_iter) -> EnsembleRun:
    beta0 = check.positive("beta0", beta0)
    n_iter = check.integer("n_iter", n_iter, low=0, high=MAX_ITER)
    log_Z = _log_Z(N, xbar, S, p)
    c = 0.5 * N + p.k + 1.0
    S_eff = S + p.lambda0 * N / (p.lambda0 + N) * (xbar - p.mu0) ** 2
    fixed = (2.0 * p.b0 + S_eff) / (2.0 * c - 1.0)
    its = []
    beta_bar = beta0
    b = beta0 / c  # the start: a Q_sigma of the optimal shape c and mean beta0
    for k in range(n_iter + 1):
        if k > 0:
            b, c = _update_beta(N, xbar, S, p, m, s2)       # Q_sigma given Q_mu  (section 3.2)  # noqa: F821 - set at k = 0
            beta_bar = b * c
        m, s2 = _update_mu(N, xbar, p, beta_bar)            # Q_mu given Q_sigma  (MacKay-E (18))
        free = _free_energy(N, xbar, S, p, m, s2, b, c)  # MacKay's free energy, −F
        its.append(EnsembleIterate(k, beta_bar, s2, m, b, c, free, free + log_Z))
    return EnsembleRun(tuple(its), fixed, 1.0 / (2.0 * c), log_Z)


__all__ = []  # its helpers serve the example (example.py)
