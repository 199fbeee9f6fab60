"""The figures command (``python -m ensemble_lib.lessons.figures``, ``make figures``): its writer list.

Each lesson's own figures are compared with the committed files in that lesson's test module; here,
that the command's list holds every lesson that has figures, and how ``--only`` and ``--outdir`` pick
the writers and the folder (with stand-in writers, so nothing is drawn).
"""

import importlib
import pkgutil
from pathlib import Path

import pytest

import ensemble_lib.lessons
from ensemble_lib.lessons import figures


def _lessons_with_figures() -> set[str]:
    """Every lesson module (or sub-package) of ensemble_lib.lessons that defines ``write_figures``."""
    found = set()
    for info in pkgutil.iter_modules(ensemble_lib.lessons.__path__):
        module = importlib.import_module(f"ensemble_lib.lessons.{info.name}")
        if info.name != "figures" and callable(getattr(module, "write_figures", None)):
            found.add(module.__name__)
    return found


def test_every_figure_writer_is_registered_and_importable():
    from ensemble_lib.lessons.figures import WRITERS

    assert WRITERS and all(callable(write) and write.__name__ == "write_figures" for write in WRITERS)
    assert all(write.__module__.startswith("ensemble_lib.lessons.") for write in WRITERS)


def test_the_writer_list_holds_every_lesson_that_has_figures_once():
    lessons = _lessons_with_figures()
    assert "ensemble_lib.lessons.toy_posterior" in lessons and len(lessons) >= 6
    registered = [w.__module__.split(".")[2] for w in figures.WRITERS]  # a sub-package's writer counts
    assert len(registered) == len(set(registered))
    assert {f"ensemble_lib.lessons.{name}" for name in registered} == lessons


@pytest.fixture
def stand_ins(monkeypatch):
    """Three writers that record the folder they were given and write one empty file each."""
    calls = []

    def make(module):
        def write_figures(outdir):
            calls.append((module, Path(outdir)))
            path = Path(outdir) / f"{module.rsplit('.', 1)[1]}.png"
            path.write_bytes(b"")
            return [path]
        write_figures.__module__ = module
        return write_figures

    names = ["ensemble_lib.lessons.toy_posterior", "ensemble_lib.lessons.bound",
             "ensemble_lib.lessons.model_choice.figures"]
    monkeypatch.setattr(figures, "WRITERS", [make(m) for m in names])
    return calls


def test_write_all_runs_every_writer_in_order_into_a_folder_it_makes(stand_ins, tmp_path):
    out = tmp_path / "new" / "figures"
    written = figures.write_all(out)
    assert [p.name for p in written] == ["toy_posterior.png", "bound.png", "figures.png"]
    assert all(p.parent == out and p.exists() for p in written)
    # each writer draws into a scratch folder inside outdir (then only changed files replace the
    # stored ones, each by one rename), which is gone afterwards
    assert all(folder.parent == out for _, folder in stand_ins)
    assert [p.name for p in out.iterdir()] and all(not p.name.startswith(".") for p in out.iterdir())


def test_only_picks_the_writers_whose_module_name_contains_a_given_substring(stand_ins, tmp_path):
    assert [p.name for p in figures.write_all(tmp_path, only=["model_choice", "toy"])] == [
        "toy_posterior.png", "figures.png"]
    assert figures.write_all(tmp_path, only=["no such lesson"]) == []


def test_the_command_passes_its_options_and_prints_nothing(stand_ins, tmp_path, capsys):
    figures.main(["--outdir", str(tmp_path), "--only", "bound"])
    assert [(m.rsplit(".", 1)[1], folder.parent) for m, folder in stand_ins] == [("bound", tmp_path)]
    assert capsys.readouterr() == ("", "")
