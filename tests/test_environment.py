"""The project's set-up files agree with each other and with the README's promises."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(req: str) -> str:
    return re.split(r"[<>=!~ \[;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_names() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    proj = data["project"]
    names = {_name(r) for r in proj["dependencies"]}
    for extra in proj["optional-dependencies"].values():
        names |= {_name(r) for r in extra}
    return names


def environment_names() -> set[str]:
    names = set()
    in_deps = False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^  - [A-Za-z]", line):
            names.add(_name(line[4:]))
    return names - {"python", "pip", "pip:"}


def test_environment_yml_declares_the_same_packages_as_pyproject():
    assert environment_names() == pyproject_names()


def test_environment_yml_installs_the_package_itself():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"- pip:\s*\n\s+- -e \.", text)


def test_readme_quick_start_is_two_make_commands_that_exist():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [ln.strip() for ln in block.splitlines()[1:] if ln.strip() and not ln.strip().startswith("#")]
    assert commands == ["make lab", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab", "test", "figures", "app", "bench"):
        assert re.search(rf"^{target}:", makefile, re.M), target


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_every_figure_writer_is_registered_and_importable():
    import importlib

    from ensemble_lib.ui.figures import WRITERS

    for name in WRITERS:
        assert callable(importlib.import_module(name).write_figures)
