"""ensemble_lib: Gaussian approximations to Bayesian posteriors by ensemble learning.

The library behind the ensemble-learning notebooks. One concept per module,
named after the maths (Barber & Bishop 1998; MacKay 1995):

* :mod:`~ensemble_lib.erf_network` — the erf activation (eq. 2), the toy model and its data;
* :mod:`~ensemble_lib.gaussian` — Gauss–Hermite rules, entropy, covariance families (eq. 26);
* :mod:`~ensemble_lib.posterior` — the regression posterior, bound F[Q] and KL(Q‖P) (eqs 15–20);
* :mod:`~ensemble_lib.toy` — the exact 2-parameter toy posterior of Fig. 2;
* :mod:`~ensemble_lib.linear` — an exactly Gaussian posterior (linear model), for checks;
* :mod:`~ensemble_lib.laplace` — Laplace's method (eqs 9–12);
* :mod:`~ensemble_lib.kl_fit` — minimising KL(Q‖P) over diagonal / factor / full Gaussians;
* :mod:`~ensemble_lib.toy_study` — the Fig. 2 reproduction, presets and the KL table;
* :mod:`~ensemble_lib.plotting`, :mod:`~ensemble_lib.widgets`, :mod:`~ensemble_lib.figures`.
"""

from .erf_network import ToyData, sigma, sigma_prime, toy_data, toy_model
from .gaussian import CovarianceFamily, gauss_hermite, gaussian_entropy, kl_gaussians
from .kl_fit import KLFit, kl_fit
from .laplace import LaplaceFit, laplace_fit
from .linear import LinearGaussianPosterior
from .posterior import Expectation, RegressionPosterior
from .toy import PosteriorGrid, ToyPosterior

# lessons add their public names below (one import line per module)
# -- lesson imports --
from .mackay_gaussian import FIG1 as MACKAY_FIG1, EnsembleIterate, EnsembleRun, MacKayGaussian, MuSigmaGrid, gaussian_log_likelihood  # noqa: E501
from .bound_lesson import BoundPanel, HyperIterationPanel, compare_hyperparameters
from .evidence import EvidenceRun, evidence_grid, evidence_reestimation, laplace_evidence
from .hyperparameters import GammaHyperprior, HyperparameterRun, fit_hyperparameters, full_bound, gamma_updates  # noqa: E501
from .network import NetworkPosterior, add_bias, expected_data_error, network_jacobian, network_output, output_moments, pack_weights, predictive_mean, predictive_variance, unpack_weights  # noqa: E501
from .network_study import CollapsedBound, EnsembleFit, Network1DPanel, TableConfig, demo_fit, fit_ensemble, fit_evidence, fit_family, laplace_error_bars, load_table, run_split, run_table  # noqa: E501
from .svi import SVIHistory, reparam_gradient, svi_fit

__version__ = "0.1.0"
