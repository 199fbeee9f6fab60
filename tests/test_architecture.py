"""The package's shape: what ``import ensemble_lib`` loads, and which layer may import which.

* ``import ensemble_lib`` loads the maths only (models/ and inference/): never ipywidgets,
  matplotlib or IPython, so the library is usable in a plain script or a worker process;
* models/ and inference/ never import lessons/, ui/ or studies/, and models/ never import
  inference/ (the Gaussian toolkit they share is core/, below both);
* lessons never import each other (what two lessons share lives in the library);
* ``ensemble_lib.__all__`` lists exactly the public names the package exports.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "ensemble_lib"


def _imports(path: Path) -> set[str]:
    """Absolute dotted names of the ensemble_lib modules a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = ("ensemble_lib",) + path.relative_to(PKG).with_suffix("").parts
    package = parts[:-1] if path.name != "__init__.py" else parts[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ((node.module,) if node.module else ()))
            else:
                mod = node.module or ""
            if mod.startswith("ensemble_lib"):
                out.add(mod)
                out |= {f"{mod}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("ensemble_lib")}
    return out


def test_import_ensemble_lib_loads_the_maths_only():
    # nor the heavy optional parts: scipy.stats (0.4 s), scikit-learn, joblib, jax
    code = ("import sys, ensemble_lib; bad = [m for m in ('ipywidgets', 'matplotlib', 'IPython', "
            "'scipy.stats', 'sklearn', 'joblib', 'jax') if m in sys.modules]; print(bad); "
            "sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, f"import ensemble_lib loaded {proc.stdout.strip()} {proc.stderr[-500:]}"


@pytest.mark.parametrize("layer", ["models", "inference"])
def test_maths_layers_never_import_the_interface(layer):
    for path in sorted((PKG / layer).glob("*.py")):
        bad = {m for m in _imports(path)
               if m.split(".")[1:2] and m.split(".")[1] in {"lessons", "ui", "studies"}}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_models_import_only_the_gaussian_toolkit_of_inference():
    """A model may use Gaussians and quadrature (inference.gaussian), never a fitting method."""
    for path in sorted((PKG / "models").glob("*.py")):
        bad = {m for m in _imports(path) if m.startswith("ensemble_lib.inference")
               and not m.startswith("ensemble_lib.core.gaussian")}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_lessons_never_import_each_other():
    not_lessons = {"__init__.py", "figures.py"}  # the panel registry; `make figures`, which calls every lesson
    lessons = {p.stem for p in (PKG / "lessons").glob("*.py") if p.name not in not_lessons}
    for path in sorted((PKG / "lessons").glob("*.py")):
        if path.name in not_lessons:
            continue
        others = {f"ensemble_lib.lessons.{name}" for name in lessons - {path.stem}}
        bad = _imports(path) & others
        assert not bad, f"lesson {path.stem} imports {sorted(bad)}"


def test_all_lists_every_public_name_and_only_those():
    import ensemble_lib

    exported = set(ensemble_lib.__all__)
    assert len(exported) == len(ensemble_lib.__all__), "duplicates in __all__"
    for name in exported:
        assert hasattr(ensemble_lib, name), name
    public = {n for n, v in vars(ensemble_lib).items()
              if not n.startswith("_") and not isinstance(v, type(ensemble_lib))}
    assert public == exported, f"public but not in __all__: {sorted(public - exported)}"
