"""Regenerate every file in ``figures/``: ``python -m ensemble_lib.lessons.figures`` (``make figures``).

Each lesson module contributes a ``write_figures(outdir) -> list[pathlib.Path]``
function, listed in :data:`WRITERS`. Figures are drawn with the same plot
helpers the notebooks use, written without volatile metadata so that a rerun
on one machine gives byte-identical files, and the command prints nothing.

The writers draw into a temporary folder inside ``outdir``; each file then replaces the stored one
in one ``os.replace`` only if it differs beyond what floating point changes from one CPU to another
(:func:`~ensemble_lib.studies.store.replace_if_changed`: a CSV number by one unit in its 6th
significant figure, a PNG by an RMS of 0.05 levels). So ``make figures`` on another machine leaves
the tree clean, and an interrupted run leaves every file either old or new.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from ..studies.store import FIGURES_DIR, check_argv, replace_if_changed
from . import (bound, classification, mean_sigma, mixture, model_choice, monte_carlo, networks, stochastic_vi,
               toy_posterior)

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
    monte_carlo.write_figures,
]


def write_all(outdir: Path | str = FIGURES_DIR, only: list[str] | None = None) -> list[Path]:
    """Call every lesson's ``write_figures`` (or those whose module name contains one of ``only``);
    return the paths of the files in ``outdir`` (each one replaced only if it changed beyond
    floating point, see the module's docstring)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    # in outdir, so each os.replace stays on one file system (one step, never a copy)
    work = Path(tempfile.mkdtemp(dir=outdir, prefix=".figures-"))
    try:
        for write in WRITERS:
            if only and not any(o in write.__module__ for o in only):
                continue
            for made in write(work):
                replace_if_changed(made, outdir / made.name)
                written.append(outdir / made.name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return written


def main(argv=None) -> None:
    argv = check_argv(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", default=str(FIGURES_DIR))
    parser.add_argument("--only", nargs="*", help="substrings of the writers' module names")
    args = parser.parse_args(argv)
    write_all(args.outdir, args.only)


#: the figures command (python -m ensemble_lib.lessons.figures)
__all__ = ["main"]


if __name__ == "__main__":
    main()
