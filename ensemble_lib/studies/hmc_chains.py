"""Per-chain traces of one Boston split's HMC run: chains stuck in different modes (lesson 9).

MacKay's "Probable networks" §4.1 notes that a network's posterior has many
modes, H!·2^H copies of each by symmetry alone and others that differ in
the function they compute. The stored HMC reference
(:mod:`ensemble_lib.studies.hmc_reference`) keeps each chain's test error
but not its draws; this module samples one split of the Table-1 protocol
(the same rows, :func:`~ensemble_lib.studies.splits.make_split`, and the
same sampler seed, :func:`~ensemble_lib.studies.hmc_reference.sampler_seed`)
and keeps, per chain and draw, the quantities that are invariant under the
weight-space symmetries — α, β, the network output at three training inputs
and the test error of each draw's function — with one weight (which is
*not* invariant) to show what weight-space diagnostics see.

* :func:`chain_traces` — the run and its per-chain traces (JSON-ready);
* ``python -m ensemble_lib.studies.hmc_chains [--force] [--outdir DIR]`` writes
  ``figures/hmc_chains_boston.json`` (atomically; a stored file of another
  configuration stays unless ``--force``).

The stored file holds no wall times and re-derives from its ``config`` and
``sampler`` (tests/studies/test_hmc_chains.py). Different CPUs or package
versions can change the draws.

Code names: ``alpha`` = α, ``beta`` = β, ``f_train`` = f(x_n, w) at the chosen
training inputs, ``draw_mse`` = test MSE of f(·, w) for one draw w.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..core import validation as check
# inference.hmc loads jax and numpyro only when it first samples (heavy optional dependencies)
from ..inference.hmc import SamplerSettings, package_versions, sample_network
from ..inference.hyperparameters import GammaHyperprior
from .hmc_reference import sampler_seed
from .runner import check_output
from .splits import TableConfig, load_dataset, make_split
from .store import FIGURES_DIR, load_json, save_json, study_parser

#: the stored file (in figures/ or --outdir)
CHAINS_FILE = "hmc_chains_{dataset}.json"
#: the split sampled: on split 7 the stored reference's four chains differ most in test error
CHAINS_SPLIT = 7
#: four chains, 500 warm-up + 500 draws each (half the reference's: the traces show the modes
#: as well, and the run takes a few minutes on two shared cores)
CHAINS_SAMPLER = SamplerSettings(num_warmup=500, num_samples=500, num_chains=4,
                                 target_accept_prob=0.95, max_tree_depth=10)
#: every THIN-th draw is stored (JSON size)
THIN = 2
_COMMAND = "python -m ensemble_lib.studies.hmc_chains"
#: the data sets a chains file can be of (the Table-1 protocol's), and what identifies a stored file
DATASETS = ("boston", "diabetes")
_CONFIG_KEYS = ("dataset", "index", "config", "sampler", "thin")


def chain_traces(dataset: str = "boston", index: int = CHAINS_SPLIT, config: TableConfig | None = None,
                 settings: SamplerSettings | None = None, thin: int = THIN) -> dict:
    """NUTS on split ``index`` of the Table-1 protocol, with per-chain traces of invariant quantities.

    Parameters
    ----------
    dataset : {"boston", "diabetes"}
    index : int
        The split (as :func:`~ensemble_lib.studies.splits.make_split`).
    config : TableConfig, optional
        Default: the Table-1 protocol (128 training rows, H = 4, the paper's hyperpriors).
    settings : SamplerSettings, optional
        Default :data:`CHAINS_SAMPLER`.
    thin : int
        Every ``thin``-th draw is kept in the traces.

    Returns
    -------
    dict
        JSON-ready. ``traces``: name → list (chains) of lists (kept draws) for ``alpha``,
        ``beta``, ``f_train_0..2`` (the outputs at the training inputs ``f_train_index``: the one
        with the largest split-R̂ over all chains, the median and the smallest), ``draw_mse`` (test
        MSE of each draw's own function) and ``w_0`` (the first weight, u_1's first entry, not
        invariant). ``chain_test_mse`` (each chain's predictive mean), ``test_mse`` (all chains
        pooled), ``r_hat_max`` (invariant quantities, all draws), ``r_hat_max_weights``,
        ``divergences`` per chain, ``dataset``, ``index``, ``config``, ``sampler``, ``thin``,
        ``sampler_seed``, ``chain_method``, ``versions``, ``command``.
    """
    config = TableConfig() if config is None else check.instance("config", config, TableConfig, "a TableConfig or None")
    settings = CHAINS_SAMPLER if settings is None else settings
    if not isinstance(settings, SamplerSettings):
        raise ValueError(f"settings must be a SamplerSettings, got {type(settings).__name__}")
    thin = check.integer("thin", thin, low=1, high=settings.num_samples)
    data = load_dataset(dataset)
    split, Xtr, Xte = make_split(data.X, data.y, config, index)
    index = int(index)
    seed = sampler_seed(config.seed, index)
    res = sample_network(Xtr, split.y_train, config.n_hidden, config.prior, seed=seed,
                         **settings.as_dict())
    C, S = res.n_chains, res.n_samples
    f_train = res.outputs(Xtr).reshape(C, S, -1)
    order = np.argsort(res.r_hat["f"])
    chosen = [int(order[-1]), int(order[order.size // 2]), int(order[0])]
    f_test = res.outputs(Xte).reshape(C, S, -1)
    draw_mse = np.mean((f_test - split.y_test) ** 2, axis=2)
    chain_mse = [float(np.mean((f_test[c].mean(axis=0) - split.y_test) ** 2)) for c in range(C)]

    def kept(a):
        return [[float(v) for v in row[::thin]] for row in a]

    traces = {"alpha": kept(res.chain_alpha), "beta": kept(res.chain_beta),
              "draw_mse": kept(draw_mse), "w_0": kept(res.chain_w[:, :, 0])}
    for j, n in enumerate(chosen):
        traces[f"f_train_{j}"] = kept(f_train[:, :, n])
    return {
        "dataset": dataset, "index": index,
        "config": {"n_train": config.n_train, "n_hidden": config.n_hidden, "seed": config.seed,
                   "prior": config.as_dict()["prior"]},
        "sampler": settings.as_dict(), "thin": thin, "sampler_seed": seed,
        "chain_method": res.settings["chain_method"],
        "f_train_index": chosen,
        "traces": traces,
        "chain_test_mse": chain_mse,
        "test_mse": float(np.mean((f_test.reshape(C * S, -1).mean(axis=0) - split.y_test) ** 2)),
        "baseline_mse": float(np.mean(split.y_test ** 2)),
        "r_hat_max": res.r_hat_max, "r_hat_max_weights": float(np.max(res.r_hat["w"])),
        "divergences": [int(v) for v in res.divergences],
        "versions": package_versions(),
        "units": "mean squared error of targets standardised with the training mean and s.d.",
        "command": _COMMAND,
        "note": data.note,
    }


def stored_config(stored: dict) -> dict:
    """What makes a stored file: data set, split, protocol, sampler and thinning."""
    check.mapping("stored", stored, _CONFIG_KEYS, "a stored chains file (chain_traces()'s dict)")
    return {k: stored[k] for k in _CONFIG_KEYS}


def config_from_stored(stored: dict) -> tuple[TableConfig, SamplerSettings]:
    """The :class:`TableConfig` and :class:`SamplerSettings` a stored file was made with."""
    c = stored["config"]
    prior = GammaHyperprior(**c["prior"])
    return (TableConfig(n_train=c["n_train"], n_hidden=c["n_hidden"], prior=prior, seed=c["seed"]),
            SamplerSettings(**stored["sampler"]))


def load_chains(dataset: str = "boston", directory=None) -> dict:
    """Read ``hmc_chains_{dataset}.json`` (default: the repository's ``figures/``)."""
    check.choice("dataset", dataset, DATASETS)
    return load_json(CHAINS_FILE.format(dataset=dataset), directory, command=_COMMAND)


def main(argv=None) -> Path:
    """``python -m ensemble_lib.studies.hmc_chains``: sample split 7 of Boston and store its traces."""
    parser = study_parser("Per-chain HMC traces of one Table-1 split (lesson 9)", outdir=False)
    parser.add_argument("--outdir", default=None, help="output folder (default: figures/)")
    parser.add_argument("--force", action="store_true", help="replace a stored file of another configuration")
    args = parser.parse_args(argv)
    out = Path(args.outdir or FIGURES_DIR) / CHAINS_FILE.format(dataset="boston")
    want = {"dataset": "boston", "index": CHAINS_SPLIT,
            "config": {"n_train": TableConfig().n_train, "n_hidden": TableConfig().n_hidden,
                       "seed": TableConfig().seed, "prior": TableConfig().as_dict()["prior"]},
            "sampler": CHAINS_SAMPLER.as_dict(), "thin": THIN}
    try:
        check_output(out, want, force=args.force, config_of=stored_config)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    result = chain_traces()
    save_json(result, out)
    print(f"{out}: chains' test MSE {', '.join(f'{m:.3f}' for m in result['chain_test_mse'])}", flush=True)
    return out


#: public: what lesson 9 (load_chains) and the command (chain_traces, stored_config) use; the tests'
#: config_from_stored is imported from this module
__all__ = ["CHAINS_FILE", "CHAINS_SAMPLER", "CHAINS_SPLIT", "DATASETS", "chain_traces", "load_chains", "stored_config"]

if __name__ == "__main__":
    main(sys.argv[1:])
