"""Lesson 4's stored noisy retrainings (``figures/retraining_demo.npz``, ensemble_lib.studies.retraining_demo).

* the stored draws are re-derived from the stored configuration alone (the first twelve of each
  variant: the draws are made one at a time, so they are the stored run's first twelve);
* the mode they start from is the demo's Laplace fit (its stored band);
* a stored file of another configuration is not replaced unasked; the write is atomic.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ensemble_lib.studies import retraining_demo as study
from ensemble_lib.studies.network_demo import default_fits, memo_key
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    return study.load_retraining()


@pytest.fixture(scope="module")
def rederived(stored):
    return study.compute_retraining(stored["config"], n_draws=study.N_MACKAY)


def test_the_stored_file_is_the_published_configuration(stored):
    assert stored["config"] == json.loads(json.dumps(study.retraining_config()))
    for name in study.VARIANTS:
        assert stored[f"{name}_weights"].shape == (study.N_DRAWS, 6)
        assert stored[f"{name}_converged"].all()


def test_the_first_twelve_draws_of_each_variant_are_rederived_from_the_stored_configuration(stored, rederived):
    # each retraining stops at a gradient of 1e-6 in an objective of size ~10^2 (beta E_D): the end
    # point is fixed to ~1e-6; another CPU's floating point moves it by less
    for name in study.VARIANTS:
        np.testing.assert_allclose(rederived[f"{name}_weights"], stored[f"{name}_weights"][:study.N_MACKAY],
                                   rtol=1e-5, atol=1e-5)
    for key in ("w_mp", "lap_mean", "lap_sd", "alpha", "beta", "residual_sd"):
        np.testing.assert_allclose(rederived[key], stored[key], rtol=1e-6, atol=1e-8)


def test_the_retrainings_start_from_the_demos_laplace_fit(stored):
    demo = default_fits()[memo_key(2, 1, 1.0, True)]  # the panel's default setting: H = 2, adapted
    np.testing.assert_allclose(stored["lap_mean"], demo.lap_mean, atol=1e-6)
    np.testing.assert_allclose(stored["lap_sd"], demo.lap_sd, atol=1e-6)
    assert float(stored["alpha"]) == pytest.approx(demo.lap_alpha, rel=1e-6)
    assert float(stored["beta"]) == pytest.approx(demo.lap_beta, rel=1e-6)


def test_the_two_variants_differ(stored):
    assert not np.allclose(stored["prior_weights"], stored["no_prior_weights"])


def test_a_stored_file_of_another_configuration_is_not_replaced_unasked(tmp_path, monkeypatch):
    path = tmp_path / study.RETRAINING_FILE
    path.write_bytes((FIGURES_DIR / study.RETRAINING_FILE).read_bytes())
    monkeypatch.setattr(study, "retraining_config", lambda: {"other": 1})
    with pytest.raises(FileExistsError, match="another configuration"):
        study.write_retraining(path)
    assert path.read_bytes() == (FIGURES_DIR / study.RETRAINING_FILE).read_bytes()


def test_a_failed_write_leaves_the_stored_file_whole(tmp_path, monkeypatch):
    path = tmp_path / study.RETRAINING_FILE
    path.write_bytes(b"old")

    def boom(config):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(study, "compute_retraining", boom)
    with pytest.raises(RuntimeError):
        study.write_retraining(path, force=True)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == [study.RETRAINING_FILE]


@pytest.mark.parametrize("kwargs, pattern", [({"n_draws": 1}, "n_draws must be"), ({"seed": -1}, "seed must be")])
def test_bad_configuration_is_refused(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        study.retraining_config(**kwargs)
