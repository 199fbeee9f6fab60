"""A mixture of Gaussians as Q: Barber & Bishop (1998), §3, eq. (39).

B&B end by naming the single Gaussian's limit — it cannot model a multi-modal
posterior — and propose the mixture

.. math:: Q(\\mathbf w) = \\sum_{i=1}^K \\pi_i\\, N(\\mathbf w \\mid \\bar{\\mathbf w}_i, \\mathbf C_i) \\tag{39}

with adaptive means, covariances and mixing coefficients. As they say, the data
and prior terms of the bound (17) are linear combinations of the single-Gaussian
results,

.. math:: \\langle \\beta E_D + \\tfrac\\alpha2\\|\\mathbf w\\|^2\\rangle_Q
          = \\sum_i \\pi_i \\langle \\beta E_D + \\tfrac\\alpha2\\|\\mathbf w\\|^2\\rangle_{Q_i},

(each term from the model's ``expected_energy``, with its gradients), while the
entropy ``H[Q] = −∫Q ln Q`` has no closed form. This module computes it two ways:

* **quadrature** (:func:`mixture_entropy`): ``H[Q] = −Σ_i π_i E_{Q_i}[ln Q(w)]``,
  each expectation by a tensor Gauss–Hermite rule in the component's whitened
  coordinates ``w = w̄_i + L_i z`` (``C_i = L_i L_iᵀ``), by the trapezoid rule on a
  grid in z (the toy has two parameters, so the grid is 2-D). The fits use a coarse
  grid (their gradient is the exact gradient of that rule, nodes fixed in z); the
  reported KL a fine one (error below 1e-12 on the toy's fits);
* **a lower bound** (:func:`entropy_lower_bound`), the pairwise-distance bound of
  Kolchinsky & Tracey (2017) with the Bhattacharyya distance ``D_ij``:

  .. math:: H[Q] \\ge \\sum_i \\pi_i H[Q_i] - \\sum_i \\pi_i \\ln \\sum_j \\pi_j e^{-D_{ij}},

  in closed form for Gaussians. It comes from Jensen's inequality applied
  component by component (the "Jensen on the components" family). We use it
  rather than the plainer Jensen bound ``−Σ_i π_i ln Σ_j π_j ∫Q_iQ_j`` (Huber et al.
  2008), because that one is not tight even for K = 1 (it is ``(k/2)(1 − ln 2)``
  below the true entropy of a single Gaussian: 0.307 nats for k = 2), and rather
  than Jaakkola & Jordan's (1998) mutual-information bound, which needs a further
  set of variational "smoothing" distributions R_i and multipliers λ_i to
  be more than ``H ≥ Σ π_i H[Q_i]`` (which loses the whole ln 2 of two separated
  modes). The Bhattacharyya bound has no extra parameters, is exact for K = 1
  (``D_ii = 0``) and becomes exact as the components separate
  (``e^{−D_ij} → 0``: the bound → ``Σπ_i H[Q_i] + H(π)``, the true entropy). So a
  fit that maximises the bounded F (:func:`mixture_fit` with
  ``entropy="bound"``) keeps a rigorous lower bound on ln P(D), as B&B ask.

Minimising ``KL(Q‖P) = ⟨energy⟩_Q − H[Q] + ln Z`` (B&B (16)) over the K
components is done by ``scipy.optimize`` (BFGS) with exact gradients. Parameters
θ: ``K − 1`` softmax logits of π (the last is 0: π stays on the simplex), then
per component the mean and the Cholesky factor of C (log-diagonal), exactly
:class:`~ensemble_lib.core.gaussian.CovarianceFamily` ``"full"``'s layout.

Starts (:func:`mixture_ladder`): K = 1 is the full-covariance KL fit
(:func:`~ensemble_lib.inference.kl_fit.kl_fit`); each K is warm-started from the
K − 1 fit by adding, with weight 1/K, the single-Gaussian fit's mirror image
``(−w̄, C)`` (for K = 2: the toy's posterior is symmetric under w → −w) or the
single-Gaussian fit itself (K ≥ 3), or by splitting the heaviest component in two
along its long axis; the best wins, and if none beats the
K − 1 fit that fit is kept (written with K components: one component split in two
identical halves is the same Q), so the fitted KL never rises with K.

Code names: ``weights`` = π, ``means`` = w̄_i, ``covs`` = C_i, ``K`` = number of
components.

References: Barber & Bishop (1998), §3, eq. (39); A. Kolchinsky & B. D. Tracey
(2017), "Estimating mixture entropy with pairwise distances", *Entropy* 19, 361;
T. Jaakkola & M. I. Jordan (1998), "Improving the mean field approximation via
the use of mixture distributions"; M. F. Huber, T. Bailey, H. Durrant-Whyte,
U. D. Hanebeck (2008), "On entropy approximation for Gaussian mixture random
vectors".

Its parts live in three modules, whose public names this one re-exports:

* :mod:`ensemble_lib.inference.mixture_entropy` — the mixture's checks and parameters, and its
  entropy by quadrature and by the lower bound;
* :mod:`ensemble_lib.inference.mixture_fit` — the objective KL(Q‖P) − ln Z and one fit from a start;
* :mod:`ensemble_lib.inference.mixture_ladder` — the ladder over K, each K warm-started from K − 1.
"""

from __future__ import annotations

from .mixture_entropy import (ENTROPIES, FIT_SPACING, K_MAX, REPORT_SPACING, MixtureParams, check_mixture,
                              entropy_lower_bound, mixture_entropy)
from .mixture_fit import MixtureFit, mirror_overlap, mixture_fit, mixture_kl, mixture_objective
from .mixture_ladder import MixtureLadder, embed, iter_mixture_ladder, mixture_ladder, starts_from

__all__ = ["ENTROPIES", "FIT_SPACING", "K_MAX", "REPORT_SPACING", "MixtureFit", "MixtureLadder",
           "MixtureParams", "check_mixture", "embed", "entropy_lower_bound", "iter_mixture_ladder", "mirror_overlap",
           "mixture_entropy", "mixture_fit", "mixture_kl", "mixture_ladder", "mixture_objective", "starts_from"]
