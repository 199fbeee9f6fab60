"""The erf network's ⟨E_D⟩ and its gradient equal the previous formulation, bit for bit.

``ensemble_lib.models.network._psi_derivatives`` integrates the Wick
monomials of Ψ's mean-derivatives (Barber & Bishop (1998), eqs 20–24,
46–50, Appendix A) on blocks of rows, building each monomial into a reused
buffer. The floating-point operations per element are the same as in the
formulation it replaced, which streamed every monomial of every pair and data
point through fresh memory; that formulation is kept here verbatim
(``ref_psi_derivatives``, ``ref_projected_moments``, ``ref_moments``) and the
tests check the two agree exactly (so also to the 1e-12 relative asked of a
faster path) on random problems, values and gradients. Exact agreement is
what lets fits to convergence reproduce the stored Table-1 numbers and the
committed figures.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_lib.models import network as nw

# ---------------------------------------------------------------------------
# the previous formulation, verbatim (names prefixed ref_)
# ---------------------------------------------------------------------------


def ref_psi_derivatives(m1, m2, S11, S12, S22, max_order: int, n_quad: int) -> dict:
    """∂^p_{m1}∂^q_{m2} Ψ for p + q ≤ max_order, Ψ = ⟨σ(a_1)σ(a_2)⟩, (a_1, a_2) ~ N(m, S).

    Vectorised over the (common) shape of the arguments. Returns a dict
    (p, q) → array. See the module docstring for the angle form of Ψ.
    """
    l1 = np.sqrt(1.0 + S11)
    l2 = np.sqrt(1.0 + S22)
    h, k = m1 / l1, m2 / l2
    rho = np.minimum(np.maximum(S12 / (l1 * l2), -1.0 + 1e-15), 1.0 - 1e-15)
    theta_max = np.arcsin(rho)
    x, wq = nw._legendre01(n_quad)
    th = theta_max[..., None] * x  # (..., n)
    s, c2 = np.sin(th), np.cos(th) ** 2
    hh, kk = h[..., None], k[..., None]
    P11 = 1.0 / c2
    P12 = -s / c2
    y1 = (hh - s * kk) / c2
    y2 = (kk - s * hh) / c2
    kernel = np.exp(-0.5 * (hh * y1 + kk * y2)) * ((2.0 / np.pi) * wq)
    sh = nw._sigma_derivatives(h, max_order)
    sk = nw._sigma_derivatives(k, max_order)
    # The Wick terms are monomials P11^a P12^b y1^e1 y2^e2 (P22 = P11); each
    # monomial times the weighted kernel is built once (by one multiplication
    # from a smaller one) and summed over the nodes once.
    factors = (P11, P12, y1, y2)
    unreduced = {(0, 0, 0, 0): kernel}
    reduced = {}

    def integral(key):
        if key not in reduced:
            reduced[key] = np.sum(monomial(key), axis=-1)
        return reduced[key]

    def monomial(key):
        if key not in unreduced:
            j = next(i for i in (3, 2, 1, 0) if key[i] > 0)
            smaller = key[:j] + (key[j] - 1,) + key[j + 1:]
            unreduced[key] = monomial(smaller) * factors[j]
        return unreduced[key]

    out = {}
    for (p, q), terms in nw._HERMITE.items():
        if p + q > max_order:
            continue
        total = 0.0
        for coef, j11, j12, j22, e1, e2 in terms:
            total = total + coef * integral((j11 + j22, j12, e1, e2))
        sign = -1.0 if (p + q) % 2 else 1.0
        out[(p, q)] = (sh[p] * sk[q] + sign * theta_max * total) / (l1**p * l2**q)
    return out


def ref_projected_moments(mean, cov, X, n_hidden):
    """Mean and covariance blocks of y_n = (a_1..a_H, v_1..v_H) = P_n w under N(mean, cov)."""
    N, d = X.shape
    H = n_hidden
    hd = H * d
    Ubar = mean[:hd].reshape(H, d)
    m_a = X @ Ubar.T  # (N, H)
    m_v = mean[hd:]  # (H,)
    Cuu = cov[:hd, :hd].reshape(H, d, H, d)
    Cuv = cov[:hd, hd:].reshape(H, d, H)
    S_aa = np.einsum("nd,idje,ne->nij", X, Cuu, X, optimize=True)  # Cov(a_i, a_j)
    S_av = np.einsum("nd,idj->nij", X, Cuv, optimize=True)  # Cov(a_i, v_j)
    S_vv = cov[hd:, hd:]
    return m_a, m_v, S_aa, S_av, S_vv


def ref_moments(mean, cov, X, t, n_hidden, n_quad, grad: bool):
    """Core: ⟨f⟩_n, ⟨f²⟩_n and (if grad) the gradient of ½Σ_n l_n w.r.t. mean and cov."""
    N, d = X.shape
    H = n_hidden
    m_a, m_v, S_aa, S_av, S_vv = ref_projected_moments(mean, cov, X, H)
    I, J, om = nw._pairs(H)
    # pair quantities, shape (N, P)
    m1, m2 = m_a[:, I], m_a[:, J]
    S11, S22, S12 = S_aa[:, I, I], S_aa[:, J, J], S_aa[:, I, J]
    mu1, mu2 = m_v[I], m_v[J]
    K = S_vv[I, J]
    c1 = (S_av[:, I, I], S_av[:, J, I])  # Cov(v_i, a_i), Cov(v_i, a_j)
    c2 = (S_av[:, I, J], S_av[:, J, J])  # Cov(v_j, a_i), Cov(v_j, a_j)
    D = ref_psi_derivatives(m1, m2, S11, S12, S22, 4 if grad else 2, n_quad)
    A0 = mu1 * mu2 + K
    B = (mu1 * c2[0] + mu2 * c1[0], mu1 * c2[1] + mu2 * c1[1])
    Q11, Q22 = c1[0] * c2[0], c1[1] * c2[1]
    Q12 = c1[0] * c2[1] + c1[1] * c2[0]

    def T(a, b):
        """T shifted by a, b extra mean-derivatives in (a_i, a_j)."""
        return (
            A0 * D[(a, b)] + B[0] * D[(a + 1, b)] + B[1] * D[(a, b + 1)]
            + Q11 * D[(a + 2, b)] + Q12 * D[(a + 1, b + 1)] + Q22 * D[(a, b + 2)]
        )

    T00 = T(0, 0)
    f2 = T00 @ om  # ⟨f²⟩_n, shape (N,)
    # linear terms M_i = ⟨v_i σ(a_i)⟩ (B&B (60))
    c_ii = np.einsum("nii->ni", S_av)
    s_ii = np.einsum("nii->ni", S_aa)
    D1 = nw._single_derivatives(m_a, s_ii, 3 if grad else 1)
    M = m_v * D1[0] + c_ii * D1[1]
    f1 = M.sum(axis=1)
    if not grad:
        return f1, f2, None
    value = 0.5 * float(np.sum(f2 - 2.0 * t * f1 + t * t))
    # gradients of ½Σ_n(Σ_ij T_ij − 2t_n Σ_i M_i) with respect to the blocks of y's moments
    half_om = 0.5 * om
    gm_a = np.zeros((N, H))
    G_aa = np.zeros((N, H, H))
    G_av = np.zeros((N, H, H))  # [n, a-index, v-index]
    np.add.at(gm_a, (slice(None), I), half_om * T(1, 0))
    np.add.at(gm_a, (slice(None), J), half_om * T(0, 1))
    g20, g11, g02 = 0.5 * T(2, 0), 0.5 * T(1, 1), 0.5 * T(0, 2)
    np.add.at(G_aa, (slice(None), I, I), half_om * g20)
    np.add.at(G_aa, (slice(None), J, J), half_om * g02)
    np.add.at(G_aa, (slice(None), I, J), half_om * g11)
    np.add.at(G_aa, (slice(None), J, I), half_om * g11)
    d10, d01 = D[(1, 0)], D[(0, 1)]
    d20, d11, d02 = D[(2, 0)], D[(1, 1)], D[(0, 2)]
    g_mu1 = (mu2 * D[(0, 0)] + c2[0] * d10 + c2[1] * d01).sum(axis=0) * half_om
    g_mu2 = (mu1 * D[(0, 0)] + c1[0] * d10 + c1[1] * d01).sum(axis=0) * half_om
    g_K = D[(0, 0)].sum(axis=0) * half_om
    # ∂T/∂c1 = μ2∇Ψ + ∇∇Ψ c2, ∂T/∂c2 = μ1∇Ψ + ∇∇Ψ c1; symmetric G takes half of each
    g_c1a = 0.5 * half_om * (mu2 * d10 + d20 * c2[0] + d11 * c2[1])
    g_c1b = 0.5 * half_om * (mu2 * d01 + d11 * c2[0] + d02 * c2[1])
    g_c2a = 0.5 * half_om * (mu1 * d10 + d20 * c1[0] + d11 * c1[1])
    g_c2b = 0.5 * half_om * (mu1 * d01 + d11 * c1[0] + d02 * c1[1])
    np.add.at(G_av, (slice(None), I, I), g_c1a)
    np.add.at(G_av, (slice(None), J, I), g_c1b)
    np.add.at(G_av, (slice(None), I, J), g_c2a)
    np.add.at(G_av, (slice(None), J, J), g_c2b)
    gm_v = np.zeros(H)
    np.add.at(gm_v, I, g_mu1)
    np.add.at(gm_v, J, g_mu2)
    G_vv = np.zeros((H, H))
    np.add.at(G_vv, (I, J), 0.5 * g_K)
    np.add.at(G_vv, (J, I), 0.5 * g_K)
    # −t_n Σ_i M_i (the ½ and the 2 cancel)
    tt = t[:, None]
    gm_v -= np.sum(tt * D1[0], axis=0)
    gm_a -= tt * (m_v * D1[1] + c_ii * D1[2])
    idx = np.arange(H)
    G_aa[:, idx, idx] -= tt * 0.5 * (m_v * D1[2] + c_ii * D1[3])
    G_av[:, idx, idx] -= tt * 0.5 * D1[1]
    # back to w = (u, v): d_mean = Σ P_nᵀ g_n, d_cov = Σ P_nᵀ G_n P_n
    k = H * d + H
    hd = H * d
    d_mean = np.empty(k)
    d_mean[:hd] = (gm_a.T @ X).ravel()
    d_mean[hd:] = gm_v
    d_cov = np.empty((k, k))
    d_cov[:hd, :hd] = np.einsum("nij,nd,ne->idje", G_aa, X, X, optimize=True).reshape(hd, hd)
    uv = np.einsum("nij,nd->idj", G_av, X, optimize=True).reshape(hd, H)
    d_cov[:hd, hd:] = uv
    d_cov[hd:, :hd] = uv.T
    d_cov[hd:, hd:] = G_vv
    return f1, f2, nw.Expectation(value, d_mean, d_cov)


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------


def random_problem(rng, N, d, H, scale):
    """Inputs with a bias column, targets, and Q = N(mean, cov) with a full covariance."""
    X = np.hstack([rng.normal(size=(N, d - 1)), np.ones((N, 1))])
    t = rng.normal(size=N)
    k = H * d + H
    mean = np.concatenate([rng.normal(size=H * d) / np.sqrt(d), 1.5 * rng.normal(size=H)])
    A = rng.normal(size=(k, k)) / np.sqrt(k)
    D = np.diag(np.concatenate([np.full(H * d, scale / np.sqrt(d)), np.full(H, 0.6)]))
    cov = D @ (A @ A.T + 0.1 * np.eye(k)) @ D
    return X, t, mean, 0.5 * (cov + cov.T)


PSI_CASES = [  # (m1, m2, S11, S12, S22), including near-degenerate and broad pairs
    (0.3, -0.2, 0.5, 0.1, 0.7),
    (2.0, -3.0, 50.0, -49.9, 50.0),
    (0.1, 3.0, 400.0, 399.0, 400.0),
    (1.5, 1.5, 2.0, 2.0, 2.0),
]


@pytest.mark.parametrize("max_order", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("n_quad", [4, 48, 101])
@pytest.mark.parametrize("shape", [(1,), (23, 11), (2100,)])
def test_psi_derivatives_equal_previous_formulation(max_order, n_quad, shape):
    """Several blocks of rows, a partial last block, C- and F-ordered arguments."""
    rng = np.random.default_rng(7 + n_quad + len(shape))
    L = rng.normal(size=shape + (2, 2)) * rng.uniform(0.05, 8.0, size=shape + (1, 1))
    S = L @ np.swapaxes(L, -1, -2)
    m1, m2 = 2.0 * rng.normal(size=(2,) + shape)
    for args in ([m1, m2, S[..., 0, 0], S[..., 0, 1], S[..., 1, 1]],
                 [np.asfortranarray(a) for a in (m1, m2, S[..., 0, 0], S[..., 0, 1], S[..., 1, 1])]):
        new = nw._psi_derivatives(*args, max_order, n_quad)
        ref = ref_psi_derivatives(*args, max_order, n_quad)
        assert list(new) == list(ref)
        for key in ref:
            np.testing.assert_array_equal(new[key], ref[key], err_msg=str(key))
            assert new[key].strides == ref[key].strides, key  # the layout later products see
    for case in PSI_CASES:
        one = [np.array([c]) for c in case]
        new, ref = nw._psi_derivatives(*one, max_order, n_quad), ref_psi_derivatives(*one, max_order, n_quad)
        for key in ref:
            np.testing.assert_array_equal(new[key], ref[key], err_msg=str((case, key)))


@pytest.mark.parametrize(
    "N,d,H,scale",
    [(1, 2, 1, 1.0), (5, 3, 2, 4.0), (17, 4, 3, 0.3), (40, 14, 4, 1.0), (128, 14, 8, 1.0), (9, 2, 11, 2.0)],
)
def test_expected_data_error_equals_previous_formulation(N, d, H, scale):
    rng = np.random.default_rng(100 * N + 10 * d + H)
    X, t, mean, cov = random_problem(rng, N, d, H, scale)
    post = nw.NetworkPosterior(X, t, H, alpha=1.0, beta=1.0)
    e = post.expected_data_error(mean, cov)
    f1, f2, ref = ref_moments(mean, cov, X, t, H, nw.N_QUAD_DEFAULT, grad=True)
    assert e.value == ref.value
    np.testing.assert_array_equal(e.d_mean, ref.d_mean)
    np.testing.assert_array_equal(e.d_cov, ref.d_cov)
    # the value-only path (Ψ to second order) and the predictive moments
    g1, g2 = nw.output_moments(mean, cov, X, H)
    r1, r2, _ = ref_moments(mean, cov, X, None, H, nw.N_QUAD_DEFAULT, grad=False)
    np.testing.assert_array_equal(g1, r1)
    np.testing.assert_array_equal(g2, r2)
    np.testing.assert_array_equal(g1, f1)
    np.testing.assert_array_equal(g2, f2)


def test_block_size_does_not_change_the_result(monkeypatch):
    """Blocks of 1, 7 and all rows give the same numbers, bit for bit."""
    rng = np.random.default_rng(3)
    X, t, mean, cov = random_problem(rng, 13, 3, 4, 1.0)
    post = nw.NetworkPosterior(X, t, 4, alpha=1.0, beta=1.0)
    ref = post.expected_data_error(mean, cov)
    for rows in (1, 7, 10_000):
        monkeypatch.setattr(nw, "_CHUNK_ROWS", rows)
        e = post.expected_data_error(mean, cov)
        assert e.value == ref.value
        np.testing.assert_array_equal(e.d_mean, ref.d_mean)
        np.testing.assert_array_equal(e.d_cov, ref.d_cov)
