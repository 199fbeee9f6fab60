"""Student copies of the lessons, and the autograders, made by otter-grader from the lessons.

The lessons in ``notebooks/`` are the one source (see :mod:`ensemble_lib.ui.exercises`). ``make
student`` runs::

    python -m ensemble_lib.lessons.student_copies OUTDIR

* A lesson **converted to the exercise format** (its module declares ``EXERCISES``; its exercises
  have ``answer`` and ``check`` cells) is turned into otter's source notebook
  (:func:`otter_source`: an ``# ASSIGNMENT CONFIG`` raw cell; per exercise the raw
  ``BEGIN QUESTION`` / ``SOLUTION`` / ``TESTS`` blocks around its prompt, its answer cell with the
  solution inside ``# BEGIN SOLUTION NO PROMPT`` … ``# END SOLUTION`` markers, a public and a hidden
  test that call the lesson's check) and handed to ``otter assign``. That writes the student copy
  (the answer cell with its blanks, ``grader.check("q1")`` in place of ``check("q1")``, no solution,
  no hidden test) to ``OUTDIR/notebooks/`` and the autograder to ``OUTDIR/autograder/<lesson>.zip``,
  which :mod:`ensemble_lib.ui.grade` uses. Nobody opens otter's source notebook: it lives in a
  temporary folder, so ``make lab`` shows only the lessons.
* A lesson **not yet converted** is scrubbed as before (:func:`scrub`): each solution replaced by
  ``# Your answer to exercise N here``, everything else unchanged.

In both, Markdown between ``<!-- lesson-only -->`` and ``<!-- /lesson-only -->`` (what says the
solutions are in collapsed cells) is left out of the copy. ``figures/`` is copied to
``OUTDIR/figures/`` so the notebooks' ``../figures/`` links resolve in the copy as in the repository.
Every copy is checked for leaks: no line of a solution that appears nowhere else in the lesson
may reach it (:func:`leaked_lines`; ``write_student_copies`` refuses to write one that leaks).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..studies.store import check_argv
from .exercises import ANSWER_TAG, CHECK_TAG, ExerciseSet

#: the cell tag that marks an exercise's solution
SOLUTION_TAG = "solution"
#: the repository's lessons and figures (the copy mirrors this layout)
REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
FIGURES = REPO / "figures"


def is_solution(cell: dict) -> bool:
    """True for a cell tagged ``solution``."""
    if not isinstance(cell, dict):
        raise ValueError(f"cell must be a notebook cell (a dict of nbformat 4 JSON), got {type(cell).__name__}")
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


LESSON_ONLY = re.compile(r"<!-- lesson-only -->.*?<!-- /lesson-only -->", re.S)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _has_tag(cell: dict, tag: str) -> bool:
    return tag in cell.get("metadata", {}).get("tags", [])


def strip_lesson_only(nb: dict) -> dict:
    """``nb`` with every Markdown span between ``<!-- lesson-only -->`` markers removed."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and "lesson-only" in _source(cell):
            cell["source"] = LESSON_ONLY.sub("", _source(cell))
    return nb


def exercise_cells(nb: dict, exercises: ExerciseSet) -> list[tuple[int, int, int, int]]:
    """For each exercise, the indices of its (prompt, answer, check, solution) cells.

    Raises ValueError naming the exercise when a lesson's cells do not follow the format: a prompt
    (Markdown), an ``answer`` cell, a ``check`` cell calling ``check("qN")``, then its ``solution``.
    """
    cells, out = nb["cells"], []
    answers = [i for i, c in enumerate(cells) if _has_tag(c, ANSWER_TAG)]
    if len(answers) != len(exercises):
        raise ValueError(f"{exercises.notebook}: {len(answers)} answer cells for {len(exercises)} exercises")
    for ex, a in zip(exercises, answers):
        where = f"{exercises.notebook}, exercise {ex.number}"
        if a == 0 or cells[a - 1]["cell_type"] != "markdown":
            raise ValueError(f"{where}: its answer cell must follow its prompt (a Markdown cell)")
        if a + 2 >= len(cells) or not _has_tag(cells[a + 1], CHECK_TAG) or not _has_tag(cells[a + 2], SOLUTION_TAG):
            raise ValueError(f"{where}: its answer cell must be followed by a check cell and its solution")
        if _source(cells[a + 1]).strip() != f'check("{ex.name}")':
            raise ValueError(f'{where}: its check cell must be check("{ex.name}")')
        if "<summary>Hint</summary>" not in _source(cells[a - 1]):
            raise ValueError(f"{where}: its prompt must end in a folded Hint (<summary>Hint</summary>)")
        missing = [n for n in ex.answers if not re.search(rf"^{n}\s*=", _source(cells[a]), re.M)]
        if missing:
            raise ValueError(f"{where}: the answer cell does not assign {missing}")
        out.append((a - 1, a, a + 1, a + 2))
    return out


def _raw(text: str) -> dict:
    return {"cell_type": "raw", "metadata": {}, "source": text}


def _code(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": text}


def _test_cell(exercises: ExerciseSet, name: str, module: str, hidden: bool) -> dict:
    number = exercises[name].number
    config = ("hidden: true\n" if hidden else
              f"failure_message: Exercise {number} is not right yet; read the line above it and the "
              f"exercise's Hint.\n")
    return _code(f'""" # BEGIN TEST CONFIG\n{config}""" # END TEST CONFIG\n'
                 f"from {module} import EXERCISES as _exercises\n"
                 f"_exercises.verdict({name!r}, globals())\n")


#: otter assign's settings for every lesson (offline, tests in the notebook, no PDF, no export cell)
ASSIGNMENT_CONFIG = """# ASSIGNMENT CONFIG
name: {name}
init_cell: true
check_all_cell: true
export_cell: false
run_tests: false
solutions_pdf: false
template_pdf: false
tests:
  files: false
  ok_format: true
"""


def otter_source(nb: dict, exercises: ExerciseSet, module: str) -> dict:
    """otter's source notebook for a lesson in the exercise format (see the module docstring)."""
    nb = strip_lesson_only(copy.deepcopy(nb))
    spans = exercise_cells(nb, exercises)
    by_prompt = {p: (ex, a, c, s) for ex, (p, a, c, s) in zip(exercises, spans)}
    skip = {i for span in spans for i in span[1:]}
    stem = exercises.notebook.removesuffix(".ipynb")
    cells = [_raw(ASSIGNMENT_CONFIG.format(name=stem))]
    for i, cell in enumerate(nb["cells"]):
        if i in skip:
            continue
        if i not in by_prompt:
            cells.append(cell)
            continue
        ex, a, _, s = by_prompt[i]
        solution = _source(nb["cells"][s]).rstrip("\n")
        cells += [_raw(f"# BEGIN QUESTION\nname: {ex.name}\npoints: 1"), cell, _raw("# BEGIN SOLUTION"),
                  _code(_source(nb["cells"][a]).rstrip("\n") + "\n# BEGIN SOLUTION NO PROMPT\n"
                        + solution + "\n# END SOLUTION\n"),
                  _raw("# END SOLUTION"), _raw("# BEGIN TESTS"),
                  _test_cell(exercises, ex.name, module, hidden=False),
                  _test_cell(exercises, ex.name, module, hidden=True),
                  _raw("# END TESTS"), _raw("# END QUESTION")]
    return {**nb, "cells": [{k: v for k, v in c.items() if k != "id"} for c in cells], "nbformat_minor": 4}


def otter_assign(nb: dict, exercises: ExerciseSet, module: str, student_dir: Path, autograder_dir: Path
                 ) -> tuple[Path, Path]:
    """Run ``otter assign`` on the lesson's otter source; returns (student notebook, autograder zip)."""
    name = exercises.notebook
    with tempfile.TemporaryDirectory(prefix="otter-assign-") as tmp:
        tmp = Path(tmp)
        (tmp / "source").mkdir()
        (tmp / "source" / name).write_text(json.dumps(otter_source(nb, exercises, module), indent=1,
                                                      ensure_ascii=False), encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "otter", "assign", str(tmp / "source" / name),
                               str(tmp / "dist")], capture_output=True, text=True, cwd=tmp)
        if proc.returncode:
            raise RuntimeError(f"otter assign failed on {name}:\n{proc.stdout}\n{proc.stderr}")
        (zipfile,) = (tmp / "dist" / "autograder").glob("*.zip")
        student = student_dir / name
        # nbformat's layout (indent 1, keys sorted, non-ASCII kept), so a copy diffs cleanly with its lesson
        copy_nb = json.loads((tmp / "dist" / "student" / name).read_text(encoding="utf-8"))
        student.write_text(json.dumps(copy_nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                           encoding="utf-8")
        autograder = autograder_dir / (name.removesuffix(".ipynb") + ".zip")
        shutil.copyfile(zipfile, autograder)
    return student, autograder


def leaked_lines(lesson: dict, copy_nb: dict) -> list[str]:
    """Lines of the lesson's solution cells that appear nowhere else in it but do in ``copy_nb``."""
    def text(obj):
        return json.dumps(obj, ensure_ascii=False)

    solutions = [c for c in lesson["cells"] if is_solution(c)]
    others = text({**lesson, "cells": [c for c in lesson["cells"] if not is_solution(c)]})
    lines = {ln.strip() for c in solutions for ln in _source(c).splitlines() if ln.strip()}
    secret = [ln for ln in lines if text(ln)[1:-1] not in others]
    shown = text(copy_nb)
    return sorted(ln for ln in secret if text(ln)[1:-1] in shown)


def _exercise_sets(exercises) -> dict:
    """``exercises`` (None: no lesson in the exercise format) if it maps notebook names to
    ``(ExerciseSet, module name)`` pairs, as :func:`ensemble_lib.lessons.exercise_sets` does."""
    if exercises is None:
        return {}
    if not isinstance(exercises, dict) or not all(
            isinstance(k, str) and isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], ExerciseSet)
            and isinstance(v[1], str) for k, v in exercises.items()):
        raise ValueError(f"exercises must be None or a dict of notebook name -> (ExerciseSet, module name), "
                         f"got {exercises!r:.80}")
    return dict(exercises)


def write_student_copies(outdir: str | Path, exercises: dict | None = None, notebooks: str | Path = NOTEBOOKS,
                         figures: str | Path | None = FIGURES) -> list[Path]:
    """Write a student copy of every ``*.ipynb`` in ``notebooks`` to ``outdir/notebooks/``.

    ``exercises`` maps a notebook's file name to ``(ExerciseSet, the dotted name of the lesson module
    that declares it)`` (:func:`ensemble_lib.lessons.exercise_sets`, which ``make student`` passes).
    Lessons in it go through ``otter assign`` (their autograders to ``outdir/autograder/``); the
    others are scrubbed (:func:`scrub`). ``figures`` (if given) is
    copied to ``outdir/figures/``. Returns the notebooks written, in name order. Refuses an
    ``outdir`` inside ``notebooks`` or equal to the repository folders it reads, and a copy that
    leaks a solution line (RuntimeError).
    """
    exercises = _exercise_sets(exercises)
    outdir, notebooks = Path(outdir).resolve(), Path(notebooks).resolve()
    if not notebooks.is_dir():
        raise ValueError(f"notebooks must be a folder, got {notebooks}")
    if outdir / "notebooks" == notebooks or outdir == notebooks or notebooks in outdir.parents:
        raise ValueError(f"outdir must not overwrite the lessons it copies: {outdir}")
    (outdir / "notebooks").mkdir(parents=True, exist_ok=True)
    converted = {name: ex for name, (ex, _) in exercises.items()}
    modules = {name: module for name, (_, module) in exercises.items()}
    written = []
    for path in sorted(notebooks.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        dest = outdir / "notebooks" / path.name
        if path.name in converted:
            (outdir / "autograder").mkdir(exist_ok=True)
            otter_assign(nb, converted[path.name], modules[path.name], outdir / "notebooks", outdir / "autograder")
        else:
            dest.write_text(json.dumps(strip_lesson_only(scrub(nb)), indent=1, sort_keys=True,
                                       ensure_ascii=False) + "\n", encoding="utf-8")
        leaks = leaked_lines(nb, json.loads(dest.read_text(encoding="utf-8")))
        if leaks:
            dest.unlink()
            raise RuntimeError(f"the student copy of {path.name} leaks solution lines: {leaks[:3]}")
        written.append(dest)
    if figures is not None:
        shutil.copytree(figures, outdir / "figures", dirs_exist_ok=True)
    return written


def main(argv: list[str] | None = None, exercises: dict | None = None) -> None:
    """The command line (``python -m ensemble_lib.lessons.student_copies``, which passes the lessons'
    exercise sets as ``exercises``)."""
    parser = argparse.ArgumentParser(
        prog="python -m ensemble_lib.lessons.student_copies",
        description="Write the lessons without their exercise solutions (student copies) to OUTDIR, "
                    "and the autograders of the lessons in the exercise format to OUTDIR/autograder/.")
    parser.add_argument("outdir", help="folder to write notebooks/, autograder/ and figures/ into")
    args = parser.parse_args(check_argv(argv))
    written = write_student_copies(args.outdir, exercises)
    print(f"{len(written)} student notebooks (solutions removed) in {Path(args.outdir) / 'notebooks'}")


#: the public names: what the lessons' floor uses (its student-copies command, store_lessons); the steps
#: of a copy (write_student_copies, otter_source, scrub, leaked_lines, ...) are main's and the tests'
__all__ = ["ASSIGNMENT_CONFIG", "FIGURES", "LESSON_ONLY", "NOTEBOOKS", "SOLUTION_TAG", "is_solution", "main"]
