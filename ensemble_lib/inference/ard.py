"""Multiple weight classes: one α_c per class in the evidence framework and in the ensemble bound.

MacKay (1995), "Probable networks", §3.2 and §7. The prior (26) gives each class c of
weights its own precision α_c,

.. math::
    P(\\mathbf w\\mid\\{\\alpha_c\\}) = \\prod_c Z_{W(c)}^{-1}\\exp(-\\alpha_c E_{W(c)}),\\qquad
    E_{W(c)} = \\tfrac12\\textstyle\\sum_{i\\in c} w_i^2,                                  \\quad (26)

and the evidence maximum satisfies, class by class,

.. math::
    \\alpha_c = \\gamma_c \\big/ \\textstyle\\sum_{i\\in c} w_i^{MP\\,2},\\qquad
    \\gamma_c = k_c - \\alpha_c \\operatorname{Tr}_c(A^{-1})                           \\quad (27)

with ``β = (N − Σ_c γ_c)/(2E_D)`` as in (24), iterated to a fixed point by
:func:`~ensemble_lib.inference.reestimation.reestimate` (this module supplies the update step).
Automatic relevance determination (§7) is this prior with one class per input
(:func:`network_classes`); on a linear model with one class per weight it is scikit-learn's
``ARDRegression`` (the tests check it).

The ensemble's version (Barber & Bishop (1998) §2.2, eqs (27)–(38), extended): one Gamma
posterior ``R_c(α_c) = Gamma(r_c, s_c)`` per class with ``r_c = k_c/2 + a`` and
``1/s_c = W_c/2 + 1/b``, ``W_c = Σ_{i∈c}(w̄_i² + C_ii)``, so ``ᾱ_c = r_c s_c``. Substituting the
optimal R_c and S gives the collapsed bound

.. math::
    F^*(Q) = H[Q] - \\textstyle\\sum_c r_c\\ln(\\tfrac12 W_c + \\tfrac1b)
             - u\\ln(\\langle E_D\\rangle + \\tfrac1d) + c_0,

``c_0 = Σ_c[ln Γ(r_c) − ln Γ(a) − a ln b] + ln Γ(u) − ln Γ(c) − c ln d − ((N+k)/2) ln 2π``
(:class:`ClassCollapsedBound`: :class:`~.network_fits.CollapsedBound`, the one-class case, with one
``r_c``, ``W_c`` and ``ᾱ_c`` per class).

Classes are given as a sequence of index sequences, a partition of ``0 … k−1``
(:func:`check_classes`: an empty, overlapping or out-of-range class, or a weight in no
class, is a ``ValueError`` naming ``classes``).

Symbols → code: α_c → ``alphas``; γ_c → ``gammas``; k_c → class sizes; A → ``hessian``;
a, b, c, d → :class:`~.hyperparameters.GammaHyperprior`.

Its parts live in three modules, whose public names this one re-exports:

* :mod:`ensemble_lib.inference.class_prior` — the classes, the prior MacKay (26) and functions drawn
  from it (MacKay §8);
* :mod:`ensemble_lib.inference.class_evidence` — the evidence with one α per class, MacKay (27);
* :mod:`ensemble_lib.inference.class_ensemble` — the ensemble bound with one Gamma posterior per class.
"""

from __future__ import annotations

from .class_ensemble import ClassCollapsedBound, ClassEnsembleFit, fit_class_ensemble
from .class_evidence import (ClassEvidenceRun, ClassEvidenceState, class_evidence_reestimation,
                             fit_class_evidence, linear_class_evidence)
from .class_evidence import class_laplace_evidence  # noqa: F401 - importable here as before, not in __all__
from .class_prior import ClassPriorPosterior, network_classes, sample_prior_functions
from .class_prior import check_classes  # noqa: F401 - importable here as before, not in __all__

__all__ = ["ClassCollapsedBound", "ClassEnsembleFit", "ClassEvidenceRun", "ClassEvidenceState",
           "ClassPriorPosterior", "class_evidence_reestimation", "fit_class_ensemble",
           "fit_class_evidence", "linear_class_evidence", "network_classes", "sample_prior_functions"]
