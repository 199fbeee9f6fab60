"""Student copies of the lessons: every exercise solution replaced by an empty answer cell.

In the spirit of Think Bayes' scrubbed chapters: the lessons keep their solutions in
code cells tagged ``solution`` (collapsed in JupyterLab, left out of the Voilà app);
a copy for students has each of them replaced by a cell holding only
``# Your answer to exercise N here``, and is otherwise the lesson as stored (the same
cells, outputs and metadata). ``make student`` runs::

    python -m ensemble_lib.ui.student_copies OUTDIR

which writes ``OUTDIR/notebooks/*.ipynb`` and copies ``figures/`` to ``OUTDIR/figures/``,
so the notebooks' ``../figures/`` links resolve in the copy as in the repository.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
from pathlib import Path

#: the cell tag that marks an exercise's solution
SOLUTION_TAG = "solution"
#: the repository's lessons and figures (the copy mirrors this layout)
REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
FIGURES = REPO / "figures"


def is_solution(cell: dict) -> bool:
    """True for a cell tagged ``solution``."""
    return SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def answer_stub(number: int) -> str:
    """The source of the empty cell that takes the place of solution ``number``."""
    return f"# Your answer to exercise {number} here\n"


def scrub(nb: dict) -> dict:
    """A copy of the notebook ``nb`` (nbformat 4 JSON) with each solution replaced by an answer stub.

    The k-th solution cell becomes an unexecuted code cell whose only line is
    :func:`answer_stub` (k) (no tags, not collapsed, the same cell id); every other
    cell, and the notebook's metadata, are copied unchanged.
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("nb must be a notebook's JSON (a dict with a 'cells' list)")
    out = copy.deepcopy(nb)
    number = 0
    for i, cell in enumerate(out["cells"]):
        if not is_solution(cell):
            continue
        number += 1
        stub = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                "source": answer_stub(number)}
        if "id" in cell:
            stub = {"id": cell["id"], **stub}
        out["cells"][i] = stub
    return out


def write_student_copies(outdir: str | Path, notebooks: str | Path = NOTEBOOKS,
                         figures: str | Path | None = FIGURES) -> list[Path]:
    """Write a scrubbed copy of every ``*.ipynb`` in ``notebooks`` to ``outdir/notebooks/``.

    ``figures`` (if given) is copied to ``outdir/figures/``. Returns the notebooks written,
    in name order. Refuses an ``outdir`` inside ``notebooks`` or equal to the repository
    folders it reads.
    """
    outdir, notebooks = Path(outdir).resolve(), Path(notebooks).resolve()
    if not notebooks.is_dir():
        raise ValueError(f"notebooks must be a folder, got {notebooks}")
    if outdir / "notebooks" == notebooks or outdir == notebooks or notebooks in outdir.parents:
        raise ValueError(f"outdir must not overwrite the lessons it copies: {outdir}")
    (outdir / "notebooks").mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(notebooks.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        dest = outdir / "notebooks" / path.name
        # nbformat's layout (indent 1, keys sorted, non-ASCII kept), so a copy diffs cleanly with its lesson
        dest.write_text(json.dumps(scrub(nb), indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        written.append(dest)
    if figures is not None:
        shutil.copytree(figures, outdir / "figures", dirs_exist_ok=True)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m ensemble_lib.ui.student_copies",
        description="Write the lessons without their exercise solutions (student copies) to OUTDIR.")
    parser.add_argument("outdir", help="folder to write notebooks/ and figures/ into")
    args = parser.parse_args(argv)
    written = write_student_copies(args.outdir)
    print(f"{len(written)} student notebooks (solutions removed) in {Path(args.outdir) / 'notebooks'}")


if __name__ == "__main__":
    main()
