"""Reading and comparing the stored Table-1 study (ensemble_lib.studies.table1_results).

The paired comparison with Hamiltonian Monte Carlo, the paired differences between methods and the
pruning summary, each on numbers whose answer is known, and the stored tables beside the stored
HMC references.
"""

from __future__ import annotations

import math

import pytest

from ensemble_lib.studies import table1_results as t1
from ensemble_lib.studies.hmc_reference import load_reference
from ensemble_lib.studies.splits import TableConfig


def _fake(dataset, mses, hmc_mses):
    cfg = TableConfig().as_dict()
    result = {"dataset": dataset, "config": cfg, "methods": {k: {} for k in mses},
              "splits": [{"index": i, "methods": {k: {"test_mse": v[i]} for k, v in mses.items()}}
                         for i in range(len(hmc_mses))]}
    hmc = {"dataset": dataset, "config": cfg,
           "splits": [{"index": i, "test_mse": m, "r_hat_max": 1.0 + 0.01 * i} for i, m in enumerate(hmc_mses)]}
    return result, hmc


def test_hmc_comparison_is_paired_by_split():
    hmc_mse = [0.2, 0.5, 0.3, 0.9]
    # a method exactly 0.05 worse than HMC on every split: mean 0.05 and no spread, however
    # much the splits differ; another worse by 0, 0.1, 0.2, 0.3 (mean 0.15, s.d. 0.1291)
    result, hmc = _fake("boston", {"a": [m + 0.05 for m in hmc_mse],
                                   "b": [m + 0.1 * i for i, m in enumerate(hmc_mse)]}, hmc_mse)
    cmp = t1.hmc_comparison(result, hmc)
    assert cmp["a"]["mean"] == pytest.approx(0.05) and cmp["a"]["se"] == pytest.approx(0.0, abs=1e-12)
    assert cmp["b"]["mean"] == pytest.approx(0.15)
    assert cmp["b"]["se"] == pytest.approx(math.sqrt(((0.15**2 + 0.05**2) * 2) / 3) / 2)
    assert cmp["hmc"]["mean"] == pytest.approx(0.475) and cmp["n_splits"] == 4
    assert cmp["r_hat_max"] == pytest.approx(1.03)


def test_hmc_comparison_carries_hmcs_monte_carlo_error_and_marks_unconverged_splits():
    hmc_mse = [0.2, 0.5, 0.3, 0.9]
    result, hmc = _fake("boston", {"laplace_evidence": [m + 0.05 for m in hmc_mse]}, hmc_mse)
    for s, se, ok in zip(hmc["splits"], (0.03, 0.0, 0.04, 0.0), (False, True, False, True)):
        s.update(test_mse_mc_se=se, converged=ok)
    cmp = t1.hmc_comparison(result, hmc)["laplace_evidence"]
    # no split-to-split spread: the s.e. is HMC's Monte Carlo error alone, sqrt(0.03² + 0.04²) / 4
    assert cmp["se_splits"] == pytest.approx(0.0, abs=1e-12)
    assert cmp["se"] == pytest.approx(0.05 / 4) and cmp["mc_se"] == pytest.approx(0.05 / 4)
    cmp = t1.hmc_comparison(result, hmc)
    assert cmp["n_converged"] == 2 and cmp["marked"]
    ms = {"mean": 0.3, "se": 0.01}
    result["methods"]["laplace_evidence"] = {"label": "Laplace", "test_mse": ms, "bound": ms, "log_evidence": ms,
                                             "alpha": ms, "beta": ms}
    text = t1.format_table({**result, "baseline_mse": ms}, hmc)
    assert "+0.050 ± 0.013†" in text and "(2/4 converged)" in text
    for s in hmc["splits"]:
        s["converged"] = True
    assert not t1.hmc_comparison(result, hmc)["marked"]
    # a reference that predates "converged": R-hat <= 1.05 counts (1.00 … 1.03 here)
    for s in hmc["splits"]:
        del s["converged"]
    assert t1.hmc_comparison(result, hmc)["n_converged"] == 4


def test_hmc_comparison_refuses_another_protocol():
    result, hmc = _fake("boston", {"a": [0.3, 0.4]}, [0.2, 0.3])
    hmc["config"] = dict(hmc["config"], n_train=64)
    with pytest.raises(ValueError, match="same data set and protocol"):
        t1.hmc_comparison(result, hmc)
    result, hmc = _fake("boston", {"a": [0.3]}, [0.2])
    hmc["dataset"] = "diabetes"
    with pytest.raises(ValueError, match="same data set"):
        t1.hmc_comparison(result, hmc)


def test_stored_tables_beside_the_stored_hmc_reference():
    """The stored tables and HMC references describe the same splits, so the table can show HMC."""
    for name in ("boston", "diabetes"):
        cmp = t1.hmc_comparison(t1.load_table(name), load_reference(name))
        assert cmp["n_splits"] == 10
        assert "minus HMC" in t1.format_table(t1.load_table(name), load_reference(name))


def _split(index, rows, trials):
    return {"index": index, "methods": {k: dict(zip(("bound", "test_mse", "active_units"), v))
                                        for k, v in rows.items()},
            "trials": [dict(zip(("bound", "test_mse"), t)) for t in trials]}


def test_pruning_summary_counts_what_it_says():
    # split 0: the highest bound (full) also predicts best; split 1: the highest bound (diagonal,
    # 1 unit) predicts worst. Trials: a higher bound means a lower error on split 0 (rho = -1) and
    # a higher error on split 1 (rho = +1).
    s0 = _split(0, {"laplace_evidence": (-80.0, 0.30, 4), "ensemble_diagonal": (-60.0, 0.25, 2),
                    "ensemble_full": (-50.0, 0.20, 3)}, [(-60, 0.25), (-55, 0.22), (-50, 0.20)])
    s1 = _split(1, {"laplace_evidence": (-80.0, 0.30, 4), "ensemble_diagonal": (-40.0, 0.50, 1),
                    "ensemble_full": (-45.0, 0.26, 3)}, [(-45, 0.26), (-42, 0.40), (-40, 0.50)])
    out = t1.pruning_summary({"splits": [s0, s1], "methods": s0["methods"]})
    assert out["best_bound_not_best_prediction"] == 1 and out["n_splits"] == 2
    assert out["rank_correlation"] == pytest.approx(0.0)
    assert out["by_units"] == {1: {"n": 1, "test_mse": 0.50}, 2: {"n": 1, "test_mse": 0.25},
                               3: {"n": 2, "test_mse": pytest.approx(0.23)}}
    assert out["fewer_units_than_laplace"] == 4 and out["n_fits"] == 4


def test_paired_difference():
    s = [_split(i, {"a": (0, m + 0.1, 1), "b": (0, m, 1)}, []) for i, m in enumerate((0.2, 0.9, 0.4))]
    out = t1.paired_difference({"splits": s, "methods": s[0]["methods"]}, "a", "b")
    assert out["mean"] == pytest.approx(0.1) and out["se"] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="method must be one of"):
        t1.paired_difference({"splits": s, "methods": s[0]["methods"]}, "a", "c")
