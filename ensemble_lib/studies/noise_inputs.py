"""ARD with pure-noise inputs appended, precomputed for lesson 6's slider (MacKay §7).

MacKay (1995), "Probable networks", §3.2 (eq. 27) and §7: one α_c per input. A check with a known
answer: append n columns of N(0, 1) noise to Boston's 13 inputs and see what the evidence does with
them. The model is **linear** (``t ≈ Σ_j w_j x_j`` on standardised data), not the network of
``figures/model_size.json``: its re-estimation is closed form
(:func:`~ensemble_lib.inference.ard.linear_class_evidence`), but from some starts MacKay's fixed-point
iteration needs thousands of steps (an α_c that is barely determined moves by a nearly constant factor
per step), so a slider cannot refit it within a frame. This module runs every setting the slider
offers once and stores only the hyperparameters: α_c per input and β for ARD, α and β for one α
(``figures/ard_noise_inputs.json``, with its configuration and command). Everything else — the
weights w_MP, their error bars, the test errors — is one Cholesky factorisation at those values
(:func:`posterior_at`), done by the lesson when the slider moves.

Split 0 of Boston of the model-size study (128 training rows, the Table-1 split); noise seed s draws
``n_max`` columns for all 506 rows with ``default_rng([s, 16])``, and n noise inputs are the first n,
so one more input adds one column.

``python -m ensemble_lib.studies.noise_inputs --run`` recomputes the file (no wall times: a rerun
gives identical JSON).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..core.progress import report
from ..inference.ard import linear_class_evidence
from ..inference.hyperparameters import HyperparameterConvergenceWarning
from ..models.linear import LinearGaussianPosterior
from .splits import dataset_split
from .runner import add_run_options, check_output, limit_threads
from .store import TqdmProgress, save_json, stored_file, study_parser

RESULT_FILE = "ard_noise_inputs.json"
COMMAND = "python -m ensemble_lib.studies.noise_inputs --run"


@dataclass(frozen=True)
class NoiseInputsConfig:
    """The protocol: ``n_max`` noise inputs at most, noise seeds ``0 … n_seeds − 1``, the
    re-estimation's ``tol`` and ``max_iter`` (:func:`~ensemble_lib.inference.ard.linear_class_evidence`),
    and the split (``split``, ``n_train``, ``seed`` of :func:`~ensemble_lib.studies.splits.make_split`)."""

    n_max: int = 30
    n_seeds: int = 5
    tol: float = 1e-7
    max_iter: int = 50_000
    split: int = 0
    n_train: int = 128
    seed: int = 0

    def __post_init__(self):
        check.integer("n_max", self.n_max, low=1, high=100)
        check.integer("n_seeds", self.n_seeds, low=1, high=100)
        check.positive("tol", self.tol)
        check.integer("max_iter", self.max_iter, low=1, high=1_000_000)
        check.integer("split", self.split, low=0)
        check.integer("n_train", self.n_train, low=10)
        check.integer("seed", self.seed, low=0)

    def as_dict(self) -> dict:
        """The configuration as stored in the results' JSON (every field, in order)."""
        return asdict(self)


def _check_config(config) -> None:
    if not isinstance(config, NoiseInputsConfig):
        raise ValueError(f"config must be a NoiseInputsConfig, got {type(config).__name__}")


@lru_cache(maxsize=4)
def boston_split(config: NoiseInputsConfig = NoiseInputsConfig()):
    """``(names, X_train, y_train, X_test, y_test)``: the standardised split, no bias column."""
    _check_config(config)
    data, split, _, _ = dataset_split("boston", config.n_train, config.seed, config.split)
    return tuple(data.feature_names), split.X_train, split.y_train, split.X_test, split.y_test


@lru_cache(maxsize=128)
def noise_columns(noise_seed: int, config: NoiseInputsConfig = NoiseInputsConfig()):
    """``config.n_max`` N(0, 1) columns for the training and the test rows (``default_rng([seed, 16])``)."""
    _, Xtr, _, Xte, _ = boston_split(config)
    rng = np.random.default_rng([check.integer("noise_seed", noise_seed, low=0), 16])
    return rng.standard_normal((Xtr.shape[0], config.n_max)), rng.standard_normal((Xte.shape[0], config.n_max))


def design(n_noise: int, noise_seed: int, config: NoiseInputsConfig = NoiseInputsConfig()):
    """``(X_train, X_test)``: the 13 inputs and the first ``n_noise`` noise columns."""
    _check_config(config)
    check.integer("noise_seed", noise_seed, low=0)
    n_noise = check.integer("n_noise", n_noise, low=0, high=config.n_max)
    _, Xtr, _, Xte, _ = boston_split(config)
    Ntr, Nte = noise_columns(noise_seed, config)
    return np.hstack([Xtr, Ntr[:, :n_noise]]), np.hstack([Xte, Nte[:, :n_noise]])


def fit(n_noise: int, noise_seed: int, config: NoiseInputsConfig = NoiseInputsConfig()):
    """ARD (one class per input) and one α: the two :class:`~ensemble_lib.inference.ard.ClassEvidenceRun`."""
    Xtr, _ = design(n_noise, noise_seed, config)
    lin = LinearGaussianPosterior(Xtr, boston_split(config)[2], 1.0, 1.0)
    k = Xtr.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        ard = linear_class_evidence(lin, [[j] for j in range(k)], tol=config.tol, max_iter=config.max_iter)
        one = linear_class_evidence(lin, [list(range(k))], tol=config.tol, max_iter=config.max_iter)
    return ard, one


def posterior_at(n_noise: int, noise_seed: int, alphas, beta, config: NoiseInputsConfig = NoiseInputsConfig()):
    """The Gaussian posterior (a ``ClassEvidenceState``: w_MP, A⁻¹, γ_c) at stored α_c (one per input, or
    one for all) and β: one step of :func:`~ensemble_lib.inference.ard.linear_class_evidence` from them."""
    Xtr, _ = design(n_noise, noise_seed, config)
    alphas = np.atleast_1d(check.finite_array("alphas", alphas))
    k = Xtr.shape[1]
    if alphas.ndim != 1 or alphas.size not in (1, k) or np.any(alphas <= 0):
        raise ValueError(f"alphas must be one positive precision or one per input ({k}), got shape {alphas.shape}")
    beta = check.precision("beta", beta)
    classes = [[j] for j in range(k)] if alphas.size == k else [list(range(k))]
    lin = LinearGaussianPosterior(Xtr, boston_split(config)[2], 1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        return linear_class_evidence(lin, classes, alpha0=alphas, beta0=float(beta), max_iter=1).final


def run_study(config: NoiseInputsConfig | None = None, progress=None) -> dict:
    """Every (noise seed, n) the slider offers: the stored hyperparameters (module docstring)."""
    config = NoiseInputsConfig() if config is None else config
    if not isinstance(config, NoiseInputsConfig):
        raise ValueError(f"config must be a NoiseInputsConfig, got {type(config).__name__}")
    fits = {}
    total = config.n_seeds * (config.n_max + 1)
    done = 0
    for s in range(config.n_seeds):
        rows = []
        for n in range(config.n_max + 1):
            ard, one = fit(n, s, config)
            rows.append({"n_noise": n, "alphas": [float(a) for a in ard.final.alphas], "beta": float(ard.final.beta),
                         "converged": bool(ard.converged), "n_iter": int(ard.n_iter),
                         "switched_off": [int(j) for j in np.flatnonzero(ard.capped)],
                         "one_alpha": {"alpha": float(one.final.alphas[0]), "beta": float(one.final.beta),
                                       "converged": bool(one.converged)}})
            done += 1
            report(progress, done, total, what=f"seed {s}, n = {n}: {ard.n_iter} steps")
        fits[str(s)] = rows
    return {"config": config.as_dict(), "command": COMMAND,
            "model": "linear, standardised Boston inputs (13) and n pure-noise N(0, 1) inputs; ARD: one alpha per "
                     "input (MacKay (27)); alpha_c at the limit 1e8 = switched off",
            "fits": fits}


@lru_cache(maxsize=2)
def _load(path: str) -> dict:
    return json.loads(Path(path).read_text())


def load_result(directory=None) -> dict:
    """The stored table (``figures/ard_noise_inputs.json``)."""
    return _load(str(stored_file(RESULT_FILE, directory, command=COMMAND)))


def main(argv=None) -> None:
    """``python -m ensemble_lib.studies.noise_inputs --run``: recompute and store the table."""
    parser = study_parser("ARD with pure-noise inputs on Boston (lesson 6's slider)")
    parser.add_argument("--run", action="store_true", help="recompute and store the table")
    add_run_options(parser, resume=False, backend=False)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("nothing to do: pass --run")
    try:  # a stored result of another configuration stays unless --force
        check_output(Path(args.outdir) / RESULT_FILE, NoiseInputsConfig().as_dict(), force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    bar = TqdmProgress("noise-input fits")
    with limit_threads(1):  # small matrices: BLAS threads only cost time
        try:
            result = run_study(progress=bar)
        finally:
            bar.close()
    path = save_json(result, Path(args.outdir) / RESULT_FILE, indent=None, compact=True)
    print(f"{path.name} written", flush=True)


__all__ = ["COMMAND", "RESULT_FILE", "NoiseInputsConfig", "boston_split", "design", "load_result", "main",
           "posterior_at"]


if __name__ == "__main__":
    main()
