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
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[2]

PANEL = """class Control:
    def __init__(self, value):
        self.value = value

class Panel:
    def __init__(self):
        self.controls = {"alpha": Control(0.2), "seed": Control(25)}
        self.widget = None

panel = Panel()"""


SOLUTIONS = {
    "solution-changes-panel": "panel.controls['alpha'].value = 2.0",
    "solution-restores": ("old = panel.controls['alpha'].value\n"
                          "panel.controls['alpha'].value = 2.0\n"
                          "panel.controls['alpha'].value = old"),
}


@pytest.fixture(scope="module")
def nbval_run(tmp_path_factory):
    """nbval run once over both notebooks (one pytest start-up, not two): the run, and each
    notebook's cells' results (JUnit XML)."""
    tmp_path = tmp_path_factory.mktemp("nbval")
    (tmp_path / "none.ini").write_text("[pytest]\n")
    for name, solution in SOLUTIONS.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(PANEL), nbformat.v4.new_code_cell("panel.widget"),
                    nbformat.v4.new_markdown_cell("**Exercise.** Try another α."),
                    nbformat.v4.new_code_cell(solution), nbformat.v4.new_code_cell("print('the end')")]
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_nbval_panels",
         "--nbval-lax", "--nbval-current-env", "-c", str(tmp_path / "none.ini"),
         "--junitxml", str(tmp_path / "junit.xml"), *(f"{name}.ipynb" for name in SOLUTIONS)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(ROOT / "tests"), "PATH": str(Path(sys.executable).parent)},
    )
    cells = {name: [] for name in SOLUTIONS}
    for case in ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase"):
        cells[case.get("classname").removesuffix(".ipynb")].append(case)  # one per code cell
    return proc, cells


@pytest.mark.parametrize("name", list(SOLUTIONS))
def test_nbval_run_fails_when_a_solution_leaves_a_panel_changed(nbval_run, name):
    proc, cells = nbval_run
    out = proc.stdout + proc.stderr
    assert len(cells[name]) == 4, out  # nbval ran this notebook's four code cells
    failed = [c for c in cells[name] if c.find("failure") is not None or c.find("error") is not None]
    if name == "solution-restores":
        assert not failed, out
    else:
        assert proc.returncode == 1, out
        assert len(failed) == 1, out
        text = "".join(failed[0].itertext()) + (failed[0].find("failure").get("message") or "")
        assert "leaves panel(s) changed" in text and "panel: shown" in text and "2.0" in text, text
