"""Lesson 7's §3 fits, made once and stored: mixtures of K = 1 … 4 Gaussians on the paper's toy.

:func:`~ensemble_lib.lessons.mixture.comparison.mixtures_for` at the lesson's preset (the paper-like
toy, α and seed of :data:`~ensemble_lib.models.toy.PAPER_PRESET`) fits the single full-covariance
Gaussian, then eight mixtures (K = 1 … 4 with the entropy by quadrature and with its lower bound):
about half a second of the lesson's Run All (issue 30: every lesson ready in ≤ 5 s).
They depend only on the preset, so like lesson 6's Occam tables they are computed once and stored
with their configuration in ``figures/mixture_ladder.json``:

* :func:`ladder_config` is the configuration (the preset's α and seed, and K_max);
* :func:`compute_ladder` fits a configuration and returns the JSON-ready fits;
* :func:`ladder_from_result` rebuilds the :class:`~ensemble_lib.lessons.mixture.comparison.MixtureComparison`;
* :func:`load_mixtures` reads the stored file and keeps the comparison where
  :func:`~ensemble_lib.lessons.mixture.comparison.mixtures_for` looks first, so the lesson's panel
  opens on the same fits;
* ``python -m ensemble_lib.lessons.mixture.ladder_store [--out FILE] [--force]`` recomputes the file
  (atomically; a file of another configuration is replaced only with ``--force``).

JSON keeps every float exactly (its shortest repr), so the loaded fits are the computed ones to the
bit on the machine that made them. ``tests/lessons/test_mixture_ladder_store.py`` re-derives them
from the stored configuration and checks each stored KL against an independent quadrature. Not
imported by the package (it is a command): the lesson imports :func:`load_mixtures` from here.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np

from ...core import validation as check
from ...inference.kl_fit import KLFit
from ...inference.mixture import MixtureFit, MixtureLadder
from ...models.toy import PAPER_PRESET
from ...studies.runner import config_or_default, one_file_main, store_once
from ...studies.store import load_json, save_json
from .comparison import K_MAX, _REMEMBERED, MixtureComparison, _key, _lesson_posterior, fit_mixtures

#: the stored fits (in ``figures/``) and the command that makes them
LADDER_FILE = "mixture_ladder.json"
COMMAND = "python -m ensemble_lib.lessons.mixture.ladder_store"
#: the fields of each stored fit kind that are arrays (the others are numbers, strings or flags)
_ARRAYS = {KLFit: ("mean", "cov", "theta"), MixtureFit: ("weights", "means", "covs", "theta")}


def ladder_config() -> dict:
    """The configuration of lesson 7's fits: the preset's α and data seed (``mixtures_for()``'s
    defaults) and the largest K."""
    return {"alpha": float(PAPER_PRESET["alpha"]), "seed": int(PAPER_PRESET["seed"]), "K_max": K_MAX}


def _plain(value):
    """A fit's field as JSON: arrays as nested lists, NumPy scalars as Python numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value.item() if isinstance(value, np.generic) else value


def _encode(fit) -> dict:
    return {f.name: _plain(getattr(fit, f.name)) for f in fields(fit)}


def _decode(kind, row) -> object:
    names = {f.name for f in fields(kind)}
    if not isinstance(row, dict) or set(row) != names:
        got = sorted(row) if isinstance(row, dict) else type(row).__name__
        raise ValueError(f"result must hold each {kind.__name__} with the fields {sorted(names)} "
                         f"(compute_ladder's result), got {got}")
    return kind(**{k: np.array(v, dtype=float) if k in _ARRAYS[kind] else v for k, v in row.items()})


def compute_ladder(config: dict | None = None) -> dict:
    """The fits of the configuration (default :func:`ladder_config`), as the JSON-ready result
    :func:`save_ladder` writes: ``config``, the single Gaussian and each ladder's fits (their fields)."""
    c = config_or_default(config, ladder_config)
    alpha, seed = _key(c["alpha"], c["seed"])
    K_max = check.integer("K_max", c["K_max"], low=1, high=8)
    comp = fit_mixtures(_lesson_posterior(alpha, seed), K_max)
    return {"config": c, "single": _encode(comp.single),
            "quadrature": [_encode(f) for f in comp.quadrature.fits],
            "bound": [_encode(f) for f in comp.bound.fits]}


def ladder_from_result(result: dict) -> MixtureComparison:
    """The :class:`MixtureComparison` of a result of :func:`compute_ladder` (its posterior rebuilt from
    the configuration)."""
    if not isinstance(result, dict) or not {"config", "single", "quadrature", "bound"} <= set(result):
        raise ValueError("result must be a dict with 'config', 'single', 'quadrature' and 'bound' "
                         "(compute_ladder's result)")
    c = config_or_default(result["config"], ladder_config)
    alpha, seed = _key(c["alpha"], c["seed"])
    K_max = check.integer("K_max", c["K_max"], low=1, high=8)
    single = _decode(KLFit, result["single"])
    ladders = {e: MixtureLadder(single, tuple(_decode(MixtureFit, row) for row in check.sequence(e, result[e])), e)
               for e in ("quadrature", "bound")}
    return MixtureComparison(_lesson_posterior(alpha, seed), single, ladders["quadrature"], ladders["bound"], K_max)


def load_mixtures(directory=None) -> MixtureComparison:
    """The stored fits (``figures/mixture_ladder.json``; FileNotFoundError naming the command if absent),
    what ``mixtures_for()`` computes afresh; kept as ``mixtures_for``'s answer for the stored (α, seed),
    so the lesson's panel opens on them."""
    result = load_json(LADDER_FILE, directory, COMMAND)
    comp = ladder_from_result(result)
    if comp.complete and comp.K_max == K_MAX:
        comp = _REMEMBERED.put(_key(result["config"]["alpha"], result["config"]["seed"]), comp)
    return comp


def save_ladder(path=None, *, force: bool = False) -> Path:
    """Fit :func:`ladder_config`'s mixtures and store them (``figures/mixture_ladder.json`` by default).

    Written atomically; a stored file of another configuration (or none) is not replaced unless
    ``force`` (FileExistsError, before any fit).
    """
    return store_once(path, LADDER_FILE, ladder_config(), compute_ladder, save_json, force=force)


def main(argv=None) -> None:
    one_file_main(argv, "lesson 7's mixture fits (K = 1 ... 4, both entropies) on the paper's toy, stored",
                  LADDER_FILE, save_ladder, lambda path, secs: f"the mixture ladders in {secs:.1f} s: {path}")


#: public: what lesson 7 (load_mixtures) and the command (save_ladder) use
__all__ = ["LADDER_FILE", "COMMAND", "ladder_config", "compute_ladder", "ladder_from_result", "load_mixtures",
           "save_ladder"]


if __name__ == "__main__":
    main()
