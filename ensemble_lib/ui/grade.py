"""The lecturer's grading command: a folder of submitted notebooks into a CSV of scores.

::

    python -m ensemble_lib.ui.grade SUBMISSIONS_DIR --out scores.csv [--autograders build/student/autograder]

(``make grade SUBMISSIONS=… SCORES=…``.) Every ``*.ipynb`` under ``SUBMISSIONS_DIR`` is a student
copy made by ``make student`` and then answered; its lesson is read from the copy's own metadata
(otter's ``assignment_name``), so a renamed file is still graded against the right autograder.
Each is graded by ``otter run -a <lesson>.zip`` (otter-grader, in this Python, offline, no Docker):
the notebook is run from the top in a fresh kernel and every exercise's public and hidden tests
(the lesson's checks, :mod:`ensemble_lib.ui.exercises`) are scored. The CSV has one row per
submission: ``submission, lesson, q1, q2, …, score, possible`` (a question's points are 0 or 1).
A submission that cannot be graded (not a student copy, no autograder for its lesson, a run that
fails) gets an empty score and the reason in the ``error`` column, and the others are still graded.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from ..studies.store import check_argv

#: where ``make student`` puts the autograders
AUTOGRADERS = Path("build/student/autograder")


def lesson_of(path: Path) -> str:
    """The lesson a submitted notebook answers (otter's ``assignment_name``); ValueError if none."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        return nb["metadata"]["otter"]["assignment_name"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{path.name} is not a student copy made by `make student` "
                         "(no otter assignment_name in its metadata)") from None


def grade_one(path: Path, autograder: Path, timeout: float = 600) -> dict[str, float]:
    """Points per question for one submission, from ``otter run``'s results.json."""
    with tempfile.TemporaryDirectory(prefix="otter-run-") as out:
        proc = subprocess.run([sys.executable, "-m", "otter", "run", "--no-logo", "-a", str(autograder),
                               "-o", out, str(path)], capture_output=True, text=True, timeout=timeout)
        results = Path(out) / "results.json"
        if proc.returncode or not results.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"otter run failed on {path.name}: {' | '.join(tail)}")
        tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    return {t["name"]: float(t["score"]) for t in tests if t.get("max_score") is not None}


def grade_folder(submissions: str | Path, out: str | Path, autograders: str | Path = AUTOGRADERS) -> list[dict]:
    """Grade every ``*.ipynb`` under ``submissions`` and write the CSV ``out``; returns its rows."""
    submissions, autograders = Path(submissions), Path(autograders)
    if not submissions.is_dir():
        raise ValueError(f"SUBMISSIONS_DIR must be a folder of notebooks, got {submissions}")
    if not autograders.is_dir():
        raise ValueError(f"no autograders in {autograders}: run `make student` first (or pass --autograders)")
    paths = sorted(p for p in submissions.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if not paths:
        raise ValueError(f"no *.ipynb submissions in {submissions}")
    rows, questions = [], []
    for path in paths:
        row = {"submission": str(path.relative_to(submissions)), "lesson": "", "error": ""}
        try:
            row["lesson"] = lesson = lesson_of(path)
            zip_path = autograders / f"{lesson}.zip"
            if not zip_path.exists():
                raise ValueError(f"no autograder {zip_path.name} in {autograders}")
            points = grade_one(path, zip_path)
        except (ValueError, RuntimeError, subprocess.TimeoutExpired) as err:
            row["error"] = str(err)
        else:
            row.update(points)
            row["score"], row["possible"] = sum(points.values()), float(len(points))
            questions += [q for q in points if q not in questions]
        rows.append(row)
    fields = ["submission", "lesson", *sorted(questions, key=lambda q: int(q[1:])), "score", "possible", "error"]
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ensemble_lib.ui.grade",
                                     description="Grade a folder of submitted student notebooks into a CSV "
                                                 "of scores (otter-grader, offline, no Docker).")
    parser.add_argument("submissions", help="folder of submitted notebooks (searched recursively)")
    parser.add_argument("--out", required=True, help="the CSV file to write")
    parser.add_argument("--autograders", default=str(AUTOGRADERS),
                        help=f"folder of the lessons' autograder zips (default: {AUTOGRADERS}, from `make student`)")
    args = parser.parse_args(check_argv(argv))
    try:
        rows = grade_folder(args.submissions, args.out, args.autograders)
    except ValueError as err:
        parser.error(str(err))
    failed = [r for r in rows if r["error"]]
    print(f"{len(rows) - len(failed)} of {len(rows)} submissions graded into {args.out}"
          + "".join(f"\n  not graded: {r['submission']}: {r['error']}" for r in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())


#: the public names: the grading command (make grade); its steps (grade_folder, grade_one, lesson_of) are main's
__all__ = ["AUTOGRADERS", "main"]
