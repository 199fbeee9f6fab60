"""The learning path's sentences about the lessons, each found word for word and checked against the
lessons themselves (tests/_claims.py)."""

import json
import re

from _claims import NOTEBOOKS, sentence

from ensemble_lib.lessons.learning_path import LESSONS

NB = "00_learning_path.ipynb"


def _cells(name):
    return json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]


#: lessons still without their learning goals (issue 29, item 5, is adding them): may only shrink
AWAITING_GOALS: set[str] = set()


def test_each_lesson_starts_with_its_learning_goals():
    sentence(NB, "each one starts with its learning goals")
    for lesson in LESSONS:
        first = "".join(_cells(lesson.notebook)[0]["source"])
        if lesson.notebook in AWAITING_GOALS:
            assert "Learning goals" not in first, f"{lesson.notebook} has its goals: remove it from AWAITING_GOALS"
            continue
        assert "Learning goals" in first, lesson.notebook
        goals = re.findall(r"^\s*(\d)\.\s", first.split("Learning goals", 1)[1], flags=re.M)
        assert len(goals) >= 2 and goals == [str(i) for i in range(1, len(goals) + 1)], (lesson.notebook, goals)


def _reads_a_clock(lesson) -> bool:
    """Whether the lesson's notebook or its module under ensemble_lib.lessons times something."""
    code = ["".join(c["source"]) for c in _cells(lesson.notebook) if c["cell_type"] == "code"]
    module = NOTEBOOKS.parent / "ensemble_lib" / "lessons" / lesson.module.replace(".", "/")
    files = sorted(module.rglob("*.py")) if module.is_dir() else [module.with_suffix(".py")]
    code += [f.read_text(encoding="utf-8") for f in files if f.exists()]
    return any(re.search(r"\b(perf_counter|process_time|thread_time|monotonic)\(", src) for src in code)


def test_the_app_runs_each_lesson_ahead_in_a_kernel_of_its_own():
    sentence(NB, "the app runs the lessons ahead, each in a kernel of its own")
    # voila.json turns on Voilà's preheated kernel pool, one kernel per lesson (`make app` and the
    # browser suite read it; tests/browser/test_voila.py checks that every page comes from the pool)
    config = json.loads((NOTEBOOKS.parent / "voila.json").read_text(encoding="utf-8"))
    assert config["VoilaConfiguration"].get("preheat_kernel") is True, config
    assert config["VoilaConfiguration"].get("default_pool_size", 1) >= 1, config
    # "Lessons 5 and 9 are the exception: they time their own computations, so the app runs them only
    # when you open them": the pool's denylist is exactly the lessons whose notebook or module reads a clock
    sentence(NB, "Lessons 5 and 9 are the exception:\n"
                 "  they time their own computations, so the app runs them only when you open them")
    left_out = set(config["VoilaKernelManager"]["preheat_denylist"])
    assert left_out == {lesson.notebook for lesson in LESSONS if _reads_a_clock(lesson)}, left_out
    assert sorted(int(name[:2]) for name in left_out) == [5, 9], left_out
    # Voilà executes a notebook for its pool: the stored outputs are not what it serves. A lesson whose
    # panel opens on computed state therefore computes it in the kernel (the panel's update() call).
    for lesson in LESSONS:
        code = "\n".join("".join(c["source"]) for c in _cells(lesson.notebook) if c["cell_type"] == "code")
        for panel in lesson.panels:
            assert f"{panel}(" in code, (lesson.notebook, panel)
