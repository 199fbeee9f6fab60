"""Lesson 7 (ensemble_lib.lessons.mixture): its self-check quadrature, its table and its panel's reuse of fits.

The fits themselves are proved in tests/test_mixture.py; here, what the lesson adds:

* ``mixture_kl_by_quadrature`` (the notebook's independent check: Simpson's rule in each
  component's whitened coordinates, ln P pointwise) agrees with each fit's KL to 1e-6, and with a
  single Gaussian's KL from lesson 1's own brute-force check;
* ``format_ladder`` prints the fits' numbers and the drop per K;
* moving the panel's K slider reuses the fits of the (α, seed) shown (no refit), and a new α refits.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib import PAPER_PRESET, make_posterior
from ensemble_lib.lessons import mixture as L
from ensemble_lib.lessons.toy_posterior import kl_by_quadrature


@pytest.fixture(scope="module")
def comp():
    return L.mixtures_for(PAPER_PRESET["alpha"], PAPER_PRESET["seed"])


def test_self_check_quadrature_matches_every_fit_and_lesson_ones_single_gaussian_check(comp):
    for ladder in (comp.quadrature, comp.bound):
        for fit in ladder.fits:
            assert L.mixture_kl_by_quadrature(comp.posterior, fit) == pytest.approx(fit.kl, abs=1e-6)
    one = comp.quadrature.fits[0]
    assert L.mixture_kl_by_quadrature(comp.posterior, one) == pytest.approx(
        kl_by_quadrature(comp.posterior, one.means[0], one.covs[0]), abs=1e-8)


def test_ladder_table_prints_each_fit_and_the_drop(comp):
    text = L.format_ladder(comp)
    lines = text.splitlines()[2:]
    assert len(lines) == L.K_MAX
    for line, fq, fb in zip(lines, comp.quadrature.fits, comp.bound.fits):
        assert f"{fq.kl:.4f}" in line and f"{fb.kl:.4f}" in line and f"{fb.kl_bound:.4f}" in line
    assert f"{comp.quadrature.kl[0] - comp.quadrature.kl[1]:.4f}" in lines[1]


def test_mixtures_for_is_fit_mixtures_of_the_same_data(comp):
    again = L.fit_mixtures(make_posterior(**PAPER_PRESET))
    np.testing.assert_allclose(again.quadrature.kl, comp.quadrature.kl, rtol=0, atol=1e-12)
    np.testing.assert_allclose(again.bound.kl_bound, comp.bound.kl_bound, rtol=0, atol=1e-12)


def test_panel_reuses_the_fits_when_only_K_moves():
    panel = L.MixtureExplorer()
    panel.update()
    shown = panel.state.comparison
    for K in (4, 1, 3):
        panel.controls["K"].value = K
        assert panel.last_error is None and panel.state.K == K
        assert panel.state.comparison is shown  # the same object: nothing refitted
        assert panel.state.fit is shown.quadrature.fits[K - 1]
    panel.controls["alpha"].value = 1.0
    assert panel.last_error is None and panel.state.comparison is not shown
    assert panel.state.comparison.posterior.alpha == pytest.approx(1.0)


def test_network_symmetric_images_raise_the_bound_by_ln_K():
    """The H!·2^H signed permutations leave the network's expected energy unchanged (checked), so a
    mixture of K images with equal weights has bound F₁ + ln K − (1/K) Σ_i ln(1 + Σ_{j≠i} e^{−D_ij});
    the images here are far apart (D ≥ 50), so the gain is ln K to round-off."""
    demo = L.network_symmetry_demo()
    maps = L.symmetry_maps(2, 2)
    assert len(maps) == 8 and all(np.allclose(S @ S.T, np.eye(6)) for S in maps)
    e0 = demo.posterior.expected_energy(demo.single.mean, demo.single.cov).value
    for S in maps:
        assert demo.posterior.expected_energy(S @ demo.single.mean, S @ demo.single.cov @ S.T).value == \
            pytest.approx(e0, abs=1e-9)
    assert demo.K == (1, 2, 4, 8) and demo.min_distance > 50
    np.testing.assert_allclose(demo.gain, np.log(demo.K), atol=1e-12)
    assert demo.bound[0] == pytest.approx(demo.single.bound, abs=1e-10)
