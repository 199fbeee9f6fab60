"""Lesson 8's stored results: Fig. 9's exact predictive (MacKay §5.4) and the neuron panel's fits.

With a bias the exact posterior is three-dimensional, and its grid
(:class:`~ensemble_lib.models.classification.ClassificationGrid`, ~2·10⁵ weighted nodes) takes
about 10 s to build and the exact predictive over a plane of inputs another 10 s: too slow for
a lesson's Run All (≤ 10 s) or a panel step (≤ 30 ms). This study computes them once and stores

* the exact predictive ``P(t = 1 | x, D) = ∫ σ(w·x) P(w|D) dw`` on the plane ``X1 × X2`` (the
  contours of MacKay's Fig. 9f);
* the same at the test points along the best fit's 0.9 contour, from A (the point of that line
  nearest the data's mean) to B, :data:`DISTANCES` away (the panel's slider);
* the exact ln P(D|α) and ln Z;
* Laplace's Gaussian and the KL-optimal diagonal and full Gaussians
  (:func:`~ensemble_lib.inference.classification_fits.fit_classification`: their KL needs the
  exact ln Z), with KL(Q‖P), F[Q] and Laplace's ln P(D|α),

in ``figures/classification_fig9.npz`` (written atomically, :func:`~.store.save_npz`);
``tests/studies/test_classification_demo.py`` re-derives stored entries from the library.

Second, ``figures/classification_neuron_fits.npz``: for every setting of lesson 8's neuron panel
on its slider grid (N, α, seed: :func:`neuron_settings`), the Gaussians of
:func:`~ensemble_lib.inference.classification_fits.fit_classification` with their KL and F, and
the exact ln Z and ln P(D|α) (each fit 50–200 ms, a panel step must take ≤ 30 ms); the same test
file re-derives stored rows.

Run ``python -m ensemble_lib.studies.classification_demo`` to rewrite both files.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..core import validation as check
from ..inference.classification_fits import fit_classification
from ..models.classification import ClassificationData, LogisticPosterior, classification_data
from .runner import store_once
from .store import load_npz, save_npz, stored_file, study_parser

#: Fig. 9's data set: 16 points from MacKay's neuron with a bias input of 1 (w = (2, 1), θ = 0),
#: inputs N(0, I₂); the prior precision α and the grid's tolerance
FIG9 = {"seed": 0, "n": 16, "w": (2.0, 1.0, 0.0), "input_sd": 1.0, "bias": 1.0, "alpha": 0.1, "tol": 1e-8}
#: the input plane of the contours (rows x₂, columns x₁)
X1 = np.linspace(-5.0, 5.0, 41)
X2 = np.linspace(-3.0, 7.0, 41)
#: distances of the test point from A along the best fit's 0.9 contour (the panel's slider)
DISTANCES = np.round(np.arange(0.0, 6.0 + 1e-9, 0.25), 10)
#: the Gaussians stored, as named in :class:`~ensemble_lib.inference.classification_fits.ClassificationFits`
FAMILIES = ("laplace", "diagonal", "full")
#: the file and the command that writes it
STORE_NAME = "classification_fig9.npz"
COMMAND = "python -m ensemble_lib.studies.classification_demo"


def fig9_data() -> ClassificationData:
    """Fig. 9's data set (:data:`FIG9`), inputs with the bias column (N, 3)."""
    return classification_data(np.random.default_rng(FIG9["seed"]), n=FIG9["n"], w=FIG9["w"],
                               input_sd=FIG9["input_sd"], bias=FIG9["bias"])


def fig9_posterior() -> LogisticPosterior:
    """The exact posterior of Fig. 9's neuron (k = 3: two input weights and the bias weight)."""
    d = fig9_data()
    return LogisticPosterior(d.x, d.t, FIG9["alpha"], tol=FIG9["tol"])


@dataclass(frozen=True)
class ContourPath:
    """Test points along the line ``w_MP·(x, 1) = ln 9`` (the best fit says 0.9 all along it).

    Attributes
    ----------
    A : (2,) the point of the line nearest the data's mean (MacKay's A)
    direction : (2,) unit vector along the line, pointing up the x₂ axis
    distances : (M,) distances from A
    points : (M, 2) the test points ``A + d · direction``
    """

    A: np.ndarray
    direction: np.ndarray
    distances: np.ndarray
    points: np.ndarray

    def inputs(self, bias: float = FIG9["bias"]) -> np.ndarray:
        """The test points with the bias input appended, (M, 3)."""
        return np.column_stack([self.points, np.full(len(self.points), bias)])


def contour_path(w_mp, x, distances=DISTANCES, level: float = 0.9) -> ContourPath:
    """The test points of :class:`ContourPath` for best-fit weights ``w_mp`` = (w₁, w₂, θ) and inputs ``x``.

    Parameters
    ----------
    w_mp : array_like, shape (3,)
        The most probable weights, the bias weight last.
    x : array_like, shape (N, 3) or (N, 2)
        The data's inputs (only the first two columns are used).
    distances : array_like
        Distances from A, finite.
    level : float
        The best fit's probability on the line, in (0, 1).
    """
    w = check.finite_vector("w_mp", w_mp)
    if w.shape != (3,):
        raise ValueError(f"w_mp must have 3 entries (w1, w2, bias weight), got {w.shape}")
    x = check.finite_matrix("x", x, shape="(N, k)")
    distances = check.finite_vector("distances", distances)
    level = check.real("level", level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    g = w[:2]
    norm = float(np.hypot(*g))
    if norm == 0.0:
        raise ValueError("w_mp must have a non-zero input weight (w1, w2) for its contours to be lines")
    n = g / norm
    direction = np.array([-n[1], n[0]])
    if direction[1] < 0:
        direction = -direction
    centre = x[:, :2].mean(axis=0)
    A = centre + (np.log(level / (1.0 - level)) - g @ centre - w[2]) / norm * n
    return ContourPath(A, direction, distances, A + distances[:, None] * direction)


def compute_store() -> dict[str, np.ndarray]:
    """Everything :data:`STORE_NAME` holds (about 20 s: the exact 3-D grid and the plane)."""
    post = fig9_posterior()
    fits = fit_classification(post)
    path = contour_path(post.mode, post.x)
    X1g, X2g = np.meshgrid(X1, X2)
    plane = np.column_stack([X1g.ravel(), X2g.ravel(), np.full(X1g.size, FIG9["bias"])])
    return {
        "x": post.x, "t": post.t, "alpha": np.float64(post.alpha), "x1": X1, "x2": X2,
        "exact_map": post.predictive(plane).reshape(X1g.shape),
        "distances": path.distances, "path_points": path.points, "exact_path": post.predictive(path.inputs()),
        "log_Z": np.float64(post.log_Z), "log_evidence": np.float64(post.log_evidence),
        "log_evidence_laplace": np.float64(fits.log_evidence_laplace),
        **{f"{key}_{part}": np.asarray(getattr(getattr(fits, key), part), dtype=float)
           for key in FAMILIES for part in ("mean", "cov", "kl", "bound")},
    }


def write_store(path=None, *, force: bool = False) -> "Path":  # noqa: F821 - pathlib.Path, returned by save_npz
    """Compute and write :data:`STORE_NAME` (into ``figures/`` unless ``path`` is given), atomically.

    The store records no configuration: an existing file is replaced only with ``force``
    (FileExistsError, before any work).
    """
    return store_once(path, STORE_NAME, None, compute_store, save_npz, force=force, elsewhere="--outdir")


def load_store(directory=None) -> dict[str, np.ndarray]:
    """The stored arrays of :func:`compute_store` (FileNotFoundError naming :data:`COMMAND` if missing)."""
    return load_npz(stored_file(STORE_NAME, directory, COMMAND))


# ---------------------------------------------------------------------------
# Lesson 8's neuron panel: every slider setting on the grid, fitted once
# ---------------------------------------------------------------------------

#: the neuron without a bias (MacKay (17), w = (0, 2), inputs N(0, 2² I)): the largest N drawn per
#: seed (the panel's data are its first N points, arriving one by one as in MacKay's Fig. 7)
NEURON_N_MAX = 30
NEURON_INPUT_SD = 2.0
NEURON_W = (0.0, 2.0)
#: the slider grid stored: N = 1 … 30, α = 10^(−1 … 1 in steps of ½), seeds 0 … 4
NEURON_NS = tuple(range(1, NEURON_N_MAX + 1))
NEURON_LOG10_ALPHAS = (-1.0, -0.5, 0.0, 0.5, 1.0)
NEURON_SEEDS = tuple(range(5))
NEURON_STORE_NAME = "classification_neuron_fits.npz"


@lru_cache(maxsize=16)
def _neuron_draw(seed: int) -> ClassificationData:
    return classification_data(np.random.default_rng(seed), n=NEURON_N_MAX, w=NEURON_W, input_sd=NEURON_INPUT_SD)


def neuron_data(n: int, seed: int) -> ClassificationData:
    """The first ``n`` points (1 … :data:`NEURON_N_MAX`) of the neuron's data set ``seed``: one draw
    per seed, so a larger N adds points to the same data (MacKay's Fig. 7)."""
    n = check.integer("n", n, low=1, high=NEURON_N_MAX)
    seed = check.integer("seed", seed, low=0)
    d = _neuron_draw(seed)
    return ClassificationData(d.x[:n], d.t[:n], d.w)


def neuron_posterior(n: int, alpha: float, seed: int) -> LogisticPosterior:
    """The exact posterior of :func:`neuron_data` ``(n, seed)`` with prior precision ``alpha``."""
    d = neuron_data(n, seed)
    return LogisticPosterior(d.x, d.t, alpha)


def neuron_settings() -> list[tuple[int, float, int]]:
    """Every stored (N, log10 α, seed), N varying fastest (each fit warm-starts the next)."""
    return [(n, a, s) for s in NEURON_SEEDS for a in NEURON_LOG10_ALPHAS for n in NEURON_NS]


def fits_row(fits) -> dict[str, np.ndarray]:
    """The stored numbers of one :class:`~ensemble_lib.inference.classification_fits.ClassificationFits`."""
    if not all(hasattr(fits, a) for a in ("log_evidence", "log_evidence_laplace", *FAMILIES)):
        raise ValueError(f"fits must be the ClassificationFits of fit_classification, got {type(fits).__name__}")
    row = {"log_evidence": fits.log_evidence, "log_evidence_laplace": fits.log_evidence_laplace}
    for key in FAMILIES:
        fit = getattr(fits, key)
        row.update({f"{key}_mean": fit.mean, f"{key}_cov": fit.cov, f"{key}_kl": fit.kl, f"{key}_bound": fit.bound})
    return row


def compute_neuron_store(settings=None) -> dict[str, np.ndarray]:
    """The fits of every setting (:func:`neuron_settings`): ``n``, ``log10_alpha``, ``seed`` and the
    columns of :func:`fits_row`, plus ``log_Z``, one row per setting (a few minutes)."""
    settings = neuron_settings() if settings is None else list(settings)
    rows, warm, last = [], None, None
    for n, la, seed in settings:
        if last != (la, seed):
            warm = None
        post = neuron_posterior(n, 10.0 ** la, seed)
        fits = fit_classification(post, warm=warm)
        rows.append({"n": n, "log10_alpha": la, "seed": seed, "log_Z": post.log_Z, **fits_row(fits)})
        warm, last = fits, (la, seed)
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def write_neuron_store(path=None, *, force: bool = False) -> "Path":  # noqa: F821 - pathlib.Path, returned by save_npz
    """Compute and write :data:`NEURON_STORE_NAME` (into ``figures/`` unless ``path`` is given), atomically.

    The store records no configuration: an existing file is replaced only with ``force``
    (FileExistsError, before any fit).
    """
    return store_once(path, NEURON_STORE_NAME, None, compute_neuron_store, save_npz, force=force,
                      elsewhere="--outdir")


def load_neuron_store(directory=None) -> dict[str, np.ndarray]:
    """The stored arrays of :func:`compute_neuron_store`."""
    return load_npz(stored_file(NEURON_STORE_NAME, directory, COMMAND))


def main(argv=None) -> None:
    parser = study_parser(__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("fig9", "neuron"), help="write one of the two files")
    parser.add_argument("--force", action="store_true", help="replace the stored files (they record no configuration)")
    args = parser.parse_args(argv)
    try:
        if args.only != "neuron":
            print(write_store(stored_file(STORE_NAME, args.outdir), force=args.force), flush=True)
        if args.only != "fig9":
            print(write_neuron_store(stored_file(NEURON_STORE_NAME, args.outdir), force=args.force), flush=True)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None


__all__ = ["COMMAND", "DISTANCES", "FAMILIES", "FIG9", "NEURON_INPUT_SD", "NEURON_LOG10_ALPHAS", "NEURON_N_MAX",
           "NEURON_NS", "NEURON_SEEDS", "NEURON_STORE_NAME", "NEURON_W", "STORE_NAME", "X1", "X2", "contour_path",
           "fits_row", "load_neuron_store", "load_store", "main", "neuron_data", "neuron_posterior"]


if __name__ == "__main__":
    main()
