"""The split protocol every network study shares (``studies.splits``).

``make_split`` is checked on a synthetic data set: sizes, disjoint rows covering the data, the same
rows for the same seed and index, standardisation with the training rows' statistics only (numpy
recomputed here), the bias column; ``mean_se`` against numpy; ``config_from_table`` round trip.
"""

import json

import numpy as np
import pytest

from ensemble_lib.studies.splits import TableConfig, config_from_table, make_split, mean_se


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(3.0, 2.0, size=(40, 3))
    return X, X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=40)


def _rows(X, Z):
    """Indices into X of the (unstandardised) rows Z."""
    return [int(np.flatnonzero(np.all(np.isclose(X, z), axis=1))[0]) for z in Z]


def test_a_split_has_the_configured_sizes_disjoint_rows_covering_the_data_and_a_bias_column(data):
    X, y = data
    split, X_train, X_test = make_split(X, y, TableConfig(n_train=25, seed=3), index=2)
    assert X_train.shape == (25, 4) and X_test.shape == (15, 4)
    np.testing.assert_array_equal(X_train[:, -1], 1.0)
    np.testing.assert_array_equal(X_test[:, -1], 1.0)
    train = _rows(X, split.X_train * split.x_std + split.x_mean)
    test = _rows(X, split.X_test * split.x_std + split.x_mean)
    assert set(train).isdisjoint(test) and sorted(train + test) == list(range(40))


def test_standardisation_uses_the_training_rows_statistics_only(data):
    X, y = data
    split, _, _ = make_split(X, y, TableConfig(n_train=25, seed=3), index=0)
    train = _rows(X, split.X_train * split.x_std + split.x_mean)
    np.testing.assert_allclose(split.x_mean, X[train].mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(split.x_std, X[train].std(axis=0), rtol=1e-12)
    assert split.y_mean == pytest.approx(y[train].mean(), rel=1e-12)
    np.testing.assert_allclose(split.X_train.mean(axis=0), 0.0, atol=1e-12)
    assert abs(split.X_test.mean(axis=0)).max() > 1e-3  # the test rows are not standardised by their own
    np.testing.assert_allclose(split.y_train * split.y_std + split.y_mean, y[train], rtol=1e-12)


def test_the_same_seed_and_index_give_the_same_split_and_others_do_not(data):
    X, y = data
    cfg = TableConfig(n_train=25, seed=3)
    a, b = make_split(X, y, cfg, 1)[1], make_split(X, y, cfg, 1)[1]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, make_split(X, y, cfg, 2)[1])
    assert not np.array_equal(a, make_split(X, y, TableConfig(n_train=25, seed=4), 1)[1])


def test_make_split_refuses_a_config_that_is_not_a_table_config_and_a_negative_index(data):
    X, y = data
    with pytest.raises(ValueError, match="config must be a TableConfig"):
        make_split(X, y, {"n_train": 25})
    with pytest.raises(ValueError, match="index must be an integer >= 0"):
        make_split(X, y, TableConfig(n_train=25), index=-1)


def test_mean_se_is_numpys_mean_and_standard_error_skipping_none():
    values = [1.0, 4.0, None, 2.5, 7.0]
    v = np.array([1.0, 4.0, 2.5, 7.0])
    assert mean_se(values) == pytest.approx({"mean": v.mean(), "se": v.std(ddof=1) / np.sqrt(4)}, rel=1e-12)
    assert mean_se([3.0]) == {"mean": 3.0, "se": None}
    assert mean_se([None]) == {"mean": None, "se": None} == mean_se([])
    with pytest.raises(ValueError, match="values must be a sequence"):
        mean_se("1, 2")


def test_config_from_table_inverts_the_stored_config_through_json():
    cfg = TableConfig(n_train=64, n_hidden=3, ranks=(1, 3), n_splits=4, seed=9)
    stored = json.loads(json.dumps({"config": cfg.as_dict()}))
    assert config_from_table(stored) == cfg


@pytest.mark.parametrize("maxcor", [30, 100, 7])
def test_config_from_table_keeps_the_lbfgs_memory_and_reads_a_table_without_it_as_30(maxcor):
    """Tables stored before ``TableConfig.maxcor`` existed were made with L-BFGS-B's memory 30: their
    configuration (no ``maxcor``) reads back as 30, and a configuration with 30 writes no ``maxcor``,
    so such a table's stored configuration is still the one it re-derives from."""
    cfg = TableConfig(n_splits=2, maxcor=maxcor)
    stored = json.loads(json.dumps({"config": cfg.as_dict()}))
    assert config_from_table(stored) == cfg
    assert ("maxcor" in stored["config"]) == (maxcor != 30)
    assert TableConfig().maxcor == 100
    old = {k: v for k, v in TableConfig().as_dict().items() if k != "maxcor"}
    assert config_from_table({"config": old}).maxcor == 30


@pytest.mark.parametrize("maxcor", [0, -1, 2.5, "30", 1001])
def test_table_config_refuses_a_bad_lbfgs_memory(maxcor):
    with pytest.raises(ValueError, match="maxcor"):
        TableConfig(maxcor=maxcor)
