"""Lesson 4's stored evidence framework and ensemble ladder (``figures/network_demo_ladder.json``).

* the stored fits are re-derived from the stored configuration (a fresh :func:`fit_ladder`), up to
  what another CPU's floating point changes;
* they are what the lesson teaches: the bound rises along the nested families, ᾱ and β̄ are the
  Gamma updates (37)–(38) of the full fit, and MacKay's γ is k − α Tr A⁻¹ (computed here from
  the stored A, not read back);
* a stored file of another configuration is not replaced without ``--force``; writes are atomic.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ensemble_lib.inference.hyperparameters import GammaHyperprior
from ensemble_lib.studies import network_ladder as ladder
from ensemble_lib.studies.store import FIGURES_DIR


@pytest.fixture(scope="module")
def stored():
    return ladder.load_ladder()


def test_the_stored_fits_rederive_from_their_stored_configuration(stored):
    """Bounds and evidences are at optima (second order in the optimiser's end point): 1e-7
    relative; weights, covariances and hyperparameters move at first order with the end point,
    which the fits fix to their gradient tolerance: 1e-4."""
    fresh = ladder.ladder_from_result(ladder.fit_ladder(stored.config))
    assert list(fresh.fits) == list(stored.fits) == ["diagonal", "factor1", "factor2", "factor3", "full"]
    for name in ("alpha", "beta", "gamma", "mean", "hessian", "cov"):
        np.testing.assert_allclose(getattr(fresh.evidence, name), getattr(stored.evidence, name),
                                   rtol=1e-4, atol=1e-6, err_msg=name)
    assert fresh.evidence.log_evidence == pytest.approx(stored.evidence.log_evidence, rel=1e-7)
    for name, f in stored.fits.items():
        g = fresh.fits[name]
        assert (g.family, g.rank, g.converged) == (f.family, f.rank, f.converged), name
        assert g.bound == pytest.approx(f.bound, rel=1e-7), name
        for attr in ("mean", "cov", "alpha", "beta"):
            np.testing.assert_allclose(getattr(g, attr), getattr(f, attr), rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} {attr}")


def test_the_stored_configuration_is_the_lessons():
    path = FIGURES_DIR / ladder.LADDER_FILE
    assert json.loads(path.read_text())["config"] == ladder.ladder_config()
    post = ladder.ladder_posterior()
    assert (post.dim, post.n_data, post.n_hidden) == (6, 16, 2)


def test_the_bound_rises_along_the_nested_families(stored):
    bounds = [f.bound for f in stored.fits.values()]
    assert all(b1 >= b0 - 1e-9 for b0, b1 in zip(bounds, bounds[1:])), bounds
    assert all(f.converged for f in stored.fits.values())


def test_the_stored_hyperparameters_are_the_gamma_updates_and_mackays_gamma(stored):
    """ᾱ, β̄ of the stored full fit from (37)–(38) on its stored Q; γ from the stored A."""
    post, prior, full, ev = ladder.ladder_posterior(), GammaHyperprior(), stored.fits["full"], stored.evidence
    W2 = full.mean @ full.mean + np.trace(full.cov)
    ED = post.expected_data_error(full.mean, full.cov).value
    assert full.alpha == pytest.approx((post.dim / 2 + prior.a) / (0.5 * W2 + 1 / prior.b), rel=1e-9)
    assert full.beta == pytest.approx((post.n_data / 2 + prior.c) / (ED + 1 / prior.d), rel=1e-9)
    assert ev.gamma == pytest.approx(post.dim - ev.alpha * np.trace(np.linalg.inv(ev.hessian)), rel=1e-6)


def test_a_missing_file_names_the_command(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m ensemble_lib.studies.network_ladder"):
        ladder.load_ladder(tmp_path)


@pytest.mark.parametrize("config", [{}, {"data": {"n": 16, "seed": 3}}, "ladder", []])
def test_a_bad_configuration_is_a_value_error_naming_it(config):
    with pytest.raises(ValueError, match="config must be a dict"):
        ladder.fit_ladder(config)


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path, monkeypatch):
    out = tmp_path / ladder.LADDER_FILE
    other = json.loads((FIGURES_DIR / ladder.LADDER_FILE).read_text())
    other["config"] = {**other["config"], "evidence_seed": 1}
    out.write_text(json.dumps(other))
    before = out.read_bytes()

    def refuse(*args, **kwargs):
        raise AssertionError("the guard let a fit start")

    monkeypatch.setattr(ladder, "fit_ladder", refuse)
    with pytest.raises(SystemExit, match="another configuration; pass --force"):
        ladder.main(["--out", str(out)])
    assert out.read_bytes() == before
    with pytest.raises(AssertionError, match="the guard let a fit start"):  # --force goes on to fit
        ladder.main(["--out", str(out), "--force"])
    assert out.read_bytes() == before  # the failed run left the old file whole


def test_a_run_of_the_same_configuration_rewrites_the_same_file(tmp_path, monkeypatch):
    """A stored file of the run's configuration may be replaced (the run re-derives it); the write
    goes through a temporary file, leaving no other file behind."""
    out = tmp_path / ladder.LADDER_FILE
    result = json.loads((FIGURES_DIR / ladder.LADDER_FILE).read_text())
    out.write_text("{}")  # records no configuration: refused
    with pytest.raises(SystemExit, match="another configuration"):
        ladder.main(["--out", str(out)])
    monkeypatch.setattr(ladder, "fit_ladder", lambda config=None: result)
    ladder.main(["--out", str(out), "--force"])
    ladder.main(["--out", str(out)])  # same configuration now: allowed
    assert json.loads(out.read_text()) == result
    assert [p.name for p in tmp_path.iterdir()] == [ladder.LADDER_FILE]
