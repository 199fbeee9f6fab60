"""Every interactive panel, taken from the one registry ``ensemble_lib.lessons.PANELS``.

For each registered panel: it is built and shows its controls, figure, readout
and status line; every control goes to its min and max and back without an
error; moving a control changes the figure's PNG bytes and the readout; the
readout reports the state's numbers; a value the library refuses, and a bug,
show in the status line (never as an exception); ``hold()`` coalesces many
changes into one update; the state is a frozen dataclass. A test fails if a
``FigurePanel`` subclass defined in a lesson is not registered, or a registered
panel has no entry in :data:`SPEC`.

Then the base class's machinery on tiny panels, then what is particular to one
panel (slider ranges, snapping, linked controls).
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import io
import json
import math
import pkgutil
import re
from pathlib import Path

import ipywidgets as w
import numpy as np
import pytest
from PIL import Image

from _canvas import labels_outside
import ensemble_lib.lessons
from ensemble_lib.lessons import PANELS
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.plotting import figure_png, new_figure, save_figure

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

#: Per registered panel: ``moves``, control changes that each change the figure and the readout
#: (run in order from the start values); ``readout``, text the readout always shows; ``numbers``,
#: the state's numbers as the readout prints them; ``bad``, (control, a value the library refuses,
#: a word of its error message).
SPEC = {
    "ToyExplorer": dict(
        moves=[("alpha", 1.0), ("noise_sd", 0.3), ("n", 12), ("seed", 3), ("rank", 0)],
        readout="KL(Q‖P)",
        numbers=lambda s: [f"{s.laplace.kl:.3f}", f"{s.full.bound:.3f}", f"{s.posterior.log_evidence:.3f}"],
        bad=("alpha", -1.0, "alpha")),
    "EnsemblePanel": dict(
        moves=[("k", 4), ("N", 12), ("xbar", -1.5), ("S", 3.0), ("beta0", 20.0), ("k", 0)],
        readout="KL(Q_k‖P)",
        numbers=lambda s: [f"{s.it.kl:.6g}", f"{s.model.sigma_N1 ** 2:.6g}", f"{s.run.log_evidence:.6g}"],
        bad=("N", 1, "N must be an integer")),
    "BoundPanel": dict(
        moves=[("mean_u", -0.3), ("mean_v", -1.0), ("sd_u", 0.07), ("sd_v", 0.3), ("rho", -0.5),
               ("snap", "laplace")],
        readout="KL(Q‖P)",
        numbers=lambda s: [f"{s.kl:.6f}", f"{s.bound:.6f}", f"{s.log_evidence:.6f}"],
        bad=("sd_u", 0.0, "sd_u")),
    "HyperIterationPanel": dict(
        moves=[("iteration", 3), ("method", "evidence"), ("iteration", 1), ("method", "ensemble")],
        readout="exact ln P(D|α,β)",
        numbers=lambda s: [f"α = {s.alpha:.5g}", f"β = {s.beta:.5g}"],
        bad=("iteration", -1, "iteration")),
    "Network1DPanel": dict(
        # (the last move ends at a setting the min-and-max test fitted: its fit is remembered)
        moves=[("n_hidden", 1), ("rank", 0), ("adapt", False), ("alpha", 0.1), ("rank", 2), ("n_hidden", 2),
               ("adapt", True)],
        readout="error bar at x = 0",
        numbers=lambda s: [f"alpha = {s.ens_alpha:.4g}", f"bound F = {s.bound:.3f}"],
        bad=("n_hidden", 0, "n_hidden")),
    "SVIExplorer": dict(
        moves=[("step_size", 0.01), ("n_samples", 16), ("schedule", "decaying"), ("family", "diagonal"),
               ("seed", 3)],
        readout="quadrature optimum",
        numbers=lambda s: [f"{s.kl[0]:.4f}", f"{s.final_kl:.4f}", f"{s.tail_kl(0.5):.4f}"],
        bad=("step_size", -0.1, "step_size")),
    "NoiseInputsPanel": dict(
        moves=[("n_noise", 10), ("seed", 3), ("n_noise", 30), ("seed", 0), ("n_noise", 1)],
        readout="noise inputs switched off",
        numbers=lambda s: [f"ARD {s.test_mse:.4f}", f"one α {s.one_alpha_test_mse:.4f}"],
        bad=("n_noise", -1, "n_noise must be an integer")),
    "PriorFunctionsPanel": dict(
        moves=[("H", 100), ("sd_in", 10.0), ("sd_bias", 0.5), ("scale_out", False), ("seed", 3)],
        readout="arcsine kernel",
        numbers=lambda s: [f"{s.sd[len(s.x) // 2]:.4f}"],
        bad=("H", 0, "H must be an integer")),
    "MixtureExplorer": dict(
        moves=[("K", 4), ("alpha", 1.0), ("seed", 3), ("K", 1)],
        readout="lower bound on ln P(D)",
        numbers=lambda s: [f"{s.fit.kl:.4f}", f"{s.fit_bound.kl_bound:.4f}",
                           f"{s.comparison.posterior.log_evidence:.4f}"],
        bad=("alpha", -1.0, "alpha")),
    "NeuronPanel": dict(
        moves=[("n", 20), ("alpha", 10.0), ("seed", 3), ("n", 1)],
        readout="KL(Q‖P)",
        numbers=lambda s: [f"{s.kls['full']:.4f}", f"{s.bounds['laplace']:.4f}", f"{s.log_evidence:.4f}"],
        bad=("alpha", -1.0, "alpha")),
    "ModeratedPanel": dict(
        moves=[("distance", 3.0), ("distance", 6.0), ("distance", 0.5)],
        readout="P(t = 1 | x, D)",
        numbers=lambda s: [f"{s.probabilities['exact']:.4f}", f"{s.probabilities['moderated']:.4f}"],
        bad=("distance", 0.3, "distance")),
    "MonteCarloPanel": dict(
        moves=[("n", 40), ("n", 320), ("n", 5)],
        readout="Monte Carlo estimate",
        numbers=lambda s: [f"{s.estimate:.4f}", f"{s.se:.4f}", f"{s.error:+.4f}"],
        bad=("n", 7, "n must be one of")),
    "LeapfrogPanel": dict(
        moves=[("eps", 0.065), ("n_steps", 5), ("eps", 0.005)],
        readout="library HMC: mean acceptance",
        numbers=lambda s: [f"{s.accept_prob:.3f}", f"{s.accept_drawn:.3f}"],
        bad=("eps", 0.0, "eps must be a finite number")),
}

_BUILT: dict = {}
#: per registered panel, what it showed when built: (values, ranges of its sliders, image, readout)
_FRESH: dict = {}


def _ranges(p) -> dict:
    return {k: (c.min, c.max) for k, c in p.controls.items() if hasattr(c, "min")}


def _get(name: str) -> FigurePanel:
    """The registered panel ``name``: built once per test process, then reset to its start values."""
    if name not in _BUILT:
        p = PANELS[name][0]()
        p.update()
        _BUILT[name] = (p, p.values())
        _FRESH[name] = (p.values(), _ranges(p), p.image.value, p.readout.value)
    p, start = _BUILT[name]
    for key, value in start.items():  # one by one, in order, so that linked controls follow
        if p.controls[key].value != value:
            p.controls[key].value = value
    p.update()
    assert p.values() == start and p.last_error is None, (name, p.last_error)
    return p


@pytest.fixture(params=list(PANELS))
def panel(request) -> FigurePanel:
    return _get(request.param)


def _spec(panel) -> dict:
    return SPEC[type(panel).__name__]


def _choices(ctl) -> list:
    """The values a control offers, in order (for a slider: its min and max)."""
    if isinstance(ctl, w.Checkbox):
        return [False, True]
    if hasattr(ctl, "options"):
        return [o[1] if isinstance(o, tuple) else o for o in ctl.options]
    if isinstance(ctl, w.FloatLogSlider):
        return [ctl.base ** ctl.min, ctl.base ** ctl.max]
    return [ctl.min, ctl.max]


# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------

def _panel_classes_defined_in_lessons() -> dict:
    found = {}
    for info in pkgutil.walk_packages(ensemble_lib.lessons.__path__, "ensemble_lib.lessons."):
        mod = importlib.import_module(info.name)
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, FigurePanel) and obj.__module__ == mod.__name__:
                found[f"{mod.__name__}.{obj.__name__}"] = obj
    return found


def test_every_panel_defined_in_a_lesson_is_registered():
    registered = {cls for cls, _ in PANELS.values()}
    found = _panel_classes_defined_in_lessons()
    missing = sorted(name for name, cls in found.items() if cls not in registered)
    assert not missing, f"FigurePanel subclasses missing from ensemble_lib.lessons.PANELS: {missing}"
    assert len(found) == len(PANELS)


def test_registry_names_each_class_and_the_notebook_that_shows_it():
    for name, (cls, notebook) in PANELS.items():
        assert issubclass(cls, FigurePanel) and cls.__name__ == name
        path = NOTEBOOKS / notebook
        assert path.is_file(), notebook
        assert f"{name}(" in path.read_text(encoding="utf-8"), f"{notebook} does not build a {name}"
    assert set(SPEC) == set(PANELS), "every registered panel needs an entry in SPEC (tests/ui/test_panel.py)"


@pytest.mark.parametrize("name", list(PANELS))
def test_a_panel_supplies_only_the_lesson_parts(name):
    """The machinery (callback, error display, hold, helpers) is the base class's alone."""
    cls = PANELS[name][0]
    own = set().union(*(vars(k) for k in cls.__mro__[: cls.__mro__.index(FigurePanel)]))
    machinery = {"_on_change", "_show_error", "_set_disabled", "update", "hold", "values", "slider",
                 "readout_table", "replace_artists", "_repr_mimebundle_"}
    assert not own & machinery, sorted(own & machinery)
    assert {"compute", "draw", "format_readout"} <= own


# ---------------------------------------------------------------------------
# every registered panel
# ---------------------------------------------------------------------------

def test_a_built_panel_shows_its_controls_figure_readout_and_status(panel):
    kids = panel.widget.children
    # then the hidden style sheet (FigurePanel's compact layout) and the hidden step acknowledgement
    assert kids[-5:] == (panel.image, panel.readout, panel.status, panel._css, panel.step_mark)
    assert panel._css.layout.display == "none" and panel._css.value.startswith("<style>")
    assert panel.step_mark.layout.display == "none" and "panel-step" in panel.step_mark._dom_classes
    shown = [c.children[0] if "panel-slider" in c._dom_classes else c for row in kids[:-5] for c in row.children]
    assert shown == [*panel.controls.values(), panel.reset_button]  # the Reset button after the last control
    assert "panel-reset" in panel.reset_button._dom_classes and panel.reset_button.description == "Reset"
    for name, box in panel.boxes.items():  # each numeric slider with its value box beside it
        assert box.value == FigurePanel._formatted(panel.controls[name])
    img = Image.open(io.BytesIO(panel.image.value))
    assert img.format == panel.image_format.upper() == panel.image.format.upper()
    # the figure's resolution is the panel's (FigurePanel.dpi)
    assert panel.fig.dpi == type(panel).dpi
    width, height = panel.fig.get_size_inches() * type(panel).dpi
    assert img.size == (int(round(width)), int(round(height)))
    assert panel.n_updates >= 1 and panel.status.value == "" and panel.last_error is None
    for ctl in panel.controls.values():  # sliders follow a drag (the panel coalesces the changes)
        if isinstance(ctl, (w.IntSlider, w.FloatSlider, w.FloatLogSlider)):
            assert ctl.continuous_update is True, ctl.description


def test_the_state_is_a_frozen_dataclass(panel):
    st = panel.state
    assert dataclasses.is_dataclass(st) and type(st).__dataclass_params__.frozen, type(st)


def test_every_control_goes_to_its_min_and_max_and_back(panel):
    """Each control at its min and at its max (the others at their start), and back: no error, one
    update per change, and no axis label, title or tick label outside the canvas."""
    outside = []
    for name, ctl in panel.controls.items():
        start, choices = ctl.value, _choices(ctl)
        for value in (choices[0], choices[-1], start):
            n0, changed = panel.n_updates, ctl.value != value
            ctl.value = value
            assert panel.last_error is None, (name, value, panel.last_error)
            assert panel.status.value == "", (name, value)
            assert panel.n_updates == n0 + changed, (name, value)
            assert ctl.value == value
            outside += [f"{name} = {value!r}: {problem}" for problem in labels_outside(panel)]
    assert not outside, "\n".join(outside[:20])


def test_each_move_changes_the_figure_and_the_readout(panel):
    spec = _spec(panel)
    for name, value in spec["moves"]:
        png, text, n0 = panel.image.value, panel.readout.value, panel.n_updates
        panel.controls[name].value = value
        assert panel.n_updates == n0 + 1, f"{name} did not trigger one recompute"
        assert panel.last_error is None and panel.status.value == "", panel.last_error
        assert panel.image.value != png, f"{name} = {value!r} left the figure unchanged"
        assert panel.readout.value != text, f"{name} = {value!r} left the readout unchanged"
        assert spec["readout"] in panel.readout.value
        for number in spec["numbers"](panel.state):
            assert number in panel.readout.value, (name, number)


def test_the_readout_reports_the_states_numbers(panel):
    spec = _spec(panel)
    for name, value in [(None, None), spec["moves"][0]]:
        if name is not None:
            panel.controls[name].value = value
        assert panel.status.value == "" and panel.last_error is None
        assert panel.readout.value == panel.format_readout(panel.state)
        for number in spec["numbers"](panel.state):
            assert number in panel.readout.value, (number, panel.readout.value)


def test_a_refused_value_shows_in_the_status_line_not_as_an_exception(panel, monkeypatch):
    control, bad, message = _spec(panel)["bad"]
    png, text, state = panel.image.value, panel.readout.value, panel.state
    real = panel.values()
    monkeypatch.setattr(panel, "values", lambda: {**real, control: bad})
    ctl = panel.controls[control]
    previous = ctl.value
    ctl.value = next(v for v in _choices(ctl) if v != ctl.value)  # the callback runs; nothing escapes
    assert "Not updated" in panel.status.value and message in panel.status.value, panel.status.value
    assert panel.last_error.startswith("ValueError")
    assert panel.image.value == png and panel.readout.value == text and panel.state is state
    assert panel.update() is None  # and from code: None, the same message
    assert message in html.unescape(panel.status.value)
    inactive = panel.inactive_controls(**panel.values())
    assert not any(c.disabled for n, c in panel.controls.items() if n not in inactive)
    monkeypatch.undo()
    n0 = panel.n_updates
    ctl.value = previous  # and the panel works again
    assert panel.last_error is None and panel.status.value == "" and panel.n_updates == n0 + 1


def test_a_bug_shows_in_the_status_line_with_its_type_and_place(panel, monkeypatch):
    png = panel.image.value

    def broken(**values):
        return {}["missing"]

    monkeypatch.setattr(panel, "compute", broken)
    name, value = _spec(panel)["moves"][0]
    previous = panel.controls[name].value
    panel.controls[name].value = value
    assert "Error — the figure was not updated" in panel.status.value
    assert "KeyError" in panel.status.value and "broken" in panel.status.value
    assert panel.last_error.startswith("KeyError") and panel.image.value == png
    monkeypatch.undo()
    panel.controls[name].value = previous  # and the panel works again
    assert panel.last_error is None and panel.status.value == ""


def test_hold_coalesces_many_changes_into_one_update(panel):
    moves = _spec(panel)["moves"]
    n0 = panel.n_updates
    with panel.hold():
        for name, value in moves:
            panel.controls[name].value = value
        assert panel.n_updates == n0
    assert panel.n_updates == n0 + 1 and panel.last_error is None
    assert all(panel.controls[name].value == value for name, value in dict(moves).items())


def _published(p) -> tuple[int, list[str]]:
    """The step number and value-box texts the panel's hidden step mark shows."""
    m = re.fullmatch(r'<span data-step="(\d+)" data-boxes="([^"]*)"></span>', p.step_mark.value)
    assert m, p.step_mark.value
    return int(m.group(1)), json.loads(html.unescape(m.group(2)))


def _shown(panel) -> list[str]:
    """What the page shows of the values: the value boxes, then each selection slider's readout
    (the label of its option: ``str`` of the option, as ipywidgets makes it for plain options)."""
    return ([b.value for b in panel.boxes.values()]
            + [str(c.options[c.index]) for c in panel.controls.values() if isinstance(c, w.SelectionSlider)])


def test_each_update_publishes_one_step_after_its_image_and_readout(panel):
    """The step mark (what the browser suite waits for) counts up once per update, held ones
    included, and is sent after that update's image and readout, with the boxes' texts."""
    seen = []
    panel.step_mark.observe(lambda ch: seen.append((panel.image.value, panel.readout.value)), names="value")
    moves = _spec(panel)["moves"]
    n0, _ = _published(panel)
    name, value = moves[0]
    panel.controls[name].value = value
    n1, boxes = _published(panel)
    assert n1 == n0 + 1 and len(seen) == 1
    assert seen[-1] == (panel.image.value, panel.readout.value)  # the mark came after both
    assert boxes == _shown(panel)
    with panel.hold():
        for name, value in moves:
            panel.controls[name].value = value
        assert _published(panel)[0] == n1
    n2, boxes = _published(panel)
    assert n2 == n1 + 1 and len(seen) == 2 and seen[-1] == (panel.image.value, panel.readout.value)
    assert boxes == _shown(panel)
    panel.reset()
    assert _published(panel)[0] == n2 + 1


def _untimed(text: str) -> str:
    """``text`` with its times (``115 ms``) blanked: they differ between two runs of one step."""
    return re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "… ms", text)


def _other_value(ctl, value):
    """A valid value of ``ctl`` other than ``value`` (a slider's nearer end's other one)."""
    return next(v for v in reversed(_choices(ctl)) if v != value)


def test_reset_returns_every_control_and_the_image_to_a_fresh_panel(panel):
    """Every control moved (the lesson's moves, then any control they left alone to another valid
    value), then the Reset button: the values, the sliders' ranges, the image's bytes and the
    readout are the ones the panel showed when it was built, after one update."""
    name = type(panel).__name__
    values, ranges, image, readout = _FRESH[name]
    for control, value in _spec(panel)["moves"]:
        panel.controls[control].value = value
    for control, ctl in panel.controls.items():
        if panel.values()[control] == values[control] and not ctl.disabled:
            ctl.value = _other_value(ctl, values[control])
    assert panel.last_error is None, panel.last_error
    moved = panel.values()
    assert moved != values and panel.image.value != image
    n0 = panel.n_updates
    panel.reset_button.click()
    assert panel.n_updates == n0 + 1 and panel.last_error is None and panel.status.value == ""
    assert panel.values() == values == panel.start_values
    assert {k: c.value for k, c in panel.controls.items()} == values
    assert _ranges(panel) == ranges
    assert panel.image.value == image  # the same bytes as the fresh panel's
    assert _untimed(panel.readout.value) == _untimed(readout)  # (lesson 5's readout shows run times)
    assert all(box.value == FigurePanel._formatted(panel.controls[k]) for k, box in panel.boxes.items())


def test_every_value_box_shows_the_start_where_its_handle_does(panel):
    """A front end shows a slider's value at its nearest grid point, and may not send that point
    back (after Reset in JupyterLab lesson 3's handle stood at -0.22993 while its box said -0.231,
    the kernel's exact start). So every panel's start value must read, in its value box, as its
    grid point does: the handle and the box then agree whatever the front end sends back."""
    from ensemble_lib.ui.panel_controls import grid_value

    values = _FRESH[type(panel).__name__][0]
    for name, box in panel.boxes.items():
        ctl = panel.controls[name]
        shown = type(ctl)(**{k: getattr(ctl, k) for k in ("min", "max", "step", "readout_format")},
                          value=grid_value(ctl, values[name]))
        assert box.value == FigurePanel._formatted(ctl) == FigurePanel._formatted(shown), name


def test_the_bound_panels_start_is_on_its_sliders_grids():
    """Lesson 3 opens (and resets) at the full-KL fit: every slider's grid passes through it exactly."""
    from ensemble_lib.ui.panel_controls import NUMERIC_SLIDERS, grid_value, same_value

    p = _get("BoundPanel")
    for name, ctl in p.controls.items():
        if isinstance(ctl, NUMERIC_SLIDERS):
            assert same_value(grid_value(ctl, p.start_values[name]), p.start_values[name]), name


def test_reset_inside_a_hold_waits_for_its_end():
    p = _Pair()
    p.update()
    p.controls["x"].value = 5
    n0 = p.n_updates
    with p.hold():
        assert p.reset() is None and p.n_updates == n0
        assert p.values() == {"x": 0, "y": 0}
    assert p.n_updates == n0 + 1 and p.state == _XY(0, 0) and p.links == [("x", 5)]


class _OffGrid(FigurePanel):
    """One float slider on a 0.1 grid, starting off it (at 0.123, as lesson 3's snap starts)."""

    def __init__(self):
        fig, ax = new_figure(2.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        super().__init__({"x": self.slider("x", 0.123, 0.0, 1.0, step=0.1)}, fig)

    def compute(self, x):
        return _XY(x)

    def draw(self, s):
        self.line.set_ydata([0, s.x])


def test_reset_restores_the_exact_start_value_of_a_slider_the_front_end_moved():
    """The start value is restored exactly, not the grid point the front end shows it at."""
    p = _OffGrid()
    p.update()
    p.controls["x"].set_state({"value": 0.1})  # the front end shows 0.123 at its grid point: no move
    assert p.values() == {"x": 0.123}
    p.controls["x"].set_state({"value": 0.5})  # a drag
    assert p.values() == {"x": 0.5} and p.state == _XY(0.5)
    p.reset()
    assert p.values() == p.start_values == {"x": 0.123} and p.state == _XY(0.123)


def test_the_grid_point_the_front_end_shows_is_acknowledged_without_a_step():
    """The front end sending back the grid point of a value code set is no move (no update), but
    the step mark then names what the value box shows, so a front end waiting for it is answered."""
    p = _OffGrid()
    p.update()
    n0, step0 = p.n_updates, _published(p)[0]
    p.controls["x"].set_state({"value": 0.1})
    assert p.n_updates == n0 and p.values() == {"x": 0.123}
    step, boxes = _published(p)
    assert boxes == [p.boxes["x"].value] and step == step0 + (boxes != [FigurePanel._formatted(
        w.FloatSlider(value=0.123, readout_format=p.controls["x"].readout_format))])


def test_set_values_sets_several_controls_with_one_update_and_refuses_unknown_names():
    p = _Pair()
    p.update()
    n0 = p.n_updates
    assert p.set_values({"x": 2, "y": 7}) == _XY(2, 7)
    assert p.n_updates == n0 + 1 and p.links == []
    assert p.set_values({"x": 1}, update=False) is None and p.n_updates == n0 + 1
    with pytest.raises(ValueError, match="values must name controls"):
        p.set_values({"z": 1})


@pytest.mark.parametrize("name", [n for n, (cls, _) in PANELS.items() if cls.blit])
def test_a_blitted_panel_renders_as_a_full_redraw(name):
    p = _get(name)
    for control, value in SPEC[name]["moves"]:
        p.controls[control].value = value
    fast = np.asarray(Image.open(io.BytesIO(p.image.value)).convert("RGB"), dtype=float)
    buf = io.BytesIO()
    p.fig.savefig(buf, format="png", dpi=p.fig.dpi)  # saving draws animated artists in a full pass
    full_image = Image.open(buf).convert("RGB")
    if p.image_format == "jpeg":  # the same codec on both sides: compare drawings, not JPEG's ringing
        buf = io.BytesIO()
        full_image.save(buf, format="jpeg", quality=90)  # fast_jpeg's quality
        full_image = Image.open(buf).convert("RGB")
    full = np.asarray(full_image, dtype=float)
    assert fast.shape == full.shape
    differ = np.mean(np.any(np.abs(fast - full) > 40, axis=2))
    assert differ < 0.005, differ


class _Layered(FigurePanel):
    """Blitted: the line (x) moves over a cached background whose band's grey follows y."""

    blit = True

    def __init__(self, renew: bool = True):
        fig, ax = new_figure(2.0, 2.0)
        self.band = ax.axhspan(0.0, 1.0, color="0.9")
        (self.line,) = ax.plot([0, 1], [0, 0], lw=4)
        self.renew, self._y = renew, None
        super().__init__({"x": self.slider("x", 0, 0, 10), "y": self.slider("y", 0, 0, 10)}, fig)

    def animated_artists(self):
        return [self.line]

    def compute(self, x, y):
        return _XY(x, y)

    def draw(self, state):
        self.line.set_ydata([0, state.x / 10])
        if state.y != self._y:
            self.band.set_color(str(0.9 - 0.08 * state.y))
            self._y = state.y
            if self.renew:
                self.invalidate_background()


def _differ_from_a_full_redraw(p) -> float:
    fast = np.asarray(Image.open(io.BytesIO(p.image.value)).convert("RGB"), dtype=float)
    buf = io.BytesIO()
    p.fig.savefig(buf, format="png", dpi=p.fig.dpi)
    full = np.asarray(Image.open(buf).convert("RGB"), dtype=float)
    return float(np.mean(np.any(np.abs(fast - full) > 40, axis=2)))


@pytest.mark.parametrize("renew", [True, False])
def test_invalidate_background_renews_a_blitted_panels_static_parts(renew):
    """After ``invalidate_background`` the next step draws everything and caches it; without it
    the old background would stay (the check's control case)."""
    p = _Layered(renew)
    p.update()
    p.controls["x"].value = 5  # the line alone, over the cached background
    p.controls["y"].value = 8  # the band changes too
    p.controls["x"].value = 7  # the line alone again, over the renewed background
    assert p.last_error is None
    assert (_differ_from_a_full_redraw(p) < 0.005) == renew
    _Tiny().invalidate_background()  # no blitting: nothing to renew, no error


class _Keyed(_Layered):
    """_Layered whose background is kept by a key: the band's grey (``keyed``) or, in the control
    case, a constant that ignores it."""

    def __init__(self, keyed: bool):
        self.keyed = keyed
        super().__init__()

    def background_key(self):
        return self._y if self.keyed else "the same"


@pytest.mark.parametrize("keyed", [True, False])
def test_a_kept_background_comes_back_for_its_key_only(keyed):
    """The band's grey follows y; y goes 0 → 8 → 0 → 8 → 0 with the line moving between. With
    the grey as the key, the whole figure is drawn once per grey and every frame equals a full
    redraw; with a key that ignores the grey (the control case) the kept background comes back
    with the wrong grey."""
    p = _Keyed(keyed)
    p.update()
    differ = []
    for x, y in [(2, 8), (4, 0), (6, 8), (8, 0)]:
        p.controls["x"].value = x
        p.controls["y"].value = y
        differ.append(_differ_from_a_full_redraw(p))
        if x == 2:
            drawn = p.fig.canvas.full_draws
    assert p.last_error is None
    if keyed:
        assert max(differ) < 0.005, differ
        assert p.fig.canvas.full_draws == drawn  # both greys' backgrounds were kept
    else:
        assert max(differ) > 0.1, differ  # the frames at y = 8 show the grey of y = 0


@pytest.mark.parametrize("name, control, values", [
    ("EnsemblePanel", "N", [5, 12]),  # the left plot's range changes with N
    ("Network1DPanel", "adapt", [False, True]),  # the legend lists the HMC lines only when adapted
    ("ToyExplorer", "alpha", [0.01, 10.0]),  # the plot's range follows the posterior
    ("PriorFunctionsPanel", "sd_out", [0.1, 5.0]),  # the y range follows the functions
])
def test_a_panel_moved_back_and_forth_draws_each_background_once(name, control, values):
    """A panel with a :meth:`~FigurePanel.background_key`, moved back and forth between two
    settings with different static parts: every frame equals a full redraw, and after the first
    visit to each setting no step draws the whole figure."""
    p = PANELS[name][0]()
    p.update()
    keys = set()
    for i, value in enumerate(values * 3):
        p.controls[control].value = value
        assert p.last_error is None, p.last_error
        assert _differ_from_a_full_redraw(p) < 0.005, (name, control, value)
        keys.add(p.background_key())
        if i == len(values) - 1:
            drawn = p.fig.canvas.full_draws
    assert len(keys) == len(values)  # the settings' static parts do differ
    assert p.fig.canvas.full_draws == drawn


class _Overlaid(_Layered):
    """The moving line passes under an opaque legend (an overlay), or over it without the overlay."""

    def __init__(self, overlay: bool):
        self.overlay = overlay
        super().__init__()
        self.legend = self.fig.axes[0].legend([self.band], ["band"], loc="center", framealpha=1.0)
        self.invalidate_background()

    def overlay_artists(self):
        return [getattr(self, "legend", None)] if self.overlay else []  # None: before the legend is made


@pytest.mark.parametrize("overlay", [True, False])
def test_an_overlay_stays_on_top_of_the_blitted_artists(overlay):
    """The line crosses the legend's box: with the legend as an overlay the frame equals a full
    redraw (legend on top); without (the control case) the line is drawn over it."""
    p = _Overlaid(overlay)
    p.update()
    for x in (3, 5, 7):  # the line sweeps across the centre, where the legend is
        p.controls["x"].value = x
    assert p.last_error is None
    differ = _differ_from_a_full_redraw(p)
    assert (differ < 0.002) == overlay, differ


# ---------------------------------------------------------------------------
# the base class's machinery, on tiny panels
# ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _XY:
    x: int
    y: int = 0


class _Tiny(FigurePanel):
    """One slider x; the library refuses x = 3 (ValueError), and x = 4 hits a bug (KeyError)."""

    def __init__(self):
        fig, ax = new_figure(2.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        super().__init__({"x": self.slider("x", 0, 0, 10)}, fig)

    def compute(self, x):
        if x == 3:
            raise ValueError("x = 3 is refused")
        if x == 4:
            raise KeyError("a bug")
        return _XY(x)

    def draw(self, state):
        self.line.set_ydata([0, state.x])

    def format_readout(self, state):
        return f"x = {state.x}"


class _Spy(_Tiny):
    """Records whether the control was disabled while compute ran."""

    def __init__(self):
        self.seen = []
        super().__init__()

    def compute(self, x):
        self.seen.append(self.controls["x"].disabled)
        return super().compute(x)


class _Pair(FigurePanel):
    """Sliders x and y, y following x (y = 2x) through link_controls; x = 7 is a bug in the link."""

    def __init__(self):
        fig, ax = new_figure(2.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        self.links = []
        super().__init__({"x": self.slider("x", 0, 0, 10), "y": self.slider("y", 0, 0, 20)}, fig)

    def compute(self, x, y):
        return _XY(x, y)

    def draw(self, s):
        self.line.set_ydata([s.x, s.y])

    def format_readout(self, s):
        return self.readout_table([("x", s.x), ("y", s.y)])

    def link_controls(self, name, value):
        self.links.append((name, value))
        if name == "x":
            if value == 7:
                raise KeyError("a bug in a link")
            self.controls["y"].value = 2 * value


class _Switch(FigurePanel):
    """A slider x that is irrelevant (shown disabled) while the box ``auto`` is ticked."""

    def __init__(self):
        fig, ax = new_figure(2.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        super().__init__({"x": self.slider("x", 0, 0, 10), "auto": w.Checkbox(value=True)}, fig)

    def compute(self, x, auto):
        return _XY(x, int(auto))

    def draw(self, state):
        self.line.set_ydata([0, state.x])

    def inactive_controls(self, x, auto):
        return {"x"} if auto else set()


def test_a_refused_value_keeps_the_figure_and_says_why():
    p = _Tiny()
    p.update()
    png = p.image.value
    p.controls["x"].value = 3
    assert "Not updated: x = 3 is refused" in p.status.value
    assert p.image.value == png and p.readout.value == "x = 0"
    assert not p.controls["x"].disabled


def test_an_unexpected_error_in_a_callback_is_shown_in_the_panel_not_lost():
    p = _Tiny()
    p.update()
    p.controls["x"].value = 4  # the observer runs the callback; nothing may escape it
    assert "KeyError" in p.status.value and "a bug" in p.status.value and "compute" in p.status.value
    assert p.last_error.startswith("KeyError")
    assert not p.controls["x"].disabled
    p.controls["x"].value = 5  # and the panel still works
    assert p.status.value == "" and p.readout.value == "x = 5"


def test_controls_stay_enabled_while_a_step_runs():
    """A step never disables the controls: a drag is not cut off, a second drag is not lost."""
    p = _Spy()
    p.update()
    p.controls["x"].value = 2
    assert p.seen == [False, False] and not p.controls["x"].disabled


def test_a_control_the_values_make_irrelevant_is_shown_disabled():
    p = _Switch()
    assert p.controls["x"].disabled and not p.controls["auto"].disabled
    p.controls["auto"].value = False  # the step runs, then x is enabled again
    assert not p.controls["x"].disabled
    p.controls["auto"].value = True
    assert p.controls["x"].disabled


def test_linked_controls_follow_in_one_update():
    p = _Pair()
    p.update()
    n0 = p.n_updates
    p.controls["x"].value = 2
    assert p.controls["y"].value == 4 and p.n_updates == n0 + 1
    assert p.links == [("x", 2)]  # y, set by the link, neither updated nor linked again
    assert p.state == _XY(2, 4)
    assert p.readout.value == "<table><tr><td>x</td><td>2</td></tr><tr><td>y</td><td>4</td></tr></table>"


def test_hold_updates_once_at_the_end_of_the_outermost_hold_without_links():
    p = _Pair()
    p.update()
    n0 = p.n_updates
    with p.hold():
        p.controls["x"].value = 1
        with p.hold():
            p.controls["y"].value = 9
            p.controls["x"].value = 3
        assert p.n_updates == n0
    assert p.n_updates == n0 + 1 and p.state == _XY(3, 9) and p.links == []
    with p.hold(update=False):
        p.controls["x"].value = 5
    assert p.n_updates == n0 + 1 and p.state == _XY(3, 9)
    with pytest.raises(RuntimeError, match="inside"):
        with p.hold():
            p.controls["x"].value = 6
            raise RuntimeError("inside")
    assert p.n_updates == n0 + 1 and not p._held
    p.controls["y"].value = 1  # held no more
    assert p.n_updates == n0 + 2 and p.state == _XY(6, 1)


def test_a_bug_in_a_link_is_shown_in_the_panel_not_lost():
    p = _Pair()
    p.update()
    p.controls["x"].value = 7
    assert "KeyError" in p.status.value and "link_controls" in p.status.value
    assert p.last_error.startswith("KeyError") and not p._held
    p.controls["x"].value = 1
    assert p.status.value == "" and p.state == _XY(1, 2)


class _Wide(_Tiny):
    """A 9-inch (900 px) figure: too wide for a readout beside it."""

    def __init__(self, beside=None):
        if beside is not None:
            self.readout_beside = beside
        fig, ax = new_figure(9.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        FigurePanel.__init__(self, {"x": self.slider("x", 0, 0, 10)}, fig)


def test_the_layout_is_the_base_classs_compact_one():
    """Classes the style sheet (PANEL_CSS) styles; the readout beside a figure that leaves it room."""
    from ensemble_lib.ui import panel as P

    narrow, wide = _Tiny(), _Wide()
    for p in (narrow, wide):
        assert "ensemble-panel" in p.widget._dom_classes
        assert all("panel-controls" in row._dom_classes for row in p.widget.children[:-5])
        assert "panel-readout" in p.readout._dom_classes and "panel-status" in p.status._dom_classes
        assert P.PANEL_CSS.strip() in p._css.value
    assert narrow.fig.canvas.get_width_height()[0] + P.READOUT_BESIDE_MIN_PX <= P.OUTPUT_WIDTH_PX
    assert "panel-readout-beside" in narrow.widget._dom_classes
    assert "panel-readout-beside" not in wide.widget._dom_classes
    assert "panel-readout-beside" in _Wide(beside=True).widget._dom_classes  # a panel may decide


def test_the_slider_factory():
    s = FigurePanel.slider
    a = s("α", 0.2, 0.01, 10.0, step=0.05, log=True)
    assert isinstance(a, w.FloatLogSlider) and a.base == 10 and a.step == 0.05
    assert (a.min, a.max, a.value) == (math.log10(0.01), 1.0, 0.2)
    n = s("N", 5, 2, 50)
    assert isinstance(n, w.IntSlider) and (n.min, n.max, n.step, n.value) == (2, 50, 1, 5)
    x = s("mean", 0.0, -3.0, 3.0, step=0.1, units="nats", readout_format=".3f")
    assert isinstance(x, w.FloatSlider) and x.description == "mean (nats)" and x.readout_format == ".3f"
    for ctl in (a, n, x):
        assert ctl.continuous_update is True and ctl.style.description_width == "initial"


def test_replace_artists_removes_the_old_and_returns_the_new():
    fig, ax = new_figure(2.0, 2.0)
    old = ax.plot([0, 1], [0, 1]) + ax.plot([0, 1], [1, 0])
    new = FigurePanel.replace_artists(old, lambda: ax.plot([0, 1], [0.5, 0.5]))
    assert ax.get_lines() == new and len(new) == 1 and all(a.axes is None for a in old)


def test_save_figure_writes_the_byte_stable_png(tmp_path):
    def figure():
        fig, ax = new_figure(2.0, 2.0)
        ax.plot([0, 1], [0, 1])
        return fig

    path = save_figure(figure(), tmp_path / "f.png")
    assert path == tmp_path / "f.png" and path.read_bytes() == figure_png(figure())


# ---------------------------------------------------------------------------
# what is particular to one panel
# ---------------------------------------------------------------------------

def test_toy_explorer_slider_ranges_are_the_documented_ones():
    from ensemble_lib.lessons.toy_posterior import ALPHA_RANGE, N_RANGE, NOISE_SD_RANGE, SEED_RANGE

    c = _get("ToyExplorer").controls
    assert c["alpha"].min == pytest.approx(np.log10(ALPHA_RANGE[0]))
    assert c["alpha"].max == pytest.approx(np.log10(ALPHA_RANGE[1]))
    assert c["noise_sd"].min == pytest.approx(np.log10(NOISE_SD_RANGE[0]))
    assert (c["n"].min, c["n"].max) == N_RANGE
    assert (c["seed"].min, c["seed"].max) == SEED_RANGE
    assert (c["rank"].min, c["rank"].max) == (0, 1)


def test_ensemble_panel_slider_ranges_are_the_documented_ones():
    from ensemble_lib.lessons.mean_sigma import BETA0_RANGE, K_RANGE, N_RANGE, S_RANGE, XBAR_RANGE

    c = _get("EnsemblePanel").controls
    assert (c["k"].min, c["k"].max) == K_RANGE
    assert (c["N"].min, c["N"].max) == N_RANGE
    assert (c["xbar"].min, c["xbar"].max) == XBAR_RANGE
    assert c["S"].min == pytest.approx(math.log10(S_RANGE[0]))
    assert c["S"].max == pytest.approx(math.log10(S_RANGE[1]))
    assert c["beta0"].min == pytest.approx(math.log10(BETA0_RANGE[0]))
    assert c["beta0"].max == pytest.approx(math.log10(BETA0_RANGE[1]))


def test_ensemble_panel_readout_is_for_the_chosen_sweep():
    p = _get("EnsemblePanel")
    p.controls["k"].value = 3
    st = p.state
    assert st.it.k == 3 and st.it is st.run[3]
    assert f"{st.it.kl:.6g}" in p.readout.value and f"{st.model.sigma_N1 ** 2:.6g}" in p.readout.value


def test_ensemble_panel_draws_the_extreme_corners():
    p = _get("EnsemblePanel")
    for N, xbar, S, beta0 in [(2, -3.0, 0.05, 100.0), (50, 3.0, 20.0, 0.01), (2, 3.0, 20.0, 0.01)]:
        for name, v in (("N", N), ("xbar", xbar), ("S", S), ("beta0", beta0), ("k", 0)):
            p.controls[name].value = v
            assert p.last_error is None, (name, v, p.last_error)


def test_moving_a_bound_slider_makes_q_custom():
    p = _get("BoundPanel")
    assert p.controls["snap"].value == "full"
    for name, value in [("mean_u", -0.3), ("mean_v", -1.0), ("sd_u", 0.07), ("sd_v", 0.3), ("rho", -0.5)]:
        p.controls[name].value = value
        assert p.last_error is None, p.last_error
        assert p.controls["snap"].value == "custom"
        assert p.state.bound <= p.state.log_evidence


@pytest.mark.parametrize("name", ["laplace", "diagonal", "full"])
def test_snapping_reproduces_the_fits_in_one_update(name):
    p = _get("BoundPanel")
    p.controls["rho"].value = 0.3  # away from every fit
    n0 = p.n_updates
    p.controls["snap"].value = name
    assert p.last_error is None
    assert p.n_updates == n0 + 1  # one redraw for five slider moves
    fit = getattr(p.fits, name)
    assert p.state.kl == pytest.approx(fit.kl, abs=1e-8)
    assert p.state.bound == pytest.approx(fit.bound, abs=1e-8)
    assert f"{fit.kl:.6f}" in p.readout.value
    # and from code, as the notebook does it
    n0 = p.n_updates
    assert p.snap("laplace") is p.state and p.n_updates == n0 + 1
    assert p.state.kl == pytest.approx(p.fits.laplace.kl, abs=1e-8) and p.controls["snap"].value == "laplace"


def test_bound_slider_sweep_is_finite():
    """Corners and random points of every slider's range: finite F, F ≤ ln P(D)."""
    from ensemble_lib.lessons.bound import LOG10_SD_RANGE, RHO_MAX

    p = _get("BoundPanel")
    c = p.controls
    rng = np.random.default_rng(3)
    corners = [(u, v, 10 ** su, 10 ** sv, r)
               for u in (c["mean_u"].min, c["mean_u"].max) for v in (c["mean_v"].min, c["mean_v"].max)
               for su in LOG10_SD_RANGE for sv in LOG10_SD_RANGE for r in (-RHO_MAX, RHO_MAX)]
    randoms = [(rng.uniform(c["mean_u"].min, c["mean_u"].max), rng.uniform(c["mean_v"].min, c["mean_v"].max),
                10 ** rng.uniform(*LOG10_SD_RANGE), 10 ** rng.uniform(*LOG10_SD_RANGE),
                rng.uniform(-RHO_MAX, RHO_MAX)) for _ in range(20)]
    for vals in corners + randoms:
        s = p.compute(*vals, snap="custom")
        assert np.isfinite(s.bound) and np.isfinite(s.kl) and s.kl >= 0, vals
    # and through the widgets, at the extreme corner
    c["sd_u"].value, c["sd_v"].value, c["rho"].value = 10 ** LOG10_SD_RANGE[0], 10 ** LOG10_SD_RANGE[1], RHO_MAX
    assert p.last_error is None


def test_iteration_panel_draws_the_posterior_at_that_iterations_hyperparameters():
    p = _get("HyperIterationPanel")
    for name, value in SPEC["HyperIterationPanel"]["moves"]:
        p.controls[name].value = value
    assert p.state.method == "ensemble" and p.state.i == 1
    assert p.state.alpha == pytest.approx(p.comp.ensemble.alpha[1])


def test_changing_the_method_clamps_the_iteration_slider_in_one_update():
    p = _get("HyperIterationPanel")
    ens, ev = p.comp.ensemble, p.comp.evidence
    it = p.controls["iteration"]
    assert it.max == ens.n_iter - 1
    it.value = it.max
    n0 = p.n_updates
    p.controls["method"].value = "evidence"
    assert p.n_updates == n0 + 1 and it.max == ev.n_iter - 1
    assert it.value == min(ens.n_iter, ev.n_iter) - 1 and p.state.i == it.value


def test_every_iteration_of_both_methods_draws():
    p = _get("HyperIterationPanel")
    for method in ("ensemble", "evidence"):
        p.controls["method"].value = method
        for i in range(p.controls["iteration"].max + 1):
            p.controls["iteration"].value = i
            assert p.last_error is None
            assert np.all(np.isfinite(p.state.grid.log_density))


def test_network_alpha_slider_is_disabled_exactly_while_hyperparameters_are_adapted():
    p = _get("Network1DPanel")
    alpha = p.controls["alpha"]
    p.controls["adapt"].value = True
    assert alpha.disabled
    png = p.image.value
    alpha.value = 10.0  # ignored while adapting: same fit, same figure
    assert p.image.value == png
    p.controls["adapt"].value = False
    assert not alpha.disabled and p.image.value != png


def test_network_slider_ranges_are_the_documented_ones():
    from ensemble_lib.lessons import networks as demo

    c = _get("Network1DPanel").controls
    assert (c["n_hidden"].min, c["n_hidden"].max) == demo.H_RANGE
    assert (c["rank"].min, c["rank"].max) == demo.S_RANGE
    assert (c["alpha"].min, c["alpha"].max) == demo.LOG10_ALPHA_RANGE


def test_svi_explorer_optima_are_the_quadrature_fits():
    from ensemble_lib.inference.kl_fit import kl_fit
    from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

    p = _get("SVIExplorer")
    post = make_posterior(**PAPER_PRESET)
    for fam in ("full", "diagonal"):
        assert p.optima[fam].kl == pytest.approx(kl_fit(post, fam).kl, abs=1e-8)


def test_svi_explorer_offers_every_sample_size_schedule_and_family():
    from ensemble_lib.inference.svi import SCHEDULES, SVI_FAMILIES
    from ensemble_lib.lessons.stochastic_vi import SAMPLE_OPTIONS, SEED_RANGE, STEP_RANGE

    c = _get("SVIExplorer").controls
    assert _choices(c["n_samples"]) == list(SAMPLE_OPTIONS)
    assert _choices(c["schedule"]) == list(SCHEDULES) and _choices(c["family"]) == list(SVI_FAMILIES)
    assert _choices(c["step_size"]) == pytest.approx(list(STEP_RANGE))
    assert (c["seed"].min, c["seed"].max) == SEED_RANGE
