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


def _clocks_read(lesson) -> set[str]:
    """The clocks (``time.perf_counter`` ...) the lesson's notebook or its module under ensemble_lib.lessons reads."""
    code = ["".join(c["source"]) for c in _cells(lesson.notebook) if c["cell_type"] == "code"]
    module = NOTEBOOKS.parent / "ensemble_lib" / "lessons" / lesson.module.replace(".", "/")
    files = sorted(module.rglob("*.py")) if module.is_dir() else [module.with_suffix(".py")]
    code += [f.read_text(encoding="utf-8") for f in files if f.exists()]
    return {m for src in code
            for m in re.findall(r"\b(perf_counter|process_time|thread_time|monotonic|time)(?:_ns)?\(", src)}


def test_the_app_runs_each_lesson_ahead_in_a_kernel_of_its_own():
    sentence(NB, "the app runs the lessons ahead, each in a kernel of its own")
    # voila.json turns on Voilà's preheated kernel pool, one kernel per lesson (`make app` and the
    # browser suite read it; tests/browser/test_voila.py checks that every page comes from the pool)
    config = json.loads((NOTEBOOKS.parent / "voila.json").read_text(encoding="utf-8"))
    assert config["VoilaConfiguration"].get("preheat_kernel") is True, config
    assert config["VoilaConfiguration"].get("default_pool_size", 1) >= 1, config
    assert not config.get("VoilaKernelManager", {}).get("preheat_denylist"), "every lesson is pooled"
    # "Lessons 5 and 9 time their own computations in CPU time": the lessons that read a clock are
    # exactly those two, and the clock they read is the thread's CPU time (time.thread_time), which the
    # lessons run beside them in the pool's warm-up change far less than the clock on the wall
    # (benchmarks/results/voila-pool-cpu-time-2026-11-28.md)
    sentence(NB, "Lessons 5 and 9 time their own computations in CPU time")
    timed = {lesson.notebook: _clocks_read(lesson) for lesson in LESSONS if _clocks_read(lesson)}
    assert sorted(int(name[:2]) for name in timed) == [5, 9], timed
    assert all(clocks == {"thread_time"} for clocks in timed.values()), timed
    # Voilà executes a notebook for its pool: the stored outputs are not what it serves. A lesson whose
    # panel opens on computed state therefore computes it in the kernel (the panel's update() call).
    for lesson in LESSONS:
        code = "\n".join("".join(c["source"]) for c in _cells(lesson.notebook) if c["cell_type"] == "code")
        for panel in lesson.panels:
            assert f"{panel}(" in code, (lesson.notebook, panel)
