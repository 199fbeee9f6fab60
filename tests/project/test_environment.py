"""The project's set-up files agree with each other and with the README's promises."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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


def _browser_support():
    """tests/browser/_support.py, loaded without making tests/browser a package."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_browser_support", ROOT / "tests" / "browser" / "_support.py")
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    return support


def test_make_test_lints_then_runs_the_parallel_suite_and_the_browser_suite():
    """ruff first; xdist keeps a notebook's cells in one kernel (loadfile); the browser suite in a run of its own."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    ruff = recipe.index("ruff check")
    parallel = recipe.index('-m "not browser" -n $(TEST_JOBS) --dist loadfile')
    browser = recipe.index("pytest tests/browser")
    assert ruff < min(parallel, browser)
    assert "-n" not in recipe[browser:].split("\n", 1)[0]
    # both runs give their processes (and the browser suite's kernels) one BLAS thread
    for start in (parallel, browser):
        assert "OPENBLAS_NUM_THREADS=1" in recipe[max(0, start - 160):start]
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert {"F", "E9"} <= set(data["tool"]["ruff"]["lint"]["select"])
    assert {"pytest-xdist", "ruff"} <= {_name(r) for r in data["project"]["optional-dependencies"]["test"]}


def test_what_make_test_writes_is_git_ignored():
    """The browser suite's artifacts and latency report and the make-test time are not tracked files.

    ``make bench`` publishes the latency report to benchmarks/results/; ``make test`` never writes
    there (``.ci/run`` also checks that ``make test`` leaves the work tree as it found it).
    """
    import shutil
    import subprocess

    import pytest

    from benchmarks import run as bench

    support = _browser_support()
    written = [support.ARTIFACTS / "screenshot.png", support.LATENCY_JSON, support.LATENCY_MD,
               bench.MAKE_TEST_TIME, *bench.BROWSER_LATENCY]
    for path in written:
        assert (ROOT / "benchmarks" / "results") not in path.parents, path
    makefile = (ROOT / "Makefile").read_text()
    assert "$(ARTIFACTS)/make-test-time.json" in makefile and "ARTIFACTS := test-artifacts" in makefile
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot ask git which files it ignores")
    rel = [str(p.relative_to(ROOT)) for p in written]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *rel], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert sorted(ignored) == sorted(rel)


def test_the_browser_suite_serves_voila_as_make_app_does():
    """`make app` and the browser suite read the same voila.json: solutions removed, a renderer that imports.

    Both serve notebooks/ (Voilà's start page lists only the lessons).
    """
    import importlib
    import json

    support = _browser_support()
    makefile = (ROOT / "Makefile").read_text()
    assert support.VOILA_CONFIG == ROOT / "voila.json"
    assert "--Voila.config_file_paths='$(CURDIR)'" in makefile and "'$(CURDIR)/notebooks'" in makefile
    assert "--Voila.auto_token=True" in makefile
    config = json.loads(support.VOILA_CONFIG.read_text())
    # an app has no code to edit: exercise solutions, answer cells and their checks are left out
    assert sorted(config["TagRemovePreprocessor"]["remove_cell_tags"]) == ["answer", "check", "solution"]
    renderer = config["VoilaExporter"]["markdown_renderer_class"]
    module, name = renderer.rsplit(".", 1)
    assert isinstance(getattr(importlib.import_module(module), name), type)
