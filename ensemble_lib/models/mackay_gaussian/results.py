"""The results of MacKay's example: one iterate of the separable ensemble (:class:`EnsembleIterate`), a run of
them (:class:`EnsembleRun`), and the exact posterior on a (μ, ln σ) grid (:class:`MuSigmaGrid`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np



# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class EnsembleIterate:
    r"""One separable ensemble Q(μ, β) = Normal(μ; m, σ²_{μ|D}) Γ(β; b, c).

    Attributes
    ----------
    k : int
        Sweep number (0 = the start).
    beta_bar : float
        β̄ = E_Q[β] = b c.
    sigma_mu2 : float
        Variance of Q_μ, σ²_{μ|D}.
    m : float
        Mean of Q_μ (x̄ for MacKay's prior).
    b, c : float
        Scale and shape of the gamma Q_σ over β (MacKay's eq. (3) convention).
    free_energy : float
        MacKay's free energy (17), with the module's prior constant: −F, the
        negative of the lower bound F on ln P(D) (see :attr:`bound`).
    kl : float
        KL(Q‖P(μ, σ | D)) against the exact posterior, = ln P(D) − F.
    """

    k: int
    beta_bar: float
    sigma_mu2: float
    m: float
    b: float
    c: float
    free_energy: float
    kl: float

    @property
    def bound(self) -> float:
        """F(Q) = ln P(D) − KL(Q‖P), the lower bound on ln P(D): MacKay's free energy (17) negated."""
        return -self.free_energy


@dataclass(frozen=True)
class EnsembleRun:
    """The iterates of a mean-field run, a start plus one per sweep.

    Behaves as a sequence of :class:`EnsembleIterate` (``run[k]``, ``len(run)``,
    iteration); array views of each field are given as properties.

    Attributes
    ----------
    iterates : tuple of EnsembleIterate
    fixed_point : float
        The closed-form limit of 1/β̄ (S/(N−1) for MacKay's prior).
    rate : float
        The exact contraction factor of the error in 1/β̄ per sweep (1/N for MacKay's prior).
    log_evidence : float
        ln P(D) under the same prior and constant (so kl = log_evidence − bound = free_energy + log_evidence).
    """

    iterates: tuple
    fixed_point: float
    rate: float
    log_evidence: float

    def __getitem__(self, i):
        return self.iterates[i]

    def __len__(self):
        return len(self.iterates)

    def __iter__(self):
        return iter(self.iterates)

    @property
    def beta_bar(self) -> np.ndarray:
        return np.array([it.beta_bar for it in self.iterates])

    @property
    def sigma_mu2(self) -> np.ndarray:
        return np.array([it.sigma_mu2 for it in self.iterates])

    @property
    def free_energy(self) -> np.ndarray:
        return np.array([it.free_energy for it in self.iterates])

    @property
    def bound(self) -> np.ndarray:
        """F per sweep: the lower bound on ln P(D), MacKay's free energy negated."""
        return -self.free_energy

    @property
    def kl(self) -> np.ndarray:
        return np.array([it.kl for it in self.iterates])

    @property
    def error(self) -> np.ndarray:
        """|1/β̄_k − fixed point|, the quantity that contracts by ``rate`` each sweep."""
        return np.abs(1.0 / self.beta_bar - self.fixed_point)


@dataclass(frozen=True)
class MuSigmaGrid:
    r"""The joint posterior tabulated on a grid in (μ, ln σ), normalised by quadrature.

    Attributes
    ----------
    mu : ndarray, shape (n_mu,)
    log_sigma : ndarray, shape (n_s,)
    log_density : ndarray, shape (n_s, n_mu)
        ln p(μ, ln σ | D), rows over ln σ, normalised so that its trapezoid
        integral over the grid is 1.
    log_Z : float
        ln of the trapezoid integral of P(D | μ, σ) P(μ, σ) over the grid —
        an independent estimate of ln P(D) (equal to it if the grid holds the mass).
    """

    mu: np.ndarray
    log_sigma: np.ndarray
    log_density: np.ndarray
    log_Z: float

    @property
    def sigma(self) -> np.ndarray:
        return np.exp(self.log_sigma)

    def marginal_mu(self) -> np.ndarray:
        """p(μ | D) on the grid, by trapezoid integration over ln σ."""
        return np.trapezoid(np.exp(self.log_density), self.log_sigma, axis=0)

    def marginal_log_sigma(self) -> np.ndarray:
        """p(ln σ | D) on the grid, by trapezoid integration over μ."""
        return np.trapezoid(np.exp(self.log_density), self.mu, axis=1)


__all__ = ["EnsembleIterate", "EnsembleRun", "MuSigmaGrid"]
