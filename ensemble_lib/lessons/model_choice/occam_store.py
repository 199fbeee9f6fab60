"""Lesson 6's §1 tables, made once and stored: exact, Laplace and bound for each polynomial degree and toy α.

:func:`~ensemble_lib.lessons.model_choice.occam.polynomial_occam` (eight polynomial models: exact
evidence by quadrature over ln α, ln β, MacKay's (30), a full-covariance ensemble fit each) and
:func:`~ensemble_lib.lessons.model_choice.occam.toy_occam` (the toy at four α) take about 0.6 s of
the lesson's Run All (issue 30: every lesson ready in ≤ 5 s) and depend only on their arguments, so
like lesson 3's evidence grid they are computed once and stored with their configuration in
``figures/occam_tables.json``:

* :func:`occam_config` is the configuration (both functions' default arguments);
* :func:`compute_occam` computes both tables of a configuration, as JSON-ready numbers;
* :func:`load_occam` reads them back as the rows the lesson shows;
* ``python -m ensemble_lib.lessons.model_choice.occam_store [--out FILE] [--force]`` recomputes the
  file (atomically; a file of another configuration is replaced only with ``--force``).

``tests/lessons/test_model_choice_occam_store.py`` re-derives the stored tables from the stored
configuration and checks them against independent quadratures. Not imported by the package (it is a
command): the lesson imports :func:`load_occam` from here.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from ...studies.runner import config_or_default, one_file_main, store_once
from ...studies.store import load_json, save_json
from .occam import OccamRow, polynomial_occam, toy_occam

#: the stored tables (in ``figures/``) and the command that makes them
OCCAM_FILE = "occam_tables.json"
COMMAND = "python -m ensemble_lib.lessons.model_choice.occam_store"


def occam_config() -> dict:
    """The configuration of lesson 6's two tables: :func:`polynomial_occam`'s and :func:`toy_occam`'s
    default arguments."""
    return {"polynomial": {"degrees": list(range(8)), "n": 20, "seed": 0},
            "toy": {"alphas": [0.02, 0.2, 2.0, 20.0], "seed": 25}}


def compute_occam(config: dict | None = None) -> dict:
    """Both tables of the configuration (default :func:`occam_config`), as the JSON-ready result
    :func:`save_occam` writes: ``config`` and each table's rows (the fields of :class:`OccamRow`)."""
    c = config_or_default(config, occam_config)
    p, t = c["polynomial"], c["toy"]
    if not isinstance(p, dict) or not isinstance(t, dict) or set(p) != {"degrees", "n", "seed"} \
            or set(t) != {"alphas", "seed"}:
        raise ValueError(f"config must hold polynomial_occam's (degrees, n, seed) and toy_occam's (alphas, seed) "
                         f"arguments as occam_config() does, got {config!r:.120}")
    poly = polynomial_occam(tuple(p["degrees"]), n=p["n"], seed=p["seed"])
    toy = toy_occam(tuple(t["alphas"]), seed=t["seed"])
    return {"config": c, "polynomial": [asdict(r) for r in poly], "toy": [asdict(r) for r in toy]}


def occam_from_result(result: dict) -> tuple[tuple, tuple]:
    """``(poly, toy)``, the rows of a result of :func:`compute_occam`."""
    if not isinstance(result, dict) or not {"config", "polynomial", "toy"} <= set(result):
        raise ValueError("result must be a dict with 'config', 'polynomial' and 'toy' (compute_occam's result)")
    return tuple(tuple(OccamRow(**row) for row in result[key]) for key in ("polynomial", "toy"))


def load_occam(directory=None) -> tuple[tuple, tuple]:
    """``(poly, toy)``: the stored rows (``figures/occam_tables.json``; FileNotFoundError naming the
    command if absent), what :func:`polynomial_occam` and :func:`toy_occam` compute afresh."""
    return occam_from_result(load_json(OCCAM_FILE, directory, COMMAND))


def save_occam(path=None, *, force: bool = False) -> Path:
    """Compute both tables of :func:`occam_config` and store them (``figures/occam_tables.json`` by default).

    Written atomically; a stored file of another configuration (or none) is not replaced unless
    ``force`` (FileExistsError, before any fit).
    """
    return store_once(path, OCCAM_FILE, occam_config(), compute_occam, save_json, force=force)


def main(argv=None) -> None:
    one_file_main(argv, "lesson 6's Occam tables (polynomial degrees and the toy at fixed alpha), stored",
                  OCCAM_FILE, save_occam, lambda path, secs: f"both Occam tables in {secs:.1f} s: {path}")


#: public: what lesson 6 (load_occam) and the command (save_occam) use
__all__ = ["OCCAM_FILE", "COMMAND", "occam_config", "compute_occam", "occam_from_result", "load_occam", "save_occam"]


if __name__ == "__main__":
    main()
