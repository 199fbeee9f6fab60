"""Every exercise answers back: its check passes on the reference solution and fails on the blank
answer and on the exercise's plausible wrong answer; bad answers get a clear message. How long each
check takes is recorded (test-artifacts/exercise-check-times.json), not asserted: `make bench`
reports it against the issue's 1-second target.

Parametrised over every exercise of every lesson in the exercise format (its lesson module declares
``EXERCISES``), so a lesson joins by being converted. A lesson with exercise solutions that is not
converted must be listed in NOT_YET_CONVERTED (reported on every run); the list may only shrink.
"""

from __future__ import annotations

import datetime as _dt
import json
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from ensemble_lib.lessons import exercise_sets
from ensemble_lib.ui import student_copies as sc
from ensemble_lib.ui.exercises import ANSWER_TAG, CHECK_TAG, Exercise, ExerciseSet

matplotlib.use("Agg")
ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"
#: lessons with exercises still in the old format (solutions only, no checks): shrink it as they convert
NOT_YET_CONVERTED: set[str] = set()  # every lesson is in the exercise format
CONVERTED = {name: ex for name, (ex, _) in exercise_sets().items()}
CASES = [(name, ex.name) for name, exs in sorted(CONVERTED.items()) for ex in exs]
#: where each check's time goes (read by benchmarks/run.py; git-ignored)
CHECK_TIMES = ROOT / "test-artifacts" / "exercise-check-times.json"
_TIMES: dict[str, dict[str, float]] = {}


@pytest.fixture(scope="module", autouse=True)
def _record_check_times():
    """Write the checks' times measured by this module's run (atomically; a partial run writes what it measured)."""
    yield
    if _TIMES:
        CHECK_TIMES.parent.mkdir(exist_ok=True)
        tmp = CHECK_TIMES.with_suffix(".tmp")
        tmp.write_text(json.dumps({"date": _dt.datetime.now().isoformat(timespec="seconds"), "checks": _TIMES},
                                  indent=1))
        tmp.replace(CHECK_TIMES)


def _src(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _lesson(name: str) -> dict:
    return json.loads((NB / name).read_text(encoding="utf-8"))


_NAMESPACES: dict[str, tuple[dict, dict]] = {}


def _namespaces(name: str) -> tuple[dict, dict]:
    """The lesson run top to bottom without its solutions and checks (the student's namespace after
    answering nothing), and each exercise's solution source, by exercise name."""
    if name not in _NAMESPACES:
        nb, exercises = _lesson(name), CONVERTED[name]
        ns: dict = {"__name__": "__lesson__"}
        for cell in nb["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if cell["cell_type"] == "code" and sc.SOLUTION_TAG not in tags and CHECK_TAG not in tags:
                exec(compile(_src(cell), name, "exec"), ns)
        spans = sc.exercise_cells(nb, exercises)
        solutions = {ex.name: _src(nb["cells"][s]) for ex, (_, _, _, s) in zip(exercises, spans)}
        import matplotlib.pyplot as plt
        plt.close("all")
        _NAMESPACES[name] = ns, solutions
    return _NAMESPACES[name]


def test_every_lesson_with_exercises_is_converted_or_listed():
    with_solutions = {p.name for p in NB.glob("*.ipynb") if any(sc.is_solution(c) for c in _lesson(p.name)["cells"])}
    assert set(CONVERTED) <= with_solutions
    missing = with_solutions - set(CONVERTED) - NOT_YET_CONVERTED
    assert not missing, f"exercises without checks (convert them, ensemble_lib.ui.exercises): {sorted(missing)}"
    stale = NOT_YET_CONVERTED & set(CONVERTED)
    assert not stale, f"converted, so remove from NOT_YET_CONVERTED: {sorted(stale)}"
    assert NOT_YET_CONVERTED <= with_solutions
    if NOT_YET_CONVERTED:
        warnings.warn(f"lessons whose exercises do not answer back yet: {sorted(NOT_YET_CONVERTED)}", stacklevel=1)


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_every_exercise_of_a_converted_lesson_has_a_check_a_hint_and_one_solution(name):
    nb, exercises = _lesson(name), CONVERTED[name]
    spans = sc.exercise_cells(nb, exercises)  # prompt with a Hint, answer, check("qN"), solution
    solutions = [i for i, c in enumerate(nb["cells"]) if sc.is_solution(c)]
    assert solutions == [s for *_, s in spans], "a solution cell without an exercise's answer and check"
    assert sum(ANSWER_TAG in c.get("metadata", {}).get("tags", []) for c in nb["cells"]) == len(exercises)
    assert any(ex.uses_panel for ex in exercises), "every lesson's exercises include one that uses its panel"
    for ex in exercises:
        assert ex.uses_panel is None or f"{ex.uses_panel}.widget" in "".join(_src(c) for c in nb["cells"])


@pytest.mark.parametrize("name,q", CASES)
def test_check_fails_blank_passes_the_solution_and_fails_the_plausible_wrong_answer(name, q):
    ns, solutions = _namespaces(name)
    ex: Exercise = CONVERTED[name][q]
    blank = ex.run(ns)
    assert not blank.passed and "not answered yet" in blank.message
    answered = dict(ns)
    exec(compile(solutions[q], f"{name} solution {q}", "exec"), answered)
    right = ex.run(answered)
    assert right.passed, right.message
    wrong = ex.run({**answered, **ex.wrong(answered)})
    assert not wrong.passed and "Hint:" in wrong.message, wrong.message
    _TIMES[f"{name} {q}"] = {"right_s": right.seconds, "wrong_s": wrong.seconds}


@pytest.mark.parametrize("name,q", CASES)
def test_an_answer_of_the_wrong_type_or_shape_gets_a_message_naming_it(name, q):
    ns, solutions = _namespaces(name)
    ex = CONVERTED[name][q]
    answered = dict(ns)
    exec(compile(solutions[q], f"{name} solution {q}", "exec"), answered)
    for answer in ex.answers:
        for bad in ("forty", np.zeros(3), None):
            v = ex.run({**answered, answer: bad})
            assert not v.passed and answer in v.message and "Traceback" not in v.message, (answer, bad, v.message)


def test_check_in_the_notebook_prints_the_verdict_and_refuses_an_unknown_exercise(capsys):
    exercises = next(iter(CONVERTED.values()))
    exercises.check("q1", {})
    assert capsys.readouterr().out.startswith("✗ Exercise 1: not answered yet")
    exercises.check("q99", {})
    assert "there is no exercise 'q99'" in capsys.readouterr().out
    exercises.verdict("q1", {})
    assert "not answered yet" in capsys.readouterr().out


def test_a_bad_declaration_is_refused():
    ok = dict(answers=("x",), check=lambda x: None, wrong=lambda ns: {"x": 1})
    with pytest.raises(ValueError, match="name must be"):
        Exercise("1", **ok)
    with pytest.raises(ValueError, match="answers must be"):
        Exercise("q1", **{**ok, "answers": "x"})
    with pytest.raises(ValueError, match="q1, q2"):
        ExerciseSet("x.ipynb", (Exercise("q2", **ok),))
    with pytest.raises(ValueError, match="check cell"):
        lesson = _lesson("02_mackay_gaussian_mean_sigma.ipynb")
        lesson["cells"] = [c for c in lesson["cells"] if CHECK_TAG not in c.get("metadata", {}).get("tags", [])]
        sc.exercise_cells(lesson, CONVERTED["02_mackay_gaussian_mean_sigma.ipynb"])
