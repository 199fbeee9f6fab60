"""Student copies (``python -m ensemble_lib.lessons.student_copies OUTDIR``, ``make student``) hold no solution.

Lessons not yet in the exercise format are the lessons with each solution replaced by a stub and
nothing else changed; lessons in the format are otter's student copies (answer cells with blanks,
``grader.check``, no solution, no hidden test, no otter delimiter), which run top to bottom with
blank answers with only the checks failing. The grading command that scores a folder of submissions with
the autograders: tests/ui/test_grade.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from ensemble_lib.lessons import exercise_sets
from ensemble_lib.lessons.student_copies import main as student_main
from ensemble_lib.ui import student_copies as sc

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"


def _json_text(obj) -> str:
    """How ``obj`` (a notebook, or a line inside a JSON string) is spelled in a notebook file."""
    text = json.dumps(obj, ensure_ascii=False)
    return text[1:-1] if isinstance(obj, str) else text


def _code_lines(cells) -> set[str]:
    return {ln.strip() for c in cells for ln in "".join(c["source"]).splitlines() if ln.strip()}


CONVERTED = {name: ex for name, (ex, _) in exercise_sets().items()}
PILOT = "02_mackay_gaussian_mean_sigma.ipynb"


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    student_main([str(out)])
    return out


def test_student_copies_have_no_solution_code_and_are_otherwise_the_lessons(copies, capsys):
    tmp_path = copies
    lessons = sorted(NB.glob("*.ipynb"))
    assert sorted(p.name for p in (tmp_path / "notebooks").iterdir()) == [p.name for p in lessons]
    assert (tmp_path / "figures" / "toy_fig2.png").read_bytes() == (ROOT / "figures" / "toy_fig2.png").read_bytes()
    n_solutions = 0
    for path in lessons:
        original = json.loads(path.read_text(encoding="utf-8"))
        copy = json.loads((tmp_path / "notebooks" / path.name).read_text(encoding="utf-8"))
        solutions = [c for c in original["cells"] if sc.is_solution(c)]
        n_solutions += len(solutions)
        # every line of solution code found nowhere else in the lesson (other cells, outputs) is gone
        others = _json_text({**original, "cells": [c for c in original["cells"] if not sc.is_solution(c)]})
        secret = [ln for ln in _code_lines(solutions) if _json_text(ln) not in others]
        assert len(secret) >= len(solutions)
        leaked = [ln for ln in secret if _json_text(ln) in _json_text(copy)]
        assert not leaked, f"{path.name}: solution lines in the student copy: {leaked[:3]}"
        assert "collapsed cell" not in _json_text(copy), f"{path.name}: the copy says solutions are in collapsed cells"
        if path.name in CONVERTED:
            continue  # otter's copy: test_otter_copies_* below
        assert copy["metadata"] == original["metadata"] and len(copy["cells"]) == len(original["cells"])
        number = 0
        for before, after in zip(original["cells"], copy["cells"], strict=True):
            if sc.is_solution(before):
                number += 1
                assert after == {"id": before["id"], "cell_type": "code", "execution_count": None,
                                 "metadata": {}, "outputs": [], "source": f"# Your answer to exercise {number} here\n"}
            elif after != before:  # only the lesson-only spans of Markdown go
                assert after == {**before, "source": sc.LESSON_ONLY.sub("", "".join(before["source"]))}
    assert n_solutions >= 4 * 5  # every lesson has at least four exercises with solutions


def test_student_copies_refuse_to_overwrite_the_lessons(tmp_path):
    for outdir in (ROOT, NB, NB / "student"):
        with pytest.raises(ValueError, match="outdir"):
            sc.write_student_copies(outdir, exercise_sets())
    with pytest.raises(ValueError, match="nb must be"):
        sc.scrub({"cells": None})


def test_the_pilot_lesson_is_in_the_exercise_format():
    assert PILOT in CONVERTED


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_otter_copies_have_checks_and_no_solution_hidden_test_or_otter_source(copies, name):
    copy = json.loads((copies / "notebooks" / name).read_text(encoding="utf-8"))
    text = json.dumps(copy, ensure_ascii=False)
    for delimiter in ("BEGIN QUESTION", "BEGIN SOLUTION", "END SOLUTION", "BEGIN TESTS", "ASSIGNMENT CONFIG",
                      "with solution("):
        assert delimiter not in text, delimiter
    checks = [c for c in copy["cells"] if "".join(c["source"]).strip().startswith("grader.check(")]
    assert ["".join(c["source"]).strip() for c in checks] == [f'grader.check("{e.name}")' for e in CONVERTED[name]]
    tests = copy["metadata"]["otter"]["tests"]
    assert sorted(tests) == sorted(e.name for e in CONVERTED[name])
    assert all(not case["hidden"] for t in tests.values() for s in t["suites"] for case in s["cases"])
    assert (copies / "autograder" / name.replace(".ipynb", ".zip")).exists()


def _run(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
                   ).execute()  # raises CellExecutionError on any error (a NameError in an answer cell)
    return nb


@pytest.mark.parametrize("lesson", sorted(CONVERTED))
def test_each_student_copy_runs_top_to_bottom_with_blank_answers_and_only_the_checks_fail(copies, lesson):
    """As a student meets it: every answer left blank, Run All; no error anywhere (a NameError in an
    exercise fails here), and every check says the exercise is not answered yet."""
    nb = _run(copies / "notebooks" / lesson)
    for cell in nb.cells:
        source = cell.source.strip()
        outputs = json.dumps([dict(o) for o in cell.get("outputs", [])], ensure_ascii=False)
        assert '"output_type": "error"' not in outputs
        if source.startswith("grader.check("):
            q = re.search(r'"(q\d+)"', source).group(1)
            assert "not answered yet" in outputs and "passed" not in outputs.replace("not passed", ""), (q, outputs)
