"""Lesson 4's 1-D network demo: its data, its fits, and every setting of its panel fitted once and stored.

* :func:`demo_data`, :func:`demo_fit`, :class:`DemoState`: the 1-D regression data with a gap and
  the fit of one setting — the ensemble Q (diagonal for s = 0, else factor s) and Laplace — that the
  panel (:class:`~ensemble_lib.lessons.networks.Network1DPanel`) and the figure draw;
* :func:`load_demo_store`, :func:`default_fits`, :func:`memo_key`: the stored fits
  (``figures/network_demo_fits.npz``) and the memo shared by every panel on the default data.

On its default data the panel's controls take 4 × 3 × 18 = 216 settings: H = 1…4 hidden units,
s = 0…2 factors, and α = 10^−2 … 10^2 in steps of 10^0.25 or α, β adapted. Each is a network fit
(:func:`demo_fit`) of a second or more, which no slider step can wait for (issue 14: ≤ 30 ms a
step). Stored, a step to any setting is a lookup and a redraw; a panel on other data still fits as
it goes.

``python -m ensemble_lib.studies.network_demo [--jobs N]`` recomputes the file (every fit with a
fresh ``numpy.random.default_rng(DEMO_SEED)``, as the panel's own fits, and one BLAS thread, in
joblib processes). ``tests/studies/test_network_demo.py`` re-derives stored settings from the data
and settings alone; :func:`load_demo_store` uses the file only if its data and grid are the panel's.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from ..core import validation as check
from ..inference.evidence import EvidenceState
from ..inference.hyperparameters import GammaHyperprior
from ..inference.laplace import laplace_fit
from ..inference.network_fits import (CollapsedBound, fit_ensemble, fit_evidence, fit_family,
                                      laplace_error_bars, symmetry_factor)
from ..inference.pruning import unit_usage
from ..models.network import NetworkPosterior, add_bias
from .runner import check_output, limit_threads
from .store import load_npz, save_npz, stored_file, study_parser

#: slider ranges of lesson 4's panel (:class:`~ensemble_lib.lessons.networks.Network1DPanel`)
H_RANGE = (1, 4)
S_RANGE = (0, 2)  # s = 0 is the diagonal family; k = 3H ≥ 3 so s ≤ 2 ≤ k − 1 always
LOG10_ALPHA_RANGE = (-2.0, 2.0)
#: noise precision used when the hyperparameters are not adapted (the data's 1/σ²)
DEMO_NOISE_SD = 0.1
DEMO_BETA = 1.0 / DEMO_NOISE_SD**2
DEMO_DEFAULTS = {"n_hidden": 2, "rank": 1, "alpha": 1.0, "adapt": True}
#: seed of the generator the demo panel and figure hand to :func:`demo_fit` (one fresh generator
#: per fit, so a setting gives the same fit whatever was computed before)
DEMO_SEED = 0
#: log10 α of the panel's α slider: −2 … 2 in steps of 0.25
LOG10_ALPHAS = tuple(-2.0 + 0.25 * j for j in range(17))


def demo_data(n: int = 16, seed: int = 3):
    """1-D regression data with a gap: x in [−2, −0.4] ∪ [0.6, 2], t = sin(1.5x) + N(0, 0.1²).

    Returns ``(x, t)``; ``seed`` fixes a ``numpy.random.default_rng``.
    """
    n = check.integer("n", n, low=4, high=1000)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = np.sort(np.concatenate([rng.uniform(-2.0, -0.4, n // 2), rng.uniform(0.6, 2.0, n - n // 2)]))
    return x, np.sin(1.5 * x) + DEMO_NOISE_SD * rng.standard_normal(n)


@dataclass(frozen=True)
class DemoState:
    """Predictions of the ensemble Q and of Laplace on a grid of x, with their hyperparameters."""

    n_hidden: int
    rank: int
    adapt: bool
    x_grid: np.ndarray = field(repr=False)
    ens_mean: np.ndarray = field(repr=False)
    ens_sd: np.ndarray = field(repr=False)
    lap_mean: np.ndarray = field(repr=False)
    lap_sd: np.ndarray = field(repr=False)
    ens_alpha: float
    ens_beta: float
    lap_alpha: float
    lap_beta: float
    bound: float
    lap_bound: float
    lap_log_evidence: float
    notes: tuple = ()
    #: hidden units in use (share of Σ_n⟨f²⟩ on the data ≥ 1%, :func:`~ensemble_lib.inference.pruning.unit_usage`)
    ens_active: int = 0
    lap_active: int = 0


def _best_mode(post, rng, n_starts: int = 4):
    """Laplace at fixed α, β: the best of several random starts (highest log posterior)."""
    best = None
    for _ in range(n_starts):
        try:
            fit = laplace_fit(post, start=rng.standard_normal(post.dim), compute_kl=False)
        except ValueError:
            continue
        if best is None or post.log_unnorm(fit.mean) > post.log_unnorm(best.mean):
            best = fit
    if best is None:
        raise RuntimeError("every mode search ended at a saddle point")
    return best


def demo_fit(x, t, n_hidden: int, rank: int, alpha: float, adapt: bool,
             prior: GammaHyperprior | None = None, n_grid: int = 121,
             *, rng: np.random.Generator) -> DemoState:
    """Fit the 1-D demo: ensemble Q (diagonal for s = 0, else factor s) and Laplace.

    With ``adapt`` the hyperparameters are inferred (ensemble: Gamma
    hyperpriors, eqs 35–38 via :func:`fit_ensemble`; Laplace: MacKay's
    re-estimation via :func:`fit_evidence`) and ``alpha`` is ignored;
    otherwise both use the given α and β = 1/0.1². Error bars are one
    predictive standard deviation: ensemble ``√(⟨f²⟩ − ⟨f⟩² + 1/β̄)``,
    Laplace ``√(gᵀA⁻¹g + 1/β)`` (MacKay §5.2). ``rng`` draws the mode search's random
    restarts and the directions of the factors added to the diagonal fit (the panel and the figure
    pass ``numpy.random.default_rng(DEMO_SEED)``).
    """
    n_hidden = check.integer("n_hidden", n_hidden, low=H_RANGE[0], high=H_RANGE[1])
    rank = check.integer("rank", rank, low=S_RANGE[0], high=S_RANGE[1])
    alpha = check.precision("alpha", alpha)
    adapt = check.flag("adapt", adapt)
    rng = check.generator("rng", rng)
    x = check.finite_vector("x", x, min_len=2)
    t = check.finite_vector("t", t, min_len=2)
    n_grid = check.integer("n_grid", n_grid, low=10, high=10_000)
    prior = GammaHyperprior() if prior is None else prior
    return _fit(x, t, n_hidden, rank, alpha, adapt, prior, n_grid, rng)


def _fit(x, t, n_hidden, rank, alpha, adapt, prior, n_grid, rng) -> DemoState:
    """:func:`demo_fit` on arguments it has checked."""
    X = add_bias(x[:, None])
    post = NetworkPosterior(X, t, n_hidden, alpha=alpha, beta=DEMO_BETA)
    family = "diagonal" if rank == 0 else "factor"
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if adapt:
            ev = fit_evidence(post, rng, n_restarts=4)
            st = ev.final
            w_mp, A, la, lb = st.mean, st.hessian, st.alpha, st.beta
            lap_le = float(st.log_evidence)
            Ainv = st.cov
            start = [st.diagonal_start()]
            fit = fit_ensemble(post, prior, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_ensemble(post, prior, family, rank, warm=fit, gtol=1e-5, maxiter=300,
                                   rng=rng)
            ea, eb, F = fit.alpha, fit.beta, fit.bound
            lap_F = CollapsedBound(post, prior).bound(w_mp, Ainv)
        else:
            lap = _best_mode(post, rng)
            w_mp, A, la, lb, Ainv = lap.mean, lap.hessian, alpha, DEMO_BETA, lap.cov
            lap_le = float(lap.log_evidence_laplace + math.log(symmetry_factor(n_hidden)))
            start = [lap.diagonal_start()]
            fit = fit_family(post, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_family(post, family, rank, warm=fit, gtol=1e-5, maxiter=300, rng=rng)
            ea, eb, F, lap_F = alpha, DEMO_BETA, fit.bound, lap.bound
    notes = tuple(sorted({str(c.message).split(":")[0] for c in caught}))
    xg = np.linspace(-3.0, 3.0, n_grid)
    Xg = add_bias(xg[:, None])
    em = post.predictive_mean(fit.mean, fit.cov, Xg)
    ev_ = post.predictive_variance(fit.mean, fit.cov, Xg, beta=eb)
    lm, lv = laplace_error_bars(post, w_mp, A, lb, Xg)
    return DemoState(n_hidden, rank, bool(adapt), xg, em, np.sqrt(ev_), lm, np.sqrt(lv),
                     float(ea), float(eb), float(la), float(lb), float(F), float(lap_F), lap_le,
                     notes, ens_active=unit_usage(fit.mean, fit.cov, X, n_hidden).n_active,
                     lap_active=unit_usage(w_mp, None, X, n_hidden).n_active)


#: :func:`demo_fit` on the default data (:func:`demo_data`), by :func:`_memo_key`: shared by the
#: figure and every panel on that data. A fit is a deterministic function of its settings (its
#: generator is ``default_rng(DEMO_SEED)``), so a panel built after the figure, or a second panel,
#: takes the fits already made instead of repeating them.
_DEFAULT_DATA_FITS: dict = {}
#: every setting of the panel on its default data, fitted once (:func:`write_store`)
DEMO_STORE_FILE = "network_demo_fits.npz"
_STORE_READ = False


def load_demo_store(directory=None, n_grid: int = 121) -> dict:
    """The stored demo fits (``figures/network_demo_fits.npz``): memo key → :class:`DemoState`.

    Written by ``python -m ensemble_lib.studies.network_demo`` for every setting of the panel's
    controls on :func:`demo_data`. Empty if the file is absent, or if its data or x grid are not
    the panel's (then the panel fits as it goes).
    """
    n_grid = check.integer("n_grid", n_grid, low=3, high=10_001)
    path = stored_file(DEMO_STORE_FILE, directory)
    if not path.is_file():
        return {}
    a = load_npz(path)
    x, t = demo_data()
    if not (np.array_equal(a["x"], x) and np.array_equal(a["t"], t)
            and np.array_equal(a["x_grid"], np.linspace(-3.0, 3.0, n_grid))):
        return {}
    names = [str(n) for n in a["scalar_names"]]
    out = {}
    for i in range(a["n_hidden"].size):
        h, r, adapt = int(a["n_hidden"][i]), int(a["rank"][i]), bool(a["adapt"][i])
        alpha = 1.0 if adapt else 10.0 ** float(a["log10_alpha"][i])
        sc = dict(zip(names, (float(v) for v in a["scalars"][i])))
        out[memo_key(h, r, alpha, adapt)] = DemoState(
            h, r, adapt, a["x_grid"], a["ens_mean"][i], a["ens_sd"][i], a["lap_mean"][i], a["lap_sd"][i],
            notes=tuple(json.loads(str(a["notes"][i]))), ens_active=int(a["active"][i, 0]),
            lap_active=int(a["active"][i, 1]), **sc)
    return out


def default_fits() -> dict:
    """The memo shared by every panel on the default data and the figure, with the store read in once."""
    global _STORE_READ
    if not _STORE_READ:
        _STORE_READ = True
        for key, state in load_demo_store().items():
            _DEFAULT_DATA_FITS.setdefault(key, state)
    return _DEFAULT_DATA_FITS


def memo_key(n_hidden, rank, alpha, adapt) -> tuple:
    """One demo fit's settings as a dictionary key (α is ignored when it is adapted)."""
    n_hidden, rank = check.integer("n_hidden", n_hidden, low=1), check.integer("rank", rank, low=0)
    adapt = check.flag("adapt", adapt)
    alpha = 1.0 if adapt else check.positive("alpha", alpha)
    return (int(n_hidden), int(rank), None if adapt else round(math.log10(alpha), 6), bool(adapt))


def demo_settings() -> list[tuple[int, int, float | None, bool]]:
    """Every ``(n_hidden, rank, log10_alpha or None, adapt)`` the panel's controls can take."""
    out = []
    for h in range(H_RANGE[0], H_RANGE[1] + 1):
        for s in range(S_RANGE[0], S_RANGE[1] + 1):
            out.append((h, s, None, True))
            out += [(h, s, e, False) for e in LOG10_ALPHAS]
    return out


def fit_setting(setting):
    """:func:`demo_fit` of one setting on the default data (one BLAS thread)."""
    h, s, e, adapt = setting
    with limit_threads(1):
        return demo_fit(*demo_data(), h, s, 1.0 if adapt else 10.0 ** e, adapt,
                        rng=np.random.default_rng(DEMO_SEED))


def store_config(settings=None) -> dict:
    """What makes the store: the data, the grid, the fits' seed and hyperpriors, and the settings.

    Stored in the file as the JSON string ``config`` (:func:`stored_config` reads it back); the
    panel's loader (:func:`load_demo_store`) does not read it.
    """
    prior = GammaHyperprior()
    settings = demo_settings() if settings is None else list(settings)
    return {"data": {"n": 16, "seed": 3}, "n_grid": 121, "demo_seed": DEMO_SEED,
            "prior": {"a": prior.a, "b": prior.b, "c": prior.c, "d": prior.d},
            "settings": [[int(h), int(s), None if e is None else float(e), bool(a)] for h, s, e, a in settings]}


def stored_config(path) -> dict | None:
    """The configuration recorded in a stored demo file (None if it records none)."""
    a = load_npz(path)
    return json.loads(str(a["config"])) if "config" in a else None


def compute_store(settings=None, n_jobs: int | None = None) -> dict[str, np.ndarray]:
    """The arrays :func:`load_demo_store` reads, for ``settings``, and their configuration
    (``config``: :func:`store_config` as a JSON string)."""
    settings = demo_settings() if settings is None else list(settings)
    n_jobs = (os.cpu_count() or 1) if n_jobs is None else check.integer("n_jobs", n_jobs, low=1, high=256)
    states = Parallel(n_jobs=n_jobs)(delayed(fit_setting)(st) for st in settings)
    x, t = demo_data()
    scalars = ("ens_alpha", "ens_beta", "lap_alpha", "lap_beta", "bound", "lap_bound", "lap_log_evidence")
    return {
        "x": x, "t": t, "x_grid": states[0].x_grid,
        "n_hidden": np.array([st[0] for st in settings]),
        "rank": np.array([st[1] for st in settings]),
        "log10_alpha": np.array([np.nan if st[2] is None else st[2] for st in settings]),
        "adapt": np.array([st[3] for st in settings]),
        **{name: np.stack([getattr(s, name) for s in states])
           for name in ("ens_mean", "ens_sd", "lap_mean", "lap_sd")},
        "scalars": np.array([[getattr(s, name) for name in scalars] for s in states]),
        "scalar_names": np.array(scalars),
        "active": np.array([[s.ens_active, s.lap_active] for s in states]),
        "notes": np.array([json.dumps(list(s.notes)) for s in states]),
        "config": np.array(json.dumps(store_config(settings), sort_keys=True)),
    }


def write_store(path=None, n_jobs: int | None = None, *, force: bool = False) -> Path:
    """Compute every setting and write the store (``figures/network_demo_fits.npz`` by default).

    A stored file of another configuration (or one recording none) is not replaced unless
    ``force`` (FileExistsError, before any fit).
    """
    path = stored_file(DEMO_STORE_FILE) if path is None else Path(path)
    check_output(path, store_config(), force=force, load=stored_config, config_of=lambda c: c, elsewhere="--out")
    return save_npz(compute_store(n_jobs=n_jobs), path)


def main(argv=None) -> None:
    parser = study_parser("fit every setting of lesson 4's demo panel and store it", outdir=False, jobs=None)
    parser.add_argument("--out", default=None, help="the file to write (default figures/network_demo_fits.npz)")
    parser.add_argument("--force", action="store_true",
                        help="replace a stored file of another configuration (or one recording none)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    try:
        path = write_store(args.out, args.jobs, force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    print(f"{len(demo_settings())} settings fitted in {time.perf_counter() - t0:.0f} s: {path}")


def canonical_state(state, n_hidden: int):
    """MacKay's evidence state moved to the one image of its mode that the stored demo results use.

    A network's posterior is unchanged by swapping hidden units and by flipping the signs of a
    unit's input and output weights together (MacKay §4.1), so an optimiser may land on any of
    the 2^H·H! images of one mode, depending on the last bits of its floating point (the oldest
    declared numpy and scipy land on another image than the newest). Each unit is flipped so that
    its first input weight is ≤ 0, and the units are ordered by that weight, ascending; the mean,
    the covariance and the Hessian move with the same signed permutation, and α, β, γ and the
    evidence are the same by symmetry. The weights are laid out ``[u_1 … u_H, v]`` (each u_i the
    unit's d input weights, v the H output weights).
    """
    check.instance("state", state, EvidenceState, "an EvidenceState (fit_evidence(...).final)")
    H = check.integer("n_hidden", n_hidden, low=1, high=64)
    w = np.asarray(state.mean, dtype=float)
    k = w.size
    if k % H or k // H < 2:
        raise ValueError(f"n_hidden must split the state's {k} weights as H*d + H with d >= 1, got {H}")
    d = k // H - 1
    signs = np.where(w[:H * d].reshape(H, d)[:, 0] > 0, -1.0, 1.0)
    order = np.argsort(signs * w[:H * d].reshape(H, d)[:, 0], kind="stable")
    P = np.zeros((k, k))
    for new, old in enumerate(order):
        P[new * d:(new + 1) * d, old * d:(old + 1) * d] = signs[old] * np.eye(d)
        P[H * d + new, H * d + old] = signs[old]
    return dataclasses.replace(state, mean=P @ w, cov=P @ state.cov @ P.T, hessian=P @ state.hessian @ P.T)


__all__ = ["DEMO_BETA", "DEMO_DEFAULTS", "DEMO_NOISE_SD", "DEMO_SEED", "DEMO_STORE_FILE", "H_RANGE",
           "LOG10_ALPHAS", "LOG10_ALPHA_RANGE", "S_RANGE", "DemoState", "canonical_state", "default_fits",
           "demo_data", "demo_fit",
           "load_demo_store", "main", "memo_key"]


if __name__ == "__main__":
    main()
