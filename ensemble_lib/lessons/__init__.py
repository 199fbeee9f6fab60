"""The lessons: one module (or package) per notebook, each with its panels and figures.

==========================  ======================================================
module                      notebook
==========================  ======================================================
:mod:`.learning_path`       ``00_learning_path`` (the list of lessons, :data:`LESSONS`)
:mod:`.toy_posterior`       ``01_toy_posterior_laplace_vs_kl``
:mod:`.mean_sigma`          ``02_mackay_gaussian_mean_sigma``
:mod:`.bound`               ``03_bound_and_hyperparameters``
:mod:`.networks`            ``04_ensemble_learning_for_networks``
:mod:`.stochastic_vi`       ``05_deterministic_vs_stochastic_vi``
:mod:`.model_choice`        ``06_choosing_the_model`` (a package, one module per topic)
:mod:`.mixture`             ``07_mixture_of_gaussians``
:mod:`.classification`      ``08_classification``
:mod:`.monte_carlo`         ``09_monte_carlo``
==========================  ======================================================

Lessons never import each other: what two lessons share lives in the library
(:mod:`ensemble_lib.models`, :mod:`ensemble_lib.inference`, :mod:`ensemble_lib.ui`).
Importing one lesson imports no other: this package imports only :mod:`.learning_path`.

:data:`PANELS` is the one registry of interactive panels: the tests, the benchmarks and the
browser suite take every panel from it, and a test fails if a
:class:`~ensemble_lib.ui.panel.FigurePanel` subclass defined in a lesson is missing from it.
It is built from :data:`LESSONS` (each record names its module and panels) on first use,
importing every lesson then (:func:`panels`); a panel class is also reachable by name,
``ensemble_lib.lessons.ToyExplorer``, importing its lesson alone.

Figures and their alt text
--------------------------
Every code cell of a lesson that draws a figure, or shows a panel, carries the figure's alt text in
its cell metadata under ``"alt"`` (in JupyterLab: the property inspector's cell metadata;
``store_lessons`` keeps it when the lesson is stored again). Write it by looking at the stored figure:
what the axes are, what is drawn and in which line style or marker (not colour alone), and what the
student should see in it, at least 8 words, with no numbers that a re-run could move; a panel's says
what its figure shows for any slider setting (the book adds the readout as last drawn). ``make book``
puts it on the figure (myst-nb's ``mystnb.image.alt``; a script on the page for a panel's image) and
stops at a figure without one; ``tests/project/test_book_sources.py`` fails on a missing, generic or
shared one, and on a Markdown image (``![alt](path)``) whose alt text says too little.
"""

from __future__ import annotations

import importlib

from .learning_path import LESSONS, Lesson

_PANEL_LESSONS = {name: lesson for lesson in LESSONS for name in lesson.panels}
_registry: dict | None = None


def panel_class(name: str) -> type:
    """The panel class ``name`` (a key of :data:`PANELS`), importing its lesson module alone.

    Raises
    ------
    ValueError
        If ``name`` is not a panel of :data:`LESSONS`.
    """
    if name not in _PANEL_LESSONS:
        raise ValueError(f"name must be one of the registered panels {sorted(_PANEL_LESSONS)}, got {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_PANEL_LESSONS[name].module}"), name)


def panels() -> dict:
    """Every interactive panel, by name → (class, the notebook that shows it), in lesson order.

    Imports every lesson module the first time (:data:`PANELS` is this dictionary).
    """
    global _registry
    if _registry is None:
        _registry = {name: (panel_class(name), lesson.notebook) for lesson in LESSONS for name in lesson.panels}
    return _registry


def exercise_sets() -> dict:
    """Every lesson's exercises: ``{notebook: (ExerciseSet, the dotted name of its lesson module)}``.

    The lessons in the exercise format (:mod:`ensemble_lib.ui.exercises`) declare ``EXERCISES`` in
    their module; this imports every lesson of :data:`LESSONS` (the student copies, the autograders
    and the tests need them all).
    """
    found = {}
    for lesson in LESSONS:
        if not lesson.module:
            continue
        name = f"{__name__}.{lesson.module}"
        exercises = getattr(importlib.import_module(name), "EXERCISES", None)
        if exercises is not None:
            found[exercises.notebook] = (exercises, name)
    return found


def __getattr__(name: str):
    # PANELS and the panel classes resolve on first use, so that importing one lesson imports no other
    if name == "PANELS":
        return panels()
    if name in _PANEL_LESSONS:
        return panel_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LESSONS", "Lesson", "PANELS", "exercise_sets", "panel_class", "panels", *_PANEL_LESSONS]
