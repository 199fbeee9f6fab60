"""The split protocol every network study shares: the same rows, standardised the same way.

The Table-1 study (:mod:`~ensemble_lib.studies.table1`), its HMC reference
(:mod:`~ensemble_lib.studies.hmc_reference`), the model-size study, the noise-input and the pruning
studies all draw their train/test splits here, so their numbers are on the same rows.

* :class:`TableConfig`: the Table-1 protocol (training size, H, hyperpriors, splits, the optimiser budget);
* :func:`load_dataset`, :func:`make_split`, :func:`dataset_split`: a data set by name and split
  ``index`` of the protocol, with the bias column appended;
* :func:`mean_se`: the mean and standard error over splits every summary reports;
* :func:`config_from_table`: the :class:`TableConfig` a stored result was made with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import validation as check
from ..inference.hyperparameters import GammaHyperprior
from ..models.network import add_bias
from .datasets import load_boston, load_diabetes, train_test_split_standardised

#: L-BFGS-B's memory of every table stored before :class:`TableConfig` had ``maxcor``
LEGACY_MAXCOR = 30

#: the data sets the studies know, by name
DATASET_LOADERS = {"boston": load_boston, "diabetes": load_diabetes}


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
        Random restarts of MacKay's MAP search per split; each gives the shared starts of every
        covariance family (:func:`~ensemble_lib.studies.table1.run_split`).
    gtol, maxiter : float, int
        Every family's optimiser budget per start: L-BFGS-B to max|∇F*| ≤ ``gtol`` (also the
        meaning of ``converged``) or ``maxiter`` iterations (then ``at_limit``).
    maxcor : int
        L-BFGS-B's memory (past steps its inverse-Hessian estimate keeps), the same for every
        family. 100: the factor families (whose columns can rotate freely, a flat direction
        L-BFGS-B learns slowly) reach the same optimum in a third to a half of the evaluations they
        needed with 30 (benchmarks/results/table1-speed-2026-11-27.md). Tables stored before this
        setting existed were made with 30: :func:`config_from_table` reads a missing ``maxcor``
        as 30, and :meth:`as_dict` leaves 30 out, so they still re-derive.
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
    gtol: float = 1e-5
    maxiter: int = 3000
    seed: int = 0
    maxcor: int = 100

    def __post_init__(self):
        check.integer("n_train", self.n_train, low=2)
        check.integer("n_hidden", self.n_hidden, low=1, high=20)
        check.integer("n_splits", self.n_splits, low=1, high=1000)
        check.integer("n_restarts", self.n_restarts, low=1, high=100)
        check.integer("seed", self.seed, low=0)
        check.positive("gtol", self.gtol)
        check.integer("maxiter", self.maxiter, low=1, high=100_000)
        check.integer("maxcor", self.maxcor, low=1, high=1000)
        if not isinstance(self.prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(self.prior).__name__}")
        check.flag("full", self.full)
        ranks = tuple(sorted(set(check.ranks("ranks", self.ranks))))
        object.__setattr__(self, "ranks", ranks)

    def as_dict(self) -> dict:
        out = {"n_train": self.n_train, "n_hidden": self.n_hidden,
               "prior": {"a": self.prior.a, "b": self.prior.b, "c": self.prior.c, "d": self.prior.d},
               "ranks": list(self.ranks), "full": self.full, "n_splits": self.n_splits,
               "n_restarts": self.n_restarts, "gtol": self.gtol, "maxiter": self.maxiter,
               "seed": self.seed}
        if self.maxcor != LEGACY_MAXCOR:  # a table of the memory every older one used reads as before
            out["maxcor"] = self.maxcor
        return out


def load_dataset(dataset: str):
    """The study's data set by name: ``"boston"`` or ``"diabetes"``."""
    if dataset not in DATASET_LOADERS:
        raise ValueError(f"dataset must be one of {sorted(DATASET_LOADERS)}, got {dataset!r}")
    return DATASET_LOADERS[dataset]()


def make_split(X, y, config: TableConfig, index: int = 0):
    """Split ``index`` of the protocol: ``(split, X_train, X_test)`` with the bias column appended.

    The split is drawn with ``default_rng([config.seed, index])`` and standardised on its
    training rows (:func:`~ensemble_lib.studies.datasets.train_test_split_standardised`); the
    Table-1 study and the HMC reference both use it, so they see the same rows.
    """
    if not isinstance(config, TableConfig):
        raise ValueError(f"config must be a TableConfig, got {type(config).__name__}")
    index = check.integer("index", index, low=0)
    split = train_test_split_standardised(X, y, config.n_train,
                                          np.random.default_rng([config.seed, index]))
    return split, add_bias(split.X_train), add_bias(split.X_test)


def dataset_split(dataset: str, n_train: int, seed: int, index: int):
    """Split ``index`` of data set ``dataset`` with ``n_train`` training rows and ``seed``.

    ``(data, split, X_train, X_test)``: :func:`load_dataset` and :func:`make_split` with
    ``TableConfig(n_train=n_train, seed=seed)``, so every study's split i is Table 1's split i.
    """
    data = load_dataset(dataset)
    split, Xtr, Xte = make_split(data.X, data.y, TableConfig(n_train=n_train, seed=seed), index)
    return data, split, Xtr, Xte


def mean_se(values) -> dict:
    """Mean and standard error (s.d./√n) of the values that are not None (None where undefined)."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise ValueError(f"values must be a sequence of numbers (or None), got {type(values).__name__}")
    v = check.real_array("values", [x for x in values if x is not None])
    if v.size == 0:
        return {"mean": None, "se": None}
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else None
    return {"mean": float(v.mean()), "se": se}


def config_from_table(result: dict) -> TableConfig:
    """The :class:`TableConfig` a stored table was made with (from its ``config``; a table without
    ``maxcor`` was made with L-BFGS-B's memory 30, :data:`LEGACY_MAXCOR`)."""
    cfg = dict(result["config"])
    cfg.setdefault("maxcor", LEGACY_MAXCOR)
    cfg["prior"] = GammaHyperprior(**cfg["prior"])
    cfg["ranks"] = tuple(cfg["ranks"])
    return TableConfig(**cfg)


__all__ = ["TableConfig"]
