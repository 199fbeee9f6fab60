# ruff: noqa: E501 - one case per line in the table
"""Bad inputs refused across studies, the lessons' public helpers and the panels (issue 31, item 2).

The second part of the bad-input table of tests/project/test_bad_inputs.py, in its format (one
:func:`~project.test_bad_inputs.C` per case, sharing its ``TARGETS``, which the coverage test
tests/project/test_bad_input_coverage.py reads): each call has one bad argument, and the
``ValueError``'s message must match the pattern — the argument's name and the allowed range.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
import pytest

from project.test_bad_inputs import C

import ensemble_lib as E
from ensemble_lib import lessons
from ensemble_lib.core import validation as check
from ensemble_lib.inference.toy_fits import fit_all
from ensemble_lib.lessons import (bound, classification, mean_sigma, mixture, model_choice, networks, stochastic_vi,
                                  store_lessons, toy_posterior)
from ensemble_lib.lessons import figures as lesson_figures
from ensemble_lib.lessons.bound import cheap_sweep
from ensemble_lib.lessons.mixture import ladder_store
from ensemble_lib.lessons.model_choice import occam_store
from ensemble_lib.lessons import monte_carlo as lesson_mc
from ensemble_lib.lessons import student_copies as lesson_student_copies
from ensemble_lib.studies import (classification_demo, datasets, hmc_chains, hmc_reference, model_size, network_demo,
                                  network_ladder, noise_inputs, pruning_evidence, retraining_demo, store, table1,
                                  toy_evidence_grid, toy_hmc)
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.plotting import new_figure
from matplotlib.axes import Axes


@lru_cache(maxsize=None)
def panel(name):
    """The registered panel ``name``, built once."""
    return lessons.PANELS[name][0]()


def good(name):
    """The panel's current (valid) control values."""
    return panel(name).values()


def _tmp():
    """A fresh empty folder (a study's --outdir: nothing stored there to compare with)."""
    import tempfile

    return tempfile.mkdtemp(prefix="bad-input-")


def _result():
    return {"methods": {"a": {}, "b": {}}, "splits": []}


@lru_cache(maxsize=None)
def split4():
    """A small split: X_train (12, 3), y_train, X_test (6, 3), y_test."""
    rng = np.random.default_rng(4)
    return rng.standard_normal((12, 3)), rng.standard_normal(12), rng.standard_normal((6, 3)), rng.standard_normal(6)


@lru_cache(maxsize=None)
def split():
    rng = np.random.default_rng(2)
    return rng.standard_normal((20, 3)), rng.standard_normal(20)


@lru_cache(maxsize=None)
def toy():
    return E.make_posterior(**E.PAPER_PRESET)


@lru_cache(maxsize=None)
def toy_fits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_all(toy())


def ax():
    return new_figure(2, 2)[1]


@lru_cache(maxsize=None)
def retraining():
    """Lesson 4's §8 summary, read from the stored files (nothing fitted)."""
    return retraining_demo.retraining_summary()


@lru_cache(maxsize=None)
def cheap():
    """Lesson 3's §5 sweep with one entry (no far bumps)."""
    return bound.cheap_comparison((0,))


CASES = [
    # --- the lessons' registry (lessons/__init__.py)
    C(lambda: lessons.panel_class("NoSuchPanel"), r"name must be one of the registered panels", id="panel-class-name", on="lessons.panel_class"),
    C(lambda: lessons.panel_class(None), r"name must be one of the registered panels", id="panel-class-none", on="lessons.panel_class"),
    # --- the lessons' public helpers: what the notebooks call (lessons/*.py)
    C(lambda: check.instance("ax", 3, Axes, "a matplotlib Axes"), r"ax must be a matplotlib Axes, got int", id="check-instance", on="core.validation.instance"),
    C(lambda: check.mapping("result", [], ("methods",)), r"result must be a dict with methods", id="check-mapping", on="core.validation.mapping"),
    C(lambda: check.records("rows", [{"a": 1}, 3], ("a",)), r"rows must be a non-empty list of rows \(dicts with a\)", id="check-records", on="core.validation.records"),
    C(lambda: check.records("rows", []), r"rows must be a non-empty list of rows", id="check-records-empty", on="core.validation.records"),
    C(lambda: toy_posterior.fits_table(toy_fits(), names=("laplace", "best")), r"names must be a non-empty sequence of the fits held", id="tp-fits-table-names", on="lessons.toy_posterior.fits_table"),
    C(lambda: toy_posterior.fits_table({}, ), r"fits must be a ToyFits", id="tp-fits-table-fits", on="lessons.toy_posterior.fits_table"),
    C(lambda: toy_posterior.kl_summary_table([{"alpha": 0.1}]), r"summary must be a non-empty list of rows \(dicts with alpha, n_sets", id="tp-kl-summary", on="lessons.toy_posterior.kl_summary_table"),
    C(lambda: toy_posterior.plot_fig2(ax(), toy_fits()), r"axes must be four matplotlib Axes", id="tp-fig2-axes", on="lessons.toy_posterior.plot_fig2"),
    C(lambda: toy_posterior.plot_fig2(new_figure(4, 4, nrows=2, ncols=2)[1], toy_fits(), grid="g"), r"grid must be a PosteriorGrid", id="tp-fig2-grid", on="lessons.toy_posterior.plot_fig2"),
    C(lambda: toy_posterior.plot_kl_table("ax", [{"alpha": 1.0}]), r"ax must be a matplotlib Axes", id="tp-plot-kl-ax", on="lessons.toy_posterior.plot_kl_table"),
    C(lambda: toy_posterior.plot_kl_table(ax(), []), r"rows must be a non-empty list of rows", id="tp-plot-kl-rows", on="lessons.toy_posterior.plot_kl_table"),
    C(lambda: toy_posterior.self_check_tables(None), r"fits must be a ToyFits", id="tp-self-check", on="lessons.toy_posterior.self_check_tables"),
    C(lambda: toy_posterior.summarise_table([{"alpha": 1.0, "laplace": 1.0}]), r"rows must be a non-empty list of rows \(dicts with alpha, laplace, diagonal, full\)", id="tp-summarise", on="lessons.toy_posterior.summarise_table"),
    C(lambda: toy_posterior.table_sentences("rows"), r"rows must be a non-empty list of rows", id="tp-sentences", on="lessons.toy_posterior.table_sentences"),
    C(lambda: mean_sigma.iteration_table(None), r"run must be an EnsembleRun", id="ms-iteration-table-run", on="lessons.mean_sigma.iteration_table"),
    C(lambda: mean_sigma.iteration_table(E.MacKayGaussian(5, 1.0, 1.0).ensemble_iterations(1.0, 3), n=0), r"n must be an integer in \[1, 1000\]", id="ms-iteration-table-n", on="lessons.mean_sigma.iteration_table"),
    C(lambda: mean_sigma.iterations_figure(sweeps=(0, 13)), r"sweeps must be an integer in \[0, 12\]", id="ms-iterations-sweeps", on="lessons.mean_sigma.iterations_figure"),
    C(lambda: mean_sigma.iterations_figure(beta0=-1.0), r"beta0 must be a finite number > 0", id="ms-iterations-beta0", on="lessons.mean_sigma.iterations_figure"),
    C(lambda: mean_sigma.iterations_figure(model="m"), r"model must be a MacKayGaussian", id="ms-iterations-model", on="lessons.mean_sigma.iterations_figure"),
    C(lambda: mean_sigma.plot_fig1a(None), r"ax must be a matplotlib Axes", id="ms-fig1a-ax", on="lessons.mean_sigma.plot_fig1a"),
    C(lambda: mean_sigma.plot_fig1a(ax(), sigma_lim=(0.0, 1.0)), r"sigma_lim must be two finite numbers \(low, high\) with 0 < low < high", id="ms-fig1a-sigma", on="lessons.mean_sigma.plot_fig1a"),
    C(lambda: mean_sigma.plot_fig1a(ax(), n=2), r"n must be an integer in \[3, 5001\]", id="ms-fig1a-n", on="lessons.mean_sigma.plot_fig1a"),
    C(lambda: mean_sigma.plot_fig1b(ax(), model=None), r"model must be a MacKayGaussian", id="ms-fig1b-model", on="lessons.mean_sigma.plot_fig1b"),
    C(lambda: mean_sigma.plot_fig1b(ax(), sigma_lim=(1.0, np.nan)), r"sigma_lim must be two finite numbers", id="ms-fig1b-sigma", on="lessons.mean_sigma.plot_fig1b"),
    C(lambda: bound.bound_figure(post="toy"), r"post must be a ToyPosterior", id="bd-figure-post", on="lessons.bound.bound_figure"),
    C(lambda: bound.decomposition_table(toy(), toy_fits(), keys=("best",)), r"keys must be a non-empty sequence of 'laplace'", id="bd-table-keys", on="lessons.bound.decomposition_table"),
    C(lambda: bound.decomposition_table(toy(), None), r"fits must be a ToyFits", id="bd-table-fits", on="lessons.bound.decomposition_table"),
    C(lambda: bound.trajectories_figure(None), r"comp must be a HyperparameterComparison", id="bd-trajectories", on="lessons.bound.trajectories_figure"),
    C(lambda: bound.bumps_posterior(-1), r"n_far must be an integer in \[0, 500\]", id="bd-bumps-nfar", on="lessons.bound.bumps_posterior"),
    C(lambda: bound.bumps_posterior(0, noise=0.0), r"noise must be a finite number > 0", id="bd-bumps-noise", on="lessons.bound.bumps_posterior"),
    C(lambda: bound.bumps_posterior(0, N=1), r"N must be an integer in \[2, 100000\]", id="bd-bumps-N", on="lessons.bound.bumps_posterior"),
    C(lambda: bound.cheap_comparison((4, 2)), r"far_counts must be a non-empty increasing sequence of integers >= 0", id="bd-cheap-counts", on="lessons.bound.cheap_comparison"),
    C(lambda: bound.cheap_comparison((0,), case={"n_far": 1}), r"case must be a dict of bumps_posterior's keyword arguments \(N, amp, noise", id="bd-cheap-case", on="lessons.bound.cheap_comparison"),
    C(lambda: bound.cheap_table({}), r"comp must be a CheapComparison", id="bd-cheap-table-comp", on="lessons.bound.cheap_table"),
    C(lambda: bound.cheap_table(cheap(), rows=[1]), r"rows\[i\] must be an integer in \[0, 0\]", id="bd-cheap-table-rows", on="lessons.bound.cheap_table"),
    C(lambda: bound.cheap_table(cheap(), rows=0), r"rows must be a sequence", id="bd-cheap-table-rows-int", on="lessons.bound.cheap_table"),
    C(lambda: bound.log_alpha_cases({}), r"cases must be a non-empty dict of name -> bumps_posterior's keyword arguments", id="bd-log-alpha-cases-empty", on="lessons.bound.log_alpha_cases"),
    C(lambda: bound.log_alpha_cases({"small": {"M": 3}}), r"cases\['small'\] must be a dict of bumps_posterior's keyword arguments", id="bd-log-alpha-cases-key", on="lessons.bound.log_alpha_cases"),
    C(lambda: bound.log_alpha_cases({"small": {"N": 1}}), r"N must be an integer in \[2, 100000\]", id="bd-log-alpha-cases-N", on="lessons.bound.log_alpha_cases"),
    C(lambda: bound.log_alpha_table([]), r"cases must be a non-empty dict of name -> LogAlphaCase", id="bd-log-alpha-table", on="lessons.bound.log_alpha_table"),
    C(lambda: bound.reestimation_figure(None, bound.log_alpha_cases()), r"comp must be a CheapComparison", id="bd-reest-figure-comp", on="lessons.bound.reestimation_figure"),
    C(lambda: bound.reestimation_figure(cheap(), {}), r"cases must be a non-empty dict of name -> LogAlphaCase", id="bd-reest-figure-cases", on="lessons.bound.reestimation_figure"),
    C(lambda: classification.arrival_figure(seed=-1), r"seed must be an integer >= 0", id="cl-arrival-seed", on="lessons.classification.arrival_figure"),
    C(lambda: classification.arrival_figure(alpha=0.0), r"alpha must be a finite number > 0", id="cl-arrival-alpha", on="lessons.classification.arrival_figure"),
    C(lambda: classification.evidence_sentence(None), r"fits must be a NeuronState", id="cl-evidence-sentence", on="lessons.classification.evidence_sentence"),
    C(lambda: classification.fig9_sentence("state"), r"state must be a Fig9State", id="cl-fig9-sentence", on="lessons.classification.fig9_sentence"),
    C(lambda: classification.fig9_table(3), r"state must be a Fig9State", id="cl-fig9-table", on="lessons.classification.fig9_table"),
    C(lambda: classification.fits_table({}), r"fits must be a NeuronState", id="cl-fits-table", on="lessons.classification.fits_table"),
    C(lambda: classification.neuron_figure("st"), r"st must be a NeuronState", id="cl-neuron-figure", on="lessons.classification.neuron_figure"),
    C(lambda: classification.neuron_state(0, 1.0, 0), r"n must be an integer in \[1, 30\]", id="cl-neuron-state-n", on="lessons.classification.neuron_state"),
    C(lambda: classification.neuron_state(5, np.nan, 0), r"alpha must be a finite number", id="cl-neuron-state-alpha", on="lessons.classification.neuron_state"),
    C(lambda: classification.softmax_demo(None), r"rng must be a numpy.random.Generator", id="cl-softmax-rng", on="lessons.classification.softmax_demo"),
    C(lambda: classification.softmax_demo(np.random.default_rng(0), classes=1), r"classes must be an integer in \[2, 100\]", id="cl-softmax-classes", on="lessons.classification.softmax_demo"),
    C(lambda: mixture.fit_mixtures("post"), r"post must be a ToyPosterior", id="mx-fit-post", on="lessons.mixture.fit_mixtures"),
    C(lambda: mixture.fit_mixtures(toy(), K_max=0), r"K_max must be an integer in \[1, 8\]", id="mx-fit-kmax", on="lessons.mixture.fit_mixtures"),
    C(lambda: mixture.entropy_table([0.0, -1.0]), r"separations must be finite numbers >= 0", id="mx-entropy-sep", on="lessons.mixture.entropy_table"),
    C(lambda: mixture.entropy_table([np.inf]), r"separations must contain only finite", id="mx-entropy-inf", on="lessons.mixture.entropy_table"),
    C(lambda: mixture.kl_check_table(toy(), None), r"comp must be a MixtureComparison", id="mx-kl-check", on="lessons.mixture.kl_check_table"),
    C(lambda: mixture.ladder_table("comp"), r"comp must be a MixtureComparison", id="mx-ladder", on="lessons.mixture.ladder_table"),
    C(lambda: mixture.mixtures_for(alpha=-1.0), r"alpha must be a finite number > 0", id="mx-for-alpha", on="lessons.mixture.mixtures_for"),
    C(lambda: mixture.network_symmetry_demo(n_starts=0), r"n_starts must be an integer in \[1, 50\]", id="mx-symmetry-starts", on="lessons.mixture.network_symmetry_demo"),
    C(lambda: mixture.network_symmetry_demo(rng=0), r"rng must be a numpy.random.Generator", id="mx-symmetry-rng", on="lessons.mixture.network_symmetry_demo"),
    C(lambda: mixture.plot_comparison([ax()], None), r"comp must be a MixtureComparison", id="mx-plot-comp", on="lessons.mixture.plot_comparison"),
    C(lambda: mixture.symmetry_table({}), r"demo must be a NetworkSymmetryDemo", id="mx-symmetry-table", on="lessons.mixture.symmetry_table"),
    C(lambda: stochastic_vi.comparison_figures(None), r"comp must be an SVIComparison", id="svi-comparison-figures", on="lessons.stochastic_vi.comparison_figures"),
    C(lambda: stochastic_vi.exact_fit("post"), r"post must be a posterior", id="svi-exact-post", on="lessons.stochastic_vi.exact_fit"),
    C(lambda: stochastic_vi.floors_sentence("comp"), r"comp must be an SVIComparison", id="svi-floors-sentence", on="lessons.stochastic_vi.floors_sentence"),
    C(lambda: stochastic_vi.floors_table({}), r"comp must be an SVIComparison", id="svi-floors-table", on="lessons.stochastic_vi.floors_table"),
    C(lambda: stochastic_vi.timing_table(None), r"comp must be an SVIComparison", id="svi-timing-table", on="lessons.stochastic_vi.timing_table"),
    C(lambda: stochastic_vi.run_comparison(rng=np.random.default_rng(0), timing_repeats=0), r"timing_repeats must be an integer in \[1, 100\]", id="svi-run-comparison-repeats", on="lessons.stochastic_vi.run_comparison"),
    C(lambda: stochastic_vi.write_timing_figures(3), r"outdir must be a str or pathlib.Path", id="svi-write-timing", on="lessons.stochastic_vi.write_timing_figures"),
    C(lambda: networks.demo_figure(state="s"), r"state must be a DemoState or None", id="net-demo-figure-state", on="lessons.networks.demo_figure"),
    C(lambda: networks.demo_figure(data="xt"), r"data must be None or a pair \(x, t\)", id="net-demo-figure-data", on="lessons.networks.demo_figure"),
    C(lambda: networks.hmc_convergence_note([], "boston"), r"hmc must be a dict of data set -> stored HMC reference", id="net-hmc-note-hmc", on="lessons.networks.hmc_convergence_note"),
    C(lambda: networks.hmc_convergence_note({}, "boston", threshold=0.9), r"threshold must be in \[1, inf\)", id="net-hmc-note-threshold", on="lessons.networks.hmc_convergence_note"),
    C(lambda: networks.opening_sentence(None), r"state must be a DemoState", id="net-opening", on="lessons.networks.opening_sentence"),
    C(lambda: networks.pruning_figure({"methods": {}}), r"result must be a stored Table 1 result \(load_table\(\)\) with methods, splits, config", id="net-pruning-figure", on="lessons.networks.pruning_figure"),
    C(lambda: networks.table1_text("boston"), r"result must be a stored Table 1 result", id="net-table1-text", on="lessons.networks.table1_text"),
    C(lambda: networks.table_figure(None), r"boston must be a stored Table 1 result", id="net-table-figure", on="lessons.networks.table_figure"),
    C(lambda: networks.retraining_table(None), r"s must be a RetrainingSummary", id="net-retraining-table", on="lessons.networks.retraining_table"),
    C(lambda: networks.retraining_figure("summary"), r"s must be a RetrainingSummary or None", id="net-retraining-figure", on="lessons.networks.retraining_figure"),
    C(lambda: lesson_figures.main("--only toy"), r"argv must be None or a list of str", id="lesson-figures-main", on="lessons.figures.main"),
    C(lambda: store_lessons.main(["README.md"]), r"path must be an existing .ipynb file", id="store-lessons-main", on="lessons.store_lessons.main"),
    C(lambda: store_lessons.store("notebooks/no_such_lesson.ipynb"), r"path must be an existing .ipynb file", id="store-lessons-store", on="lessons.store_lessons.store"),
    C(lambda: lesson_student_copies.main("build/student"), r"argv must be None or a list of str", id="lesson-student-copies-main", on="lessons.student_copies.main"),
    C(lambda: model_choice.ard_arrays([]), r"result must be the stored size study", id="mc-ard-arrays", on="lessons.model_choice.ard_boston.ard_arrays"),
    C(lambda: model_choice.ard_figure({"config": {}}), r"result must be the stored size study \(load_result\(\)\) with config, datasets", id="mc-ard-figure", on="lessons.model_choice.ard_boston.ard_figure"),
    C(lambda: model_choice.format_ard_inputs(None), r"result must be the stored size study", id="mc-ard-inputs", on="lessons.model_choice.ard_boston.format_ard_inputs"),
    C(lambda: model_choice.format_ard_splits("r"), r"result must be the stored size study", id="mc-ard-splits", on="lessons.model_choice.ard_boston.format_ard_splits"),
    C(lambda: model_choice.committee_rows({}), r"result must be the stored size study", id="mc-committee-rows", on="lessons.model_choice.committees.committee_rows"),
    C(lambda: model_choice.format_committees([{"dataset": "boston"}]), r"rows must be a non-empty list of rows \(dicts with dataset, H", id="mc-format-committees", on="lessons.model_choice.committees.format_committees"),
    C(lambda: model_choice.hyper_error_bar_demo(degree=-1), r"degree must be an integer in \[0, 15\]", id="mc-heb-demo-degree", on="lessons.model_choice.hyper_error_bars.hyper_error_bar_demo"),
    C(lambda: model_choice.hyper_error_bar_demo(n=2), r"n must be an integer in \[3, 10000\]", id="mc-heb-demo-n", on="lessons.model_choice.hyper_error_bars.hyper_error_bar_demo"),
    C(lambda: model_choice.hyper_error_bar_figure(degree=16), r"degree must be an integer in \[0, 15\]", id="mc-heb-figure", on="lessons.model_choice.hyper_error_bars.hyper_error_bar_figure"),
    C(lambda: model_choice.format_hyper_error_bars([]), r"demos must be a non-empty sequence of HyperErrorBarDemo", id="mc-heb-format", on="lessons.model_choice.hyper_error_bars.format_hyper_error_bars"),
    C(lambda: model_choice.boston_network_error_bars(n_hidden=0), r"n_hidden must be an integer in \[1, 20\]", id="mc-boston-heb-h", on="lessons.model_choice.hyper_error_bars.boston_network_error_bars"),
    C(lambda: model_choice.boston_network_error_bars(split=-1), r"split must be an integer >= 0", id="mc-boston-heb-split", on="lessons.model_choice.hyper_error_bars.boston_network_error_bars"),
    C(lambda: model_choice.format_size({"config": {}, "datasets": {"boston": {}}}, "iris"), r"dataset must be one of the study's data sets \['boston'\]", id="mc-format-size", on="lessons.model_choice.network_size.format_size"),
    C(lambda: model_choice.model_size_figure([]), r"result must be the stored size study", id="mc-size-figure", on="lessons.model_choice.network_size.model_size_figure"),
    C(lambda: model_choice.noise_summary(ns=(31,)), r"ns must be an integer in \[0, 30\]", id="mc-noise-summary", on="lessons.model_choice.noise_inputs.noise_summary"),
    C(lambda: model_choice.noise_summary(ns=()), r"ns must be a non-empty sequence", id="mc-noise-summary-empty", on="lessons.model_choice.noise_inputs.noise_summary"),
    C(lambda: model_choice.format_noise_summary([{"n_noise": 1}]), r"rows must be a non-empty list of rows \(dicts with n_noise", id="mc-format-noise", on="lessons.model_choice.noise_inputs.format_noise_summary"),
    C(lambda: model_choice.real_inputs_switched_off("rows"), r"rows must be a non-empty list of rows", id="mc-real-off", on="lessons.model_choice.noise_inputs.real_inputs_switched_off"),
    C(lambda: model_choice.polynomial_occam(degrees=(0, 16)), r"degrees must be an integer in \[0, 15\]", id="mc-poly-occam", on="lessons.model_choice.occam.polynomial_occam"),
    C(lambda: model_choice.polynomial_occam(n=1), r"n must be an integer in \[3, 10000\]", id="mc-poly-occam-n", on="lessons.model_choice.occam.polynomial_occam"),
    C(lambda: model_choice.toy_occam(alphas=(0.0,)), r"alphas must be a finite number > 0", id="mc-toy-occam", on="lessons.model_choice.occam.toy_occam"),
    C(lambda: model_choice.toy_occam(alphas=()), r"alphas must be a non-empty sequence", id="mc-toy-occam-empty", on="lessons.model_choice.occam.toy_occam"),
    C(lambda: model_choice.format_occam([("a", 1)]), r"rows must be a non-empty sequence of OccamRow", id="mc-format-occam", on="lessons.model_choice.occam.format_occam"),
    C(lambda: model_choice.pruning_network(seed=-1), r"seed must be an integer >= 0", id="mc-pruning-network", on="lessons.model_choice.pruning.pruning_network"),
    C(lambda: model_choice.pruning_demo(n=5), r"n must be an integer in \[10, 100000\]", id="mc-pruning-demo", on="lessons.model_choice.pruning.pruning_demo"),
    C(lambda: model_choice.format_pruning([("w", 1.0)]), r"rows must be a non-empty sequence of pruning_demo\(\)'s rows", id="mc-format-pruning", on="lessons.model_choice.pruning.format_pruning"),
    C(lambda: model_choice.format_pruning_study([{"split": 0}]), r"rows must be a non-empty list of rows \(dicts with split, stop", id="mc-format-pruning-study", on="lessons.model_choice.pruning.format_pruning_study"),
    C(lambda: model_choice.pruning_study_figure(None), r"result must be the stored pruning study", id="mc-pruning-study-figure", on="lessons.model_choice.pruning.pruning_study_figure"),
    C(lambda: model_choice.pruning_study_rows({"splits": []}), r"result must be the stored pruning study with config, splits", id="mc-pruning-study-rows", on="lessons.model_choice.pruning.pruning_study_rows"),
    C(lambda: model_choice.local_mass_rows([0.2, 2.0], seed=-1), r"seed must be an integer >= 0", id="mc-local-mass-rows-seed", on="lessons.model_choice.local_mass.local_mass_rows"),
    C(lambda: model_choice.local_mass_rows([0.2, np.nan]), r"alphas must be a finite number > 0", id="mc-local-mass-rows-nan", on="lessons.model_choice.local_mass.local_mass_rows"),
    C(lambda: model_choice.local_mass_rows(()), r"alphas must be a non-empty sequence", id="mc-local-mass-rows-empty", on="lessons.model_choice.local_mass.local_mass_rows"),
    C(lambda: model_choice.local_mass_rows([1e9]), r"alphas must be in \[1e-08, 1e\+08\]", id="mc-local-mass-rows-range", on="lessons.model_choice.local_mass.local_mass_rows"),
    C(lambda: model_choice.format_local_mass("rows"), r"rows must be a sequence", id="mc-format-local-mass", on="lessons.model_choice.local_mass.format_local_mass"),
    C(lambda: model_choice.local_mass_sentence([]), r"rows must be a non-empty sequence of LocalMass", id="mc-local-mass-sentence", on="lessons.model_choice.local_mass.local_mass_sentence"),
    C(lambda: model_choice.local_mass_figure([{"alpha": 0.2}]), r"rows must be a non-empty sequence of LocalMass", id="mc-local-mass-figure", on="lessons.model_choice.local_mass.local_mass_figure"),
    # --- studies: entry points (argv; a negative number of splits, no data sets, an unknown backend),
    #     config objects and the public helpers (studies/*.py)
    C(lambda: table1.main("--table"), r"argv must be None or a list of str", id="t1-main-argv", on="studies.table1.main"),
    C(lambda: table1.main(["--table", "--n-splits", "-1", "--outdir", _tmp()]), r"n_splits must be an integer in \[1, 1000\]", id="t1-main-splits", on="studies.table1.main"),
    C(lambda: table1.main(["--table", "--datasets", "--outdir", _tmp()]), r"--datasets must name one or more of", id="t1-main-datasets", on="studies.table1.main"),
    C(lambda: table1.main(["--table", "--datasets", "iris", "--outdir", _tmp()]), r"--datasets must name one or more of", id="t1-main-dataset-name", on="studies.table1.main"),
    C(lambda: table1.main(["--table", "--n-splits", "1", "--backend", "ray", "--outdir", _tmp()]), r"backend 'ray' is not supported", id="t1-main-backend", on="studies.table1.main"),
    C(lambda: table1.main(["--table", "--ranks", "0", "--outdir", _tmp()]), r"ranks must be an integer >= 1", id="t1-main-ranks", on="studies.table1.main"),
    C(lambda: table1.run_tables(datasets=()), r"datasets must name at least one of", id="t1-run-tables-empty", on="studies.table1.run_tables"),
    C(lambda: table1.run_tables(datasets=["boston"], config=table1.TableConfig(n_splits=1), backend="spark"), r"backend must be one of \['loky', 'dask'\]", id="t1-run-tables-backend", on="studies.table1.run_tables"),
    C(lambda: table1.run_table("iris"), r"dataset must be one of", id="t1-run-table-dataset", on="studies.table1.run_table"),
    C(lambda: table1.run_table("boston", config="cfg"), r"config must be a TableConfig", id="t1-run-table-config", on="studies.table1.run_table"),
    C(lambda: table1.TableConfig(n_splits=-1), r"n_splits must be an integer in \[1, 1000\]", id="cfg-nsplits", on="studies.splits.TableConfig"),
    C(lambda: table1.TableConfig(ranks=()), r"ranks must be a non-empty", id="cfg-ranks-empty", on="studies.splits.TableConfig"),
    C(lambda: table1.stored_hmc(directory=3), r"directory must be None or a str or pathlib.Path", id="t1-stored-hmc", on="studies.table1.stored_hmc"),
    C(lambda: table1.hmc_comparison(_result(), "hmc"), r"result must be a stored result", id="t1-hmc-cmp-result", on="studies.table1.hmc_comparison"),
    C(lambda: table1.hmc_comparison({**_result(), "config": {}}, None), r"hmc must be a stored result", id="t1-hmc-cmp-hmc", on="studies.table1.hmc_comparison"),
    C(lambda: table1.paired_difference([], "a", "b"), r"result must be a stored result", id="t1-paired-result", on="studies.table1.paired_difference"),
    C(lambda: table1.pruning_summary("table"), r"result must be a stored result", id="t1-pruning-summary", on="studies.table1.pruning_summary"),
    C(lambda: table1.format_table(None), r"result must be a stored result", id="t1-format-table", on="studies.table1.format_table"),
    C(lambda: table1.load_table("boston", directory="/no/such/folder"), r"directory must be an existing folder", id="t1-load-table-dir", on="studies.table1.load_table"),
    C(lambda: hmc_reference.load_reference("iris"), r"dataset must be one of \('boston', 'diabetes'\)", id="hmc-ref-dataset", on="studies.hmc_reference.load_reference"),
    C(lambda: hmc_reference.load_reference("boston", directory=5), r"directory must be None or a str", id="hmc-ref-dir", on="studies.hmc_reference.load_reference"),
    C(lambda: hmc_reference.main(["--n-splits", "-1", "--outdir", _tmp()]), r"n_splits must be an integer", id="hmc-ref-main-splits", on="studies.hmc_reference.main"),
    C(lambda: hmc_reference.main(b"--quick"), r"argv must be None or a list of str", id="hmc-ref-main-argv", on="studies.hmc_reference.main"),
    C(lambda: hmc_reference.main(["--quick", "--replicate", "-1", "--outdir", _tmp()]), r"replicate must be an integer in \[0, 1000000\]", id="hmc-ref-main-replicate", on="studies.hmc_reference.main"),
    C(lambda: hmc_reference.load_replicate("boston", replicate=0), r"replicate must be an integer in \[1, 1000000\]", id="hmc-rep-replicate", on="studies.hmc_reference.load_replicate"),
    C(lambda: hmc_reference.load_replicate("iris"), r"dataset must be one of \('boston', 'diabetes'\)", id="hmc-rep-dataset", on="studies.hmc_reference.load_replicate"),
    C(lambda: hmc_reference.chain_jackknife([[0.1, 0.2]], [0.0, 0.0]), r"chain_means must be C x n_test with C >= 2", id="hmc-jack-one-chain", on="studies.hmc_reference.chain_jackknife"),
    C(lambda: hmc_reference.chain_jackknife([[0.1, 0.2], [0.1, 0.3]], [0.0, 0.0, 1.0]), r"n_test = 3", id="hmc-jack-shape", on="studies.hmc_reference.chain_jackknife"),
    C(lambda: hmc_reference.chain_jackknife([[0.1, np.nan], [0.1, 0.3]], [0.0, 0.0]), r"chain_means", id="hmc-jack-nan", on="studies.hmc_reference.chain_jackknife"),
    C(lambda: hmc_reference.replicate_agreement({}, {}), r"reference must be a stored HMC reference", id="hmc-agree-keys", on="studies.hmc_reference.replicate_agreement"),
    C(lambda: hmc_reference.replicate_agreement(*([{"dataset": "boston", "config": {k: 1 for k in hmc_reference.CONFIG_USED}, "sampler": {}, "splits": []}] * 2)), r"independent replicate", id="hmc-agree-same", on="studies.hmc_reference.replicate_agreement"),
    C(lambda: model_size.ModelSizeConfig(n_splits=-1), r"n_splits must be an integer in \[1, 100\]", id="ms-cfg-splits", on="studies.model_size.ModelSizeConfig"),
    C(lambda: model_size.ModelSizeConfig(hidden=()), r"hidden must be a non-empty", id="ms-cfg-hidden-empty", on="studies.model_size.ModelSizeConfig"),
    C(lambda: model_size.ModelSizeConfig(hidden=(0, 2)), r"hidden must be an integer >= 1", id="ms-cfg-hidden", on="studies.model_size.ModelSizeConfig"),
    C(lambda: model_size.ModelSizeConfig.from_dict({"n_splits": 2}), r"d must be a dict of the fields", id="ms-cfg-from-dict", on="studies.model_size.ModelSizeConfig.from_dict"),
    C(lambda: model_size.ModelSizeConfig.from_dict({**model_size.ModelSizeConfig().as_dict(), "n_train": 1}), r"n_train must be an integer >= 10", id="ms-cfg-from-dict-value", on="studies.model_size.ModelSizeConfig.from_dict"),
    C(lambda: model_size.load_split("iris", model_size.ModelSizeConfig(), 0), r"dataset must be one of", id="ms-load-split-dataset", on="studies.model_size.load_split"),
    C(lambda: model_size.load_split("boston", {}, 0), r"config must be a ModelSizeConfig", id="ms-load-split-config", on="studies.model_size.load_split"),
    C(lambda: model_size.load_split("boston", model_size.ModelSizeConfig(), -1), r"index must be an integer >= 0", id="ms-load-split-index", on="studies.model_size.load_split"),
    C(lambda: model_size.size_row(*split4(), 0, model_size.ModelSizeConfig(), 0), r"H must be an integer in \[1, 20\]", id="ms-size-row-H", on="studies.model_size.size_row"),
    C(lambda: model_size.size_row(split4()[0], split4()[1][:3], *split4()[2:], 1, model_size.ModelSizeConfig(), 0), r"Xtr, y_train, Xte, y_test must be a split's rows", id="ms-size-row-shape", on="studies.model_size.size_row"),
    C(lambda: model_size.size_row(*split4(), 1, None, 0), r"config must be a ModelSizeConfig", id="ms-size-row-config", on="studies.model_size.size_row"),
    C(lambda: model_size.load_result(directory=["figures"]), r"directory must be None or a str", id="ms-load-result", on="studies.model_size.load_result"),
    C(lambda: model_size.main(["--run", "--n-splits", "-1", "--outdir", _tmp()]), r"n_splits must be an integer in \[1, 100\]", id="ms-main-splits", on="studies.model_size.main"),
    C(lambda: model_size.main(["--run", "--hidden", "--outdir", _tmp()]), r"hidden must be a non-empty", id="ms-main-hidden", on="studies.model_size.main"),
    C(lambda: pruning_evidence.PruningConfig(n_splits=0), r"n_splits must be an integer in \[1, 100\]", id="pe-cfg-splits", on="studies.pruning_evidence.PruningConfig"),
    C(lambda: pruning_evidence.load_result(directory=1.5), r"directory must be None or a str", id="pe-load-result", on="studies.pruning_evidence.load_result"),
    C(lambda: pruning_evidence.main(["--run", "--n-splits", "-2", "--outdir", _tmp()]), r"n_splits must be an integer in \[1, 100\]", id="pe-main-splits", on="studies.pruning_evidence.main"),
    C(lambda: noise_inputs.NoiseInputsConfig(n_max=0), r"n_max must be an integer in \[1, 100\]", id="ni-cfg-nmax", on="studies.noise_inputs.NoiseInputsConfig"),
    C(lambda: noise_inputs.boston_split("config"), r"config must be a NoiseInputsConfig", id="ni-boston-split", on="studies.noise_inputs.boston_split"),
    C(lambda: noise_inputs.design(31, 0), r"n_noise must be an integer in \[0, 30\]", id="ni-design-n", on="studies.noise_inputs.design"),
    C(lambda: noise_inputs.design(3, -1), r"noise_seed must be an integer >= 0", id="ni-design-seed", on="studies.noise_inputs.design"),
    C(lambda: noise_inputs.posterior_at(2, 0, [1.0, np.nan], 1.0), r"alphas must contain only finite", id="ni-post-alphas", on="studies.noise_inputs.posterior_at"),
    C(lambda: noise_inputs.posterior_at(2, 0, [1.0, 2.0], 1.0), r"alphas must be one positive precision or one per input \(15\)", id="ni-post-alphas-len", on="studies.noise_inputs.posterior_at"),
    C(lambda: noise_inputs.posterior_at(2, 0, 1.0, -1.0), r"beta must be a finite number > 0", id="ni-post-beta", on="studies.noise_inputs.posterior_at"),
    C(lambda: noise_inputs.load_result(directory=0), r"directory must be None or a str", id="ni-load-result", on="studies.noise_inputs.load_result"),
    C(lambda: noise_inputs.main("--run"), r"argv must be None or a list of str", id="ni-main-argv", on="studies.noise_inputs.main"),
    C(lambda: retraining_demo.main("--force"), r"argv must be None or a list of str", id="rd-main-argv", on="studies.retraining_demo.main"),
    C(lambda: retraining_demo.retraining_summary(directory=3), r"directory must be None or a str or pathlib.Path", id="rd-summary-dir", on="studies.retraining_demo.retraining_summary"),
    C(lambda: retraining_demo.retraining_summary(directory="/no/such/folder"), r"directory must be an existing folder", id="rd-summary-missing", on="studies.retraining_demo.retraining_summary"),
    C(lambda: retraining_demo.retraining_rows(None), r"s must be a RetrainingSummary", id="rd-rows", on="studies.retraining_demo.retraining_rows"),
    C(lambda: retraining_demo.retraining_sentence({}), r"s must be a RetrainingSummary", id="rd-sentence", on="studies.retraining_demo.retraining_sentence"),
    C(lambda: retraining().at("best", 0.0), r"method must be one of \('retrain12', 'retrain', ", id="rd-at-method", on="studies.retraining_demo.RetrainingSummary.at"),
    C(lambda: retraining().at("laplace", 9.0), r"x must be in \[-3, 3\] \(the summary's grid\)", id="rd-at-x-range", on="studies.retraining_demo.RetrainingSummary.at"),
    C(lambda: retraining().at("laplace", np.nan), r"x must be a finite real number", id="rd-at-x-nan", on="studies.retraining_demo.RetrainingSummary.at"),
    C(lambda: network_demo.demo_fit([0.0, 1.0], [0.0, 1.0], 9, 1, 1.0, True, rng=np.random.default_rng(0)), r"n_hidden must be an integer in \[1, 4\]", id="nd-fit-H", on="studies.network_demo.demo_fit"),
    C(lambda: network_demo.canonical_state(None, 2), r"state must be an EvidenceState", id="nd-canonical-state", on="studies.network_demo.canonical_state"),
    C(lambda: network_demo.load_demo_store(n_grid=2), r"n_grid must be an integer in \[3, 10001\]", id="nd-store-grid", on="studies.network_demo.load_demo_store"),
    C(lambda: network_demo.load_demo_store(directory=object()), r"directory must be None or a str", id="nd-store-dir", on="studies.network_demo.load_demo_store"),
    C(lambda: network_demo.memo_key(2, -1, 1.0, False), r"rank must be an integer >= 0", id="nd-memo-rank", on="studies.network_demo.memo_key"),
    C(lambda: network_demo.memo_key(2, 1, 0.0, False), r"alpha must be a finite number > 0", id="nd-memo-alpha", on="studies.network_demo.memo_key"),
    C(lambda: network_demo.memo_key(2, 1, 1.0, "no"), r"adapt must be True or False", id="nd-memo-adapt", on="studies.network_demo.memo_key"),
    C(lambda: network_demo.main(("--jobs", 2)), r"argv must be None or a list of str", id="nd-main-argv", on="studies.network_demo.main"),
    C(lambda: classification_demo.contour_path([1.0, 0.0], np.zeros((3, 2))), r"w_mp must have 3 entries", id="cd-contour-w", on="studies.classification_demo.contour_path"),
    C(lambda: classification_demo.contour_path([1.0, 0.0, 0.0], np.zeros((3, 2)), level=1.0), r"level must lie in \(0, 1\)", id="cd-contour-level", on="studies.classification_demo.contour_path"),
    C(lambda: classification_demo.fits_row({"kl": 1.0}), r"fits must be the ClassificationFits of fit_classification", id="cd-fits-row", on="studies.classification_demo.fits_row"),
    C(lambda: classification_demo.load_store(directory=2), r"directory must be None or a str", id="cd-load-store", on="studies.classification_demo.load_store"),
    C(lambda: classification_demo.load_neuron_store(directory="/no/such/folder"), r"directory must be an existing folder", id="cd-load-neuron-store", on="studies.classification_demo.load_neuron_store"),
    C(lambda: classification_demo.neuron_data(0, 0), r"n must be an integer in \[1, 30\]", id="cd-neuron-data-n", on="studies.classification_demo.neuron_data"),
    C(lambda: classification_demo.neuron_posterior(5, -1.0, 0), r"alpha must be a finite number > 0", id="cd-neuron-post-alpha", on="studies.classification_demo.neuron_posterior"),
    C(lambda: classification_demo.neuron_posterior(5, 1.0, -1), r"seed must be an integer >= 0", id="cd-neuron-post-seed", on="studies.classification_demo.neuron_posterior"),
    C(lambda: classification_demo.main("--only fig9"), r"argv must be None or a list of str", id="cd-main-argv", on="studies.classification_demo.main"),
    C(lambda: store.stored_file("", None), r"name must be a non-empty str", id="store-stored-name", on="studies.store.stored_file"),
    C(lambda: store.stored_file("x.json", 3), r"directory must be None or a str or pathlib.Path", id="store-stored-dir", on="studies.store.stored_file"),
    C(lambda: store.replace_if_changed("/no/such/file.csv", "/tmp/x.csv"), r"made must name an existing file", id="store-replace-made", on="studies.store.replace_if_changed"),
    C(lambda: store.replace_if_changed(None, "x.csv"), r"made must be a str or pathlib.Path", id="store-replace-type", on="studies.store.replace_if_changed"),
    C(lambda: datasets.train_test_split_standardised(*split(), 10.5, np.random.default_rng(0)), r"n_train must be an integer", id="split-ntrain-float", on="studies.datasets.train_test_split_standardised"),
    # --- the panels' machine (ui/panel.py, ui/panel_controls.py, ui/panel_readout.py)
    C(lambda: FigurePanel({"a": 1}, new_figure(2, 2)[0]), r"controls must be a dict of control name -> ipywidgets control", id="fp-controls", on="ui.panel.FigurePanel"),
    C(lambda: FigurePanel({}, "fig"), r"fig must be a matplotlib Figure", id="fp-fig", on="ui.panel.FigurePanel"),
    C(lambda: FigurePanel({}, new_figure(2, 2)[0], columns=0), r"columns must be an integer >= 1", id="fp-columns", on="ui.panel.FigurePanel"),
    C(lambda: FigurePanel.axes_artists("ax"), r"ax must be a matplotlib Axes", id="fp-axes-artists", on="ui.panel.FigurePanel.axes_artists"),
    C(lambda: panel("EnsemblePanel").follow_range(None, (0, 1)), r"ax must be a matplotlib Axes", id="fp-follow-ax", on="ui.panel.FigurePanel.follow_range"),
    C(lambda: panel("EnsemblePanel").follow_range(panel("EnsemblePanel").ax_q, (0, 1, 2)), r"x must be None or a range \(lo, hi\)", id="fp-follow-x", on="ui.panel.FigurePanel.follow_range"),
    C(lambda: panel("EnsemblePanel").follow_range(panel("EnsemblePanel").ax_q, None, (0, np.nan)), r"must be two finite numbers", id="fp-follow-y-nan", on="ui.panel.FigurePanel.follow_range"),
    C(lambda: panel("ToyExplorer").compute_stream(**{**good("ToyExplorer"), "alpha": -1.0}), r"alpha must be a finite number > 0", id="fp-stream-alpha", on="ui.panel.FigurePanel.compute_stream"),
    C(lambda: panel("ToyExplorer").compute_stream(beta=1.0), r"values must be the panel's control values by name", id="fp-stream-name", on="ui.panel.FigurePanel.compute_stream"),
    C(lambda: FigurePanel.format_readout(panel("ToyExplorer"), None), r"state must be a state", id="fp-readout-none", on="ui.panel.FigurePanel.format_readout"),
    C(lambda: panel("ToyExplorer").hold(update="no").__enter__(), r"update must be True or False", id="fp-hold", on="ui.panel.FigurePanel.hold"),
    C(lambda: panel("ToyExplorer").inactive_controls(beta=1.0), r"values must be the panel's control values by name", id="fp-inactive", on="ui.panel.FigurePanel.inactive_controls"),
    C(lambda: panel("ToyExplorer").link_controls("nope", 1.0), r"name must be one of the panel's controls", id="fp-link", on="ui.panel.FigurePanel.link_controls"),
    C(lambda: panel("ToyExplorer").memo([1], lambda: 1), r"key must be hashable", id="fp-memo-key", on="ui.panel.FigurePanel.memo"),
    C(lambda: panel("ToyExplorer").memo(("k",), 3), r"compute must be callable", id="fp-memo-compute", on="ui.panel.FigurePanel.memo"),
    C(lambda: panel("ToyExplorer").set_values([("alpha", 1.0)]), r"values must be a dict", id="fp-set-values", on="ui.panel.FigurePanel.set_values"),
    C(lambda: panel("ToyExplorer").set_values({"beta": 1.0}), r"values must name controls of the panel", id="fp-set-values-name", on="ui.panel.FigurePanel.set_values"),
    C(lambda: panel("ToyExplorer").set_values({}, update=None), r"update must be True or False", id="fp-set-values-update", on="ui.panel.FigurePanel.set_values"),
    C(lambda: FigurePanel.slider("x", 5, 0, 1), r"value, lo and hi must satisfy lo <= value <= hi", id="slider-range", on="ui.panel_controls.slider"),
    C(lambda: FigurePanel.slider("x", 0.5, 0.0, 1.0, log=True), r"lo must be > 0 for a log slider", id="slider-log", on="ui.panel_controls.slider"),
    C(lambda: FigurePanel.slider("x", np.nan, 0.0, 1.0), r"value must be a finite real number", id="slider-nan", on="ui.panel_controls.slider"),
    C(lambda: FigurePanel.slider(3, 0.5, 0.0, 1.0), r"description and units must be str", id="slider-desc", on="ui.panel_controls.slider"),
    C(lambda: FigurePanel.slider("x", 0.5, 0.0, 1.0, step=0), r"step must be a finite number > 0", id="slider-step", on="ui.panel_controls.slider"),
    C(lambda: FigurePanel.readout_table("ab"), r"rows must be a sequence of rows", id="readout-rows", on="ui.panel_readout.readout_table"),
    C(lambda: FigurePanel.readout_table([3]), r"rows\[0\] must be a sequence of cells", id="readout-row", on="ui.panel_readout.readout_table"),
    C(lambda: FigurePanel.readout_table([("a", 1)], pairs=0), r"pairs must be an integer >= 1", id="readout-pairs", on="ui.panel_readout.readout_table"),
    C(lambda: FigurePanel.readout_table([("a", 1)], header=5), r"header must be a sequence of cells or None", id="readout-header", on="ui.panel_readout.readout_table"),
    # --- every registered panel: compute (a bad value; an index past the run or negative; a control it
    #     lacks), draw and format_readout (a state that is not its own), and its other public methods
    C(lambda: panel("EnsemblePanel").compute(**{**good("EnsemblePanel"), "k": 61}), r"k must be an integer in \[0, 60\]", id="ens-k-past", on="lessons.mean_sigma.EnsemblePanel.compute"),
    C(lambda: panel("EnsemblePanel").compute(**{**good("EnsemblePanel"), "k": -1}), r"k must be an integer in \[0, 60\]", id="ens-k-neg", on="lessons.mean_sigma.EnsemblePanel.compute"),
    C(lambda: panel("EnsemblePanel").compute(**{**good("EnsemblePanel"), "N": 1}), r"N must be an integer >= 2", id="ens-N", on="lessons.mean_sigma.EnsemblePanel.compute"),
    C(lambda: panel("EnsemblePanel").draw(None), r"state must be a EnsembleState", id="ens-draw", on="lessons.mean_sigma.EnsemblePanel.draw"),
    C(lambda: panel("EnsemblePanel").format_readout("x"), r"state must be a EnsembleState", id="ens-readout", on="lessons.mean_sigma.EnsemblePanel.format_readout"),
    C(lambda: panel("HyperIterationPanel").compute("ensemble", 10**6), r"iteration must be an integer in \[0, \d+\]", id="hyp-iter-past", on="lessons.bound.HyperIterationPanel.compute"),
    C(lambda: panel("HyperIterationPanel").compute("evidence", -1), r"iteration must be an integer in \[0, \d+\]", id="hyp-iter-neg", on="lessons.bound.HyperIterationPanel.compute"),
    C(lambda: panel("HyperIterationPanel").compute("bogus", 0), r"method must be", id="hyp-method", on="lessons.bound.HyperIterationPanel.compute"),
    C(lambda: panel("HyperIterationPanel").draw(panel("BoundPanel").compute(**good("BoundPanel"))), r"state must be a IterationState", id="hyp-draw", on="lessons.bound.HyperIterationPanel.draw"),
    C(lambda: panel("HyperIterationPanel").format_readout(None), r"state must be a IterationState", id="hyp-readout", on="lessons.bound.HyperIterationPanel.format_readout"),
    C(lambda: panel("HyperIterationPanel").link_controls(3, "evidence"), r"name must be one of the panel's controls", id="hyp-link", on="lessons.bound.HyperIterationPanel.link_controls"),
    C(lambda: lessons.HyperIterationPanel(comp="x"), r"comp must be a HyperparameterComparison", id="hyp-comp", on="lessons.bound.HyperIterationPanel"),
    C(lambda: panel("BoundPanel").compute(**{**good("BoundPanel"), "rho": 1.0}), r"rho must be in \(-1, 1\)", id="bp-rho", on="lessons.bound.BoundPanel.compute"),
    C(lambda: panel("BoundPanel").draw("x"), r"state must be a BoundDecomposition", id="bp-draw", on="lessons.bound.BoundPanel.draw"),
    C(lambda: panel("BoundPanel").format_readout(None), r"state must be a BoundDecomposition", id="bp-readout", on="lessons.bound.BoundPanel.format_readout"),
    C(lambda: panel("BoundPanel").link_controls("nope", 1.0), r"name must be one of the panel's controls", id="bp-link", on="lessons.bound.BoundPanel.link_controls"),
    C(lambda: panel("BoundPanel").snap("best"), r"name must be 'laplace', 'diagonal' or 'full'", id="bp-snap", on="lessons.bound.BoundPanel.snap"),
    C(lambda: panel("BoundPanel").snap("full", update="yes"), r"update must be True or False", id="bp-snap-update", on="lessons.bound.BoundPanel.snap"),
    C(lambda: lessons.BoundPanel(post="toy"), r"post must be a ToyPosterior or None", id="bp-post", on="lessons.bound.BoundPanel"),
    C(lambda: panel("ToyExplorer").compute(**{**good("ToyExplorer"), "n": 0}), r"n must be an integer", id="toy-exp-n", on="lessons.toy_posterior.ToyExplorer.compute"),
    C(lambda: panel("ToyExplorer").draw(None), r"state must be a ToyFits", id="toy-exp-draw", on="lessons.toy_posterior.ToyExplorer.draw"),
    C(lambda: panel("ToyExplorer").format_readout({}), r"state must be a ToyFits", id="toy-exp-readout", on="lessons.toy_posterior.ToyExplorer.format_readout"),
    C(lambda: lessons.ToyExplorer.limits("post"), r"post must be a ToyPosterior", id="toy-exp-limits", on="lessons.toy_posterior.ToyExplorer.limits"),
    C(lambda: panel("Network1DPanel").compute(**{**good("Network1DPanel"), "rank": -1}), r"rank must be an integer", id="net1d-rank", on="lessons.networks.Network1DPanel.compute"),
    C(lambda: panel("Network1DPanel").draw(None), r"state must be a DemoState", id="net1d-draw", on="lessons.networks.Network1DPanel.draw"),
    C(lambda: panel("Network1DPanel").format_readout(1.0), r"state must be a DemoState", id="net1d-readout", on="lessons.networks.Network1DPanel.format_readout"),
    C(lambda: panel("Network1DPanel").inactive_controls(n_hidden=2), r"values must be the panel's control values by name", id="net1d-inactive", on="lessons.networks.Network1DPanel.inactive_controls"),
    C(lambda: panel("Network1DPanel").smaller_h_bound(None), r"state must be a DemoState", id="net1d-smaller-h", on="lessons.networks.Network1DPanel.smaller_h_bound"),
    C(lambda: lessons.Network1DPanel(data=([0.0, 1.0], [0.0])), r"x and t must have the same length", id="net1d-data-len", on="lessons.networks.Network1DPanel"),
    C(lambda: lessons.Network1DPanel(data=([0.0, np.nan], [0.0, 1.0])), r"x must contain only finite", id="net1d-data-nan", on="lessons.networks.Network1DPanel"),
    C(lambda: lessons.Network1DPanel(data="xt"), r"data must be None or a pair \(x, t\)", id="net1d-data-str", on="lessons.networks.Network1DPanel"),
    C(lambda: panel("SVIExplorer").compute(**{**good("SVIExplorer"), "n_samples": 0}), r"n_samples must be an integer", id="svi-exp-samples", on="lessons.stochastic_vi.SVIExplorer.compute"),
    C(lambda: next(panel("SVIExplorer").compute_stream(**{**good("SVIExplorer"), "family": "bogus"})), r"family must be one of", id="svi-exp-stream", on="lessons.stochastic_vi.SVIExplorer.compute_stream"),
    C(lambda: panel("SVIExplorer").compute_stream(kappa=1.0), r"values must be the panel's control values by name", id="svi-exp-stream-name", on="lessons.stochastic_vi.SVIExplorer.compute_stream"),
    C(lambda: panel("SVIExplorer").draw(None), r"state must be a SVIHistory", id="svi-exp-draw", on="lessons.stochastic_vi.SVIExplorer.draw"),
    C(lambda: panel("SVIExplorer").format_readout("h"), r"state must be a SVIHistory", id="svi-exp-readout", on="lessons.stochastic_vi.SVIExplorer.format_readout"),
    C(lambda: lessons.SVIExplorer(post="toy"), r"post must be a posterior", id="svi-exp-post", on="lessons.stochastic_vi.SVIExplorer"),
    C(lambda: panel("PriorFunctionsPanel").compute(**{**good("PriorFunctionsPanel"), "sd_in": np.inf}), r"sd_in must be a finite number > 0", id="prior-fn-sd", on="lessons.model_choice.prior_functions.PriorFunctionsPanel.compute"),
    C(lambda: panel("PriorFunctionsPanel").draw(None), r"state must be a PriorState", id="prior-fn-draw", on="lessons.model_choice.prior_functions.PriorFunctionsPanel.draw"),
    C(lambda: panel("PriorFunctionsPanel").format_readout(0), r"state must be a PriorState", id="prior-fn-readout", on="lessons.model_choice.prior_functions.PriorFunctionsPanel.format_readout"),
    C(lambda: panel("NoiseInputsPanel").compute(**{**good("NoiseInputsPanel"), "n_noise": -1}), r"n_noise must be an integer in \[0, 30\]", id="noise-panel-n", on="lessons.model_choice.noise_inputs.NoiseInputsPanel.compute"),
    C(lambda: panel("NoiseInputsPanel").draw(None), r"state must be a NoiseARDState", id="noise-panel-draw", on="lessons.model_choice.noise_inputs.NoiseInputsPanel.draw"),
    C(lambda: panel("NoiseInputsPanel").format_readout([]), r"state must be a NoiseARDState", id="noise-panel-readout", on="lessons.model_choice.noise_inputs.NoiseInputsPanel.format_readout"),
    C(lambda: panel("MixtureExplorer").compute(**{**good("MixtureExplorer"), "K": 0}), r"K must be an integer in \[1, 4\]", id="mix-exp-K", on="lessons.mixture.MixtureExplorer.compute"),
    C(lambda: next(panel("MixtureExplorer").compute_stream(**{**good("MixtureExplorer"), "seed": -1})), r"seed must be an integer", id="mix-exp-stream", on="lessons.mixture.MixtureExplorer.compute_stream"),
    C(lambda: panel("MixtureExplorer").draw(None), r"state must be a MixtureState", id="mix-exp-draw", on="lessons.mixture.MixtureExplorer.draw"),
    C(lambda: panel("MixtureExplorer").format_readout("s"), r"state must be a MixtureState", id="mix-exp-readout", on="lessons.mixture.MixtureExplorer.format_readout"),
    C(lambda: panel("NeuronPanel").compute(**{**good("NeuronPanel"), "n": 31}), r"n must be an integer in \[1, 30\]", id="neuron-n", on="lessons.classification.NeuronPanel.compute"),
    C(lambda: panel("NeuronPanel").draw(None), r"state must be a NeuronState", id="neuron-draw", on="lessons.classification.NeuronPanel.draw"),
    C(lambda: panel("NeuronPanel").format_readout(1), r"state must be a NeuronState", id="neuron-readout", on="lessons.classification.NeuronPanel.format_readout"),
    C(lambda: panel("ModeratedPanel").compute(distance="far"), r"distance must be a finite real number", id="moderated-distance", on="lessons.classification.ModeratedPanel.compute"),
    C(lambda: panel("ModeratedPanel").compute(d=1.0), r"values must be the panel's control values by name", id="moderated-name", on="lessons.classification.ModeratedPanel.compute"),
    C(lambda: panel("ModeratedPanel").draw(None), r"state must be a ModeratedState", id="moderated-draw", on="lessons.classification.ModeratedPanel.draw"),
    C(lambda: panel("ModeratedPanel").format_readout(panel("NeuronPanel").compute(**good("NeuronPanel"))), r"state must be a ModeratedState", id="moderated-readout", on="lessons.classification.ModeratedPanel.format_readout"),
    # --- lesson 9 (lessons/monte_carlo/): its panels (a step size <= 0, a number of draws that is not an integer
    #     or past the stored run, a state not its own), its helpers (zero chains, too few draws) and tables
    C(lambda: panel("MonteCarloPanel").compute(n=2.5), r"n must be an integer \[5, 1000\]", id="mc-panel-n-float", on="lessons.monte_carlo.MonteCarloPanel.compute"),
    C(lambda: panel("MonteCarloPanel").compute(n=2000), r"n must be an integer in \[5, 1000\]", id="mc-panel-n-past", on="lessons.monte_carlo.MonteCarloPanel.compute"),
    C(lambda: panel("MonteCarloPanel").compute(n=0), r"n must be an integer in \[5, 1000\]", id="mc-panel-n-zero", on="lessons.monte_carlo.MonteCarloPanel.compute"),
    C(lambda: panel("MonteCarloPanel").compute(n=7), r"n must be one of the draw counts \(5, 10", id="mc-panel-n-unstored", on="lessons.monte_carlo.MonteCarloPanel.compute"),
    C(lambda: panel("MonteCarloPanel").compute(eps=0.1), r"values must be the panel's control values by name", id="mc-panel-name", on="lessons.monte_carlo.MonteCarloPanel.compute"),
    C(lambda: panel("MonteCarloPanel").draw(None), r"state must be a MCState", id="mc-panel-draw", on="lessons.monte_carlo.MonteCarloPanel.draw"),
    C(lambda: panel("MonteCarloPanel").format_readout(panel("LeapfrogPanel").compute(**good("LeapfrogPanel"))), r"state must be a MCState", id="mc-panel-readout", on="lessons.monte_carlo.MonteCarloPanel.format_readout"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "eps": 0.0}), r"eps must be a finite number > 0", id="leap-panel-eps-zero", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "eps": -0.01}), r"eps must be a finite number > 0", id="leap-panel-eps-neg", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "eps": 0.07}), r"eps must be one of the stored step sizes", id="leap-panel-eps-unstored", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "n_steps": 2.5}), r"n_steps must be an integer >= 1", id="leap-panel-steps-float", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "n_steps": 0}), r"n_steps must be an integer >= 1", id="leap-panel-steps-zero", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").compute(**{**good("LeapfrogPanel"), "n_steps": 10}), r"n_steps must be one of the stored lengths \(5, 20\)", id="leap-panel-steps-unstored", on="lessons.monte_carlo.LeapfrogPanel.compute"),
    C(lambda: panel("LeapfrogPanel").draw(None), r"state must be a LeapState", id="leap-panel-draw", on="lessons.monte_carlo.LeapfrogPanel.draw"),
    C(lambda: panel("LeapfrogPanel").format_readout(panel("MonteCarloPanel").compute(n=5)), r"state must be a LeapState", id="leap-panel-readout", on="lessons.monte_carlo.LeapfrogPanel.format_readout"),
    C(lambda: lesson_mc.where_it_opens("BoundPanel"), r"panel must be 'MonteCarloPanel' or 'LeapfrogPanel'", id="mc-where-it-opens", on="lessons.monte_carlo.where_it_opens"),
    C(lambda: lesson_mc.fold("w"), r"w must be an array of real numbers", id="mc-fold-str", on="lessons.monte_carlo.fold"),
    C(lambda: lesson_mc.fold([[0.1, 1.0, 2.0]]), r"w must be draws \(u, v\) of shape \(\.\.\., 2\)", id="mc-fold-shape", on="lessons.monte_carlo.fold"),
    C(lambda: lesson_mc.fold([[0.1, np.nan]]), r"w must contain only finite", id="mc-fold-nan", on="lessons.monte_carlo.fold"),
    C(lambda: lesson_mc.marginal_tests("post", [[0.1, 1.0]] * 4, 2.0), r"post must be a ToyPosterior", id="mc-marginal-post", on="lessons.monte_carlo.marginal_tests"),
    C(lambda: lesson_mc.marginal_tests(toy(), [[0.1, 1.0]] * 4, 0.0), r"ess must be a finite number > 0", id="mc-marginal-ess", on="lessons.monte_carlo.marginal_tests"),
    C(lambda: lesson_mc.diagnostics({}), r"traces must be a non-empty dict of name -> \(chains, draws\) array", id="mc-diag-empty", on="lessons.monte_carlo.diagnostics"),
    C(lambda: lesson_mc.diagnostics({"u": np.ones((0, 10))}), r"traces\['u'\] must be a 2-D array of shape \(chains, draws\) with at least 1 row", id="mc-diag-no-chains", on="lessons.monte_carlo.diagnostics"),
    C(lambda: lesson_mc.diagnostics({"u": np.ones((2, 3))}), r"traces\['u'\] must have at least 4 draws per chain", id="mc-diag-few-draws", on="lessons.monte_carlo.diagnostics"),
    C(lambda: lesson_mc.estimate_table("runs"), r"runs must be a ToyRuns \(toy_runs\(\)\) or None", id="mc-estimate-table", on="lessons.monte_carlo.estimate_table"),
    C(lambda: lesson_mc.cost_summary(None, 1.0, 10), r"runs must be a ToyRuns", id="mc-cost-runs", on="lessons.monte_carlo.cost_summary"),
    C(lambda: lesson_mc.cost_summary(lesson_mc.toy_runs(), -1.0, 10), r"kl_seconds must be a finite number > 0", id="mc-cost-seconds", on="lessons.monte_carlo.cost_summary"),
    C(lambda: lesson_mc.cost_summary(lesson_mc.toy_runs(), 1.0, 2.5), r"kl_iterations must be an integer >= 0", id="mc-cost-iterations", on="lessons.monte_carlo.cost_summary"),
    C(lambda: lesson_mc.cost_table({"kl_error": 0.1}), r"cost must be cost_summary\(\)'s dict with kl_error, kl_iterations", id="mc-cost-table", on="lessons.monte_carlo.cost_table"),
    C(lambda: lesson_mc.sweep_table({}), r"store must be the stored runs \(load_store\(\)\) with sweep_eps", id="mc-sweep-table", on="lessons.monte_carlo.sweep_table"),
    C(lambda: lesson_mc.diagnostics_table({"u": {"r_hat": 1.0}}), r"diag must be diagnostics\(\)'s non-empty dict of name -> r_hat, ess_bulk, ess_tail", id="mc-diag-table", on="lessons.monte_carlo.diagnostics_table"),
    C(lambda: lesson_mc.replicate_table([]), r"store must be the stored runs \(load_store\(\)\) with rep_estimate, rep_se", id="mc-replicate-table", on="lessons.monte_carlo.replicate_table"),
    C(lambda: lesson_mc.replicate_table({"rep_estimate": np.array([0.6]), "rep_se": np.array([0.01])}), r"store\['rep_estimate'\] must have at least 2 entries", id="mc-replicate-one", on="lessons.monte_carlo.replicate_table"),
    C(lambda: lesson_mc.chain_table(None), r"reference must be a stored HMC reference \(load_reference\(\)\) with splits", id="mc-chain-table", on="lessons.monte_carlo.chain_table"),
    C(lambda: lesson_mc.chain_table({"splits": [{"index": 0}]}), r"reference\['splits'\] must be a non-empty list of rows \(dicts with index, test_mse", id="mc-chain-table-rows", on="lessons.monte_carlo.chain_table"),
    C(lambda: lesson_mc.plot_draws(ax()), r"axes must be 3 matplotlib Axes", id="mc-plot-draws-axes", on="lessons.monte_carlo.plot_draws"),
    C(lambda: lesson_mc.plot_draws(new_figure(6, 2, ncols=3)[1], "runs"), r"runs must be a ToyRuns", id="mc-plot-draws-runs", on="lessons.monte_carlo.plot_draws"),
    C(lambda: lesson_mc.plot_draws(new_figure(6, 2, ncols=3)[1], thin=0), r"thin must be an integer in \[1, 1000\]", id="mc-plot-draws-thin", on="lessons.monte_carlo.plot_draws"),
    C(lambda: lesson_mc.plot_boston_traces(ax(), {"traces": {}}), r"axes must be 5 matplotlib Axes", id="mc-boston-traces-axes", on="lessons.monte_carlo.plot_boston_traces"),
    C(lambda: lesson_mc.plot_boston_traces(new_figure(8, 2, ncols=5)[1], {"traces": {"alpha": [[1.0]]}}), r"chains\['traces'\] must be a dict of name -> \(chains, draws\) trace with draw_mse", id="mc-boston-traces-keys", on="lessons.monte_carlo.plot_boston_traces"),
    C(lambda: lesson_mc.plot_boston_traces(new_figure(8, 2, ncols=5)[1], [1.0]), r"chains must be a stored chains file \(load_chains\(\)\) with traces", id="mc-boston-traces-chains", on="lessons.monte_carlo.plot_boston_traces"),
    # --- studies behind lesson 9 and lesson 4's ladder (studies/toy_hmc.py, hmc_chains.py, network_ladder.py):
    #     each refuses before it samples or fits
    C(lambda: toy_hmc.predictive_draws([[0.1, 1.0, 2.0]]), r"w must be draws \(u, v\) of shape \(\.\.\., 2\)", id="toy-hmc-draws-shape", on="studies.toy_hmc.predictive_draws"),
    C(lambda: toy_hmc.predictive_draws([[0.1, 1.0]], x_star=np.inf), r"x_star must be a finite real number", id="toy-hmc-draws-xstar", on="studies.toy_hmc.predictive_draws"),
    C(lambda: toy_hmc.compute_store(n_replicates=1), r"n_replicates must be an integer in \[2, 1000\]", id="toy-hmc-store-reps", on="studies.toy_hmc.compute_store"),
    C(lambda: toy_hmc.compute_store(steps=[0.01, 0.0]), r"steps must be step sizes > 0", id="toy-hmc-store-steps", on="studies.toy_hmc.compute_store"),
    C(lambda: toy_hmc.compute_store(lengths=[]), r"lengths must be a non-empty sequence of integers >= 1", id="toy-hmc-store-lengths", on="studies.toy_hmc.compute_store"),
    C(lambda: toy_hmc.compute_store(lengths=[5, 2.5]), r"lengths must be an integer \[1, 10000\]", id="toy-hmc-store-length", on="studies.toy_hmc.compute_store"),
    C(lambda: toy_hmc.load_store(3), r"path must be None or a str or pathlib.Path", id="toy-hmc-load-type", on="studies.toy_hmc.load_store"),
    C(lambda: toy_hmc.load_store("/no/such/store.npz"), r"path must be an existing stored file", id="toy-hmc-load-missing", on="studies.toy_hmc.load_store"),
    C(lambda: toy_hmc.write_store(3.0), r"path must be None or a str or pathlib.Path", id="toy-hmc-write", on="studies.toy_hmc.write_store"),
    C(lambda: toy_hmc.write_store(force="yes"), r"force must be True or False", id="toy-hmc-write-force", on="studies.toy_hmc.write_store"),
    C(lambda: hmc_chains.chain_traces(thin=0), r"thin must be an integer in \[1, 500\]", id="hmc-chains-thin", on="studies.hmc_chains.chain_traces"),
    C(lambda: hmc_chains.chain_traces(config="cfg"), r"config must be a TableConfig or None", id="hmc-chains-config", on="studies.hmc_chains.chain_traces"),
    C(lambda: hmc_chains.chain_traces(settings={}), r"settings must be a SamplerSettings", id="hmc-chains-settings", on="studies.hmc_chains.chain_traces"),
    C(lambda: hmc_chains.stored_config({"dataset": "boston"}), r"stored must be a stored chains file \(chain_traces\(\)'s dict\) with dataset, index", id="hmc-chains-stored-config", on="studies.hmc_chains.stored_config"),
    C(lambda: hmc_chains.load_chains("iris"), r"dataset must be one of \('boston', 'diabetes'\)", id="hmc-chains-load-dataset", on="studies.hmc_chains.load_chains"),
    C(lambda: hmc_chains.load_chains(directory=3), r"directory must be None or a str or pathlib.Path", id="hmc-chains-load-dir", on="studies.hmc_chains.load_chains"),
    C(lambda: hmc_chains.load_chains(directory="/no/such/folder"), r"directory must be an existing folder", id="hmc-chains-load-missing", on="studies.hmc_chains.load_chains"),
    C(lambda: network_ladder.fit_ladder({"data": {}}), r"config must be a dict with the keys of ladder_config\(\)", id="ladder-fit-config", on="studies.network_ladder.fit_ladder"),
    C(lambda: network_ladder.load_ladder(directory=3), r"directory must be None or a str or pathlib.Path", id="ladder-load-dir", on="studies.network_ladder.load_ladder"),
    C(lambda: network_ladder.load_ladder(directory="/no/such/folder"), r"directory must be an existing folder", id="ladder-load-missing", on="studies.network_ladder.load_ladder"),
    C(lambda: network_ladder.save_ladder(3), r"path must be None or a str or pathlib.Path", id="ladder-save-path", on="studies.network_ladder.save_ladder"),
    C(lambda: network_ladder.save_ladder(force="yes"), r"force must be True or False", id="ladder-save-force", on="studies.network_ladder.save_ladder"),
    # --- lesson 3's stored evidence grid (studies/toy_evidence_grid.py)
    C(lambda: toy_evidence_grid.compute_grid({"n_grid": 3}), r"config must be a dict with the keys of grid_config\(\)", id="teg-compute-config", on="studies.toy_evidence_grid.compute_grid"),
    C(lambda: toy_evidence_grid.load_evidence_grid("toy"), r"post must be a ToyPosterior", id="teg-load-post", on="studies.toy_evidence_grid.load_evidence_grid"),
    C(lambda: toy_evidence_grid.load_evidence_grid(toy_evidence_grid.make_posterior(seed=1)), r"post must hold the stored grid's data", id="teg-load-other-data", on="studies.toy_evidence_grid.load_evidence_grid"),
    C(lambda: toy_evidence_grid.load_evidence_grid(directory="/no/such/folder"), r"directory must be an existing folder", id="teg-load-missing", on="studies.toy_evidence_grid.load_evidence_grid"),
    C(lambda: toy_evidence_grid.save_grid(3), r"path must be None or a str or pathlib.Path", id="teg-save-path", on="studies.toy_evidence_grid.save_grid"),
    C(lambda: toy_evidence_grid.save_grid(force="yes"), r"force must be True or False", id="teg-save-force", on="studies.toy_evidence_grid.save_grid"),
    # --- lesson 3's stored cheap-rule sweep (lessons/bound/cheap_sweep.py)
    C(lambda: cheap_sweep.compute_sweep({"far_counts": [0]}), r"config must be a dict with the keys of sweep_config\(\)", id="cheap-sweep-compute-config", on="lessons.bound.cheap_sweep.compute_sweep"),
    C(lambda: cheap_sweep.compute_sweep({"case": {}, "far_counts": [2, 0]}), r"far_counts must be a non-empty increasing sequence", id="cheap-sweep-compute-counts", on="lessons.bound.cheap_sweep.compute_sweep"),
    C(lambda: cheap_sweep.comparison_from_result({"config": {}}), r"result must be a dict with 'config', 'n_data'", id="cheap-sweep-from-result", on="lessons.bound.cheap_sweep.comparison_from_result"),
    C(lambda: cheap_sweep.load_cheap_comparison(directory="/no/such/folder"), r"directory must be an existing folder", id="cheap-sweep-load-missing", on="lessons.bound.cheap_sweep.load_cheap_comparison"),
    C(lambda: cheap_sweep.save_sweep(3), r"path must be None or a str or pathlib.Path", id="cheap-sweep-save-path", on="lessons.bound.cheap_sweep.save_sweep"),
    C(lambda: cheap_sweep.save_sweep(force="yes"), r"force must be True or False", id="cheap-sweep-save-force", on="lessons.bound.cheap_sweep.save_sweep"),
    # --- lesson 6's stored Occam tables (lessons/model_choice/occam_store.py)
    C(lambda: occam_store.compute_occam({"toy": {}}), r"config must be a dict with the keys of occam_config\(\)", id="occam-store-compute-config", on="lessons.model_choice.occam_store.compute_occam"),
    C(lambda: occam_store.compute_occam({"polynomial": {"n": 20}, "toy": {}}), r"config must hold polynomial_occam's", id="occam-store-compute-inner", on="lessons.model_choice.occam_store.compute_occam"),
    C(lambda: occam_store.occam_from_result([]), r"result must be a dict with 'config', 'polynomial' and 'toy'", id="occam-store-from-result", on="lessons.model_choice.occam_store.occam_from_result"),
    C(lambda: occam_store.load_occam(directory="/no/such/folder"), r"directory must be an existing folder", id="occam-store-load-missing", on="lessons.model_choice.occam_store.load_occam"),
    C(lambda: occam_store.save_occam(3), r"path must be None or a str or pathlib.Path", id="occam-store-save-path", on="lessons.model_choice.occam_store.save_occam"),
    C(lambda: occam_store.save_occam(force="yes"), r"force must be True or False", id="occam-store-save-force", on="lessons.model_choice.occam_store.save_occam"),
    # --- lesson 7's stored mixture ladders (lessons/mixture/ladder_store.py)
    C(lambda: ladder_store.compute_ladder({"alpha": 0.2}), r"config must be a dict with the keys of ladder_config\(\)", id="ladder-store-compute-config", on="lessons.mixture.ladder_store.compute_ladder"),
    C(lambda: ladder_store.compute_ladder({"alpha": -1.0, "seed": 0, "K_max": 4}), r"alpha must be a finite number > 0", id="ladder-store-compute-alpha", on="lessons.mixture.ladder_store.compute_ladder"),
    C(lambda: ladder_store.compute_ladder({"alpha": 0.2, "seed": 0, "K_max": 9}), r"K_max must be", id="ladder-store-compute-kmax", on="lessons.mixture.ladder_store.compute_ladder"),
    C(lambda: ladder_store.ladder_from_result({"config": {}}), r"result must be a dict with 'config', 'single', 'quadrature' and 'bound'", id="ladder-store-from-result", on="lessons.mixture.ladder_store.ladder_from_result"),
    C(lambda: ladder_store.ladder_from_result({"config": ladder_store.ladder_config(), "single": {"mean": [0.0]}, "quadrature": [], "bound": []}), r"result must hold each KLFit with the fields", id="ladder-store-from-result-fit", on="lessons.mixture.ladder_store.ladder_from_result"),
    C(lambda: ladder_store.ladder_from_result({"config": {**ladder_store.ladder_config(), "K_max": "4"}, "single": {}, "quadrature": [], "bound": []}), r"K_max must be", id="ladder-store-from-result-kmax", on="lessons.mixture.ladder_store.ladder_from_result"),
    C(lambda: ladder_store.load_mixtures(directory="/no/such/folder"), r"directory must be an existing folder", id="ladder-store-load-missing", on="lessons.mixture.ladder_store.load_mixtures"),
    C(lambda: ladder_store.save_ladder(3), r"path must be None or a str or pathlib.Path", id="ladder-store-save-path", on="lessons.mixture.ladder_store.save_ladder"),
    C(lambda: ladder_store.save_ladder(force="yes"), r"force must be True or False", id="ladder-store-save-force", on="lessons.mixture.ladder_store.save_ladder"),
    C(lambda: model_choice.occam_figure(poly=[1]), r"poly must be a non-empty sequence of OccamRow", id="occam-figure-rows", on="lessons.model_choice.occam.occam_figure"),
]


@pytest.mark.parametrize("call, pattern", CASES)
def test_a_bad_input_is_refused_with_a_value_error_naming_the_argument(call, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=pattern):
            call()
