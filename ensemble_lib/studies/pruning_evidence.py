"""Pruning Boston networks by the evidence (MacKay §6) beside pruning by saliency alone.

MacKay (1995), "Probable networks", §6: at fixed α, β, deleting a weight s changes the log evidence by
``saliency + Occam term`` (:func:`~ensemble_lib.inference.model_comparison.deletion_evidence`);
"optimal brain damage" (OBD, LeCun et al.) ranks weights by the saliency ``½ A_ss w_s²`` alone.

For each split (the Table-1 splits, :func:`~ensemble_lib.studies.splits.make_split`) an H-unit erf
network is fitted by MacKay's evidence framework (:func:`~ensemble_lib.inference.network_fits.fit_evidence`,
the best of ``n_restarts`` random starts). Then, with α and β held at that optimum's values (§6
assumes them well determined), two greedy sequences delete one weight at a time, ``max_steps`` times:

* ``evidence``: the weight whose deletion §6 predicts to raise the evidence most (the most negative
  change); §6 says stop once every predicted change is positive (``stop_step``);
* ``obd``: the weight of smallest OBD saliency.

After each deletion the reduced network (the weight held at 0:
:class:`~ensemble_lib.inference.model_comparison.SubsetPosterior`) is refitted by Laplace from
§6's predicted optimum, and the study records §6's prediction, the refit's actual change of the
Laplace log evidence (MacKay (20) without the symmetry factor, which deletions break), and the
test error. ``python -m ensemble_lib.studies.pruning_evidence --run`` recomputes
``figures/pruning_evidence.json`` (configuration and command stored; no wall times).
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import asdict, dataclass
from functools import partial as partial_fn
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.evidence import laplace_evidence
from ..inference.hyperparameters import HyperparameterConvergenceWarning
from ..inference.model_comparison import SubsetPosterior, deletion_evidence
from ..inference.network_fits import fit_evidence
from ..models.network import NetworkPosterior, network_output
from .splits import dataset_split
from .runner import add_run_options, check_output, finish, partial_path, resume_command, run_splits
from .store import FIGURES_DIR, SCRATCH_DIR, TqdmProgress, load_json, save_json, study_parser

RESULT_FILE = "pruning_evidence.json"
COMMAND = "python -m ensemble_lib.studies.pruning_evidence --run"
METHODS = ("evidence", "obd")


@dataclass(frozen=True)
class PruningConfig:
    """Boston splits ``0 … n_splits − 1`` (Table-1 ``seed``, ``n_train`` rows), networks of ``n_hidden``
    units fitted by the evidence from ``n_restarts`` starts (``default_rng([seed, i, H, 7])``) to
    ``evidence_tol``, then ``max_steps`` greedy deletions per method."""

    n_splits: int = 3
    n_hidden: int = 4
    n_restarts: int = 2
    evidence_tol: float = 1e-5
    max_steps: int = 40
    n_train: int = 128
    seed: int = 0

    def __post_init__(self):
        check.integer("n_splits", self.n_splits, low=1, high=100)
        check.integer("n_hidden", self.n_hidden, low=1, high=20)
        check.integer("n_restarts", self.n_restarts, low=1, high=20)
        check.positive("evidence_tol", self.evidence_tol)
        check.integer("max_steps", self.max_steps, low=1, high=1000)
        check.integer("n_train", self.n_train, low=10)
        check.integer("seed", self.seed, low=0)

    def as_dict(self) -> dict:
        """The configuration as stored in the results' JSON (every field, in order)."""
        return asdict(self)


def weight_names(feature_names, n_hidden: int) -> list[str]:
    """``u<i>[input]`` for unit i's weight from each input (and ``bias``), then ``v<i>``."""
    inputs = list(feature_names) + ["bias"]
    return [f"u{i + 1}[{x}]" for i in range(n_hidden) for x in inputs] + [f"v{i + 1}" for i in range(n_hidden)]


def _split(config: PruningConfig, index: int):
    """``(data, split, X_train, X_test)``: Table 1's Boston split ``index`` at ``config.n_train``, ``config.seed``."""
    return dataset_split("boston", config.n_train, config.seed, index)


def fit_network(config: PruningConfig, index: int):
    """(posterior, the evidence run's final state, X_test, y_test, feature names) of split ``index``."""
    data, split, Xtr, Xte = _split(config, index)
    post = NetworkPosterior(Xtr, split.y_train, config.n_hidden, alpha=1.0, beta=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        run = fit_evidence(post, np.random.default_rng([config.seed, index, config.n_hidden, 7]),
                           n_restarts=config.n_restarts, tol=config.evidence_tol)
    st = run.final
    return post.with_hyperparameters(alpha=st.alpha, beta=st.beta), st, Xte, split.y_test, data.feature_names


def prune_sequence(post, start_state, X_test, y_test, method: str, max_steps: int) -> dict:
    """Greedy deletion (MacKay §6) by ``method`` (module docstring) from the mode ``start_state`` at the
    posterior's α, β: each step ranks every remaining weight by its predicted evidence change or its OBD
    saliency, deletes one and refits."""
    method = check.choice("method", method, METHODS)
    H = post.n_hidden
    keep = np.arange(post.dim)
    full = laplace_evidence(post, start=start_state.mean)
    mean, cov, hess, logev = full.mean, full.cov, full.hessian, full.log_evidence
    steps, stop_step = [], None
    for step in range(min(max_steps, post.dim - 1)):
        dels = [deletion_evidence(mean, cov, 1.0 / post.alpha, j, hessian=hess) for j in range(keep.size)]
        changes = np.array([d.evidence_change for d in dels])
        if stop_step is None and np.all(changes > 0):
            stop_step = step  # MacKay §6: every deletion now makes the model less probable
        j = int(np.argmin(changes)) if method == "evidence" else int(np.argmin([d.obd for d in dels]))
        d = dels[j]
        new_keep = np.delete(keep, j)
        sub = SubsetPosterior(post, new_keep)
        try:
            st = laplace_evidence(sub, start=np.delete(d.new_mean, j))
        except (ValueError, np.linalg.LinAlgError) as exc:
            steps.append({"step": step + 1, "failed": str(exc)})
            break
        pred = network_output(sub.embed(st.mean), X_test, H)
        steps.append({"step": step + 1, "weight": int(keep[j]), "predicted_change": float(d.evidence_change),
                      "saliency": float(d.saliency), "occam": float(d.occam), "obd": float(d.obd),
                      "refit_change": float(logev - st.log_evidence), "log_evidence": float(st.log_evidence),
                      "test_mse": float(np.mean((pred - y_test) ** 2))})
        keep, mean, cov, hess, logev = new_keep, st.mean, st.cov, st.hessian, st.log_evidence
    return {"method": method, "stop_step": stop_step, "steps": steps}


def run_split(config: PruningConfig, index: int) -> dict:
    post, st, Xte, yte, names = fit_network(config, index)
    full = laplace_evidence(post, start=st.mean)
    return {"index": index, "alpha": float(post.alpha), "beta": float(post.beta), "k": post.dim,
            "weights": weight_names(names, config.n_hidden),
            "log_evidence": float(full.log_evidence),
            "test_mse": float(np.mean((network_output(full.mean, Xte, config.n_hidden) - yte) ** 2)),
            "sequences": {m: prune_sequence(post, full, Xte, yte, m, config.max_steps) for m in METHODS}}


def _split_job(index: int, *, config: PruningConfig) -> dict:
    """One job of :func:`run_study` (a module-level function: it is sent to worker processes)."""
    return run_split(config, index)


def run_study(config: PruningConfig | None = None, n_jobs: int = 1, progress=None, *, partial=None,
              resume: bool = False, force: bool = False, backend: str = "loky",
              scheduler: str | None = None, resume_command: str | None = None) -> dict:
    """Every split (:func:`run_split`) through :func:`~ensemble_lib.studies.runner.run_splits`: with
    ``partial`` (a file) each finished split is kept there at once and ``resume`` continues from it
    (the result is the uninterrupted run's, byte for byte)."""
    config = PruningConfig() if config is None else config
    if not isinstance(config, PruningConfig):
        raise ValueError(f"config must be a PruningConfig, got {type(config).__name__}")
    n_jobs = check.integer("n_jobs", n_jobs, low=1, high=64)
    found, _ = run_splits(
        list(range(config.n_splits)), partial_fn(_split_job, config=config),
        config={"pruning_evidence": config.as_dict()}, partial=partial, resume=resume, force=force,
        n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress,
        describe=lambda key, res, s: f"split {key}: {s:.0f} s", resume_command=resume_command)
    return {"config": config.as_dict(), "command": COMMAND,
            "units": "log evidences in nats (MacKay (20) at the full network's alpha, beta, no symmetry factor); "
                     "MSE of targets standardised with the training mean and s.d.",
            "splits": [found[i] for i in range(config.n_splits)]}


def output_dir(config: PruningConfig) -> Path:
    """Where ``--run`` writes without ``--outdir``: ``figures/`` for the published protocol
    (:class:`PruningConfig`'s defaults), ``build/studies/`` for a quick or partial run."""
    return FIGURES_DIR if config == PruningConfig() else SCRATCH_DIR


def load_result(directory=None) -> dict:
    """The stored study (``figures/pruning_evidence.json``)."""
    return load_json(RESULT_FILE, directory, command=COMMAND)


def main(argv=None) -> None:
    """``python -m ensemble_lib.studies.pruning_evidence --run``: recompute and store the study."""
    parser = study_parser("Pruning Boston networks by evidence and by OBD saliency", jobs=1, outdir="scratch")
    parser.add_argument("--run", action="store_true", help="recompute and store the study")
    for name in ("n_splits", "n_hidden", "n_restarts", "max_steps", "n_train"):
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(PruningConfig, name))
    add_run_options(parser)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("nothing to do: pass --run")
    config = PruningConfig(n_splits=args.n_splits, n_hidden=args.n_hidden, n_restarts=args.n_restarts,
                           max_steps=args.max_steps, n_train=args.n_train)
    out = (Path(args.outdir) if args.outdir is not None else output_dir(config)) / RESULT_FILE
    try:  # before any work: a stored result of another configuration stays unless --force
        check_output(out, config.as_dict(), force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    partial = partial_path(out)
    bar = TqdmProgress("pruning splits")
    try:
        result = run_study(config, n_jobs=args.jobs, progress=bar, partial=partial, resume=args.resume,
                           force=args.force, backend=args.backend, scheduler=args.scheduler,
                           resume_command=resume_command("ensemble_lib.studies.pruning_evidence",
                                                         sys.argv[1:] if argv is None else argv))
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    finally:
        bar.close()
    path = save_json(result, out)
    finish(partial)
    print(f"{path} written", flush=True)


__all__ = ["RESULT_FILE", "PruningConfig", "load_result", "main"]


if __name__ == "__main__":
    main()
