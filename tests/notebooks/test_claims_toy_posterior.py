"""Lesson 1's quantitative sentences, each found word for word and asserted on numbers computed here
(tests/_claims.py): fits recomputed by the library, checked against brute-force quadrature where
the sentence is about accuracy, and the panel's readout for the sentences about where it leaves the story."""

import math

import numpy as np
import pytest
from _claims import sentence
from scipy import integrate, special
from models.test_toy import post_mode

from ensemble_lib.inference.toy_fits import fit_all
from ensemble_lib.lessons import toy_posterior as tp
from ensemble_lib.models.erf_network import TOY_V_TRUE
from ensemble_lib.models.toy import PAPER_PRESET, kl_by_quadrature, make_posterior

NB = "01_toy_posterior_laplace_vs_kl.ipynb"


@pytest.fixture(scope="module")
def preset():
    return fit_all(make_posterior(**PAPER_PRESET))


def test_two_weights_six_inputs_in_minus2_2_noise_sd_01_beta_100(preset):
    sentence(NB, "A network with **two** weights")
    sentence(NB, "Six inputs are drawn uniformly in $(-2, 2)$ and the targets are $t = -2.5\\,\\sigma(-0.13x)$ "
                 "plus Gaussian noise of s.d. 0.1, i.e. noise precision $\\beta = 100$")
    post = preset.posterior
    assert post.dim == 2 and len(post.x) == 6 and PAPER_PRESET["n"] == 6
    assert np.all(np.abs(post.x) < 2) and TOY_V_TRUE == -2.5
    assert post.beta == pytest.approx(1 / 0.1 ** 2) == pytest.approx(100.0)


def test_posterior_is_symmetric_and_has_two_modes(preset):
    sentence(NB, "the posterior is symmetric under $(u, v)\\to(-u, -v)$ and has two modes")
    post, w = preset.posterior, preset.laplace.mean
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(20, 2)) * 2
    assert np.allclose(post.log_unnorm(pts), post.log_unnorm(-pts), rtol=1e-12)
    # the mode and its mirror are both local maxima, separated by a lower origin
    assert np.allclose(post.grad(w), 0, atol=1e-5) and np.allclose(post.grad(-w), 0, atol=1e-5)
    assert post.log_unnorm(np.zeros(2)) < post.log_unnorm(w) - 1


def test_log_Z_by_1d_quadrature_matches_brute_force_2d_to_1e_6():
    sentence(NB, "the tests check it against brute-force 2-D quadrature to $10^{-6}$")
    post = make_posterior(**PAPER_PRESET)
    # B&B (4)-(6) written out and integrated over a box holding the ridge's long tails (u to ±40: the
    # posterior's 99.5 % box is only |u| < 1.1, and 4 times it misses 3e-6 of the mass)
    x, t, beta, alpha = post.x, post.t, post.beta, post.alpha
    shift = -post.log_unnorm(post_mode(post))

    def f(v, u):
        r = v * special.erf(u * x / math.sqrt(2)) - t
        return math.exp(-0.5 * beta * (r @ r) - 0.5 * alpha * (u * u + v * v) + shift)

    val, _ = integrate.dblquad(f, -40, 40, -15, 15, epsabs=0, epsrel=1e-10)
    assert post.log_Z == pytest.approx(math.log(val) - shift, abs=1e-6)


def test_laplace_starts_in_the_generating_quadrant(preset):
    sentence(NB, "searches from the quadrant of the generating parameters $(u, v) = (-0.13, -2.5)$")
    assert np.all(preset.laplace.mean < 0)


def test_factor_rank_0_is_diagonal_and_rank_1_is_full(preset):
    sentence(NB, "$s = 0$ is diagonal, $s = k-1 = 1$ is fully general")
    f0 = fit_all(preset.posterior, rank=0).factor
    assert f0.kl == pytest.approx(preset.diagonal.kl, abs=1e-6)
    assert preset.factor.rank == 1 and preset.factor.kl == pytest.approx(preset.full.kl, abs=1e-8)


def test_full_beats_diagonal_and_every_fit_pays_about_ln2_for_the_far_mode(preset):
    sentence(NB, "the full family can, so its KL is lower")
    sentence(NB, "a full covariance beats a diagonal one; factor analysis with $s = k-1$ equals full")
    sentence(NB, "every fit pays about $\\ln 2 \\approx 0.69$ for the mode it leaves out")
    assert preset.full.kl < preset.diagonal.kl
    assert round(math.log(2), 2) == 0.69
    # well separated (many precise data): the full fit's KL against the one-mode posterior P₊ is KL − ln 2 ≥ 0
    sep = fit_all(make_posterior(PAPER_PRESET["seed"], 0.2, 0.05, 50))
    assert sep.full.kl >= math.log(2)
    assert sep.full.kl == pytest.approx(kl_by_quadrature(sep.posterior, sep.full.mean, sep.full.cov), abs=1e-6)


def test_laplace_kl_near_41_and_the_papers_other_values_out_of_reach(preset):
    sentence(NB, "KL(Q‖P) ≈ 41 for the preset")
    sentence(NB, "so **41 / 4.6 / 3.9 cannot be reproduced digit for digit.**")
    sentence(NB, "we found **no** setting with $N = 6$ (we also tried $\\beta$ = 400 and 2500 and $\\alpha$ down "
                 "to 0.01) where they reach the paper's 4.6 / 3.9")
    assert abs(preset.laplace.kl - tp.PAPER_KL["laplace"]) < 0.5
    assert tp.PAPER_KL == {"laplace": 41.0, "diagonal": 4.6, "full": 3.9}
    for beta in (100.0, 400.0, 2500.0):
        for alpha in (0.01, 0.2, 2.0):
            for seed in (0, 7, 25):
                f = fit_all(make_posterior(seed, alpha, 1 / math.sqrt(beta), 6))
                assert f.diagonal.kl < tp.PAPER_KL["diagonal"] and f.full.kl < tp.PAPER_KL["full"]


def test_the_preset_search_covers_seeds_0_39_and_seven_alphas_from_005_to_2():
    sentence(NB, "we searched seeds 0–39 and $\\alpha \\in \\{0.05, \\dots, 2\\}$")
    import inspect
    d = inspect.signature(tp.find_preset).parameters
    assert list(d["seeds"].default) == list(range(40))
    assert d["alphas"].default[0] == 0.05 and d["alphas"].default[-1] == 2.0 and len(d["alphas"].default) == 7


def test_laplace_kl_falls_as_alpha_grows_over_the_table():
    sentence(NB, "a smaller $\\alpha$ lets the ridge run further, so the tangent Gaussian strays further")
    med = [s["laplace_median"] for s in tp.summarise_table(tp.kl_table(seeds=range(4)))]
    assert all(a > b for a, b in zip(med, med[1:]))


def test_table_sentences_are_written_from_the_tables_numbers():
    sentence(NB, "its 4.6 / 3.9 are not reached by any data set we tried — the ordering is")
    rows = tp.load_kl_table()
    said = tp.table_sentences(rows)
    assert f"holds on {len(rows)} of the {len(rows)} data sets" in said
    assert "all below the paper's 4.6 / 3.9" in said
    worse = [dict(r, full=r["diagonal"] + 1) for r in rows[:3]] + rows[3:]
    assert f"holds on {len(rows) - 3} of the {len(rows)}" in tp.table_sentences(worse)


def test_where_it_opens_the_preset_numbers(preset):
    said = sentence(NB, "KL(Q‖P) = 40.817 for Laplace, 2.416 for the diagonal and 1.551 for the full Gaussian, "
                        "and ln P(D | α, β) = −1.281")
    assert f"{preset.laplace.kl:.3f}" in said and f"{preset.diagonal.kl:.3f}" in said
    assert f"{preset.full.kl:.3f}" in said and f"{preset.posterior.log_evidence:.3f}".replace("-", "−") in said


def test_ordering_fails_only_where_the_lesson_says_and_the_readout_says_why():
    sentence(NB, "Where the posterior is nearly Gaussian around its mode — a strong prior ($\\alpha$ of 3 to 10), "
                 "or little information (one or two data points, noise s.d. near 1) — Laplace's tilted "
                 "covariance can beat the diagonal $Q$")
    panel = tp.ToyExplorer()
    assert tp.ordering_notes(panel.compute(**panel.values())) == []  # the preset follows the story
    strong = panel.compute(**{**panel.values(), "alpha": 10.0, "noise_sd": 0.1, "n": 6})  # the α = 10
    assert strong.laplace.kl < strong.diagonal.kl
    assert "Why Laplace" in panel.format_readout(strong)
    weak = panel.compute(**{**panel.values(), "alpha": 10.0, "noise_sd": 1.0, "n": 2, "seed": 0})
    assert weak.laplace.kl <= weak.diagonal.kl and tp.ordering_notes(weak)
    # the thin ridge (small α, small noise, N = 6) keeps Laplace far worse, on every seed tried
    for seed in range(4):
        f = fit_all(make_posterior(seed, 0.1, 0.1, 6))
        assert f.laplace.kl > f.diagonal.kl > f.full.kl and not tp.ordering_notes(f)


def test_diagonal_fit_to_a_gaussian_has_variances_1_over_a_ii_and_the_closed_form_minimum():
    sentence(NB, "show that KL(Q‖P) is minimised by $\\bar{\\mathbf w} = \\mathbf m$ and $d_i^2 = 1/A_{ii}$, with "
                 "minimum $\\tfrac12\\sum_i\\ln A_{ii} - \\tfrac12\\ln|\\mathbf A|$")
    from ensemble_lib import LinearGaussianPosterior, kl_fit

    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, 10)
    phi = np.column_stack([x, x + 0.3 * x ** 2])
    lin = LinearGaussianPosterior(phi, phi @ [1.0, -0.5] + 0.3 * rng.standard_normal(10), alpha=1.0, beta=4.0)
    A, fit = lin.precision, kl_fit(lin, "diagonal")
    assert np.allclose(fit.mean, lin.mean, atol=1e-6)
    assert np.allclose(np.diag(fit.cov), 1 / np.diag(A), rtol=1e-6)
    assert fit.kl == pytest.approx(0.5 * (np.log(np.diag(A)).sum() - np.linalg.slogdet(A)[1]), abs=1e-8)
