"""Lesson 3's stored brute force (``figures/toy_evidence_grid.json``): the toy's exact evidence on a grid.

* the stored grid and maximiser are re-derived from the stored configuration (a fresh
  :func:`compute_grid`), up to what another CPU's floating point changes;
* the stored configuration is the one :func:`compare_hyperparameters` uses by default, so the lesson's
  comparison with the stored grid equals the one that computes its own;
* the stored maximiser is a maximum of the exact evidence: no grid value above it, and its gradient
  in (ln α, ln β) zero by central differences of the exact evidence (computed here, not read back);
* the stored grid is refused for a toy with other data; a stored file of another configuration is
  not replaced without ``--force``.
"""

from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

from ensemble_lib.inference.hyperparameters import GammaHyperprior
from ensemble_lib.lessons.bound import compare_hyperparameters
from ensemble_lib.models.toy import make_posterior
from ensemble_lib.studies import toy_evidence_grid as teg
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    return teg.load_evidence_grid()


def test_the_stored_grid_rederives_from_its_stored_configuration(stored):
    """Each grid value is one adaptive quadrature (relative accuracy ~1e-11): 1e-9 absolute on ln P;
    the maximiser is the Nelder–Mead polish's end point (xatol 1e-9 in ln α, ln β): 1e-7 relative."""
    config = json.loads((FIGURES_DIR / teg.GRID_FILE).read_text())["config"]
    fresh = teg.grid_from_result(teg.compute_grid(config))
    np.testing.assert_array_equal(fresh.log_alpha, stored.log_alpha)
    np.testing.assert_array_equal(fresh.log_beta, stored.log_beta)
    np.testing.assert_allclose(fresh.log_evidence, stored.log_evidence, rtol=0, atol=1e-9)
    assert fresh.alpha_max == pytest.approx(stored.alpha_max, rel=1e-7)
    assert fresh.beta_max == pytest.approx(stored.beta_max, rel=1e-7)
    assert fresh.log_evidence_max == pytest.approx(stored.log_evidence_max, abs=1e-9)


def test_the_stored_configuration_is_the_lessons_default():
    config = json.loads((FIGURES_DIR / teg.GRID_FILE).read_text())["config"]
    assert config == teg.grid_config()
    defaults = inspect.signature(compare_hyperparameters).parameters
    assert config["n_grid"] == defaults["n_grid"].default
    assert tuple(config["log_alpha_range"]) == defaults["log_alpha_range"].default
    assert tuple(config["log_beta_range"]) == defaults["log_beta_range"].default


def test_the_stored_maximiser_is_a_maximum_of_the_exact_evidence(stored):
    post = teg.grid_posterior()

    def lnp(la, lb):
        return float(post.with_hyperparameters(alpha=math.exp(la), beta=math.exp(lb)).log_evidence)

    la0, lb0 = math.log(stored.alpha_max), math.log(stored.beta_max)
    assert lnp(la0, lb0) == pytest.approx(stored.log_evidence_max, abs=1e-10)
    assert stored.log_evidence_max >= stored.log_evidence.max()
    h = 1e-3
    grad = [(lnp(la0 + h, lb0) - lnp(la0 - h, lb0)) / (2 * h), (lnp(la0, lb0 + h) - lnp(la0, lb0 - h)) / (2 * h)]
    # curvature of order 1 in ln α, ln β: a maximiser within 1e-6 gives a gradient within ~1e-5
    assert np.max(np.abs(grad)) < 1e-4, grad


def test_the_lessons_comparison_with_the_stored_grid_is_the_computed_one(stored):
    post, prior = make_posterior(**teg.grid_config()["toy"]), GammaHyperprior(a=0.25, b=400.0, c=0.05, d=2000.0)
    with_stored = compare_hyperparameters(post, prior, grid=teg.load_evidence_grid(post))
    computed = compare_hyperparameters(post, prior)
    assert with_stored.grid.alpha_max == pytest.approx(computed.grid.alpha_max, rel=1e-7)
    assert with_stored.grid.beta_max == pytest.approx(computed.grid.beta_max, rel=1e-7)
    assert with_stored.format_table() == computed.format_table()


def test_the_stored_grid_is_refused_for_other_data():
    with pytest.raises(ValueError, match="post must hold the stored grid's data"):
        teg.load_evidence_grid(make_posterior(seed=1))
    # the toy's own α, β do not matter: the evidence is a function of them
    other_hyper = teg.grid_posterior().with_hyperparameters(alpha=3.0, beta=7.0)
    assert teg.load_evidence_grid(other_hyper).alpha_max == pytest.approx(teg.load_evidence_grid().alpha_max)


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path):
    path = tmp_path / teg.GRID_FILE
    path.write_text(json.dumps({"config": {"n_grid": 3}}))
    with pytest.raises(FileExistsError, match="--force"):
        teg.save_grid(path)
    assert json.loads(path.read_text()) == {"config": {"n_grid": 3}}
