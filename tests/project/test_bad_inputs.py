# ruff: noqa: E501 - one case per line in the table
"""Every bad input is refused with a ValueError naming the argument (issue 13, item 3).

One table, :data:`CASES`: per case a call with one bad argument (a string, None, complex, a bool
where a number is meant, a wrong shape, a non-finite value, a value whose use overflows, a bad
optimiser option, an rng that is not a ``numpy.random.Generator``, ...) and a regular expression
the ``ValueError``'s message must match — the argument's name, and for ranges the range. Never a
``TypeError``, ``AttributeError``, ``LinAlgError``, empty ``NotImplementedError``, silent NaN or
hang. Then good inputs at the edges of the documented ranges (they must keep working), and the
panels: a refused control value shows in the status line and the panel works afterwards.

The allowed ranges are documented where the arguments are: α, β ∈ [1e-8, 1e8]
(:data:`ensemble_lib.core.validation.PRECISION_RANGE`), Gauss–Hermite nodes 1 to 2000, the toy's
``n_quad`` 16 to 1000.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from functools import lru_cache

import numpy as np
import pytest

import ensemble_lib as E
from ensemble_lib.core import validation as check
from ensemble_lib.core.progress import report
from ensemble_lib.inference import (ard, family_search, function_prior, hmc, kl_fit, mixture, model_comparison, network_fits,
                                    pruning, svi)
from ensemble_lib.inference.hyperparameters import GammaPosterior
from ensemble_lib.inference import local_mass, noisy_retraining, svi_draws
from ensemble_lib.models import classification
from ensemble_lib.core.gaussian import ellipse_geometry
from ensemble_lib.lessons import bound, mean_sigma, networks, stochastic_vi, toy_posterior
from ensemble_lib.lessons import monte_carlo
from ensemble_lib.lessons import mixture as mixture_lesson
from ensemble_lib.studies import datasets, table1
from ensemble_lib.ui import memo, plotting, progress, solution, tables, voila

# ---------------------------------------------------------------------------
# small valid objects the bad calls start from (built once, on first use)
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def toy():
    return E.make_posterior(**E.PAPER_PRESET)


@lru_cache(maxsize=None)
def lin():
    rng = np.random.default_rng(0)
    Phi = rng.standard_normal((8, 2))
    return E.LinearGaussianPosterior(Phi, Phi @ [1.0, -0.5] + 0.1 * rng.standard_normal(8), 1.0, 10.0)


@lru_cache(maxsize=None)
def net_data():
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, 10)
    return E.add_bias(x[:, None]), np.sin(x) + 0.1 * rng.standard_normal(10)


@lru_cache(maxsize=None)
def net():
    X, t = net_data()
    return E.NetworkPosterior(X, t, 2, alpha=1.0, beta=25.0, n_quad=16)


def W():  # a valid network weight vector (H = 2, d = 2: k = 6)
    return np.array([0.5, 0.1, -0.3, 0.2, 1.0, -1.0])


def NC():  # a valid network covariance
    return 0.01 * np.eye(6)


@lru_cache(maxsize=None)
def split():
    rng = np.random.default_rng(2)
    return rng.standard_normal((20, 3)), rng.standard_normal(20)


@lru_cache(maxsize=None)
def svi_history():
    return E.svi_fit(toy(), "diagonal", rng=np.random.default_rng(0), n_iter=20, kl_every=10)


@lru_cache(maxsize=None)
def toy_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return E.kl_fit(toy(), "diagonal")


@lru_cache(maxsize=None)
def class_post():
    return E.ClassPriorPosterior(toy(), [[0], [1]], [1.0, 2.0])


@lru_cache(maxsize=None)
def subset_post():
    return model_comparison.SubsetPosterior(lin(), [1])


@lru_cache(maxsize=None)
def collapsed():
    return E.CollapsedBound(net(), BP)


@lru_cache(maxsize=None)
def hmc_result():  # a hand-made toy result: 2 chains of 4 draws
    rng = np.random.default_rng(3)
    return hmc.HMCResult(model="toy", chain_w=rng.standard_normal((2, 4, 2)), chain_alpha=np.ones((2, 4)),
                         chain_beta=np.full((2, 4), 10.0), r_hat={}, ess={}, divergences=np.zeros(2, int),
                         seconds=0.0, settings={})


@lru_cache(maxsize=None)
def mixture_fit_1():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mixture.mixture_fit(toy(), ([1.0], [toy_fit().mean], [toy_fit().cov]))


@lru_cache(maxsize=None)
def logit_post():
    data = E.classification_data(np.random.default_rng(0), n=8)
    return E.LogisticPosterior(data.x, data.t, 1.0)


@lru_cache(maxsize=None)
def logit_fits():
    return E.fit_classification(logit_post())


MIX = mixture.MixtureParams(2, 2)


FULL = E.CovarianceFamily.make("full", 2)
M2, C2 = np.zeros(2), np.eye(2)
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
NOT_SYM = [[1.0, 0.5], [0.0, 1.0]]
HUGE = 1e300
RS = np.random.RandomState(0)  # the legacy generator: refused where a Generator is required
BP = E.GammaHyperprior()


def _tiny_grid(log_density):
    u = np.linspace(-1, 1, 5)
    return E.PosteriorGrid(u, u, log_density)


def _ax():
    return plotting.new_figure(2, 2)[1]


def _result():
    return {"methods": {"a": {}, "b": {}}, "splits": []}


#: case id -> the public callable it exercises, by its qualified name below ``ensemble_lib``
#: (``"models.toy.ToyPosterior.grid"``; an inherited method by where it is defined). The coverage
#: test (tests/project/test_bad_input_coverage.py) checks every public callable has at least one case.
TARGETS: dict[str, str] = {}


def C(call, pattern, *, id, on):
    """One case: ``call`` must raise a ValueError matching ``pattern``; ``on`` names the callable tested."""
    if id in TARGETS:
        raise AssertionError(f"duplicate case id {id!r}")
    TARGETS[id] = on
    return pytest.param(call, pattern, id=id)

# ---------------------------------------------------------------------------
# the table: (call with one bad argument, regex its ValueError must match)
# ---------------------------------------------------------------------------

CASES = [
    # --- Gauss–Hermite, Gaussians, covariance families (inference/gaussian.py)
    C(lambda: E.gauss_hermite(0), r"n must be an integer in \[1, 2000\]", id="gh-n-0", on="core.gaussian.gauss_hermite"),
    C(lambda: E.gauss_hermite(2001), r"n must be an integer in \[1, 2000\]", id="gh-n-big", on="core.gaussian.gauss_hermite"),
    C(lambda: E.gauss_hermite("5"), r"n must be an integer", id="gh-n-str", on="core.gaussian.gauss_hermite"),
    C(lambda: E.gauss_hermite(2.5), r"n must be an integer", id="gh-n-float", on="core.gaussian.gauss_hermite"),
    C(lambda: E.gauss_hermite(True), r"n must be an integer", id="gh-n-bool", on="core.gaussian.gauss_hermite"),
    C(lambda: E.gauss_hermite(None), r"n must be an integer", id="gh-n-none", on="core.gaussian.gauss_hermite"),
    C(lambda: E.GaussianFactor("abc", "C"), r"C must be", id="factor-str", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor(None, "C"), r"C must be", id="factor-none", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor([[1j, 0], [0, 1]], "C"), r"C must be .*real", id="factor-complex", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor(NOT_PD, "C"), r"C must be positive definite", id="factor-not-pd", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor(NOT_SYM, "C"), r"C must be symmetric", id="factor-not-sym", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor([[np.nan]], "C"), r"C must be finite", id="factor-nan", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor(np.ones((2, 3)), "C"), r"C must be a non-empty square", id="factor-shape", on="core.gaussian.GaussianFactor"),
    C(lambda: E.GaussianFactor(C2, "C").solve([1.0, 2.0, 3.0]), r"b must have shape", id="factor-solve", on="core.gaussian.GaussianFactor.solve"),
    C(lambda: E.GaussianFactor(C2, "C").solve("ab"), r"b must be", id="factor-solve-str", on="core.gaussian.GaussianFactor.solve"),
    C(lambda: E.gaussian_entropy("x"), r"cov must be", id="entropy-str", on="core.gaussian.gaussian_entropy"),
    C(lambda: E.gaussian_entropy(NOT_PD), r"cov must be positive definite", id="entropy-not-pd", on="core.gaussian.gaussian_entropy"),
    C(lambda: E.gaussian_entropy([[np.inf]]), r"cov must be finite", id="entropy-inf", on="core.gaussian.gaussian_entropy"),
    C(lambda: E.kl_gaussians([0.0], C2, M2, C2), r"m0 must have shape \(2,\)", id="klg-m0-shape", on="core.gaussian.kl_gaussians"),
    C(lambda: E.kl_gaussians(M2, C2, [np.nan, 0], C2), r"m1 must be finite", id="klg-m1-nan", on="core.gaussian.kl_gaussians"),
    C(lambda: E.kl_gaussians("ab", C2, M2, C2), r"m0 must be", id="klg-m0-str", on="core.gaussian.kl_gaussians"),
    C(lambda: E.kl_gaussians(M2, NOT_PD, M2, C2), r"C0 must be positive definite", id="klg-C0", on="core.gaussian.kl_gaussians"),
    C(lambda: E.kl_gaussians(M2, C2, M2, np.eye(3)), r"C0 and C1 must have the same shape", id="klg-C1-shape", on="core.gaussian.kl_gaussians"),
    C(lambda: ellipse_geometry([[np.nan, 0], [0, 1]]), r"cov must be finite", id="ellipse-nan", on="core.gaussian.ellipse_geometry"),
    C(lambda: ellipse_geometry(np.eye(3)), r"cov must have shape \(2, 2\)", id="ellipse-3d", on="core.gaussian.ellipse_geometry"),
    C(lambda: ellipse_geometry(C2, n_sigma=-1), r"n_sigma must be a finite number > 0", id="ellipse-nsig", on="core.gaussian.ellipse_geometry"),
    C(lambda: E.CovarianceFamily.make("bogus", 2), r"family must be one of", id="fam-name", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make(None, 2), r"family must be one of", id="fam-none", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("full", 0), r"dim must be an integer >= 1", id="fam-dim", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("factor", 2, 2), r"rank must be an integer in \[0, 1\]", id="fam-rank-big", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("factor", 2, -1), r"rank must be an integer", id="fam-rank-neg", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("factor", 2, "1"), r"rank must be an integer", id="fam-rank-str", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("diagonal", 2, 1), r"rank must be 0", id="fam-diag-rank", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: E.CovarianceFamily.make("full", 2, 5), r"rank must be an integer", id="fam-full-rank", on="core.gaussian.CovarianceFamily.make"),
    C(lambda: FULL.unpack([0.0, 1.0]), r"theta must have shape \(5,\)", id="fam-unpack-shape", on="core.gaussian.CovarianceFamily.unpack"),
    C(lambda: FULL.unpack(["a"] * 5), r"theta must be", id="fam-unpack-str", on="core.gaussian.CovarianceFamily.unpack"),
    C(lambda: FULL.unpack_lower([0.0, 1.0]), r"theta must have shape \(5,\)", id="fam-unpack-lower-shape", on="core.gaussian.CovarianceFamily.unpack_lower"),
    C(lambda: FULL.unpack_lower([0.0, 0.0, np.nan, 0.0, 0.0]), r"theta must contain only finite", id="fam-unpack-lower-nan", on="core.gaussian.CovarianceFamily.unpack_lower"),
    C(lambda: FULL.pack([0.0], C2), r"mean must have shape \(2,\)", id="fam-pack-mean", on="core.gaussian.CovarianceFamily.pack"),
    C(lambda: FULL.pack(M2, NOT_PD), r"cov must be positive definite", id="fam-pack-cov", on="core.gaussian.CovarianceFamily.pack"),
    # --- the erf network and the toy data (models/erf_network.py)
    C(lambda: E.sigma("a"), r"a must be", id="sigma-str", on="models.erf_network.sigma"),
    C(lambda: E.sigma(1j), r"a must be .*real", id="sigma-complex", on="models.erf_network.sigma"),
    C(lambda: E.sigma_prime(None), r"a must be", id="sigma-prime-none", on="models.erf_network.sigma_prime"),
    C(lambda: E.toy_model("x", 1.0, 1.0), r"x must be", id="toy-model-x", on="models.erf_network.toy_model"),
    C(lambda: E.toy_model(1.0, None, 1.0), r"u must be", id="toy-model-u", on="models.erf_network.toy_model"),
    C(lambda: E.toy_data(None), r"rng must be a numpy.random.Generator", id="toy-data-rng-none", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(RS), r"rng must be a numpy.random.Generator", id="toy-data-rng-legacy", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), n=0), r"n must be an integer in \[1, 1000000\]", id="toy-data-n", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), n=2.5), r"n must be an integer", id="toy-data-n-float", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), noise_sd=-1), r"noise_sd must be a finite number > 0", id="toy-data-sd", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), noise_sd=np.nan), r"noise_sd", id="toy-data-sd-nan", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), u_true="a"), r"u_true", id="toy-data-u-str", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), v_true=np.inf), r"v_true", id="toy-data-v-inf", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), x_range=(2, -2)), r"x_range must satisfy low < high", id="toy-data-range", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), x_range=(0,)), r"x_range must be", id="toy-data-range-len", on="models.erf_network.toy_data"),
    C(lambda: E.toy_data(np.random.default_rng(0), x_range="ab"), r"x_range must be", id="toy-data-range-str", on="models.erf_network.toy_data"),
    # --- the toy posterior (models/toy.py, models/posterior.py)
    C(lambda: E.make_posterior(**E.PAPER_PRESET).bounds(np.zeros((2, 3)), np.zeros((2, 2, 2))),
      r"means must have shape \(n, 2\)", id="toy-bounds-means-shape", on="models.toy.ToyPosterior.bounds"),
    C(lambda: E.make_posterior(**E.PAPER_PRESET).bounds(np.zeros((2, 2)), np.zeros((2, 4))),
      r"covs must have shape \(n, 2, 2\)", id="toy-bounds-covs-shape", on="models.toy.ToyPosterior.bounds"),
    C(lambda: E.make_posterior(**E.PAPER_PRESET).bounds(np.zeros((2, 2)), [np.eye(2)]),
      r"means and covs must hold as many Gaussians", id="toy-bounds-count", on="models.toy.ToyPosterior.bounds"),
    C(lambda: E.make_posterior(**E.PAPER_PRESET).bounds("ab", [np.eye(2)]), r"means must be",
      id="toy-bounds-means-str", on="models.toy.ToyPosterior.bounds"),
    C(lambda: E.ToyPosterior("abc", [1.0], 1, 1), r"x must be", id="toy-x-str", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior(None, [1.0], 1, 1), r"x must be", id="toy-x-none", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([[1.0, 2.0]], [1.0], 1, 1), r"x must be a 1-D array", id="toy-x-2d", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([[1.0], [1.0, 2.0]], [1.0], 1, 1), r"x must be", id="toy-x-ragged", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([np.nan], [1.0], 1, 1), r"x must contain only finite", id="toy-x-nan", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1j], [1.0], 1, 1), r"x must be .*real", id="toy-x-complex", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([True], [1.0], 1, 1), r"x must be .*real", id="toy-x-bool", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0, 2.0], [1.0], 1, 1), r"x and t must have the same length", id="toy-len", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], ["t"], 1, 1), r"t must be", id="toy-t-str", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior(toy().x, toy().t * HUGE, 1, 1), r"t is too large", id="toy-t-overflow", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior(toy().x * HUGE, toy().t, 1, 1), r"x is too large", id="toy-x-overflow", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], -1, 1), r"alpha must be a finite number > 0", id="toy-alpha-neg", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 0, 1), r"alpha must be a finite number > 0", id="toy-alpha-0", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1e-300, 1), r"alpha must be in \[1e-08, 1e\+08\]", id="toy-alpha-tiny", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1e300, 1), r"alpha must be in \[1e-08, 1e\+08\]", id="toy-alpha-huge", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], "1", 1), r"alpha must be a finite number", id="toy-alpha-str", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], None, 1), r"alpha must be a finite number", id="toy-alpha-none", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], True, 1), r"alpha must be a finite number", id="toy-alpha-bool", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1 + 0j, 1), r"alpha must be a finite number", id="toy-alpha-complex", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], np.nan, 1), r"alpha must be a finite number", id="toy-alpha-nan", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], [1.0, 2.0], 1), r"alpha must be a finite number", id="toy-alpha-list", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 0), r"beta must be a finite number > 0", id="toy-beta-0", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, np.inf), r"beta must be a finite number > 0", id="toy-beta-inf", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 1e-300), r"beta must be in \[1e-08, 1e\+08\]", id="toy-beta-tiny", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 1e12), r"beta must be in \[1e-08, 1e\+08\]", id="toy-beta-huge", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 1, n_quad=0), r"n_quad must be an integer in \[16, 1000\]", id="toy-nquad-0", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 1, n_quad=5000), r"n_quad must be an integer in \[16, 1000\]", id="toy-nquad-big", on="models.toy.ToyPosterior"),
    C(lambda: E.ToyPosterior([1.0], [1.0], 1, 1, n_quad=96.0), r"n_quad must be an integer", id="toy-nquad-float", on="models.toy.ToyPosterior"),
    C(lambda: toy().grid(extent=(np.nan, 1, -1, 1)), r"extent must be four finite numbers", id="grid-extent-nan", on="models.toy.ToyPosterior.grid"),
    C(lambda: toy().grid(extent=(1, -1, -1, 1)), r"extent must be four finite numbers .*x0 < x1", id="grid-extent-order", on="models.toy.ToyPosterior.grid"),
    C(lambda: toy().grid(extent=(0, 1, 2)), r"extent must be four finite numbers", id="grid-extent-len", on="models.toy.ToyPosterior.grid"),
    C(lambda: toy().grid(extent="abcd"), r"extent must be", id="grid-extent-str", on="models.toy.ToyPosterior.grid"),
    C(lambda: toy().grid(n=2), r"n must be an integer in \[3, 2001\]", id="grid-n", on="models.toy.ToyPosterior.grid"),
    C(lambda: toy().extent(coverage=0), r"coverage must be a finite number > 0", id="extent-coverage-0", on="models.toy.ToyPosterior.extent"),
    C(lambda: toy().extent(coverage=np.nan), r"coverage must be a finite number", id="extent-coverage-nan", on="models.toy.ToyPosterior.extent"),
    C(lambda: toy().extent(coverage=1.5), r"coverage must be in \(0, 1\]", id="extent-coverage-big", on="models.toy.ToyPosterior.extent"),
    C(lambda: toy().with_hyperparameters(alpha=-1), r"alpha must be a finite number > 0", id="with-alpha", on="models.posterior.RegressionPosterior.with_hyperparameters"),
    C(lambda: E.ToyPosterior(toy().x, toy().t * 1e10, 0.2, 100.0), r"beta \* sum\(t\*\*2\) must be at most 1e\+11", id="toy-t-1e10", on="models.toy.ToyPosterior"),
    C(lambda: toy().with_hyperparameters(beta=1e8 * (1 + 1e-9)), r"beta must be in \[1e-08, 1e\+08\]", id="toy-with-beta", on="models.toy.ToyPosterior.with_hyperparameters"),
    C(lambda: E.ToyPosterior(toy().x, toy().t * 1e4, 0.2, 1.0).with_hyperparameters(beta=1e4), r"beta \* sum\(t\*\*2\) must be at most", id="toy-with-beta-t", on="models.toy.ToyPosterior.with_hyperparameters"),
    C(lambda: toy().with_hyperparameters(beta=1e300), r"beta must be in \[1e-08, 1e\+08\]", id="with-beta", on="models.posterior.RegressionPosterior.with_hyperparameters"),
    C(lambda: toy().bound([0.0], C2), r"mean must have shape \(2,\)", id="bound-mean", on="models.posterior.RegressionPosterior.bound"),
    C(lambda: toy().bound(M2, NOT_PD), r"cov must be positive definite", id="bound-cov", on="models.posterior.RegressionPosterior.bound"),
    C(lambda: toy().kl("ab", C2), r"mean must be", id="kl-mean-str", on="models.posterior.RegressionPosterior.kl"),
    C(lambda: toy().kl(M2, None), r"cov must be", id="kl-cov-none", on="models.posterior.RegressionPosterior.kl"),
    C(lambda: toy().log_unnorm([1.0, 2.0, 3.0]), r"w must have last dimension 2", id="log-unnorm-w", on="models.posterior.RegressionPosterior.log_unnorm"),
    C(lambda: toy().grad("ab"), r"w must be", id="grad-w-str", on="models.posterior.RegressionPosterior.grad"),
    C(lambda: toy().hessian(np.zeros((3, 2))), r"w must have last dimension 2: shape \(2,\)", id="hessian-w-2d", on="models.posterior.RegressionPosterior.hessian"),
    C(lambda: toy().expected_energy([0.0], C2), r"mean must have shape \(2,\)", id="energy-mean", on="models.posterior.RegressionPosterior.expected_energy"),
    C(lambda: E.make_posterior(seed=-1), r"seed must be an integer >= 0", id="make-seed", on="models.toy.make_posterior"),
    C(lambda: E.make_posterior(seed="0"), r"seed must be an integer", id="make-seed-str", on="models.toy.make_posterior"),
    C(lambda: E.make_posterior(alpha=0), r"alpha must be a finite number > 0", id="make-alpha", on="models.toy.make_posterior"),
    C(lambda: E.make_posterior(noise_sd=0), r"noise_sd must be a finite number > 0", id="make-sd", on="models.toy.make_posterior"),
    C(lambda: E.make_posterior(n=0), r"n must be an integer", id="make-n", on="models.toy.make_posterior"),
    # --- linear and network models
    C(lambda: E.LinearGaussianPosterior("abc", [1.0], 1, 1), r"Phi must be", id="lin-phi-str", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.LinearGaussianPosterior([1.0, 2.0], [1.0], 1, 1), r"Phi must be a 2-D array", id="lin-phi-1d", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.LinearGaussianPosterior([[1.0]], [1.0, 2.0], 1, 1), r"t must have length N = 1", id="lin-t-len", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.LinearGaussianPosterior([[HUGE]], [1.0], 1, 1), r"Phi is too large", id="lin-phi-overflow", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.LinearGaussianPosterior([[1.0]], [1.0], 1, -2), r"beta must be a finite number > 0", id="lin-beta", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.NetworkPosterior([1.0, 2.0], [1.0, 2.0], 1, 1, 1), r"X must be a 2-D array", id="net-X-1d", on="models.network.NetworkPosterior"),
    C(lambda: E.NetworkPosterior(*net_data(), 0, 1, 1), r"n_hidden must be an integer", id="net-H-0", on="models.network.NetworkPosterior"),
    C(lambda: E.NetworkPosterior(*net_data(), 2, np.nan, 1), r"alpha must be a finite number", id="net-alpha-nan", on="models.network.NetworkPosterior"),
    C(lambda: E.NetworkPosterior(*net_data(), 2, 1, 1, n_quad=2), r"n_quad must be an integer in \[4, 1000\]", id="net-nquad", on="models.network.NetworkPosterior"),
    C(lambda: E.NetworkPosterior(net_data()[0], "t", 2, 1, 1), r"t must be", id="net-t-str", on="models.network.NetworkPosterior"),
    C(lambda: E.NetworkPosterior(net_data()[0], net_data()[1] * HUGE, 2, 1, 1), r"t is too large", id="net-t-overflow", on="models.network.NetworkPosterior"),
    C(lambda: E.add_bias("a"), r"X must be", id="add-bias-str", on="models.network_function.add_bias"),
    C(lambda: E.add_bias([1.0, 2.0]), r"X must be a 2-D array", id="add-bias-1d", on="models.network_function.add_bias"),
    C(lambda: E.pack_weights(np.ones((2, 2)), [1.0]), r"U must have shape \(H, d\) and v shape \(H,\)", id="pack-shape", on="models.network_function.pack_weights"),
    C(lambda: E.pack_weights("ab", [1.0]), r"U must be", id="pack-str", on="models.network_function.pack_weights"),
    C(lambda: E.unpack_weights(W(), 0), r"n_hidden must be an integer", id="unpack-H", on="models.network_function.unpack_weights"),
    C(lambda: E.unpack_weights(W()[:5], 2), r"w must have last dimension", id="unpack-w", on="models.network_function.unpack_weights"),
    C(lambda: E.unpack_weights("abc", 2), r"w must be", id="unpack-w-str", on="models.network_function.unpack_weights"),
    C(lambda: E.network_output(W()[:4], net_data()[0], 2), r"w must have last dimension k", id="netout-w", on="models.network_function.network_output"),
    C(lambda: E.network_output(W(), net_data()[0], "2"), r"n_hidden must be an integer", id="netout-H-str", on="models.network_function.network_output"),
    C(lambda: E.network_output(W(), net_data()[0][:, :1] * np.nan, 1), r"X must contain only finite", id="netout-X-nan", on="models.network_function.network_output"),
    C(lambda: E.network_jacobian(np.ones((2, 6)), net_data()[0], 2), r"w must be a single weight vector", id="netjac-w", on="models.network_function.network_jacobian"),
    C(lambda: E.expected_data_error(W(), -NC(), *net_data(), 2), r"cov must be positive definite", id="ned-cov", on="models.network_moments.expected_data_error"),
    C(lambda: E.expected_data_error(W(), NC(), *net_data(), 2, n_quad=1), r"n_quad must be an integer", id="ned-nquad", on="models.network_moments.expected_data_error"),
    C(lambda: E.output_moments(W(), NC(), [[np.inf, 1.0]], 2), r"X must contain only finite", id="moments-X", on="models.network_moments.output_moments"),
    C(lambda: E.predictive_mean(W(), NC()[:3], net_data()[0], 2), r"cov must have shape \(6, 6\)", id="predmean-cov", on="models.network_moments.predictive_mean"),
    C(lambda: E.predictive_variance(W(), NC(), net_data()[0], 2, beta=-1), r"beta must be a finite number > 0", id="predvar-beta", on="models.network_moments.predictive_variance"),
    # --- MacKay's Gaussian (models/mackay_gaussian.py)
    C(lambda: E.gaussian_log_likelihood("ab", 0.0, 1.0), r"x must be", id="gll-x", on="models.mackay_gaussian.gaussian_log_likelihood"),
    C(lambda: E.gaussian_log_likelihood([1.0], np.nan, 1.0), r"mu must be finite", id="gll-mu", on="models.mackay_gaussian.gaussian_log_likelihood"),
    C(lambda: E.gaussian_log_likelihood([1.0], 0.0, 0.0), r"sigma must be finite and > 0", id="gll-sigma", on="models.mackay_gaussian.gaussian_log_likelihood"),
    C(lambda: E.gaussian_log_likelihood([1.0], "a", 1.0), r"mu must be", id="gll-mu-str", on="models.mackay_gaussian.gaussian_log_likelihood"),
    C(lambda: E.MacKayGaussian(1, 0.0, 1.0), r"N must be an integer >= 2", id="mg-N-1", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian(2.5, 0.0, 1.0), r"N must be an integer", id="mg-N-float", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian(5, np.nan, 1.0), r"xbar must be a finite number", id="mg-xbar", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian(5, 0.0, -1.0), r"S must be a finite number > 0", id="mg-S", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian(5, 0.0, "1"), r"S must be a finite number > 0", id="mg-S-str", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian.from_data([1.0, 1.0]), r"x must not have all points equal", id="mg-from-equal", on="models.mackay_gaussian.MacKayGaussian.from_data"),
    C(lambda: E.MacKayGaussian.from_data("ab"), r"x must be", id="mg-from-str", on="models.mackay_gaussian.MacKayGaussian.from_data"),
    C(lambda: E.MACKAY_FIG1.conditional_mu(0.0), r"sigma must be a finite number > 0", id="mg-cond", on="models.mackay_gaussian.MacKayGaussian.conditional_mu"),
    C(lambda: E.MACKAY_FIG1.posterior_grid(n_mu=2), r"n_mu must be an integer in \[3, 5001\]", id="mg-grid-n", on="models.mackay_gaussian.MacKayGaussian.posterior_grid"),
    C(lambda: E.MACKAY_FIG1.posterior_grid(mu_lim=(1.0, 0.0)), r"mu_lim must be two finite numbers", id="mg-grid-lim", on="models.mackay_gaussian.MacKayGaussian.posterior_grid"),
    C(lambda: E.MACKAY_FIG1.free_energy(np.nan, 1.0, 1.0, 1.0), r"m must be finite", id="mg-fe-m", on="models.mackay_gaussian.MacKayGaussian.free_energy"),
    C(lambda: E.MACKAY_FIG1.free_energy(0.0, 1.0, -1.0, 1.0), r"b must be a finite number > 0", id="mg-fe-b", on="models.mackay_gaussian.MacKayGaussian.free_energy"),
    C(lambda: E.MACKAY_FIG1.ensemble_iterations(-1.0, 5), r"beta0 must be a finite number > 0", id="mg-ens-beta0", on="models.mackay_gaussian.MacKayGaussian.ensemble_iterations"),
    C(lambda: E.MACKAY_FIG1.ensemble_iterations(1.0, -1), r"n_iter must be an integer", id="mg-ens-niter", on="models.mackay_gaussian.MacKayGaussian.ensemble_iterations"),
    C(lambda: E.MACKAY_FIG1.conjugate_iterations(1.0, 5, mu0=np.nan), r"mu0 must be finite", id="mg-conj-mu0", on="models.mackay_gaussian.MacKayGaussian.conjugate_iterations"),
    C(lambda: E.MACKAY_FIG1.default_limits(mass=0.7), r"mass must be in \(0, 0.5\]", id="mg-mass", on="models.mackay_gaussian.MacKayGaussian.default_limits"),
    C(lambda: E.MACKAY_FIG1.update_mu(-1.0), r"beta_bar must be a finite number > 0", id="mg-update-mu", on="models.mackay_gaussian.MacKayGaussian.update_mu"),
    C(lambda: E.MACKAY_FIG1.update_sigma(0.0, 0.0), r"sigma_mu2 must be a finite number > 0", id="mg-update-sigma", on="models.mackay_gaussian.MacKayGaussian.update_sigma"),
    # --- Laplace and KL fits
    C(lambda: E.laplace_fit(None), r"post must be a posterior", id="laplace-post", on="inference.laplace.laplace_fit"),
    C(lambda: E.laplace_fit(toy(), start="ab"), r"start must be", id="laplace-start-str", on="inference.laplace.laplace_fit"),
    C(lambda: E.laplace_fit(toy(), start=[0.0, 1.0, 2.0]), r"start must have shape \(2,\)", id="laplace-start-shape", on="inference.laplace.laplace_fit"),
    C(lambda: E.laplace_fit(toy(), quadrant=(1,)), r"quadrant must be a pair of signs", id="laplace-quadrant", on="inference.laplace.laplace_fit"),
    C(lambda: E.laplace_fit(toy(), compute_kl="yes"), r"compute_kl must be True or False", id="laplace-compute-kl", on="inference.laplace.laplace_fit"),
    C(lambda: E.kl_fit(toy(), "bogus"), r"family must be one of", id="kl-family", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), None), r"family must be one of", id="kl-family-none", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "factor", rank=2), r"rank must be an integer in \[0, 1\]", id="kl-rank", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", gtol=-1), r"gtol must be a finite number > 0", id="kl-gtol-neg", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", gtol=np.nan), r"gtol must be a finite number > 0", id="kl-gtol-nan", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", gtol="1e-6"), r"gtol must be a finite number > 0", id="kl-gtol-str", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", gtol=-1, maxiter=0), r"gtol must be a finite number > 0", id="kl-gtol-maxiter", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", maxiter=0), r"maxiter must be an integer in \[1, 100000\]", id="kl-maxiter-0", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", maxiter=1.5), r"maxiter must be an integer", id="kl-maxiter-float", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", maxcor=0), r"maxcor must be an integer in \[1, 1000\]", id="kl-maxcor-0", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(None, "full"), r"post must be a posterior", id="kl-post-none", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", init="abc"), r"init must be a list of \(mean, cov\) pairs", id="kl-init-str", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", init=[]), r"init must hold at least one", id="kl-init-empty", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", init=[(M2, np.eye(3))]), r"init\[0\] cov must have shape \(2, 2\)", id="kl-init-shape", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", init=[(M2,)]), r"init\[0\] must be a \(mean, cov\) pair", id="kl-init-pair", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", symmetric="yes"), r"symmetric must be True or False", id="kl-symmetric", on="inference.kl_fit.kl_fit"),
    C(lambda: E.kl_fit(toy(), "full", callback=5), r"callback must be callable", id="kl-callback", on="inference.kl_fit.kl_fit"),
    C(lambda: E.fit_all(toy(), rank=2), r"rank must be an integer in \[0, 1\]", id="fit-all-rank", on="inference.toy_fits.fit_all"),
    C(lambda: E.fit_all(toy(), rank="1"), r"rank must be an integer", id="fit-all-rank-str", on="inference.toy_fits.fit_all"),
    C(lambda: E.fit_all(lin()), r"post must be a ToyPosterior", id="fit-all-post", on="inference.toy_fits.fit_all"),
    # --- hyperparameters and evidence
    C(lambda: E.GammaHyperprior(a=-1), r"a must be a finite number > 0", id="gamma-a", on="inference.hyperparameters.GammaHyperprior"),
    C(lambda: E.GammaHyperprior(b=np.nan), r"b must be a finite number > 0", id="gamma-b", on="inference.hyperparameters.GammaHyperprior"),
    C(lambda: E.GammaHyperprior(c="x"), r"c must be a finite number > 0", id="gamma-c", on="inference.hyperparameters.GammaHyperprior"),
    C(lambda: E.GammaHyperprior(d=True), r"d must be a finite number > 0", id="gamma-d", on="inference.hyperparameters.GammaHyperprior"),
    C(lambda: E.fit_hyperparameters(toy(), prior="x"), r"prior must be a GammaHyperprior", id="fh-prior", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(toy(), family="bogus"), r"family must be one of", id="fh-family", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(toy(), rank=5), r"rank must be", id="fh-rank", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(toy(), tol=0), r"tol must be a finite number > 0", id="fh-tol", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(toy(), max_iter=0), r"max_iter must be an integer", id="fh-maxiter", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(None), r"post must be a posterior", id="fh-post", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.fit_hyperparameters(toy(), init=("ab", C2)), r"init mean must be", id="fh-init", on="inference.hyperparameters.fit_hyperparameters"),
    C(lambda: E.gamma_updates(toy(), [0.0], C2, BP), r"mean must have shape \(2,\)", id="gu-mean", on="inference.hyperparameters.gamma_updates"),
    C(lambda: E.gamma_updates(toy(), M2, C2, "x"), r"prior must be a GammaHyperprior", id="gu-prior", on="inference.hyperparameters.gamma_updates"),
    C(lambda: E.full_bound(toy(), M2, C2, "R", "S", BP), r"R must be a GammaPosterior", id="fb-R", on="inference.hyperparameters.full_bound"),
    C(lambda: E.evidence_reestimation(toy(), alpha0=-1), r"alpha0 must be a finite number > 0", id="ev-alpha0", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), beta0=np.nan), r"beta0 must be a finite number > 0", id="ev-beta0", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), tol=0), r"tol must be a finite number > 0", id="ev-tol", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), max_iter=0), r"max_iter must be an integer", id="ev-maxiter", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), symmetry_factor=0), r"symmetry_factor must be an integer", id="ev-sym", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), limits=(1.0, 0.1)), r"limits must be a pair", id="ev-limits", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), limits=(1e-300, 1e300)), r"limits must lie within \[1e-08, 1e\+08\]", id="ev-limits-wide", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), start=[1.0]), r"start must have shape \(2,\)", id="ev-start", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(toy(), exact="no"), r"exact must be True or False", id="ev-exact", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.evidence_reestimation(None), r"post must be a posterior", id="ev-post", on="inference.evidence.evidence_reestimation"),
    C(lambda: E.cheap_reestimation(None), r"post must be a posterior", id="cheap-post", on="inference.evidence.cheap_reestimation"),
    C(lambda: E.cheap_reestimation(lin(), alpha0=0.0), r"alpha0 must be a finite number > 0", id="cheap-alpha0", on="inference.evidence.cheap_reestimation"),
    C(lambda: E.cheap_reestimation(lin(), limits=(1e-300, 1e300)), r"limits must lie within", id="cheap-limits", on="inference.evidence.cheap_reestimation"),
    C(lambda: E.evidence_grid(toy(), [0.0, 1.0], [0.0, 1.0, 2.0]), r"log_alpha must have at least 3", id="eg-short", on="inference.evidence.evidence_grid"),
    C(lambda: E.evidence_grid(toy(), [0.0, 2.0, 1.0], [0.0, 1.0, 2.0]), r"log_alpha must be strictly increasing", id="eg-order", on="inference.evidence.evidence_grid"),
    C(lambda: E.evidence_grid(toy(), [0.0, 1.0, 2.0], [0.0, np.nan, 2.0]), r"log_beta must contain only finite", id="eg-nan", on="inference.evidence.evidence_grid"),
    C(lambda: E.evidence_grid(toy(), [0.0, 1.0, 50.0], [0.0, 1.0, 2.0]), r"log_alpha must lie within", id="eg-range", on="inference.evidence.evidence_grid"),
    C(lambda: E.evidence_grid(toy(), [0.0, 1.0, 2.0], [0.0, 1.0, 2.0], refine=None), r"refine must be True or False", id="eg-refine", on="inference.evidence.evidence_grid"),
    C(lambda: E.laplace_evidence(toy(), symmetry_factor=0), r"symmetry_factor must be an integer", id="le-sym", on="inference.evidence.laplace_evidence"),
    C(lambda: E.laplace_evidence(toy(), start="ab"), r"start must be", id="le-start", on="inference.evidence.laplace_evidence"),
    # --- network fits
    C(lambda: E.CollapsedBound(net(), "x"), r"prior must be a GammaHyperprior", id="cb-prior", on="inference.network_fits.CollapsedBound"),
    C(lambda: E.CollapsedBound(None, BP), r"post must be a posterior", id="cb-post", on="inference.network_fits.CollapsedBound"),
    C(lambda: E.fit_ensemble(net(), family="bogus"), r"family must be one of", id="fe-family", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(net(), gtol=-1), r"gtol must be a finite number > 0", id="fe-gtol", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(net(), maxiter=0), r"maxiter must be an integer", id="fe-maxiter", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(net(), maxcor=2.5), r"maxcor must be an integer", id="fe-maxcor", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(net(), prior="x"), r"prior must be a GammaHyperprior", id="fe-prior", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(None), r"post must be a posterior", id="fe-post", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_ensemble(net(), rank=99, family="factor"), r"rank must be an integer", id="fe-rank", on="inference.network_fits.fit_ensemble"),
    C(lambda: E.fit_family(None), r"target must be a posterior", id="ff-target", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), family="bogus"), r"family must be one of", id="ff-family", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), gtol=0), r"gtol must be a finite number > 0", id="ff-gtol", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), maxiter=0), r"maxiter must be an integer", id="ff-maxiter", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), maxcor=0), r"maxcor must be an integer", id="ff-maxcor", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), callback="cb"), r"callback must be callable", id="ff-callback", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_family(lin(), init=[(M2, NOT_PD)]), r"init\[0\] cov must be positive definite", id="ff-init", on="inference.network_fits.fit_family"),
    C(lambda: E.fit_evidence(net(), None), r"rng must be a numpy.random.Generator", id="fev-rng", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(net(), RS), r"rng must be a numpy.random.Generator", id="fev-rng-legacy", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(net(), np.random.default_rng(0), n_restarts=0), r"n_restarts must be an integer in \[1, 100\]", id="fev-restarts", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(net(), np.random.default_rng(0), alpha0=0), r"alpha0 must be a finite number > 0", id="fev-alpha0", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(net(), np.random.default_rng(0), tol=-1), r"tol must be a finite number > 0", id="fev-tol", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(net(), np.random.default_rng(0), max_iter=0), r"max_iter must be an integer", id="fev-maxiter", on="inference.network_fits.fit_evidence"),
    C(lambda: E.fit_evidence(None, np.random.default_rng(0)), r"post must be a posterior", id="fev-post", on="inference.network_fits.fit_evidence"),
    C(lambda: E.laplace_error_bars(net(), W(), NC(), -1, net_data()[0]), r"beta must be a finite number > 0", id="leb-beta", on="inference.network_fits.laplace_error_bars"),
    C(lambda: E.laplace_error_bars(net(), W(), -NC(), 1, net_data()[0]), r"hessian must be positive definite", id="leb-hess", on="inference.network_fits.laplace_error_bars"),
    C(lambda: E.laplace_error_bars(net(), W(), NC(), 1, [1.0, 2.0]), r"X must be a 2-D array", id="leb-X", on="inference.network_fits.laplace_error_bars"),
    # --- SVI (inference/svi.py)
    C(lambda: E.svi_fit(toy(), rng=None), r"rng must be a numpy.random.Generator", id="svi-rng", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=RS), r"rng must be a numpy.random.Generator", id="svi-rng-legacy", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), "bogus", rng=np.random.default_rng(0)), r"family must be one of", id="svi-family", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), n_samples=0), r"n_samples must be an integer", id="svi-nsamples", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), step_size=0), r"step_size must be a finite number > 0", id="svi-step-0", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), step_size=2.0), r"step_size must be in \(0, 1\]", id="svi-step-big", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), schedule="x"), r"schedule must be one of", id="svi-schedule", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), n_iter=0), r"n_iter must be an integer", id="svi-niter", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), tau=-1), r"tau must be a finite number > 0", id="svi-tau", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), kappa=0.3), r"kappa must be in \(0.5, 1\]", id="svi-kappa", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), kl_every=0), r"kl_every must be an integer", id="svi-klevery", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), init=(M2, NOT_PD)), r"cov must be positive definite", id="svi-init", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(toy(), rng=np.random.default_rng(0), init="ab"), r"init must be a \(mean, cov\) pair", id="svi-init-str", on="inference.svi.svi_fit"),
    C(lambda: E.svi_fit(None, rng=np.random.default_rng(0)), r"post must be a posterior", id="svi-post", on="inference.svi.svi_fit"),
    C(lambda: svi_history().tail_kl(fraction=0), r"fraction must be a finite number > 0", id="svi-tail", on="inference.svi.SVIHistory.tail_kl"),
    C(lambda: E.reparam_gradient(toy(), "full", np.zeros(5), np.zeros((1, 2))), r"fam must be a CovarianceFamily", id="rg-fam", on="inference.svi.reparam_gradient"),
    C(lambda: E.reparam_gradient(toy(), FULL, np.zeros(3), np.zeros((1, 2))), r"theta must have shape \(5,\)", id="rg-theta", on="inference.svi.reparam_gradient"),
    C(lambda: E.reparam_gradient(toy(), FULL, np.zeros(5), np.zeros((1, 3))), r"eps must have shape \(S, 2\)", id="rg-eps", on="inference.svi.reparam_gradient"),
    C(lambda: E.reparam_gradient(toy(), FULL, np.zeros(5), "ab"), r"eps must be", id="rg-eps-str", on="inference.svi.reparam_gradient"),
    C(lambda: svi_draws.reparam_gradient_draws(toy(), FULL, np.zeros(5), np.zeros((4, 2))), r"eps must have shape \(n, S, k\)", id="rgd-eps-2d", on="inference.svi_draws.reparam_gradient_draws"),
    C(lambda: svi_draws.reparam_gradient_draws(toy(), FULL, np.zeros(5), np.zeros((0, 1, 2))), r"eps must have shape \(n, S, k\)", id="rgd-eps-empty", on="inference.svi_draws.reparam_gradient_draws"),
    C(lambda: svi_draws.reparam_gradient_draws(toy(), FULL, np.zeros(5), np.zeros((4, 1, 3))), r"eps must have shape \(S, 2\)", id="rgd-eps-k", on="inference.svi_draws.reparam_gradient_draws"),
    C(lambda: svi_draws.reparam_gradient_draws(toy(), "full", np.zeros(5), np.zeros((4, 1, 2))), r"fam must be a CovarianceFamily", id="rgd-fam", on="inference.svi_draws.reparam_gradient_draws"),
    C(lambda: svi_draws.reparam_gradient_draws(toy(), FULL, np.zeros(5), np.full((4, 1, 2), np.nan)), r"eps must contain only finite values", id="rgd-eps-nan", on="inference.svi_draws.reparam_gradient_draws"),
    C(lambda: svi.step_sizes(0.1, "decaying", 10, tau=np.inf), r"tau must be a finite number > 0", id="svi-steps-tau", on="inference.svi.step_sizes"),
    # --- pruning and the family search
    C(lambda: pruning.unit_usage(W(), NC(), net_data()[0], 2, threshold=2.0), r"threshold must lie in \(0, 1\)", id="prune-threshold", on="inference.pruning.unit_usage"),
    C(lambda: pruning.unit_usage(W()[:4], NC(), net_data()[0], 2), r"mean must have length", id="prune-mean", on="inference.pruning.unit_usage"),
    C(lambda: family_search.fit_families(lin(), BP, [("a", M2, C2)], family_search.families(), rng=None),
      r"rng must be a numpy.random.Generator", id="fs-rng", on="inference.family_search.fit_families"),
    C(lambda: family_search.fit_families(lin(), BP, [], family_search.families(), rng=np.random.default_rng(0)),
      r"starts must hold at least one", id="fs-starts", on="inference.family_search.fit_families"),
    C(lambda: family_search.families(ranks=(0,)), r"ranks must be", id="fs-ranks", on="inference.family_search.families"),
    C(lambda: family_search.families(ranks="1"), r"ranks must be", id="fs-ranks-str", on="inference.family_search.families"),
    # --- studies: data sets and Table 1
    C(lambda: datasets.train_test_split_standardised([1.0, 2.0, 3.0], [1, 2, 3], 2, np.random.default_rng(0)),
      r"X must be a 2-D array", id="split-X-1d", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(split()[0], split()[1][:5], 10, np.random.default_rng(0)),
      r"y must have length N = 20", id="split-y-len", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(*split(), 1, np.random.default_rng(0)),
      r"n_train must be an integer in \[2, 19\]", id="split-ntrain-1", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(*split(), 20, np.random.default_rng(0)),
      r"n_train must be an integer in \[2, 19\]", id="split-ntrain-N", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(*split(), 10, None), r"rng must be a numpy.random.Generator", id="split-rng", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(*split(), 10, 0), r"rng must be a numpy.random.Generator", id="split-rng-int", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(split()[0] * HUGE, split()[1], 10, np.random.default_rng(0)),
      r"X is too large", id="split-X-overflow", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(split()[0], split()[1] * HUGE, 10, np.random.default_rng(0)),
      r"y is too large", id="split-y-overflow", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.train_test_split_standardised(split()[0], ["a"] * 20, 10, np.random.default_rng(0)),
      r"y must be", id="split-y-str", on="studies.datasets.train_test_split_standardised"),
    C(lambda: datasets.load_boston(path="/nonexistent/boston.csv"), r"path must name an existing file", id="boston-path", on="studies.datasets.load_boston"),
    C(lambda: datasets.load_boston(path=5), r"path must be", id="boston-path-int", on="studies.datasets.load_boston"),
    C(lambda: table1.TableConfig(n_train=1), r"n_train must be an integer >= 2", id="cfg-ntrain", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(gtol=-1), r"gtol must be a finite number > 0", id="cfg-gtol", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(maxiter=0), r"maxiter must be an integer", id="cfg-maxiter", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(maxcor=1001), r"maxcor must be an integer", id="cfg-maxcor", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(n_restarts=0), r"n_restarts must be an integer in \[1, 100\]", id="cfg-restarts", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(prior="x"), r"prior must be a GammaHyperprior", id="cfg-prior", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(ranks=(0,)), r"ranks must be an integer", id="cfg-ranks", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(ranks=1), r"ranks must be", id="cfg-ranks-int", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(full="yes"), r"full must be True or False", id="cfg-full", on="studies.table1.TableConfig"),
    C(lambda: table1.TableConfig(seed=-1), r"seed must be an integer >= 0", id="cfg-seed", on="studies.table1.TableConfig"),
    C(lambda: table1.load_dataset("x"), r"dataset must be one of", id="t1-dataset", on="studies.table1.load_dataset"),
    C(lambda: table1.load_dataset(None), r"dataset must be one of", id="t1-dataset-none", on="studies.table1.load_dataset"),
    C(lambda: table1.load_table("x"), r"name must be one of", id="t1-load-table", on="studies.table1.load_table"),
    C(lambda: table1.make_split(*split(), "cfg"), r"config must be a TableConfig", id="t1-split-config", on="studies.table1.make_split"),
    C(lambda: table1.make_split(*split(), table1.TableConfig(n_train=10), index=-1), r"index must be an integer", id="t1-split-index", on="studies.table1.make_split"),
    C(lambda: table1.run_tables(config=table1.TableConfig(), n_jobs=0), r"n_jobs must be an integer", id="t1-njobs", on="studies.table1.run_tables"),
    C(lambda: table1.mean_se("abc"), r"values must be", id="t1-mean-se", on="studies.table1.mean_se"),
    C(lambda: table1.mean_se([1.0, "a"]), r"values must be", id="t1-mean-se-entry", on="studies.table1.mean_se"),
    C(lambda: table1.paired_difference(_result(), "a", "zz"), r"method must be one of", id="t1-paired", on="studies.table1.paired_difference"),
    C(lambda: table1.summarise("abc"), r"splits must be", id="t1-summarise", on="studies.table1.summarise"),
    # --- plot helpers (ui/plotting.py)
    C(lambda: plotting.plot_posterior_contours(_ax(), _tiny_grid(np.full((5, 5), np.nan))), r"grid.log_density must contain", id="plot-contours-nan", on="ui.plotting.plot_posterior_contours"),
    C(lambda: plotting.plot_posterior_contours(_ax(), "grid"), r"grid must be a PosteriorGrid", id="plot-contours-grid", on="ui.plotting.plot_posterior_contours"),
    C(lambda: plotting.plot_posterior_contours(_ax(), toy().grid(n=5), levels=0), r"levels must be an integer", id="plot-contours-levels", on="ui.plotting.plot_posterior_contours"),
    C(lambda: plotting.plot_gaussian_ellipses(_ax(), [np.nan, 0.0], C2), r"mean must be finite", id="plot-ell-mean", on="ui.plotting.plot_gaussian_ellipses"),
    C(lambda: plotting.plot_gaussian_ellipses(_ax(), M2, NOT_PD), r"cov must be positive definite", id="plot-ell-cov", on="ui.plotting.plot_gaussian_ellipses"),
    C(lambda: plotting.plot_gaussian_ellipses(_ax(), M2, C2, n_sigmas=(1, -2)), r"n_sigmas must be", id="plot-ell-nsig", on="ui.plotting.plot_gaussian_ellipses"),
    C(lambda: plotting.update_gaussian_ellipses([], [np.inf, 0.0], C2), r"mean must be finite", id="plot-upd-mean", on="ui.plotting.update_gaussian_ellipses"),
    C(lambda: plotting.annotate_kl(_ax(), {"full": np.nan}), r"values\['full'\] must be a finite real number", id="plot-kl-nan", on="ui.plotting.annotate_kl"),
    C(lambda: plotting.annotate_kl(_ax(), "abc"), r"values must be a dict", id="plot-kl-dict", on="ui.plotting.annotate_kl"),
    C(lambda: plotting.new_figure(-1, 2), r"width must be a finite number > 0", id="plot-fig-width", on="ui.plotting.new_figure"),
    C(lambda: plotting.new_figure(2, np.nan), r"height must be a finite number > 0", id="plot-fig-height", on="ui.plotting.new_figure"),
    # --- lessons' public helpers
    C(lambda: bound.gaussian_from_sliders(0.0, 0.0, 0.1, 0.1, 1.0), r"rho must be in \(-1, 1\)", id="gfs-rho", on="lessons.bound.gaussian_from_sliders"),
    C(lambda: bound.gaussian_from_sliders(0.0, 0.0, 0.1, 0.1, "x"), r"rho must be", id="gfs-rho-str", on="lessons.bound.gaussian_from_sliders"),
    C(lambda: bound.gaussian_from_sliders(0.0, 0.0, 0.1, 0.1, None), r"rho must be", id="gfs-rho-none", on="lessons.bound.gaussian_from_sliders"),
    C(lambda: bound.gaussian_from_sliders("a", 0.0, 0.1, 0.1, 0.0), r"mean_u", id="gfs-mean-str", on="lessons.bound.gaussian_from_sliders"),
    C(lambda: bound.gaussian_from_sliders(0.0, 0.0, 0.0, 0.1, 0.0), r"sd_u must be a finite number > 0", id="gfs-sd", on="lessons.bound.gaussian_from_sliders"),
    C(lambda: bound.sliders_from_gaussian(M2, NOT_PD), r"cov must be positive definite", id="sfg-cov", on="lessons.bound.sliders_from_gaussian"),
    C(lambda: bound.bound_decomposition(toy(), [0.0], C2), r"mean must have shape \(2,\)", id="bd-mean", on="lessons.bound.bound_decomposition"),
    C(lambda: bound.bound_decomposition(None, M2, C2), r"post must be a posterior", id="bd-post", on="lessons.bound.bound_decomposition"),
    C(lambda: bound.make_toy(alpha=-1), r"alpha must be a finite number > 0", id="make-toy-alpha", on="lessons.bound.make_toy"),
    C(lambda: bound.compare_hyperparameters(n_grid=2), r"n_grid must be an integer in \[3, 200\]", id="ch-ngrid", on="lessons.bound.compare_hyperparameters"),
    C(lambda: bound.compare_hyperparameters(log_alpha_range=(np.nan, 1.0)), r"log_alpha_range must be", id="ch-range", on="lessons.bound.compare_hyperparameters"),
    C(lambda: bound.compare_hyperparameters(prior="x"), r"prior must be a GammaHyperprior", id="ch-prior", on="lessons.bound.compare_hyperparameters"),
    C(lambda: bound.compare_hyperparameters(grid=np.zeros((3, 3))), r"grid must be None or an EvidenceGrid", id="ch-grid", on="lessons.bound.compare_hyperparameters"),
    C(lambda: networks.demo_data(n=2), r"n must be an integer in \[4, 1000\]", id="demo-n", on="lessons.networks.demo_data"),
    C(lambda: networks.demo_data(seed=-1), r"seed must be an integer >= 0", id="demo-seed", on="lessons.networks.demo_data"),
    C(lambda: networks.demo_fit([0.0, 1.0], [0.0, 1.0], 2, 1, 1.0, True, rng=None), r"rng must be a numpy.random.Generator",
      id="demo-fit-rng", on="lessons.networks.demo_fit"),
    C(lambda: networks.demo_fit([0.0, 1.0], [0.0, 1.0], 2, 1, -1.0, True, rng=np.random.default_rng(0)),
      r"alpha must be a finite number > 0", id="demo-fit-alpha", on="lessons.networks.demo_fit"),
    C(lambda: networks.demo_fit([0.0, 1.0], [0.0, 1.0], 2, 1, 1.0, "yes", rng=np.random.default_rng(0)),
      r"adapt must be True or False", id="demo-fit-adapt", on="lessons.networks.demo_fit"),
    C(lambda: stochastic_vi.running_mean([1.0, 2.0], fraction=0), r"fraction must be a finite number > 0", id="rm-fraction", on="lessons.stochastic_vi.running_mean"),
    C(lambda: stochastic_vi.running_mean("ab"), r"y must be", id="rm-y", on="lessons.stochastic_vi.running_mean"),
    C(lambda: stochastic_vi.first_within(svi_history(), 0.0, tol=0), r"tol must be a finite number > 0", id="fw-tol", on="lessons.stochastic_vi.first_within"),
    C(lambda: stochastic_vi.first_within(svi_history(), np.nan, tol=0.1), r"kl_opt must be a finite real number", id="fw-klopt", on="lessons.stochastic_vi.first_within"),
    C(lambda: stochastic_vi.run_comparison(rng=None), r"rng must be a numpy.random.Generator", id="rc-rng", on="lessons.stochastic_vi.run_comparison"),
    C(lambda: stochastic_vi.exact_fit(toy(), family="bogus"), r"family must be one of", id="ef-family", on="lessons.stochastic_vi.exact_fit"),
    C(lambda: toy_posterior.kl_table(seeds=[0], alphas=(-1.0,)), r"alphas must", id="kl-table-alphas", on="lessons.toy_posterior.kl_table"),
    C(lambda: toy_posterior.kl_table(seeds=[-1], alphas=(1.0,)), r"seed", id="kl-table-seeds", on="lessons.toy_posterior.kl_table"),
    C(lambda: toy_posterior.load_kl_table("no-such-table.csv"), r"path must name an existing file",
      id="kl-table-load-missing", on="lessons.toy_posterior.load_kl_table"),
    C(lambda: toy_posterior.load_kl_table(3), r"path must be a str or pathlib.Path", id="kl-table-load-type", on="lessons.toy_posterior.load_kl_table"),
    C(lambda: toy_posterior.load_kl_table(Path(__file__)), r"path must be a KL table", id="kl-table-load-other", on="lessons.toy_posterior.load_kl_table"),
    C(lambda: toy_posterior.fig2_figure(preset={"seed": 0, "alpha": "x"}), r"alpha must be a finite number", id="fig2-preset", on="lessons.toy_posterior.fig2_figure"),
    # --- a mixture of Gaussians as Q (inference/mixture.py, lessons/mixture/)
    C(lambda: mixture.mixture_ladder(toy(), K_max=0), r"K_max must be an integer in \[1, 8\]", id="mix-kmax-0", on="inference.mixture_ladder.mixture_ladder"),
    C(lambda: mixture.MixtureParams(0, 2), r"K must be an integer in \[1, 8\]", id="mix-K-0", on="inference.mixture_entropy.MixtureParams"),
    C(lambda: mixture.mixture_fit(toy(), ([0.7, 0.7], np.zeros((2, 2)), [C2, C2])), r"weights must lie on the simplex", id="mix-weights-sum", on="inference.mixture_fit.mixture_fit"),
    C(lambda: mixture.mixture_fit(toy(), ([1.2, -0.2], np.zeros((2, 2)), [C2, C2])), r"weights must lie on the simplex", id="mix-weights-neg", on="inference.mixture_fit.mixture_fit"),
    C(lambda: mixture.mixture_fit(toy(), ([1.0], [M2], [NOT_PD])), r"covs\[0\] must be positive definite", id="mix-cov", on="inference.mixture_fit.mixture_fit"),
    C(lambda: mixture.mixture_fit(toy(), ([1.0], [M2], [C2]), entropy="exact"), r"entropy must be one of", id="mix-entropy", on="inference.mixture_fit.mixture_fit"),
    C(lambda: mixture.mixture_fit(net(), ([1.0], [M2], [C2])), r"post must be a 2-parameter posterior", id="mix-post-dim", on="inference.mixture_fit.mixture_fit"),
    C(lambda: mixture.mixture_entropy([1.0], [M2], [C2], spacing=0.0), r"spacing must be a finite number > 0", id="mix-spacing", on="inference.mixture_entropy.mixture_entropy"),
    C(lambda: mixture_lesson.fit_mixtures(lin()), r"post must be a ToyPosterior", id="mix-lesson-post", on="lessons.mixture.fit_mixtures"),
    C(lambda: mixture_lesson.mixtures_for(alpha=-1.0), r"alpha must be a finite number > 0", id="mix-lesson-alpha", on="lessons.mixture.mixtures_for"),
    C(lambda: mean_sigma.plot_fig1a(_ax(), n=2), r"n must be an integer", id="fig1a-n", on="lessons.mean_sigma.plot_fig1a"),
    C(lambda: mean_sigma.plot_fig1a(_ax(), mu_lim=(np.nan, 1.0)), r"mu_lim must be two finite numbers", id="fig1a-lim", on="lessons.mean_sigma.plot_fig1a"),
    C(lambda: mean_sigma.plot_fig1b(_ax(), sigma_lim=(1.0, -1.0)), r"sigma_lim must be", id="fig1b-lim", on="lessons.mean_sigma.plot_fig1b"),
    C(lambda: mean_sigma.iterations_figure(beta0=-1.0), r"beta0 must be a finite number > 0", id="iter-fig-beta0", on="lessons.mean_sigma.iterations_figure"),
    # weight classes and model comparison (issue 16)
    C(lambda: E.class_evidence_reestimation(toy(), [[0, 1], []]), r"classes\[1\] is empty", id="ard-empty", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.class_evidence_reestimation(toy(), [[0, 1], [1]]), r"classes overlap", id="ard-overlap", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.class_evidence_reestimation(toy(), [[0], [2]]), r"classes\[1\] has index 2 out of range \[0, 1\]", id="ard-range", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.class_evidence_reestimation(toy(), [[0]]), r"classes must cover every weight", id="ard-cover", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.class_evidence_reestimation(toy(), None), r"classes must be a sequence", id="ard-none", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.class_evidence_reestimation(toy(), [[0], [1]], alpha0=[1.0, -1.0]), r"alpha0\[1\] must be a finite number > 0", id="ard-alpha0", on="inference.class_evidence.class_evidence_reestimation"),
    C(lambda: E.ClassPriorPosterior(toy(), [[0], [1]], [1.0, 1e-300]), r"alphas\[1\] must be in \[1e-08, 1e\+08\]", id="ard-alphas", on="inference.class_prior.ClassPriorPosterior"),
    C(lambda: E.ClassPriorPosterior(toy(), [[0], [1]], [1.0, 1.0, 1.0]), r"alphas must be a number or have one entry per class", id="ard-alphas-len", on="inference.class_prior.ClassPriorPosterior"),
    C(lambda: E.ClassCollapsedBound(net(), [[0]]), r"classes must cover every weight", id="ard-bound-cover", on="inference.class_ensemble.ClassCollapsedBound"),
    C(lambda: E.network_classes(3, 2, kind="all"), r"kind must be one of", id="ard-kind", on="inference.class_prior.network_classes"),
    C(lambda: E.sample_prior_functions(net_data()[0], 1, [[0, 1, 2]], 1.0, 0, np.random.default_rng(0)), r"n_samples must be an integer", id="prior-n", on="inference.class_prior.sample_prior_functions"),
    C(lambda: E.sample_prior_functions(net_data()[0], 1, [[0, 1, 2]], 1.0, 5, 0), r"rng must be a numpy.random.Generator", id="prior-rng", on="inference.class_prior.sample_prior_functions"),
    C(lambda: E.model_log_evidence(None), r"run must be an evidence run", id="mev-run", on="inference.model_evidence.model_log_evidence"),
    C(lambda: E.model_log_evidence(E.evidence_reestimation(lin()), log_alpha_width=0.0), r"log_alpha_width must be a finite number > 0", id="mev-width", on="inference.model_evidence.model_log_evidence"),
    C(lambda: E.deletion_evidence([1.0, 2.0], np.eye(2), 1.0, [5]), r"indices must be distinct integers in \[0, 1\]", id="del-index", on="inference.deletion_evidence.deletion_evidence"),
    C(lambda: E.deletion_evidence([1.0, 2.0], NOT_PD, 1.0, [0]), r"cov must be positive definite", id="del-cov", on="inference.deletion_evidence.deletion_evidence"),
    C(lambda: E.committee([[0.0]], [[1.0]], [np.nan]), r"log_evidences must contain only finite values", id="com-logev", on="inference.committee.committee"),
    C(lambda: E.exact_log_evidence(lin(), None), r"prior must be a GammaHyperprior", id="exact-prior", on="inference.model_evidence.exact_log_evidence"),
    C(lambda: E.log_alpha_posterior(toy()), r"post must be a LinearGaussianPosterior", id="lap-post", on="inference.model_evidence.log_alpha_posterior"),
    C(lambda: E.log_alpha_posterior(lin(), log_alpha_range=(1.0, -1.0)), r"log_alpha_range must satisfy", id="lap-range", on="inference.model_evidence.log_alpha_posterior"),
    C(lambda: E.log_alpha_posterior(lin(), log_alpha_range="ab"), r"log_alpha_range must be a pair", id="lap-range-str", on="inference.model_evidence.log_alpha_posterior"),
    C(lambda: E.log_alpha_posterior(lin(), n_grid=5), r"n_grid must be an integer", id="lap-ngrid", on="inference.model_evidence.log_alpha_posterior"),
    # --- issue 31: every public callable of core, models and inference has a case (masked arrays,
    # NaN/inf in arrays, derived quantities that overflow, wrong types, out-of-range indices)
    C(lambda: FULL.lower([0.0, 1.0]), r"theta must have shape \(5,\)", id="fam-lower-shape", on="core.gaussian.CovarianceFamily.lower"),
    C(lambda: FULL.chain(np.zeros(5), [np.nan, 0.0], C2), r"g_mean must contain only finite", id="fam-chain-gmean", on="core.gaussian.CovarianceFamily.chain"),
    C(lambda: FULL.chain(np.zeros(5), M2, np.ones((3, 3))), r"g_mean must have shape \(2,\) and g_cov shape \(2, 2\)", id="fam-chain-gcov", on="core.gaussian.CovarianceFamily.chain"),
    C(lambda: E.GaussianFactor(C2, "C").quad([np.inf, 0.0]), r"b must contain only finite", id="factor-quad-inf", on="core.gaussian.GaussianFactor.quad"),
    C(lambda: E.GaussianFactor(C2, "C").whiten(np.ma.masked_array([1.0, 2.0], [0, 1])), r"b must not have masked entries", id="factor-whiten-masked", on="core.gaussian.GaussianFactor.whiten"),
    C(lambda: E.GaussianFactor(C2, "C").trace_solve(np.ones((2, 3))), r"B must have shape \(2, 2\)", id="factor-trace-shape", on="core.gaussian.GaussianFactor.trace_solve"),
    C(lambda: E.kl_gaussians(M2, np.eye(2) * 1e308, M2, C2), r"overflows for these arguments \(m0, C0, m1, C1\)", id="klg-cov-overflow", on="core.gaussian.kl_gaussians"),
    C(lambda: E.kl_gaussians(np.full(2, 1e308), C2, -np.full(2, 1e308), C2), r"m1 - m0 overflows", id="klg-mean-overflow", on="core.gaussian.kl_gaussians"),
    C(lambda: report(3, 1, 2), r"progress must be callable or None", id="report-progress", on="core.progress.report"),
    C(lambda: report(print, -1, 2), r"done must be an integer", id="report-done", on="core.progress.report"),
    C(lambda: check.callback("f", 3), r"f must be callable or None", id="check-callback", on="core.validation.callback"),
    C(lambda: check.choice("how", "c", ("a", "b")), r"how must be one of \('a', 'b'\)", id="check-choice", on="core.validation.choice"),
    C(lambda: check.extent("box", (0, 1, 1, 0)), r"box must be four finite numbers", id="check-extent", on="core.validation.extent"),
    C(lambda: check.finite_matrix("X", np.ma.masked_array(np.ones((2, 2)), [[0, 1], [0, 0]])), r"X must not have masked entries", id="check-matrix-masked", on="core.validation.finite_matrix"),
    C(lambda: check.finite_vector("x", [1.0, np.nan]), r"x must contain only finite", id="check-vector-nan", on="core.validation.finite_vector"),
    C(lambda: check.finite_vector("x", np.array([1, "a"], dtype=object)), r"x must be an array of real numbers, got objects", id="check-vector-object", on="core.validation.finite_vector"),
    C(lambda: check.finite_array("x", [[1.0, np.inf]]), r"x must contain only finite", id="check-array-inf", on="core.validation.finite_array"),
    C(lambda: check.flag("f", 1), r"f must be True or False", id="check-flag", on="core.validation.flag"),
    C(lambda: check.gaussians("starts", [], 2), r"starts must hold at least one", id="check-gaussians", on="core.validation.gaussians"),
    C(lambda: check.generator("rng", 0), r"rng must be a numpy.random.Generator", id="check-generator", on="core.validation.generator"),
    C(lambda: check.integer("n", np.ma.masked, low=0), r"n must be an integer", id="check-integer-masked", on="core.validation.integer"),
    C(lambda: check.interval("lim", (1.0, np.nan)), r"lim must be two finite numbers", id="check-interval", on="core.validation.interval"),
    C(lambda: check.mean_cov(M2, [[1.0, np.nan], [np.nan, 1.0]], 2), r"cov must be finite", id="check-mean-cov", on="core.validation.mean_cov"),
    C(lambda: check.mean_cov_shapes(M2, np.eye(3), 2), r"mean must have shape \(2,\) and cov \(2, 2\)", id="check-mean-cov-shapes", on="core.validation.mean_cov_shapes"),
    C(lambda: check.positive("sd", 0.0), r"sd must be a finite number > 0", id="check-positive", on="core.validation.positive"),
    C(lambda: check.posterior("post", object()), r"post must be a posterior", id="check-posterior", on="core.validation.posterior"),
    C(lambda: check.precision("beta", 1e9), r"beta must be in \[1e-08, 1e\+08\]", id="check-precision", on="core.validation.precision"),
    C(lambda: check.ranks("ranks", [1, 0]), r"ranks must be an integer >= 1", id="check-ranks", on="core.validation.ranks"),
    C(lambda: check.real("a", np.ma.masked), r"a must be a finite real number", id="check-real-masked", on="core.validation.real"),
    C(lambda: check.real_array("x", ["1.0", "a"]), r"x must be an array of real numbers, got strings", id="check-real-array-str", on="core.validation.real_array"),
    C(lambda: check.sequence("xs", 3), r"xs must be a sequence", id="check-sequence", on="core.validation.sequence"),
    C(lambda: check.noise_sd("noise_sd", 1e-200), r"noise_sd must be in \[0.0001, 10000\]", id="check-noise-sd", on="core.validation.noise_sd"),
    C(lambda: check.finite_result(np.array([1.0, np.inf]), "a, b"), r"overflows for these arguments \(a, b\)", id="check-finite-result", on="core.validation.finite_result"),
    # models
    C(lambda: E.make_posterior(noise_sd=1e-200), r"noise_sd must be in \[0.0001, 10000\]", id="make-sd-tiny", on="models.toy.make_posterior"),
    C(lambda: E.make_posterior(noise_sd=1e200), r"noise_sd must be in \[0.0001, 10000\]", id="make-sd-huge", on="models.toy.make_posterior"),
    C(lambda: E.ToyPosterior(np.ma.masked_array([1.0, 2.0], [0, 1]), [1.0, 2.0], 1, 1), r"x must not have masked entries", id="toy-x-masked", on="models.toy.ToyPosterior"),
    C(lambda: toy().data_error([np.nan, 0.0]), r"w must contain only finite", id="toy-ed-nan", on="models.toy.ToyPosterior.data_error"),
    C(lambda: toy().data_error_grad([0.0, 1.0, 2.0]), r"w must have last dimension 2", id="toy-ed-grad", on="models.toy.ToyPosterior.data_error_grad"),
    C(lambda: toy().data_error_hessian("ab"), r"w must be", id="toy-ed-hess", on="models.toy.ToyPosterior.data_error_hessian"),
    C(lambda: toy().expected_data_error(M2, [[1.0, 0.0], [0.0, np.inf]]), r"mean and cov must contain only finite", id="toy-eed-cov", on="models.toy.ToyPosterior.expected_data_error"),
    C(lambda: toy().log_marginal_u([0.0, np.nan]), r"u must contain only finite", id="toy-marg-u", on="models.toy.ToyPosterior.log_marginal_u"),
    C(lambda: E.models.toy.kl_by_quadrature(toy(), M2, C2, n=2), r"n must be an integer", id="klq-n", on="models.toy.kl_by_quadrature"),
    C(lambda: E.models.toy.kl_by_quadrature(toy(), [np.nan, 0.0], C2), r"mean must", id="klq-mean", on="models.toy.kl_by_quadrature"),
    C(lambda: lin().data_error([[np.inf, 0.0]]), r"w must contain only finite", id="lin-ed", on="models.linear.LinearGaussianPosterior.data_error"),
    C(lambda: lin().data_error_grad([0.0]), r"w must have last dimension 2", id="lin-ed-grad", on="models.linear.LinearGaussianPosterior.data_error_grad"),
    C(lambda: lin().data_error_hessian(None), r"w must be", id="lin-ed-hess", on="models.linear.LinearGaussianPosterior.data_error_hessian"),
    C(lambda: lin().expected_data_error([np.nan, 0.0], C2), r"mean and cov must contain only finite", id="lin-eed", on="models.linear.LinearGaussianPosterior.expected_data_error"),
    C(lambda: E.LinearGaussianPosterior(np.ma.masked_array([[1.0], [2.0]], [[0], [1]]), [1.0, 2.0], 1, 1), r"Phi must not have masked entries", id="lin-phi-masked", on="models.linear.LinearGaussianPosterior"),
    C(lambda: E.RegressionPosterior(1.0, 1.0), r"RegressionPosterior is abstract", id="regpost-abstract", on="models.posterior.RegressionPosterior"),
    C(lambda: E.RegressionPosterior.data_error(toy(), [np.nan, 0.0]), r"w must contain only finite", id="regpost-ed", on="models.posterior.RegressionPosterior.data_error"),
    C(lambda: E.RegressionPosterior.data_error_grad(toy(), "w"), r"w must be", id="regpost-ed-grad", on="models.posterior.RegressionPosterior.data_error_grad"),
    C(lambda: E.RegressionPosterior.data_error_hessian(toy(), [1.0]), r"w must have last dimension 2", id="regpost-ed-hess", on="models.posterior.RegressionPosterior.data_error_hessian"),
    C(lambda: E.RegressionPosterior.expected_data_error(toy(), M2, None), r"cov must be", id="regpost-eed", on="models.posterior.RegressionPosterior.expected_data_error"),
    C(lambda: net().data_error(W()[:5]), r"w must have last dimension", id="net-ed", on="models.network.NetworkPosterior.data_error"),
    C(lambda: net().data_error_grad(np.full(6, np.nan)), r"w must contain only finite", id="net-ed-grad", on="models.network.NetworkPosterior.data_error_grad"),
    C(lambda: net().data_error_hessian("w"), r"w must be", id="net-ed-hess", on="models.network.NetworkPosterior.data_error_hessian"),
    C(lambda: net().expected_data_error(W(), NC() * np.nan), r"mean and cov must contain only finite", id="net-eed", on="models.network.NetworkPosterior.expected_data_error"),
    C(lambda: net().output([np.inf] * 6), r"w must contain only finite", id="net-output", on="models.network.NetworkPosterior.output"),
    C(lambda: net().predictive_mean(W(), NC(), [[np.nan, 1.0]]), r"X must contain only finite", id="net-pm", on="models.network.NetworkPosterior.predictive_mean"),
    C(lambda: net().predictive_variance(W(), NC(), net_data()[0], beta=0.0), r"beta must be a finite number > 0", id="net-pv", on="models.network.NetworkPosterior.predictive_variance"),
    C(lambda: E.models.network.n_weights(0, 2), r"n_inputs must be an integer >= 1", id="n-weights", on="models.network_function.n_weights"),
    C(lambda: E.models.network.n_weights(2, "2"), r"n_hidden must be an integer", id="n-weights-H", on="models.network_function.n_weights"),
    C(lambda: E.MacKayGaussian(5, 1e300, 1.0), r"xbar must be in \[-1e\+150, 1e\+150\]", id="mg-xbar-huge", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MacKayGaussian(5, 0.0, 1e-320), r"S must be in \[1e-300, 1e\+300\]", id="mg-S-tiny", on="models.mackay_gaussian.MacKayGaussian"),
    C(lambda: E.MACKAY_FIG1.kl(0.0, -1.0, 1.0, 1.0), r"sigma_mu2 must be a finite number > 0", id="mg-kl", on="models.mackay_gaussian.MacKayGaussian.kl"),
    C(lambda: E.MACKAY_FIG1.log_evidence_sigma([1.0, np.nan]), r"sigma must be finite and > 0", id="mg-ev-sigma", on="models.mackay_gaussian.MacKayGaussian.log_evidence_sigma"),
    C(lambda: E.MACKAY_FIG1.log_likelihood(np.ma.masked_array([0.0, 1.0], [0, 1]), 1.0), r"mu must not have masked entries", id="mg-ll-masked", on="models.mackay_gaussian.MacKayGaussian.log_likelihood"),
    C(lambda: E.MACKAY_FIG1.log_marginal_sigma(-1.0), r"sigma must be finite and > 0", id="mg-marg-sigma", on="models.mackay_gaussian.MacKayGaussian.log_marginal_sigma"),
    C(lambda: E.MACKAY_FIG1.log_posterior([np.inf], 1.0), r"mu must be finite", id="mg-logpost", on="models.mackay_gaussian.MacKayGaussian.log_posterior"),
    C(lambda: E.MACKAY_FIG1.q_log_density(None, 0.0, 1.0), r"it must be an EnsembleIterate", id="mg-qlog", on="models.mackay_gaussian.MacKayGaussian.q_log_density"),
    # --- issue 31, second pass: the rest of inference/ (ARD classes, the family search, HMC, mixtures,
    # subset posteriors, SVI's pieces)
    C(lambda: class_post().data_error([np.nan, 0.0]), r"w must contain only finite", id="cpp-ed", on="inference.class_prior.ClassPriorPosterior.data_error"),
    C(lambda: class_post().data_error_grad([0.0]), r"w must have last dimension 2", id="cpp-ed-grad", on="inference.class_prior.ClassPriorPosterior.data_error_grad"),
    C(lambda: class_post().data_error_hessian("ab"), r"w must be", id="cpp-ed-hess", on="inference.class_prior.ClassPriorPosterior.data_error_hessian"),
    C(lambda: class_post().expected_data_error(M2, [[1.0, 0.0], [0.0, np.inf]]), r"mean and cov must contain only finite", id="cpp-eed", on="inference.class_prior.ClassPriorPosterior.expected_data_error"),
    C(lambda: class_post().expected_energy([0.0], C2), r"mean must have shape \(2,\)", id="cpp-energy", on="inference.class_prior.ClassPriorPosterior.expected_energy"),
    C(lambda: class_post().grad([0.0, np.inf]), r"w must contain only finite", id="cpp-grad", on="inference.class_prior.ClassPriorPosterior.grad"),
    C(lambda: class_post().hessian(np.zeros((3, 2))), r"w must have last dimension 2: shape \(2,\)", id="cpp-hess", on="inference.class_prior.ClassPriorPosterior.hessian"),
    C(lambda: class_post().log_unnorm(np.ma.masked_array([0.0, 1.0], [0, 1])), r"w must not have masked entries", id="cpp-logu", on="inference.class_prior.ClassPriorPosterior.log_unnorm"),
    C(lambda: class_post().with_hyperparameters(alpha=[1.0, -1.0]), r"alphas\[1\] must be a finite number > 0", id="cpp-with", on="inference.class_prior.ClassPriorPosterior.with_hyperparameters"),
    C(lambda: E.fit_class_ensemble(net(), [[0]]), r"classes must cover every weight", id="fce-cover", on="inference.class_ensemble.fit_class_ensemble"),
    C(lambda: E.fit_class_ensemble(net(), E.network_classes(2, 2), family="bogus"), r"family must be one of", id="fce-family", on="inference.class_ensemble.fit_class_ensemble"),
    C(lambda: ard.fit_class_evidence(net(), E.network_classes(2, 2), None), r"rng must be a numpy.random.Generator", id="fcev-rng", on="inference.class_evidence.fit_class_evidence"),
    C(lambda: ard.fit_class_evidence(net(), [[0]], np.random.default_rng(0)), r"classes must cover every weight", id="fcev-cover", on="inference.class_evidence.fit_class_evidence"),
    C(lambda: E.linear_class_evidence(toy(), [[0], [1]]), r"post must be a linear model", id="lce-post", on="inference.class_evidence.linear_class_evidence"),
    C(lambda: E.linear_class_evidence(lin(), [[0], [1]], alpha0=[1.0, np.nan]), r"alpha0 must contain only finite", id="lce-alpha0", on="inference.class_evidence.linear_class_evidence"),
    C(lambda: family_search.Family("ensemble_full", "full").richness(0), r"k must be an integer >= 1", id="fam-richness", on="inference.family_search.Family.richness"),
    C(lambda: family_search.Family("ensemble_full", "full").richness("2"), r"k must be an integer", id="fam-richness-str", on="inference.family_search.Family.richness"),
    C(lambda: family_search.FamilySearch({}, {}, [], 0).bound("ensemble_full"), r"key must be one of", id="fsearch-bound", on="inference.family_search.FamilySearch.bound"),
    C(lambda: family_search.laplace_starts("ab", C2), r"mean must be", id="lstarts-mean-str", on="inference.family_search.laplace_starts"),
    C(lambda: family_search.laplace_starts([0.0, np.nan], C2), r"mean must contain only finite", id="lstarts-mean-nan", on="inference.family_search.laplace_starts"),
    C(lambda: family_search.laplace_starts(M2, NOT_PD), r"hessian must be positive definite", id="lstarts-hess", on="inference.family_search.laplace_starts"),
    C(lambda: family_search.laplace_starts([0.0], C2), r"mean must have shape \(k,\) and hessian \(k, k\)", id="lstarts-shape", on="inference.family_search.laplace_starts"),
    C(lambda: function_prior.prior_output_sd([np.nan], 1.0, 1.0, 1.0), r"x must be finite", id="pos-x", on="inference.function_prior.prior_output_sd"),
    C(lambda: function_prior.prior_output_sd([1.0], 0.0, 1.0, 1.0), r"sd_in must be a finite number > 0", id="pos-sd-in", on="inference.function_prior.prior_output_sd"),
    C(lambda: function_prior.prior_output_sd("ab", 1.0, 1.0, 1.0), r"x must be", id="pos-x-str", on="inference.function_prior.prior_output_sd"),
    C(lambda: hmc_result().outputs(toy().x, chain=2), r"chain must be an integer in \[0, 1\]", id="hmc-outputs-chain", on="inference.hmc.HMCResult.outputs"),
    C(lambda: hmc_result().outputs([[1.0, np.nan]]), r"X must", id="hmc-outputs-X", on="inference.hmc.HMCResult.outputs"),
    C(lambda: hmc_result().predictive(toy().x, chain=-1), r"chain must be an integer in \[0, 1\]", id="hmc-pred-chain", on="inference.hmc.HMCResult.predictive"),
    C(lambda: hmc_result().predictive("ab"), r"X must be", id="hmc-pred-X", on="inference.hmc.HMCResult.predictive"),
    C(lambda: hmc.SamplerSettings(num_warmup=0), r"num_warmup must be an integer >= 1", id="hmc-settings-warmup", on="inference.hmc.SamplerSettings"),
    C(lambda: hmc.SamplerSettings(target_accept_prob=1.0), r"target_accept_prob must lie in \(0, 1\)", id="hmc-settings-p", on="inference.hmc.SamplerSettings"),
    C(lambda: hmc.sample_toy(lin(), seed=0), r"post must be a ToyPosterior", id="hmc-toy-post", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=-1, num_samples=4, num_warmup=1), r"seed must be an integer in \[0, 4294967295\]", id="hmc-toy-seed", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=0, num_chains=0), r"num_chains must be an integer", id="hmc-toy-chains", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=0, step_size=0.0), r"step_size must be a finite number > 0, got 0", id="hmc-toy-step-zero", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=0, step_size=-0.1), r"step_size must be a finite number > 0", id="hmc-toy-step-negative", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=0, step_size=0.1, num_steps=2.5), r"num_steps must be an integer", id="hmc-toy-num-steps", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_toy(toy(), seed=0, num_samples=100.5), r"num_samples must be an integer >= 4, got 100.5", id="hmc-toy-draws-float", on="inference.hmc.sample_toy"),
    C(lambda: hmc.sample_network(*net_data(), 1, seed=0, num_chains=0), r"num_chains must be an integer in \[1, 64\], got 0", id="hmc-net-chains-zero", on="inference.hmc.sample_network"),
    C(lambda: monte_carlo.leapfrog(toy(), [0.1, 1.0], [1.0, 0.0], 0.0, 10), r"eps must be a finite number > 0", id="mc-leapfrog-eps", on="lessons.monte_carlo.leapfrog"),
    C(lambda: monte_carlo.leapfrog(toy(), [0.1, 1.0], [1.0, 0.0], 0.01, 2.5), r"n_steps must be an integer", id="mc-leapfrog-steps", on="lessons.monte_carlo.leapfrog"),
    C(lambda: monte_carlo.running_estimate(np.ones((0, 10))), r"f_chains must", id="mc-running-no-chains", on="lessons.monte_carlo.running_estimate"),
    C(lambda: monte_carlo.exact_predictive_mean(lin()), r"post must be a ToyPosterior", id="mc-exact-post", on="lessons.monte_carlo.exact_predictive_mean"),
    C(lambda: monte_carlo.gaussian_predictive_mean([0.0, 1.0], [[0.0, 0.0], [0.0, 1.0]]), r"cov\[0, 0\] > 0", id="mc-gauss-cov", on="lessons.monte_carlo.gaussian_predictive_mean"),
    C(lambda: monte_carlo.draws_needed(0.1, 0.0), r"target must be a finite number > 0", id="mc-draws-target", on="lessons.monte_carlo.draws_needed"),
    C(lambda: hmc.sample_linear(toy(), seed=0), r"post must be a LinearGaussianPosterior", id="hmc-lin-post", on="inference.hmc.sample_linear"),
    C(lambda: hmc.sample_linear(lin(), seed="0"), r"seed must be an integer", id="hmc-lin-seed", on="inference.hmc.sample_linear"),
    C(lambda: hmc.sample_network([1.0, 2.0], [1.0, 2.0], 1, seed=0), r"X must be a 2-D array", id="hmc-net-X", on="inference.hmc.sample_network"),
    C(lambda: hmc.sample_network(*net_data(), 0, seed=0), r"n_hidden must be an integer", id="hmc-net-H", on="inference.hmc.sample_network"),
    C(lambda: hmc.sample_network(*net_data(), 1, prior="x", seed=0), r"prior must be a GammaHyperprior", id="hmc-net-prior", on="inference.hmc.sample_network"),
    C(lambda: GammaPosterior(2.0, 1.0).expected_log_density(-1.0, 1.0), r"shape must be a finite number > 0", id="gpost-shape", on="inference.hyperparameters.GammaPosterior.expected_log_density"),
    C(lambda: GammaPosterior(2.0, 1.0).expected_log_density(1.0, "x"), r"scale must be a finite number > 0", id="gpost-scale", on="inference.hyperparameters.GammaPosterior.expected_log_density"),
    C(lambda: kl_fit.kl_objective(toy(), FULL, np.zeros(3)), r"theta must have shape \(5,\)", id="klobj-theta", on="inference.kl_fit.kl_objective"),
    C(lambda: kl_fit.kl_objective(toy(), "full", np.zeros(5)), r"fam must be a CovarianceFamily", id="klobj-fam", on="inference.kl_fit.kl_objective"),
    C(lambda: kl_fit.kl_objective(None, FULL, np.zeros(5)), r"post must be a posterior", id="klobj-post", on="inference.kl_fit.kl_objective"),
    C(lambda: kl_fit.kl_objective(net(), FULL, np.zeros(5)), r"fam must be a CovarianceFamily of dimension 6", id="klobj-dim", on="inference.kl_fit.kl_objective"),
    C(lambda: E.LaplaceFit(M2, C2, NOT_PD, 0.0, 0.0, 0.0, 1), r"hessian must be positive definite", id="lfit-hess", on="inference.laplace.LaplaceFit"),
    C(lambda: MIX.chain_weights([0.5, 0.5], [1.0]), r"g_pi must have shape \(2,\)", id="mixp-chain", on="inference.mixture_entropy.MixtureParams.chain_weights"),
    C(lambda: MIX.components(np.zeros(3)), r"theta must have shape \(11,\)", id="mixp-components", on="inference.mixture_entropy.MixtureParams.components"),
    C(lambda: MIX.lowers("ab"), r"theta must be", id="mixp-lowers", on="inference.mixture_entropy.MixtureParams.lowers"),
    C(lambda: MIX.pack([0.5, 0.5], [M2], [C2]), r"means must", id="mixp-pack", on="inference.mixture_entropy.MixtureParams.pack"),
    C(lambda: MIX.pack([0.7, 0.7], [M2, M2], [C2, C2]), r"weights must lie on the simplex", id="mixp-pack-w", on="inference.mixture_entropy.MixtureParams.pack"),
    C(lambda: MIX.unpack(np.zeros(12)), r"theta must have shape \(11,\)", id="mixp-unpack", on="inference.mixture_entropy.MixtureParams.unpack"),
    C(lambda: MIX.weights(None), r"theta must be", id="mixp-weights", on="inference.mixture_entropy.MixtureParams.weights"),
    C(lambda: mixture.check_mixture([1.0], [M2], [NOT_SYM]), r"covs\[0\] must be symmetric", id="mix-check", on="inference.mixture_entropy.check_mixture"),
    C(lambda: mixture.check_mixture([1.0], [M2], [C2], dim=3), r"means must", id="mix-check-dim", on="inference.mixture_entropy.check_mixture"),
    C(lambda: mixture.embed(None), r"fit must be a MixtureFit", id="mix-embed", on="inference.mixture_ladder.embed"),
    C(lambda: mixture.entropy_lower_bound([1.0], [[np.nan, 0.0]], [C2]), r"means must", id="mix-elb", on="inference.mixture_entropy.entropy_lower_bound"),
    C(lambda: mixture.iter_mixture_ladder(toy(), K_max=9), r"K_max must be an integer in \[1, 8\]", id="mix-iter-kmax", on="inference.mixture_ladder.iter_mixture_ladder"),
    C(lambda: mixture.mirror_overlap(M2, NOT_PD), r"cov must be positive definite", id="mix-mirror", on="inference.mixture_fit.mirror_overlap"),
    C(lambda: mixture.mirror_overlap("ab", C2), r"mean must be", id="mix-mirror-str", on="inference.mixture_fit.mirror_overlap"),
    C(lambda: mixture.mixture_kl(toy(), [1.0], [M2], [NOT_PD]), r"covs\[0\] must be positive definite", id="mix-kl", on="inference.mixture_fit.mixture_kl"),
    C(lambda: mixture.mixture_objective(toy(), MIX, np.zeros(3)), r"theta must have shape \(11,\)", id="mix-obj-theta", on="inference.mixture_fit.mixture_objective"),
    C(lambda: mixture.mixture_objective(toy(), "K=2", np.zeros(11)), r"params must be a MixtureParams", id="mix-obj-params", on="inference.mixture_fit.mixture_objective"),
    C(lambda: mixture.starts_from(None, toy_fit()), r"previous must be a MixtureFit", id="mix-starts-prev", on="inference.mixture_ladder.starts_from"),
    C(lambda: mixture.starts_from(mixture_fit_1(), None), r"single must be a KLFit", id="mix-starts-single", on="inference.mixture_ladder.starts_from"),
    C(lambda: model_comparison.SubsetPosterior(lin(), [2]), r"keep must be distinct integer indices in \[0, 1\]", id="sub-keep", on="inference.deletion_evidence.SubsetPosterior"),
    C(lambda: model_comparison.SubsetPosterior(lin(), [0.5]), r"keep must be distinct integer", id="sub-keep-float", on="inference.deletion_evidence.SubsetPosterior"),
    C(lambda: subset_post().data_error([np.nan]), r"w must contain only finite", id="sub-ed", on="inference.deletion_evidence.SubsetPosterior.data_error"),
    C(lambda: subset_post().data_error_grad([0.0, 1.0]), r"w must have last dimension 1", id="sub-ed-grad", on="inference.deletion_evidence.SubsetPosterior.data_error_grad"),
    C(lambda: subset_post().data_error_hessian("a"), r"w must be", id="sub-ed-hess", on="inference.deletion_evidence.SubsetPosterior.data_error_hessian"),
    C(lambda: subset_post().embed([0.0, 1.0]), r"w must have last dimension 1", id="sub-embed", on="inference.deletion_evidence.SubsetPosterior.embed"),
    C(lambda: subset_post().expected_data_error([0.0], [[np.inf]]), r"mean and cov must contain only finite", id="sub-eed", on="inference.deletion_evidence.SubsetPosterior.expected_data_error"),
    C(lambda: subset_post().expected_energy([0.0, 1.0], C2), r"mean must have shape \(1,\)", id="sub-energy", on="inference.deletion_evidence.SubsetPosterior.expected_energy"),
    C(lambda: subset_post().grad([np.inf]), r"w must contain only finite", id="sub-grad", on="inference.deletion_evidence.SubsetPosterior.grad"),
    C(lambda: subset_post().hessian(np.zeros((2, 1))), r"w must have last dimension 1: shape \(1,\)", id="sub-hess", on="inference.deletion_evidence.SubsetPosterior.hessian"),
    C(lambda: subset_post().log_unnorm([[0.0, 1.0]]), r"w must have last dimension 1", id="sub-logu", on="inference.deletion_evidence.SubsetPosterior.log_unnorm"),
    C(lambda: model_comparison.distinct_optima([[0.0]], [0.0, 1.0]), r"means must have shape \(M, P\) with M = 2", id="distinct-shape", on="inference.committee.distinct_optima"),
    C(lambda: model_comparison.distinct_optima([[0.0], [1.0]], [0.0, 1.0], atol=0), r"atol must be a finite number > 0", id="distinct-atol", on="inference.committee.distinct_optima"),
    C(lambda: model_comparison.hyperparameter_error_bars(None, [[1.0, 0.0]]), r"run must be an evidence run", id="heb-run", on="inference.hyperparameter_error_bars.hyperparameter_error_bars"),
    C(lambda: model_comparison.hyperparameter_error_bars(E.evidence_reestimation(lin()), [[1.0, np.nan]]), r"G must", id="heb-G", on="inference.hyperparameter_error_bars.hyperparameter_error_bars"),
    C(lambda: model_comparison.integrated_predictive(toy(), [[1.0, 0.0]]), r"post must be a LinearGaussianPosterior", id="ip-post", on="inference.hyperparameter_error_bars.integrated_predictive"),
    C(lambda: model_comparison.integrated_predictive(lin(), [[1.0, 0.0]], n_grid=2), r"n_grid must be an integer", id="ip-ngrid", on="inference.hyperparameter_error_bars.integrated_predictive"),
    C(lambda: model_comparison.integrated_predictive(lin(), [1.0, 0.0, 2.0]), r"G must", id="ip-G", on="inference.hyperparameter_error_bars.integrated_predictive"),
    C(lambda: model_comparison.mode_sensitivities(None), r"state must be an EvidenceState or ClassEvidenceState", id="modesens-state", on="inference.hyperparameter_error_bars.mode_sensitivities"),
    # --- MacKay §9.2 noisy retraining (inference/noisy_retraining.py)
    C(lambda: noisy_retraining.noisy_retraining(lin(), [0.0], rng=np.random.default_rng(0)), r"w_star must have length", id="nr-wstar", on="inference.noisy_retraining.noisy_retraining"),
    C(lambda: noisy_retraining.noisy_retraining(lin(), lin().mean, rng=RS), r"rng must be a numpy.random.Generator", id="nr-rng", on="inference.noisy_retraining.noisy_retraining"),
    C(lambda: noisy_retraining.noisy_retraining(lin(), lin().mean, rng=np.random.default_rng(0), sigma_nu=0.0), r"sigma_nu must be", id="nr-sigma", on="inference.noisy_retraining.noisy_retraining"),
    C(lambda: noisy_retraining.retrain(lin(), [np.nan] * lin().dim, lin().mean), r"prior_mean must", id="nr-retrain-m", on="inference.noisy_retraining.retrain"),
    C(lambda: noisy_retraining.with_targets("post", [1.0]), r"post must be a LinearGaussianPosterior", id="nr-targets-post", on="inference.noisy_retraining.with_targets"),
    C(lambda: noisy_retraining.with_targets(lin(), [np.inf] * lin().n_data), r"t must", id="nr-targets-t", on="inference.noisy_retraining.with_targets"),
    C(lambda: noisy_retraining.residual_noise_sd(None, [0.0]), r"post must be a posterior", id="nr-resid-post", on="inference.noisy_retraining.residual_noise_sd"),
    C(lambda: noisy_retraining.predictive_spread([[1.0, 2.0]]), r"outputs must have at least 2 draws", id="nr-spread", on="inference.noisy_retraining.predictive_spread"),
    # --- Laplace's local mass on the toy (inference/local_mass.py)
    C(lambda: local_mass.basin_labels([[0.0, 1.0], [1.0, 0.0]]), r"log_density must be at least 3 x 3", id="lm-labels", on="inference.local_mass.basin_labels"),
    C(lambda: local_mass.toy_local_mass(lin()), r"post must be a ToyPosterior", id="lm-toy-post", on="inference.local_mass.toy_local_mass"),
    C(lambda: local_mass.toy_local_mass(toy(), n=5), r"n must be an integer in \[101, 2001\]", id="lm-toy-n", on="inference.local_mass.toy_local_mass"),
    C(lambda: local_mass.marginal_laplace_log_mass(toy(), 2.0), r"sign must be -1 or 1", id="lm-marg-sign", on="inference.local_mass.marginal_laplace_log_mass"),
    C(lambda: local_mass.toy_posterior_on_ridge_grid(toy(), z_max=-1.0), r"z_max must be", id="lm-ridge-z", on="inference.local_mass.toy_posterior_on_ridge_grid"),
    C(lambda: collapsed().bound(W(), -NC()), r"cov must be positive definite", id="cb-bound", on="inference.network_fits.CollapsedBound.bound"),
    C(lambda: collapsed().expected_energy(W()[:3], NC()), r"mean must have shape \(6,\)", id="cb-energy", on="inference.network_fits.CollapsedBound.expected_energy"),
    C(lambda: collapsed().hyperparameters(W(), NC() * np.nan), r"mean and cov must contain only finite|cov must be finite", id="cb-hyper", on="inference.network_fits.CollapsedBound.hyperparameters"),
    C(lambda: collapsed().hyperparameters(W(), NC(), expected_data_error=-1.0), r"expected_data_error must be a finite number >= 0|expected_data_error must", id="cb-hyper-ed", on="inference.network_fits.CollapsedBound.hyperparameters"),
    C(lambda: network_fits.symmetry_factor(0), r"n_hidden must be an integer in \[1, 20\]", id="symfac", on="inference.network_fits.symmetry_factor"),
    C(lambda: svi_history().settling(batches=1), r"batches must be an integer in \[2, 1000\]", id="svi-settling", on="inference.svi.SVIHistory.settling"),
    C(lambda: svi.default_start(toy(), "full"), r"fam must be a CovarianceFamily", id="svi-default-fam", on="inference.svi.default_start"),
    C(lambda: svi.default_start(None, FULL), r"post must be a posterior", id="svi-default-post", on="inference.svi.default_start"),
    C(lambda: svi.grad_log_unnorm_batch(toy(), [[np.nan, 0.0]]), r"w must contain only finite", id="svi-glub-nan", on="inference.svi.grad_log_unnorm_batch"),
    C(lambda: svi.grad_log_unnorm_batch(lin(), [0.0, 1.0, 2.0]), r"w must have shape \(S, 2\)", id="svi-glub-shape", on="inference.svi.grad_log_unnorm_batch"),
    C(lambda: svi.scale_matrix(FULL, np.zeros(3)), r"theta must have shape \(5,\)", id="svi-scale-theta", on="inference.svi.scale_matrix"),
    C(lambda: svi.scale_matrix("full", np.zeros(5)), r"fam must be a CovarianceFamily", id="svi-scale-fam", on="inference.svi.scale_matrix"),
    C(lambda: svi.svi_stream(toy(), rng=None), r"rng must be a numpy.random.Generator", id="svi-stream-rng", on="inference.svi.svi_stream"),
    C(lambda: svi.svi_stream(toy(), rng=np.random.default_rng(0), yield_every=0), r"yield_every must be an integer", id="svi-stream-every", on="inference.svi.svi_stream"),
    C(lambda: svi.toy_grad_batch(lin(), np.zeros((1, 2))), r"post must be a ToyPosterior", id="svi-tgb-post", on="inference.svi.toy_grad_batch"),
    C(lambda: svi.toy_grad_batch(toy(), ["a", "b"]), r"w must be", id="svi-tgb-str", on="inference.svi.toy_grad_batch"),
    C(lambda: svi.toy_grad_batch(toy(), np.zeros((2, 3))), r"w must have shape \(S, 2\)", id="svi-tgb-shape", on="inference.svi.toy_grad_batch"),
    # --- issue 31: the classification modules (models/classification.py, inference/classification_fits.py)
    C(lambda: E.logistic("a"), r"a must be", id="logistic-str", on="models.classification.logistic"),
    C(lambda: E.logistic([0.0, np.nan]), r"a must contain only finite", id="logistic-nan", on="models.classification.logistic"),
    C(lambda: E.log_sigmoid(np.ma.masked_array([0.0, 1.0], [0, 1])), r"a must not have masked entries", id="logsig-masked", on="models.classification.log_sigmoid"),
    C(lambda: E.log_sigmoid(np.inf), r"a must contain only finite", id="logsig-inf", on="models.classification.log_sigmoid"),
    C(lambda: classification.normal_rule([0.0], [-1.0]), r"sd must be >= 0", id="nrule-sd", on="models.classification.normal_rule"),
    C(lambda: classification.normal_rule([0.0, 1.0], [1.0]), r"mean and sd must have the same shape", id="nrule-shape", on="models.classification.normal_rule"),
    C(lambda: classification.normal_rule([np.nan], [1.0]), r"mean must contain only finite", id="nrule-nan", on="models.classification.normal_rule"),
    C(lambda: E.expected_log_sigmoid([0.0], [-1.0]), r"var must be >= 0", id="els-var", on="models.classification.expected_log_sigmoid"),
    C(lambda: E.expected_log_sigmoid("a", [1.0]), r"mean must be", id="els-str", on="models.classification.expected_log_sigmoid"),
    C(lambda: E.predictive_probability([0.0], [np.inf]), r"var", id="pp-var", on="models.classification.predictive_probability"),
    C(lambda: E.moderated_output([np.nan], [1.0]), r"a_mp must be finite", id="mod-out", on="models.classification.moderated_output"),
    C(lambda: E.classification_data(None), r"rng must be a numpy.random.Generator", id="cdata-rng", on="models.classification.classification_data"),
    C(lambda: E.classification_data(np.random.default_rng(0), n=0), r"n must be an integer in \[1, 100000\]", id="cdata-n", on="models.classification.classification_data"),
    C(lambda: E.classification_data(np.random.default_rng(0), w=(1.0, 2.0, 3.0)), r"w must have 2 entries", id="cdata-w", on="models.classification.classification_data"),
    C(lambda: logit_post().posterior_grid.expectation([1.0, 2.0]), r"values must have shape", id="cgrid-exp", on="models.classification.ClassificationGrid.expectation"),
    C(lambda: logit_post().posterior_grid.expectation("ab"), r"values must be", id="cgrid-exp-str", on="models.classification.ClassificationGrid.expectation"),
    C(lambda: E.LogisticPosterior([[1.0, 2.0]], [0.5], 1.0), r"t must hold class labels 0 or 1", id="lp-t", on="models.classification.LogisticPosterior"),
    C(lambda: E.LogisticPosterior([[1.0, np.nan]], [1.0], 1.0), r"x must contain only finite", id="lp-x", on="models.classification.LogisticPosterior"),
    C(lambda: E.LogisticPosterior([[1.0, 2.0]], [1.0], 0.0), r"alpha must be a finite number > 0", id="lp-alpha", on="models.classification.LogisticPosterior"),
    C(lambda: logit_post().bound(M2, NOT_PD), r"cov must be positive definite", id="lp-bound", on="models.classification.LogisticPosterior.bound"),
    C(lambda: logit_post().bound_grad([np.nan, 0.0], C2), r"mean must be finite", id="lp-bound-grad", on="models.classification.LogisticPosterior.bound_grad"),
    C(lambda: logit_post().expected_energy([0.0], C2), r"mean must have shape \(2,\)", id="lp-energy", on="models.classification.LogisticPosterior.expected_energy"),
    C(lambda: logit_post().expected_log_likelihood(M2, np.eye(3)), r"mean must have shape \(2,\) and cov \(2, 2\)", id="lp-ell", on="models.classification.LogisticPosterior.expected_log_likelihood"),
    C(lambda: logit_post().grad("ab"), r"w must be", id="lp-grad", on="models.classification.LogisticPosterior.grad"),
    C(lambda: logit_post().grad([0.0, 1.0, 2.0]), r"w must have shape \(2,\)", id="lp-grad-shape", on="models.classification.LogisticPosterior.grad"),
    C(lambda: logit_post().grid(n=2), r"n must be an integer in \[3, 2001\]", id="lp-grid", on="models.classification.LogisticPosterior.grid"),
    C(lambda: logit_post().hessian([np.inf, 0.0]), r"w must contain only finite", id="lp-hess", on="models.classification.LogisticPosterior.hessian"),
    C(lambda: logit_post().kl(M2, NOT_SYM), r"cov must be symmetric", id="lp-kl", on="models.classification.LogisticPosterior.kl"),
    C(lambda: logit_post().log_likelihood([[np.nan, 0.0]]), r"w must contain only finite", id="lp-ll", on="models.classification.LogisticPosterior.log_likelihood"),
    C(lambda: logit_post().log_likelihood_grad(np.zeros((2, 2))), r"w must have shape \(2,\)", id="lp-ll-grad", on="models.classification.LogisticPosterior.log_likelihood_grad"),
    C(lambda: logit_post().log_likelihood_hessian(None), r"w must be", id="lp-ll-hess", on="models.classification.LogisticPosterior.log_likelihood_hessian"),
    C(lambda: logit_post().log_unnorm([0.0, np.nan]), r"w must contain only finite", id="lp-logu", on="models.classification.LogisticPosterior.log_unnorm"),
    C(lambda: logit_post().predictive([[1.0, 2.0, 3.0]]), r"x_new must be finite, of shape \(M, 2\)", id="lp-pred", on="models.classification.LogisticPosterior.predictive"),
    C(lambda: logit_post().with_hyperparameters(alpha=1e300), r"alpha must be in \[1e-08, 1e\+08\]", id="lp-with", on="models.classification.LogisticPosterior.with_hyperparameters"),
    C(lambda: E.log_softmax(1.0), r"a must have at least one axis", id="lsm-scalar", on="models.classification.log_softmax"),
    C(lambda: E.log_softmax([[0.0, np.inf]]), r"a must contain only finite", id="lsm-inf", on="models.classification.log_softmax"),
    C(lambda: E.softmax_log_likelihood(np.zeros((2, 2)), [[1.0, 0.0]], [[0.5, 0.5]]), r"T must be one-hot", id="smll-T", on="models.classification.softmax_log_likelihood"),
    C(lambda: E.fit_classification(toy()), r"post must be a LogisticPosterior", id="fitc-post", on="inference.classification_fits.fit_classification"),
    C(lambda: E.fit_classification(logit_post(), gtol=0.0), r"gtol must be a finite number > 0", id="fitc-gtol", on="inference.classification_fits.fit_classification"),
    C(lambda: E.fit_classification(logit_post(), warm="x"), r"warm must be the ClassificationFits", id="fitc-warm", on="inference.classification_fits.fit_classification"),
    C(lambda: E.gaussian_predictive(M2, NOT_PD, [[1.0, 0.0]]), r"cov must be positive definite", id="gpred-cov", on="inference.classification_fits.gaussian_predictive"),
    C(lambda: E.gaussian_predictive("ab", C2, [[1.0, 0.0]]), r"mean must be", id="gpred-mean", on="inference.classification_fits.gaussian_predictive"),
    C(lambda: E.gaussian_predictive(M2, C2, [[1.0, 0.0, 1.0]]), r"x must have shape \(M, 2\)", id="gpred-x", on="inference.classification_fits.gaussian_predictive"),
    C(lambda: E.predictive_maps(logit_post(), logit_fits(), [0.0], [0.0, 1.0]), r"x1 must have at least 2", id="pmaps-x1", on="inference.classification_fits.predictive_maps"),
    C(lambda: E.predictive_maps(logit_post(), None, [0.0, 1.0], [0.0, 1.0]), r"fits must be the ClassificationFits", id="pmaps-fits", on="inference.classification_fits.predictive_maps"),
    C(lambda: E.predictive_maps(toy(), logit_fits(), [0.0, 1.0], [0.0, 1.0]), r"post must be a LogisticPosterior", id="pmaps-post", on="inference.classification_fits.predictive_maps"),
    C(lambda: E.predictive_maps(logit_post(), logit_fits(), [0.0, 1.0], [0.0, 1.0], bias=1.0), r"bias must be given exactly when", id="pmaps-bias", on="inference.classification_fits.predictive_maps"),
    # --- issue 31: ui (not the panel modules)
    C(lambda: tables.Table(("a", "b"), [("1",)]), r"every row must have 2 cells", id="table-row", on="ui.tables.Table"),
    C(lambda: tables.TextTable(3, ("a",), []), r"text must be a str", id="texttable-text", on="ui.tables.TextTable"),
    C(lambda: tables.TextTable("a", ("a",), 5), r"header must be a sequence", id="texttable-rows", on="ui.tables.TextTable"),
    C(lambda: tables.TextTable.from_columns("a b", (0, 2)), r"widths must be positive", id="texttable-widths", on="ui.tables.TextTable.from_columns"),
    C(lambda: tables.TextTable.from_columns("a b", "x"), r"widths must be positive", id="texttable-widths-str", on="ui.tables.TextTable.from_columns"),
    C(lambda: memo.LRUMemo(-1), r"maxsize must be an integer >= 0", id="memo-size", on="ui.memo.LRUMemo"),
    C(lambda: memo.LRUMemo(2).get("a", 3), r"compute must be callable", id="memo-get-compute", on="ui.memo.LRUMemo.get"),
    C(lambda: memo.LRUMemo(2).get([1], lambda: 1), r"key must be hashable", id="memo-get-key", on="ui.memo.LRUMemo.get"),
    C(lambda: memo.LRUMemo(2).find({}), r"key must be hashable", id="memo-find", on="ui.memo.LRUMemo.find"),
    C(lambda: memo.LRUMemo(2).put([1], 1), r"key must be hashable", id="memo-put", on="ui.memo.LRUMemo.put"),
    C(lambda: plotting.figure_png(None), r"fig must be a matplotlib Figure", id="plot-png-fig", on="ui.plotting.figure_png"),
    C(lambda: plotting.figure_png(_ax().figure, dpi=-1), r"dpi must be an integer in \[10, 1200\]", id="plot-png-dpi", on="ui.plotting.figure_png"),
    C(lambda: plotting.fast_png("fig"), r"fig must be a matplotlib Figure", id="plot-fastpng", on="ui.plotting.fast_png"),
    C(lambda: plotting.fast_jpeg(_ax().figure, quality=500), r"quality must be an integer in \[1, 95\]", id="plot-jpeg-q", on="ui.plotting.fast_jpeg"),
    C(lambda: plotting.save_figure(None, "x.png"), r"fig must be a matplotlib Figure", id="plot-save-fig", on="ui.plotting.save_figure"),
    C(lambda: plotting.save_figure(_ax().figure, 3), r"path must be a non-empty str or pathlib.Path", id="plot-save-path", on="ui.plotting.save_figure"),
    C(lambda: plotting.save_figure(_ax().figure, "no-such-folder/x.png"), r"path must be in an existing folder", id="plot-save-dir", on="ui.plotting.save_figure"),
    C(lambda: plotting.nice_ceiling(np.nan), r"x must be a finite number > 0", id="plot-nice-ceil", on="ui.plotting.nice_ceiling"),
    C(lambda: plotting.nice_range(1.0, np.inf), r"must be two finite numbers", id="plot-nice-range", on="ui.plotting.nice_range"),
    C(lambda: plotting.nice_range(0.0, 1.0, steps=0), r"steps must be an integer in \[1, 20\]", id="plot-nice-steps", on="ui.plotting.nice_range"),
    C(lambda: plotting.replace_artists(None, list), r"old must be a sequence", id="plot-replace-old", on="ui.plotting.replace_artists"),
    C(lambda: plotting.replace_artists([], 3), r"make must be callable", id="plot-replace-make", on="ui.plotting.replace_artists"),
    C(lambda: progress.ProgressBar(None, display=False), r"description must be a str", id="pbar-desc", on="ui.progress.ProgressBar"),
    C(lambda: progress.ProgressBar("x", display="no"), r"display must be True or False", id="pbar-display", on="ui.progress.ProgressBar"),
    C(lambda: solution.folded_html(3), r"text must be a str", id="sol-folded-text", on="ui.solution.folded_html"),
    C(lambda: solution.folded_html("x", title=None), r"title must be a str", id="sol-folded-title", on="ui.solution.folded_html"),
    C(lambda: solution.solution(3).__enter__(), r"title must be a str", id="sol-title", on="ui.solution.solution"),
    C(lambda: voila.inline_image(None, "a.png"), r"root must be a str or pathlib.Path", id="voila-root", on="ui.voila.inline_image"),
    C(lambda: voila.inline_image(".", 3), r"url must be a str", id="voila-url", on="ui.voila.inline_image"),
]


def test_the_table_has_at_least_150_cases():
    assert len(CASES) >= 150


@pytest.mark.parametrize("call, pattern", CASES)
def test_a_bad_input_is_refused_with_a_value_error_naming_the_argument(call, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit's convergence warning is not the point here
        with pytest.raises(ValueError, match=pattern):
            call()


# ---------------------------------------------------------------------------
# good inputs at the edges of the documented ranges keep working
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("alpha, beta", [(1e-3, 1e-2), (1e-3, 1e4), (1e3, 1e-2), (1e3, 1e4), (1e-8, 1e-8),
                                         (1e8, 1e8), (1e-8, 1e6), (1e8, 1e-8)])
def test_alpha_and_beta_at_the_edges_of_the_range_give_a_finite_evidence(alpha, beta):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's quad may say its tolerance was not reached
        post = E.ToyPosterior(toy().x, toy().t, alpha, beta)
        assert math.isfinite(post.log_Z) and math.isfinite(post.log_evidence)
    assert post.alpha == alpha and post.beta == beta


@pytest.mark.parametrize("n_quad", [16, 370, 371, 400, 1000])
def test_the_toy_accepts_every_documented_number_of_nodes(n_quad):
    post = E.ToyPosterior(toy().x, toy().t, 1.0, 100.0, n_quad=n_quad)
    ref = E.ToyPosterior(toy().x, toy().t, 1.0, 100.0, n_quad=96)
    mean, cov = np.array([0.1, -1.0]), np.diag([0.01, 0.02])
    assert math.isfinite(post.kl(mean, cov))
    assert post.kl(mean, cov) == pytest.approx(ref.kl(mean, cov), rel=1e-10)


@pytest.mark.parametrize("n", [1, 2, 150, 151, 370, 371, 400, 1000, 2000])
def test_gauss_hermite_is_finite_and_exact_for_normal_moments_up_to_2000_nodes(n):
    z, p = E.gauss_hermite(n)
    assert np.all(np.isfinite(z)) and np.all(np.isfinite(p)) and np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-13)
    for k, moment in [(2, 1.0), (4, 3.0), (6, 15.0), (8, 105.0)]:  # E z^(2m) = (2m − 1)!!
        if 2 * n - 1 >= k:
            assert p @ z**k == pytest.approx(moment, rel=1e-12)
    assert abs(p @ z) < 1e-13 and abs(p @ z**3) < 1e-12  # odd moments vanish


@pytest.mark.parametrize("n", [151, 200, 300, 370])
def test_gauss_hermite_above_150_nodes_agrees_with_numpys_rule_where_that_is_finite(n):
    from numpy.polynomial.hermite_e import hermegauss

    z_np, p_np = hermegauss(n)
    z, p = E.gauss_hermite(n)
    np.testing.assert_allclose(z, z_np, atol=1e-12)
    np.testing.assert_allclose(p, p_np / p_np.sum(), atol=1e-15)


def test_edge_values_of_other_arguments_are_accepted():
    assert E.ToyPosterior([HUGE ** 0.5 / 1e8], [1.0], 1.0, 1.0).n_data == 1  # |x| = 1e142: squares finite
    g = toy().grid(n=3, extent=(-1.0, 1.0, -2.0, 2.0))
    assert np.all(np.isfinite(g.log_density))
    assert E.gauss_hermite(2000)[0].size == 2000
    assert E.kl_fit(toy(), "diagonal", maxiter=1, gtol=1e3).family == "diagonal"
    assert check.precision("alpha", 1e-8) == 1e-8 and check.precision("beta", 1e8) == 1e8
    cfg = table1.TableConfig(n_train=2, n_restarts=100, maxiter=1)
    assert cfg.n_restarts == 100


# ---------------------------------------------------------------------------
# panels: a refused value shows in the status line, and the panel still works after
# ---------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _panel(name):
    from ensemble_lib.lessons import PANELS

    return PANELS[name][0]()


PANEL_CASES = [
    ("ToyExplorer", "alpha", -1.0, r"alpha must be a finite number > 0"),
    ("ToyExplorer", "alpha", 1e-300, r"alpha must be in \[1e-08, 1e\+08\]"),
    ("ToyExplorer", "seed", "x", r"seed must be an integer"),
    ("EnsemblePanel", "N", 1, r"N must be an integer >= 2"),
    ("EnsemblePanel", "S", np.nan, r"S must be a finite number > 0"),
    ("BoundPanel", "sd_u", 0.0, r"sd_u must be a finite number > 0"),
    ("BoundPanel", "rho", None, r"rho must be"),
    ("BoundPanel", "mean_u", np.nan, r"mean_u"),
    ("HyperIterationPanel", "iteration", -1, r"iteration must be an integer"),
    ("HyperIterationPanel", "method", "bogus", r"method must be"),
    ("Network1DPanel", "n_hidden", 0, r"n_hidden must be an integer"),
    ("Network1DPanel", "alpha", "x", r"alpha must be a finite number"),
    ("SVIExplorer", "step_size", -0.1, r"step_size must be a finite number > 0"),
    ("SVIExplorer", "family", "bogus", r"family must be one of"),
    ("SVIExplorer", "schedule", None, r"schedule must be one of"),
    ("PriorFunctionsPanel", "H", 0, r"H must be an integer in \[1, 2000\]"),
    ("PriorFunctionsPanel", "sd_bias", -1.0, r"sd_bias must be a finite number > 0"),
    ("PriorFunctionsPanel", "scale_out", "x", r"scale_out must be True or False"),
    ("NoiseInputsPanel", "n_noise", 31, r"n_noise must be an integer in \[0, 30\]"),
    ("NoiseInputsPanel", "seed", "x", r"seed must be an integer \[0, 4\]"),
    ("MixtureExplorer", "K", 5, r"K must be an integer in \[1, 4\]"),
    ("MixtureExplorer", "alpha", np.nan, r"alpha must be a finite number > 0"),
    ("NeuronPanel", "n", 0, r"n must be an integer in \[1, 30\]"),
    ("NeuronPanel", "alpha", -1.0, r"alpha must be a finite number > 0"),
    ("NeuronPanel", "seed", "x", r"seed must be an integer"),
    ("ModeratedPanel", "distance", np.nan, r"distance must be a finite real number"),
    ("ModeratedPanel", "distance", 1e9, r"distance must be one of the stored distances"),
    ("MonteCarloPanel", "n", 7, r"n must be one of the draw counts"),
    ("MonteCarloPanel", "n", 2.5, r"n must be an integer \[5, 1000\]"),
    ("LeapfrogPanel", "eps", 0.0, r"eps must be a finite number > 0"),
    ("LeapfrogPanel", "n_steps", 3, r"n_steps must be one of the stored lengths"),
]


def test_every_panel_of_the_registry_has_a_bad_value_case():
    from ensemble_lib.lessons import PANELS

    missing = set(PANELS) - {name for name, *_ in PANEL_CASES}
    assert not missing, f"panels without a bad-control-value case in PANEL_CASES: {sorted(missing)}"


@pytest.mark.parametrize("name, control, value, pattern", PANEL_CASES,
                         ids=[f"{p}-{c}-{v!r}" for p, c, v, _ in PANEL_CASES])
def test_a_panel_refuses_a_bad_control_value_in_its_status_line_and_still_works(name, control, value, pattern,
                                                                                monkeypatch):
    import html
    import re

    panel = _panel(name)
    good = panel.values()
    with pytest.raises(ValueError, match=pattern):
        panel.compute(**{**good, control: value})
    png, n0 = panel.image.value, panel.n_updates
    monkeypatch.setattr(panel, "values", lambda: {**good, control: value})
    assert panel.update() is None
    status = html.unescape(panel.status.value)
    assert "Not updated" in status and re.search(pattern, status), status
    assert panel.last_error.startswith("ValueError") and panel.image.value == png
    monkeypatch.undo()
    assert panel.update() is not None
    assert panel.status.value == "" and panel.last_error is None and panel.n_updates == n0 + 1


def test_the_bound_panels_snap_selector_set_to_none_shows_in_the_status_line_and_the_panel_still_works():
    import html

    panel = _panel("BoundPanel")
    panel.controls["snap"].value = None  # must not raise out of the change handler
    status = html.unescape(panel.status.value)
    assert "Not updated" in status and "snap must be one of" in status, status
    assert panel.last_error.startswith("ValueError")
    panel.controls["snap"].value = "laplace"
    assert panel.status.value == "" and panel.last_error is None
    assert panel.values()["snap"] == "laplace"
