"""MacKay's example, :class:`MacKayGaussian`: the posterior over (μ, σ), its evidence and marginals, and the
separable ensemble Q_μ Q_σ iterated to MacKay's fixed point or the textbook conjugate one; :data:`FIG1`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from ...core import validation as check
from .iterations import _MACKAY_PRIOR, _Prior, _free_energy, _log_Z, _run, _update_beta, _update_mu
from .likelihood import _LN_2PI, _S_RANGE, _XBAR_MAX, _mu_sigma
from .results import EnsembleIterate, EnsembleRun, MuSigmaGrid


# ---------------------------------------------------------------------------
# The example
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MacKayGaussian:
    r"""Inference of a Gaussian's μ and σ from N points, MacKay (1995) §2–3.

    Parameters
    ----------
    N : int
        Number of data points, N ≥ 2 (σ_{N−1} and the posterior need N ≥ 2).
    xbar : float
        Sample mean x̄, MacKay-E (4).
    S : float
        Sum of squared deviations S = Σ(xₙ − x̄)² > 0, MacKay-E (7).

    Notes
    -----
    Priors: P(μ) = 1/σ_μ with σ_μ = 1, P(σ) = 1/σ (see the module docstring
    for the constant). The exact results used:

    * P(D | σ) = (2π)^{−(N−1)/2} N^{−1/2} σ^{−(N−1)} e^{−S/(2σ²)}, MacKay-E (14);
    * P(D) = ½ (2π)^{−(N−1)/2} N^{−1/2} Γ((N−1)/2) (2/S)^{(N−1)/2};
    * β | D ~ Gamma(shape (N−1)/2, rate S/2);
    * μ | D = x̄ + √(S/(N(N−1))) t_{N−1}, MacKay-E (16).
    """

    N: int
    xbar: float
    S: float

    def __post_init__(self):
        N = self.N
        if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 2:
            raise ValueError(f"N must be an integer >= 2 (the posterior and sigma_(N-1) need N >= 2), "
                             f"got {N!r}")
        object.__setattr__(self, "N", int(N))
        xbar = self.xbar
        if isinstance(xbar, bool) or not isinstance(xbar, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(xbar)):
            raise ValueError(f"xbar must be a finite number, got {xbar!r}")
        if abs(float(xbar)) > _XBAR_MAX:  # N x̄² and (x̄ − μ₀)² are formed: they must not overflow
            raise ValueError(f"xbar must be in [-{_XBAR_MAX:g}, {_XBAR_MAX:g}], got {xbar!r}")
        object.__setattr__(self, "xbar", float(xbar))
        # 2/S, S/N and ln S are formed: S in [1e-300, 1e300] keeps them finite
        object.__setattr__(self, "S", check.positive("S", self.S, lower=_S_RANGE[0], upper=_S_RANGE[1]))

    @classmethod
    def from_data(cls, x) -> "MacKayGaussian":
        """The sufficient statistics (N, x̄, S) of data ``x`` (at least 2 finite, not all equal)."""
        x = check.finite_vector("x", x, min_len=2)
        xbar = float(np.mean(x))
        S = float(np.sum((x - xbar) ** 2))
        if not S > 0.0:
            raise ValueError("x must not have all points equal (S = Σ(x - x̄)² must be > 0)")
        return cls(x.size, xbar, S)

    # -- estimators, MacKay-E (5) -------------------------------------------------
    @property
    def sigma_N(self) -> float:
        """σ_N = √(S/N), the maximum-likelihood σ, MacKay-E (5)."""
        return math.sqrt(self.S / self.N)

    @property
    def sigma_N1(self) -> float:
        """σ_{N−1} = √(S/(N−1)), the maximiser of the evidence for σ, MacKay-E (5), (15)."""
        return math.sqrt(self.S / (self.N - 1))

    # -- likelihood and posterior, MacKay-E (7)–(9) --------------------------------
    def log_likelihood(self, mu, sigma):
        r"""ln P(D | μ, σ) from the sufficient statistics, MacKay-E (7).

        :math:`-N\ln(\sqrt{2\pi}\sigma) - [N(\mu-\bar x)^2 + S]/(2\sigma^2)`.
        """
        mu, sigma = _mu_sigma(mu, sigma)
        out = (-self.N * (0.5 * _LN_2PI + np.log(sigma))
               - (self.N * (mu - self.xbar) ** 2 + self.S) / (2.0 * sigma**2))
        return out[()] if isinstance(out, np.ndarray) else out

    @cached_property
    def log_evidence(self) -> float:
        r"""ln P(D) under P(μ, σ) = 1/σ (σ_μ = 1), in closed form.

        Notes
        -----
        :math:`P(D) = \tfrac12 (2\pi)^{-(N-1)/2} N^{-1/2}\,\Gamma(\tfrac{N-1}2)\,(2/S)^{(N-1)/2}`,
        from integrating (14) against 1/σ (substitute β = 1/σ²).
        """
        return float(check.finite_result(_log_Z(self.N, self.xbar, self.S, _MACKAY_PRIOR),
                                         "N, xbar, S", "ln P(D)"))

    def log_posterior(self, mu, sigma):
        """ln P(μ, σ | D), MacKay-E (8)–(9): a density in (μ, σ), exactly normalised."""
        mu, sigma = _mu_sigma(mu, sigma)
        return self.log_likelihood(mu, sigma) - np.log(sigma) - self.log_evidence

    # -- conditional, evidence and marginals, MacKay-E (10)–(16) ---------------------
    def conditional_mu(self, sigma):
        """P(μ | D, σ) = Normal(x̄, σ²/N), MacKay-E (10)–(12), as a frozen ``scipy.stats.norm``."""
        sigma = check.positive("sigma", sigma)
        from scipy import stats  # imported when used: it alone costs a third of a second

        return stats.norm(loc=self.xbar, scale=sigma / math.sqrt(self.N))

    def log_evidence_sigma(self, sigma):
        r"""ln P(D | σ), the evidence for σ with μ integrated out, MacKay-E (14) (σ_μ = 1).

        :math:`-N\ln(\sqrt{2\pi}\sigma) - S/(2\sigma^2) + \ln(\sqrt{2\pi}\sigma/\sqrt N)`.
        """
        _, sigma = _mu_sigma(0.0, sigma)
        out = (-self.N * (0.5 * _LN_2PI + np.log(sigma)) - self.S / (2.0 * sigma**2)
               + 0.5 * _LN_2PI + np.log(sigma) - 0.5 * math.log(self.N))
        return out[()] if isinstance(out, np.ndarray) else out

    def log_marginal_sigma(self, sigma):
        """ln P(σ | D) = ln P(D|σ) − ln σ − ln P(D), MacKay-E (13): a normalised density in σ."""
        _, sigma = _mu_sigma(0.0, sigma)
        return self.log_evidence_sigma(sigma) - np.log(sigma) - self.log_evidence

    def marginal_beta(self):
        """P(β | D) = Gamma(shape (N−1)/2, rate S/2), as a frozen ``scipy.stats.gamma``."""
        from scipy import stats  # imported when used: it alone costs a third of a second

        return stats.gamma(a=0.5 * (self.N - 1), scale=2.0 / self.S)

    @property
    def t_scale(self) -> float:
        """Scale of the Student-t marginal (16): √(S/(N(N−1))) = σ_{N−1}/√N."""
        return math.sqrt(self.S / (self.N * (self.N - 1)))

    def marginal_mu(self):
        r"""P(μ | D) ∝ [N(μ − x̄)² + S]^{−N/2}, MacKay-E (16), normalised.

        Returns
        -------
        scipy.stats frozen t distribution
            μ = x̄ + √(S/(N(N−1))) t_{N−1}.
        """
        from scipy import stats  # imported when used: it alone costs a third of a second

        return stats.t(df=self.N - 1, loc=self.xbar, scale=self.t_scale)

    # -- grids ------------------------------------------------------------------
    def default_limits(self, mass: float = 1e-3) -> tuple[tuple[float, float], tuple[float, float]]:
        """(μ limits, σ limits) holding all but about ``mass`` of each exact marginal."""
        mass = check.positive("mass", mass, upper=0.5)
        t = self.marginal_mu()
        mu_lim = (float(t.ppf(mass / 2)), float(t.ppf(1 - mass / 2)))
        g = self.marginal_beta()
        s_lim = (float(1.0 / math.sqrt(g.ppf(1 - mass / 2))), float(1.0 / math.sqrt(g.ppf(mass / 2))))
        return mu_lim, s_lim

    def posterior_grid(self, n_mu: int = 201, n_log_sigma: int = 201, mu_lim=None,
                       log_sigma_lim=None) -> MuSigmaGrid:
        """The joint posterior on a grid in (μ, ln σ), normalised by 2-D trapezoid quadrature.

        In (μ, ln σ) the prior 1/σ dσ is flat, so the unnormalised density is
        just the likelihood (7). Default limits hold all but ~1e-6 of each
        marginal (finite grids miss the heavy tails for very small N).
        """
        n_mu = check.integer("n_mu", n_mu, low=3, high=5001)
        n_log_sigma = check.integer("n_log_sigma", n_log_sigma, low=3, high=5001)
        dmu, ds = self.default_limits(1e-6)
        mu_lim = dmu if mu_lim is None else mu_lim
        log_sigma_lim = (math.log(ds[0]), math.log(ds[1])) if log_sigma_lim is None else log_sigma_lim
        for name, lim in (("mu_lim", mu_lim), ("log_sigma_lim", log_sigma_lim)):
            if len(lim) != 2 or not all(math.isfinite(v) for v in lim) or not lim[0] < lim[1]:
                raise ValueError(f"{name} must be two finite numbers (low < high), got {lim!r}")
        mu = np.linspace(*mu_lim, n_mu)
        ls = np.linspace(*log_sigma_lim, n_log_sigma)
        logL = self.log_likelihood(mu[None, :], np.exp(ls)[:, None])
        top = float(logL.max())
        Z = np.trapezoid(np.trapezoid(np.exp(logL - top), mu, axis=1), ls)
        log_Z = top + math.log(Z)
        return MuSigmaGrid(mu, ls, logL - log_Z, log_Z)

    # -- the separable ensemble, section 3 ------------------------------------
    def free_energy(self, m, sigma_mu2, b, c) -> float:
        r"""MacKay's free energy (MacKay-E (17)), −F(Q), for Q = Normal(μ; m, σ²_μ) Γ(β; b, c) under his priors.

        F is the lower bound on ln P(D) of the other lessons (Barber & Bishop's F[Q]);
        MacKay minimises its negative, which this method returns.

        Parameters
        ----------
        m : float
            Mean of Q_μ.
        sigma_mu2 : float
            Variance of Q_μ (> 0).
        b, c : float
            Scale and shape of the gamma Q_σ over β (> 0).

        Notes
        -----
        With ⟨β⟩ = bc and ⟨ln β⟩ = ψ(c) + ln b,

        .. math::
            -F = \tfrac N2\ln 2\pi - \tfrac{N}{2}\langle\ln\beta\rangle
                + \tfrac12\langle\beta\rangle[S + N((m-\bar x)^2 + \sigma_\mu^2)]
                - \ln\tfrac12 + \langle\ln\beta\rangle - H[Q_\mu] - H[Q_\beta],

        where the prior is P(μ, β) = ½β⁻¹ (the image of 1/σ), so ln P(D) − F = KL(Q‖P).
        """
        m = float(m)
        if not math.isfinite(m):
            raise ValueError(f"m must be finite, got {m!r}")
        s2 = check.positive("sigma_mu2", sigma_mu2)
        b = check.positive("b", b)
        c = check.positive("c", c)
        return _free_energy(self.N, self.xbar, self.S, _MACKAY_PRIOR, m, s2, b, c)

    def kl(self, m, sigma_mu2, b, c) -> float:
        """KL(Q‖P(μ, σ | D)) = ln P(D) − F for Q = Normal(m, σ²_μ) Γ(β; b, c) (free_energy = −F)."""
        return self.free_energy(m, sigma_mu2, b, c) + self.log_evidence

    def update_mu(self, beta_bar):
        """MacKay-E (18): the optimal Q_μ for fixed Q_σ of mean β̄; returns (x̄, 1/(Nβ̄))."""
        beta_bar = check.positive("beta_bar", beta_bar)
        return _update_mu(self.N, self.xbar, _MACKAY_PRIOR, beta_bar)

    def update_sigma(self, m, sigma_mu2):
        """§3.2: the optimal Q_σ = Γ(β; b', c') for Q_μ = Normal(m, σ²_μ); returns (b', c').

        1/b' = ½(N σ²_μ + S) when m = x̄ (in general ½(S + N((m − x̄)² + σ²_μ))); c' = N/2.
        """
        s2 = check.positive("sigma_mu2", sigma_mu2)
        return _update_beta(self.N, self.xbar, self.S, _MACKAY_PRIOR, float(m), s2)

    @property
    def ensemble_fixed_point(self) -> float:
        """The limit of 1/β̄, MacKay-E (19): S/(N−1) = σ²_{N−1}."""
        return self.S / (self.N - 1)

    def ensemble_iterations(self, beta0, n_iter) -> EnsembleRun:
        r"""Iterate the separable ensemble of §3 from β̄₀ for ``n_iter`` sweeps.

        Parameters
        ----------
        beta0 : float
            Starting β̄₀ > 0.
        n_iter : int
            Number of sweeps, 0 ≤ n_iter ≤ :data:`MAX_ITER`.

        Returns
        -------
        EnsembleRun
            ``n_iter + 1`` iterates. Iterate 0 is the start: Q_σ = Γ(β; β̄₀/c', c')
            (mean β̄₀, the shape c' = N/2 every optimal Q_σ has) with its optimal
            Q_μ = Normal(x̄, 1/(Nβ̄₀)). Each sweep sets Q_σ given Q_μ (§3.2),
            then Q_μ given Q_σ (18), so each recorded Q is the pair after the sweep.

        Notes
        -----
        β̄' = b'c' = N/(1/β̄ + S), i.e. in v = 1/β̄ the map is affine,
        v' = (v + S)/N, with fixed point v* = S/(N−1) (19) and error
        v' − v* = (v − v*)/N: it contracts by exactly 1/N per sweep. The bound F
        never decreases (MacKay's free energy −F never increases) because each
        half-sweep maximises F over one factor exactly.
        """
        return _run(self.N, self.xbar, self.S, _MACKAY_PRIOR, beta0, n_iter)

    def conjugate_iterations(self, beta0, n_iter, mu0: float = 0.0, lambda0: float = 0.0,
                             a0: float = 0.0, b0: float = 0.0) -> EnsembleRun:
        r"""The textbook conjugate Normal–Gamma mean-field iteration, for contrast.

        Prior: μ | β ~ Normal(μ₀, 1/(λ₀β)) and β ~ Gamma(shape a₀, rate b₀);
        the "vague" limit λ₀, a₀, b₀ → 0 is allowed (improper; normalising
        constants dropped, the β^{1/2} from the μ-part's normaliser kept).

        Parameters
        ----------
        beta0 : float
            Starting E[β] > 0.
        n_iter : int
            Number of sweeps, 0 ≤ n_iter ≤ :data:`MAX_ITER`.
        mu0 : float
            Prior mean of μ.
        lambda0, a0, b0 : float
            Prior hyperparameters, each ≥ 0.

        Returns
        -------
        EnsembleRun
            Iterates as in :meth:`ensemble_iterations`; ``kl`` is against the
            exact posterior *under this prior* (a Normal–Gamma), ``fixed_point`` is
            (2b₀ + S')/(N + 2a₀) with S' = S + λ₀N(x̄ − μ₀)²/(λ₀ + N) — S/N in
            the vague limit — and ``rate`` is 1/(N + 1 + 2a₀).

        Notes
        -----
        Updates: Q_μ = Normal((λ₀μ₀ + Nx̄)/(λ₀ + N), 1/((λ₀ + N)β̄)); Q_β = Gamma
        with shape a₀ + (N+1)/2 and rate b₀ + ½E_μ[Σ(xₙ − μ)² + λ₀(μ − μ₀)²].
        Compared with §3.2 the shape has an extra ½ (from the prior's β^{1/2}),
        so the fixed point moves from S/(N−1) to S/N.
        """
        mu0 = float(mu0)
        if not math.isfinite(mu0):
            raise ValueError(f"mu0 must be finite, got {mu0!r}")
        vals = {}
        for name, v in (("lambda0", lambda0), ("a0", a0), ("b0", b0)):
            v = float(v)
            if not (math.isfinite(v) and v >= 0.0):
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
            vals[name] = v
        prior = _Prior(k=vals["a0"] - 0.5, log_c=0.0, b0=vals["b0"], lambda0=vals["lambda0"], mu0=mu0)
        return _run(self.N, self.xbar, self.S, prior, beta0, n_iter)

    def q_log_density(self, it: EnsembleIterate, mu, sigma):
        """ln Q(μ, σ) of an iterate as a density in (μ, σ) (Jacobian |dβ/dσ| = 2/σ³ included)."""
        if not isinstance(it, EnsembleIterate):
            raise ValueError(f"it must be an EnsembleIterate (from ensemble_iterations), got {type(it).__name__}")
        mu, sigma = _mu_sigma(mu, sigma)
        beta = sigma**-2.0
        lq_mu = -0.5 * (_LN_2PI + math.log(it.sigma_mu2)) - (mu - it.m) ** 2 / (2.0 * it.sigma_mu2)
        lq_beta = ((it.c - 1.0) * np.log(beta) - beta / it.b - special.gammaln(it.c)
                   - it.c * math.log(it.b))
        out = lq_mu + lq_beta + math.log(2.0) - 3.0 * np.log(sigma)
        return out[()] if isinstance(out, np.ndarray) else out


#: MacKay's Fig. 1 data set: N = 5, x̄ = 1.0, S = 1.0 (the caption's "S²" is S).
FIG1 = MacKayGaussian(5, 1.0, 1.0)


__all__ = ["FIG1", "MacKayGaussian"]
