"""Lesson 4's cheap predictive distributions (MacKay §9.2) on the 1-D network demo, stored.

On the demo's default data (:func:`~ensemble_lib.studies.network_demo.demo_data`, H = 2) MacKay's
evidence framework gives w_MP, α_MP, β_MP exactly as the demo's Laplace fit does (the same
:func:`~ensemble_lib.inference.network_fits.fit_evidence` call and seed, so the same Laplace band).
From w_MP, :func:`~ensemble_lib.inference.noisy_retraining.noisy_retraining` retrains the network
:data:`N_DRAWS` times on targets with noise σ_ν = 1/√β_MP added, at α_MP and β_MP, once with the
prior's mean perturbed (m_j ~ N(0, I/α_MP)) and once without; both runs add the same noise to the
targets. The retrained weights are stored in ``figures/retraining_demo.npz`` (their predictions
are one vectorised forward pass) with the Laplace band on the demo's x grid and the configuration
that made them (a JSON string ``config``).

Each retraining is a short Newton run, but 2 × 200 of them and the evidence fit take several
seconds, more than a lesson's Run All should spend, so the lesson reads the file.
``python -m ensemble_lib.studies.retraining_demo [--force]`` recomputes it;
``tests/studies/test_retraining_demo.py`` re-derives stored draws from the stored configuration.

What lesson 4's §8 reads is put together here too (:func:`retraining_summary`: every band of the
section, nothing fitted; :func:`retraining_rows`, :func:`retraining_sentence`: its table's rows and
its reading, written from the numbers); the lesson (:mod:`ensemble_lib.lessons.networks`) draws them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.network_fits import fit_evidence, laplace_error_bars
from ..inference.noisy_retraining import noisy_retraining, residual_noise_sd
from ..models.network import NetworkPosterior, add_bias, network_output
from .hmc_reference import DEMO_FILE
from .network_demo import DEMO_BETA, DEMO_SEED, canonical_state, default_fits, demo_data, memo_key
from .runner import limit_threads, one_file_main, store_once
from .store import load_npz, save_npz, stored_file

#: the stored file, in figures/
RETRAINING_FILE = "retraining_demo.npz"
#: retrainings per variant (the lesson shows MacKay's first twelve; the band uses all of them)
N_DRAWS = 200
#: MacKay's number of retrained networks (§9.2 (iv))
N_MACKAY = 12
#: seed of the generator of the target noise and the prior means (both variants start from it)
RETRAINING_SEED = 1
#: the variants: the prior's mean perturbed, or not
VARIANTS = ("prior", "no_prior")
COMMAND = "python -m ensemble_lib.studies.retraining_demo"


def retraining_config(n_draws: int = N_DRAWS, seed: int = RETRAINING_SEED) -> dict:
    """What makes the store: the data, the network, the evidence fit's seed and the retrainings'."""
    n_draws = check.integer("n_draws", n_draws, low=2, high=100_000)
    seed = check.integer("seed", seed, low=0)
    return {"data": {"n": 16, "seed": 3}, "n_hidden": 2, "evidence": {"seed": DEMO_SEED, "n_restarts": 4,
                                                                   "alpha0": 1.0, "beta": DEMO_BETA},
            "n_grid": 121, "n_draws": n_draws, "seed": seed, "sigma_nu": "1/sqrt(beta_MP)",
            "variants": list(VARIANTS)}


def evidence_mode(config: dict):
    """The posterior at α_MP, β_MP and MacKay's evidence state (the demo's Laplace fit)."""
    x, t = demo_data(**config["data"])
    ev = config["evidence"]
    post = NetworkPosterior(add_bias(x[:, None]), t, config["n_hidden"], alpha=ev["alpha0"], beta=ev["beta"])
    st = fit_evidence(post, np.random.default_rng(ev["seed"]), n_restarts=ev["n_restarts"]).final
    st = canonical_state(st, config["n_hidden"])  # the same image of the mode on every machine
    return post.with_hyperparameters(alpha=st.alpha, beta=st.beta), st


def compute_retraining(config: dict | None = None, n_draws: int | None = None) -> dict[str, np.ndarray]:
    """The arrays of the store for ``config`` (default :func:`retraining_config`).

    ``n_draws`` (default the configuration's) retrains only the first so many of each variant:
    the draws are made one at a time, so they are the stored run's first ``n_draws``.
    """
    config = retraining_config() if config is None else config
    n = config["n_draws"] if n_draws is None else check.integer("n_draws", n_draws, low=1,
                                                                  high=config["n_draws"])
    with limit_threads(1):
        post, st = evidence_mode(config)
        xg = np.linspace(-3.0, 3.0, config["n_grid"])
        Xg = add_bias(xg[:, None])
        lap_mean, lap_var = laplace_error_bars(post, st.mean, st.hessian, st.beta, Xg)
        out = {"x": post.X[:, 0], "t": post.t, "x_grid": xg, "w_mp": st.mean,
               "alpha": np.array(st.alpha), "beta": np.array(st.beta), "gamma": np.array(st.gamma),
               "residual_sd": np.array(residual_noise_sd(post, st.mean)),
               "lap_mean": lap_mean, "lap_sd": np.sqrt(lap_var),
               "config": np.array(json.dumps(config, sort_keys=True))}
        for name in VARIANTS:
            d = noisy_retraining(post, st.mean, n, rng=np.random.default_rng(config["seed"]),
                                 sigma_nu=1.0 / math.sqrt(st.beta), perturb_prior=name == "prior")
            out[f"{name}_weights"] = d.weights
            out[f"{name}_converged"] = d.converged
    return out


def stored_config(path) -> dict | None:
    """The configuration recorded in a stored file (None if it records none)."""
    a = load_npz(path)
    return json.loads(str(a["config"])) if "config" in a else None


def load_retraining(directory=None) -> dict:
    """The stored arrays (``figures/retraining_demo.npz``), with ``config`` parsed back to a dict."""
    a = load_npz(stored_file(RETRAINING_FILE, directory, COMMAND))
    a["config"] = json.loads(str(a["config"]))
    return a


def write_retraining(path=None, *, force: bool = False) -> Path:
    """Compute the store and write it atomically (default ``figures/retraining_demo.npz``).

    A stored file of another configuration is not replaced unless ``force`` (FileExistsError,
    before any fit); one of the same configuration is re-derived.
    """
    config = retraining_config()
    return store_once(path, RETRAINING_FILE, config, lambda: compute_retraining(config), save_npz, force=force,
                      load=stored_config, config_of=lambda c: c)


# -- what lesson 4's §8 reads: every band on the demo's grid, its table rows and its reading -------

#: the points the table reads: the middle of the gap in the data, and inside the data
X_GAP, X_DATA = 0.0, 1.5


@dataclass(frozen=True)
class RetrainingSummary:
    """The demo's predictive bands (mean, s.d. of a new target) on its x grid, by method."""

    x: np.ndarray = field(repr=False)  # the training inputs
    t: np.ndarray = field(repr=False)
    x_grid: np.ndarray = field(repr=False)
    alpha: float  # MacKay's α_MP, β_MP: every retraining's, and Laplace's
    beta: float
    residual_sd: float  # MacKay's §9.2 (i) estimate of σ_ν, beside 1/√β_MP
    gamma: float  # MacKay's γ at w_MP: the well-determined parameters
    k: int  # the weights
    curves: dict = field(repr=False)  # variant -> (n_draws, n_grid) f(x, w_j)
    mean: dict = field(repr=False)  # method -> (n_grid,)
    sd: dict = field(repr=False)  # method -> (n_grid,) predictive s.d. (noise included)
    n_draws: int = 0

    def at(self, method: str, x: float) -> float:
        """The predictive s.d. of ``method`` (a key of :data:`METHODS`) at the grid point nearest ``x``
        (``x`` on the grid's span)."""
        method = check.choice("method", method, tuple(self.sd))
        x, lo, hi = check.real("x", x), float(self.x_grid[0]), float(self.x_grid[-1])
        if not lo <= x <= hi:
            raise ValueError(f"x must be in [{lo:g}, {hi:g}] (the summary's grid), got {x!r}")
        return float(self.sd[method][int(np.argmin(np.abs(self.x_grid - x)))])


#: the methods of :class:`RetrainingSummary`, in the table's order, with their labels
METHODS = {"retrain12": f"{N_MACKAY} retrained nets, prior mean perturbed",
           "retrain": "all retrained nets, prior mean perturbed",
           "retrain_no_prior": "all retrained nets, prior mean fixed at 0",
           "laplace": "Laplace (MacKay §5.2)",
           "ensemble": "ensemble, factor s = 1 (KL-fitted Q)",
           "hmc": "HMC (α, β integrated)"}


def retraining_summary(directory=None) -> RetrainingSummary:
    """Every band of the section from the stored files (nothing is fitted)."""
    a = load_retraining(directory)
    xg = a["x_grid"]
    H = a["config"]["n_hidden"]
    beta = float(a["beta"])
    curves = {v: network_output(a[f"{v}_weights"], add_bias(xg[:, None]), H) for v in VARIANTS}
    mean, sd = {}, {}
    for key, Y in (("retrain12", curves["prior"][:N_MACKAY]), ("retrain", curves["prior"]),
                   ("retrain_no_prior", curves["no_prior"])):
        mean[key], sd[key] = Y.mean(axis=0), np.sqrt(Y.var(axis=0, ddof=1) + 1.0 / beta)
    mean["laplace"], sd["laplace"] = a["lap_mean"], a["lap_sd"]
    ens = default_fits()[memo_key(H, 1, 1.0, True)]
    mean["ensemble"], sd["ensemble"] = ens.ens_mean, ens.ens_sd
    hmc = json.loads(stored_file(DEMO_FILE, directory).read_text())
    mean["hmc"], sd["hmc"] = np.asarray(hmc["mean"]), np.asarray(hmc["sd"])
    return RetrainingSummary(a["x"], a["t"], xg, float(a["alpha"]), beta, float(a["residual_sd"]),
                             float(a["gamma"]), int(a["w_mp"].size), curves, mean, sd, int(a["config"]["n_draws"]))


def retraining_rows(s: RetrainingSummary) -> list[tuple[str, str, str]]:
    """Each method's predictive s.d. in the gap (x = 0) and inside the data (x = 1.5), formatted."""
    check.instance("s", s, RetrainingSummary, "a RetrainingSummary (retraining_summary())")
    return [(METHODS[m].replace("all", str(s.n_draws)), f"{s.at(m, X_GAP):.3f}", f"{s.at(m, X_DATA):.3f}")
            for m in METHODS]


def retraining_sentence(s: RetrainingSummary) -> str:
    """The section's reading of the table (Markdown), written from its numbers."""
    check.instance("s", s, RetrainingSummary, "a RetrainingSummary (retraining_summary())")
    g = {m: s.at(m, X_GAP) for m in METHODS}
    d = {m: s.at(m, X_DATA) for m in METHODS}
    widen = g["retrain"] / g["retrain_no_prior"]
    off = 100 * max(abs(g[m] / g["laplace"] - 1) for m in ("retrain", "retrain_no_prior"))
    close_d = [d[m] for m in ("retrain", "retrain_no_prior", "laplace")]
    text = (f"In the gap (x = 0) the {s.n_draws} retrained networks give a predictive s.d. of {g['retrain']:.3f} "
            f"with the prior's mean perturbed and {g['retrain_no_prior']:.3f} without, within {off:.0f} % of "
            f"Laplace's {g['laplace']:.3f}: retraining from w_MP at fixed α_MP, β_MP samples the same local "
            f"Gaussian that Laplace linearises. The ensemble's band ({g['ensemble']:.3f}) is "
            f"{g['ensemble'] / g['laplace']:.1f} times as wide and HMC's ({g['hmc']:.3f}) "
            f"{g['hmc'] / g['laplace']:.1f} times: HMC also integrates over α, β and over the other modes, which "
            f"no retraining from one w_MP at fixed α, β reaches. Perturbing the prior's mean changes the band in "
            f"the gap by a factor of only {widen:.2f}, because γ = {s.gamma:.2f} of the k = {s.k} weights are "
            f"determined by the data, leaving the prior few directions of its own. Inside the data (x = 1.5) "
            f"retraining and Laplace give {min(close_d):.3f}–{max(close_d):.3f}, the ensemble {d['ensemble']:.3f} "
            f"and HMC {d['hmc']:.3f}. MacKay's twelve networks give {g['retrain12']:.3f} at x = 0: an s.d. from "
            f"twelve draws is itself uncertain by about {100 / math.sqrt(2 * (N_MACKAY - 1)):.0f} %.")
    return text


def main(argv=None) -> None:
    one_file_main(argv, "retrain lesson 4's demo network on noisy targets (MacKay §9.2) and store it",
                  RETRAINING_FILE, write_retraining,
                  lambda path, secs: f"2 x {N_DRAWS} retrainings in {secs:.0f} s: {path}")


if __name__ == "__main__":
    main()


#: the public names: what lesson 4 (its notebook, :mod:`ensemble_lib.lessons.networks`) and the command line use;
#: the store's steps (retraining_config, compute_retraining, write_retraining, ...) are called by main and the tests
__all__ = ["COMMAND", "METHODS", "N_DRAWS", "N_MACKAY", "RETRAINING_FILE", "RETRAINING_SEED", "RetrainingSummary",
           "VARIANTS", "X_DATA", "X_GAP", "main", "retraining_rows", "retraining_sentence", "retraining_summary"]
