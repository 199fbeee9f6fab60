"""The collapsed bound F*(Q) and its gradient after issue 30's speed-up: pinned and differenced.

One bound + gradient evaluation is ``kl_objective(CollapsedBound(post, prior), family, θ)``
(Barber & Bishop (1998), eqs 17–26 and 33–38 with ⟨E_D⟩ of eqs 20–24, Appendix A). Two
independent checks of the faster ⟨E_D⟩ (``ensemble_lib/models/network.py``):

* a regression pin: the same evaluation with ⟨E_D⟩ from the frozen pre-speed-up code
  (``tests/_network_reference.py``) agrees to 1e-10 relative — the value, and the gradient
  in θ to 1e-10 of its largest component — on random Q for H ∈ {1, 2, 4}, every covariance
  family (diagonal, factor s = 1 and 2, full), with and without a bias column, and on the
  Table-1 posterior (Boston split 0, H = 4);
* central differences of the value reproduce the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

import _network_reference as ref
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.hyperparameters import GammaHyperprior
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.network_fits import CollapsedBound
from ensemble_lib.models.network import NetworkPosterior, add_bias

FAMILIES = [("diagonal", None), ("factor", 1), ("factor", 2), ("full", None)]
RTOL = 1e-10


def _targets(X, t, H):
    """The collapsed bound with the library's ⟨E_D⟩ and with the frozen reference's."""
    prior = GammaHyperprior()
    new = CollapsedBound(NetworkPosterior(X, t, H, alpha=1.0, beta=1.0), prior)
    old = CollapsedBound(ref.ReferenceNetworkPosterior(X, t, H, alpha=1.0, beta=1.0), prior)
    return new, old


def _random_theta(rng, fam, scale):
    """Parameters of a random Q of the family: mean ~ N(0, 1), log-widths around ln(scale)."""
    k = fam.dim
    mean = rng.normal(size=k)
    L = scale * (np.eye(k) + 0.3 * rng.normal(size=(k, k)) / np.sqrt(k))
    theta = fam.pack(mean, L @ L.T)
    if fam.name == "factor":  # factors of their own, not the packed projection's
        theta[2 * k:] = 0.5 * scale * rng.normal(size=k * fam.rank)
    return theta


def _problem(H, bias, seed, N=25, n_inputs=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, n_inputs))
    if bias:
        X = add_bias(X)
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=N)
    return rng, X, t


def assert_agree(new, old):
    (f_new, g_new), (f_old, g_old) = new, old
    assert np.isfinite(f_old) and np.all(np.isfinite(g_old))
    assert abs(f_new - f_old) <= RTOL * abs(f_old), (f_new, f_old)
    worst = np.max(np.abs(g_new - g_old))
    assert worst <= RTOL * np.max(np.abs(g_old)), (worst, np.max(np.abs(g_old)))


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("family,rank", FAMILIES, ids=lambda x: str(x))
@pytest.mark.parametrize("H", [1, 2, 4])
def test_bound_and_gradient_agree_with_pre_speedup_code(H, family, rank, bias):
    rng, X, t = _problem(H, bias, seed=[H, int(bias), 0 if rank is None else rank, len(family)])
    new, old = _targets(X, t, H)
    fam = CovarianceFamily.make(family, new.dim, rank if family == "factor" else None)
    for scale in (0.1, 1.0, 4.0):  # narrow, moderate and broad Q (pre-activation variances ~ 10²)
        theta = _random_theta(rng, fam, scale)
        assert_agree(kl_objective(new, fam, theta), kl_objective(old, fam, theta))


def test_bound_and_gradient_agree_on_the_table1_posterior():
    """Boston split 0 of the Table-1 protocol (N = 128, 13 inputs + bias, H = 4, k = 60)."""
    from ensemble_lib.studies import table1 as t1
    from ensemble_lib.studies.datasets import load_boston

    cfg = t1.TableConfig()
    data = load_boston()
    split, Xtr, _ = t1.make_split(data.X, data.y, cfg, 0)
    new, old = _targets(Xtr, split.y_train, cfg.n_hidden)
    rng = np.random.default_rng(30)
    for family, rank in FAMILIES:
        fam = CovarianceFamily.make(family, new.dim, rank)
        for scale in (0.05, 0.5, 3.0):
            theta = _random_theta(rng, fam, scale)
            assert_agree(kl_objective(new, fam, theta), kl_objective(old, fam, theta))


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("family,rank", FAMILIES, ids=lambda x: str(x))
def test_bound_gradient_matches_central_differences(family, rank, bias):
    rng, X, t = _problem(2, bias, seed=[7, int(bias), 0 if rank is None else rank], N=15, n_inputs=2)
    new, _ = _targets(X, t, 2)
    fam = CovarianceFamily.make(family, new.dim, rank)
    theta = _random_theta(rng, fam, 0.7)
    _, g = kl_objective(new, fam, theta)
    eps = 1e-6
    fd = np.empty_like(theta)
    for i in range(theta.size):
        step = np.zeros_like(theta)
        step[i] = eps
        fd[i] = (kl_objective(new, fam, theta + step)[0] - kl_objective(new, fam, theta - step)[0]) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6 * np.max(np.abs(g)))
