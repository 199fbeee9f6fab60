"""Every setting of lesson 4's demo panel, fitted once and stored: ``figures/network_demo_fits.npz``.

On its default data the panel's controls take 4 × 3 × 18 = 216 settings: H = 1…4 hidden units,
s = 0…2 factors, and α = 10^−2 … 10^2 in steps of 10^0.25 or α, β adapted. Each is a network fit
(:func:`~ensemble_lib.lessons.networks.demo_fit`) of a second or more, which no slider step can
wait for (issue 14: ≤ 30 ms a step). Stored, a step to any setting is a lookup and a redraw; a
panel on other data still fits as it goes.

``python -m ensemble_lib.studies.network_demo [--jobs N]`` recomputes the file (every fit with a
fresh ``numpy.random.default_rng(DEMO_SEED)``, as the panel's own fits, and one BLAS thread, in
joblib processes). ``tests/test_network_demo_store.py`` re-derives stored settings from the data
and settings alone; :func:`~ensemble_lib.lessons.networks.load_demo_store` uses the file only if its
data and grid are the panel's.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

#: log10 α of the panel's α slider: −2 … 2 in steps of 0.25
LOG10_ALPHAS = tuple(-2.0 + 0.25 * j for j in range(17))


def demo_settings() -> list[tuple[int, int, float | None, bool]]:
    """Every ``(n_hidden, rank, log10_alpha or None, adapt)`` the panel's controls can take."""
    from ..lessons.networks import H_RANGE, S_RANGE

    out = []
    for h in range(H_RANGE[0], H_RANGE[1] + 1):
        for s in range(S_RANGE[0], S_RANGE[1] + 1):
            out.append((h, s, None, True))
            out += [(h, s, e, False) for e in LOG10_ALPHAS]
    return out


def fit_setting(setting):
    """:func:`~ensemble_lib.lessons.networks.demo_fit` of one setting on the default data (one BLAS thread)."""
    from threadpoolctl import threadpool_limits

    from ..lessons.networks import DEMO_SEED, demo_data, demo_fit

    h, s, e, adapt = setting
    with threadpool_limits(1):
        return demo_fit(*demo_data(), h, s, 1.0 if adapt else 10.0 ** e, adapt,
                        rng=np.random.default_rng(DEMO_SEED))


def compute_store(settings=None, n_jobs: int | None = None) -> dict[str, np.ndarray]:
    """The arrays :func:`~ensemble_lib.lessons.networks.load_demo_store` reads, for ``settings``."""
    import os

    from joblib import Parallel, delayed

    from ..lessons.networks import demo_data

    from ..core import validation as check

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
    }


def write_store(path=None, n_jobs: int | None = None) -> Path:
    """Compute every setting and write the store (``figures/network_demo_fits.npz`` by default)."""
    from ..lessons.networks import DEMO_STORE_FILE
    from ..ui.figures import DEFAULT_OUTDIR

    path = Path(DEFAULT_OUTDIR) / DEMO_STORE_FILE if path is None else Path(path)
    arrays = compute_store(n_jobs=n_jobs)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)
    return path


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="fit every setting of lesson 4's demo panel and store it")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--out", default=None, help="the file to write (default figures/network_demo_fits.npz)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    path = write_store(args.out, args.jobs)
    print(f"{len(demo_settings())} settings fitted in {time.perf_counter() - t0:.0f} s: {path}")


if __name__ == "__main__":
    main()
