"""Choosing the network size, and ARD (issue 16): the evidence and the bound across H = 1 … 8.

MacKay (1995), "Probable networks", §4 (eq. 30), §4.1 (each optimum its own model, H! 2^H),
§5.3 (committees), §7 (ARD); Barber & Bishop (1998) §2.2 (the bound F* with Gamma hyperpriors).

For each random split (the Table-1 splits: :func:`~ensemble_lib.studies.splits.make_split`, so the
HMC references of ``figures/hmc_reference_*.json`` are on the same rows) and each H:

* MacKay's evidence framework from ``n_restarts`` random starts
  (:func:`~ensemble_lib.inference.network_fits.fit_evidence`); for every restart its Laplace log
  evidence (20) with ln(H! 2^H), the model evidence (30) with its hyperparameter Occam factors
  (:func:`~ensemble_lib.inference.model_comparison.model_log_evidence`), test error and active
  hidden units;
* the diagonal ensemble (B&B (26), (33)–(38)) started from the best restart's Laplace Gaussian:
  its bound F*, test error, active hidden units;
* a committee (§5.3) of every distinct converged optimum at every H, weighted by eq. (30): its
  test error beside the single optimum with the largest evidence;
* a committee of the distinct optima of ``committee_restarts`` restarts at one size,
  ``committee_hidden`` = 4, the size of the HMC reference (``figures/hmc_reference_*.json``, the
  same splits, prior and H): the one comparison where the committee, the best single optimum of
  that model and the full posterior average of that model stand side by side.

Copies of one optimum (restarts that reach it, or its H! 2^H symmetric copies) count once
(:func:`~ensemble_lib.inference.model_comparison.distinct_optima`).

Every split runs with one BLAS thread (threadpoolctl): with two, OpenBLAS sums in another order,
and the long ensemble fits at H = 7–8 can take other paths to other optima, so the stored result
would depend on the machine's thread count.

And ARD (§7) on Boston with ``n_noise`` appended pure-noise inputs (N(0, 1), drawn per split):
one α_c per input, one for the hidden biases, one for the output weights
(:func:`~ensemble_lib.inference.ard.fit_class_evidence`), at ``ard_hidden`` hidden units; whether
every noise input's α_c exceeds every real input's, and the test error beside one α.

``python -m ensemble_lib.studies.model_size --run`` recomputes ``figures/model_size.json`` (the
configuration and that command are stored in it; no wall times, so a rerun gives identical JSON;
``--times FILE`` writes each split's wall time).
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
import warnings
import dataclasses
from dataclasses import dataclass, field
from functools import partial as partial_fn
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.ard import fit_class_ensemble, fit_class_evidence, network_classes
from ..inference.hyperparameters import GammaHyperprior, HyperparameterConvergenceWarning
from ..inference.kl_fit import KLFitWarning
from ..inference.model_comparison import committee, distinct_optima, model_log_evidence
from ..inference.network_fits import fit_ensemble, fit_evidence, laplace_error_bars
from ..inference.pruning import unit_usage
from ..models.network import NetworkPosterior, add_bias, network_output
from .splits import dataset_split, load_dataset, mean_se
from .runner import (add_run_options, check_output, finish, limit_threads, partial_path, resume_command,
                     run_splits)
from .store import FIGURES_DIR, SCRATCH_DIR, TqdmProgress, load_json, save_json, study_parser, write_times

#: where ``--run`` stores the study (relative to the repository root)
RESULT_FILE = "model_size.json"
#: the command that makes it
COMMAND = "python -m ensemble_lib.studies.model_size --run"
DATASETS = ("boston", "diabetes")


@dataclass(frozen=True)
class ModelSizeConfig:
    """The protocol.

    Attributes
    ----------
    hidden : tuple of int
        The network sizes H compared.
    n_splits : int
        Random splits per data set (the Table-1 splits 0 … n_splits − 1).
    n_train : int
        Training rows (128, as Table 1).
    n_restarts : int
        Random MAP restarts per H (split i, size H: ``default_rng([seed, i, H, 1])``).
    evidence_tol : float
        Tolerance of the α, β re-estimation (max |Δ ln α|, |Δ ln β|).
    gtol, maxiter : float, int
        The diagonal ensemble's optimiser budget.
    prior : GammaHyperprior
        The ensemble's hyperpriors (Barber & Bishop's).
    n_noise : int
        Pure-noise inputs appended for the ARD check (Boston; ``default_rng([seed, i, 3])``).
    ard_hidden : int
        H of the ARD networks.
    committee_hidden, committee_restarts : int
        The fixed-size committee: its H (4, the HMC reference's) and its random MAP restarts
        (``default_rng([seed, i, H, 6])``).
    seed : int
        The Table-1 seed (split i uses ``default_rng([seed, i])``).
    """

    hidden: tuple = (1, 2, 3, 4, 5, 6, 7, 8)
    n_splits: int = 3
    n_train: int = 128
    n_restarts: int = 2
    evidence_tol: float = 1e-5
    gtol: float = 1e-4
    maxiter: int = 1000
    prior: GammaHyperprior = field(default_factory=GammaHyperprior)
    n_noise: int = 3
    ard_hidden: int = 2
    committee_hidden: int = 4
    committee_restarts: int = 16
    seed: int = 0

    def __post_init__(self):
        hidden = tuple(sorted(set(check.ranks("hidden", self.hidden, low=1))))
        if max(hidden) > 20:
            raise ValueError(f"hidden must hold sizes in [1, 20], got {hidden}")
        object.__setattr__(self, "hidden", hidden)
        check.integer("n_splits", self.n_splits, low=1, high=100)
        check.integer("n_train", self.n_train, low=10)
        check.integer("n_restarts", self.n_restarts, low=1, high=20)
        check.positive("evidence_tol", self.evidence_tol)
        check.positive("gtol", self.gtol)
        check.integer("maxiter", self.maxiter, low=1, high=100_000)
        if not isinstance(self.prior, GammaHyperprior):
            raise ValueError(f"prior must be a GammaHyperprior, got {type(self.prior).__name__}")
        check.integer("n_noise", self.n_noise, low=0, high=50)
        check.integer("ard_hidden", self.ard_hidden, low=1, high=20)
        check.integer("committee_hidden", self.committee_hidden, low=1, high=20)
        check.integer("committee_restarts", self.committee_restarts, low=1, high=50)
        check.integer("seed", self.seed, low=0)

    def as_dict(self) -> dict:
        return {"hidden": list(self.hidden), "n_splits": self.n_splits, "n_train": self.n_train,
                "n_restarts": self.n_restarts, "evidence_tol": self.evidence_tol, "gtol": self.gtol,
                "maxiter": self.maxiter,
                "prior": {"a": self.prior.a, "b": self.prior.b, "c": self.prior.c, "d": self.prior.d},
                "n_noise": self.n_noise, "ard_hidden": self.ard_hidden,
                "committee_hidden": self.committee_hidden, "committee_restarts": self.committee_restarts,
                "seed": self.seed}

    @classmethod
    def from_dict(cls, d: dict) -> "ModelSizeConfig":
        """The configuration ``as_dict`` stored (every field; ``prior`` as a dict of a, b, c, d)."""
        fields = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(d, dict) or set(d) != fields or not isinstance(d.get("prior"), dict):
            raise ValueError(f"d must be a dict of the fields {sorted(fields)} (prior a dict of a, b, c, d), "
                             f"as as_dict() gives, got {d!r:.200}")
        d = dict(d)
        d["prior"] = GammaHyperprior(**d["prior"])
        d["hidden"] = tuple(d["hidden"])
        return cls(**d)


def _check_config(config) -> None:
    if not isinstance(config, ModelSizeConfig):
        raise ValueError(f"config must be a ModelSizeConfig, got {type(config).__name__}")


def load_split(dataset: str, config: ModelSizeConfig, index: int):
    """``(data, split, X_train, X_test)``: Table 1's split ``index`` at ``config.n_train``, ``config.seed``."""
    dataset = check.choice("dataset", dataset, DATASETS)
    _check_config(config)
    index = check.integer("index", index, low=0)
    return dataset_split(dataset, config.n_train, config.seed, index)




def _one_blas_thread():
    """One BLAS thread while a split is fitted (module docstring).

    Raises RuntimeError if threadpoolctl finds no BLAS library to limit (before 3.5 it did not
    know numpy's scipy-openblas): the study would then run unpinned without a word.
    """
    return limit_threads(1, "blas", require=True)


@contextlib.contextmanager
def _quiet():
    """Without the fits' convergence warnings (the study records convergence itself)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        warnings.simplefilter("ignore", KLFitWarning)
        yield


def _evidence(Xtr, y_train, H: int, rng, n_restarts: int, config: ModelSizeConfig):
    """MacKay's evidence framework on an H-unit network from ``n_restarts`` random starts."""
    post = NetworkPosterior(Xtr, y_train, H, alpha=1.0, beta=1.0)
    with _quiet():
        return post, fit_evidence(post, rng, n_restarts=n_restarts, tol=config.evidence_tol)


def size_row(Xtr, y_train, Xte, y_test, H: int, config: ModelSizeConfig, index: int) -> dict:
    """Everything recorded for one split and one H (module docstring), with one BLAS thread."""
    _check_config(config)
    H = check.integer("H", H, low=1, high=20)
    index = check.integer("index", index, low=0)
    Xtr, Xte = check.finite_matrix("Xtr", Xtr), check.finite_matrix("Xte", Xte)
    y_train, y_test = check.finite_vector("y_train", y_train), check.finite_vector("y_test", y_test)
    if Xtr.shape[0] != y_train.size or Xte.shape[0] != y_test.size or Xtr.shape[1] != Xte.shape[1]:
        raise ValueError(f"Xtr, y_train, Xte, y_test must be a split's rows and targets (rows matching targets, "
                         f"the same columns), got {Xtr.shape}, {y_train.shape}, {Xte.shape}, {y_test.shape}")
    with _one_blas_thread():
        return _size_row(Xtr, y_train, Xte, y_test, H, config, index)


def _size_row(Xtr, y_train, Xte, y_test, H, config, index):
    post, ev = _evidence(Xtr, y_train, H, np.random.default_rng([config.seed, index, H, 1]),
                         config.n_restarts, config)
    restarts = []
    for j, run in enumerate(ev.restarts):
        st = run.final
        pred = network_output(st.mean, Xte, H)
        try:
            me = model_log_evidence(run).log_evidence
        except ValueError:
            me = None
        restarts.append({
            "restart": j, "converged": bool(run.converged), "log_evidence_mp": float(st.log_evidence),
            "log_evidence": me, "log_alpha_error": run.log_alpha_error, "log_beta_error": run.log_beta_error,
            "alpha": float(st.alpha), "beta": float(st.beta), "gamma": float(st.gamma),
            "test_mse": float(np.mean((pred - y_test) ** 2)),
            "active_units": unit_usage(st.mean, None, Xtr, H).n_active,
            "best": run.final is ev.final})
    best = ev.final
    with _quiet():
        fit = fit_ensemble(post, config.prior, "diagonal", init=[best.diagonal_start()],
                           gtol=config.gtol, maxiter=config.maxiter)
    pred = post.predictive_mean(fit.mean, fit.cov, Xte)
    ens = {"bound": float(fit.bound), "test_mse": float(np.mean((pred - y_test) ** 2)),
           "active_units": unit_usage(fit.mean, fit.cov, Xtr, H).n_active,
           "alpha": float(fit.alpha), "beta": float(fit.beta), "converged": bool(fit.converged),
           "n_iter": int(fit.n_iter)}
    return {"n_hidden": H, "k": post.dim, "restarts": restarts, "ensemble": ens,
            "_members": [(run, post) for run in ev.restarts if run.converged]}


def ard_row(dataset: str, config: ModelSizeConfig, index: int, evidence: bool = True) -> dict:
    """ARD (§7) on one split with ``n_noise`` pure-noise inputs appended, beside one α (same H).

    Two versions of the ARD prior (26) with one class per input, one for the hidden biases and one
    for the output weights (:func:`~ensemble_lib.inference.ard.network_classes`):

    * the ensemble's (``ensemble``): the diagonal Q with one Gamma posterior per class
      (:func:`~ensemble_lib.inference.ard.fit_class_ensemble`, B&B's hyperpriors), started from the
      single-α Laplace fit; its ᾱ_c per input, bound F*, test error — beside the single-α diagonal
      ensemble from the same start;
    * MacKay's evidence re-estimation (27) (``evidence``): its α_c, or the reason it failed (on
      these data the erf network's scale symmetry u → u/c, v → cv lets the evidence drive the
      input α_c up and the output α down until the Hessian is singular: MacKay §7's
      "singularities with an α_c going to ∞").

    ``evidence=False`` leaves the second out (``"evidence": None``): it is nine tenths of the time.
    """
    with _one_blas_thread():
        return _ard_row(dataset, config, index, check.flag("evidence", evidence))


def _ard_row(dataset, config, index, evidence=True):
    data, split, _, _ = load_split(dataset, config, index)
    rng = np.random.default_rng([config.seed, index, 3])
    noise_tr = rng.standard_normal((split.X_train.shape[0], config.n_noise))
    noise_te = rng.standard_normal((split.X_test.shape[0], config.n_noise))
    Xtr = add_bias(np.hstack([split.X_train, noise_tr]))
    Xte = add_bias(np.hstack([split.X_test, noise_te]))
    H = config.ard_hidden
    d = Xtr.shape[1]
    n_in = d - 1
    post = NetworkPosterior(Xtr, split.y_train, H, alpha=1.0, beta=1.0)
    classes = network_classes(d, H, "ard")
    n_real = data.n_features
    names = list(data.feature_names) + [f"noise{j + 1}" for j in range(config.n_noise)]
    with _quiet():
        single = fit_evidence(post, np.random.default_rng([config.seed, index, 4]),
                              n_restarts=config.n_restarts, tol=config.evidence_tol)
        start = [single.final.diagonal_start()]
        ens = fit_class_ensemble(post, classes, config.prior, "diagonal", init=start,
                                 gtol=config.gtol, maxiter=config.maxiter)
        ens1 = fit_ensemble(post, config.prior, "diagonal", init=start, gtol=config.gtol,
                            maxiter=config.maxiter)
        evid = None  # evidence=False
        if evidence:
            try:
                run = fit_class_evidence(post, classes, np.random.default_rng([config.seed, index, 5]),
                                         n_restarts=config.n_restarts, tol=config.evidence_tol,
                                         symmetry_factor=math.factorial(H) * 2**H)
                evid = {"alpha": [float(x) for x in run.final.alphas[:n_in]],
                        "gamma": [float(x) for x in run.final.gammas[:n_in]],
                        "converged": bool(run.converged), "failed": None,
                        "test_mse": float(np.mean((network_output(run.final.mean, Xte, H) - split.y_test) ** 2))}
            except RuntimeError as exc:
                evid = {"failed": str(exc)}

    def mse(m, c):
        return float(np.mean((post.predictive_mean(m, c, Xte) - split.y_test) ** 2))

    a = ens.alphas
    return {
        "index": index, "n_hidden": H, "inputs": names,
        "alpha": [float(x) for x in a[:n_in]], "alpha_bias": float(a[-2]), "alpha_output": float(a[-1]),
        "noise_above_every_real": bool(config.n_noise > 0 and a[n_real:n_in].min() > a[:n_real].max()),
        "real_above_smallest_noise": [names[j] for j in range(n_real)
                                      if config.n_noise > 0 and a[j] >= a[n_real:n_in].min()],
        "bound": float(ens.bound), "test_mse": mse(ens.mean, ens.cov), "converged": bool(ens.converged),
        "single_alpha": {"bound": float(ens1.bound), "test_mse": mse(ens1.mean, ens1.cov),
                         "alpha": float(ens1.alpha), "converged": bool(ens1.converged)},
        "laplace_single_alpha_test_mse": float(np.mean((network_output(single.final.mean, Xte, H)
                                                        - split.y_test) ** 2)),
        "evidence": evid,
    }


def _members(H, pairs, Xte):
    """``(H, ln evidence (30), predictive mean, variance)`` of each distinct optimum among the
    converged runs ``pairs`` of one size (those where (30) is defined: γ > 0 and N − γ > 0)."""
    members = []
    for run, post in pairs:
        try:
            le = model_log_evidence(run).log_evidence
        except ValueError:  # gamma <= 0 or N - gamma <= 0: MacKay (30) undefined, not a member
            continue
        m, v = laplace_error_bars(post, run.final.mean, run.final.hessian, run.final.beta, Xte)
        members.append((H, le, m, v))
    if not members:
        return []
    keep = distinct_optima(np.array([m[2] for m in members]), np.array([m[1] for m in members]))
    return [members[i] for i in keep]


def committee_row(members, y_test, n_runs: int) -> dict:
    """The committee (§5.3) of ``members`` (from :func:`_members`) and its best single member."""
    com = committee(np.array([m[2] for m in members]), np.array([m[3] for m in members]),
                    np.array([m[1] for m in members]))
    best = int(np.argmax([m[1] for m in members]))
    return {
        "test_mse": float(np.mean((com.mean - y_test) ** 2)),
        "n_runs": n_runs,
        "members": [{"n_hidden": m[0], "log_evidence": float(m[1]), "weight": float(p),
                     "test_mse": float(np.mean((m[2] - y_test) ** 2))}
                    for m, p in zip(members, com.weights)],
        "best_single": {"n_hidden": members[best][0], "log_evidence": float(members[best][1]),
                        "test_mse": float(np.mean((members[best][2] - y_test) ** 2))},
        "mean_between_variance": float(np.mean(com.between)),
        "mean_within_variance": float(np.mean(com.within))}


def fixed_size_committee(Xtr, y_train, Xte, y_test, config: ModelSizeConfig, index: int) -> dict | None:
    """The committee of the distinct optima of ``committee_restarts`` restarts at
    ``committee_hidden`` hidden units (the HMC reference's model), with one BLAS thread."""
    H = config.committee_hidden
    with _one_blas_thread():
        post, ev = _evidence(Xtr, y_train, H, np.random.default_rng([config.seed, index, H, 6]),
                             config.committee_restarts, config)
        members = _members(H, [(run, post) for run in ev.restarts if run.converged], Xte)
    return committee_row(members, y_test, len(ev.restarts)) if members else None


def run_split(dataset: str, config: ModelSizeConfig, index: int) -> dict:
    """One split of one data set: every H (:func:`size_row`), the committees, and ARD (Boston)."""
    _, split, Xtr, Xte = load_split(dataset, config, index)
    rows, members = [], []
    n_runs = 0
    for H in config.hidden:
        row = size_row(Xtr, split.y_train, Xte, split.y_test, H, config, index)
        with _one_blas_thread():
            members += _members(H, row.pop("_members"), Xte)
        n_runs += len(row["restarts"])
        rows.append(row)
    out = {"index": index, "sizes": rows, "baseline_mse": float(np.mean(split.y_test ** 2))}
    if members:
        out["committee"] = committee_row(members, split.y_test, n_runs)
    fixed = fixed_size_committee(Xtr, split.y_train, Xte, split.y_test, config, index)
    if fixed is not None:
        out["committee_fixed_size"] = fixed
    if dataset == "boston" and config.n_noise > 0:
        out["ard"] = ard_row(dataset, config, index)
    return out


def _split_job(dataset: str, index: int, *, config: ModelSizeConfig) -> dict:
    """One job of :func:`run_study` (a module-level function: it is sent to worker processes)."""
    return run_split(dataset, config, index)


def summarise(splits: list[dict], hidden) -> dict:
    """Per H: mean ± s.e. over splits of the best optimum's ln evidence (20), (30), test MSE,
    the ensemble's F*, test MSE and active units."""
    out = {}
    for j, H in enumerate(hidden):
        rows = [s["sizes"][j] for s in splits]
        best = [next(r for r in row["restarts"] if r["best"]) for row in rows]
        out[str(H)] = {
            "log_evidence_mp": mean_se([b["log_evidence_mp"] for b in best]),
            "log_evidence": mean_se([b["log_evidence"] for b in best]),
            "laplace_test_mse": mean_se([b["test_mse"] for b in best]),
            "laplace_active_units": mean_se([b["active_units"] for b in best]),
            "bound": mean_se([r["ensemble"]["bound"] for r in rows]),
            "ensemble_test_mse": mean_se([r["ensemble"]["test_mse"] for r in rows]),
            "ensemble_active_units": mean_se([r["ensemble"]["active_units"] for r in rows]),
        }
    return out


def run_study(datasets=DATASETS, config: ModelSizeConfig | None = None, n_jobs: int = 1,
              progress=None, *, partial=None, resume: bool = False, force: bool = False,
              backend: str = "loky", scheduler: str | None = None,
              resume_command: str | None = None) -> tuple[dict, dict]:
    """Every split of every data set in ``n_jobs`` processes; ``(result, seconds)``.

    The splits run through :func:`~ensemble_lib.studies.runner.run_splits`: with ``partial`` (a
    file) each finished split is kept there at once and ``resume`` continues from it (the result is
    the uninterrupted run's, byte for byte: every split goes through the same JSON round trip);
    ``backend="dask"`` with ``scheduler`` sends the splits to an existing Dask cluster.
    """
    config = ModelSizeConfig() if config is None else config
    if not isinstance(config, ModelSizeConfig):
        raise ValueError(f"config must be a ModelSizeConfig, got {type(config).__name__}")
    datasets = list(datasets)
    for name in datasets:
        load_dataset(name)
    n_jobs = check.integer("n_jobs", n_jobs, low=1, high=64)
    jobs = [(name, i) for name in datasets for i in range(config.n_splits)]
    found, secs = run_splits(
        jobs, partial_fn(_split_job, config=config),
        config={"datasets": datasets, "model_size": config.as_dict()}, partial=partial, resume=resume,
        force=force, n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress,
        describe=lambda key, res, s: f"{key[0]} split {key[1]}: {s:.0f} s", resume_command=resume_command)
    result = {"config": config.as_dict(), "command": COMMAND,
              "units": "mean squared error of targets standardised with the training mean and s.d.; "
                       "log evidences in nats",
              "datasets": {}}
    seconds = {}
    for name in datasets:
        splits = [found[(name, i)] for i in range(config.n_splits)]
        seconds[name] = [secs[(name, i)] for i in range(config.n_splits)]
        entry = {"splits": splits, "summary": summarise(splits, config.hidden)}
        ard = [s["ard"] for s in splits if "ard" in s]
        if ard:
            entry["ard_noise_above_every_real"] = int(sum(a["noise_above_every_real"] for a in ard))
            entry["ard_n_splits"] = len(ard)
        result["datasets"][name] = entry
    return result, seconds


def output_dir(config: ModelSizeConfig, datasets=DATASETS) -> Path:
    """Where ``--run`` writes without ``--outdir``: ``figures/`` for the published protocol
    (:class:`ModelSizeConfig`'s defaults, both data sets), ``build/studies/`` for a quick or partial run."""
    return FIGURES_DIR if config == ModelSizeConfig() and list(datasets) == list(DATASETS) else SCRATCH_DIR


def load_result(directory=None) -> dict:
    """The stored study (``figures/model_size.json``)."""
    return load_json(RESULT_FILE, directory, command=COMMAND)


def main(argv=None) -> None:
    """``python -m ensemble_lib.studies.model_size --run``: recompute and store the study."""
    parser = study_parser("Network size by evidence and bound; ARD (issue 16)", jobs=1, outdir="scratch",
                          times="also write each split's wall time to this JSON file")
    parser.add_argument("--run", action="store_true", help="recompute and store the study")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--n-splits", type=int, default=ModelSizeConfig.n_splits)
    parser.add_argument("--hidden", type=int, nargs="*", default=list(ModelSizeConfig.hidden))
    parser.add_argument("--n-train", type=int, default=ModelSizeConfig.n_train)
    parser.add_argument("--n-restarts", type=int, default=ModelSizeConfig.n_restarts)
    parser.add_argument("--committee-restarts", type=int, default=ModelSizeConfig.committee_restarts)
    add_run_options(parser)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("nothing to do: pass --run")
    config = ModelSizeConfig(n_splits=args.n_splits, hidden=tuple(args.hidden), n_train=args.n_train,
                             n_restarts=args.n_restarts, committee_restarts=args.committee_restarts)
    outdir = Path(args.outdir) if args.outdir is not None else output_dir(config, args.datasets)
    out = outdir / RESULT_FILE
    try:  # before any work: a stored result of another configuration stays unless --force
        check_output(out, config.as_dict(), force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    partial = partial_path(out)
    t0 = time.perf_counter()
    bar = TqdmProgress("model-size splits")
    try:
        result, seconds = run_study(
            args.datasets, config, n_jobs=args.jobs, progress=bar, partial=partial, resume=args.resume,
            force=args.force, backend=args.backend, scheduler=args.scheduler,
            resume_command=resume_command("ensemble_lib.studies.model_size",
                                          sys.argv[1:] if argv is None else argv))
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    path = save_json(result, out)
    finish(partial)
    print(f"{path}: wall time {wall:.0f} s", flush=True)
    if args.times:
        write_times({"wall_seconds": round(wall, 1), "split_seconds": seconds, "n_jobs": args.jobs,
                     "config": config.as_dict(), "date": time.strftime("%Y-%m-%d")}, args.times)


__all__ = ["DATASETS", "RESULT_FILE", "ModelSizeConfig", "load_result", "load_split", "main", "size_row"]


if __name__ == "__main__":
    main()
