"""Regenerate every file in ``figures/``: ``python -m ensemble_lib.ui.figures`` (``make figures``).

Each lesson module contributes a ``write_figures(outdir) -> list[pathlib.Path]``
function, listed in :data:`WRITERS`. Figures are drawn with the same plot
helpers the notebooks use, written without volatile metadata so that a rerun
on one machine gives byte-identical files, and the command prints nothing.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

#: modules whose ``write_figures(outdir)`` writes that lesson's figures
WRITERS = [
    "ensemble_lib.lessons.toy_posterior",
    "ensemble_lib.lessons.mean_sigma",
    "ensemble_lib.lessons.bound",
    "ensemble_lib.lessons.stochastic_vi",
    "ensemble_lib.lessons.networks",
    "ensemble_lib.lessons.model_choice",
    "ensemble_lib.lessons.mixture",
    "ensemble_lib.studies.table1",
]

DEFAULT_OUTDIR = Path(__file__).resolve().parents[2] / "figures"


def write_all(outdir: Path | str = DEFAULT_OUTDIR, only: list[str] | None = None) -> list[Path]:
    """Call every lesson's ``write_figures``; return the paths written."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in WRITERS:
        if only and not any(o in name for o in only):
            continue
        written.extend(importlib.import_module(name).write_figures(outdir))
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", default=str(DEFAULT_OUTDIR))
    parser.add_argument("--only", nargs="*", help="substrings of writer module names")
    args = parser.parse_args(argv)
    write_all(args.outdir, args.only)


if __name__ == "__main__":
    main()
