"""The lessons-floor command ``python -m ensemble_lib.lessons.student_copies``: it gathers every lesson's
exercise sets (``ensemble_lib.lessons.exercise_sets``). (What the copies hold: tests/ui/test_student_copies.py.)
"""

import importlib
import json
from pathlib import Path

from ensemble_lib.lessons import LESSONS, exercise_sets
from ensemble_lib.lessons import student_copies
from ensemble_lib.ui.exercises import ExerciseSet

ROOT = Path(__file__).resolve().parents[2]


def _declaring_modules() -> dict:
    """Each lesson module of LESSONS that declares EXERCISES, by its dotted name (found here independently)."""
    out = {}
    for lesson in LESSONS:
        if lesson.module:
            module = importlib.import_module(f"ensemble_lib.lessons.{lesson.module}")
            if getattr(module, "EXERCISES", None) is not None:
                out[module.__name__] = module.EXERCISES
    return out


def test_every_lesson_module_that_declares_exercises_appears_with_its_dotted_name():
    declared = _declaring_modules()
    assert declared, "no lesson declares EXERCISES"
    found = exercise_sets()
    assert {name for _, name in found.values()} == set(declared)
    for notebook, (exercises, name) in found.items():
        assert isinstance(exercises, ExerciseSet) and exercises is declared[name]
        assert notebook == exercises.notebook and (ROOT / "notebooks" / notebook).is_file()


def test_the_command_passes_every_exercise_set_to_the_ui_machinery(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(student_copies.student_copies, "main", lambda argv, ex: seen.append((argv, ex)))
    student_copies.main([str(tmp_path)])
    assert len(seen) == 1 and seen[0][0] == [str(tmp_path)]
    assert json.dumps(sorted(seen[0][1])) == json.dumps(sorted(exercise_sets()))
