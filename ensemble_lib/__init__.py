"""ensemble_lib: Gaussian approximations to Bayesian posteriors by ensemble learning.

The library behind the ensemble-learning notebooks (Barber & Bishop 1998;
MacKay 1995). ``import ensemble_lib`` loads the maths only — numpy and scipy,
never ipywidgets or matplotlib:

* :mod:`ensemble_lib.models` — the models and their posteriors: the erf
  network and the 2-weight toy, the linear model, the H-hidden-unit network,
  MacKay's Gaussian mean/σ example;
* :mod:`ensemble_lib.inference` — the approximations: Gaussians and their
  covariance families, Laplace's method, KL(Q‖P) fits, hyperparameters
  (Gamma posteriors, MacKay's evidence), SVI, and the network fits.

The rest is imported explicitly where it is needed:

* :mod:`ensemble_lib.lessons` — one module per lesson (its panels and figures)
  and the learning path; the panel registry :data:`ensemble_lib.lessons.PANELS`;
* :mod:`ensemble_lib.ui` — the panel machine, progress bars, plot helpers,
  the figures command and the Voilà renderer;
* :mod:`ensemble_lib.studies` — the data sets and the Table-1 study.

The equation index (``docs/equations.md``) maps each equation of the papers
to the function that implements it.
"""

from .inference.ard import (ClassCollapsedBound, ClassPriorPosterior, class_evidence_reestimation,
                            fit_class_ensemble, linear_class_evidence, network_classes,
                            sample_prior_functions)
from .inference.classification_fits import (ClassificationFits, PredictiveMaps, fit_classification,
                                            gaussian_predictive, predictive_maps)
from .inference.evidence import EvidenceRun, cheap_reestimation, evidence_grid, evidence_reestimation, laplace_evidence
from .core.gaussian import (CovarianceFamily, GaussianFactor, gauss_hermite, gaussian_entropy,
                                 kl_gaussians)
from .inference.hyperparameters import (GammaHyperprior, HyperparameterRun, fit_hyperparameters,
                                        full_bound, gamma_updates)
from .inference.kl_fit import KLFit, kl_fit
from .inference.laplace import LaplaceFit, laplace_fit
from .inference.model_comparison import (committee, deletion_evidence, distinct_optima,
                                         exact_log_evidence, hyperparameter_error_bars, model_log_evidence,
                                         mode_sensitivities)
from .inference.model_evidence import log_alpha_posterior
from .inference.mixture import (MixtureFit, MixtureLadder, entropy_lower_bound, mixture_entropy, mixture_fit,
                                mixture_kl, mixture_ladder)
from .inference.network_fits import (CollapsedBound, EnsembleFit, fit_ensemble, fit_evidence,
                                     fit_family, laplace_error_bars)
from .inference.svi import SVIHistory, reparam_gradient, svi_fit
from .inference.toy_fits import ToyFits, fit_all
from .models.classification import (MACKAY_FIG5_W, ClassificationData, ClassificationGrid, LogisticPosterior,
                                    classification_data, expected_log_sigmoid, log_sigmoid, log_softmax,
                                    logistic, moderated_output, predictive_probability, softmax_log_likelihood)
from .models.erf_network import ToyData, sigma, sigma_prime, toy_data, toy_model
from .models.linear import LinearGaussianPosterior
from .models.mackay_gaussian import FIG1 as MACKAY_FIG1
from .models.mackay_gaussian import (EnsembleIterate, EnsembleRun, MacKayGaussian, MuSigmaGrid,
                                     gaussian_log_likelihood)
from .models.network import (NetworkPosterior, add_bias, expected_data_error, network_jacobian,
                             network_output, output_moments, pack_weights, predictive_mean,
                             predictive_variance, unpack_weights)
from .models.posterior import Expectation, RegressionPosterior
from .models.toy import PAPER_PRESET, PosteriorGrid, ToyPosterior, make_posterior

__all__ = [
    # models
    "ToyData", "sigma", "sigma_prime", "toy_data", "toy_model",
    "Expectation", "RegressionPosterior",
    "PAPER_PRESET", "PosteriorGrid", "ToyPosterior", "make_posterior",
    "LinearGaussianPosterior",
    "NetworkPosterior", "add_bias", "expected_data_error", "network_jacobian", "network_output",
    "output_moments", "pack_weights", "predictive_mean", "predictive_variance", "unpack_weights",
    "MACKAY_FIG1", "EnsembleIterate", "EnsembleRun", "MacKayGaussian", "MuSigmaGrid",
    "gaussian_log_likelihood",
    "MACKAY_FIG5_W", "ClassificationData", "ClassificationGrid", "LogisticPosterior", "classification_data",
    "expected_log_sigmoid", "log_sigmoid", "log_softmax", "logistic", "moderated_output",
    "predictive_probability", "softmax_log_likelihood",
    # inference
    "CovarianceFamily", "GaussianFactor", "gauss_hermite", "gaussian_entropy", "kl_gaussians",
    "LaplaceFit", "laplace_fit",
    "KLFit", "kl_fit",
    "MixtureFit", "MixtureLadder", "entropy_lower_bound", "mixture_entropy", "mixture_fit", "mixture_kl",
    "mixture_ladder",
    "ToyFits", "fit_all",
    "GammaHyperprior", "HyperparameterRun", "fit_hyperparameters", "full_bound", "gamma_updates",
    "EvidenceRun", "cheap_reestimation", "evidence_grid", "evidence_reestimation", "laplace_evidence",
    "log_alpha_posterior",
    "CollapsedBound", "EnsembleFit", "fit_ensemble", "fit_evidence", "fit_family",
    "laplace_error_bars",
    "ClassCollapsedBound", "ClassPriorPosterior", "class_evidence_reestimation", "fit_class_ensemble",
    "linear_class_evidence", "network_classes", "sample_prior_functions",
    "committee", "deletion_evidence", "distinct_optima", "exact_log_evidence", "hyperparameter_error_bars",
    "model_log_evidence", "mode_sensitivities",
    "SVIHistory", "reparam_gradient", "svi_fit",
    "ClassificationFits", "PredictiveMaps", "fit_classification", "gaussian_predictive", "predictive_maps",
]

__version__ = "0.1.0"
