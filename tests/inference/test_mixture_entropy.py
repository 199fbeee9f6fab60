"""A mixture's entropy two ways (Barber & Bishop 1998, §3, eq. 39): ensemble_lib.inference.mixture_entropy.

* the quadrature entropy against scipy's adaptive cubature of −∫Q ln Q, and against the closed
  form for K = 1; the rule summed node by node with scipy.stats' densities;
* the entropy's lower bound against that entropy (below it for random mixtures, equal for K = 1,
  tending to it as the components separate).
"""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib import gaussian_entropy
from ensemble_lib.inference import mixture_entropy as M

from _mixture_reference import _log_q, cubature_entropy, random_mixture


# ---------------------------------------------------------------------------
# the entropy, two ways
# ---------------------------------------------------------------------------

def test_for_one_component_both_entropies_equal_the_closed_form():
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, m, C = random_mixture(rng, 1, scale=rng.uniform(0.05, 3.0))
        exact = gaussian_entropy(C[0])
        assert M.mixture_entropy([1.0], m, C) == pytest.approx(exact, abs=1e-12)
        assert M.entropy_lower_bound([1.0], m, C) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_quadrature_entropy_matches_adaptive_cubature_for_random_mixtures(seed):
    rng = np.random.default_rng(100 + seed)
    w, m, C = random_mixture(rng, 2 + seed % 3, scale=0.5)
    # these components differ in shape far more than a fit's do (aspect ratios up to 13), which
    # slows the trapezoid rule's convergence: at the default spacing 0.1 the error reaches 5e-7
    ref = cubature_entropy(w, m, C)
    assert M.mixture_entropy(w, m, C) == pytest.approx(ref, abs=1e-6)
    assert M.mixture_entropy(w, m, C, spacing=0.03) == pytest.approx(ref, abs=1e-8)


@pytest.mark.parametrize("spacing, radius", [(M.FIT_SPACING, M._FIT_RADIUS), (M.REPORT_SPACING, M._Z_RADIUS)])
def test_quadrature_rule_is_the_node_by_node_sum_of_scipy_densities(spacing, radius):
    """The library evaluates ln Q at all nodes at once (each component's log density as a quadratic
    in the nodes' z); here the rule is summed node by node as its docstring writes it,
    H = −Σ_i π_i Σ_n W_n ln Q(w̄_i + L_i z_n), with ln Q from scipy.stats."""
    Z, W = M._nodes(2, spacing, radius)
    rng = np.random.default_rng(21)
    for trial in range(12):
        w, m, C = random_mixture(rng, 1 + trial % 5, scale=rng.uniform(0.1, 3.0))
        Ls = np.linalg.cholesky(C)
        ref = -sum(p * W @ _log_q(mi + Z @ L.T, w, m, C) for p, mi, L in zip(w, m, Ls))
        assert M._entropy_quadrature(w, m, Ls, spacing, False, radius) == pytest.approx(ref, rel=1e-13, abs=1e-12)
        assert M._entropy_quadrature(w, m, Ls, spacing, True, radius)[0] == pytest.approx(ref, rel=1e-13, abs=1e-12)


def test_entropy_bound_is_below_the_quadrature_entropy_for_random_mixtures():
    """60 random mixtures, K = 2 … 5, overlapping and separated: bound ≤ H; and the bound tends
    to H as the components separate (the gap shrinks when the means are pushed apart)."""
    rng = np.random.default_rng(7)
    gaps = []
    for trial in range(60):
        K = 2 + trial % 4
        w, m, C = random_mixture(rng, K, scale=rng.uniform(0.2, 2.0))
        H = M.mixture_entropy(w, m, C, spacing=0.05)  # error below 1e-7 for these (see above)
        lb = M.entropy_lower_bound(w, m, C)
        assert lb <= H + 1e-7, (trial, lb, H)
        gaps.append(H - lb)
    assert max(gaps) > 1e-2  # the bound is not trivially tight
    w, m, C = random_mixture(np.random.default_rng(3), 3, scale=0.5)
    far = [M.mixture_entropy(w, s * m, C) - M.entropy_lower_bound(w, s * m, C) for s in (1, 10, 100)]
    assert far[0] > far[1] > abs(far[2]) and abs(far[2]) < 1e-9
    # far apart, both reach Σ π_i H_i + H(π)
    exact = sum(p * gaussian_entropy(c) for p, c in zip(w, C)) - w @ np.log(w)
    assert M.entropy_lower_bound(w, 100 * m, C) == pytest.approx(exact, abs=1e-9)
