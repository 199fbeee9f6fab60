"""The lessons' toy data sets: :func:`make_posterior` and the "paper-like" :data:`PAPER_PRESET` of B&B Fig. 2."""

from __future__ import annotations


import numpy as np

from ...core import validation as check
from ..erf_network import TOY_N, TOY_NOISE_SD, toy_data
from .exact import ToyPosterior


# ---------------------------------------------------------------------------
# The lessons' data sets
# ---------------------------------------------------------------------------

#: The "paper-like" preset of B&B Fig. 2: β = 100 (noise s.d. 0.1, as in the paper), N = 6,
#: and the seed and α found by ``lessons.toy_posterior.find_preset`` (seeds 0–39, α in
#: {0.05, 0.1, 0.2, 0.3, 0.5, 1, 2}) whose Laplace KL is closest to 41.
PAPER_PRESET = {"seed": 25, "alpha": 0.2, "noise_sd": TOY_NOISE_SD, "n": TOY_N}

def make_posterior(seed: int = 0, alpha: float = 1.0, noise_sd: float = TOY_NOISE_SD,
                   n: int = TOY_N) -> ToyPosterior:
    """The toy posterior for data drawn with ``numpy.random.default_rng(seed)``.

    The noise precision of the model is the one that generated the data,
    β = 1/noise_sd², so ``noise_sd`` must lie in [1e-4, 1e4] (β in
    :data:`~ensemble_lib.core.validation.PRECISION_RANGE`); ``seed`` >= 0, ``n`` >= 1,
    ``alpha`` in [1e-8, 1e8].
    """
    seed = check.integer("seed", seed, low=0)
    noise_sd = check.noise_sd("noise_sd", noise_sd)  # checked before β = 1/noise_sd² is formed
    data = toy_data(np.random.default_rng(seed), n=n, noise_sd=noise_sd)
    return ToyPosterior(data.x, data.t, alpha=alpha, beta=1.0 / noise_sd**2)


__all__ = ["PAPER_PRESET", "make_posterior"]
