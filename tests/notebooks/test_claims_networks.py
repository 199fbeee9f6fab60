"""Lesson 4's quantitative sentences, each tied to the numbers it describes (issue 29, item 3).

Each test names a sentence of ``04_ensemble_learning_for_networks.ipynb`` (found word for word by
``_claims.sentence``) and asserts what it says on numbers the library computes afresh or reads from
the stored study files through their loaders. Sentences written from computed values when the
lesson runs (``opening_sentence``, ``hmc_convergence_note``, the panel's readout) need no claim.
"""

from __future__ import annotations

import numpy as np
import pytest
from _claims import sentence

from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.hyperparameters import GammaHyperprior
from ensemble_lib.inference.network_fits import fit_ensemble, fit_evidence
from ensemble_lib.inference.pruning import DEFAULT_THRESHOLD
from ensemble_lib.lessons import networks as lesson
from ensemble_lib.models.network import NetworkPosterior, add_bias
from ensemble_lib.studies import network_demo as demo
from ensemble_lib.studies.hmc_reference import load_reference
from ensemble_lib.studies.table1 import hmc_comparison, load_table, paired_difference, pruning_summary

NB = "04_ensemble_learning_for_networks.ipynb"


def pm(x: dict, digits: int = 3, sign: str = "") -> str:
    """``x``'s mean ± s.e. as the lesson prints it."""
    return f"{x['mean']:{sign}.{digits}f} ± {x['se']:.{digits}f}".replace("-", "−")


@pytest.fixture(scope="module")
def boston():
    return load_table("boston")


@pytest.fixture(scope="module")
def diabetes():
    return load_table("diabetes")


@pytest.fixture(scope="module")
def hmc():
    return {"boston": load_reference("boston"), "diabetes": load_reference("diabetes")}


def test_boston_network_has_60_weights_and_its_full_covariance_1830_parameters(boston, hmc):
    s = sentence(NB, "For Boston, $d = 13 + 1$ and $H = 4$, so $k = 60$")
    H, d = boston["config"]["n_hidden"], hmc["boston"]["n_inputs"] + 1
    assert (H, d, H * d + H) == (4, 14, 60), s
    s = sentence(NB, "has $k(k+1)/2$ parameters (1830 for Boston)")
    assert CovarianceFamily.make("full", 60).n_params - 60 == 1830, s


def test_demo_has_sixteen_points_with_a_gap_around_zero():
    s = sentence(NB, "Sixteen noisy points of $\\sin(1.5x)$ with a gap around $x=0$")
    x, _ = demo.demo_data()
    assert x.size == 16 and not np.any(np.abs(x) < 0.4), s


def test_hmc_is_far_less_certain_in_the_gap_than_either_approximation():
    s = sentence(NB, "the exact Bayesian answer is far less certain in the gap than either approximation")
    h = lesson.load_hmc_demo()
    mid = int(np.argmin(np.abs(np.asarray(h["x_grid"]))))
    hmc_sd = (h["upper"][mid] - h["lower"][mid]) / 4
    st = demo.load_demo_store()[demo.memo_key(**demo.DEMO_DEFAULTS)]
    g = st.x_grid.size // 2
    assert hmc_sd > 1.5 * max(st.ens_sd[g], st.lap_sd[g]), (s, hmc_sd, st.ens_sd[g], st.lap_sd[g])


def test_what_to_look_for_names_every_regime_where_a_fit_misses_the_data():
    """The audit of all 216 stored settings: a fit misses the data exactly at H = 1, at a large fixed α,
    and at H = 4 adapted, and the readout says why there and nowhere else."""
    s = sentence(NB, "at $H = 1$ one unit cannot bend enough, at a large fixed $\\alpha$ the prior flattens")
    stored = demo.load_demo_store()
    assert len(stored) == 216
    adapted_alpha = {h: max(st.ens_alpha for st in stored.values() if st.adapt and st.n_hidden == h)
                     for h in range(1, 5)}
    for key, st in stored.items():
        note = lesson.misfit_note(st)
        readout = lesson.format_demo_readout(st)
        assert (note is None) == (lesson.data_misfit(st) <= lesson.MISFIT_FACTOR * demo.DEMO_NOISE_SD), key
        assert (note is None) or note in readout
        if note is None:
            continue
        if st.n_hidden == 1:
            assert "monotone" in note, key
        elif not st.adapt:
            assert st.ens_alpha >= 10.0 and "prior" in note, (key, s)  # only a strong prior flattens the fit
        else:
            assert st.n_hidden == 4, key  # H = 2, 3 adapted follow the data
            assert st.ens_alpha > 3 * max(adapted_alpha[h] for h in (2, 3)), key  # a large ᾱ
            assert 1 / np.sqrt(st.ens_beta) > 3 * demo.DEMO_NOISE_SD, key       # a small β̄: noise
    assert all(lesson.misfit_note(stored[demo.memo_key(4, r, 1.0, True)]) for r in range(3))


@pytest.mark.parametrize("rank", [0, 1])
def test_at_h4_adapted_units_switched_off_still_count_as_active(rank):
    """The readout's note at H = 4 adapted: most units are switched off (mean weights ≈ 0) though the
    1 % usage share calls all of them active; re-derived by a fresh fit of the setting."""
    x, t = demo.demo_data()
    X = add_bias(x[:, None])
    post = NetworkPosterior(X, t, 4, alpha=1.0, beta=demo.DEMO_BETA)
    rng = np.random.default_rng(demo.DEMO_SEED)
    st = fit_evidence(post, rng, n_restarts=4).final
    fit = fit_ensemble(post, GammaHyperprior(), "diagonal", init=[st.diagonal_start()], maxiter=1000)
    if rank:
        fit = fit_ensemble(post, GammaHyperprior(), "factor", rank, warm=fit, gtol=1e-5, maxiter=300, rng=rng)
    stored = demo.load_demo_store()[demo.memo_key(4, rank, 1.0, True)]
    v = fit.mean[4 * 2:]
    carrying = int(np.sum(np.abs(v) > 0.05))
    assert stored.ens_active == 4 and carrying <= 1 < stored.ens_active
    assert "most are switched off" in lesson.misfit_note(stored)


def test_table1_protocol_numbers(boston):
    s = sentence(NB, "Barber & Bishop trained $H=4$ erf networks on 128 Boston points")
    cfg = boston["config"]
    assert (cfg["n_hidden"], cfg["n_train"]) == (4, 128), s
    assert cfg["prior"] == {"a": 0.25, "b": 400.0, "c": 0.05, "d": 2000.0}
    assert boston["paper"] == {"ensemble_s1": 0.22, "ensemble_diagonal": 0.28, "laplace_evidence": 0.33}
    s = sentence(NB, "test on all other 378 rows, and repeat over 10 random splits")
    assert {sp["n_test"] for sp in boston["splits"]} == {378} and len(boston["splits"]) == 10, s
    s = sentence(NB, "MacKay's evidence framework from 3 random starts")
    assert cfg["n_restarts"] == 3, s


def test_hmc_sampler_settings(hmc):
    s = sentence(NB, "8 chains × 2000 draws")
    for ref in hmc.values():
        assert (ref["sampler"]["num_chains"], ref["sampler"]["num_samples"]) == (8, 2000), s
    s = sentence(NB, "the table carries it into \"minus HMC\", marked †")
    boston = load_table("boston")
    cmp = hmc_comparison(boston, hmc["boston"])
    assert cmp["marked"] and all(cmp[k]["se"] > cmp[k]["se_splits"] for k in boston["methods"]), s
    assert "†" in str(lesson.table1_text(boston, hmc["boston"])), s


def test_claims_about_the_papers_table(boston, hmc):
    m, cmp = boston["methods"], hmc_comparison(boston, hmc["boston"])
    s = sentence(NB, "*Laplace/evidence 0.33*: **supported** — 0.333 ± 0.016")
    assert pm(m["laplace_evidence"]["test_mse"]) == "0.333 ± 0.016", s
    s = sentence(NB, "It is also the furthest from HMC (+0.107 ± 0.013)")
    assert pm(cmp["laplace_evidence"], sign="+") == "+0.107 ± 0.013", s
    assert max(cmp[k]["mean"] for k in m) == cmp["laplace_evidence"]["mean"]  # the furthest from HMC
    s = sentence(NB, "*Ensemble, diagonal 0.28*: our 0.300 ± 0.040 is consistent with it")
    assert pm(m["ensemble_diagonal"]["test_mse"]) == "0.300 ± 0.040"
    d = paired_difference(boston, "ensemble_diagonal", "laplace_evidence")
    assert pm(d) == "−0.034 ± 0.029" and abs(d["mean"]) < 2 * d["se"], s  # not significant
    s = sentence(NB, "s = 1 minus diagonal −0.0009 ± 0.0002")
    d = paired_difference(boston, "ensemble_s1", "ensemble_diagonal")
    assert pm(d, 4) == "−0.0009 ± 0.0002", s
    s = sentence(NB, "So does s = 4 on 9 of the 10 splits; on split 3")
    same = [i for i, sp in enumerate(boston["splits"])
            if sp["methods"]["ensemble_s4"]["active_units"] == sp["methods"]["ensemble_s1"]["active_units"]
            and abs(sp["methods"]["ensemble_s4"]["test_mse"] - sp["methods"]["ensemble_s1"]["test_mse"]) < 0.01]
    assert len(same) == 9 and 3 not in same, s
    s3 = {k: boston["splits"][3]["methods"][k] for k in ("ensemble_s4", "ensemble_s1")}
    assert (s3["ensemble_s4"]["active_units"], s3["ensemble_s1"]["active_units"]) == (3, 1), s
    assert (f"{s3['ensemble_s4']['test_mse']:.3f}", f"{s3['ensemble_s1']['test_mse']:.3f}") == ("0.348", "0.526"), s
    assert pm(m["ensemble_s4"]["test_mse"]) == "0.279 ± 0.031", s
    s = sentence(NB, "One factor of 60 directions raises the bound by 1–2 nats")
    gain = m["ensemble_s1"]["bound"]["mean"] - m["ensemble_diagonal"]["bound"]["mean"]
    assert 1 <= gain <= 2, s
    for sp in boston["splits"]:  # the same optimum: the same units and nearly the same error
        a, b = sp["methods"]["ensemble_s1"], sp["methods"]["ensemble_diagonal"]
        assert a["active_units"] == b["active_units"] and abs(a["test_mse"] - b["test_mse"]) < 0.01


def test_full_covariance_claims(boston, hmc):
    m, cmp = boston["methods"], hmc_comparison(boston, hmc["boston"])
    s = sentence(NB, "It has by far the highest bound (−117.6 against −133 to −138)")
    others = [m[k]["bound"]["mean"] for k in m if k.startswith("ensemble") and k != "ensemble_full"]
    assert f"{m['ensemble_full']['bound']['mean']:.1f}" == "-117.6"
    assert (round(max(others)), round(min(others))) == (-133, -138), s
    assert pm(m["ensemble_full"]["test_mse"]) == "0.248 ± 0.019"
    assert min(m[k]["test_mse"]["mean"] for k in m) == m["ensemble_full"]["test_mse"]["mean"]
    assert pm(paired_difference(boston, "laplace_evidence", "ensemble_full")) == "0.086 ± 0.015"
    assert pm(cmp["ensemble_full"], sign="+") == "+0.021 ± 0.011"
    assert min(cmp[k]["mean"] for k in m) == cmp["ensemble_full"]["mean"]


def test_hmc_on_boston_is_near_the_papers_s1_number_but_has_not_converged(boston, hmc):
    s = sentence(NB, "*HMC itself*, 0.226 ± 0.013, is within its standard error of the paper's s = 1 number (0.22)")
    h = hmc_comparison(boston, hmc["boston"])["hmc"]
    assert pm(h) == "0.226 ± 0.013" and abs(h["mean"] - boston["paper"]["ensemble_s1"]) < h["se"], s
    assert max(sp["r_hat_max"] for sp in hmc["boston"]["splits"]) > lesson.R_HAT_CONVERGED
    s = sentence(NB, "it has not converged on 9 of its 10 splits")
    assert sum(not sp["converged"] for sp in hmc["boston"]["splits"]) == 9, s
    assert max(sp["r_hat_max"] for sp in hmc["diabetes"]["splits"]) <= 1.01  # "well converged"


def test_hyperparameter_and_laplace_bound_claims(boston):
    m = boston["methods"]
    s = sentence(NB, "the pruned ensembles infer much more noise (β̄ ≈ 6–7)")
    pruned = [m[k]["beta"]["mean"] for k in ("ensemble_diagonal", "ensemble_s1", "ensemble_s2", "ensemble_s4")]
    assert all(round(b) in (6, 7) for b in pruned), s
    assert round(m["ensemble_full"]["beta"]["mean"]) in (12, 13)
    assert round(m["laplace_evidence"]["beta"]["mean"]) == 17
    s = sentence(NB, "is far below every ensemble bound (−167 against −118 to −138)")
    ens = [m[k]["bound"]["mean"] for k in m if k.startswith("ensemble")]
    assert round(m["laplace_evidence"]["bound"]["mean"]) == -167, s
    assert (round(max(ens)), round(min(ens))) == (-118, -138), s
    s = sentence(NB, "where predicting the training mean scores ≈ 1.07")
    assert round(boston["baseline_mse"]["mean"], 2) == 1.07 and boston["splits"][0]["n_test"] == 378, s


def test_pruning_claims(boston, diabetes):
    s = sentence(NB, "MacKay's Laplace networks keep all 4 units on every split")
    units = {k: [sp["methods"][k]["active_units"] for sp in boston["splits"]] for k in boston["methods"]}
    assert set(units["laplace_evidence"]) == {4}, s
    s = sentence(NB, "keep 1 or 2 (mean 1.7; the s = 4 family 3 on one split), the full covariance 3 on average")
    low = [u for k in ("ensemble_diagonal", "ensemble_s1", "ensemble_s2") for u in units[k]]
    assert set(low) == {1, 2} and round(np.mean(low), 1) == 1.7, s
    assert set(units["ensemble_s4"]) == {1, 2, 3} and units["ensemble_s4"].count(3) == 1, s
    full = units["ensemble_full"]
    assert np.mean(full) == 3.0 and (min(full), max(full)) == (2, 4)
    s = sentence(NB, "mean test error 0.45 against 0.23 for two units")
    by = pruning_summary(boston)["by_units"]
    assert (round(by[1]["test_mse"], 2), round(by[2]["test_mse"], 2)) == (0.45, 0.23), s
    s = sentence(NB, "mean rank correlation −0.45 on Boston, −0.75 on diabetes")
    pb, pd = pruning_summary(boston), pruning_summary(diabetes)
    assert (f"{pb['rank_correlation']:.2f}", f"{pd['rank_correlation']:.2f}") == ("-0.45", "-0.75"), s
    assert pb["n_splits"] - pb["best_bound_not_best_prediction"] == 8 and pd["best_bound_not_best_prediction"] == 0


def test_bound_is_not_a_guarantee(boston):
    s = sentence(NB, "among fits with nearly the same bound the test error still varies by 0.1 or more")
    spread, as_good = 0.0, False
    for sp in boston["splits"]:
        tr = sp["trials"]
        best = max(tr, key=lambda t: t["bound"])
        for a in tr:
            near = [abs(a["test_mse"] - b["test_mse"]) for b in tr if abs(a["bound"] - b["bound"]) < 1]
            spread = max([spread, *near])
            as_good |= 20 <= best["bound"] - a["bound"] <= 30 and a["test_mse"] <= best["test_mse"]
    assert spread >= 0.1 and as_good, s


def test_diabetes_claims(diabetes, hmc):
    s = sentence(NB, "(442 patients, 10 inputs, disease progression after one year)")
    ref = hmc["diabetes"]
    assert (ref["n_samples"], ref["n_inputs"]) == (442, 10), s
    cfg = diabetes["config"]
    assert (cfg["n_train"], cfg["n_hidden"], cfg["n_hidden"] * (10 + 1) + cfg["n_hidden"]) == (128, 4, 48)
    s = sentence(NB, "the **full covariance matches HMC** (+0.002 ± 0.003)")
    cmp = hmc_comparison(diabetes, ref)
    assert cmp["r_hat_max"] <= 1.01 and pm(cmp["ensemble_full"], sign="+") == "+0.002 ± 0.003", s
    assert abs(cmp["ensemble_full"]["mean"]) < 2 * cmp["ensemble_full"]["se"]
    rest = [cmp[k]["mean"] for k in ("ensemble_diagonal", "ensemble_s1", "ensemble_s2", "ensemble_s4")]
    assert (f"{min(rest):+.3f}", f"{max(rest):+.3f}") == ("+0.022", "+0.024")
    assert pm(cmp["laplace_evidence"], sign="+") == "+0.105 ± 0.013"
    assert max(cmp[k]["mean"] for k in diabetes["methods"]) == cmp["laplace_evidence"]["mean"]


def test_summary_claims(boston, hmc):
    s = sentence(NB, "Laplace (0.333 ± 0.016) matches the paper's 0.33")
    m = boston["methods"]
    assert pm(m["laplace_evidence"]["test_mse"]) == "0.333 ± 0.016" and "(≈ 0.30)" in s
    assert all(round(m[k]["test_mse"]["mean"], 2) == 0.30 for k in ("ensemble_diagonal", "ensemble_s1", "ensemble_s2"))
    assert "s = 4 does on all splits but one" in s  # test_claims_about_the_papers_table: split 3
    assert pm(m["ensemble_full"]["test_mse"]) == "0.248 ± 0.019" and "(0.248 ± 0.019)" in s and "(0.226 ± 0.013)" in s
    s = sentence(NB, "Laplace keeps all 4 units, the diagonal and factor ensembles 1–2 (s = 4 once 3), the full")
    assert m["laplace_evidence"]["active_units"]["mean"] == 4.0, s
    assert m["ensemble_full"]["active_units"]["mean"] == 3.0, s


def test_usage_threshold_is_one_percent():
    s = sentence(NB, "is at least 1% (`ensemble_lib.inference.pruning.unit_usage`)")
    assert DEFAULT_THRESHOLD == 0.01, s


# -- §8: cheap predictive distributions (MacKay §9.2) -------------------------------------------------
# (the section's comparisons are written by retraining_sentence when the lesson runs; these are its
# sentences in plain Markdown)

def test_retraining_200_networks_from_w_mp_at_the_evidence_hyperparameters_with_the_same_noise():
    sentence(NB, "Here the demo network of §6 ($H=2$) is retrained 200 times at MacKay's")
    sentence(NB, "The thin lines are MacKay's first twelve networks")
    from ensemble_lib.inference.noisy_retraining import noisy_retraining
    from ensemble_lib.studies import retraining_demo as study

    a = study.load_retraining()
    assert a["config"]["n_draws"] == 200 and study.N_MACKAY == 12 and a["config"]["n_hidden"] == 2
    post, st = study.evidence_mode(a["config"])
    assert np.allclose(st.mean, a["w_mp"], atol=1e-6)
    sentence(NB, "once with the prior's mean perturbed and once without (the same target noise in both")
    draws = [noisy_retraining(post, st.mean, 2, rng=np.random.default_rng(a["config"]["seed"]), perturb_prior=p)
             for p in (True, False)]
    assert np.array_equal(draws[0].noise, draws[1].noise)
    assert draws[0].sigma_nu == pytest.approx(float(a["beta"]) ** -0.5)


def test_retraining_the_linear_model_claims_are_the_tests_of_the_library():
    sentence(NB, "the draws are **exact posterior samples**")
    sentence(NB, "without the prior perturbation it is $\\mathbf A^{-1}-\\alpha\\mathbf A^{-2}$")
    # the identity behind the second sentence, checked here on a random model: A^-1 beta Phi^T Phi A^-1
    rng = np.random.default_rng(0)
    Phi, alpha, beta = rng.normal(size=(9, 4)), 0.7, 3.0
    A = alpha * np.eye(4) + beta * Phi.T @ Phi
    Ai = np.linalg.inv(A)
    assert np.allclose(Ai @ (beta * Phi.T @ Phi) @ Ai, Ai - alpha * Ai @ Ai)
    assert np.allclose(Ai @ (beta * Phi.T @ Phi + alpha * np.eye(4)) @ Ai, Ai)
