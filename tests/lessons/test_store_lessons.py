"""``python -m ensemble_lib.lessons.store_lessons``: lessons stored executed, solutions unexecuted."""

from __future__ import annotations

import json

import nbformat
import pytest

from ensemble_lib.lessons import store_lessons


def _lesson(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 6 * 7\nprint(x)"),
                nbformat.v4.new_code_cell("answer = 41  # the solution", metadata={"tags": ["solution"]}),
                nbformat.v4.new_code_cell("print(x + 1)")]
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)
    return path


def test_every_cell_runs_and_solutions_are_saved_unexecuted(tmp_path):
    path = store_lessons.store(_lesson(tmp_path))
    cells = json.loads(path.read_text())["cells"]
    assert [c["execution_count"] for c in cells] == [1, None, 3]  # the solution ran (count 2), then was cleared
    text = ["".join(c["outputs"][0]["text"]) for c in (cells[0], cells[2])]
    assert text == ["42\n", "43\n"]
    assert cells[1]["outputs"] == []
    assert not list(tmp_path.glob(".lesson.*"))  # no temporary file left


def test_a_failing_lesson_leaves_the_stored_one_as_it_was(tmp_path):
    path = _lesson(tmp_path)
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    nbformat.write(nb, path)
    before = path.read_bytes()
    with pytest.raises(Exception):
        store_lessons.store(path)
    assert path.read_bytes() == before


def test_a_path_that_is_not_a_notebook_is_refused(tmp_path):
    with pytest.raises(ValueError, match="path must be an existing .ipynb file"):
        store_lessons.store(tmp_path / "missing.ipynb")


def test_no_run_times_are_stored(tmp_path):
    path = store_lessons.store(_lesson(tmp_path))
    assert all("execution" not in c["metadata"] for c in json.loads(path.read_text())["cells"])


def test_a_cells_written_alt_text_survives_storing(tmp_path):
    """The book's alt text lives in the cell's metadata ("alt"): storing a lesson again keeps it."""
    path = _lesson(tmp_path)
    nb = nbformat.read(path, as_version=4)
    nb.cells[2].metadata["alt"] = "what the figure of this cell shows, in words"
    nbformat.write(nb, path)
    cells = json.loads(store_lessons.store(path).read_text())["cells"]
    assert cells[2]["metadata"]["alt"] == "what the figure of this cell shows, in words"
