"""The grading command (``python -m ensemble_lib.ui.grade``): it scores a folder of submissions with the
autograders that the student-copies command writes, and names what is wrong with its input.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from ensemble_lib.lessons import exercise_sets
from ensemble_lib.ui import student_copies as sc

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"
CONVERTED = {name: ex for name, (ex, _) in exercise_sets().items()}
PILOT = "02_mackay_gaussian_mean_sigma.ipynb"


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """The pilot lesson's student copy and autograder only (tests/ui/test_student_copies.py makes
    and checks every lesson's; grading needs one), made the way ``make student`` makes them."""
    lessons = tmp_path_factory.mktemp("lessons")
    shutil.copy(NB / PILOT, lessons / PILOT)
    out = tmp_path_factory.mktemp("student")
    sc.write_student_copies(out, {PILOT: exercise_sets()[PILOT]}, notebooks=lessons, figures=None)
    return out


def _answered(copy: dict, lesson: dict, exercises, wrong: dict[str, str]) -> dict:
    """The student copy with each answer cell's blanks filled by the lesson's solution (and the
    lines in ``wrong`` appended to the named exercises' answers)."""
    spans = sc.exercise_cells(lesson, exercises)
    solutions = ["".join(lesson["cells"][s]["source"]) for *_, s in spans]
    answers = [c for c in copy["cells"] if "otter_answer_cell" in c["metadata"].get("tags", [])]
    assert len(answers) == len(solutions)
    for ex, cell, solution in zip(exercises, answers, solutions):
        cell["source"] = "".join(cell["source"]) + "\n" + solution + "\n" + wrong.get(ex.name, "")
    return copy


def test_the_grading_command_scores_a_right_and_a_wrong_submission(copies, tmp_path):
    from ensemble_lib.ui import grade

    exercises = CONVERTED[PILOT]
    lesson = json.loads((NB / PILOT).read_text(encoding="utf-8"))
    subs = tmp_path / "submissions"
    subs.mkdir()
    blank = json.loads((copies / "notebooks" / PILOT).read_text(encoding="utf-8"))
    right = _answered(json.loads(json.dumps(blank)), lesson, exercises, {})
    wrong = _answered(json.loads(json.dumps(blank)), lesson, exercises,
                      {"q2": "v_next = lambda v, N, S: (v + S) / (N + 1)\n", "q4": "var_ratio = 1 / var_ratio\n"})
    (subs / "alice.ipynb").write_text(json.dumps(right), encoding="utf-8")
    (subs / "bob-renamed.ipynb").write_text(json.dumps(wrong), encoding="utf-8")
    out = tmp_path / "scores.csv"
    assert grade.main([str(subs), "--out", str(out), "--autograders", str(copies / "autograder")]) == 0
    rows = {r["submission"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert {k: rows["alice.ipynb"][k] for k in ("q1", "q2", "q3", "q4", "score", "possible")} == {
        "q1": "1.0", "q2": "1.0", "q3": "1.0", "q4": "1.0", "score": "4.0", "possible": "4.0"}
    assert {k: rows["bob-renamed.ipynb"][k] for k in ("q1", "q2", "q3", "q4", "score")} == {
        "q1": "1.0", "q2": "0.0", "q3": "1.0", "q4": "0.0", "score": "2.0"}
    assert rows["alice.ipynb"]["lesson"] == PILOT.removesuffix(".ipynb")


def test_the_grading_command_names_what_is_wrong_with_its_input(tmp_path, capsys):
    from ensemble_lib.ui import grade

    with pytest.raises(SystemExit):
        grade.main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "s.csv")])
    assert "SUBMISSIONS_DIR must be a folder" in capsys.readouterr().err
    (tmp_path / "ag").mkdir()
    (tmp_path / "x.ipynb").write_text("{}")
    assert grade.main([str(tmp_path), "--out", str(tmp_path / "s.csv"), "--autograders", str(tmp_path / "ag")]) == 1
    assert "x.ipynb is not a student copy" in capsys.readouterr().out
