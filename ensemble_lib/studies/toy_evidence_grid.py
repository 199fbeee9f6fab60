"""Lesson 3's brute-force answer, made once and stored: the toy's exact ln P(D | α, β) on a grid.

Lesson 3 (§4) compares two ways of setting α and β — the ensemble's Gamma-hyperprior iteration and
MacKay's evidence re-estimation — with the exact maximiser of the evidence ln P(D | α, β) of the
toy (lesson 1's paper-like data). That maximiser is found by brute force
(:func:`~ensemble_lib.inference.evidence.evidence_grid`): the exact evidence, a 2-D quadrature of
the toy's posterior, at every point of a 25 × 25 grid in (ln α, ln β), then a Nelder–Mead polish
of the best point. Those quadratures (625, and some 120 more for the polish) were the largest part of
the lesson's Run All (issue 30: every lesson ready in ≤ 5 s), and they depend only on the data, so
like lesson 4's fits
(:mod:`~ensemble_lib.studies.network_ladder`) they are computed once and stored with their
configuration in ``figures/toy_evidence_grid.json``:

* :func:`grid_config` is the configuration (the toy's data preset, the grid);
* :func:`compute_grid` computes the grid and its polished maximiser from a configuration;
* :func:`load_evidence_grid` reads the stored file back as an
  :class:`~ensemble_lib.inference.evidence.EvidenceGrid`, after checking that the posterior it is
  for has the stored configuration's data (the evidence does not depend on the posterior's own
  α, β);
* ``python -m ensemble_lib.studies.toy_evidence_grid [--out FILE] [--force]`` recomputes the file
  (atomically; a file of another configuration is replaced only with ``--force``).

``tests/studies/test_toy_evidence_grid.py`` re-derives the stored grid from the stored configuration.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.evidence import EvidenceGrid, evidence_grid
from ..models.toy import PAPER_PRESET, ToyPosterior, make_posterior
from .runner import config_or_default, one_file_main, store_once
from .store import load_json, save_json

#: the stored file (in ``figures/``) and the command that makes it
GRID_FILE = "toy_evidence_grid.json"
COMMAND = "python -m ensemble_lib.studies.toy_evidence_grid"


def grid_config() -> dict:
    """The configuration of lesson 3's grid: the toy's data (``make_posterior``'s preset, lesson 1's
    paper-like data) and the grid, ``n_grid`` points a side, evenly spaced over the two ranges of
    natural logarithms."""
    return {"toy": dict(PAPER_PRESET), "n_grid": 25, "log_alpha_range": [-3.0, 5.0],
            "log_beta_range": [1.0, 7.0]}


def _config(config) -> dict:
    return config_or_default(config, grid_config)


def grid_posterior(config: dict | None = None) -> ToyPosterior:
    """The toy posterior of the configuration (default :func:`grid_config`)."""
    return make_posterior(**_config(config)["toy"])


def compute_grid(config: dict | None = None) -> dict:
    """The exact evidence on the configuration's grid and its polished maximiser, as the JSON-ready
    result :func:`save_grid` writes (``config`` and the fields of
    :class:`~ensemble_lib.inference.evidence.EvidenceGrid`)."""
    c = _config(config)
    g = evidence_grid(grid_posterior(c), np.linspace(*c["log_alpha_range"], c["n_grid"]),
                      np.linspace(*c["log_beta_range"], c["n_grid"]))
    return {"config": c, "log_alpha": g.log_alpha.tolist(), "log_beta": g.log_beta.tolist(),
            "log_evidence": g.log_evidence.tolist(), "alpha_max": g.alpha_max, "beta_max": g.beta_max,
            "log_evidence_max": g.log_evidence_max}


def grid_from_result(result: dict) -> EvidenceGrid:
    """The :class:`~ensemble_lib.inference.evidence.EvidenceGrid` of a result of :func:`compute_grid`."""
    fields = ("log_alpha", "log_beta", "log_evidence", "alpha_max", "beta_max", "log_evidence_max")
    if not isinstance(result, dict) or not {"config", *fields} <= set(result):
        raise ValueError(f"result must be a dict with 'config' and {list(fields)} (compute_grid's result)")
    return EvidenceGrid(*(np.array(result[f], dtype=float) for f in fields[:3]),
                        *(float(result[f]) for f in fields[3:]))


def load_evidence_grid(post: ToyPosterior | None = None, directory=None) -> EvidenceGrid:
    """The stored grid (``figures/toy_evidence_grid.json``; FileNotFoundError naming the command if absent).

    ``post``: the toy posterior the grid is used for; a ValueError if its data (x, t) are not the
    stored configuration's (its α and β may be any: the evidence is a function of them).
    """
    result = load_json(GRID_FILE, directory, COMMAND)
    if post is not None:
        check.instance("post", post, ToyPosterior, "a ToyPosterior (the toy's data of grid_config())")
        ref = grid_posterior(result["config"])
        if not (np.array_equal(post.x, ref.x) and np.array_equal(post.t, ref.t)):
            raise ValueError(f"post must hold the stored grid's data (make_posterior(**{result['config']['toy']})): "
                             f"its x, t differ; compute the grid with inference.evidence_grid instead")
    return grid_from_result(result)


def save_grid(path=None, *, force: bool = False) -> Path:
    """Compute the grid of :func:`grid_config` and store it (``figures/toy_evidence_grid.json`` by default).

    Written atomically; a stored file of another configuration (or none) is not replaced unless
    ``force`` (FileExistsError, before any quadrature).
    """
    return store_once(path, GRID_FILE, grid_config(), compute_grid, save_json, force=force)


def main(argv=None) -> None:
    n = grid_config()["n_grid"]
    one_file_main(argv, "the toy's exact evidence on lesson 3's (ln alpha, ln beta) grid and its maximiser, stored",
                  GRID_FILE, save_grid,
                  lambda path, secs: f"exact evidence on a {n} x {n} grid and its maximiser in {secs:.1f} s: {path}")


#: public: what lesson 3 (load_evidence_grid) and the command (save_grid) use; the other steps are
#: this module's own (the tests import them from here)
__all__ = ["GRID_FILE", "COMMAND", "grid_config", "compute_grid", "load_evidence_grid", "save_grid"]


if __name__ == "__main__":
    main()
