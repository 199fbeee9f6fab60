"""The erf network's ⟨E_D⟩ and its gradient equal the previous, straightforward formulation.

``ensemble_lib.models.network`` computes the angle integrals of Ψ's
mean-derivatives by the Hermite recurrence on blocks of rows, the projected
moments and the gradient's back-projection by matrix products, and the sums
over pairs by products with 0/1 scatter matrices. This file keeps the
formulation it replaced, written out plainly (Barber & Bishop (1998), eqs
20–24 and Appendix A): each derivative as its Wick expansion (monomials in
P11, P12, y1, y2 times the kernel, summed over the Gauss–Legendre nodes),
``einsum`` for the projections and ``np.add.at`` for the scatters; and checks
the two agree to 1e-12 relative on random problems, values and gradients.
"""

from __future__ import annotations

from math import comb, factorial

import numpy as np
import pytest

from ensemble_lib.models import network as nw

RTOL = 1e-12


# ---------------------------------------------------------------------------
# the reference: Ψ's mean-derivatives by the Wick expansion
# ---------------------------------------------------------------------------


def double_factorial(n):
    out = 1
    while n > 1:
        out *= n
        n -= 2
    return out


def hermite_terms(p, q):
    """∂_h^p ∂_k^q exp(−½zᵀPz) = (−1)^(p+q) H_pq(y, P) exp(…), y = Pz, as Wick terms.

    Terms (coef, j11, j12, j22, e1, e2): coef·P11^j11·P12^j12·P22^j22·y1^e1·y2^e2.
    """
    terms = []
    for j12 in range(min(p, q) + 1):
        for j11 in range((p - j12) // 2 + 1):
            for j22 in range((q - j12) // 2 + 1):
                n11 = comb(p, 2 * j11) * double_factorial(2 * j11 - 1)
                n12 = comb(p - 2 * j11, j12) * comb(q, j12) * factorial(j12)
                n22 = comb(q - j12, 2 * j22) * double_factorial(2 * j22 - 1)
                sign = (-1) ** (j11 + j12 + j22)
                terms.append(
                    (sign * n11 * n12 * n22, j11, j12, j22, p - 2 * j11 - j12, q - j12 - 2 * j22)
                )
    return terms


HERMITE = {(p, q): hermite_terms(p, q) for p in range(5) for q in range(5) if p + q <= 4}


def ref_psi_derivatives(m1, m2, S11, S12, S22, max_order, n_quad):
    l1 = np.sqrt(1.0 + S11)
    l2 = np.sqrt(1.0 + S22)
    h, k = m1 / l1, m2 / l2
    rho = np.minimum(np.maximum(S12 / (l1 * l2), -1.0 + 1e-15), 1.0 - 1e-15)
    theta_max = np.arcsin(rho)
    x, wq = nw._legendre01(n_quad)
    th = theta_max[..., None] * x
    s, c2 = np.sin(th), np.cos(th) ** 2
    hh, kk = h[..., None], k[..., None]
    factors = (1.0 / c2, -s / c2, (hh - s * kk) / c2, (kk - s * hh) / c2)  # P11, P12, y1, y2
    kernel = np.exp(-0.5 * (hh * factors[2] + kk * factors[3])) * ((2.0 / np.pi) * wq)
    sh = nw._sigma_derivatives(h, max_order)
    sk = nw._sigma_derivatives(k, max_order)
    out = {}
    for (p, q), terms in HERMITE.items():
        if p + q > max_order:
            continue
        total = 0.0
        for coef, j11, j12, j22, e1, e2 in terms:
            powers = (j11 + j22, j12, e1, e2)  # P22 = P11
            mono = kernel * np.prod([f**e for f, e in zip(factors, powers)], axis=0)
            total = total + coef * np.sum(mono, axis=-1)
        sign = -1.0 if (p + q) % 2 else 1.0
        out[(p, q)] = (sh[p] * sk[q] + sign * theta_max * total) / (l1**p * l2**q)
    return out


# ---------------------------------------------------------------------------
# the reference: the moments and the gradient with einsum and np.add.at
# ---------------------------------------------------------------------------


def ref_projected_moments(mean, cov, X, H):
    N, d = X.shape
    hd = H * d
    m_a = X @ mean[:hd].reshape(H, d).T
    m_v = mean[hd:]
    Cuu = cov[:hd, :hd].reshape(H, d, H, d)
    Cuv = cov[:hd, hd:].reshape(H, d, H)
    S_aa = np.einsum("nd,idje,ne->nij", X, Cuu, X)
    S_av = np.einsum("nd,idj->nij", X, Cuv)
    return m_a, m_v, S_aa, S_av, cov[hd:, hd:]


def ref_moments(mean, cov, X, t, H, n_quad, grad):
    N, d = X.shape
    m_a, m_v, S_aa, S_av, S_vv = ref_projected_moments(mean, cov, X, H)
    I, J = np.triu_indices(H)
    om = np.where(I == J, 1.0, 2.0)
    m1, m2 = m_a[:, I], m_a[:, J]
    S11, S22, S12 = S_aa[:, I, I], S_aa[:, J, J], S_aa[:, I, J]
    mu1, mu2 = m_v[I], m_v[J]
    K = S_vv[I, J]
    c1 = (S_av[:, I, I], S_av[:, J, I])
    c2 = (S_av[:, I, J], S_av[:, J, J])
    D = ref_psi_derivatives(m1, m2, S11, S12, S22, 4 if grad else 2, n_quad)
    A0 = mu1 * mu2 + K
    B = (mu1 * c2[0] + mu2 * c1[0], mu1 * c2[1] + mu2 * c1[1])
    Q11, Q22 = c1[0] * c2[0], c1[1] * c2[1]
    Q12 = c1[0] * c2[1] + c1[1] * c2[0]

    def T(a, b):
        return (
            A0 * D[(a, b)] + B[0] * D[(a + 1, b)] + B[1] * D[(a, b + 1)]
            + Q11 * D[(a + 2, b)] + Q12 * D[(a + 1, b + 1)] + Q22 * D[(a, b + 2)]
        )

    f2 = T(0, 0) @ om
    c_ii = np.einsum("nii->ni", S_av)
    s_ii = np.einsum("nii->ni", S_aa)
    D1 = nw._single_derivatives(m_a, s_ii, 3 if grad else 1)
    f1 = (m_v * D1[0] + c_ii * D1[1]).sum(axis=1)
    if not grad:
        return f1, f2, None
    value = 0.5 * float(np.sum(f2 - 2.0 * t * f1 + t * t))
    half_om = 0.5 * om
    gm_a = np.zeros((N, H))
    G_aa = np.zeros((N, H, H))
    G_av = np.zeros((N, H, H))
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
    np.add.at(G_av, (slice(None), I, I), 0.5 * half_om * (mu2 * d10 + d20 * c2[0] + d11 * c2[1]))
    np.add.at(G_av, (slice(None), J, I), 0.5 * half_om * (mu2 * d01 + d11 * c2[0] + d02 * c2[1]))
    np.add.at(G_av, (slice(None), I, J), 0.5 * half_om * (mu1 * d10 + d20 * c1[0] + d11 * c1[1]))
    np.add.at(G_av, (slice(None), J, J), 0.5 * half_om * (mu1 * d01 + d11 * c1[0] + d02 * c1[1]))
    gm_v = np.zeros(H)
    np.add.at(gm_v, I, g_mu1)
    np.add.at(gm_v, J, g_mu2)
    G_vv = np.zeros((H, H))
    np.add.at(G_vv, (I, J), 0.5 * g_K)
    np.add.at(G_vv, (J, I), 0.5 * g_K)
    tt = t[:, None]
    gm_v -= np.sum(tt * D1[0], axis=0)
    gm_a -= tt * (m_v * D1[1] + c_ii * D1[2])
    idx = np.arange(H)
    G_aa[:, idx, idx] -= tt * 0.5 * (m_v * D1[2] + c_ii * D1[3])
    G_av[:, idx, idx] -= tt * 0.5 * D1[1]
    hd = H * d
    d_mean = np.concatenate([(gm_a.T @ X).ravel(), gm_v])
    uu = np.einsum("nij,nd,ne->idje", G_aa, X, X).reshape(hd, hd)
    uv = np.einsum("nij,nd->idj", G_av, X).reshape(hd, H)
    d_cov = np.block([[uu, uv], [uv.T, G_vv]])
    return f1, f2, (value, d_mean, d_cov)


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


def close(new, ref):
    """Max-norm relative difference below RTOL."""
    scale = max(float(np.max(np.abs(ref))), 1e-300)
    return float(np.max(np.abs(np.asarray(new) - ref))) <= RTOL * scale


PSI_CASES = [  # (m1, m2, S11, S12, S22), including near-degenerate and broad pairs
    (0.3, -0.2, 0.5, 0.1, 0.7),
    (2.0, -3.0, 50.0, -49.9, 50.0),
    (0.1, 3.0, 400.0, 399.0, 400.0),
    (1.5, 1.5, 2.0, 2.0, 2.0),
]


@pytest.mark.parametrize("max_order", [0, 2, 4])
@pytest.mark.parametrize("n_quad", [4, 48, 101])
def test_psi_derivatives_recurrence_equals_wick_expansion(max_order, n_quad):
    rng = np.random.default_rng(7 + n_quad)
    shape = (23, 11)  # 253 rows: one block and a partial one at the default block size
    L = rng.normal(size=shape + (2, 2)) * rng.uniform(0.05, 8.0, size=shape + (1, 1))
    S = L @ np.swapaxes(L, -1, -2)
    m1, m2 = 2.0 * rng.normal(size=(2,) + shape)
    args = [m1, m2, S[..., 0, 0], S[..., 0, 1], S[..., 1, 1]]
    new = nw._psi_derivatives(*args, max_order, n_quad)
    ref = ref_psi_derivatives(*args, max_order, n_quad)
    assert new.keys() == ref.keys()
    for key in ref:
        assert new[key].shape == shape
        assert close(new[key], ref[key]), key
    for case in PSI_CASES:
        one = [np.array([c]) for c in case]
        new, ref = nw._psi_derivatives(*one, max_order, n_quad), ref_psi_derivatives(*one, max_order, n_quad)
        for key in ref:
            assert close(new[key], ref[key]), (case, key)


@pytest.mark.parametrize(
    "N,d,H,scale",
    [(1, 2, 1, 1.0), (5, 3, 2, 4.0), (17, 4, 3, 0.3), (40, 14, 4, 1.0), (128, 14, 8, 1.0), (9, 2, 11, 2.0)],
)
def test_expected_data_error_equals_previous_formulation(N, d, H, scale):
    rng = np.random.default_rng(100 * N + 10 * d + H)
    X, t, mean, cov = random_problem(rng, N, d, H, scale)
    post = nw.NetworkPosterior(X, t, H, alpha=1.0, beta=1.0)
    e = post.expected_data_error(mean, cov)
    f1, f2, (value, d_mean, d_cov) = ref_moments(mean, cov, X, t, H, nw.N_QUAD_DEFAULT, grad=True)
    assert abs(e.value - value) <= RTOL * abs(value)
    assert close(e.d_mean, d_mean)
    assert close(e.d_cov, d_cov)
    np.testing.assert_array_equal(e.d_cov, e.d_cov.T)
    # the value-only path (max_order 2) and the predictive moments
    g1, g2 = nw.output_moments(mean, cov, X, H)
    r1, r2, _ = ref_moments(mean, cov, X, None, H, nw.N_QUAD_DEFAULT, grad=False)
    assert close(g1, r1) and close(g1, f1)
    assert close(g2, r2) and close(g2, f2)
    assert nw.expected_data_error(mean, cov, X, t, H) == pytest.approx(value, rel=RTOL)
    assert close(nw.predictive_mean(mean, cov, X, H), r1)
    for new, ref in zip(nw._projected_moments(mean, cov, X, H), ref_projected_moments(mean, cov, X, H)):
        assert close(new, ref)


def test_blocks_of_rows_do_not_change_the_result(monkeypatch):
    """The angle integrals are the same whatever the block size (a block of 7 rows, of 1, of all)."""
    rng = np.random.default_rng(3)
    X, t, mean, cov = random_problem(rng, 13, 3, 4, 1.0)
    post = nw.NetworkPosterior(X, t, 4, alpha=1.0, beta=1.0)
    ref = post.expected_data_error(mean, cov)
    for rows in (1, 7, 10_000):
        monkeypatch.setattr(nw, "_CHUNK_ROWS", rows)
        e = post.expected_data_error(mean, cov)
        assert e.value == pytest.approx(ref.value, rel=RTOL)
        assert close(e.d_mean, ref.d_mean) and close(e.d_cov, ref.d_cov)
