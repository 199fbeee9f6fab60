"""The erf network f(x, w) (Barber & Bishop (1998) §1.1, B&B (1)): ensemble_lib.models.network_function.

Against an explicit loop over hidden units and points, a round trip of the packing, and central
differences of the Jacobian.
"""

from __future__ import annotations


import numpy as np
import pytest

from ensemble_lib.models.network_function import (add_bias, n_weights, network_jacobian, network_output, pack_weights,
                                                  unpack_weights)

from _network_checks import central_grad, explicit_output, rel_err


# ---------------------------------------------------------------------------
# the network (eq. 1) and its packing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("H,d", [(1, 1), (2, 3), (4, 14)])
def test_network_output_matches_explicit_loop(H, d):
    rng = np.random.default_rng(10 + H + d)
    X = rng.normal(size=(7, d))
    k = n_weights(d, H)
    assert k == H * d + H
    W = rng.normal(size=(3, k))
    out = network_output(W, X, H)
    assert out.shape == (3, 7)
    for s in range(3):
        np.testing.assert_allclose(out[s], explicit_output(W[s], X, H), rtol=1e-13, atol=1e-14)


def test_packing_round_trip_and_bias_column():
    rng = np.random.default_rng(1)
    U, v = rng.normal(size=(3, 5)), rng.normal(size=3)
    w = pack_weights(U, v)
    assert w.shape == (18,)
    np.testing.assert_array_equal(w[:5], U[0])  # u_1 first, then u_2, …, then v
    np.testing.assert_array_equal(w[-3:], v)
    U2, v2 = unpack_weights(w, 3)
    np.testing.assert_array_equal(U2, U)
    np.testing.assert_array_equal(v2, v)
    Xb = add_bias(rng.normal(size=(4, 2)))
    assert Xb.shape == (4, 3) and np.all(Xb[:, -1] == 1.0)


def test_jacobian_matches_central_differences():
    rng = np.random.default_rng(2)
    H, d = 3, 4
    X = rng.normal(size=(6, d))
    w = rng.normal(size=H * d + H)
    J = network_jacobian(w, X, H)
    Jfd = np.stack([central_grad(lambda ww: network_output(ww, X, H)[n], w) for n in range(6)])
    assert rel_err(J, Jfd) < 1e-8
