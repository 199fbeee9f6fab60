"""Exercises that answer back: one check per exercise, the same in the lesson and in otter-grader.

The design (issue 29), and why
------------------------------
* **The source is the stored lesson in** ``notebooks/``: executed, nbval-checked and served by
  Voilà, with today's shape. So a student who opens ``make lab`` never meets otter's raw delimiter
  cells or its test code. An exercise there is four cells:

  1. its prompt (Markdown) ending in a folded **Hint** (``<details>``), before any solution;
  2. an **answer cell** tagged ``answer``: the names the student assigns, each ``= ...`` (blank);
  3. a **check cell** tagged ``check``: ``check("q1")`` prints ✓ or ✗ with the hint;
  4. the **solution cell** tagged ``solution`` (collapsed, saved unexecuted, folded by
     :func:`ensemble_lib.ui.solution.solution`), which assigns the same names.

* **A check is library code**, declared by the lesson's module (``EXERCISES``, an
  :class:`ExerciseSet` of :class:`Exercise`): a function of the answers that returns ``None``
  when right or a hint that does not give the answer away. Answers of the wrong type or shape
  get a message naming the answer and what it must be (:class:`AnswerError`), never a traceback.
  Each exercise also declares a **plausible wrong answer** (:attr:`Exercise.wrong`), which the
  tests use to prove the check can fail.

* **otter-grader** makes the student copies and the autograder from the same lesson
  (:mod:`ensemble_lib.ui.student_copies` writes otter's source notebook from the lesson and runs
  ``otter assign``): its public test calls :meth:`ExerciseSet.verdict` (silent when right, the hint
  when wrong, with the hint again as otter's ``failure_message``) so ``grader.check("q1")`` in a
  student copy says what ``check("q1")`` says in the lesson; its hidden test runs the same check
  again for grading, from the autograder zip, so editing the student copy's public test changes
  no score. :mod:`ensemble_lib.ui.grade` scores a folder of submissions into a CSV.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..core import validation as check

#: cell tags of an exercise's cells in a lesson
ANSWER_TAG, CHECK_TAG = "answer", "check"
#: what a blank answer holds (the answer cell assigns ``name = ...``)
BLANK = Ellipsis


class AnswerError(ValueError):
    """An answer of the wrong type or shape: the message names the answer and what it must be."""


@dataclass(frozen=True)
class Verdict:
    """The result of one check: ``passed`` and the message the student reads."""

    name: str
    passed: bool
    message: str
    seconds: float = 0.0

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Exercise:
    """One exercise of a lesson.

    Parameters
    ----------
    name : str
        otter's question name, ``"q1"``, ``"q2"``, … in the lesson's order.
    answers : sequence of str
        The names the student assigns in the answer cell (each blank is ``...``).
    check : callable
        ``check(**answers)`` returns ``None`` when the answers are right, else a hint (str) that
        does not give the answer away. It may raise :class:`AnswerError` for an answer of the wrong
        type or shape (use :func:`whole_number`, :func:`real`, :func:`boolean`, :func:`function`).
    wrong : callable
        ``wrong(namespace)`` returns a plausible wrong answer (a dict of the answers) built in the
        lesson's namespace: the mistake a student is likely to make. The tests check that it fails.
    uses_panel : str or None
        The name of the lesson's panel if the check reads its state.
    """

    name: str
    answers: tuple[str, ...]
    check: Callable[..., str | None]
    wrong: Callable[[Mapping], dict]
    uses_panel: str | None = None

    def __post_init__(self):
        if not (isinstance(self.name, str) and self.name.startswith("q") and self.name[1:].isdigit()):
            raise ValueError(f"name must be 'q1', 'q2', ..., got {self.name!r}")
        if isinstance(self.answers, str) or not self.answers or not all(
                isinstance(a, str) and a.isidentifier() for a in self.answers):
            raise ValueError(f"answers must be a non-empty sequence of Python names, got {self.answers!r}")
        object.__setattr__(self, "answers", tuple(self.answers))
        for name in ("check", "wrong"):
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} must be callable, got {_kind(getattr(self, name))}")
        if self.uses_panel is not None and not (isinstance(self.uses_panel, str) and self.uses_panel.isidentifier()):
            raise ValueError(f"uses_panel must be None or the Python name of the lesson's panel, "
                             f"got {self.uses_panel!r}")

    @property
    def number(self) -> int:
        return int(self.name[1:])

    def run(self, namespace: Mapping) -> Verdict:
        """Check the answers found in ``namespace``; never raises for any answer."""
        namespace = _namespace(namespace)
        t0 = time.perf_counter()
        title = f"Exercise {self.number}"
        blank = [a for a in self.answers if namespace.get(a, BLANK) is BLANK]
        if blank:
            names = ", ".join(blank)
            return Verdict(self.name, False, f"✗ {title}: not answered yet: assign {names} in the answer "
                           f"cell (replace the ...), run it, then run this check again.",
                           time.perf_counter() - t0)
        try:
            hint = self.check(**{a: namespace[a] for a in self.answers})
        except AnswerError as err:
            hint, passed = f"✗ {title}: {err}", False
        except Exception as err:  # a student's function that raises: say so, no traceback
            hint, passed = (f"✗ {title}: checking your answer raised {type(err).__name__}: {err}. "
                            f"Run your answer cell again and check the names and types it asks for."), False
        else:
            passed = hint is None
            hint = f"✓ {title}: right." if passed else f"✗ {title}: not yet. Hint: {hint}"
        return Verdict(self.name, passed, hint, time.perf_counter() - t0)


@dataclass(frozen=True)
class ExerciseSet:
    """A lesson's exercises, by name, and the notebook that holds them."""

    notebook: str
    exercises: tuple[Exercise, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if not (isinstance(self.notebook, str) and self.notebook.endswith(".ipynb")):
            raise ValueError(f"notebook must be the lesson's file name (a str ending in .ipynb), got {self.notebook!r}")
        if isinstance(self.exercises, (str, bytes, Mapping)) or not hasattr(self.exercises, "__iter__"):
            raise ValueError(f"exercises must be a sequence of Exercise, got {_kind(self.exercises)}")
        object.__setattr__(self, "exercises", tuple(self.exercises))
        if not all(isinstance(e, Exercise) for e in self.exercises):
            raise ValueError(f"exercises must be a sequence of Exercise, got {[_kind(e) for e in self.exercises]}")
        names = [e.name for e in self.exercises]
        if names != [f"q{i}" for i in range(1, len(names) + 1)]:
            raise ValueError(f"exercises must be named q1, q2, ... in order, got {names}")

    def __getitem__(self, name: str) -> Exercise:
        for e in self.exercises:
            if e.name == name:
                return e
        raise KeyError(f"no exercise {name!r} in {self.notebook} (it has {', '.join(self.names)})")

    def __iter__(self):
        return iter(self.exercises)

    def __len__(self):
        return len(self.exercises)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.exercises]

    def run(self, name: str, namespace: Mapping) -> Verdict:
        """Exercise ``name``'s verdict on the answers in ``namespace`` (an unknown ``name`` is a ✗ verdict
        saying which exist: what a student who types ``check("q9")`` reads)."""
        namespace = _namespace(namespace)
        if not isinstance(name, str) or name not in self.names:
            return Verdict(str(name), False, f"✗ there is no exercise {name!r} here: "
                           f"use one of {', '.join(map(repr, self.names))}.")
        return self[name].run(namespace)

    def check(self, name: str, namespace: Mapping | None = None) -> None:
        """The lesson's ``check("q1")``: prints ✓, or ✗ with a hint, for the answers in the notebook.

        ``namespace`` defaults to the notebook's (IPython's user namespace).
        """
        if namespace is None:
            from IPython import get_ipython  # only in a notebook

            shell = get_ipython()
            namespace = shell.user_ns if shell is not None else {}
        namespace = _namespace(namespace)
        print(self.run(name, namespace).message)

    def verdict(self, name: str, namespace: Mapping) -> None:
        """otter's test: prints nothing when right (the doctest expects no output), else the message."""
        v = self.run(name, namespace)
        if not v.passed:
            print(v.message)


# -- answer types: each returns the value normalised or raises AnswerError naming the answer -----

def _kind(value) -> str:
    return type(value).__name__


def _namespace(namespace) -> Mapping:
    """``namespace`` if it is a mapping of names to values (the notebook's, or ``globals()``)."""
    if not isinstance(namespace, Mapping):
        raise ValueError(f"namespace must be a mapping of names to values (the notebook's namespace), "
                         f"got {_kind(namespace)}")
    return namespace


def whole_number(name: str, value) -> int:
    """``value`` as an int (a float that is a whole number is accepted)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise AnswerError(f"{name} must be a whole number such as 12, got {_kind(value)} {value!r:.40}")
    if not math.isfinite(value) or value != int(value):
        raise AnswerError(f"{name} must be a whole number such as 12, got {value!r}")
    return int(value)


def real(name: str, value) -> float:
    """``value`` as a finite float (numpy scalars and 0-d arrays accepted)."""
    shape = getattr(value, "shape", None)
    if shape not in (None, ()):
        raise AnswerError(f"{name} must be one number, got an array of shape {shape}")
    if isinstance(value, bool) or not isinstance(value, numbers.Real) and shape != ():
        raise AnswerError(f"{name} must be a number, got {_kind(value)} {value!r:.40}")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise AnswerError(f"{name} must be a number, got {_kind(value)} {value!r:.40}") from None
    if not math.isfinite(value):
        raise AnswerError(f"{name} must be a finite number, got {value!r}")
    return value


def boolean(name: str, value) -> bool:
    """``value`` as True or False (numpy booleans accepted)."""
    if type(value).__name__ not in ("bool", "bool_"):
        raise AnswerError(f"{name} must be True or False, got {_kind(value)} {value!r:.40}")
    return bool(value)


def function(name: str, value, signature: str) -> Callable:
    """``value`` if callable, else an AnswerError showing the expected ``signature``."""
    if not callable(value):
        raise AnswerError(f"{name} must be a function {signature}, got {_kind(value)} {value!r:.40}")
    return value


def close(a: float, b: float, rel: float = 1e-6) -> bool:
    """``a`` and ``b`` (finite numbers) agree to ``rel`` > 0 (relative), with an absolute floor of ``rel``."""
    a, b, rel = check.real("a", a), check.real("b", b), check.positive("rel", rel)
    return abs(a - b) <= rel * max(1.0, abs(b))


def function_values(name: str, f: Callable, cases: Sequence[tuple]) -> list[float]:
    """``f(*case)`` for every case (a tuple of arguments), each checked to be one number (AnswerError otherwise)."""
    f = function(name, f, "taking the cases' arguments")
    cases = check.sequence("cases", cases)
    if not all(isinstance(case, tuple) for case in cases):
        raise ValueError(f"cases must be a sequence of tuples of arguments, got {[_kind(c) for c in cases][:4]}")
    return [real(f"{name}{case}", f(*case)) for case in cases]


__all__ = ["ANSWER_TAG", "CHECK_TAG", "BLANK", "AnswerError", "Verdict", "Exercise", "ExerciseSet",
           "whole_number", "real", "boolean", "function", "close", "function_values"]
