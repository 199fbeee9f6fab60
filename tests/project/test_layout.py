"""The tests are laid out like the package: one folder per floor, one naming scheme, a test module
for every library module.

* ``tests/<floor>/test_<module>.py`` (and ``test_<module>_<aspect>.py`` where one module has
  several) for every module of ``ensemble_lib/<floor>/``; a sub-package (lesson 6's
  ``model_choice/``) counts as one module;
* ``tests/notebooks/`` — what is checked on the stored lessons themselves (claimed sentences,
  where each panel opens, solutions that leave panels alone); ``tests/project/`` — the shape of
  the whole (floors, cross-references, set-up files, the bad-input table, committed figures);
  ``tests/browser/`` — the real-browser suite;
* helpers the tests share sit at ``tests/`` itself, named with a leading underscore.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG, TESTS = ROOT / "ensemble_lib", ROOT / "tests"
FLOORS = ("core", "models", "inference", "studies", "ui", "lessons")
OTHER_FOLDERS = {"notebooks", "project", "browser"}


def modules(floor: str) -> set[str]:
    out = set()
    for p in (PKG / floor).iterdir():
        if p.suffix == ".py" and p.name != "__init__.py":
            out.add(p.stem)
        elif p.is_dir() and (p / "__init__.py").exists():
            out.add(p.name)
    return out


def _named_after(test: str, module: str) -> bool:
    return test == f"test_{module}" or test.startswith(f"test_{module}_")


@pytest.mark.parametrize("floor", FLOORS)
def test_every_library_module_has_a_test_module(floor):
    tests = [p.stem for p in (TESTS / floor).glob("test_*.py")]
    missing = sorted(m for m in modules(floor) if not any(_named_after(t, m) for t in tests))
    assert not missing, f"ensemble_lib/{floor}/ modules without tests/{floor}/test_<module>.py: {missing}"


@pytest.mark.parametrize("floor", FLOORS)
def test_every_test_module_is_named_after_a_module_of_its_floor(floor):
    odd = sorted(p.name for p in (TESTS / floor).glob("test_*.py")
                 if not any(_named_after(p.stem, m) for m in modules(floor)))
    assert not odd, f"tests/{floor}/ files not named after a module of ensemble_lib/{floor}/: {odd}"


def test_no_test_module_outside_the_folders():
    assert not sorted(p.name for p in TESTS.glob("test_*.py")), "test modules belong in a floor's folder"
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(FLOORS) | OTHER_FOLDERS, folders


def test_the_layout_rule_catches_a_misplaced_module(tmp_path):
    assert not _named_after("test_gaussians", "gaussian")
    assert _named_after("test_gaussian_factor", "gaussian") and _named_after("test_gaussian", "gaussian")
