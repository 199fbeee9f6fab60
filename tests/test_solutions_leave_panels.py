"""Exercise solutions never leave a lesson's panels changed: the check itself can fail.

The check runs inside nbval's run of every lesson (the plugin ``tests/_nbval_panels.py``, loaded
by the root ``conftest.py``): it records each panel's control values where the panel is shown
and compares them after the last cell. Here it is run by nbval on two small notebooks: one whose
"solution" changes a shown panel (it must fail, naming the panel) and one whose solution restores
it (it must pass).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

PANEL = """class Control:
    def __init__(self, value):
        self.value = value

class Panel:
    def __init__(self):
        self.controls = {"alpha": Control(0.2), "seed": Control(25)}
        self.widget = None

panel = Panel()"""


def _run_nbval(tmp_path, solution: str) -> subprocess.CompletedProcess:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(PANEL), nbformat.v4.new_code_cell("panel.widget"),
                nbformat.v4.new_markdown_cell("**Exercise.** Try another α."),
                nbformat.v4.new_code_cell(solution), nbformat.v4.new_code_cell("print('the end')")]
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_nbval_panels",
         "--nbval-lax", "--nbval-current-env", "-c", str(tmp_path / "none.ini"), str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(ROOT / "tests"), "PATH": str(Path(sys.executable).parent)},
    )


@pytest.mark.parametrize("restores", [False, True], ids=["solution-changes-panel", "solution-restores"])
def test_nbval_run_fails_when_a_solution_leaves_a_panel_changed(tmp_path, restores):
    (tmp_path / "none.ini").write_text("[pytest]\n")
    solution = "panel.controls['alpha'].value = 2.0"
    if restores:
        solution = ("old = panel.controls['alpha'].value\n" + solution
                    + "\npanel.controls['alpha'].value = old")
    proc = _run_nbval(tmp_path, solution)
    out = proc.stdout + proc.stderr
    if restores:
        assert proc.returncode == 0, out
    else:
        assert proc.returncode == 1, out
        assert "leaves panel(s) changed" in out and "panel: shown" in out and "2.0" in out, out
