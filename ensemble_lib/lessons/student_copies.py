"""``python -m ensemble_lib.lessons.student_copies OUTDIR`` (``make student``): the lessons' student copies.

The command lives on the lessons floor because it gathers every lesson's exercises
(:func:`ensemble_lib.lessons.exercise_sets`); the machinery (otter assign, the leak check, the
scrubbing of lessons not yet in the exercise format) is :mod:`ensemble_lib.ui.student_copies`.
"""

from __future__ import annotations

from ..ui import student_copies
from . import exercise_sets
from ..studies.store import check_argv


def main(argv: list[str] | None = None) -> None:
    """Write the student copies and the autograders of every lesson to the folder given."""
    argv = check_argv(argv)
    student_copies.main(argv, exercise_sets())


#: the student-copies command (make student)
__all__ = ["main"]


if __name__ == "__main__":
    main()
