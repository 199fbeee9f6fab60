"""The learning path is complete: every lesson is in the index notebook, the README and notebooks/."""

import json
import re
from pathlib import Path

from ensemble_lib.lessons.learning_path import LESSONS

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"


def test_every_lesson_notebook_is_listed_and_every_listed_lesson_exists():
    on_disk = {p.name for p in NB.glob("[0-9][0-9]_*.ipynb")} - {"00_learning_path.ipynb"}
    listed = {lesson.notebook for lesson in LESSONS}
    assert on_disk == listed
    numbers = [lesson.notebook[:2] for lesson in LESSONS]
    assert numbers == sorted(numbers), "lessons are listed in order"


def test_every_lesson_has_its_main_figure():
    for lesson in LESSONS:
        assert (ROOT / "figures" / lesson.figure).is_file(), lesson.figure


def test_index_notebook_and_readme_link_every_lesson_and_its_figure():
    index = json.loads((NB / "00_learning_path.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in index["cells"] if c["cell_type"] == "markdown")
    readme = (ROOT / "README.md").read_text()
    for lesson in LESSONS:
        assert f"]({lesson.notebook})" in text
        assert f"../figures/{lesson.figure}" in text
        assert re.search(rf"\(notebooks/{re.escape(lesson.notebook)}\)", readme), lesson.notebook
        assert f"figures/{lesson.figure}" in readme, lesson.figure


def test_every_lesson_ends_with_exercises_whose_solutions_are_hidden():
    for lesson in LESSONS:
        nb = json.loads((NB / lesson.notebook).read_text())
        md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        assert "Exercise" in md and "Summary" in md and "References" in md, lesson.notebook
        solutions = [c for c in nb["cells"] if "solution" in c.get("metadata", {}).get("tags", [])]
        assert 3 <= len(solutions), lesson.notebook
        for number, c in enumerate(solutions, start=1):
            hidden = c["metadata"].get("jupyter", {})
            assert hidden.get("source_hidden") is True and hidden.get("outputs_hidden") is True, lesson.notebook
            # no stored answer under the exercise: the student sees it only by running the cell
            assert c["outputs"] == [] and c["execution_count"] is None, lesson.notebook
            # JupyterLab shows a collapsed cell's first line: it names the exercise and gives nothing away
            first, second, *body = "".join(c["source"]).split("\n")
            assert first == f'# Solution to exercise {number} (run it, then click "Solution {number}" below it)', (
                lesson.notebook, first)
            # JupyterLab expands the output when the cell runs (Run All too): the answer prints folded
            # (ensemble_lib.ui.solution; the browser suite checks it stays folded after Run All)
            assert second == f'with solution("Solution {number}"):', (lesson.notebook, second)
            assert body and all(not line.strip() or line.startswith("    ") for line in body), lesson.notebook


def test_nbval_markers_are_cell_tags_not_comments_a_student_sees():
    """Cells whose printed numbers nbval compares carry the ``nbval-check-output`` tag.

    A ``# NBVAL_…`` comment would do the same for nbval but shows in the student's code; every
    notebook keeps at least one checked cell (lesson 4 keeps its ten: §8's table is the tenth).
    """
    for path in sorted(NB.glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        visible = [i for i, c in enumerate(code) if re.search(r"#\s*NBVAL_", "".join(c["source"]))]
        assert not visible, f"{path.name}: nbval marker comments in code cells {visible}"
        checked = [c for c in code if "nbval-check-output" in c.get("metadata", {}).get("tags", [])]
        assert checked, f"{path.name}: no cell has the nbval-check-output tag"
        assert all(c["outputs"] for c in checked), f"{path.name}: a checked cell has no stored output"
    lesson4 = json.loads((NB / "04_ensemble_learning_for_networks.ipynb").read_text())
    assert sum("nbval-check-output" in c.get("metadata", {}).get("tags", [])
               for c in lesson4["cells"]) == 10


def test_every_lesson_record_names_its_module_and_the_panels_it_defines():
    """The registry of lesson code is LESSONS itself: every record names a lesson module (or package)
    that exists, and each panel it lists is a FigurePanel subclass defined in that lesson."""
    import importlib

    from ensemble_lib.lessons import panel_class
    from ensemble_lib.ui.panel import FigurePanel

    lessons_dir = ROOT / "ensemble_lib" / "lessons"
    modules = [lesson.module for lesson in LESSONS]
    assert len(set(modules)) == len(modules) and all(modules), modules
    on_disk = {p.stem for p in lessons_dir.glob("*.py")} | {p.parent.name for p in lessons_dir.glob("*/__init__.py")}
    # not lessons: the package, the registry and the two commands that gather every lesson
    commands = {"__init__", "learning_path", "figures", "student_copies", "store_lessons"}
    assert set(modules) == on_disk - commands, "a lesson module without a record, or vice versa"
    for lesson in LESSONS:
        mod = importlib.import_module(f"ensemble_lib.lessons.{lesson.module}")
        for name in lesson.panels:
            cls = panel_class(name)
            assert issubclass(cls, FigurePanel) and cls.__name__ == name
            assert cls.__module__.startswith(mod.__name__), (name, cls.__module__)

def test_the_learning_path_describes_each_main_figure_in_its_alt_text():
    """The thumbnails' alt text says what the figure shows (not "main figure of lesson 01")."""
    index = json.loads((NB / "00_learning_path.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in index["cells"] if c["cell_type"] == "markdown")
    for lesson in LESSONS:
        assert len(lesson.alt.split()) >= 8 and "main figure" not in lesson.alt, lesson.notebook
        assert f"![{lesson.alt}](../figures/{lesson.figure})" in text, lesson.notebook
