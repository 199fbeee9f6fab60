"""Lesson 3's §5 sweep, made once and stored: MacKay's, the cheap rule's and the exact α, β per far-bump count.

:func:`~ensemble_lib.lessons.bound.hyper_reestimation.cheap_comparison` runs, for 0, 2, …, 30 bumps
away from the data, MacKay's re-estimation (22)–(24), the cheap rule of §9.1 and a brute-force
search of the exact evidence — some 450 Laplace fits and 120 polish steps, about a second, the
largest part of the lesson's Run All (issue 30: every lesson ready in ≤ 5 s). The sweep depends only
on its configuration, so like lesson 3's evidence grid
(:mod:`~ensemble_lib.studies.toy_evidence_grid`) it is computed once and stored with that
configuration in ``figures/cheap_sweep.json``:

* :func:`sweep_config` is the configuration (the bumps' data case, the far-bump counts);
* :func:`compute_sweep` runs the sweep of a configuration, as JSON-ready numbers;
* :func:`load_cheap_comparison` reads the stored file back as a
  :class:`~ensemble_lib.lessons.bound.hyper_reestimation.CheapComparison`, what the lesson shows;
* ``python -m ensemble_lib.lessons.bound.cheap_sweep [--out FILE] [--force]`` recomputes the file
  (atomically; a file of another configuration is replaced only with ``--force``).

``tests/lessons/test_bound_cheap_sweep.py`` re-derives the stored sweep from the stored configuration and
checks its answers independently (the exact maximiser's gradient by central differences).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ...studies.runner import config_or_default, one_file_main, store_once
from ...studies.store import load_json, save_json
from .hyper_reestimation import CHEAP_CASE, FAR_COUNTS, CheapComparison, cheap_comparison

#: the stored file (in ``figures/``) and the command that makes it
SWEEP_FILE = "cheap_sweep.json"
COMMAND = "python -m ensemble_lib.lessons.bound.cheap_sweep"
#: the sweep's per-entry fields (the rest of CheapComparison is ``n_data``)
_ARRAYS = tuple(f.name for f in dataclasses.fields(CheapComparison) if f.name != "n_data")
_INTEGER = ("n_far", "k")


def sweep_config() -> dict:
    """The configuration of lesson 3's sweep: :data:`CHEAP_CASE` (the data and the bumps over them)
    and :data:`FAR_COUNTS` (the numbers of bumps away from the data)."""
    return {"case": dict(CHEAP_CASE), "far_counts": list(FAR_COUNTS)}


def compute_sweep(config: dict | None = None) -> dict:
    """:func:`cheap_comparison` of the configuration (default :func:`sweep_config`), as the JSON-ready
    result :func:`save_sweep` writes: ``config`` and the fields of ``CheapComparison``."""
    c = config_or_default(config, sweep_config)
    comp = cheap_comparison(c["far_counts"], c["case"])
    out = {"config": c, "n_data": comp.n_data}
    for name in _ARRAYS:
        values = getattr(comp, name)
        out[name] = [bool(v) for v in values] if values.dtype == bool else \
            [int(v) for v in values] if name in _INTEGER else [float(v) for v in values]
    return out


def comparison_from_result(result: dict) -> CheapComparison:
    """The :class:`CheapComparison` of a result of :func:`compute_sweep`."""
    if not isinstance(result, dict) or not {"config", "n_data", *_ARRAYS} <= set(result):
        raise ValueError(f"result must be a dict with 'config', 'n_data' and {list(_ARRAYS)} (compute_sweep's result)")
    arrays = {name: np.array(result[name], dtype=bool if name == "cheap_converged" else
                             int if name in _INTEGER else float) for name in _ARRAYS}
    return CheapComparison(**arrays, n_data=int(result["n_data"]))


def load_cheap_comparison(directory=None) -> CheapComparison:
    """The stored sweep (``figures/cheap_sweep.json``; FileNotFoundError naming the command if absent),
    the :class:`CheapComparison` that ``cheap_comparison()`` computes afresh."""
    return comparison_from_result(load_json(SWEEP_FILE, directory, COMMAND))


def save_sweep(path=None, *, force: bool = False) -> Path:
    """Compute the sweep of :func:`sweep_config` and store it (``figures/cheap_sweep.json`` by default).

    Written atomically; a stored file of another configuration (or none) is not replaced unless
    ``force`` (FileExistsError, before the sweep runs).
    """
    return store_once(path, SWEEP_FILE, sweep_config(), compute_sweep, save_json, force=force)


def main(argv=None) -> None:
    one_file_main(argv, "lesson 3's sweep of MacKay's, the cheap and the exact alpha, beta over far bumps, stored",
                  SWEEP_FILE, save_sweep,
                  lambda path, secs: f"the cheap-rule sweep ({len(FAR_COUNTS)} far-bump counts), {secs:.1f} s: {path}")


#: public: what lesson 3 (load_cheap_comparison) and the command (save_sweep) use
__all__ = ["SWEEP_FILE", "COMMAND", "sweep_config", "compute_sweep", "comparison_from_result",
           "load_cheap_comparison", "save_sweep"]


if __name__ == "__main__":
    main()
