"""Lesson 1 as a user meets it: every slider value, the preset, the figures (the panel: tests/ui/test_panel.py)."""

import itertools
import warnings

import numpy as np
import pytest

from ensemble_lib.lessons import toy_posterior as toy_study
from ensemble_lib.lessons.figures import write_all
from ensemble_lib.lessons.toy_posterior import ALPHA_RANGE, N_RANGE, NOISE_SD_RANGE, SEED_RANGE
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.toy_fits import fit_all

from _committed import assert_writes_the_committed_files


def sweep_points():
    corners = itertools.product(ALPHA_RANGE, NOISE_SD_RANGE, N_RANGE, SEED_RANGE[:1] + SEED_RANGE[1:], (0, 1))
    rng = np.random.default_rng(2024)
    randoms = [
        (10 ** rng.uniform(*np.log10(ALPHA_RANGE)), 10 ** rng.uniform(*np.log10(NOISE_SD_RANGE)),
         int(rng.integers(N_RANGE[0], N_RANGE[1] + 1)), int(rng.integers(0, 100)), int(rng.integers(0, 2)))
        for _ in range(8)
    ]
    return list(corners) + randoms


def test_every_slider_value_gives_finite_results_and_no_warnings():
    for alpha, sd, n, seed, rank in sweep_points():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fits = fit_all(make_posterior(seed, alpha, sd, n), rank=rank)
            grid = fits.posterior.grid(n=41)
        vals = [fits.laplace.kl, fits.diagonal.kl, fits.full.kl, fits.factor.kl]
        assert np.all(np.isfinite(vals)), (alpha, sd, n, seed, rank, vals)
        assert min(vals) >= -1e-9
        assert fits.full.kl <= fits.diagonal.kl + 1e-7
        assert np.all(np.isfinite(grid.log_density))


def test_out_of_range_values_are_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="alpha"):
        make_posterior(0, alpha=0.0)
    with pytest.raises(ValueError, match="noise_sd"):
        make_posterior(0, noise_sd=-1.0)
    with pytest.raises(ValueError, match="n"):
        make_posterior(0, n=0)
    with pytest.raises(ValueError, match="seed"):
        make_posterior(-1)
    with pytest.raises(ValueError, match="rank"):
        fit_all(make_posterior(0), rank=2)


def test_paper_preset_lands_near_the_papers_laplace_kl():
    fits = fit_all(make_posterior(**PAPER_PRESET))
    assert abs(fits.laplace.kl - toy_study.PAPER_KL["laplace"]) < 1.0
    assert fits.laplace.kl > 10 * fits.diagonal.kl > 10 * fits.full.kl


def test_find_preset_finds_the_stored_paper_preset():
    """The lesson shows PAPER_PRESET instead of re-running the 280-data-set search: this re-runs it."""
    preset = toy_study.find_preset()
    assert {k: preset[k] for k in PAPER_PRESET} == PAPER_PRESET
    assert preset["laplace_kl"] == laplace_fit(make_posterior(**PAPER_PRESET)).kl


def test_the_stored_kl_table_reads_back_as_kl_table_computes_it():
    """load_kl_table (what the lesson shows) against fresh fits of a few rows, and the whole file
    against its own text (the file itself is re-derived in the test below)."""
    rows = toy_study.load_kl_table()
    assert [(r["alpha"], r["seed"]) for r in rows] == [(a, s) for a in (0.1, 0.3, 1.0, 3.0) for s in range(20)]
    fresh = toy_study.kl_table(seeds=[0, 13], alphas=(0.3, 3.0))
    stored = {(r["alpha"], r["seed"]): r for r in rows}
    for r in fresh:
        for key in ("laplace", "diagonal", "full"):
            assert stored[r["alpha"], r["seed"]][key] == pytest.approx(r[key], rel=1e-5), key
    text = toy_study.KL_TABLE_CSV.read_text().splitlines()[1:]
    assert text == [f"{r['alpha']:g},{r['seed']},{r['laplace']:.6g},{r['diagonal']:.6g},{r['full']:.6g}"
                    for r in rows]


def test_no_stored_full_kl_is_a_worse_optimum_than_an_independent_multistart_finds():
    """Every full-covariance KL of the stored table is the best of many other starts too.

    Per row, full fits from starts fit_all does not use (the Laplace Gaussian N(ŵ, A⁻¹) at the
    mode and at its mirror image, the prior N(0, I/α), and broad and narrow Gaussians at the
    generating weights and their mirror) must not reach a KL below the stored one (to the
    table's 6 digits). Before fit_all's full fit also started at the Laplace mode, one row
    (α = 0.1, seed 5) stored 2.36361 where these starts reach 2.02692.
    """
    from ensemble_lib.inference.kl_fit import kl_fit
    from ensemble_lib.models.erf_network import TOY_U_TRUE, TOY_V_TRUE

    w_true = np.array([TOY_U_TRUE, TOY_V_TRUE])
    for r in toy_study.load_kl_table():
        post = make_posterior(r["seed"], r["alpha"])
        lap = laplace_fit(post)
        starts = [(lap.mean, lap.cov), (-lap.mean, lap.cov), (np.zeros(2), np.eye(2) / post.alpha)]
        starts += [(sign * w_true, scale * np.eye(2)) for sign in (1.0, -1.0) for scale in (0.01, 1.0)]
        best = min(kl_fit(post, "full", init=[st], symmetric=False).kl for st in starts)
        assert r["full"] <= best * (1 + 1e-5) + 1e-8, (r, best)


def test_figures_and_the_kl_table_are_the_committed_ones(tmp_path):
    assert_writes_the_committed_files(lambda out: write_all(out, only=["toy_posterior"]), tmp_path,
                                      ["toy_fig2.png", "toy_kl_table.png", "toy_kl_table.csv"])
