"""Tests of the lesson-4 data: the shipped Boston file, the diabetes data and the standardised split."""

import hashlib
import shutil

import numpy as np
import pytest
from sklearn import datasets as skd
from sklearn.preprocessing import StandardScaler

from ensemble_lib.studies import datasets as ds


def test_boston_checksum_and_shape():
    digest = hashlib.sha256(ds.BOSTON_PATH.read_bytes()).hexdigest()  # independent of the loader
    assert digest == ds.BOSTON_SHA256
    data = ds.load_boston()
    assert data.X.shape == (506, 13) and data.y.shape == (506,)
    assert data.feature_names[11] == "B" and data.target_name == "MEDV"
    assert np.all(np.isfinite(data.X)) and np.all(np.isfinite(data.y))
    # the well-known summary of MEDV (in $1000s): range 5–50, mean 22.53
    assert data.y.min() == 5.0 and data.y.max() == 50.0
    assert data.y.mean() == pytest.approx(22.5328, abs=1e-4)
    assert "race" in data.note and "removed" in data.note


def test_modified_boston_copy_is_refused(tmp_path):
    bad = tmp_path / "boston.csv"
    shutil.copy(ds.BOSTON_PATH, bad)
    text = bad.read_text().replace("24.0", "25.0", 1)
    bad.write_text(text)
    with pytest.raises(ValueError, match="path: the Boston file's SHA-256"):
        ds.load_boston(bad)
    with pytest.raises(ValueError, match="path must name an existing file"):
        ds.load_boston(tmp_path / "missing.csv")


def test_diabetes_is_scikit_learns_unscaled_data():
    data = ds.load_diabetes()
    raw = skd.load_diabetes(scaled=False)
    assert data.X.shape == (442, 10)
    np.testing.assert_array_equal(data.X, raw.data)
    np.testing.assert_array_equal(data.y, raw.target)


def test_split_standardises_with_training_statistics_only():
    data = ds.load_boston()
    split = ds.train_test_split_standardised(data.X, data.y, 128, np.random.default_rng(4))
    assert split.n_train == 128 and split.n_test == 378
    assert np.intersect1d(split.train_index, split.test_index).size == 0
    scaler = StandardScaler().fit(data.X[split.train_index])  # independent reference
    np.testing.assert_allclose(split.X_train, scaler.transform(data.X[split.train_index]), atol=1e-12)
    np.testing.assert_allclose(split.X_test, scaler.transform(data.X[split.test_index]), atol=1e-12)
    y_tr = data.y[split.train_index]
    np.testing.assert_allclose(split.y_test, (data.y[split.test_index] - y_tr.mean()) / y_tr.std())
    # the test rows' statistics are not those of the training rows (so the check above can fail)
    assert abs(split.X_test.mean()) > 1e-3
    # changing the test rows changes nothing on the training side: no leak
    X2, y2 = data.X.copy(), data.y.copy()
    X2[split.test_index] *= 10.0
    y2[split.test_index] += 100.0
    split2 = ds.train_test_split_standardised(X2, y2, 128, np.random.default_rng(4))
    np.testing.assert_array_equal(split2.X_train, split.X_train)
    np.testing.assert_array_equal(split2.y_train, split.y_train)
    assert (split2.x_mean == split.x_mean).all() and split2.y_std == split.y_std


def test_same_seed_same_split_and_constant_column_is_only_centred():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X[:, 1] = 7.0
    y = rng.normal(size=20)
    a = ds.train_test_split_standardised(X, y, 10, np.random.default_rng(1))
    b = ds.train_test_split_standardised(X, y, 10, np.random.default_rng(1))
    np.testing.assert_array_equal(a.train_index, b.train_index)
    assert a.x_std[1] == 1.0 and np.all(a.X_train[:, 1] == 0.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_train": 1}, r"n_train must be an integer in \[2, 19\]"),
    ({"n_train": 20}, r"n_train must be an integer in \[2, 19\]"),
    ({"X": np.ones(20)}, "X must be a 2-D array"),
    ({"X": np.full((20, 2), np.nan)}, "X must contain only finite"),
    ({"y": np.ones(19)}, "y must have length N = 20"),
    ({"y": np.r_[np.inf, np.ones(19)]}, "y must contain only finite"),
    ({"rng": 3}, "rng must be a numpy.random.Generator"),
    ({"y": np.ones(20)}, "y must not be constant"),
])
def test_bad_split_arguments_are_refused(kwargs, match):
    rng = np.random.default_rng(0)
    args = {"X": rng.normal(size=(20, 2)), "y": rng.normal(size=20), "n_train": 10,
            "rng": np.random.default_rng(0)}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ds.train_test_split_standardised(**args)
