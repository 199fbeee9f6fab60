"""Mixture fits for K = 1 … 4, each warm-started from K − 1 (Barber & Bishop 1998, §3, eq. 39):
ensemble_lib.inference.mixture_ladder.

Every number is compared with something computed another way:

* KL(Q‖P) of a fitted mixture against ∫Q ln(Q/P) by scipy's adaptive cubature in the (u, v)
  plane, with Q's density from scipy.stats and ln P written out from B&B (4)–(6) (erf, sum of
  squares); ln Z is the library's, itself checked against dblquad in tests/models/test_toy.py;
* K = 1 against the single full-covariance fit of kl_fit; the symmetric K = 2 fit against the
  sandwich KL₁ − ln 2 ≤ KL₂ ≤ KL₁ − ln 2 + ρ proved in :func:`mirror_overlap`'s docstring;
* the network's mirror mixture against the bound's closed form for two mirror components.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ensemble_lib import kl_fit, make_posterior
from ensemble_lib.inference import mixture_ladder as M
from ensemble_lib.inference.mixture_entropy import ENTROPIES
from ensemble_lib.inference.mixture_fit import mirror_overlap, mixture_fit

from _mixture_reference import cubature_kl, network_and_single, preset_posterior

LN2 = math.log(2.0)


@pytest.fixture(scope="module")
def preset():
    return preset_posterior()


@pytest.fixture(scope="module")
def network():
    return network_and_single()


@pytest.fixture(scope="module")
def ladders(preset):
    single = kl_fit(preset, "full")
    return {e: M.mixture_ladder(preset, 4, e, single=single) for e in ENTROPIES}


# ---------------------------------------------------------------------------
# the fits
# ---------------------------------------------------------------------------

def test_one_component_reproduces_the_full_covariance_fit(preset, ladders):
    full = kl_fit(preset, "full")
    fit = ladders["quadrature"].fits[0]
    np.testing.assert_allclose(fit.means[0], full.mean, atol=1e-12)
    np.testing.assert_allclose(fit.covs[0], full.cov, atol=1e-12)
    assert fit.kl == pytest.approx(full.kl, abs=1e-10)
    assert fit.kl_bound == pytest.approx(full.kl, abs=1e-10)
    assert fit.bound == pytest.approx(full.bound, abs=1e-10) and fit.F == pytest.approx(full.bound, abs=1e-10)
    # and from another start (the Laplace mode, a round covariance) the K = 1 fit finds it again
    start = ([1.0], [full.mean + [0.05, 0.2]], [0.01 * np.eye(2)])
    again = mixture_fit(preset, start, gtol=1e-8)
    assert again.kl == pytest.approx(full.kl, abs=1e-8)
    np.testing.assert_allclose(again.means[0], full.mean, atol=1e-5)
    np.testing.assert_allclose(again.covs[0], full.cov, rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("seed,alpha", [(25, 0.2), (3, 1.0), (7, 0.05)])
def test_kl_never_rises_with_K_and_is_never_negative(seed, alpha):
    post = make_posterior(seed, alpha)
    single = kl_fit(post, "full")
    for entropy in ENTROPIES:
        lad = M.mixture_ladder(post, 4, entropy, single=single)
        objective = lad.kl if entropy == "quadrature" else lad.kl_bound
        assert np.all(np.diff(objective) <= 1e-12), (entropy, objective)
        assert np.all(lad.kl >= 0) and np.all(lad.kl_bound >= lad.kl - 1e-12)
        assert all(f.K == K for K, f in enumerate(lad.fits, start=1))
        np.testing.assert_allclose([f.weights.sum() for f in lad.fits], 1.0, atol=1e-12)


#: KL of each K (quadrature-entropy ladder; bound-entropy ladder: its KL and the KL its bound claims)
#: as the first version of the fits computed them (before the quadrature was rewritten for speed):
#: the speed work must not move them. The optimiser's end point moves by ~1e-6 in θ (with the code,
#: or with the CPU's floating point), which moves a value at its optimum by ~1e-10: the KL of the
#: quadrature ladder and the bound of the bound ladder (checked to 2e-9). The bound ladder's true
#: KL is not at an optimum (its fits maximise the bound), so it moves at first order: 3e-9 between
#: two CPUs; it is checked to 1e-7
REFERENCE_LADDERS = {
    (25, 0.2, 0.1): ([1.5513092781, 0.8581620975, 0.5803090131, 0.3631095638],
                     [1.5513092781, 0.8581620975, 0.5839809984, 0.3688249635],
                     [1.5513092781, 0.8581620975, 0.6038647392, 0.4013004378]),
    (25, 1.0, 0.5): ([0.3666204804, 0.2379359736, 0.0696663417, 0.0410998014],
                     [0.3666204804, 0.3666204804, 0.1652312522, 0.1652312522],
                     [0.3666204804, 0.3666204804, 0.2514991094, 0.2514991094]),
}


@pytest.mark.parametrize("key", list(REFERENCE_LADDERS))
def test_ladders_keep_their_results_and_a_kept_fit_is_the_previous_q(key):
    """The second posterior's modes merge (noise s.d. 0.5): there the bounded fit finds nothing
    better than K = 1 at K = 2, nor than K = 3 at K = 4, and keeps the previous Q written with one
    more component (the heaviest split in two identical halves)."""
    seed, alpha, sd = key
    post = make_posterior(seed, alpha, sd)
    single = kl_fit(post, "full")
    q, b = (M.mixture_ladder(post, 4, e, single=single) for e in ENTROPIES)
    kl_q, kl_b, claimed = REFERENCE_LADDERS[key]
    np.testing.assert_allclose(q.kl, kl_q, rtol=0, atol=2e-9)
    np.testing.assert_allclose(b.kl, kl_b, rtol=0, atol=1e-7)
    np.testing.assert_allclose(b.kl_bound, claimed, rtol=0, atol=2e-9)
    for prev, fit in zip(b.fits, b.fits[1:]):
        if fit.kl_bound == pytest.approx(prev.kl_bound, abs=1e-9):  # kept: the same Q
            w, m, C = M.embed(prev)
            np.testing.assert_allclose(fit.weights, w, atol=1e-12)
            np.testing.assert_allclose(fit.means, m, atol=1e-12)
            np.testing.assert_allclose(fit.covs, C, atol=1e-12)
            assert fit.n_iter == 0 and fit.K == prev.K + 1


@pytest.mark.parametrize("entropy", ENTROPIES)
def test_the_ladder_as_it_goes_ends_at_the_ladder(preset, ladders, entropy):
    steps = list(M.iter_mixture_ladder(preset, 4, entropy, single=ladders[entropy].single))
    assert [len(s.fits) for s in steps] == [1, 2, 3, 4]
    for s in steps:  # each is the start of the whole ladder, fit for fit
        for a, b in zip(s.fits, ladders[entropy].fits):
            np.testing.assert_array_equal(a.theta, b.theta)
            assert (a.kl, a.kl_bound, a.n_iter) == (b.kl, b.kl_bound, b.n_iter)
    with pytest.raises(ValueError, match=r"K_max must be an integer in \[1, 8\]"):
        M.iter_mixture_ladder(preset, 0)  # refused at the call, not at the first fit


@pytest.mark.parametrize("K", [2, 3, 4])
def test_fitted_mixture_kl_matches_brute_force_quadrature(preset, ladders, K):
    for entropy in ENTROPIES:
        fit = ladders[entropy].fits[K - 1]
        assert fit.kl == pytest.approx(cubature_kl(preset, fit.weights, fit.means, fit.covs), abs=1e-6)


def test_symmetric_posterior_two_components_sit_on_the_mirror_modes_and_save_ln2(preset, ladders):
    """The preset's posterior is symmetric under w → −w. For the best single Gaussian Q (KL₁) and
    its mirror Q', KL(½Q + ½Q') = KL₁ − ln 2 + δ with 0 ≤ δ ≤ ρ = ∫√(QQ') (mirror_overlap), and
    any symmetric two-component fit is ≥ KL₁ − ln 2; so the K = 2 fit must lie in
    [KL₁ − ln 2, KL₁ − ln 2 + ρ], up to the optimiser's and the quadrature's errors (1e-7)."""
    single = ladders["quadrature"].single
    rho = mirror_overlap(single.mean, single.cov)
    assert rho < 1e-6  # the modes are far apart here
    for entropy in ENTROPIES:
        k1, k2 = ladders[entropy].fits[:2]
        np.testing.assert_allclose(k2.weights, [0.5, 0.5], atol=1e-6)
        np.testing.assert_allclose(k2.means[1], -k2.means[0], atol=1e-6)
        np.testing.assert_allclose(k2.covs[1], k2.covs[0], atol=1e-8)
        assert k1.kl - LN2 - 1e-7 <= k2.kl <= k1.kl - LN2 + rho + 1e-7, (entropy, k1.kl, k2.kl, rho)
    # the bound is tight here: far apart, e^{-D} is negligible
    assert ladders["bound"].fits[1].kl_bound == pytest.approx(ladders["bound"].fits[1].kl, abs=1e-7)


def test_more_components_follow_the_banana_and_the_bound_costs_something(ladders):
    q, b = ladders["quadrature"], ladders["bound"]
    assert q.kl[2] < q.kl[1] - 0.1 and q.kl[3] < q.kl[2] - 0.1  # K > 2 buys along each mode
    # the bounded fit gives up some KL for its rigorous bound, and its bound is the higher one
    assert np.all(b.kl[2:] >= q.kl[2:] - 1e-9)
    assert np.all(np.array([f.bound for f in b.fits]) >= np.array([f.bound for f in q.fits]) - 1e-9)


# ---------------------------------------------------------------------------
# the bound on a network (any number of parameters)
# ---------------------------------------------------------------------------

def test_network_mirror_mixture_gains_ln2_in_the_bound(network):
    """f(x; −w) = f(x; w) (σ odd, no output bias), so the mirror image has the same energy; with
    equal weights the bound's entropy is H₁ + ln 2 − ln(1 + e^{−D}), D = ½ w̄ᵀC⁻¹w̄ the
    Bhattacharyya distance of Q and Q': the K = 2 fit's bound is at least F₁ + ln 2 − ln(1 + e^{−D})."""
    post, single = network
    assert post.expected_energy(-single.mean, single.cov).value == pytest.approx(
        post.expected_energy(single.mean, single.cov).value, abs=1e-10)
    lad = M.mixture_ladder(post, 2, "bound", single=single)
    assert lad.fits[0].bound == pytest.approx(single.bound, abs=1e-10)
    D = 0.5 * single.mean @ np.linalg.solve(single.cov, single.mean)
    assert lad.fits[1].bound >= single.bound + LN2 - np.log1p(np.exp(-D)) - 1e-9
    assert np.isnan(lad.fits[1].kl) and np.isnan(lad.fits[1].F)  # no exact ln Z, no quadrature in 3-D
    with pytest.raises(ValueError, match="entropy='quadrature'"):
        M.mixture_ladder(post, 2, "quadrature", single=single)
