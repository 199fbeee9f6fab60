"""Regenerate every file in ``figures/``: ``python -m ensemble_lib.lessons.figures`` (``make figures``).

Each lesson module contributes a ``write_figures(outdir) -> list[pathlib.Path]``
function, listed in :data:`WRITERS`. Figures are drawn with the same plot
helpers the notebooks use, written without volatile metadata so that a rerun
on one machine gives byte-identical files, and the command prints nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..studies.store import FIGURES_DIR
from . import bound, classification, mean_sigma, mixture, model_choice, networks, stochastic_vi, toy_posterior

#: every lesson's ``write_figures(outdir)``, in the order they run (lesson 4's also draws Table 1's)
WRITERS = [
    toy_posterior.write_figures,
    mean_sigma.write_figures,
    bound.write_figures,
    stochastic_vi.write_figures,
    networks.write_figures,
    model_choice.write_figures,
    mixture.write_figures,
    classification.write_figures,
]


def write_all(outdir: Path | str = FIGURES_DIR, only: list[str] | None = None) -> list[Path]:
    """Call every lesson's ``write_figures`` (or those whose module name contains one of ``only``);
    return the paths written."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for write in WRITERS:
        if only and not any(o in write.__module__ for o in only):
            continue
        written.extend(write(outdir))
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", default=str(FIGURES_DIR))
    parser.add_argument("--only", nargs="*", help="substrings of the writers' module names")
    args = parser.parse_args(argv)
    write_all(args.outdir, args.only)


if __name__ == "__main__":
    main()
