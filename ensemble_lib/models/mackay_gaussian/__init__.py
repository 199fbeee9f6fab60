# ruff: noqa: F401
r"""Inferring a Gaussian's mean and standard deviation: MacKay (1995), §2–3.

D. J. C. MacKay, *Developments in Probabilistic Modelling with Neural
Networks — Ensemble Learning* (1995). Data :math:`x_1..x_N` from
Normal(μ, σ²); improper priors flat in μ and 1/σ in σ.

What is implemented (paper equation → code):

* sufficient statistics (4), (7): ``N``, ``xbar`` = x̄, ``S`` = Σ(xₙ − x̄)²
  (the Fig. 1 caption's "S²" is a typo for S);
* σ_N and σ_{N−1} (5), (15): :attr:`MacKayGaussian.sigma_N`, :attr:`MacKayGaussian.sigma_N1`;
* the log likelihood (6): :func:`gaussian_log_likelihood`; (7): :meth:`MacKayGaussian.log_likelihood`;
* the joint posterior (8)–(9): :meth:`MacKayGaussian.log_posterior` (exact,
  normalised by the closed-form :attr:`MacKayGaussian.log_evidence`) and
  :meth:`MacKayGaussian.posterior_grid` (normalised by quadrature on a grid in (μ, ln σ));
* the conditional of μ given σ (10)–(12): :meth:`MacKayGaussian.conditional_mu`;
* the evidence for σ (14): :meth:`MacKayGaussian.log_evidence_sigma`, maximal at σ_{N−1};
* the marginal posterior of σ (13): :meth:`MacKayGaussian.log_marginal_sigma`;
* the Student-t marginal of μ (16), normalised: :meth:`MacKayGaussian.marginal_mu`;
* the separable ensemble Q_μ(μ) Q_σ(σ) of §3, MacKay's free energy (17) (−F, the
  negative of the lower bound F of the other lessons), the
  updates (18) and §3.2 and the fixed point (19):
  :meth:`MacKayGaussian.ensemble_iterations`, :meth:`MacKayGaussian.free_energy`,
  :meth:`MacKayGaussian.kl`;
* for contrast, the textbook conjugate Normal–Gamma mean-field iteration
  (prior on μ scaled by the noise precision): :meth:`MacKayGaussian.conjugate_iterations`.

Symbols: β = 1/σ² (``beta``); β̄ = E_Q[β] (``beta_bar``); σ²_{μ|D} = 1/(Nβ̄)
(``sigma_mu2``); Γ(β; b, c) is MacKay's gamma density (3) with *scale* b and
*shape* c (``b``, ``c``), mean bc.

The improper-prior constant
---------------------------
With P(μ) = 1/σ_μ and P(σ) = 1/σ the evidence P(D) is defined only up to
the constant of the improper prior. Throughout we take σ_μ = 1 and
P(μ, σ) = 1/σ *as a density in (μ, σ)*; in (μ, β) coordinates the same prior
is P(μ, β) = ½ β⁻¹, and in (μ, ln σ) it is 1. The free energy (17) and
ln P(D) use this one constant, so KL(Q‖P) = ln P(D) − F exactly, where F is the
lower bound on ln P(D) used throughout the suite (Barber & Bishop's F[Q]).
MacKay's sign is the opposite: his free energy, ``free_energy`` here, is −F =
−ln P(D) + KL and is minimised; ``bound`` gives F = −``free_energy``.

A unifying view used internally: every prior here has the form
P̃(μ, β) = e^{log_c} β^k exp(−b₀β − ½λ₀β(μ − μ₀)²). MacKay's prior is
k = −1, log_c = ln ½, b₀ = λ₀ = 0. The conjugate Normal–Gamma prior
Normal(μ; μ₀, 1/(λ₀β)) Gamma(β; shape a₀, rate b₀) carries the factor β^{1/2}
from the normaliser of its μ-part, so k = a₀ − ½ — even in the "vague" limit
λ₀ → 0, a₀ → 0. That extra half power of β is why the textbook iteration
converges to S/N instead of S/(N−1).

One module per part: :mod:`.likelihood` (MacKay-E (6)), :mod:`.results` (the iterates, runs and the
posterior grid), :mod:`.iterations` (the prior family and the ensemble's updates under it), and
:mod:`.example` (:class:`MacKayGaussian`, :data:`FIG1`). Every name stays importable from here.
"""

# every name stays importable from here (ruff F401 is off for this file)
from .example import FIG1, MacKayGaussian
from .likelihood import MAX_ITER, gaussian_log_likelihood
from .results import EnsembleIterate, EnsembleRun, MuSigmaGrid

__all__ = [
    "MacKayGaussian", "EnsembleIterate", "EnsembleRun", "MuSigmaGrid", "gaussian_log_likelihood",
    "FIG1", "MAX_ITER",
]
