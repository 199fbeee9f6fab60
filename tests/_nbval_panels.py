"""A pytest plugin (loaded by the root conftest.py): exercise solutions never leave a panel changed.

nbval already runs every lesson top to bottom in one kernel. This plugin adds a check to that
same run (no second execution of the notebook): right after each cell that displays a panel
(``name.widget`` as its last line) it records, in the kernel, that panel's control values; after
the notebook's last code cell it compares them with the values at the end, when every cell —
the exercise solutions included — has run. A difference fails that last cell's test: Run All
would show the student a panel in another state than the one the text describes.

It talks to the kernel nbval started (``RunningKernel.execute_cell_input``, ``await_reply``,
``await_idle``): the extra code runs silently between cells, and nbval ignores kernel
messages that answer another request, so the cells' compared outputs are untouched.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

SHOWN = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\.widget\s*$")
TIMEOUT_S = 120


def _shown_panel(cell) -> str | None:
    lines = cell.source.strip().splitlines()
    m = SHOWN.match(lines[-1]) if lines else None
    return m.group(1) if m else None


def _run(item, code: str) -> None:
    kernel = item.parent.kernel
    msg_id = kernel.execute_cell_input(code, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=TIMEOUT_S)
    kernel.await_idle(msg_id, TIMEOUT_S)


def _last_code_cell(nb) -> int:
    return max(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    cell, parent = getattr(item, "cell", None), getattr(item, "parent", None)
    if cell is None or getattr(parent, "kernel", None) is None or not hasattr(parent, "nb"):
        return result  # not an nbval cell
    shown = parent.__dict__.setdefault("_panels_shown", [])
    name = _shown_panel(cell)
    if name:
        shown.append(name)
        _run(item, f"_nbval_shown_{name} = {{k: c.value for k, c in {name}.controls.items()}}")
    if shown and parent.nb.cells.index(cell) == _last_code_cell(parent.nb):
        names = json.dumps(sorted(set(shown)))
        _run(item, "import json as _nbval_json\n"
                   f"_nbval_changed = {{n: (globals()['_nbval_shown_' + n], "
                   f"{{k: c.value for k, c in globals()[n].controls.items()}}) for n in {names}}}\n"
                   "_nbval_changed = {n: v for n, v in _nbval_changed.items() if v[0] != v[1]}\n"
                   "_nbval_report = _nbval_json.dumps({n: [repr(v[0]), repr(v[1])] "
                   "for n, v in _nbval_changed.items()})")
        report = _kernel_value(item, "_nbval_report")
        changed = json.loads(report)
        assert not changed, (
            f"{item.fspath.basename}: Run All leaves panel(s) changed after they were shown "
            f"(an exercise solution must work on its own copies): "
            + "; ".join(f"{n}: shown {a}, now {b}" for n, (a, b) in changed.items()))
    return result


def _kernel_value(item, name: str) -> str:
    """The string value of ``name`` in the kernel, read from the execute_result of ``name``."""
    kernel = item.parent.kernel
    msg_id = kernel.execute_cell_input(name, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=TIMEOUT_S)
    while True:
        msg = kernel.get_message(stream="iopub", timeout=TIMEOUT_S)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            text = msg["content"]["data"]["text/plain"]
            kernel.await_idle(msg_id, TIMEOUT_S)
            return ast.literal_eval(text)  # the repr of a str
        if msg["msg_type"] == "error":
            raise AssertionError(f"the panel check failed in the kernel: {msg['content']['ename']}: "
                                 f"{msg['content']['evalue']}")
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            raise AssertionError(f"the panel check printed no value for {name}")
