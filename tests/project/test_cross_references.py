"""Every dotted name the code and the docs point at resolves to something that exists.

A reorganisation leaves stale names behind: a docstring that says "see
``ensemble_lib.kl_fit.kl_fit``" after the function moved to ``ensemble_lib.inference.kl_fit``.
This test collects

* every absolute ``ensemble_lib.…`` dotted name in the package's sources (docstrings and comments),
  in ``docs/*.md``, the README, and the notebooks' cells, and
* every relative Sphinx cross-reference (``:mod:`.gaussian```, ``:func:`~.kl_fit.kl_fit```) in
  the package's sources, resolved as Sphinx does (the current module, then its package, then
  the parent packages),

and imports each one. A name that does not resolve fails, with the file it is written in.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "ensemble_lib"
ABSOLUTE = re.compile(r"\bensemble_lib(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
RELATIVE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`~?(\.[A-Za-z_][A-Za-z0-9_.]*)`")


def resolve(dotted: str):
    """Import the longest module prefix of ``dotted`` and look up the rest as attributes."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for name in parts[k:]:
            obj = getattr(obj, name)  # AttributeError: a stale name
        return obj
    raise ModuleNotFoundError(dotted)


def _resolves(dotted: str) -> bool:
    try:
        resolve(dotted)
        return True
    except (ImportError, AttributeError):
        return False


def _module_name(path: Path) -> str:
    parts = ("ensemble_lib",) + path.relative_to(PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _texts():
    """(where, text) for every file whose dotted names are checked."""
    for path in sorted(PKG.rglob("*.py")):
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells)


def absolute_references() -> list[tuple[str, str]]:
    out = set()
    for path, text in _texts():
        for match in ABSOLUTE.finditer(text):
            out.add((str(path.relative_to(ROOT)), match.group(0)))
    return sorted(out)


def relative_references() -> list[tuple[str, str, list[str]]]:
    """(file, reference, the absolute names it may mean, nearest scope first)."""
    out = []
    for path in sorted(PKG.rglob("*.py")):
        module = _module_name(path)
        scopes = module.split(".")
        if path.name != "__init__.py":
            pass  # the module itself is the first scope
        candidates_base = [".".join(scopes[:k]) for k in range(len(scopes), 0, -1)]
        for match in RELATIVE.finditer(path.read_text(encoding="utf-8")):
            ref = match.group(1)
            out.append((str(path.relative_to(ROOT)), ref, [b + ref for b in candidates_base]))
    return sorted(set((f, r, tuple(c)) for f, r, c in out))


def test_there_are_references_to_check():
    assert len(absolute_references()) > 100 and len(relative_references()) > 20


@pytest.mark.parametrize("where, dotted", absolute_references(), ids=lambda v: str(v)[-60:])
def test_absolute_dotted_name_resolves(where, dotted):
    assert _resolves(dotted), f"{where} names {dotted}, which does not exist"


@pytest.mark.parametrize("where, ref, candidates", relative_references(), ids=lambda v: str(v)[-50:])
def test_relative_cross_reference_resolves(where, ref, candidates):
    assert any(_resolves(c) for c in candidates), f"{where}: {ref} resolves to none of {list(candidates)}"


def test_a_stale_name_is_caught():
    assert not _resolves("ensemble_lib.kl_fit.kl_fit")
    assert _resolves("ensemble_lib.inference.kl_fit.kl_fit")
