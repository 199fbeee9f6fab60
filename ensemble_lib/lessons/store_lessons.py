"""``python -m ensemble_lib.lessons.store_lessons [NOTEBOOK ...]``: run lessons top to bottom and store them.

The lessons in ``notebooks/`` are kept executed (nbval compares their printed numbers, the book and
the learning path show their figures and each panel's saved image). After a change to a lesson, or
to how the library draws (a plot style), a maintainer stores the lessons again with this command
rather than by hand, so every lesson is stored the same way:

* every cell runs, in order, in one kernel started in ``notebooks/`` (as ``make lab`` runs them),
  with the widgets' state saved in the notebook's metadata;
* exercise solutions (cells tagged ``solution``) run too — a later cell may compare with them — but
  are saved unexecuted, so a student who opens the lesson sees no answer (their outputs and
  execution counts are cleared);
* no run times are recorded in the cells, so storing twice changes only what the lesson prints
  differently (a measured time, say);
* the file is written atomically (a temporary file beside it, then a rename).

With no argument every lesson is stored. Nothing else in the repository changes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from ..studies.store import check_argv

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOLUTION_TAG = "solution"
#: seconds a cell may take before the run is abandoned (lesson 4's slowest is a few seconds)
CELL_TIMEOUT = 600


def is_solution(cell) -> bool:
    return cell.cell_type == "code" and SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def store(path: Path | str, timeout: int = CELL_TIMEOUT) -> Path:
    """Run the notebook at ``path`` top to bottom and write it back, solutions saved unexecuted."""
    path = Path(path)
    if path.suffix != ".ipynb" or not path.is_file():
        raise ValueError(f"path must be an existing .ipynb file, got {path}")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True, record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)  # run times: they would change on every run
        if is_solution(cell):
            cell.outputs, cell.execution_count = [], None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".ipynb", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def main(argv: list[str] | None = None) -> None:
    argv = check_argv(argv)
    parser = argparse.ArgumentParser(prog="python -m ensemble_lib.lessons.store_lessons",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="lessons to store (default: every notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    for p in paths:
        store(p)
        print(f"stored {p.name}", flush=True)


#: the command that stores the executed lessons, and its one step
__all__ = ["main", "store"]


if __name__ == "__main__":
    main()
