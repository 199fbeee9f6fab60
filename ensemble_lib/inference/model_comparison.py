"""Comparing models: the evidence ln P(D|H) (MacKay (30)), pruning by evidence (§6), committees (§5.3).

MacKay (1995), "Probable networks", §4–6.

**The evidence for a model** (30). With a prior on ln α and ln β that is flat over widths
``W_α``, ``W_β`` (density ``1/W``) and a separable Gaussian approximation of
``P(ln α, ln β | D)`` with the error bars (25),

.. math::
    \\ln P(D\\mid\\mathcal H) \\simeq \\ln P(D\\mid\\alpha_{MP},\\beta_{MP},\\mathcal H)
        + \\sum_c\\big[\\ln(\\sqrt{2\\pi}\\,\\sigma_{\\ln\\alpha_c}) - \\ln W_\\alpha\\big]
        + \\ln(\\sqrt{2\\pi}\\,\\sigma_{\\ln\\beta}) - \\ln W_\\beta,               \\quad (30)

``σ²_{ln α_c} = 2/γ_c``, ``σ²_{ln β} = 2/(N − γ)``. ``ln P(D|α, β, H)`` is (20), which already
carries ``ln(H! 2^H)`` (§4.1) when the run was made with that symmetry factor: each local optimum
is its own "model" (§4.1). The default widths are those of the precisions the library allows,
``W = ln(1e8/1e-8)`` (:data:`~ensemble_lib.core.validation.PRECISION_RANGE`).

**Deleting parameters** (§6). At fixed α, β, setting the parameters s to zero changes the
log evidence by

.. math::
    \\ln P(D\\mid\\mathcal H) - \\ln P(D\\mid\\mathcal H_{\\bar s})
      = \\tfrac12\\mathbf w_s^T\\Sigma_s^{-1}\\mathbf w_s
      + \\ln\\frac{\\det^{1/2}\\Sigma_s}{\\prod_{i\\in s}\\sigma_{w,i}},

``Σ_s`` the block of A⁻¹ for s and ``σ_{w,i}² = 1/α`` the prior variance. The first term is the
"optimal brain surgeon" saliency (ΔM_MP; Hassibi & Stork), the second the Occam term; "optimal
brain damage" (LeCun et al.) uses ``½ A_ss w_s²`` instead, which ignores the correlations.
A positive difference means deleting makes the model *less* probable (:func:`deletion_evidence`).

**Error bars with uncertain hyperparameters** (§5.2.2). With the output linearised about the mode,
``y(x, w) ≈ y(x, w_MP) + gᵀ(w − w_MP)``, the predictive variance at fixed α, β is
``gᵀA⁻¹g + 1/β`` (§5.2). Integrating over ln α and ln β with the separable Gaussian of (25) moves
the mean ``y(x, w_MP(α, β))`` and, to leading order in 1/γ, adds its spread:

.. math::
    \\sigma_t^2 = \\mathbf g^T\\big(A^{-1} + (\\sigma^2_{\\ln\\alpha} + \\sigma^2_{\\ln\\beta})
        \\mathbf w'_{MP}\\mathbf w'^T_{MP}\\big)\\mathbf g + \\sigma_\\nu^2,\\qquad
    \\mathbf w'_{MP} = \\partial\\mathbf w_{MP}/\\partial\\ln\\alpha = -\\alpha A^{-1}\\mathbf w_{MP}.

The sensitivities follow from the stationarity ``∇M(w_MP) = 0`` (implicit differentiation):
``∂w_MP/∂ln α_c = −α_c A⁻¹ P_c w_MP`` for a class c (P_c keeps the class's weights) and
``∂w_MP/∂ln β = −β A⁻¹ ∇E_D = A⁻¹ (α ∘ w_MP)``, so with one class ``∂w/∂ln β = −∂w/∂ln α`` and the
two variances add as in MacKay's formula; with several classes each ln α_c contributes
``σ²_{ln α_c}(gᵀ w'_c)²`` (:func:`hyperparameter_error_bars`). MacKay's sign ``+αA⁻¹w`` does not
matter (the term is a square). What the formula leaves out — the change of ``gᵀA⁻¹g`` and of
``1/β`` over the spread of ln α, ln β — is of the same order in 1/γ; lesson 6 shows how large it is
where everything is exact.

The exact counterpart where everything is Gaussian — the predictive of a linear model integrated
over (ln α, ln β) on a grid (:func:`integrated_predictive`) — measures what the formula leaves out.

**Committees** (§5.3): the predictions of several optima m weighted by their posterior
probabilities ``p_m ∝ exp(ln P(D|H_m))``; the predictive variance of the mixture is
``Σ_m p_m σ_m² + Σ_m p_m (μ_m − μ̄)²`` (within plus between members; :func:`committee`).

Symbols → code: W_α, W_β → ``log_alpha_width``, ``log_beta_width``; Σ_s → block of ``cov``;
σ_w² → ``prior_variances``; g → rows of ``G``; w'_MP → ``sensitivities``; σ_ν² = 1/β →
``noise_variance``.

Its parts live in four modules, whose public names this one re-exports:

* :mod:`ensemble_lib.inference.model_evidence` — the evidence (30) and the exact ln P(D);
* :mod:`ensemble_lib.inference.deletion_evidence` — deleting parameters (§6);
* :mod:`ensemble_lib.inference.hyperparameter_error_bars` — error bars with uncertain α, β (§5.2.2);
* :mod:`ensemble_lib.inference.committee` — committees (§5.3).
"""

from __future__ import annotations

from .committee import Committee, committee, distinct_optima
from .deletion_evidence import Deletion, SubsetPosterior, deletion_evidence
from .hyperparameter_error_bars import (HyperErrorBars, IntegratedPredictive, hyperparameter_error_bars,
                                        integrated_predictive, mode_sensitivities)
from .model_evidence import ModelEvidence, exact_log_evidence, model_log_evidence
from .model_evidence import DEFAULT_LOG_WIDTH, log_evidence_on_grid  # noqa: F401 - importable here as before

__all__ = ["Committee", "Deletion", "HyperErrorBars", "IntegratedPredictive", "ModelEvidence",
           "SubsetPosterior", "committee", "deletion_evidence", "distinct_optima", "exact_log_evidence",
           "hyperparameter_error_bars", "integrated_predictive", "mode_sensitivities",
           "model_log_evidence"]
