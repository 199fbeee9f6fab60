"""Real regression data for lesson 4: the Boston housing data (Table 1) and the diabetes data.

Barber & Bishop (1998), §2.3: "we took 128 training points …" of the Boston
housing data (13 inputs, one output) and standardised nothing explicitly;
we follow the issue's protocol: a random split into ``n_train`` training
rows and the rest for testing, inputs and targets standardised with the
*training* set's means and standard deviations only (so no information
about the test rows leaks into the fit).

* :func:`load_boston` reads the copy shipped in ``ensemble_lib/data`` and
  verifies its SHA-256 checksum (see ``ensemble_lib/data/README.md``);
* :func:`load_diabetes` returns scikit-learn's diabetes data (442 patients,
  10 inputs, a disease-progression score), in its original units;
* :func:`train_test_split_standardised` makes one random split.

The B column
------------
One Boston input, ``B = 1000 (Bk − 0.63)²`` with Bk the proportion of Black
residents by town, encodes race: Harrison & Rubinfeld (1978) built it on the
assumption that racial self-segregation affects house prices. It is not
invertible and its construction has been criticised; scikit-learn deprecated
``load_boston`` in 1.0 and removed it in 1.2 for this reason. The lesson keeps
the data only to reproduce the published Table 1, says so wherever it is used,
and repeats every result on the diabetes data.

Code names: ``X`` = inputs (N × d), ``y`` = targets (N,), ``n_train`` =
training-set size (128 in the paper), ``rng`` = the split's random generator.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import validation as check

#: the shipped Boston file and its SHA-256 (ensemble_lib/data/README.md)
BOSTON_PATH = Path(__file__).resolve().parent / "data" / "boston_house_prices.csv"
BOSTON_SHA256 = "d98212636026544fc9b9c0f372e5f819872e6fa6fa757ab025efdda22180f2d6"

#: one sentence to print wherever the Boston data are used
B_COLUMN_STATEMENT = (
    "Note on the Boston data: the input B = 1000(Bk - 0.63)^2, Bk the proportion of Black "
    "residents by town, encodes race (built on the assumption that racial self-segregation "
    "affects house prices); scikit-learn removed the data set in 1.2 for this reason. It is "
    "used here only to reproduce Barber & Bishop's Table 1, and every result is repeated on "
    "the diabetes data."
)


@dataclass(frozen=True)
class Dataset:
    """A regression data set: inputs ``X`` (N × d), targets ``y`` (N,), names and provenance."""

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    feature_names: tuple
    target_name: str
    name: str
    note: str = ""

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_boston(path=None) -> Dataset:
    """The Boston housing data (506 × 13, target MEDV in $1000s), checksum verified.

    Parameters
    ----------
    path : path-like, optional
        Another copy of ``boston_house_prices.csv`` to read (default: the one
        shipped in ``ensemble_lib/data``). It must have the same SHA-256.

    Returns
    -------
    Dataset
        ``X`` (506, 13), ``y`` (506,), ``feature_names`` (CRIM … LSTAT).

    Raises
    ------
    ValueError
        If the file's SHA-256 differs from :data:`BOSTON_SHA256` (a corrupted
        or modified copy), or it does not have 506 rows of 14 numbers.

    Notes
    -----
    The B column encodes race (``B = 1000 (Bk − 0.63)²``, Bk the proportion
    of Black residents by town); scikit-learn removed this data set in 1.2
    for that reason. It is used here only to reproduce Barber & Bishop's
    Table 1 (§2.3); see :data:`B_COLUMN_STATEMENT` and the module docstring.
    """
    if path is not None and not isinstance(path, (str, Path)):
        raise ValueError(f"path must be a str or pathlib.Path (or None), got {type(path).__name__}")
    path = BOSTON_PATH if path is None else Path(path)
    if not path.is_file():
        raise ValueError(f"path must name an existing file, got {str(path)!r}")
    digest = _sha256(path)
    if digest != BOSTON_SHA256:
        raise ValueError(
            f"path: the Boston file's SHA-256 is {digest}, expected {BOSTON_SHA256}; the copy is "
            "corrupted or modified (see ensemble_lib/data/README.md for its source)"
        )
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    names = tuple(rows[1][:-1])
    data = np.array([[float(v) for v in r] for r in rows[2:]], dtype=float)
    if data.shape != (506, 14):  # pragma: no cover - guarded by the checksum
        raise ValueError(f"path: expected 506 rows of 14 numbers, got {data.shape}")
    return Dataset(X=data[:, :13], y=data[:, 13], feature_names=names, target_name=rows[1][-1],
                   name="boston", note=B_COLUMN_STATEMENT)


def load_diabetes() -> Dataset:
    """scikit-learn's diabetes data (442 × 10) in original units; target: progression after a year.

    Efron, Hastie, Johnstone & Tibshirani (2004), "Least angle regression";
    shipped with scikit-learn (``sklearn.datasets.load_diabetes(scaled=False)``),
    so it loads offline. Inputs: age, sex, BMI, blood pressure and six blood serum
    measurements (s1–s6).
    """
    # scikit-learn on first use: importing it (with scipy.stats) costs a lesson that imports this
    # module for its splits a second or more of its Run All, and only the diabetes data need it
    from sklearn.datasets import load_diabetes as sklearn_load_diabetes

    raw = sklearn_load_diabetes(scaled=False)
    return Dataset(X=np.asarray(raw.data, dtype=float), y=np.asarray(raw.target, dtype=float),
                   feature_names=tuple(raw.feature_names), target_name="progression",
                   name="diabetes")


@dataclass(frozen=True)
class Split:
    """One random train/test split, standardised with the training set's statistics.

    ``X_train = (X[train_index] − x_mean) / x_std`` and likewise for the test
    rows and for ``y`` with ``y_mean``, ``y_std``, where the means and standard
    deviations (``ddof = 0``) are those of the *training* rows only. A column
    that is constant on the training rows gets ``x_std = 1`` (it is then only
    centred), so nothing is divided by zero.
    """

    X_train: np.ndarray = field(repr=False)
    y_train: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    train_index: np.ndarray = field(repr=False)
    test_index: np.ndarray = field(repr=False)
    x_mean: np.ndarray = field(repr=False)
    x_std: np.ndarray = field(repr=False)
    y_mean: float = 0.0
    y_std: float = 1.0

    @property
    def n_train(self) -> int:
        return int(self.train_index.size)

    @property
    def n_test(self) -> int:
        return int(self.test_index.size)


def train_test_split_standardised(X, y, n_train: int, rng: np.random.Generator) -> Split:
    """A random split: ``n_train`` rows for training, the rest for testing, standardised on training.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Finite inputs.
    y : array_like, shape (N,)
        Finite targets.
    n_train : int
        Training-set size, 2 ≤ n_train ≤ N − 1 (128 for Boston, as in the paper).
    rng : numpy.random.Generator
        Chooses the training rows (a random permutation).

    Returns
    -------
    Split
    """
    X = check.finite_matrix("X", X, min_rows=3)
    y = check.finite_vector("y", y)
    if y.size != X.shape[0]:
        raise ValueError(f"y must have length N = {X.shape[0]} (rows of X), got {y.size}")
    n_train = check.integer("n_train", n_train, low=2, high=X.shape[0] - 1)
    rng = check.generator("rng", rng)
    perm = rng.permutation(X.shape[0])
    tr, te = np.sort(perm[:n_train]), np.sort(perm[n_train:])
    x_mean = X[tr].mean(axis=0)
    x_std = X[tr].std(axis=0)
    x_std = np.where(x_std > 0, x_std, 1.0)
    y_mean = float(y[tr].mean())
    y_std = float(y[tr].std())
    if not y_std > 0:
        raise ValueError("y must not be constant on the training rows (its s.d. would be 0)")
    return Split(
        X_train=(X[tr] - x_mean) / x_std, y_train=(y[tr] - y_mean) / y_std,
        X_test=(X[te] - x_mean) / x_std, y_test=(y[te] - y_mean) / y_std,
        train_index=tr, test_index=te, x_mean=x_mean, x_std=x_std, y_mean=y_mean, y_std=y_std,
    )


__all__ = ["B_COLUMN_STATEMENT", "load_boston", "train_test_split_standardised"]
