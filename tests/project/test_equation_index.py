"""The equation index (docs/equations.md): every listed name exists and its docstring cites the equation.

The index maps each equation of the papers (in the short forms "B&B (n)", "MacKay (n)",
"MacKay-E (n)") to the functions that implement it. This test reads the table, imports every
name, and checks that the name's own docstring contains the citation exactly as the index writes
it — so the index cannot point at a moved or renamed function, and a docstring cannot cite an
equation without naming its paper.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

INDEX = Path(__file__).resolve().parents[2] / "docs" / "equations.md"
CITATION = re.compile(r"^(B&B|MacKay|MacKay-E) (\(\d+\)(–\(\d+\))?|§\d+(\.\d+)*)$")


def _entries() -> list[tuple[str, str]]:
    """(citation, "module:qualname") for every target in the index's equation table."""
    out = []
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not CITATION.match(cells[0]):
            continue
        out += [(cells[0], t) for t in re.findall(r"`([^`]+)`", cells[2])]
    return out


def _resolve(target: str):
    module, _, qualname = target.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj.fget if isinstance(obj, property) else obj


def test_index_lists_every_paper_and_enough_equations():
    entries = _entries()
    papers = {c.split(" ")[0] for c, _ in entries}
    assert papers == {"B&B", "MacKay", "MacKay-E"}
    assert len(entries) >= 30


@pytest.mark.parametrize(("citation", "target"), _entries(), ids=lambda v: str(v))
def test_listed_name_exists_and_its_docstring_cites_the_equation(citation, target):
    obj = _resolve(target)
    doc = inspect.getdoc(obj) or ""
    assert citation in doc, f"{target}'s docstring does not cite {citation!r}"


def test_docstrings_never_cite_a_bare_equation_number():
    """"eq. (20)" alone is ambiguous (B&B's and MacKay's both have one): name the paper."""
    root = Path(__file__).resolve().parents[2] / "ensemble_lib"
    bare = re.compile(r"(?<![\w&-] )\beqs?\.? ?\(?\d")
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if bare.search(line) and not re.search(r"(B&B|MacKay|Barber|Hinton)", line):
                offenders.append(f"{path.relative_to(root.parent)}:{i}: {line.strip()}")
    assert not offenders, "citations without their paper:\n" + "\n".join(offenders)
