"""The stored HMC references (figures/hmc_reference_*.json) against the convergence rule, their
Monte Carlo error, and an independent replicate of each (figures/hmc_replicate1_*.json).

* the jackknife over chains (``chain_jackknife``) against the spread of the pooled test MSE over
  many simulated sets of chains (Monte Carlo, with its own standard error stated);
* every stored split either meets the rule (R-hat ≤ 1.05, bulk ESS ≥ 400) or carries a Monte Carlo
  standard error, and Table 1's "minus HMC" then carries it and is marked;
* the replicate (other sampler seeds, the same settings) agrees with the reference on every split
  within their stated uncertainty.

These read stored JSON only (no sampler): they run without the ``reference`` extra.
"""

import numpy as np
import pytest

from ensemble_lib.studies import hmc_reference as ref
from ensemble_lib.studies import table1 as t1

DATASETS = ("boston", "diabetes")


def test_chain_jackknife_matches_the_spread_of_the_pooled_mse_over_repeated_runs():
    """Chains that fall in one of two modes at random (and add their own noise): the jackknife's
    average s.e. over 4000 simulated runs of 8 chains is the s.d. of the pooled test MSE over those
    runs, within 10 % (the s.d.'s own Monte Carlo error is about 1.1 %, the jackknife's bias with 8
    chains a few %)."""
    rng = np.random.default_rng(20261127)
    n_test, C, runs = 50, 8, 4000
    y = rng.normal(size=n_test)
    modes = np.stack([y + 0.3 * rng.normal(size=n_test), y + 0.6 * rng.normal(size=n_test)])
    mse, se = np.empty(runs), np.empty(runs)
    for r in range(runs):
        which = rng.integers(0, 2, size=C)
        chains = modes[which] + 0.05 * rng.normal(size=(C, n_test))
        mse[r], se[r] = ref.chain_jackknife(chains, y)
        if r == 0:  # the pooled value is the MSE of the average of the chains' means
            assert mse[r] == pytest.approx(np.mean((chains.mean(axis=0) - y) ** 2))
    assert np.mean(se) == pytest.approx(np.std(mse, ddof=1), rel=0.10)


def test_chain_jackknife_is_zero_when_the_chains_agree():
    chains = np.tile(np.linspace(-1, 1, 7), (4, 1))
    mse, se = ref.chain_jackknife(chains, np.zeros(7))
    assert se == pytest.approx(0.0, abs=1e-15) and mse == pytest.approx(np.mean(np.linspace(-1, 1, 7) ** 2))


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_stored_split_converged_or_carries_its_monte_carlo_error(dataset):
    stored = ref.load_reference(dataset)
    assert stored["sampler"] == ref.FULL_SAMPLER.as_dict()
    assert stored["convergence"] == {"r_hat_target": ref.R_HAT_TARGET, "ess_target": ref.ESS_TARGET}
    for s in stored["splits"]:
        # the stored flag is the rule applied to the stored diagnostics
        assert s["converged"] == (s["r_hat_max"] <= ref.R_HAT_TARGET and s["ess_min"] >= ref.ESS_TARGET)
        assert s["test_mse_mc_se"] is not None and s["test_mse_mc_se"] >= 0
        if not s["converged"]:
            assert s["test_mse_mc_se"] > 0
    cmp = t1.hmc_comparison(t1.load_table(dataset), stored)
    n_ok = sum(s["converged"] for s in stored["splits"])
    assert cmp["n_converged"] == n_ok and cmp["marked"] == (n_ok < len(stored["splits"]))
    for key in t1.load_table(dataset)["methods"]:
        assert cmp[key]["se"] >= cmp[key]["se_splits"] and cmp[key]["se"] >= cmp[key]["mc_se"] > 0


@pytest.mark.parametrize("dataset", DATASETS)
def test_an_independent_replicate_agrees_within_the_stated_uncertainty(dataset):
    stored, other = ref.load_reference(dataset), ref.load_replicate(dataset, 1)
    assert other["replicate"] == 1 and other["sampler"] == stored["sampler"]
    # other seeds: the draws differ
    assert all(a["sampler_seed"] != b["sampler_seed"] for a, b in zip(stored["splits"], other["splits"]))
    agree = ref.replicate_agreement(stored, other)
    assert agree["n_splits"] == len(stored["splits"]) == 10
    # |z| <= 3 on every split: two runs of one sampler differ only by the Monte Carlo error each states
    assert agree["z_max"] <= 3.0, [(r["index"], round(r["z"], 2)) for r in agree["splits"]]
    for r in agree["splits"]:
        assert r["difference"] == pytest.approx(r["test_mse"][0] - r["test_mse"][1])


def test_replicate_agreement_refuses_runs_that_are_not_replicates():
    stored = ref.load_reference("boston")
    with pytest.raises(ValueError, match="independent replicate"):
        ref.replicate_agreement(stored, stored)
    with pytest.raises(ValueError, match="same data set, protocol and sampler"):
        ref.replicate_agreement(stored, {**ref.load_reference("diabetes"), "replicate": 1})
