"""The Table-1 study (B&B §2.3): ensemble fits vs MacKay's evidence over random splits.

Barber & Bishop (1998) §2.3, Table 1 (Boston housing, 128 training points,
H = 4): test mean squared error of the ensemble with factor covariance s = 1,
the diagonal ensemble and Laplace with MacKay's evidence framework.

* :class:`~ensemble_lib.studies.splits.TableConfig` (in :mod:`~ensemble_lib.studies.splits`, shared
  with the other studies): the protocol (training size, H, hyperpriors, splits, the optimiser budget);
* :func:`fit_split`, :func:`run_split`: one split, fitted fairly — every covariance family from the
  same Laplace starts of every MAP restart and from every other family's solution, the best bound
  winning (:func:`~ensemble_lib.inference.family_search.fit_families`) — with each fit's active
  hidden units (:func:`~ensemble_lib.inference.pruning.unit_usage`) and every trial recorded;
* :func:`run_tables`, :func:`run_table`: every split, in parallel processes (joblib)
  (``python -m ensemble_lib.studies.table1 --table``), stored in ``figures/boston_table1.json``
  and ``figures/diabetes_table.json`` without wall times, so a rerun gives identical JSON. The
  paper used 128 training and 250 test points; we test on all the other 378 rows and average over
  random splits;
* reading and comparing the stored tables without refitting anything (:func:`load_table`,
  :func:`stored_hmc`, :func:`hmc_comparison`, :func:`paired_difference`, :func:`pruning_summary`,
  :func:`format_table`) lives in :mod:`ensemble_lib.studies.table1_results` and is importable from
  here too (lesson 4, :mod:`ensemble_lib.lessons.networks`, draws them).

What a split costs (issue 30; benchmarks/results/table1-speed-2026-11-27.md). Every fit is
L-BFGS-B on the collapsed bound with the same budget (``gtol``, ``maxiter``) and the same memory
``TableConfig.maxcor`` for every family. The memory is 100 (the tables stored before it was a
setting used 30): with 30 a factor family's fit needs 2–3.5× the evaluations to the same optimum
(its columns rotate freely, a flat direction a short memory learns slowly), with 100 it stops at
the gradient tolerance instead of a stalled line search; the full family needs ~10 % fewer
evaluations but each L-BFGS-B step costs more, so its fits take ~30 % longer. So the number of
evaluations each family gets changes, by one setting shared by all of them; the starts, the rule
of the cross-family rounds and the selection rule do not (which local optimum a search ends in
can: on Boston split 0 the s = 1 and s = 2 bests moved by −0.06 and −0.12 nats, the report says
why). The s = 2 and s = 4 fits are all kept: a poorer family's optimum is
never an optimum of the next family (at it ∂F*/∂C has a zero diagonal, so a positive eigenvalue
unless it is a stationary point of the full family too, and a factor along that eigenvector raises
the bound), so their answer cannot be derived from the s = 1 fit
(tests/inference/test_family_search.py checks this on a small network).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass
from functools import partial as partial_fn
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.family_search import families, fit_families, laplace_starts
from ..inference.network_fits import CollapsedBound, EnsembleFit, fit_evidence
from ..inference.pruning import unit_usage
from ..models.network import NetworkPosterior, network_output
from .runner import add_run_options, check_output, finish, partial_path, resume_command, run_splits
from .splits import TableConfig, config_from_table, load_dataset, make_split, mean_se
from .store import FIGURES_DIR, SCRATCH_DIR, TqdmProgress, save_json, study_parser, write_times
from .table1_results import (METHOD_LABELS, PAPER_TABLE1, TABLE_FILES, format_table, hmc_comparison,  # noqa: F401
                             load_table, paired_difference, pruning_summary, stored_hmc)


def _row(post, X_train, X_test, y_test, mean, cov) -> dict:
    """Test error and active hidden units of one Gaussian (``cov`` None: the MAP network)."""
    if cov is None:
        pred = network_output(mean, X_test, post.n_hidden)
    else:
        pred = post.predictive_mean(mean, cov, X_test)
    usage = unit_usage(mean, cov, X_train, post.n_hidden)
    return {"test_mse": float(np.mean((pred - y_test) ** 2)), "active_units": usage.n_active,
            "unit_shares": [round(float(v), 6) for v in usage.shares]}


def _ensemble_row(fit: EnsembleFit, post, X_train, X_test, y_test) -> dict:
    row = _row(post, X_train, X_test, y_test, fit.mean, fit.cov)
    row.update({"bound": float(fit.bound), "log_evidence": None, "alpha": float(fit.alpha),
                "beta": float(fit.beta), "converged": bool(fit.converged),
                "at_limit": bool(fit.at_limit), "n_iter": int(fit.n_iter)})
    return row


def families_of(config: TableConfig) -> list:
    """The covariance families a configuration compares: diagonal, factor s for s in ``ranks``, full."""
    return families(config.ranks, config.full)


@dataclass(frozen=True)
class SplitFit:
    """Every fit of one split (:func:`fit_split`): the posterior, the evidence restarts, the family search."""

    index: int
    post: NetworkPosterior
    X_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    evidence: object
    families: tuple
    search: object


def fit_split(X, y, config: TableConfig, index: int = 0, progress=None) -> SplitFit:
    """Fit every method on one random split, every covariance family from the same starts.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Raw inputs (a bias column is appended after standardising).
    y : array_like, shape (N,)
        Raw targets.
    config : TableConfig
    index : int
        Split number i ≥ 0 (selects the random generators, see :class:`TableConfig`).
    progress : callable, optional
        ``progress(done, total, what=None)`` after each fit (the library's callback shape).

    Notes
    -----
    The fair protocol (:func:`~ensemble_lib.inference.family_search.fit_families`):
    MacKay's evidence framework from ``config.n_restarts`` random starts gives one Laplace
    Gaussian per restart; every family (diagonal, factor s, full) is fitted from every one of
    them (the diagonal family from both 1/A_ii and diag(A⁻¹) variances, the others from A⁻¹),
    then from every other family's best solution, until no family's best bound improves; within
    each family the largest bound wins. Every fit has the same budget (``config.gtol``,
    ``config.maxiter``) and the same optimiser settings (L-BFGS-B with memory ``config.maxcor``).
    The Laplace row is the restart with the largest Laplace evidence.
    """
    split, Xtr, Xte = make_split(X, y, config, index)
    index = int(index)
    post = NetworkPosterior(Xtr, split.y_train, config.n_hidden, alpha=1.0, beta=1.0)
    bad = [r for r in config.ranks if r > post.dim - 1]
    if bad:
        raise ValueError(f"ranks must lie in [1, k - 1] = [1, {post.dim - 1}] for this network, got {bad}")
    ev = fit_evidence(post, np.random.default_rng([config.seed, index, 1]),
                      n_restarts=config.n_restarts)
    starts = []
    for j, run in enumerate(ev.restarts):
        starts += laplace_starts(run.final.mean, run.final.hessian, label=f"map{j}")
    fams = families_of(config)
    search = fit_families(post, config.prior, starts, fams,
                          rng=np.random.default_rng([config.seed, index, 2]),
                          gtol=config.gtol, maxiter=config.maxiter, progress=progress,
                          maxcor=config.maxcor)
    return SplitFit(index=index, post=post, X_train=Xtr, X_test=Xte, y_test=split.y_test,
                    evidence=ev, families=tuple(fams), search=search)


def run_split(X, y, config: TableConfig, index: int = 0, progress=None) -> dict:
    """:func:`fit_split`, recorded as JSON-ready numbers.

    Returns
    -------
    dict
        ``methods``: method key → ``test_mse`` (standardised target units), ``bound``
        (F*(Q) of the method's Gaussian; for Laplace, of N(w_MP, A⁻¹)), ``log_evidence``
        (MacKay (20) with ln H!2^H, Laplace only), ``alpha``, ``beta``, ``converged``,
        ``at_limit``, ``active_units`` and ``unit_shares`` (each hidden unit's share of
        Σ_n⟨f²⟩ on the training inputs, :func:`~ensemble_lib.inference.pruning.unit_usage`),
        ``origin`` (the start the family's best fit came from); ``trials``: every fit of every
        family from every start (bound, test error, active units), so the local optima can be
        compared; ``laplace_restarts``: every MAP restart; ``rounds`` and ``settled`` of the
        cross-family restarts; ``baseline_mse`` (predicting the training mean, i.e. 0).
    """
    f = fit_split(X, y, config, index, progress)
    post, Xtr, Xte, y_test, ev, search = f.post, f.X_train, f.X_test, f.y_test, f.evidence, f.search
    st = ev.final
    cb = CollapsedBound(post, config.prior)
    lap = _row(post, Xtr, Xte, y_test, st.mean, None)
    lap.update({"bound": cb.bound(st.mean, st.cov), "log_evidence": float(st.log_evidence),
                "alpha": float(st.alpha), "beta": float(st.beta), "gamma": float(st.gamma),
                "converged": bool(ev.converged), "at_limit": False, "n_iter": int(ev.n_iter),
                "origin": f"map{next(j for j, r in enumerate(ev.restarts) if r.final is st)}"})
    rows = {"laplace_evidence": lap}
    restarts = []
    for j, run in enumerate(ev.restarts):
        r = _row(post, Xtr, Xte, y_test, run.final.mean, None)
        restarts.append({"restart": f"map{j}", "log_evidence": float(run.final.log_evidence),
                         "converged": bool(run.converged), "alpha": float(run.final.alpha),
                         "beta": float(run.final.beta), "test_mse": r["test_mse"],
                         "active_units": r["active_units"]})
    for fam in f.families:
        row = _ensemble_row(search.best[fam.key], post, Xtr, Xte, y_test)
        row["origin"] = search.origin[fam.key]
        rows[fam.key] = row
    trials = []
    for t in search.trials:
        r = _row(post, Xtr, Xte, y_test, t.fit.mean, t.fit.cov)
        trials.append({"family": t.family, "start": t.start, "bound": t.bound,
                       "test_mse": r["test_mse"], "active_units": r["active_units"],
                       "converged": t.converged, "at_limit": bool(t.fit.at_limit)})
    return {"index": index, "methods": rows, "trials": trials, "laplace_restarts": restarts,
            "rounds": int(search.rounds), "settled": bool(search.settled),
            "baseline_mse": float(np.mean(y_test ** 2)), "n_test": int(y_test.size)}


def summarise(splits: list[dict]) -> dict:
    """Method → mean and standard error (s.d./√n over splits) of each recorded quantity."""
    if (isinstance(splits, (str, bytes, dict)) or not hasattr(splits, "__len__") or not splits
            or not all(isinstance(s, dict) and isinstance(s.get("methods"), dict) for s in splits)):
        raise ValueError("splits must be a non-empty list of split results (dicts with 'methods'), "
                         f"got {type(splits).__name__}")
    keys = [k for k in METHOD_LABELS if k in splits[0]["methods"]]
    out = {}
    for key in keys:
        rows = [s["methods"][key] for s in splits]
        out[key] = {q: mean_se([r[q] for r in rows])
                    for q in ("test_mse", "bound", "log_evidence", "alpha", "beta", "active_units")}
        out[key]["label"] = METHOD_LABELS[key]
        out[key]["n_converged"] = int(sum(bool(r["converged"]) for r in rows))
        out[key]["n_at_limit"] = int(sum(bool(r.get("at_limit")) for r in rows))
    return out


def _split_summary(res: dict) -> str:
    """One line for a finished split: every method's test MSE and active hidden units."""
    mse = ", ".join(f"{k} {v['test_mse']:.3f} ({v['active_units']} units)"
                    for k, v in res["methods"].items())
    return f"split {res['index']}: test MSE {mse}"


def _split_result(dataset: str, index: int, config: "TableConfig") -> dict:
    """One split of one data set (in a worker process)."""
    data = load_dataset(dataset)
    return run_split(data.X, data.y, config, index)


def run_tables(datasets=tuple(TABLE_FILES), config: "TableConfig | None" = None, n_jobs: int | None = None,
               progress=None, *, partial=None, resume: bool = False, force: bool = False,
               backend: str = "loky", scheduler: str | None = None,
               resume_command: str | None = None) -> tuple[dict, dict]:
    """:func:`run_split` for every split of every data set, in parallel processes (joblib).

    Returns ``(results, seconds)``: data set → the JSON-ready table (see :func:`run_table`), and
    data set → the wall time of each split (timings are kept out of the table, so running the
    command twice gives identical JSON). ``n_jobs`` worker processes (default: one per core;
    ``1`` runs in this process). ``progress(done, total, what)`` is called as each split finishes
    (in any order); the results are ordered by split.

    The splits run through :func:`~ensemble_lib.studies.runner.run_splits`: with ``partial`` (a
    file) each finished split is kept there at once and ``resume`` continues from it;
    ``backend="dask"`` with ``scheduler`` sends the splits to an existing Dask cluster.
    """
    datasets = check.sequence("datasets", datasets)
    if not datasets:
        raise ValueError(f"datasets must name at least one of {sorted(TABLE_FILES)}, got none")
    for name in datasets:
        load_dataset(name)  # a bad name fails here, before any work starts
    config = TableConfig() if config is None else config
    if not isinstance(config, TableConfig):
        raise ValueError(f"config must be a TableConfig, got {type(config).__name__}")
    n_jobs = (os.cpu_count() or 1) if n_jobs is None else check.integer("n_jobs", n_jobs, low=1, high=256)
    jobs = [(name, i) for name in datasets for i in range(config.n_splits)]
    # every split runs with one BLAS thread (run_splits), so splits do not compete and their bits
    # do not depend on --jobs
    found, secs = run_splits(
        jobs, partial_fn(_split_result, config=config),
        config={"datasets": datasets, "table": config.as_dict()}, partial=partial, resume=resume,
        force=force, n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress,
        describe=lambda key, res, s: f"{key[0]} {_split_summary(res)}; {s:.0f} s",
        resume_command=resume_command)
    results, seconds = {}, {}
    for name in datasets:
        splits = [found[(name, i)] for i in range(config.n_splits)]
        results[name] = _table(name, config, splits)
        seconds[name] = [secs[(name, i)] for i in range(config.n_splits)]
    return results, seconds


def _table(dataset: str, config: "TableConfig", splits: list[dict]) -> dict:
    data = load_dataset(dataset)
    return {
        "dataset": dataset,
        "n_samples": data.n_samples,
        "n_inputs": data.n_features,
        "config": config.as_dict(),
        "units": "mean squared error of targets standardised with the training mean and s.d.",
        "command": f"python -m ensemble_lib.studies.table1 --table --datasets {dataset}",
        "methods": summarise(splits),
        "paper": PAPER_TABLE1 if dataset == "boston" else None,
        "baseline_mse": mean_se([s["baseline_mse"] for s in splits]),
        "splits": splits,
        "note": data.note,
    }


def run_table(dataset: str = "boston", config: TableConfig | None = None, progress=None,
              n_jobs: int | None = 1) -> dict:
    """The Table-1 study on one data set: :func:`run_split` over ``config.n_splits`` splits, summarised.

    Parameters
    ----------
    dataset : {"boston", "diabetes"}
    config : TableConfig, optional
        Default: the paper's protocol with 10 splits.
    progress : callable, optional
        The library's progress callback, ``progress(done, total, what=None)``, called
        after each split; ``what`` summarises the split just finished.
    n_jobs : int, optional
        Worker processes (:func:`run_tables`); default 1 (this process).

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``config``, ``methods`` (method → mean and
        standard error of ``test_mse``, ``bound``, ``log_evidence``, ``alpha``,
        ``beta``, ``active_units``; counts of converged and iteration-limited fits),
        ``paper`` (Table 1, Boston only), ``baseline_mse``, ``splits`` (every split's
        numbers, :func:`run_split`) and ``note``. No wall times: the same configuration gives
        the same JSON.
    """
    return run_tables([dataset], config, n_jobs=n_jobs, progress=progress)[0][dataset]


def write_table(result: dict, path) -> Path:
    """Write a :func:`run_table` result as indented JSON (sorted keys, atomically) and return the path."""
    return save_json(result, path)


def verify_split(datasets, index: int, directory=None, rel: float = 1e-9) -> list[str]:
    """Re-run split ``index`` of each stored table from its stored configuration; list differences.

    Every number of the split's JSON record (methods, trials, restarts) is compared with the
    stored one to relative tolerance ``rel``; an empty list means the split was re-derived. On the
    machine that made the table every number agrees to 1e-9. On another CPU the floating point
    differs in its last bits (numpy's SIMD kernels), each optimiser's end point moves by about 1e-8,
    iteration counts differ, and a search can reach another local optimum (README, Table 1).
    """
    rel = check.positive("rel", rel, upper=1.0)
    bad = []

    def compare(a, b, where):
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                bad.append(f"{where}: keys {sorted(set(a) ^ set(b))}")
            for k in set(a) & set(b):
                compare(a[k], b[k], f"{where}.{k}")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                bad.append(f"{where}: {len(a)} items stored, {len(b)} re-derived")
            for i, (x, y) in enumerate(zip(a, b)):
                compare(x, y, f"{where}[{i}]")
        elif isinstance(a, float) or isinstance(b, float):
            if not math.isclose(a, b, rel_tol=rel, abs_tol=1e-12):
                bad.append(f"{where}: stored {a!r}, re-derived {b!r}")
        elif a != b:
            bad.append(f"{where}: stored {a!r}, re-derived {b!r}")

    for name in datasets:
        stored = load_table(name, directory)
        data = load_dataset(name)
        again = json.loads(json.dumps(run_split(data.X, data.y, config_from_table(stored), index)))
        compare(stored["splits"][index], again, f"{name} split {index}")
    return bad


def main(argv=None) -> None:
    """``python -m ensemble_lib.studies.table1 --table``: recompute and store the tables."""
    parser = study_parser("Barber & Bishop's Table 1 (Boston) and the same study on the diabetes data",
                          jobs=None, outdir="scratch",
                          times="also write each split's wall time to this JSON file (the benchmark "
                                "report's study times; the tables themselves hold no timings)")
    parser.add_argument("--table", action="store_true", help="recompute and store the tables")
    parser.add_argument("--datasets", nargs="*", default=["boston", "diabetes"])
    parser.add_argument("--n-splits", type=int, default=TableConfig.n_splits)
    parser.add_argument("--n-train", type=int, default=TableConfig.n_train)
    parser.add_argument("--n-hidden", type=int, default=TableConfig.n_hidden)
    parser.add_argument("--ranks", type=int, nargs="*", default=list(TableConfig.ranks))
    parser.add_argument("--n-restarts", type=int, default=TableConfig.n_restarts)
    parser.add_argument("--maxcor", type=int, default=TableConfig.maxcor,
                        help="L-BFGS-B's memory for every fit (default %(default)s; the tables stored "
                             "before this option were made with 30)")
    parser.add_argument("--verify-split", type=int, default=None, metavar="I",
                        help="re-run split I of each stored table (--datasets) from its stored "
                             "configuration and compare every number with the stored ones")
    parser.add_argument("--rel", type=float, default=1e-9,
                        help="--verify-split's relative tolerance (default 1e-9: the same machine "
                             "re-derives the numbers; another CPU's floating point moves each "
                             "optimiser's end point, and can lead a search to another local optimum)")
    add_run_options(parser)
    args = parser.parse_args(argv)
    if args.verify_split is not None:
        bad = verify_split(args.datasets, args.verify_split,
                           FIGURES_DIR if args.outdir is None else Path(args.outdir), rel=args.rel)
        if bad:
            raise SystemExit("stored split differs:\n" + "\n".join(bad))
        print(f"split {args.verify_split} of {', '.join(args.datasets)}: every stored number re-derived")
        return
    if not args.table:
        parser.error("nothing to do: pass --table (or --verify-split I)")
    if not args.datasets or not set(args.datasets) <= set(TABLE_FILES):
        raise ValueError(f"--datasets must name one or more of {sorted(TABLE_FILES)}, got {args.datasets}")
    config = TableConfig(n_train=args.n_train, n_hidden=args.n_hidden, ranks=tuple(args.ranks),
                         n_splits=args.n_splits, n_restarts=args.n_restarts, maxcor=args.maxcor)
    outdir = Path(args.outdir) if args.outdir is not None else output_dir(config)
    outs = {name: outdir / TABLE_FILES[name] for name in args.datasets}
    try:  # before any work: a stored table of another configuration stays
        for out in outs.values():
            check_output(out, config.as_dict(), force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    partial = partial_path(outdir / ("table1_" + "_".join(args.datasets)))
    t0 = time.perf_counter()
    bar = TqdmProgress("Table 1 splits")
    try:
        results, seconds = run_tables(
            args.datasets, config, n_jobs=args.jobs, progress=bar, partial=partial, resume=args.resume,
            force=args.force, backend=args.backend, scheduler=args.scheduler,
            resume_command=resume_command("ensemble_lib.studies.table1", sys.argv[1:] if argv is None else argv))
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    hmc = stored_hmc()
    for name, result in results.items():
        path = write_table(result, outs[name])
        try:
            text = format_table(result, hmc.get(name))
        except ValueError:  # a reference of another protocol: the table without HMC
            text = format_table(result)
        print(f"{path}\n{text}", flush=True)
    finish(partial)
    print(f"wall time {wall:.0f} s for {sum(len(v) for v in seconds.values())} splits", flush=True)
    if args.times:
        write_times({"wall_seconds": round(wall, 1), "split_seconds": seconds,
                     "n_jobs": args.jobs or os.cpu_count(),
                     "config": config.as_dict(), "date": time.strftime("%Y-%m-%d")}, args.times)


def output_dir(config: TableConfig) -> Path:
    """Where ``--table`` writes without ``--outdir``: ``figures/`` for the published protocol
    (:class:`TableConfig`'s defaults), ``build/studies/`` for a quick or partial run."""
    return FIGURES_DIR if config == TableConfig() else SCRATCH_DIR


__all__ = ["METHOD_LABELS", "TABLE_FILES", "TableConfig", "format_table", "hmc_comparison", "load_table", "main",
           "paired_difference", "pruning_summary", "run_table", "run_tables", "stored_hmc"]


if __name__ == "__main__":
    main()
