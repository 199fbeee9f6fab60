"""Laplace's local mass on the toy: the basin's exact mass by independent brute-force quadrature.

The library labels basins by discrete steepest ascent on a grid that follows the ridge. Here the
basin mass is found three other ways: by the mirror symmetry (each of the two basins holds exactly
half of the exact Z, which the toy integrates by adaptive 1-D quadrature), by a plain uniform
(u, v) grid summed over the half-plane of the mode, and by continuous steepest ascent (an ODE
solver) from points drawn from the posterior, which must end at the mode of their half-plane —
so the half-plane is the basin wherever the posterior has mass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.local_mass import (GAUSSIAN_INSIDE, basin_labels, marginal_laplace_log_mass,
                                               toy_local_mass, toy_posterior_on_ridge_grid)
from ensemble_lib.models.toy import make_posterior

ALPHAS = (0.02, 0.2, 2.0, 20.0)


@pytest.fixture(scope="module")
def masses():
    return {a: toy_local_mass(make_posterior(seed=25, alpha=a), n=401) for a in ALPHAS}


def test_two_separate_gaussians_get_two_basins_holding_their_weights():
    x = np.linspace(-8, 8, 321)
    X, Y = np.meshgrid(x, x)
    # 0.3 N((-3, 0), 0.5^2 I) + 0.7 N((3, 1), I), each normalised on the plane; the cells' masses
    p = (0.3 * np.exp(-0.5 * ((X + 3) ** 2 + Y**2) / 0.5**2) / (2 * np.pi * 0.25)
         + 0.7 * np.exp(-0.5 * ((X - 3) ** 2 + (Y - 1) ** 2)) / (2 * np.pi)) * (x[1] - x[0]) ** 2
    labels, peaks = basin_labels(np.log(p))
    assert len(peaks) == 2
    masses = sorted(p[labels == k].sum() for k in range(2))
    assert masses == pytest.approx([0.3, 0.7], abs=1e-4)  # the components barely overlap


def test_each_toy_mode_has_one_basin_and_it_holds_half_the_exact_mass(masses):
    for a, m in masses.items():
        assert m.n_basins == 2
        # mirror symmetry: ln M_basin = ln Z - ln 2, with ln Z from the toy's adaptive quadrature
        assert m.log_basin_mass == pytest.approx(m.log_Z - math.log(2), abs=5e-4), a
        assert m.grid_mass == pytest.approx(1.0, abs=5e-4)
    mirror = toy_local_mass(make_posterior(seed=25, alpha=0.2), quadrant=(1, 1), n=401)
    assert mirror.log_basin_mass == pytest.approx(masses[0.2].log_basin_mass, abs=1e-9)
    assert mirror.mode == pytest.approx(-masses[0.2].mode)


@pytest.mark.parametrize("alpha", [0.2, 2.0])
def test_the_basin_is_the_half_plane_where_the_posterior_has_mass_by_continuous_ascent(alpha):
    post = make_posterior(seed=25, alpha=alpha)
    modes = [laplace_fit(post, quadrant=q, compute_kl=False).mean for q in ((-1, -1), (1, 1))]
    grid = post.grid(n=301, extent=post.extent(1.0))
    U, V = np.meshgrid(grid.u, grid.v)
    p = (grid.density * grid.cell_area).ravel()
    rng = np.random.default_rng(0)
    picks = rng.choice(p.size, size=12, p=p / p.sum())
    # and points nearest the v axis that still carry mass
    near = np.flatnonzero((np.abs(U.ravel()) < 3 * (grid.u[1] - grid.u[0])) & (p > 1e-10 * p.max()))
    picks = np.concatenate([picks, near[:: max(1, near.size // 4)]])
    # the ascent dw/dt = grad ln P is stiff across the narrow ridge: an implicit solver with the Hessian
    for k in picks:
        w0 = np.array([U.ravel()[k], V.ravel()[k]])
        end = integrate.solve_ivp(lambda _, w: post.grad(w), (0, 1e3), w0, method="Radau",
                                  jac=lambda _, w: post.hessian(w), rtol=1e-8, atol=1e-10).y[:, -1]
        want = modes[0] if w0[0] < 0 else modes[1]
        assert np.linalg.norm(end - want) < 1e-3, (w0, end)


@pytest.mark.parametrize("alpha", [0.2, 2.0, 20.0])
def test_the_basin_mass_by_a_plain_uniform_grid_over_the_half_plane(masses, alpha):
    post = make_posterior(seed=25, alpha=alpha)
    grid = post.grid(n=2001, extent=post.extent(1.0))
    left = grid.u < 0
    brute = float((grid.density[:, left]).sum() * grid.cell_area)
    assert math.log(brute) + masses[alpha].log_Z == pytest.approx(masses[alpha].log_basin_mass, abs=2e-3)


def test_laplaces_mass_is_peak_times_the_gaussian_volume_with_a_central_difference_hessian(masses):
    for a, m in masses.items():
        post = make_posterior(seed=25, alpha=a)
        w, h = m.mode, 1e-4
        f = lambda d: float(post.log_unnorm(w + d))  # noqa: E731
        e = np.eye(2) * h
        H = np.array([[-(f(e[i] + e[j]) - f(e[i] - e[j]) - f(-e[i] + e[j]) + f(-e[i] - e[j])) / (4 * h * h)
                       for j in range(2)] for i in range(2)])
        want = f(np.zeros(2)) + math.log(2 * math.pi) - 0.5 * math.log(np.linalg.det(H))
        assert m.log_laplace_mass == pytest.approx(want, abs=1e-4), a


def test_laplace_overestimates_the_basin_mass_more_as_alpha_falls_and_the_marginal_laplace_underestimates(masses):
    ex = [masses[a].laplace_excess for a in ALPHAS]
    assert all(e > 0 for e in ex) and ex == sorted(ex, reverse=True)
    assert all(masses[a].marginal_laplace_excess < 0 for a in ALPHAS)


def test_the_share_inside_laplaces_ellipses_approaches_a_gaussians_when_the_posterior_is_nearly_gaussian(masses):
    m = masses[20.0]
    assert m.inside_1sd == pytest.approx(GAUSSIAN_INSIDE[1], abs=0.01)
    assert m.inside_2sd == pytest.approx(GAUSSIAN_INSIDE[2], abs=0.02)
    assert masses[0.2].inside_2sd < 0.6 * GAUSSIAN_INSIDE[2]
    # brute force at alpha = 0.2 on the plain grid: the basin's share inside the 2-sigma ellipse
    post = make_posterior(seed=25, alpha=0.2)
    lap = laplace_fit(post, compute_kl=False)
    grid = post.grid(n=2001, extent=post.extent(1.0))
    U, V = np.meshgrid(grid.u - lap.mean[0], grid.v - lap.mean[1])
    D = np.stack([U, V], -1)
    m2 = np.einsum("...i,ij,...j->...", D, lap.hessian, D)
    dens = grid.density * (U + lap.mean[0] < 0)
    assert dens[m2 < 4].sum() / dens.sum() == pytest.approx(masses[0.2].inside_2sd, abs=2e-3)


def test_the_marginal_laplace_sits_at_the_marginals_mode_and_is_exact_for_a_gaussian_like_marginal():
    post = make_posterior(seed=25, alpha=20.0)
    log_mass, u_star = marginal_laplace_log_mass(post, -1.0)
    lg = post.log_marginal_u(np.array([u_star - 1e-3, u_star, u_star + 1e-3]))
    assert lg[1] > lg[0] and lg[1] > lg[2]
    exact = math.log(integrate.quad(lambda u: math.exp(float(post.log_marginal_u(np.array([u]))[0]) - lg[1]),
                                    -20, 0, points=[u_star], limit=200)[0]) + lg[1]
    assert log_mass == pytest.approx(exact, abs=0.01)


def test_the_ridge_grid_sums_to_one():
    post = make_posterior(seed=3, alpha=1.0)
    u, V, logp, mass = toy_posterior_on_ridge_grid(post, n=201)
    assert V.shape == logp.shape == mass.shape == (201, u.size)
    assert mass.sum() == pytest.approx(1.0, abs=1e-3)
    # the log density written through the v-conditional is the posterior's own at the nodes
    W = np.stack([np.broadcast_to(u[None, :], V.shape), V], axis=-1)
    assert np.allclose(logp, post.log_unnorm(W) - post.log_Z, atol=1e-9)


@pytest.mark.parametrize("call, pattern", [
    (lambda: basin_labels([[0.0, 1.0], [1.0, 0.0]]), "log_density must be at least 3 x 3"),
    (lambda: basin_labels(np.full((3, 3), np.nan)), "log_density"),
    (lambda: toy_local_mass("toy"), "post must be a ToyPosterior"),
    (lambda: toy_local_mass(make_posterior(), n=10), "n must be an integer"),
    (lambda: marginal_laplace_log_mass(make_posterior(), 0.5), "sign must be -1 or 1"),
    (lambda: toy_posterior_on_ridge_grid(None), "post must be a ToyPosterior"),
])
def test_bad_input_is_refused_naming_the_argument(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()
