"""Lesson 4 §3–5's fits on the 1-D demo data, made once and stored: MacKay's evidence and the ladder.

Lesson 4 shows, on the 16 points of :func:`~ensemble_lib.studies.network_demo.demo_data` with
H = 2 hidden units (k = 6 weights):

* §5's comparator, MacKay's evidence framework (:func:`~ensemble_lib.inference.network_fits.fit_evidence`,
  4 random starts);
* §3's ladder of ensemble fits with adapted hyperparameters
  (:func:`~ensemble_lib.inference.network_fits.fit_ensemble`): the diagonal family from the
  evidence framework's Laplace Gaussian (variances 1/A_ii), then factor s = 1, 2, 3, each
  warm-started from the one before, then the full covariance from factor s = 3 — so the bound
  cannot fall along the ladder;
* §4's hand check of ᾱ and β̄ on the full fit.

These fits are about two seconds of CPU, most of the lesson's Run All (issue 30: every lesson
ready in ≤ 5 s), so like the panel's settings (:mod:`~ensemble_lib.studies.network_demo`) they
are computed once and stored with their configuration in ``figures/network_demo_ladder.json``:

* :func:`ladder_config` is the configuration (data, H, seeds, restarts, ranks, hyperpriors);
* :func:`fit_ladder` computes the fits from a configuration (the lesson's calls, in the order it
  used to make them in its own cells);
* :func:`load_ladder` reads the stored file back as the library's own types
  (:class:`~ensemble_lib.inference.evidence.EvidenceState`,
  :class:`~ensemble_lib.inference.network_fits.EnsembleFit`), which the lesson prints;
* ``python -m ensemble_lib.studies.network_ladder [--out FILE] [--force]`` recomputes the file
  (atomically; a file of another configuration is replaced only with ``--force``).

``tests/studies/test_network_ladder.py`` re-derives the stored fits from the stored configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..inference.evidence import EvidenceState
from ..inference.hyperparameters import GammaHyperprior
from ..inference.network_fits import EnsembleFit, fit_ensemble, fit_evidence
from ..models.network import NetworkPosterior, add_bias
from .network_demo import canonical_state, demo_data
from .runner import config_or_default, one_file_main, store_once
from .store import load_json, save_json

#: the stored file (in ``figures/``) and the command that makes it
LADDER_FILE = "network_demo_ladder.json"
COMMAND = "python -m ensemble_lib.studies.network_ladder"
#: the EvidenceState fields stored (every one: the lesson reads α, β, γ, the evidence, w_MP and A)
_EVIDENCE_FIELDS = ("alpha", "beta", "mean", "cov", "hessian", "gamma", "data_error", "sum_w2",
                    "log_likelihood", "log_occam", "log_evidence")
_FIT_FIELDS = ("mean", "cov", "alpha", "beta", "bound", "family", "rank", "converged", "n_iter", "theta",
               "at_limit")


def ladder_config() -> dict:
    """The configuration of lesson 4's fits: the demo data, the network, the seeds and the hyperpriors.

    ``alpha``/``beta`` are the posterior's (ignored by both methods, which adapt them); the
    evidence framework draws its ``n_restarts`` starts from ``default_rng(evidence_seed)``; each
    factor fit draws the directions of its new factor from a fresh ``default_rng(factor_seed)``.
    """
    prior = GammaHyperprior()
    return {"data": {"n": 16, "seed": 3}, "n_hidden": 2, "alpha": 1.0, "beta": 1.0,
            "evidence_seed": 0, "n_restarts": 4, "factor_seed": 0, "ranks": [1, 2, 3],
            "prior": {"a": prior.a, "b": prior.b, "c": prior.c, "d": prior.d}}


def _config(config) -> dict:
    return config_or_default(config, ladder_config)


def ladder_posterior(config: dict | None = None) -> NetworkPosterior:
    """The network posterior of the configuration (default :func:`ladder_config`): the demo data, H hidden units."""
    c = _config(config)
    x, t = demo_data(**c["data"])
    return NetworkPosterior(add_bias(x[:, None]), t, c["n_hidden"], alpha=c["alpha"], beta=c["beta"])


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def fit_ladder(config: dict | None = None) -> dict:
    """Compute the evidence framework and the ensemble ladder of ``config`` (default :func:`ladder_config`).

    Returns the JSON-ready result :func:`save_ladder` writes: ``config``, ``evidence`` (every
    field of the best restart's final :class:`~ensemble_lib.inference.evidence.EvidenceState`)
    and ``fits`` (name → every field of its :class:`~ensemble_lib.inference.network_fits.EnsembleFit`;
    names ``diagonal``, ``factor1`` …, ``full``, in ladder order).
    """
    c = _config(config)
    post = ladder_posterior(c)
    p = c["prior"]
    prior = GammaHyperprior(a=p["a"], b=p["b"], c=p["c"], d=p["d"])
    ev = fit_evidence(post, np.random.default_rng(c["evidence_seed"]), n_restarts=c["n_restarts"])
    final = canonical_state(ev.final, post.n_hidden)  # the same image of the mode on every machine
    fit = fit_ensemble(post, prior, "diagonal", init=[final.diagonal_start()])
    fits = {"diagonal": fit}
    for s in c["ranks"]:
        fit = fit_ensemble(post, prior, "factor", s, warm=fit, rng=np.random.default_rng(c["factor_seed"]))
        fits[f"factor{s}"] = fit
    fits["full"] = fit_ensemble(post, prior, "full", init=[(fit.mean, fit.cov)])
    return {
        "config": c,
        "evidence": {name: _jsonable(getattr(final, name)) for name in _EVIDENCE_FIELDS},
        "fits": {name: {f: _jsonable(getattr(f_, f)) for f in _FIT_FIELDS} for name, f_ in fits.items()},
    }


@dataclass(frozen=True)
class DemoLadder:
    """Lesson 4's stored fits: MacKay's evidence framework and the ensemble fits, diagonal to full."""

    config: dict
    evidence: EvidenceState
    fits: dict  # name → EnsembleFit, in ladder order: "diagonal", "factor1", …, "full"


def _arrays(d: dict, array_fields) -> dict:
    return {k: (np.array(v, dtype=float) if k in array_fields and v is not None else v) for k, v in d.items()}


def ladder_from_result(result: dict) -> DemoLadder:
    """The :class:`DemoLadder` of a result of :func:`fit_ladder` (or of the stored file)."""
    if not isinstance(result, dict) or not {"config", "evidence", "fits"} <= set(result):
        raise ValueError("result must be a dict with 'config', 'evidence' and 'fits' (fit_ladder's result)")
    evidence = EvidenceState(**_arrays(result["evidence"], ("mean", "cov", "hessian")))
    fits = {name: EnsembleFit(**_arrays(f, ("mean", "cov", "theta"))) for name, f in result["fits"].items()}
    return DemoLadder(result["config"], evidence, fits)


def load_ladder(directory=None) -> DemoLadder:
    """The stored fits (``figures/network_demo_ladder.json``; FileNotFoundError naming the command if absent)."""
    return ladder_from_result(load_json(LADDER_FILE, directory, COMMAND))


def save_ladder(path=None, *, force: bool = False) -> Path:
    """Compute the fits of :func:`ladder_config` and store them (``figures/network_demo_ladder.json`` by default).

    Written atomically; a stored file of another configuration (or none) is not replaced unless
    ``force`` (FileExistsError, before any fit).
    """
    return store_once(path, LADDER_FILE, ladder_config(), fit_ladder, save_json, force=force)


def main(argv=None) -> None:
    n_fits = len(ladder_config()["ranks"]) + 2
    one_file_main(argv, "fit lesson 4's evidence framework and ensemble ladder on the demo data, and store them",
                  LADDER_FILE, save_ladder,
                  lambda path, secs: f"evidence framework and {n_fits} ensemble fits in {secs:.1f} s: {path}")


#: public: what lesson 4 (load_ladder, fit_ladder) and the command (save_ladder) use; ladder_posterior and
#: ladder_from_result are this module's own steps (the tests import them from here)
__all__ = ["LADDER_FILE", "COMMAND", "DemoLadder", "ladder_config", "fit_ladder", "load_ladder", "save_ladder"]


if __name__ == "__main__":
    main()
