"""The package's shape: floors that read upward, what ``import ensemble_lib`` loads, and names.

The sub-packages are floors, each built only on the ones below it::

    core → models → inference → studies → ui → lessons

* ``core`` — Gaussian algebra, argument checks, the progress-callback shape;
* ``models`` — the exact posteriors; ``inference`` — the approximations;
* ``studies`` — what is run on real data and stored (they compute and store; they never draw);
* ``ui`` — the panel machine, plot helpers, progress widgets, exercise and student-copy tools;
* ``lessons`` — one module per notebook: it stages the library's results and draws them.

Rules checked here, each for every pair of floors:

* no module imports a floor above its own (so no import loop can pass through two floors);
* no import loop at all, counting imports inside functions;
* no private (underscore) name is imported across sub-packages, nor by a notebook;
* imports sit at the top of modules, except heavy optional dependencies loaded on first use,
  which say so in a comment;
* ``import ensemble_lib`` loads the maths only (never ipywidgets, matplotlib or IPython);
* lessons never import each other; ``ensemble_lib.__all__`` lists exactly the package's public names.
"""

from __future__ import annotations

import ast
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "ensemble_lib"
FLOORS = ("core", "models", "inference", "studies", "ui", "lessons")

#: what may be imported inside a function: heavy or optional dependencies that a plain
#: ``import ensemble_lib`` (or a lesson) must not pay for; such an import carries a comment
LAZY = ("jax", "jaxlib", "numpyro", "arviz", "sklearn", "scipy.stats", "IPython", "voila", "otter", "distributed",
        "dask", "playwright", "matplotlib.testing")


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def _dotted(path: Path) -> str:
    parts = ("ensemble_lib",) + path.relative_to(PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _floor(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FLOORS else None


def _import_nodes(path: Path):
    """(node, absolute module, imported names, at module top?) for every ensemble_lib import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _dotted(path).split(".") if path.name == "__init__.py" else _dotted(path).split(".")[:-1]
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield node, mod, [a.name for a in node.names], id(node) in top
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name, [], id(node) in top


def _internal_imports(path: Path) -> set[str]:
    """The ensemble_lib modules (and module.name) a file imports, anywhere in it."""
    out = set()
    for _, mod, names, _ in _import_nodes(path):
        if mod.startswith("ensemble_lib"):
            out.add(mod)
            out |= {f"{mod}.{n}" for n in names}
    return out


def floor_violations(paths=None) -> list[str]:
    """``module imports target`` for every import from a lower floor to a higher one."""
    bad = []
    for path in paths or _modules():
        me = _dotted(path)
        mine = _floor(me)
        if mine is None:
            continue  # the package's __init__: the facade over models and inference
        for target in _internal_imports(path):
            theirs = _floor(target)
            if theirs is not None and FLOORS.index(theirs) > FLOORS.index(mine):
                bad.append(f"{me} ({mine}) imports {target} ({theirs})")
    return sorted(set(bad))


@pytest.mark.parametrize("lower, higher", [(a, b) for a, b in itertools.combinations(FLOORS, 2)],
                         ids=lambda f: f)
def test_a_floor_never_imports_a_floor_above_it(lower, higher):
    paths = [p for p in _modules() if _floor(_dotted(p)) == lower]
    assert paths, f"no modules on floor {lower}"
    bad = [v for v in floor_violations(paths) if v.endswith(f"({higher})")]
    assert not bad, "\n".join(bad)


def test_the_floor_rule_catches_an_injected_back_import(tmp_path):
    """The rule above is not vacuous: a study that imports a lesson is reported."""
    fake = PKG / "studies" / "table1.py"
    src = fake.read_text(encoding="utf-8") + "\nfrom ..lessons import networks  # injected\n"
    copy = tmp_path / "table1.py"
    copy.write_text(src, encoding="utf-8")
    original = PKG / "studies" / "table1.py"
    # read the copy as if it stood where the original does
    tree_path = original
    real_read = Path.read_text
    try:
        Path.read_text = lambda self, *a, **k: (real_read(copy, *a, **k) if self == tree_path
                                                else real_read(self, *a, **k))
        found = floor_violations([original])
    finally:
        Path.read_text = real_read
    assert any("imports ensemble_lib.lessons" in v for v in found), found


def _graph() -> dict[str, set[str]]:
    names = {_dotted(p): p for p in _modules()}
    graph = {}
    for name, path in names.items():
        deps = set()
        for target in _internal_imports(path):
            # the longest prefix that is a module of ours
            parts = target.split(".")
            for k in range(len(parts), 0, -1):
                cand = ".".join(parts[:k])
                if cand in names:
                    if cand != name:
                        deps.add(cand)
                    break
        graph[name] = deps
    return graph


def test_no_import_loop_counting_imports_inside_functions():
    graph = _graph()
    # Tarjan's strongly connected components
    index, low, on, stack, loops, counter = {}, {}, set(), [], [], itertools.count()

    def visit(v):
        index[v] = low[v] = next(counter)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            # a package __init__ that re-exports its own modules is not a loop
            real = [c for c in comp if not any(c != o and o.startswith(c + ".") for o in comp)]
            if len(real) > 1:
                loops.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    assert not loops, f"import loops: {loops}"


def test_no_private_name_is_imported_across_sub_packages():
    bad = []
    for path in _modules():
        me = _dotted(path)
        for _, mod, names, _ in _import_nodes(path):
            if not mod.startswith("ensemble_lib") or _floor(mod) == _floor(me) and _floor(me):
                continue
            private = [n for n in names if n.startswith("_")]
            private += [p for p in mod.split(".") if p.startswith("_") and p != "__init__"]
            if private:
                bad.append(f"{me} imports {private} from {mod}")
    assert not bad, "\n".join(bad)


def test_notebooks_import_no_private_name():
    bad = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "".join(cell["source"])
            try:
                tree = ast.parse("\n".join(line for line in src.splitlines()
                                           if not line.lstrip().startswith(("%", "!"))))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ensemble_lib"):
                    private = [a.name for a in node.names if a.name.startswith("_")]
                    private += [p for p in node.module.split(".") if p.startswith("_")]
                    if private:
                        bad.append(f"{nb.name}: {private} from {node.module}")
    assert not bad, "\n".join(bad)


def test_imports_sit_at_the_top_of_modules():
    """Inside a function only a heavy optional dependency, with a comment that says so."""
    bad = []
    for path in _modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node, mod, names, at_top in _import_nodes(path):
            if at_top or isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            if _is_type_checking(path, node):
                continue
            full = [mod] + [f"{mod}.{n}" for n in names]
            if any(f == m or f.startswith(m + ".") for f in full for m in LAZY):
                near = "".join(lines[max(0, node.lineno - 4): node.lineno])  # the line or just above it
                if "#" in near:
                    continue
                bad.append(f"{_dotted(path)}:{node.lineno}: lazy import of {mod} without a comment")
                continue
            bad.append(f"{_dotted(path)}:{node.lineno}: import of {mod} inside a function")
    assert not bad, "\n".join(bad)


def _is_type_checking(path: Path, node) -> bool:
    return False


def test_import_ensemble_lib_loads_the_maths_only():
    # nor the heavy optional parts: scipy.stats (0.4 s), scikit-learn, joblib, jax
    code = ("import sys, ensemble_lib; bad = [m for m in ('ipywidgets', 'matplotlib', 'IPython', "
            "'scipy.stats', 'sklearn', 'joblib', 'jax') if m in sys.modules]; print(bad); "
            "sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, f"import ensemble_lib loaded {proc.stdout.strip()} {proc.stderr[-500:]}"


#: modules of lessons/ that are not lessons: the package, the registry, the two commands over every lesson
NOT_LESSONS = {"__init__", "learning_path", "figures", "student_copies", "store_lessons"}


def _lesson_of(path: Path) -> str:
    """The lesson a file under lessons/ belongs to: its module's stem, or its package's name."""
    rel = path.relative_to(PKG / "lessons").parts
    return rel[0] if len(rel) > 1 else path.stem


def test_lessons_never_import_each_other():
    lessons = {_lesson_of(p) for p in (PKG / "lessons").rglob("*.py")} - NOT_LESSONS
    for path in sorted((PKG / "lessons").rglob("*.py")):
        if path.parent == PKG / "lessons" and path.stem in NOT_LESSONS:
            continue  # the package, the registry (LESSONS) and `make figures`, which calls every lesson
        others = {f"ensemble_lib.lessons.{name}" for name in lessons - {_lesson_of(path)}}
        bad = {m for m in _internal_imports(path) if any(m == o or m.startswith(o + ".") for o in others)}
        assert not bad, f"lesson {_lesson_of(path)} ({path.name}) imports {sorted(bad)}"


_LESSON_NAMES = sorted({_lesson_of(p) for p in (PKG / "lessons").rglob("*.py")} - NOT_LESSONS)


@pytest.mark.parametrize("lesson", _LESSON_NAMES)
def test_importing_a_lesson_imports_no_other_lesson(lesson):
    """The panel registry resolves lazily: ``import ensemble_lib.lessons.<lesson>`` loads that lesson,
    the package and the registry (``learning_path``, no lesson code), nothing else of lessons/."""
    code = (f"import sys, ensemble_lib.lessons.{lesson}; "
            f"own = ('ensemble_lib.lessons.learning_path', 'ensemble_lib.lessons.{lesson}'); "
            "bad = sorted(m for m in sys.modules if m.startswith('ensemble_lib.lessons.') "
            "and not any(m == o or m.startswith(o + '.') for o in own)); print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, (f"import ensemble_lib.lessons.{lesson} loaded {proc.stdout.strip()} "
                                  f"{proc.stderr[-500:]}")


def test_all_lists_every_public_name_and_only_those():
    import ensemble_lib

    exported = set(ensemble_lib.__all__)
    assert len(exported) == len(ensemble_lib.__all__), "duplicates in __all__"
    for name in exported:
        assert hasattr(ensemble_lib, name), name
    public = {n for n, v in vars(ensemble_lib).items()
              if not n.startswith("_") and not isinstance(v, type(ensemble_lib))}
    assert public == exported, f"public but not in __all__: {sorted(public - exported)}"
