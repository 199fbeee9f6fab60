"""Exercise solutions never leave a lesson's panels changed (Run All shows each panel as the text describes).

Each lesson notebook is run top to bottom (nbclient) with two cells added: one right after every
cell that displays a panel (``name.widget`` as its last line), which records that panel's control
values, and one at the end, which compares them with the values after everything (exercise
solutions included) has run.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
SHOWN = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\.widget\s*$")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_leave_every_panel_as_it_was_shown(path):
    nb = nbformat.read(path, as_version=4)
    cells, names = [], []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        m = SHOWN.match(cell.source.strip().splitlines()[-1])
        if m:
            name = m.group(1)
            names.append(name)
            cells.append(nbformat.v4.new_code_cell(
                f"_shown_{name} = {{k: c.value for k, c in {name}.controls.items()}}"))
    if not names:
        pytest.skip(f"{path.name} displays no panel")
    checks = "\n".join(
        f"_now = {{k: c.value for k, c in {n}.controls.items()}}\n"
        f"assert _now == _shown_{n}, ('{n} was left changed', _shown_{n}, _now)" for n in names)
    cells.append(nbformat.v4.new_code_cell(checks))
    nb.cells = cells
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
