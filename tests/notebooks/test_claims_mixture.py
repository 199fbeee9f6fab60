"""Lesson 7's quantitative sentences, each asserted on numbers the library computes here afresh
(tests/_claims.py: the sentence is found word for word, then what it says is checked)."""

from __future__ import annotations

import numpy as np
import pytest

from _claims import sentence
from ensemble_lib import gaussian_entropy
from ensemble_lib.inference.mixture import entropy_lower_bound, mixture_entropy
from ensemble_lib.lessons import mixture as L
from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

NB = "07_mixture_of_gaussians.ipynb"
LN2 = float(np.log(2.0))


@pytest.fixture(scope="module")
def comp():
    return L.fit_mixtures(make_posterior(**PAPER_PRESET))


@pytest.fixture(scope="module")
def demo():
    return L.network_symmetry_demo(n_starts=1, rng=np.random.default_rng(0))


def test_single_gaussian_pays_about_ln2_for_the_mode_it_leaves_out(comp):
    sentence(NB, "every single Gaussian pays about $\\ln 2$ for the mode it leaves out")
    assert abs(comp.quadrature.kl[0] - comp.quadrature.kl[1] - LN2) < 1e-3


def test_two_separate_halves_gain_exactly_ln2_and_the_bound_is_exact_at_the_ends():
    sentence(NB, "two equal, separate halves gain exactly $\\ln 2$ of entropy")
    sentence(NB, "It is **exact for $K = 1$**")
    sentence(NB, "far apart both reach $H_1 + \\ln 2$")
    H1 = gaussian_entropy(np.eye(2))
    far = L.two_gaussians(8.0)
    assert abs(mixture_entropy(*far) - H1 - LN2) < 1e-6
    assert abs(entropy_lower_bound(*far) - H1 - LN2) < 1e-6
    one = L.two_gaussians(0.0)
    assert abs(mixture_entropy(*one) - H1) < 1e-9 and abs(entropy_lower_bound(*one) - H1) < 1e-9


def test_in_between_the_bound_is_below_the_truth():
    sentence(NB, "In between, the bound is below the truth")
    for s in (0.5, 1.0, 2.0, 4.0):
        assert entropy_lower_bound(*L.two_gaussians(s)) < mixture_entropy(*L.two_gaussians(s)) - 1e-6


def test_quadrature_entropy_accurate_below_1e_12_on_the_fits(comp):
    sentence(NB, "below $10^{-12}$ on the fits here")
    for f in comp.quadrature.fits:
        H = mixture_entropy(f.weights, f.means, f.covs)
        fine = mixture_entropy(f.weights, f.means, f.covs, spacing=0.1)
        assert abs(H - fine) < 1e-12, (f.K, H - fine)


def test_the_drop_K1_to_K2_is_0_6931_and_rho_far_below_1e_6(comp):
    sentence(NB, "the KL drops by $0.6931$")
    sentence(NB, "here far below $10^{-6}$")
    assert f"{comp.quadrature.kl[0] - comp.quadrature.kl[1]:.4f}" == "0.6931"
    assert comp.rho < 1e-6


def test_K3_K4_drops_about_0_28_and_0_22(comp):
    sentence(NB, "(by about 0.28 and 0.22 nats here)")
    kl = comp.quadrature.kl
    assert (f"{kl[1] - kl[2]:.2f}", f"{kl[2] - kl[3]:.2f}") == ("0.28", "0.22")


def test_bounded_fit_true_KL_a_few_thousandths_higher(comp):
    sentence(NB, "its true KL is a few thousandths higher")
    diff = comp.bound.kl - comp.quadrature.kl
    assert np.all(diff > -1e-9) and np.all(diff < 0.01)
    assert np.all(diff[2:] >= 0.001)


def test_the_bound_claims_a_few_hundredths_more_at_K3_K4_and_is_exact_at_K1_K2(comp):
    sentence(NB, "higher by a few hundredths at $K = 3, 4$")
    sentence(NB, "For $K = 1, 2$ the bound is exact (one component; separate modes)")
    sentence(NB, "costs a few hundredths of a nat when components overlap")
    extra = comp.bound.kl_bound - comp.bound.kl
    assert np.all((extra[2:] >= 0.01) & (extra[2:] < 0.1))
    assert np.all(np.abs(extra[:2]) < 1e-6)


def test_KL_never_rises_with_K(comp):
    sentence(NB, "so KL never rises with $K$")
    assert np.all(np.diff(comp.quadrature.kl) <= 1e-12)


def test_summary_ladder_and_where_the_panel_opens(comp):
    sentence(NB, "(1.55 → 0.86 → 0.58 → 0.36 here)")
    sentence(NB, "falls from 1.5513 (one Gaussian) to 0.8582 (KL₁ − ln 2 to four decimals) and to 0.3631")
    kl = comp.quadrature.kl
    assert [f"{k:.2f}" for k in kl] == ["1.55", "0.86", "0.58", "0.36"]
    shown = (f"{kl[0]:.4f}", f"{kl[1]:.4f}", f"{kl[0] - LN2:.4f}", f"{kl[3]:.4f}")
    assert shown == ("1.5513", "0.8582", "0.8582", "0.3631")
    panel_comp = L.mixtures_for()  # what the panel opens on (K = 2 of the preset)
    assert np.allclose(panel_comp.quadrature.kl, kl, atol=1e-12)


def test_network_has_8_symmetric_copies_6_weights_and_the_bound_gains_ln_K_to_five_decimals(demo):
    sentence(NB, "$H!\\,2^H = 8$ symmetric copies of each mode")
    sentence(NB, "**the bound rises by exactly $\\ln K$**")
    sentence(NB, "The gain is $\\ln K$ to five decimals")
    sentence(NB, "raises the bound by exactly $\\ln(H!\\,2^H)$")
    assert len(L.symmetry_maps(2, 2)) == 8 and demo.posterior.dim == 6
    assert demo.K[-1] == 8
    for K, g in zip(demo.K, demo.gain):
        assert f"{g:.5f}" == f"{np.log(K):.5f}"


def test_plain_jensen_bound_is_k_over_2_times_1_minus_ln2_below_for_one_gaussian():
    sentence(NB, "it is $\\frac k2(1 - \\ln 2)$ below the true entropy")
    for C in (np.array([[0.4]]), np.array([[0.3, 0.1], [0.1, 0.2]]), np.diag([2.0, 0.5, 1.5])):
        k = len(C)
        jensen = 0.5 * k * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(2 * C)[1]
        assert abs(gaussian_entropy(C) - jensen - 0.5 * k * (1 - LN2)) < 1e-12


def test_exercise_1_setting_is_the_slider_end_and_leaves_the_ln2_story():
    sentence(NB, "the strongest prior on its slider, α = 10, and the data seed 24")
    assert L.ALPHA_RANGE[1] == L.EX1_ALPHA == 10.0 and L.EX1_SEED == 24
    c = L.mixtures_for(L.EX1_ALPHA, L.EX1_SEED)
    assert abs(c.quadrature.kl[0] - c.quadrature.kl[1] - LN2) > 0.1 and np.allclose(c.single.mean, 0.0, atol=1e-6)
    assert "Not the lesson's ln 2" in L.off_story_note(c)
    assert L.off_story_note(L.mixtures_for()) == ""
