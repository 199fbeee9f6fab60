"""NUTS and fixed-step HMC on the toy posterior, stored for lesson 9 (Monte Carlo as inference).

Barber & Bishop (1998) §1.3 (eq. 14) name Monte Carlo as the third way to
integrate over the posterior, beside Laplace's method and ensemble learning;
MacKay's "Probable networks" §5.4 uses it for predictions. Lesson 9 shows it
on the toy posterior of Fig. 2 (:data:`~ensemble_lib.models.toy.PAPER_PRESET`),
whose exact answer the suite has. Sampling needs JAX (seconds to compile),
which a lesson's Run All cannot spend, so the runs are made here once, all
with the library's sampler (:func:`~ensemble_lib.inference.hmc.sample_toy`),
and stored:

* ``main_*`` — NUTS, :data:`MAIN_SAMPLER` (4 chains, 1000 + 1000 draws), seed :data:`SEED`:
  the draws, per-chain acceptance, leapfrog steps and divergences;
* ``sweep_*`` — plain HMC with a fixed step size ε (:data:`SWEEP_STEPS`) and L leapfrog steps
  (:data:`SWEEP_LENGTHS`), identity mass matrix, no adaptation: mean acceptance and the
  fraction of divergent transitions, per (ε, L);
* ``rep_*`` — :data:`N_REPLICATES` further NUTS runs (:data:`REP_SAMPLER`, seeds 1, 2, …):
  each run's Monte Carlo estimate of the predictive mean at :data:`X_STAR` and its stated
  standard error ``sd/√ESS`` (ESS over the pooled chains, :mod:`numpyro.diagnostics`), so the
  stated error can be compared with the spread over seeds;
* ``seconds_*`` — wall times (volatile: the re-derivation test ignores them).

``python -m ensemble_lib.studies.toy_hmc [--out FILE]`` writes ``figures/monte_carlo_toy.npz``
(atomically). tests/studies/test_toy_hmc.py re-derives it.

Code names: ``eps`` = ε (leapfrog step size), ``n_leapfrog`` = L, ``x_star`` = x*.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from scipy.special import erf

from ..core import validation as check
from ..inference.hmc import SamplerSettings, sample_toy
from ..models.toy import PAPER_PRESET, ToyPosterior, make_posterior
from .runner import one_file_main, store_once
from .store import load_npz, save_npz, stored_file

STORE_FILE = "monte_carlo_toy.npz"
#: the main run's seed and settings (NumPyro's default step-size target, 0.8)
SEED = 0
MAIN_SAMPLER = SamplerSettings(num_warmup=1000, num_samples=1000, num_chains=4,
                               target_accept_prob=0.8, max_tree_depth=10)
#: the fixed-step runs: ε (in the units of u and v) × L, 2 chains of 200 draws after 100 warm-up
SWEEP_STEPS = (0.005, 0.01, 0.02, 0.03, 0.045, 0.065, 0.1)
SWEEP_LENGTHS = (5, 20)
SWEEP_SAMPLER = SamplerSettings(num_warmup=100, num_samples=200, num_chains=2)
#: the replicate runs: seeds 1 … N_REPLICATES at the main run's settings (with 250 + 250 draws per
#: chain the stated errors were 1.6 times too small: χ² = 30.5 on 10 degrees of freedom)
N_REPLICATES = 10
REP_SAMPLER = MAIN_SAMPLER
#: the test input of the predictive quantity ⟨f(x*)⟩ (outside the data's (−2, 2))
X_STAR = 3.0
_COMMAND = "python -m ensemble_lib.studies.toy_hmc"


def _path(name: str, value):
    return check.instance(name, value, (str, os.PathLike), "None or a str or pathlib.Path")


def toy_posterior() -> ToyPosterior:
    """The lesson's posterior: the paper-like preset of lesson 1."""
    return make_posterior(**PAPER_PRESET)


def predictive_draws(w, x_star: float = X_STAR) -> np.ndarray:
    """f(x*, w) = v σ(u x*) for draws ``w`` of shape (..., 2) (B&B (1)–(2), H = 1, no bias)."""
    w = check.finite_array("w", w)
    if w.ndim < 1 or w.shape[-1] != 2:
        raise ValueError(f"w must be draws (u, v) of shape (..., 2), got shape {w.shape}")
    x_star = check.real("x_star", x_star)
    return w[..., 1] * erf(w[..., 0] * x_star / np.sqrt(2.0))


def _estimate(f_chains) -> tuple[float, float]:
    """Mean of draws (chains, draws) and its stated standard error sd/√ESS (NumPyro's ESS)."""
    from numpyro.diagnostics import effective_sample_size  # heavy optional dependency

    ess = float(effective_sample_size(np.asarray(f_chains)[..., None])[0])
    return float(np.mean(f_chains)), float(np.std(f_chains) / np.sqrt(ess))


def compute_store(n_replicates: int = N_REPLICATES, steps=SWEEP_STEPS, lengths=SWEEP_LENGTHS) -> dict:
    """Every run of the store (see the module docstring): name → array."""
    n_replicates = check.integer("n_replicates", n_replicates, low=2, high=1000)
    steps = check.finite_vector("steps", steps)
    if np.any(steps <= 0):
        raise ValueError(f"steps must be step sizes > 0, got {steps.tolist()}")
    lengths = [check.integer("lengths", L, low=1, high=10_000) for L in check.sequence("lengths", lengths)]
    if not lengths:
        raise ValueError("lengths must be a non-empty sequence of integers >= 1, got []")
    post = toy_posterior()
    out: dict = {"x_star": np.array(X_STAR), "seed": np.array(SEED)}
    t0 = time.perf_counter()
    main = sample_toy(post, seed=SEED, **MAIN_SAMPLER.as_dict())
    out.update(main_w=main.chain_w, main_accept_prob=main.accept_prob, main_n_leapfrog=main.n_leapfrog,
               main_divergences=main.divergences, seconds_main=np.array(time.perf_counter() - t0))
    acc = np.zeros((steps.size, len(lengths)))
    div = np.zeros_like(acc)
    for i, eps in enumerate(steps):
        for j, L in enumerate(lengths):
            r = sample_toy(post, seed=SEED, step_size=float(eps), num_steps=L, **SWEEP_SAMPLER.as_dict())
            acc[i, j] = float(np.mean(r.accept_prob))
            div[i, j] = r.n_divergences / (r.n_chains * r.n_samples)
    out.update(sweep_eps=steps, sweep_lengths=np.array(lengths), sweep_accept_prob=acc,
               sweep_divergent_fraction=div)
    est, se, secs = [], [], []
    for seed in range(1, n_replicates + 1):
        t1 = time.perf_counter()
        r = sample_toy(post, seed=seed, **REP_SAMPLER.as_dict())
        secs.append(time.perf_counter() - t1)
        m, s = _estimate(predictive_draws(r.chain_w))
        est.append(m)
        se.append(s)
    out.update(rep_seeds=np.arange(1, n_replicates + 1), rep_estimate=np.array(est), rep_se=np.array(se),
               seconds_rep=np.array(secs))
    out["settings"] = np.array(repr({"main": MAIN_SAMPLER.as_dict(), "sweep": SWEEP_SAMPLER.as_dict(),
                                     "rep": REP_SAMPLER.as_dict(), "preset": PAPER_PRESET}))
    return out


def load_store(path=None) -> dict:
    """The stored runs (``figures/monte_carlo_toy.npz``), name → array."""
    path = stored_file(STORE_FILE, command=_COMMAND) if path is None else Path(_path("path", path))
    if not path.is_file():
        raise ValueError(f"path must be an existing stored file (.npz), got {str(path)!r}")
    return load_npz(path)


def write_store(path=None, *, force: bool = False) -> Path:
    """Compute every run and write the store atomically (default ``figures/monte_carlo_toy.npz``).

    The store records no configuration, so an existing file is replaced only with ``force``
    (FileExistsError, before any sampling).
    """
    return store_once(path, STORE_FILE, None, compute_store, save_npz, force=force)


def main(argv=None) -> Path:
    """``python -m ensemble_lib.studies.toy_hmc [--out FILE] [--force]``: sample and store lesson 9's toy runs."""
    return one_file_main(argv, "Lesson 9's HMC runs on the toy posterior", STORE_FILE, write_store,
                         lambda path, secs: f"lesson 9's toy runs sampled in {secs:.0f} s: {path}")


__all__ = ["MAIN_SAMPLER", "N_REPLICATES", "REP_SAMPLER", "STORE_FILE", "SWEEP_LENGTHS", "SWEEP_STEPS",
           "X_STAR", "compute_store", "load_store", "predictive_draws", "toy_posterior", "write_store"]

if __name__ == "__main__":
    main()
