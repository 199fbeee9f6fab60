"""NaN or inf anywhere in an array argument gives a ValueError naming it (issue 31, item 2).

A property test over the public functions that take arrays (core, models, inference, studies and
the lessons' helpers): for
each, valid arguments; hypothesis puts NaN, +inf or -inf at a random position of one array
argument (also as a masked array whose bad entry is masked — it must be refused, not used) and
the call must raise a ``ValueError`` whose message names that argument.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ensemble_lib as E
from ensemble_lib.core import gaussian as G
from ensemble_lib.inference import mixture, model_comparison
from ensemble_lib.lessons import bound
from ensemble_lib.lessons import mixture as lesson_mixture
from ensemble_lib.lessons import model_choice
from ensemble_lib.lessons import monte_carlo
from ensemble_lib.models import classification, mackay_gaussian, network, toy
from ensemble_lib.studies import classification_demo, datasets, network_demo, noise_inputs, toy_hmc
from ensemble_lib.ui.plotting import new_figure


@lru_cache(maxsize=None)
def _toy():
    return E.make_posterior(**E.PAPER_PRESET)


@lru_cache(maxsize=None)
def _lin():
    rng = np.random.default_rng(0)
    Phi = rng.standard_normal((8, 2))
    return E.LinearGaussianPosterior(Phi, Phi @ [1.0, -0.5], 1.0, 10.0)


@lru_cache(maxsize=None)
def _logit():
    data = E.classification_data(np.random.default_rng(0), n=8)
    return E.LogisticPosterior(data.x, data.t, 1.0)


@lru_cache(maxsize=None)
def _net():
    x = np.linspace(-2, 2, 6)
    return E.NetworkPosterior(E.add_bias(x[:, None]), np.sin(x), 2, alpha=1.0, beta=25.0, n_quad=16)


#: four draws (u, v) of lesson 9's toy, and a trace of 2 chains × 6 draws
W4 = np.array([[0.3, 1.0], [-0.5, -2.0], [0.8, 1.5], [0.1, 0.2]])
T26 = np.array([[0.1, 0.4, -0.2, 0.3, 0.0, 0.5], [0.2, -0.1, 0.6, 0.1, 0.3, -0.4]])


def _boston_traces(draw_mse, alpha, beta, f_train_0, w_0):
    """Lesson 9's plot of a Boston split's traces, on a figure of its own (closed after)."""
    import matplotlib.pyplot as plt

    fig, axes = new_figure(8, 2, ncols=5)
    try:
        return monte_carlo.plot_boston_traces(axes, {"traces": {"draw_mse": draw_mse, "alpha": alpha, "beta": beta,
                                                                "f_train_0": f_train_0, "w_0": w_0}})
    finally:
        plt.close(fig)


W6 = np.array([0.5, 0.1, -0.3, 0.2, 1.0, -1.0])
X = E.add_bias(np.linspace(-1, 1, 4)[:, None])
M2, C2 = np.array([0.1, -0.2]), np.array([[1.0, 0.2], [0.2, 0.5]])
FULL = G.CovarianceFamily.make("full", 2)

#: name -> (call taking the array arguments as keywords, the valid array arguments)
SPECS = {
    "GaussianFactor": (lambda C: G.GaussianFactor(C, "C"), {"C": C2}),
    "GaussianFactor.solve": (lambda b: G.GaussianFactor(C2, "C").solve(b), {"b": M2}),
    "GaussianFactor.quad": (lambda b: G.GaussianFactor(C2, "C").quad(b), {"b": M2}),
    "GaussianFactor.trace_solve": (lambda B: G.GaussianFactor(C2, "C").trace_solve(B), {"B": C2}),
    "gaussian_entropy": (lambda cov: G.gaussian_entropy(cov), {"cov": C2}),
    "kl_gaussians": (lambda m0, C0, m1, C1: G.kl_gaussians(m0, C0, m1, C1),
                     {"m0": M2, "C0": C2, "m1": -M2, "C1": 2 * C2}),
    "ellipse_geometry": (lambda cov: G.ellipse_geometry(cov), {"cov": C2}),
    "CovarianceFamily.unpack": (lambda theta: FULL.unpack(theta), {"theta": np.zeros(5)}),
    "CovarianceFamily.lower": (lambda theta: FULL.lower(theta), {"theta": np.zeros(5)}),
    "CovarianceFamily.pack": (lambda mean, cov: FULL.pack(mean, cov), {"mean": M2, "cov": C2}),
    "CovarianceFamily.chain": (lambda g_mean, g_cov: FULL.chain(np.zeros(5), g_mean, g_cov),
                               {"g_mean": M2, "g_cov": C2}),
    "sigma": (lambda a: E.sigma(a), {"a": np.linspace(-1, 1, 5)}),
    "sigma_prime": (lambda a: E.sigma_prime(a), {"a": np.linspace(-1, 1, 5)}),
    "toy_model": (lambda x, u, v: E.toy_model(x, u, v), {"x": np.linspace(-1, 1, 4), "u": np.ones(4),
                                                          "v": np.ones(4)}),
    "ToyPosterior": (lambda x, t: E.ToyPosterior(x, t, 1.0, 10.0), {"x": _toy.__wrapped__().x,
                                                                   "t": _toy.__wrapped__().t}),
    "ToyPosterior.log_unnorm": (lambda w: _toy().log_unnorm(w), {"w": np.ones((3, 2))}),
    "ToyPosterior.grad": (lambda w: _toy().grad(w), {"w": M2}),
    "ToyPosterior.hessian": (lambda w: _toy().hessian(w), {"w": M2}),
    "ToyPosterior.data_error": (lambda w: _toy().data_error(w), {"w": np.ones((3, 2))}),
    "ToyPosterior.log_marginal_u": (lambda u: _toy().log_marginal_u(u), {"u": np.linspace(-1, 1, 4)}),
    "ToyPosterior.kl": (lambda mean, cov: _toy().kl(mean, cov), {"mean": M2, "cov": 0.01 * C2}),
    "ToyPosterior.expected_energy": (lambda mean, cov: _toy().expected_energy(mean, cov),
                                     {"mean": M2, "cov": 0.01 * C2}),
    "kl_by_quadrature": (lambda mean, cov: toy.kl_by_quadrature(_toy(), mean, cov, n=31),
                         {"mean": M2, "cov": 0.01 * C2}),
    "LinearGaussianPosterior": (lambda Phi, t: E.LinearGaussianPosterior(Phi, t, 1.0, 1.0),
                                {"Phi": np.eye(3)[:, :2], "t": np.ones(3)}),
    "LinearGaussianPosterior.data_error_grad": (lambda w: _lin().data_error_grad(w), {"w": M2}),
    "LinearGaussianPosterior.expected_data_error": (lambda mean, cov: _lin().expected_data_error(mean, cov),
                                                    {"mean": M2, "cov": C2}),
    "NetworkPosterior": (lambda X, t: E.NetworkPosterior(X, t, 2, 1.0, 1.0, n_quad=16),
                         {"X": X, "t": np.ones(4)}),
    "NetworkPosterior.output": (lambda w: _net().output(w), {"w": W6}),
    "add_bias": (lambda X: E.add_bias(X), {"X": np.ones((3, 1))}),
    "pack_weights": (lambda U, v: E.pack_weights(U, v), {"U": np.ones((2, 2)), "v": np.ones(2)}),
    "unpack_weights": (lambda w: E.unpack_weights(w, 2), {"w": W6}),
    "network_output": (lambda w, X: E.network_output(w, X, 2), {"w": W6, "X": X}),
    "network_jacobian": (lambda w, X: E.network_jacobian(w, X, 2), {"w": W6, "X": X}),
    "predictive_mean": (lambda w_mean, X: network.predictive_mean(w_mean, 0.01 * np.eye(6), X, 2),
                        {"w_mean": W6, "X": X}),
    "gaussian_log_likelihood": (lambda x: E.gaussian_log_likelihood(x, 0.0, 1.0), {"x": np.ones(3)}),
    "MacKayGaussian.from_data": (lambda x: mackay_gaussian.MacKayGaussian.from_data(x),
                                 {"x": np.array([1.0, 2.0, 4.0])}),
    "MacKayGaussian.log_likelihood": (lambda mu, sigma: E.MACKAY_FIG1.log_likelihood(mu, sigma),
                                      {"mu": np.zeros(3), "sigma": np.ones(3)}),
    "laplace_fit": (lambda start: E.laplace_fit(_toy(), start=start), {"start": M2}),
    "mixture_entropy": (lambda weights, means: mixture.mixture_entropy(weights, means, [C2, C2]),
                        {"weights": np.array([0.5, 0.5]), "means": np.array([M2, -M2])}),
    "deletion_evidence": (lambda mean, cov: E.deletion_evidence(mean, cov, 1.0, [0]),
                          {"mean": np.array([1.0, 2.0]), "cov": C2}),
    # the classification modules (models/classification.py, inference/classification_fits.py)
    "logistic": (lambda a: E.logistic(a), {"a": np.linspace(-2, 2, 5)}),
    "log_sigmoid": (lambda a: E.log_sigmoid(a), {"a": np.linspace(-2, 2, 5)}),
    "log_softmax": (lambda a: E.log_softmax(a), {"a": np.ones((2, 3))}),
    "normal_rule": (lambda mean, sd: classification.normal_rule(mean, sd), {"mean": np.zeros(3), "sd": np.ones(3)}),
    "expected_log_sigmoid": (lambda mean, var: E.expected_log_sigmoid(mean, var),
                             {"mean": np.zeros(3), "var": np.ones(3)}),
    "predictive_probability": (lambda mean, var: E.predictive_probability(mean, var),
                               {"mean": np.zeros(3), "var": np.ones(3)}),
    "moderated_output": (lambda a_mp, s2: E.moderated_output(a_mp, s2), {"a_mp": np.zeros(3), "s2": np.ones(3)}),
    "classification_data": (lambda w: E.classification_data(np.random.default_rng(0), n=3, w=w),
                            {"w": np.array([0.0, 2.0])}),
    "LogisticPosterior": (lambda x, t: E.LogisticPosterior(x, t, 1.0), {"x": np.eye(2), "t": np.array([0.0, 1.0])}),
    "LogisticPosterior.log_unnorm": (lambda w: _logit().log_unnorm(w), {"w": np.ones((3, 2))}),
    "LogisticPosterior.grad": (lambda w: _logit().grad(w), {"w": M2}),
    "LogisticPosterior.hessian": (lambda w: _logit().hessian(w), {"w": M2}),
    "LogisticPosterior.bound": (lambda mean, cov: _logit().bound(mean, cov), {"mean": M2, "cov": C2}),
    "LogisticPosterior.predictive": (lambda x_new: _logit().predictive(x_new), {"x_new": np.ones((2, 2))}),
    "ClassificationGrid.expectation": (lambda values: _logit().posterior_grid.expectation(values),
                                       {"values": np.ones(_logit.__wrapped__().posterior_grid.weights.size)}),
    "softmax_log_likelihood": (lambda W, x: E.softmax_log_likelihood(W, x, np.eye(2)),
                               {"W": np.ones((2, 2)), "x": np.eye(2)}),
    "gaussian_predictive": (lambda mean, cov, x: E.gaussian_predictive(mean, cov, x),
                            {"mean": M2, "cov": C2, "x": np.ones((3, 2))}),
    "committee": (lambda log_evidences: model_comparison.committee([[0.0], [1.0]], [[1.0], [1.0]], log_evidences),
                  {"log_evidences": np.array([0.0, -1.0])}),
    # studies and the lessons' public helpers (issue 31: their floors came last)
    "train_test_split_standardised": (lambda X, y: datasets.train_test_split_standardised(X, y, 10,
                                                                                          np.random.default_rng(0)),
                                      {"X": np.arange(60.0).reshape(20, 3) % 7, "y": np.arange(20.0)}),
    "contour_path": (lambda w_mp, x, distances: classification_demo.contour_path(w_mp, x, distances),
                     {"w_mp": np.array([1.0, 0.5, 0.2]), "x": np.eye(3)[:, :2], "distances": np.array([0.0, 1.0])}),
    "posterior_at": (lambda alphas: noise_inputs.posterior_at(0, 0, alphas, 1.0), {"alphas": np.array([1.0])}),
    "demo_fit": (lambda x, t: network_demo.demo_fit(x, t, 1, 0, 1.0, False, n_grid=11, rng=np.random.default_rng(0)),
                 {"x": np.linspace(-1.0, 1.0, 6), "t": np.sin(np.linspace(-1.0, 1.0, 6))}),
    "sliders_from_gaussian": (lambda mean, cov: bound.sliders_from_gaussian(mean, cov), {"mean": M2, "cov": C2}),
    "bound_decomposition": (lambda mean, cov: bound.bound_decomposition(_toy(), mean, cov),
                            {"mean": M2, "cov": 0.01 * C2}),
    "entropy_table": (lambda separations: lesson_mixture.entropy_table(separations),
                      {"separations": np.array([0.0, 1.0, 2.0])}),
    "local_mass_rows": (lambda alphas: model_choice.local_mass_rows(alphas), {"alphas": np.array([0.2, 2.0])}),
    # lesson 9 (lessons/monte_carlo/) and its stored toy runs (studies/toy_hmc.py)
    "predictive_draws": (lambda w: toy_hmc.predictive_draws(w), {"w": W4}),
    "fold": (lambda w: monte_carlo.fold(w), {"w": W4}),
    "marginal_tests": (lambda w: monte_carlo.marginal_tests(_toy(), w, 4.0), {"w": W4}),
    "running_estimate": (lambda f_chains: monte_carlo.running_estimate(f_chains, ns=(4, 6)), {"f_chains": T26}),
    "diagnostics": (lambda traces: monte_carlo.diagnostics({"f": traces}), {"traces": T26}),
    "replicate_table": (lambda rep_estimate, rep_se: monte_carlo.replicate_table({"rep_estimate": rep_estimate,
                                                                                 "rep_se": rep_se}),
                        {"rep_estimate": np.array([0.62, 0.63, 0.61]), "rep_se": np.array([0.01, 0.01, 0.02])}),
    "plot_boston_traces": (_boston_traces, {"draw_mse": T26 + 1.0, "alpha": T26 + 1.0, "beta": T26 + 2.0,
                                            "f_train_0": T26, "w_0": T26}),
}


def _bad_call(spec, arg, flat_index, bad, masked):
    call, valid = SPECS[spec]
    args = {k: np.array(v, dtype=float) for k, v in valid.items()}
    arr = args[arg]
    i = flat_index % arr.size
    arr.flat[i] = bad
    if masked:  # the bad entry hidden by a mask: the mask must not be ignored, nor the entry used
        mask = np.zeros(arr.shape, bool)
        mask.flat[i] = True
        args[arg] = np.ma.masked_array(arr, mask)
    return call, args


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_nan_or_inf_anywhere_in_an_array_argument_gives_a_value_error_naming_it(data):
    spec = data.draw(st.sampled_from(sorted(SPECS)), label="function")
    arg = data.draw(st.sampled_from(sorted(SPECS[spec][1])), label="argument")
    index = data.draw(st.integers(0, 10_000), label="position")
    bad = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]), label="value")
    masked = data.draw(st.booleans(), label="masked")
    call, args = _bad_call(spec, arg, index, bad, masked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=rf"\b{re.escape(arg)}\b"):
            call(**args)


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_every_function_of_the_property_test_accepts_its_valid_arguments(spec):
    """The property test can fail: the valid arguments work, so only the bad entry is refused."""
    call, valid = SPECS[spec]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(**valid)
