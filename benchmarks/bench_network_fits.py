"""Benchmarks of lesson 4's fits to convergence on the Boston Table-1 configuration.

One random split (seed 0 of :class:`~ensemble_lib.studies.splits.TableConfig`):
N = 128 standardised training rows, 13 inputs + bias, H = 4 (k = 60), the
paper's hyperpriors. ``setup`` runs MacKay's evidence fit (one restart) for
the starting Gaussian; the step is one :func:`~ensemble_lib.fit_ensemble` to
convergence with the hyperparameters adapted (the collapsed bound). The
issue's targets: full covariance ≤ 30 s, factor s = 1 ≤ 10 s on this 2-core
machine. Timings are reported, never asserted.

The ``boston_bound_gradient_*`` cases time one bound + gradient evaluation on the same
posterior at the evidence fit's Gaussian: ``kl_objective`` of the collapsed bound F*(Q)
(B&B (33)–(38)) in the full-covariance family, the unit a fit repeats ~1000 times. Issue 30's
target: ≤ 1.5 ms. Beside it, the ``*_pre_speedup`` cases run the same evaluation and the same
full fit with ⟨E_D⟩ from the frozen pre-speed-up code (``tests/_network_reference.py``), so one
report shows old and new on the same machine (results/network-bound-speedup-2026-11-27.md).
The ``*_study_memory`` cases run the same fits with the Table-1 study's L-BFGS-B memory
(``TableConfig.maxcor`` = 100 instead of 30; results/table1-speed-2026-11-27.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from ensemble_lib.studies.datasets import load_boston, train_test_split_standardised
from ensemble_lib.inference.hyperparameters import GammaHyperprior
from ensemble_lib.models.network import NetworkPosterior, add_bias
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.kl_fit import LBFGS_MEMORY, kl_objective
from ensemble_lib.inference.network_fits import CollapsedBound, fit_ensemble, fit_evidence

#: issue 30's target for one bound + gradient evaluation (Boston, H = 4, full covariance)
BOUND_GRADIENT_TARGET_MS = 1.5


def _reference_posterior(post):
    """The same posterior with ⟨E_D⟩ from the frozen pre-speed-up code (tests/_network_reference.py)."""
    path = Path(__file__).resolve().parent.parent / "tests" / "_network_reference.py"
    spec = importlib.util.spec_from_file_location("_network_reference", path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    return ref.ReferenceNetworkPosterior(post.X, post.t, post.n_hidden, alpha=1.0, beta=1.0)


def _boston_setup():
    data = load_boston()
    split = train_test_split_standardised(data.X, data.y, 128, np.random.default_rng([0, 0]))
    post = NetworkPosterior(add_bias(split.X_train), split.y_train, 4, alpha=1.0, beta=1.0)
    st = fit_evidence(post, np.random.default_rng([0, 0, 1]), n_restarts=1).final
    return post, st


def _fit_case(family, rank, target_ms, reference=False, maxcor=LBFGS_MEMORY):
    def setup():
        post, st = _boston_setup()
        return (_reference_posterior(post) if reference else post), st

    def step(ctx):
        post, st = ctx
        fit_ensemble(post, GammaHyperprior(), family, rank, init=[(st.mean, st.cov)], maxcor=maxcor)

    return setup, step, target_ms


def _bound_gradient_case(reference=False):
    def setup():
        post, st = _boston_setup()
        if reference:
            post = _reference_posterior(post)
        fam = CovarianceFamily.make("full", post.dim)
        return CollapsedBound(post, GammaHyperprior()), fam, fam.pack(st.mean, st.cov)

    def step(ctx):
        kl_objective(*ctx)

    return setup, step, BOUND_GRADIENT_TARGET_MS


CASES = {
    "boston_fit_full_to_convergence_k60": _fit_case("full", None, 30_000.0),
    "boston_fit_factor_s1_to_convergence_k60": _fit_case("factor", 1, 10_000.0),
    "boston_fit_full_to_convergence_k60_pre_speedup": _fit_case("full", None, 30_000.0, reference=True),
    "boston_fit_factor_s4_to_convergence_k60": _fit_case("factor", 4, None),
    # the same fits with the Table-1 study's L-BFGS-B memory (TableConfig.maxcor = 100, issue 30)
    "boston_fit_full_to_convergence_k60_study_memory": _fit_case("full", None, 30_000.0, maxcor=100),
    "boston_fit_factor_s1_to_convergence_k60_study_memory": _fit_case("factor", 1, 10_000.0, maxcor=100),
    "boston_fit_factor_s4_to_convergence_k60_study_memory": _fit_case("factor", 4, None, maxcor=100),
    "boston_bound_gradient_full_k60": _bound_gradient_case(),
    "boston_bound_gradient_full_k60_pre_speedup": _bound_gradient_case(reference=True),
}
