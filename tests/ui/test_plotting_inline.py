"""``inline_figures()`` (:mod:`ensemble_lib.ui.plotting`): a lesson shows each figure's whole canvas, drawn once.

IPython's inline backend would crop each figure to what it draws, at the cost of a second draw;
the lessons show the canvas instead. That is right only if no lesson figure draws anything outside
its canvas (a cut-off label or legend). So every lesson that calls ``inline_figures()`` runs here
as Run All runs it, with the PNG formatter wrapped to measure each shown figure's drawn extent (its
tight bounding box) against its canvas, to count the draws that showing it took (matplotlib's
``print_figure`` takes two: a hidden one for the layout, then the painted one), and to compare its
pixels with IPython's own formatter's.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from ensemble_lib.ui.plotting import inline_figures

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"
LESSONS = sorted(p.name for p in NB.glob("[0-9][0-9]_*.ipynb") if "inline_figures()" in p.read_text())

#: after the lesson's first cell: every figure shown is measured after it is drawn for the page
PROBE = """
import base64 as _base64
import io as _io
import pickle as _pickle
import numpy as _np
from IPython.core.pylabtools import print_figure as _print_figure
from matplotlib.backends.backend_agg import FigureCanvasAgg as _Agg
from matplotlib.figure import Figure as _Figure
from PIL import Image as _Image
_png = get_ipython().display_formatter.formatters["image/png"]
_shown = _png.lookup_by_type(_Figure)
_extents = []
_draws = [0]
_draw = _Figure.draw
def _counted(self, renderer):
    _draws[0] += 1
    return _draw(self, renderer)
_Figure.draw = _counted
def _pixels(data):  # IPython's formatter gives base64 text, a PNG's bytes are also accepted
    data = _base64.b64decode(data) if isinstance(data, str) else data
    return _np.asarray(_Image.open(_io.BytesIO(data)).convert("RGBA"))
def _measured(fig):
    twin = _pickle.loads(_pickle.dumps(fig))  # the same figure, not yet drawn, for IPython's formatter
    before = _draws[0]
    data = _shown(fig)
    draws = _draws[0] - before
    canvas = fig.canvas if isinstance(fig.canvas, _Agg) else _Agg(fig)
    box = fig.get_tightbbox(canvas.get_renderer())
    w, h = fig.get_size_inches()
    ipython = _pixels(_print_figure(twin, "png", bbox_inches=None))  # IPython's own formatter, uncropped
    mine = _pixels(data)
    same = mine.shape == ipython.shape and bool((mine == ipython).all())
    _extents.append([float(box.x0), float(box.y0), float(box.x1), float(box.y1), float(w), float(h), draws, same])
    return data
_png.for_type(_Figure, _measured)
"""

#: one pixel at the lessons' 100 dpi, in inches
TOL = 0.01


def test_inline_figures_does_nothing_outside_ipython():
    assert inline_figures() is None


def test_the_lessons_with_figures_call_it():
    assert len(LESSONS) >= 8, LESSONS


@pytest.mark.parametrize("lesson", LESSONS)
def test_no_lesson_figure_draws_outside_its_canvas(lesson):
    path = NB / lesson
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(2, nbformat.v4.new_code_cell(PROBE))
    nb.cells.append(nbformat.v4.new_code_cell("import json; print(json.dumps(_extents))"))
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    extents = json.loads(nb.cells[-1].outputs[0]["text"])
    assert extents, f"{lesson} showed no figure through the inline backend"
    outside = [e[:6] for e in extents
               if e[0] < -TOL or e[1] < -TOL or e[2] > e[4] + TOL or e[3] > e[5] + TOL]
    assert not outside, f"{lesson}: figures drawing outside their canvas (x0, y0, x1, y1, w, h in inches): {outside}"
    # each shown once, in one draw, with the pixels IPython's own (uncropped) formatter gives
    assert [e[6] for e in extents] == [1] * len(extents), f"{lesson}: draws per figure shown"
    assert all(e[7] for e in extents), f"{lesson}: a PNG differs from IPython's print_figure: {extents}"
    # each figure was shown as its whole canvas: the PNGs are w × h inches at the lessons' 100 dpi
    pngs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if "image/png" in o.get("data", {})]
    assert len(pngs) >= len(extents)
