# ruff: noqa: F401
"""MacKay's single neuron: Bayesian binary classification with a linear logistic (MacKay §2.3–2.5, §5.4).

The model (MacKay (17)) gives the probability of class 1 for an input ``x`` as

.. math:: P(t = 1 \\mid \\mathbf x, \\mathbf w) = y(\\mathbf x; \\mathbf w)
          = \\frac{1}{1 + e^{-\\mathbf w\\cdot\\mathbf x}},

two weights and no bias in MacKay's example (a bias is a constant input of 1, see
:func:`classification_data`). With labels ``t_n ∈ {0, 1}`` and ``s_n = 2t_n − 1`` the log
likelihood (MacKay §2.3, G(w)) is ``ln P(D|w) = Σ_n ln σ(s_n w·x_n)``, and with the prior
``N(0, I/α)`` the posterior is

.. math:: P(\\mathbf w \\mid D, \\alpha) = \\frac{1}{Z}\\exp\\{\\ln P(D\\mid\\mathbf w)
          - \\tfrac{\\alpha}{2}\\|\\mathbf w\\|^2\\},\\qquad
          \\ln P(D\\mid\\alpha) = \\ln Z - \\tfrac{k}{2}\\ln\\frac{2\\pi}{\\alpha}.

There is no noise precision β (MacKay §2.3) and no ``Z_D``: the likelihood is a probability.
For a Gaussian ``Q = N(w̄, C)`` each activation ``a_n = s_n w·x_n`` is Gaussian, with mean
``s_n w̄·x_n`` and variance ``x_nᵀ C x_n``, so the bound (B&B (15), (17)–(18))

.. math:: F[Q] = \\sum_n \\langle \\ln\\sigma(a_n)\\rangle_Q
          - \\tfrac{\\alpha}{2}(\\|\\bar w\\|^2 + \\operatorname{Tr} C) + H[Q]
          - \\tfrac{k}{2}\\ln\\frac{2\\pi}{\\alpha}

needs only one-dimensional integrals (:func:`expected_log_sigmoid`), and
``KL(Q‖P) = ln P(D|α) − F[Q]`` (B&B (16)). The exact posterior is log-concave (one mode), so
its normaliser is computed on a grid (:class:`ClassificationGrid`) to a stated tolerance.
Multi-class softmax (MacKay (16)) is :func:`softmax_log_likelihood`.

Symbols → code: ``w`` = w, ``x`` = inputs (N, k), ``t`` = labels, ``alpha`` = α,
``k`` = ``dim``, ``N`` = ``n_data``, σ = :func:`logistic`, ``w̄`` = ``mean``, ``C`` = ``cov``,
``a_MP`` = ``a_mp``, ``s²`` = ``s2`` (variance of the activation), κ = ``kappa``.

One module per part: :mod:`.sigmoid` (σ, ln σ, their Gaussian expectations, the moderated output),
:mod:`.logistic_posterior` (the data, the exact posterior on a grid, :class:`LogisticPosterior`),
:mod:`.softmax` (several classes). Every name stays importable from here.
"""

# every name stays importable from here (ruff F401 is off for this file)
from .logistic_posterior import (MACKAY_FIG5_W, ClassificationData, ClassificationGrid, LogisticPosterior,
                                 classification_data)
from .sigmoid import expected_log_sigmoid, log_sigmoid, logistic, moderated_output, normal_rule, predictive_probability
from .softmax import log_softmax, softmax_log_likelihood

__all__ = ["MACKAY_FIG5_W", "ClassificationData", "ClassificationGrid", "LogisticPosterior", "classification_data",
           "expected_log_sigmoid", "log_sigmoid", "log_softmax", "logistic", "moderated_output", "normal_rule",
           "predictive_probability", "softmax_log_likelihood"]
