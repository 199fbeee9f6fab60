"""Reading the stored Table-1 study and comparing its methods, without refitting anything.

The stored tables (``figures/boston_table1.json``, ``figures/diabetes_table.json``, written by
:mod:`ensemble_lib.studies.table1`) and the stored HMC references are what lessons 4 and 6, the
README and the figures read:

* :func:`load_table`, :func:`stored_hmc`: the stored results;
* :func:`hmc_comparison`: each method's excess test error over Hamiltonian Monte Carlo, paired by
  split, with HMC's own Monte Carlo error carried;
* :func:`paired_difference`: the paired difference between two methods;
* :func:`pruning_summary`: what separates the ensemble optima (active hidden units, bound against
  test error);
* :func:`format_table`: the table as text.

Every name is also importable from :mod:`ensemble_lib.studies.table1`.
"""

from __future__ import annotations

import numpy as np

from .hmc_reference import R_HAT_TARGET, load_reference
from .splits import mean_se
from .store import load_json

#: Barber & Bishop's Table 1 (test mean squared error, Boston, 128 training points)
PAPER_TABLE1 = {"ensemble_s1": 0.22, "ensemble_diagonal": 0.28, "laplace_evidence": 0.33}
#: method keys in table order, with their labels
METHOD_LABELS = {
    "ensemble_s1": "Ensemble (s = 1)",
    "ensemble_diagonal": "Ensemble (diagonal)",
    "laplace_evidence": "Laplace (MacKay evidence)",
    "ensemble_s2": "Ensemble (s = 2)",
    "ensemble_s4": "Ensemble (s = 4)",
    "ensemble_full": "Ensemble (full covariance)",
}
#: where ``--table`` stores its results (relative to the repository root)
TABLE_FILES = {"boston": "boston_table1.json", "diabetes": "diabetes_table.json"}


def _check_result(name: str, value, keys=("methods", "splits", "config")) -> None:
    """A stored study result (a dict with ``keys``), or a ValueError naming ``name``."""
    if not isinstance(value, dict) or not all(k in value for k in keys):
        raise ValueError(f"{name} must be a stored result (load_table() or load_reference()): a dict with "
                         f"{', '.join(keys)}, got {type(value).__name__}")


def load_table(name: str = "boston", directory=None) -> dict:
    """Read a stored table (``figures/boston_table1.json`` or ``figures/diabetes_table.json``)."""
    if name not in TABLE_FILES:
        raise ValueError(f"name must be one of {sorted(TABLE_FILES)}, got {name!r}")
    return load_json(TABLE_FILES[name], directory, command="python -m ensemble_lib.studies.table1 --table")


def stored_hmc(directory=None) -> dict:
    """The stored HMC references that exist (``figures/hmc_reference_*.json``), by data set."""
    out = {}
    for name in TABLE_FILES:
        try:
            out[name] = load_reference(name, directory)
        except FileNotFoundError:
            pass
    return out




def hmc_comparison(result: dict, hmc: dict) -> dict:
    """Every method's excess test MSE over Hamiltonian Monte Carlo, paired by split.

    ``hmc`` is a stored reference (:func:`~ensemble_lib.studies.hmc_reference.load_reference`)
    of the same data set and split protocol (training size, H, hyperpriors, seed: checked). For
    each method, the per-split differences ``test_mse(method) − test_mse(HMC)`` over the splits
    both hold: their mean and standard error (a paired comparison, so the split-to-split spread
    that both share cancels). ``"hmc"`` holds HMC's own test MSE over the same splits, and
    ``"r_hat_max"`` the worst split's R-hat (HMC's convergence: near 1 is good).

    HMC's own Monte Carlo error is carried into each excess: a split's ``test_mse_mc_se`` (the
    spread between its chains, where the reference stores one) adds ``Σ mc_se² / n²`` to the
    squared standard error; ``"se_splits"`` keeps the split-to-split part alone and ``"mc_se"`` the
    Monte Carlo part. ``"n_converged"`` counts the splits whose chains met the reference's
    convergence rule (``converged``, or R-hat ≤ 1.05 in a reference that predates it), and
    ``"marked"`` is true when some did not: the excesses then measure the distance to a sampler
    whose chains disagree, within the carried uncertainty.
    """
    _check_result("result", result)
    _check_result("hmc", hmc, ("config", "splits"))
    same = ("n_train", "n_hidden", "seed", "prior")
    a, b = result["config"], hmc["config"]
    if result.get("dataset") != hmc.get("dataset") or any(a[k] != b[k] for k in same):
        raise ValueError(f"hmc must be a reference of the same data set and protocol ({', '.join(same)}); "
                         f"got {hmc.get('dataset')} {dict((k, b.get(k)) for k in same)} for "
                         f"{result.get('dataset')} {dict((k, a[k]) for k in same)}")
    ref = {s["index"]: s for s in hmc["splits"]}
    splits = [s for s in result["splits"] if s["index"] in ref]
    if not splits:
        raise ValueError("hmc holds none of the table's splits")
    n = len(splits)
    mc_se = float(np.sqrt(sum(float(ref[s["index"]].get("test_mse_mc_se") or 0.0) ** 2 for s in splits))) / n
    out = {}
    for key in result["methods"]:
        d = mean_se([s["methods"][key]["test_mse"] - ref[s["index"]]["test_mse"] for s in splits])
        d["se_splits"], d["mc_se"] = d["se"], mc_se
        if d["se"] is not None:
            d["se"] = float(np.hypot(d["se"], mc_se))
        out[key] = d
    out["hmc"] = mean_se([ref[s["index"]]["test_mse"] for s in splits])
    out["n_splits"] = n
    out["r_hat_max"] = max(float(ref[s["index"]]["r_hat_max"]) for s in splits)
    out["n_converged"] = sum(bool(ref[s["index"]].get("converged", float(ref[s["index"]]["r_hat_max"]) <= R_HAT_TARGET))
                             for s in splits)
    out["marked"] = out["n_converged"] < n
    return out


def paired_difference(result: dict, a: str, b: str) -> dict:
    """``test_mse(a) − test_mse(b)`` per split: mean and standard error over the splits (paired)."""
    _check_result("result", result, ("methods", "splits"))
    for key in (a, b):
        if key not in result["methods"]:
            raise ValueError(f"method must be one of {sorted(result['methods'])}, got {key!r}")
    out = mean_se([s["methods"][a]["test_mse"] - s["methods"][b]["test_mse"] for s in result["splits"]])
    out["n_splits"] = len(result["splits"])
    return out


def pruning_summary(result: dict) -> dict:
    """What separates the ensemble optima, from every stored fit (family bests and all trials).

    Returns
    -------
    dict
        ``by_units``: active hidden units → number of family-best fits with that many and their
        mean test MSE; ``best_bound_not_best_prediction``: splits on which the ensemble family
        with the highest bound does not have the lowest test error among the ensemble families
        (beyond 0.005), out of ``n_splits``; ``rank_correlation``: the mean over splits of
        Spearman's correlation between bound and test MSE across all of that split's fits (−1:
        a higher bound always predicts better; 0: unrelated); ``fewer_units_than_laplace``:
        family-best fits with fewer active units than the split's Laplace network, of ``n_fits``.
    """
    _check_result("result", result, ("methods", "splits"))
    # scipy.stats on first use: a lesson that imports this module only to read the stored study
    # (lesson 6) does not pay for importing it in its Run All
    from scipy.stats import spearmanr

    keys = [k for k in result["methods"] if k.startswith("ensemble")]
    by_units: dict = {}
    mismatch, rhos, fewer, n_fits = 0, [], 0, 0
    for s in result["splits"]:
        m = s["methods"]
        for k in keys:
            by_units.setdefault(int(m[k]["active_units"]), []).append(m[k]["test_mse"])
            fewer += int(m[k]["active_units"] < m["laplace_evidence"]["active_units"])
            n_fits += 1
        top = max(keys, key=lambda k: m[k]["bound"])
        if m[top]["test_mse"] > min(m[k]["test_mse"] for k in keys) + 0.005:
            mismatch += 1
        b = [t["bound"] for t in s["trials"]]
        e = [t["test_mse"] for t in s["trials"]]
        if len(set(b)) > 2:
            rhos.append(float(spearmanr(b, e).statistic))
    return {"by_units": {u: {"n": len(v), "test_mse": float(np.mean(v))} for u, v in sorted(by_units.items())},
            "best_bound_not_best_prediction": mismatch, "n_splits": len(result["splits"]),
            "rank_correlation": float(np.mean(rhos)) if rhos else None,
            "fewer_units_than_laplace": fewer, "n_fits": n_fits}


def format_table(result: dict, hmc: dict | None = None) -> str:
    """The stored table as text: test MSE ± s.e., the paper's, excess over HMC, active units, bound, α, β.

    An excess over HMC is marked ``†`` when some of the reference's splits did not converge (its
    standard error then carries HMC's Monte Carlo error, :func:`hmc_comparison`); HMC's own line
    says how many of its splits converged."""
    _check_result("result", result, ("methods",))
    paper = result.get("paper") or {}
    cmp = hmc_comparison(result, hmc) if hmc is not None else None
    lines = [f"{'method':28s} {'test MSE':>15s} {'paper':>6s} {'minus HMC':>17s} {'units':>5s} "
             f"{'bound F*':>16s} {'ln ev (Lapl.)':>13s} {'alpha':>8s} {'beta':>8s}"]
    for key in [k for k in METHOD_LABELS if k in result["methods"]]:
        m = result["methods"][key]
        mse, F, le = m["test_mse"], m["bound"], m["log_evidence"]
        ex = (f"{cmp[key]['mean']:+8.3f} ± {cmp[key]['se']:5.3f}" + ("†" if cmp["marked"] else " ")
              if cmp is not None else f"{'-':>17s}")
        units = m.get("active_units", {}).get("mean")
        lines.append(
            f"{m['label']:28s} {mse['mean']:7.3f} ± {mse['se']:5.3f} "
            f"{paper.get(key, float('nan')):6.2f} {ex} "
            + (f"{units:5.1f}" if units is not None else f"{'-':>5s}")
            + f" {F['mean']:8.1f} ± {F['se']:5.1f} "
            + (f"{le['mean']:13.1f}" if le["mean"] is not None else f"{'-':>13s}")
            + f" {m['alpha']['mean']:8.3g} {m['beta']['mean']:8.3g}")
    if cmp is not None:
        h = cmp["hmc"]
        conv = f"({cmp['n_converged']}/{cmp['n_splits']} converged)"
        lines.append(f"{'HMC (NUTS, the reference)':28s} {h['mean']:7.3f} ± {h['se']:5.3f} "
                     f"{'':6s} {conv:>17s}")
    b = result["baseline_mse"]
    lines.append(f"{'(predict the training mean)':28s} {b['mean']:7.3f} ± {b['se']:5.3f}")
    return "\n".join(lines).replace(" nan", "   -")


__all__ = ["METHOD_LABELS", "PAPER_TABLE1", "TABLE_FILES", "format_table", "hmc_comparison", "load_table",
           "paired_difference", "pruning_summary", "stored_hmc"]
