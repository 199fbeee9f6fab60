"""The lowest versions the project declares are the versions it is tested with.

``pyproject.toml`` gives every direct dependency (and every extra's) a floor, ``name>=X``, and
``environment.yml`` repeats them. ``make test-lowest`` installs the lowest versions those floors
allow (uv's ``--resolution lowest-direct``) and runs the library and notebook tests there with
``ENSEMBLE_TEST_LOWEST=1``. Under it, each direct dependency must be installed at exactly its
floor: a floor the resolver cannot use (another package needs a newer version) would otherwise
sit in ``pyproject.toml`` untested. The other tests run everywhere.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOWEST = os.environ.get("ENSEMBLE_TEST_LOWEST") == "1"


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pyproject_floors() -> dict[str, Version]:
    """Each direct dependency (the core and every extra) and the version after its ``>=``."""
    proj = _project()
    reqs = list(proj["dependencies"])
    for extra in proj["optional-dependencies"].values():
        reqs += extra
    floors = {}
    for text in reqs:
        req = Requirement(text)
        lows = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"{text!r}: every dependency declares one floor (>=)"
        floors[req.name.lower().replace("_", "-")] = lows[0]
    return floors


def environment_floors() -> dict[str, Version]:
    """The conda list's ``name>=X`` lines (python, pip and the ``-e .`` line aside)."""
    floors = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.match(r"^  - ([A-Za-z0-9_.-]+)>=([0-9][0-9A-Za-z.]*)\s*$", line)
        if m:
            floors[m.group(1).lower().replace("_", "-")] = Version(m.group(2))
    return floors


def python_floor() -> Version:
    spec = _project()["requires-python"]
    assert spec.startswith(">="), spec
    return Version(spec[2:])


def test_environment_yml_declares_the_same_floors_as_pyproject():
    assert environment_floors() == pyproject_floors()
    text = (ROOT / "environment.yml").read_text()
    assert re.search(rf"^  - python={re.escape(str(python_floor()))}\s*$", text, re.M), \
        "environment.yml's python is requires-python's floor"


def test_this_python_meets_requires_python():
    assert Version("{}.{}".format(*sys.version_info[:2])) >= python_floor()


@pytest.mark.skipif(not LOWEST, reason="only under `make test-lowest` (ENSEMBLE_TEST_LOWEST=1)")
def test_every_direct_dependency_is_installed_at_its_declared_floor():
    """``make test-lowest`` really tests the floors: no resolver had to lift one."""
    off = {name: f"declared >={floor}, installed {version(name)}"
           for name, floor in pyproject_floors().items() if Version(version(name)) != floor}
    assert not off, f"floors not used (raise them to what is installed, or find what lifts them): {off}"
    assert Version("{}.{}".format(*sys.version_info[:2])) == python_floor(), \
        f"make test-lowest should run on Python {python_floor()}, the requires-python floor"
