"""What a lesson's text says a panel shows when it opens, for the tests to compare with the panel.

Each interactive panel is introduced by a paragraph starting with ``**Where it opens.**`` — in a
markdown cell, or written from the numbers by a code cell just before (its Markdown output) — that
states the numbers the panel's readout shows after Run All (every decimal
number in that paragraph, written as the readout prints it). ``tests/notebooks/test_start_state.py`` checks
that every displayed panel has such a paragraph right before it; the real-browser suite
(``tests/browser/test_jupyterlab.py``) reads each readout after Run All and compares.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MARK = "**Where it opens.**"
NUMBER = re.compile(r"[-−]?\d+\.\d+")


def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def stated_starts(nb_path: Path) -> list[dict]:
    """One entry per ``Where it opens`` paragraph, in notebook order: ``cell`` (the markdown
    cell's index), ``text`` (the paragraph) and ``numbers`` (its decimal numbers, − as -)."""
    cells = json.loads(Path(nb_path).read_text(encoding="utf-8"))["cells"]
    out = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            text = _source(cell)
        else:  # a paragraph the lesson writes from the numbers when it runs (Markdown output)
            text = "\n\n".join("".join(o.get("data", {}).get("text/markdown", ""))
                               for o in cell.get("outputs", []))
        for para in re.split(r"\n\s*\n", text):
            if para.lstrip().startswith(MARK):
                numbers = [n.replace("−", "-") for n in NUMBER.findall(para)]
                out.append({"cell": i, "text": para.strip(), "numbers": numbers})
    return out


def missing_numbers(numbers: list[str], readout: str) -> list[str]:
    """The stated numbers the readout text does not show, each as a whole number with its sign
    (``0.4`` is not found in ``0.4876`` or in ``-0.4``)."""
    text = readout.replace("−", "-")
    return [n for n in numbers
            if not re.search(r"(?<![\d.\-])" + re.escape(n) + r"(?![\d])", text)]
