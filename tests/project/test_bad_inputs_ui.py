# ruff: noqa: E501 - one case per line in the table
"""Bad inputs refused by the exercises, the grading and student-copies commands and the Voilà renderer
(issue 31, item 2).

The third part of the bad-input table of tests/project/test_bad_inputs.py, in its format (one
:func:`~project.test_bad_inputs.C` per case, sharing its ``TARGETS``, which the coverage test
tests/project/test_bad_input_coverage.py reads): each call has one bad argument, and the
``ValueError``'s message must match the pattern — the argument's name and what it must be. An
answer checker's refusal is an :class:`~ensemble_lib.ui.exercises.AnswerError`, a ``ValueError``
that names the student's answer.
"""

from __future__ import annotations

import tempfile
import types
import warnings

import numpy as np
import pytest

from project.test_bad_inputs import C

from ensemble_lib.ui import grade, student_copies, voila
from ensemble_lib.ui.exercises import (Exercise, ExerciseSet, boolean, close, function, function_values, real,
                                       whole_number)


def _check(x):
    return None if x == 1 else "not 1"


def _wrong(ns):
    return {"x": 2}


def exercise(name="q1"):
    """A valid exercise: answer ``x``, right when it is 1."""
    return Exercise(name, ("x",), _check, _wrong)


def exercise_set():
    return ExerciseSet("00_lesson.ipynb", (exercise(),))


def renderer():
    """Voilà's markdown renderer over a stand-in contents manager (nothing on disk is read)."""
    cm = types.SimpleNamespace(root_dir=tempfile.gettempdir(), file_exists=lambda path: False, get=None)
    return voila.NotebookRelativeImages(contents_manager=cm)


CASES = [
    # --- an exercise and a lesson's set of them (ui/exercises.py): a bad declaration, a namespace that is
    #     not one (an unknown exercise name is a ✗ verdict the student reads, by design)
    C(lambda: Exercise("1", ("x",), _check, _wrong), r"name must be 'q1', 'q2', \.\.\., got '1'", id="ex-name", on="ui.exercises.Exercise"),
    C(lambda: Exercise("q1", "x", _check, _wrong), r"answers must be a non-empty sequence of Python names", id="ex-answers-str", on="ui.exercises.Exercise"),
    C(lambda: Exercise("q1", ("x y",), _check, _wrong), r"answers must be a non-empty sequence of Python names", id="ex-answers-name", on="ui.exercises.Exercise"),
    C(lambda: Exercise("q1", ("x",), 3, _wrong), r"check must be callable, got int", id="ex-check", on="ui.exercises.Exercise"),
    C(lambda: Exercise("q1", ("x",), _check, None), r"wrong must be callable, got NoneType", id="ex-wrong", on="ui.exercises.Exercise"),
    C(lambda: Exercise("q1", ("x",), _check, _wrong, uses_panel=3), r"uses_panel must be None or the Python name of the lesson's panel", id="ex-uses-panel", on="ui.exercises.Exercise"),
    C(lambda: exercise().run([("x", 1)]), r"namespace must be a mapping of names to values", id="ex-run-namespace", on="ui.exercises.Exercise.run"),
    C(lambda: ExerciseSet(3, (exercise(),)), r"notebook must be the lesson's file name \(a str ending in \.ipynb\)", id="exset-notebook", on="ui.exercises.ExerciseSet"),
    C(lambda: ExerciseSet("00_lesson.ipynb", (exercise("q2"),)), r"exercises must be named q1, q2, \.\.\. in order", id="exset-order", on="ui.exercises.ExerciseSet"),
    C(lambda: ExerciseSet("00_lesson.ipynb", ("q1",)), r"exercises must be a sequence of Exercise", id="exset-items", on="ui.exercises.ExerciseSet"),
    C(lambda: ExerciseSet("00_lesson.ipynb", 3), r"exercises must be a sequence of Exercise, got int", id="exset-not-seq", on="ui.exercises.ExerciseSet"),
    C(lambda: exercise_set().run("q1", None), r"namespace must be a mapping of names to values", id="exset-run-namespace", on="ui.exercises.ExerciseSet.run"),
    C(lambda: exercise_set().check("q1", ["x"]), r"namespace must be a mapping of names to values", id="exset-check-namespace", on="ui.exercises.ExerciseSet.check"),
    C(lambda: exercise_set().verdict("q1", "x = 1"), r"namespace must be a mapping of names to values", id="exset-verdict-namespace", on="ui.exercises.ExerciseSet.verdict"),
    # --- the answer checkers: each names the answer and what it must be
    C(lambda: boolean("bar_shrinks", 1), r"bar_shrinks must be True or False, got int", id="ans-boolean", on="ui.exercises.boolean"),
    C(lambda: boolean("bar_shrinks", "yes"), r"bar_shrinks must be True or False", id="ans-boolean-str", on="ui.exercises.boolean"),
    C(lambda: real("noise_sd", "0.1"), r"noise_sd must be a number, got str", id="ans-real-str", on="ui.exercises.real"),
    C(lambda: real("noise_sd", np.zeros(2)), r"noise_sd must be one number, got an array of shape \(2,\)", id="ans-real-array", on="ui.exercises.real"),
    C(lambda: real("noise_sd", np.inf), r"noise_sd must be a finite number", id="ans-real-inf", on="ui.exercises.real"),
    C(lambda: real("noise_sd", True), r"noise_sd must be a number, got bool", id="ans-real-bool", on="ui.exercises.real"),
    C(lambda: whole_number("n_params", 1.5), r"n_params must be a whole number such as 12", id="ans-whole-frac", on="ui.exercises.whole_number"),
    C(lambda: whole_number("n_params", np.nan), r"n_params must be a whole number such as 12", id="ans-whole-nan", on="ui.exercises.whole_number"),
    C(lambda: whole_number("n_params", None), r"n_params must be a whole number such as 12, got NoneType", id="ans-whole-none", on="ui.exercises.whole_number"),
    C(lambda: function("rate", 3, "rate(N)"), r"rate must be a function rate\(N\), got int", id="ans-function", on="ui.exercises.function"),
    C(lambda: function_values("rate", 3, [(2,)]), r"rate must be a function", id="ans-fvalues-f", on="ui.exercises.function_values"),
    C(lambda: function_values("rate", abs, 3), r"cases must be a sequence", id="ans-fvalues-cases", on="ui.exercises.function_values"),
    C(lambda: function_values("rate", abs, [2.0]), r"cases must be a sequence of tuples of arguments", id="ans-fvalues-case", on="ui.exercises.function_values"),
    C(lambda: function_values("rate", lambda N: "fast", [(2,)]), r"rate\(2,\) must be a number, got str", id="ans-fvalues-result", on="ui.exercises.function_values"),
    C(lambda: close("1.0", 1.0), r"a must be a finite real number", id="close-a", on="ui.exercises.close"),
    C(lambda: close(1.0, np.nan), r"b must be a finite real number", id="close-b", on="ui.exercises.close"),
    C(lambda: close(1.0, 1.0, rel=0.0), r"rel must be a finite number > 0", id="close-rel", on="ui.exercises.close"),
    # --- the grading and student-copies commands (ui/grade.py, ui/student_copies.py)
    C(lambda: grade.main("submissions --out s.csv"), r"argv must be None or a list of str", id="grade-main-argv", on="ui.grade.main"),
    C(lambda: student_copies.main("build/student"), r"argv must be None or a list of str", id="copies-main-argv", on="ui.student_copies.main"),
    C(lambda: student_copies.main([tempfile.mkdtemp(prefix="bad-input-")], exercises={"x.ipynb": ("a set", "m")}), r"exercises must be None or a dict of notebook name -> \(ExerciseSet, module name\)", id="copies-main-exercises", on="ui.student_copies.main"),
    C(lambda: student_copies.is_solution(None), r"cell must be a notebook cell \(a dict", id="copies-is-solution", on="ui.student_copies.is_solution"),
    C(lambda: student_copies.is_solution("solution"), r"cell must be a notebook cell \(a dict", id="copies-is-solution-str", on="ui.student_copies.is_solution"),
    # --- Voilà's markdown renderer (ui/voila.py)
    C(lambda: voila.NotebookRelativeImages(None), r"contents_manager must be a Jupyter contents manager", id="voila-renderer-cm", on="ui.voila.NotebookRelativeImages"),
    C(lambda: renderer().image(3, "a.png"), r"text must be a str and title None or a str", id="voila-image-text", on="ui.voila.NotebookRelativeImages.image"),
    C(lambda: renderer().image("alt", "a.png", title=5), r"text must be a str and title None or a str", id="voila-image-title", on="ui.voila.NotebookRelativeImages.image"),
    C(lambda: renderer().image("alt", 3), r"url must be a str", id="voila-image-url", on="ui.voila.NotebookRelativeImages.image"),
]


@pytest.mark.parametrize("call, pattern", CASES)
def test_a_bad_input_is_refused_with_a_value_error_naming_the_argument(call, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=pattern):
            call()


def test_good_inputs_still_work():
    """The cases' starting objects are valid: only the bad argument is refused."""
    ex = exercise_set()
    assert ex.run("q1", {"x": 1}).passed and not ex.run("q1", {"x": 2}).passed
    assert not ex.run("q9", {}).passed  # an unknown exercise: a verdict, not an exception
    assert function_values("rate", abs, [(-2.0,), (3,)]) == [2.0, 3.0]
    assert close(1.0, 1.0 + 1e-9) and not close(1.0, 1.1)
    assert student_copies.is_solution({"metadata": {"tags": ["solution"]}})
    assert renderer().image("alt", "a.png") == '<img src="a.png" alt="alt" />'
