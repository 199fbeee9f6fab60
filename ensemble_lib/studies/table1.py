"""The Table-1 study (B&B §2.3): ensemble fits vs MacKay's evidence over random splits.

Barber & Bishop (1998) §2.3, Table 1 (Boston housing, 128 training points,
H = 4): test mean squared error of the ensemble with factor covariance s = 1,
the diagonal ensemble and Laplace with MacKay's evidence framework.

* :class:`TableConfig`: the protocol (training size, H, hyperpriors, splits);
* :func:`run_split`, :func:`run_table`: fit every method on each random split
  (``python -m ensemble_lib.studies.table1 --table``), stored in
  ``figures/boston_table1.json`` and ``figures/diabetes_table.json``. The paper
  used 128 training and 250 test points; we test on all the other 378 rows
  and average over random splits;
* :func:`load_table`, :func:`format_table`, :func:`table_figure`,
  :func:`write_figures`: read, print and re-plot the stored tables without
  refitting anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _validation as check
from .._progress import report

from ..inference.hyperparameters import GammaHyperprior
from ..inference.network_fits import CollapsedBound, EnsembleFit, fit_ensemble, fit_evidence
from ..models.network import NetworkPosterior, network_output

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


@dataclass(frozen=True)
class TableConfig:
    """The Table-1 protocol (Barber & Bishop §2.3) and our additions.

    Attributes
    ----------
    n_train : int
        Training rows (128 in the paper); the rest are the test set.
    n_hidden : int
        Hidden units H (4 in the paper).
    prior : GammaHyperprior
        a = 0.25, b = 400, c = 0.05, d = 2000 (the paper's).
    ranks : tuple of int
        Factor-analysis ranks s fitted besides the diagonal (B&B (26)).
    full : bool
        Also fit the full covariance.
    n_splits : int
        Random train/test splits (mean ± standard error over them).
    n_restarts : int
        Random restarts of MacKay's MAP search per split.
    seed : int
        Split i uses ``default_rng([seed, i])``, its restarts ``default_rng([seed, i, 1])``.
    """

    n_train: int = 128
    n_hidden: int = 4
    prior: GammaHyperprior = GammaHyperprior()
    ranks: tuple = (1, 2, 4)
    full: bool = True
    n_splits: int = 10
    n_restarts: int = 3
    seed: int = 0

    def __post_init__(self):
        check.integer("n_train", self.n_train, low=2)
        check.integer("n_hidden", self.n_hidden, low=1, high=20)
        check.integer("n_splits", self.n_splits, low=1, high=1000)
        check.integer("n_restarts", self.n_restarts, low=1, high=100)
        check.integer("seed", self.seed, low=0)
        if not isinstance(self.prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(self.prior).__name__}")
        ranks = tuple(sorted(set(check.integer("ranks", r, low=1) for r in self.ranks)))
        object.__setattr__(self, "ranks", ranks)

    def as_dict(self) -> dict:
        return {"n_train": self.n_train, "n_hidden": self.n_hidden,
                "prior": {"a": self.prior.a, "b": self.prior.b, "c": self.prior.c, "d": self.prior.d},
                "ranks": list(self.ranks), "full": self.full, "n_splits": self.n_splits,
                "n_restarts": self.n_restarts, "seed": self.seed}


def _ensemble_row(fit: EnsembleFit, post, X_test, y_test) -> dict:
    pred = post.predictive_mean(fit.mean, fit.cov, X_test)
    return {"test_mse": float(np.mean((pred - y_test) ** 2)), "bound": fit.bound,
            "log_evidence": None, "alpha": fit.alpha, "beta": fit.beta,
            "converged": fit.converged, "n_iter": fit.n_iter}


def make_split(X, y, config: TableConfig, index: int = 0):
    """Split ``index`` of the protocol: ``(split, X_train, X_test)`` with the bias column appended.

    The split is drawn with ``default_rng([config.seed, index])`` and standardised on its
    training rows (:func:`~ensemble_lib.studies.datasets.train_test_split_standardised`); the
    Table-1 study and the HMC reference both use it, so they see the same rows.
    """
    from ..models.network import add_bias
    from .datasets import train_test_split_standardised

    if not isinstance(config, TableConfig):
        raise ValueError(f"config must be a TableConfig, got {type(config).__name__}")
    index = check.integer("index", index, low=0)
    split = train_test_split_standardised(X, y, config.n_train,
                                          np.random.default_rng([config.seed, index]))
    return split, add_bias(split.X_train), add_bias(split.X_test)


def run_split(X, y, config: TableConfig, index: int = 0) -> dict:
    """Fit every method on one random split and return its test errors and diagnostics.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Raw inputs (a bias column is appended after standardising).
    y : array_like, shape (N,)
        Raw targets.
    config : TableConfig
    index : int
        Split number i ≥ 0 (selects the random generators, see :class:`TableConfig`).

    Returns
    -------
    dict
        ``methods``: method key → ``test_mse`` (standardised target units),
        ``bound`` (F*(Q) of the method's Gaussian; for Laplace, of
        N(w_MP, A⁻¹)), ``log_evidence`` (MacKay's eq. 20 with ln H!2^H, Laplace
        only), ``alpha``, ``beta``, ``converged``; ``baseline_mse`` (predicting
        the training mean, i.e. 0) and ``seconds``.

    Notes
    -----
    Order of fits: MacKay's evidence (restarts; best Laplace evidence wins);
    the diagonal ensemble from the Laplace mode with variances 1/A_ii; each
    factor rank from the poorer family's solution *and* from the Laplace
    Gaussian (best bound wins); the full covariance from the richest factor
    solution and from the Laplace Gaussian. So the bound cannot decrease
    from diagonal to s to full (up to the optimiser's tolerance).
    """
    import time

    t0 = time.perf_counter()
    split, Xtr, Xte = make_split(X, y, config, index)
    index = int(index)
    post = NetworkPosterior(Xtr, split.y_train, config.n_hidden, alpha=1.0, beta=1.0)
    bad = [r for r in config.ranks if r > post.dim - 1]
    if bad:
        raise ValueError(f"ranks must lie in [1, k - 1] = [1, {post.dim - 1}] for this network, got {bad}")
    ev = fit_evidence(post, np.random.default_rng([config.seed, index, 1]),
                      n_restarts=config.n_restarts)
    st = ev.final
    cb = CollapsedBound(post, config.prior)
    rows = {"laplace_evidence": {
        "test_mse": float(np.mean((network_output(st.mean, Xte, post.n_hidden) - split.y_test) ** 2)),
        "bound": cb.bound(st.mean, st.cov), "log_evidence": float(st.log_evidence),
        "alpha": float(st.alpha), "beta": float(st.beta), "gamma": float(st.gamma),
        "converged": bool(ev.converged), "n_iter": int(ev.n_iter)}}
    laplace_start = [(st.mean, st.cov)]
    prev = fit_ensemble(post, config.prior, "diagonal",
                        init=[st.diagonal_start()])
    rows["ensemble_diagonal"] = _ensemble_row(prev, post, Xte, split.y_test)
    for r in config.ranks:
        prev = fit_ensemble(post, config.prior, "factor", r, init=laplace_start, warm=prev)
        rows[f"ensemble_s{r}"] = _ensemble_row(prev, post, Xte, split.y_test)
    if config.full:
        full = fit_ensemble(post, config.prior, "full", init=[(prev.mean, prev.cov)] + laplace_start)
        rows["ensemble_full"] = _ensemble_row(full, post, Xte, split.y_test)
    return {"index": index, "methods": rows, "baseline_mse": float(np.mean(split.y_test ** 2)),
            "n_test": split.n_test, "seconds": time.perf_counter() - t0}


def _mean_se(values) -> dict:
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size == 0:
        return {"mean": None, "se": None}
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else None
    return {"mean": float(v.mean()), "se": se}


def summarise(splits: list[dict]) -> dict:
    """Method → mean and standard error (s.d./√n over splits) of each recorded quantity."""
    keys = [k for k in METHOD_LABELS if k in splits[0]["methods"]]
    out = {}
    for key in keys:
        rows = [s["methods"][key] for s in splits]
        out[key] = {q: _mean_se([r[q] for r in rows])
                    for q in ("test_mse", "bound", "log_evidence", "alpha", "beta")}
        out[key]["label"] = METHOD_LABELS[key]
        out[key]["n_converged"] = int(sum(bool(r["converged"]) for r in rows))
    return out


def _split_summary(res: dict) -> str:
    """One line for a finished split: its time and every method's test MSE."""
    mse = ", ".join(f"{k} {v['test_mse']:.3f}" for k, v in res["methods"].items())
    return f"split {res['index']}: {res['seconds']:.0f} s; test MSE {mse}"


def run_table(dataset: str = "boston", config: TableConfig | None = None, progress=None) -> dict:
    """The Table-1 study: :func:`run_split` over ``config.n_splits`` splits, summarised.

    Parameters
    ----------
    dataset : {"boston", "diabetes"}
    config : TableConfig, optional
        Default: the paper's protocol with 10 splits.
    progress : callable, optional
        The library's progress callback, ``progress(done, total, what=None)``, called
        after each split; ``what`` summarises the split just finished.

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``config``, ``methods`` (method → mean and
        standard error of ``test_mse``, ``bound``, ``log_evidence``, ``alpha``,
        ``beta``), ``paper`` (Table 1, Boston only), ``baseline_mse``,
        ``splits`` (every split's numbers) and ``note``.
    """
    from .datasets import load_boston, load_diabetes

    loaders = {"boston": load_boston, "diabetes": load_diabetes}
    if dataset not in loaders:
        raise ValueError(f"dataset must be one of {sorted(loaders)}, got {dataset!r}")
    config = TableConfig() if config is None else config
    data = loaders[dataset]()
    splits = []
    report(progress, 0, config.n_splits)
    for i in range(config.n_splits):
        splits.append(run_split(data.X, data.y, config, i))
        report(progress, i + 1, config.n_splits, what=_split_summary(splits[-1]))
    return {
        "dataset": dataset,
        "n_samples": data.n_samples,
        "n_inputs": data.n_features,
        "config": config.as_dict(),
        "units": "mean squared error of targets standardised with the training mean and s.d.",
        "command": f"python -m ensemble_lib.studies.table1 --table --datasets {dataset}",
        "methods": summarise(splits),
        "paper": PAPER_TABLE1 if dataset == "boston" else None,
        "baseline_mse": _mean_se([s["baseline_mse"] for s in splits]),
        "splits": splits,
        "note": data.note,
    }


def write_table(result: dict, path) -> "Path":
    """Write a :func:`run_table` result as indented JSON (sorted keys) and return the path."""
    import json
    from pathlib import Path

    path = Path(path)
    path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return path


def load_table(name: str = "boston", directory=None) -> dict:
    """Read a stored table (``figures/boston_table1.json`` or ``figures/diabetes_table.json``)."""
    import json

    from ..ui.figures import DEFAULT_OUTDIR

    if name not in TABLE_FILES:
        raise ValueError(f"name must be one of {sorted(TABLE_FILES)}, got {name!r}")
    directory = DEFAULT_OUTDIR if directory is None else directory
    from pathlib import Path

    path = Path(directory) / TABLE_FILES[name]
    if not path.is_file():
        raise FileNotFoundError(
            f"{path.name} is missing: run `python -m ensemble_lib.studies.table1 --table` to make it")
    return json.loads(path.read_text())


def format_table(result: dict) -> str:
    """The stored table as fixed-precision text: test MSE ± s.e., bound, α, β (and the paper's)."""
    paper = result.get("paper") or {}
    lines = [f"{'method':28s} {'test MSE':>15s} {'paper':>6s} {'bound F*':>16s} "
             f"{'ln ev (Lapl.)':>13s} {'alpha':>8s} {'beta':>8s}"]
    for key in [k for k in METHOD_LABELS if k in result["methods"]]:
        m = result["methods"][key]
        mse, F, le = m["test_mse"], m["bound"], m["log_evidence"]
        lines.append(
            f"{m['label']:28s} {mse['mean']:7.3f} ± {mse['se']:5.3f} "
            f"{paper.get(key, float('nan')):6.2f} {F['mean']:8.1f} ± {F['se']:5.1f} "
            + (f"{le['mean']:13.1f}" if le["mean"] is not None else f"{'-':>13s}")
            + f" {m['alpha']['mean']:8.3g} {m['beta']['mean']:8.3g}")
    b = result["baseline_mse"]
    lines.append(f"{'(predict the training mean)':28s} {b['mean']:7.3f} ± {b['se']:5.3f}")
    return "\n".join(lines).replace(" nan", "   -")



# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_table(ax, result: dict, title: str | None = None):
    """Test MSE ± 1 standard error per method (bars), the paper's Table 1 as crosses."""
    from ..ui.plotting import COLORS

    keys = [k for k in METHOD_LABELS if k in result["methods"]]
    colors = {"laplace_evidence": COLORS["laplace"], "ensemble_diagonal": COLORS["diagonal"],
              "ensemble_full": COLORS["full"]}
    y = np.arange(len(keys))[::-1]
    m = [result["methods"][k]["test_mse"]["mean"] for k in keys]
    se = [result["methods"][k]["test_mse"]["se"] or 0.0 for k in keys]
    arts = [ax.barh(y, m, xerr=se, color=[colors.get(k, COLORS["factor"]) for k in keys],
                    alpha=0.6, capsize=3, label=f"ours: mean ± s.e. over {len(result['splits'])} splits")]
    paper = result.get("paper") or {}
    py = [yy for yy, k in zip(y, keys) if k in paper]
    if py:
        arts.append(ax.plot([paper[k] for k in keys if k in paper], py, "kx", ms=9, mew=2,
                            label="Barber & Bishop Table 1")[0])
    b = result["baseline_mse"]["mean"]
    arts.append(ax.axvline(b, color="0.5", ls="--", lw=1, label="predict the training mean"))
    ax.set_yticks(y, [result["methods"][k]["label"] for k in keys])
    ax.set_xlabel("test mean squared error (standardised targets)")
    ax.set_title(title or result["dataset"])
    ax.legend(loc="lower right", fontsize=7)
    return arts


def table_figure(boston: dict, diabetes: dict | None = None):
    """Both stored tables side by side (``figures/boston_table1.png``)."""
    from ..ui.plotting import new_figure

    cfg = boston["config"]
    fig, axes = new_figure(11.0, 3.8, ncols=2 if diabetes else 1)
    axes = np.atleast_1d(axes)
    plot_table(axes[0], boston, f"Boston housing: N = {cfg['n_train']} training, "
               f"{boston['splits'][0]['n_test']} test, H = {cfg['n_hidden']}")
    if diabetes:
        cfg = diabetes["config"]
        plot_table(axes[1], diabetes, f"Diabetes: N = {cfg['n_train']} training, "
                   f"{diabetes['splits'][0]['n_test']} test, H = {cfg['n_hidden']}")
        axes[1].set_yticks(axes[1].get_yticks(), [""] * len(axes[1].get_yticks()))
    return fig


def write_figures(outdir) -> list:
    """Write ``boston_table1.png`` (a re-plot of the stored JSON).

    Nothing in the table is refitted: it reads ``boston_table1.json`` and
    ``diabetes_table.json`` from the repository's ``figures/`` folder.
    """
    from pathlib import Path

    from ..ui.plotting import save_figure

    fig = table_figure(load_table("boston"), load_table("diabetes"))
    return [save_figure(fig, Path(outdir) / "boston_table1.png")]


def main(argv=None) -> None:
    """``python -m ensemble_lib.studies.table1 --table``: recompute and store the tables."""
    import argparse
    import sys
    from pathlib import Path

    from ..ui.figures import DEFAULT_OUTDIR

    parser = argparse.ArgumentParser(description="Barber & Bishop's Table 1 (Boston) and the "
                                     "same study on the diabetes data")
    parser.add_argument("--table", action="store_true", help="recompute and store the tables")
    parser.add_argument("--datasets", nargs="*", default=["boston", "diabetes"])
    parser.add_argument("--n-splits", type=int, default=TableConfig.n_splits)
    parser.add_argument("--n-train", type=int, default=TableConfig.n_train)
    parser.add_argument("--n-hidden", type=int, default=TableConfig.n_hidden)
    parser.add_argument("--ranks", type=int, nargs="*", default=list(TableConfig.ranks))
    parser.add_argument("--outdir", default=str(DEFAULT_OUTDIR))
    args = parser.parse_args(argv)
    if not args.table:
        parser.error("nothing to do: pass --table")
    config = TableConfig(n_train=args.n_train, n_hidden=args.n_hidden, ranks=tuple(args.ranks),
                         n_splits=args.n_splits)

    def progress(done, total, what=None):
        if what:
            print(f"{what} ({done} of {total})", file=sys.stderr, flush=True)

    for name in args.datasets:
        result = run_table(name, config, progress)
        path = write_table(result, Path(args.outdir) / TABLE_FILES[name])
        print(f"{path.name}\n{format_table(result)}", flush=True)


if __name__ == "__main__":
    main()
