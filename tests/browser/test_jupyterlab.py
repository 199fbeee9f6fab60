"""Every notebook in a real JupyterLab: run all cells, move every slider, type bad input.

For each ``notebooks/*.ipynb`` (discovered, not listed) the module-scoped
``notebook`` fixture opens ``notebooks/NAME`` in JupyterLab in Chromium, clears the
stored outputs, runs all cells from the Run menu and waits until every code
cell has an execution count (or an error output) and the kernel is idle.
One JupyterLab page serves every notebook (the ``lab`` fixture: the first notebook
is opened as ``/lab/tree/notebooks/NAME?reset``, the next ones with JupyterLab's
``docmanager:open`` once the previous one is closed and its kernel shut down; a
page left in a bad state is replaced by a fresh one). Each notebook's tests see
only its own console messages and server log.
The tests then check, on that live page:

* no cell raised; no widget shows as plain text; the number of panels equals
  the number the notebook displays (coverage rule in ``_support.py``) and no
  slider/dropdown/figure lies outside a panel; every display equation rendered
  (no MathJax error, no raw TeX); every exercise solution opens collapsed (code
  and output) and its code stays collapsed through the run, showing only its
  neutral first line; after the run, each solution's printed answer is still
  folded ("Solution k (click to show)", ``ensemble_lib.ui.solution``);
* each panel's readout shows the numbers the text's "Where it opens" paragraph states
  (``tests/_start_state.py``), before anything is moved;
* each panel, as it opens, fits the notebook area of a 1366 × 768 screen (viewport
  1366 × 657, JupyterLab's default layout with its file browser open): controls, image,
  readout and status line within the visible area in width and height, the image at its
  rendered size, no clipped text, no font below 11 px (sizes in ``panel-fit.json``);
* every slider of every panel, moved once by a mouse drag and once by a key
  press, gives a new figure (different PNG bytes, not only a new URL) and a
  new readout; every dropdown too;
* typing an out-of-range and a non-numeric value into a slider's box: clamped
  or refused, and said in the status line; the panel keeps working (see
  ``test_bad_input_in_slider_boxes``);
* key-press-to-pixels latency of one slider per panel (reported, not asserted);
* no traceback or uncaught error in the browser console or the server log.
"""

from __future__ import annotations

import collections.abc
import contextlib
import re
import warnings
from urllib.parse import quote

import pytest

import _support as S
from _start_state import missing_numbers, stated_starts

# Out of range for every slider of the suite, and an integer so IntSlider's
# parseInt and FloatSlider's parseFloat read the same number.
TOO_BIG = "99999999999"

# The notebook at `path` (relative to the server's root) is the current widget, shown, loaded (a
# widget for every cell), its kernel idle.
JS_APP_READY = """(path) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(w && w.content && w.content.model && w.context && w.context.isReady && w.context.path === path
            && w.isVisible && w.content.widgets.length === w.content.model.cells.length
            && k && k.status === 'idle');
}"""

# The shared JupyterLab page is ready for the next notebook: the app is there, no document is open
# in it (the last notebook's widget, and so its cells and panels, gone from the page; JupyterLab puts
# its Launcher in the empty main area), no dialog or menu is open, and the left sidebar is as it was
# when the app loaded (`sidebar`: open or not).
JS_LAB_CLEAN = """(sidebar) => {
  const app = window.jupyterapp;
  if (!(app && app.shell && app.commands)) return false;
  const stack = document.querySelector('#jp-left-stack');
  const open = !!stack && !stack.classList.contains('lm-mod-hidden') && stack.offsetWidth > 0;
  return [...app.shell.widgets('main')].every(w => !w.context)
         && !document.querySelector('.jp-NotebookPanel, .jp-Notebook, .jp-Dialog, .lm-Menu')
         && open === sidebar;
}"""

# Close every document in the main area without a save dialog (its outputs are this run's, in a
# temporary copy of the notebooks); JupyterLab does not shut the kernel down, the fixture does.
JS_CLOSE_DOCUMENTS = """() => {
  for (const w of [...window.jupyterapp.shell.widgets('main')]) {
    if (!w.context) continue;
    if (w.context.model) w.context.model.dirty = false;
    w.close();
  }
}"""

# The documents are closed (their widgets gone from the page).
JS_DOCUMENTS_CLOSED = """() => [...window.jupyterapp.shell.widgets('main')].every(w => !w.context)
                             && !document.querySelector('.jp-NotebookPanel, .jp-Notebook')"""

# Once the notebook is open: close the other tabs of the main area (the Launcher) so the layout is
# the one a notebook opened from its URL gets, and forget what the last notebook's tests left on
# `window` (the drag test's observer of a panel that no longer exists, the latency probe).
JS_AFTER_OPEN = """(path) => {
  const app = window.jupyterapp;
  for (const w of [...app.shell.widgets('main')]) {
    if (!(w.context && w.context.path === path)) w.close();
  }
  if (window.__frameObs) window.__frameObs.disconnect();
  delete window.__frameObs; delete window.__frames; delete window.__values; delete window.__lat;
}"""

JS_SIDEBAR_OPEN = """() => { const s = document.querySelector('#jp-left-stack');
  return !!s && !s.classList.contains('lm-mod-hidden') && s.offsetWidth > 0; }"""

JS_RUN_DONE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const code = [...w.content.model.cells].filter(
      c => c.type === 'code' && c.sharedModel.getSource().trim() !== '');
  const failed = code.some(c => c.outputs.toJSON().some(o => o.output_type === 'error'));
  const done = code.every(c => c.executionCount !== null);
  const k = w.sessionContext.session.kernel;
  return (failed || done) && k.status === 'idle';
}"""

JS_CELL_REPORT = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const out = {errors: [], not_run: [], n_code: 0};
  [...w.content.model.cells].forEach((c, i) => {
    if (c.type !== 'code' || c.sharedModel.getSource().trim() === '') return;
    out.n_code += 1;
    if (c.executionCount === null) out.not_run.push(i);
    for (const o of c.outputs.toJSON()) {
      if (o.output_type === 'error') out.errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
    }
  });
  return out;
}"""


# Solution cells (tagged `solution`) that show more than their neutral first line: the code must stay
# collapsed, and nothing of it but the first line be on the page; with `ran` false (the lesson as
# opened) the outputs must be collapsed too. (Running a cell expands its outputs: JupyterLab's
# CodeCell.execute sets outputHidden = false, so after Run All a solution's printout shows.)
JS_SOLUTIONS_SHOWN = """(ran) => {
  const w = window.jupyterapp.shell.currentWidget;
  const out = [];
  w.content.widgets.forEach((cell, i) => {
    if (!(cell.model.getMetadata('tags') || []).includes('solution')) return;
    const lines = cell.model.sharedModel.getSource().split('\\n').slice(1).map(l => l.trim())
      .filter(l => l.length > 12);
    const text = cell.node.innerText || '';
    const shown = lines.filter(l => text.includes(l));
    if (!cell.inputHidden || !(ran || cell.outputHidden) || shown.length)
      out.push(`cell ${i}: input hidden ${cell.inputHidden}, outputs hidden ${cell.outputHidden}`
               + (shown.length ? `, shows ${JSON.stringify(shown[0].slice(0, 60))}` : ''));
  });
  return out;
}"""


# After Run All: every solution's output is its folded block alone (ensemble_lib.ui.solution), closed
JS_SOLUTION_ANSWERS_SHOWN = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const out = [];
  w.content.widgets.forEach((cell, i) => {
    if (!(cell.model.getMetadata('tags') || []).includes('solution')) return;
    const area = cell.node.querySelector('.jp-OutputArea');
    const folds = area ? [...area.querySelectorAll('details')] : [];
    const visible = (area ? area.innerText : '').replace(/Solution \\d+ \\(click to show\\)/g, '').trim();
    if (folds.length !== 1 || folds[0].open || visible)
      out.push(`cell ${i}: ${folds.length} folded block(s)${folds.some(f => f.open) ? ', open' : ''}`
               + (visible ? `, shows ${JSON.stringify(visible.slice(0, 60))}` : ''));
  });
  return out;
}"""

#: the size of the page the notebooks are opened in (the fit test shrinks it for a while)
LAB_VIEWPORT = (1400, 1100)
#: how long a shared page may take to show it is ready for the next notebook before it is replaced
LAB_CLEAN_MS = 10_000


class _Since(collections.abc.Sequence):
    """The console messages a page logged from index ``start`` on (up to ``end`` once the notebook
    is closed): a notebook's own messages in a page that served other notebooks before it."""

    def __init__(self, messages: list, start: int):
        self.messages, self.start, self.end = messages, start, None

    def _items(self) -> list:
        return self.messages[self.start:self.end]

    def __getitem__(self, i):
        return self._items()[i]

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self):
        return iter(self._items())

    def __repr__(self) -> str:
        return repr(self._items())


class LabPage:
    """JupyterLab in one Chromium page, reused from notebook to notebook.

    Loading the app in a new page (``page.goto`` to the kernel idle) took 4-5.5 s per notebook on
    a 2-core machine, opening a notebook in the loaded app 1.2-1.6 s, and running a small lesson
    1-2.5 s; so the app is loaded once and each notebook is opened in it. :meth:`open` checks
    the page is clean first (:data:`JS_LAB_CLEAN`); a page that is closed, crashed, shows a
    dialog or still holds a document is replaced by a fresh one, which opens the notebook from
    its URL (``/lab/tree/notebooks/NAME?reset``) as each notebook used to be opened. So a
    failure in one notebook does not carry over to the next.
    """

    def __init__(self, browser, server):
        self.browser, self.server = browser, server
        self.context = self.page = None
        self.messages: list[tuple[str, str]] = []
        self.sidebar_open: bool | None = None

    def discard(self) -> None:
        """Close the page and its browser context (the next :meth:`open` starts a fresh one)."""
        if self.context is not None:
            with contextlib.suppress(Exception):
                self.context.close()
        self.context = self.page = None

    def _clean(self) -> bool:
        if self.page is None or self.page.is_closed():
            return False
        try:
            self.page.wait_for_function(JS_LAB_CLEAN, arg=self.sidebar_open, timeout=LAB_CLEAN_MS)
            return True
        except Exception:  # noqa: BLE001 - a broken page is replaced
            return False

    def open(self, path: str) -> int:
        """Make notebook ``path`` the current widget with its kernel idle, in a page of the default
        size; return where its console messages start in :attr:`messages`."""
        if self._clean():
            start = len(self.messages)
            try:
                if self.page.viewport_size != dict(zip(("width", "height"), LAB_VIEWPORT)):
                    self.page.set_viewport_size(dict(zip(("width", "height"), LAB_VIEWPORT)))
                self.page.evaluate(
                    "(p) => { window.jupyterapp.commands.execute('docmanager:open', {path: p}); }", path)
                self.page.wait_for_function(JS_APP_READY, arg=path, timeout=S.PAGE_LOAD_MS)
                self.page.evaluate(JS_AFTER_OPEN, path)
                self.page.wait_for_function(JS_APP_READY, arg=path, timeout=S.PAGE_LOAD_MS)
                return start
            except Exception:  # noqa: BLE001 - opened afresh below, keeping what the page logged
                carried = self.messages[start:]
                S.shutdown_all_sessions(self.server.base)  # the fresh page starts its own kernel
        else:
            carried = []
        self.discard()
        self.context, self.page, self.messages = S.open_page(self.browser, *LAB_VIEWPORT)
        self.messages.extend(carried)
        self.page.goto(S.page_url(f"{self.server.base}/lab/tree/{quote(path)}?reset"), timeout=S.PAGE_LOAD_MS)
        self.page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=S.PAGE_LOAD_MS)
        self.page.wait_for_function(JS_APP_READY, arg=path, timeout=S.PAGE_LOAD_MS)
        self.sidebar_open = self.page.evaluate(JS_SIDEBAR_OPEN)
        return 0

    def close_documents(self) -> None:
        """Close the open notebook (no save dialog) before its kernel is shut down; a page where
        that fails is discarded."""
        if self.page is None:
            return
        try:
            self.page.evaluate(JS_CLOSE_DOCUMENTS)
            self.page.wait_for_function(JS_DOCUMENTS_CLOSED, timeout=LAB_CLEAN_MS)
        except Exception:  # noqa: BLE001
            self.discard()


@pytest.fixture(scope="module")
def lab(browser, lab_server):
    """The JupyterLab page the notebooks are opened in, one after the other (see :class:`LabPage`)."""
    lab = LabPage(browser, lab_server)
    try:
        yield lab
    finally:
        lab.discard()
        S.shutdown_all_sessions(lab_server.base)


@pytest.fixture(scope="module", params=S.notebooks(), ids=lambda p: p.stem)
def notebook(request, lab, lab_server, artifacts, panel_classes):
    """A live JupyterLab page with the notebook run top to bottom."""
    nb = request.param
    shots = artifacts / "jupyterlab" / nb.stem
    shots.mkdir(parents=True, exist_ok=True)
    log_start = len(lab_server.log_text())
    info = {"nb": nb, "page": None, "shots": shots, "messages": None,
            "expected": S.expected_panels(nb, panel_classes), "server": lab_server,
            "log_start": log_start}
    try:
        start = lab.open(f"notebooks/{nb.name}")
        page = info["page"] = lab.page
        info["messages"] = _Since(lab.messages, start)
        info["solutions_on_open"] = page.evaluate(JS_SOLUTIONS_SHOWN, False)
        # Clear the stored outputs first, so "every code cell has a count" means "ran now".
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        page.wait_for_function(JS_RUN_DONE, timeout=S.RUN_ALL_MS, polling=250)
        info["cells"] = page.evaluate(JS_CELL_REPORT)
        if info["expected"]:
            # widgets render asynchronously after the kernel is idle
            try:
                page.wait_for_function(
                    "([sel, n]) => document.querySelectorAll(sel).length >= n && "
                    "[...document.querySelectorAll(sel + ' > .widget-image')]"
                    ".every(i => i.complete && i.naturalWidth > 0)",
                    arg=[S.PANEL_SELECTOR, info["expected"]], timeout=S.UPDATE_MS)
            except Exception:  # the test below reports the count mismatch
                pass
        page.screenshot(path=str(shots / "00_after_run_all.png"))
        yield info
    finally:
        if info["messages"] is not None:
            info["messages"].end = len(info["messages"].messages)
        if info["page"] is not None:
            with contextlib.suppress(Exception):
                info["page"].screenshot(path=str(shots / "99_end.png"))
        if info["page"] is None or info["page"] is not lab.page:
            lab.discard()  # the notebook never opened: start the next one afresh
        else:
            lab.close_documents()
        S.shutdown_all_sessions(lab_server.base)


def _panels(info) -> list[S.Panel]:
    page = info["page"]
    n = page.locator(S.PANEL_SELECTOR).count()
    return [S.Panel(page, i, f"p{i + 1}", info["shots"]) for i in range(n)]


def test_all_cells_run_and_every_widget_renders(notebook):
    cells = notebook["cells"]
    assert not cells["errors"], f"{notebook['nb'].name}: cells raised: {cells['errors']}"
    assert not cells["not_run"], f"{notebook['nb'].name}: code cells not run: {cells['not_run']}"
    page = notebook["page"]
    as_text = S.plain_text_widgets(page)
    assert not as_text, f"widgets rendered as plain text (front-end missing?): {as_text}"
    found = page.locator(S.PANEL_SELECTOR).count()
    assert found == notebook["expected"], (
        f"{notebook['nb'].name}: the notebook displays {notebook['expected']} FigurePanel(s) "
        f"(cells ending in `panel.widget` / display(panel)) but the browser shows {found}")
    stray = S.stray_controls(page)
    assert not stray, f"controls/figures outside any FigurePanel (not exercised by this suite): {stray}"
    broken = S.broken_markdown_images(page)
    assert not broken, f"{notebook['nb'].name}: images in markdown cells that do not load: {broken}"
    maths = S.math_problems(page)
    assert not maths, f"{notebook['nb'].name}: display maths that did not render:\n" + "\n".join(maths)
    on_open = notebook["solutions_on_open"]
    assert not on_open, f"{notebook['nb'].name}: exercise solutions visible when the lesson opens: {on_open}"
    shown = page.evaluate(JS_SOLUTIONS_SHOWN, True)
    assert not shown, f"{notebook['nb'].name}: exercise solutions' code visible after Run All: {shown}"


def test_panels_open_where_the_text_says(notebook):
    """After Run All, each panel's readout shows the numbers its "Where it opens" paragraph states
    (issue: a solution cell once left lesson 3's panel elsewhere than the text said)."""
    stated = stated_starts(notebook["nb"])
    panels = _panels(notebook)
    assert len(panels) == len(stated), f"{len(panels)} panels, {len(stated)} 'Where it opens' paragraphs"
    problems = []
    for p, s in zip(panels, stated):
        p.wait_idle()
        readout = p.state()["readout"]
        missing = missing_numbers(s["numbers"], readout)
        if missing:
            p.screenshot("opens-elsewhere", failed=True)
            problems.append(f"{p.label}: the text says {s['text']!r}; the readout lacks {missing}: {readout!r}")
    assert not problems, "\n".join(problems)


def test_every_panel_fits_a_1366x768_screen(notebook):
    """Each panel, as it opens, fits in the notebook area a 1366 × 768 laptop shows (issue 15, item 4).

    The page is resized to :data:`_support.SMALL_VIEWPORT` (1366 × 657: the screen less
    :data:`_support.BROWSER_CHROME_PX` for the browser's tab strip and address bar and the
    desktop's taskbar), with JupyterLab's layout as it opened (menu, tab bar, notebook toolbar,
    status bar, and the left sidebar if open). Each panel is scrolled to the top of the
    notebook; the union of the boxes of its controls, image, readout and status line must
    lie within the notebook's visible area, in width and in height, with its image shown at
    its rendered size, no clipped text and no font below :data:`_support.MIN_FONT_PX`.
    Measured sizes go to ``panel-fit.json`` and a screenshot of each panel in the window to
    the artefacts. The page is set back to its size afterwards.
    """
    page = notebook["page"]
    big = page.viewport_size
    rows, problems = [], []
    try:
        page.set_viewport_size(dict(zip(("width", "height"), S.SMALL_VIEWPORT)))
        page.wait_for_timeout(500)  # JupyterLab lays its panels out again on resize
        for p in _panels(notebook):
            p.wait_idle()
            m = S.panel_fit(p)
            area = m["area"]
            shot = notebook["shots"] / f"{p.label}_fit_{S.SMALL_VIEWPORT[0]}x{S.SMALL_VIEWPORT[1]}.png"
            page.screenshot(path=str(shot))
            rows.append({"notebook": notebook["nb"].name, "panel": p.label,
                         "width_px": round(m["width"]), "height_px": round(m["height"]),
                         "area_px": [round(area["width"]), round(area["height"])],
                         "image_px": m["image"]["shown"] if m["image"] else None,
                         "min_font_px": m["min_font_px"], "sidebar_open": m["sidebar_open"],
                         "problems": m["problems"]})
            print(f"{notebook['nb'].name} {p.label}: {m['width']:.0f} × {m['height']:.0f} px in a "
                  f"{area['width']:.0f} × {area['height']:.0f} px notebook area"
                  + (f": {'; '.join(m['problems'])}" if m["problems"] else ""))
            problems += [f"{p.label}: {x}" for x in m["problems"]]
    finally:
        page.set_viewport_size(big)
    S.record_panel_fit(notebook["nb"].name, rows)
    assert not problems, (f"{notebook['nb'].name}: panels that do not fit a {S.SCREEN[0]} × {S.SCREEN[1]} "
                          f"screen (viewport {S.SMALL_VIEWPORT[0]} × {S.SMALL_VIEWPORT[1]}):\n"
                          + "\n".join(problems))


def test_solution_answers_stay_folded_after_run_all(notebook):
    """Run All runs every solution and JupyterLab expands a collapsed output when its cell runs;
    the answer must still be behind its closed "Solution k (click to show)" block."""
    shown = notebook["page"].evaluate(JS_SOLUTION_ANSWERS_SHOWN)
    assert not shown, f"{notebook['nb'].name}: solution answers visible after Run All: {shown}"


def test_every_slider_moves_by_drag_and_by_keyboard(notebook):
    """Each slider, by a mouse drag and by a key press, gives a new figure and readout.

    A slider the panel shows disabled (irrelevant at the current values, see
    FigurePanel.inactive_controls) is moved after the panel's other controls
    (dropdowns, toggles, checkboxes) have been changed; it must be enabled by
    then. Sliders in ``KNOWN_DEAD_SLIDERS`` are reported as warnings, and fail
    the test once they work.
    """
    problems: list[str] = []
    panels = _panels(notebook)
    n_controls = 0
    nb_name = notebook["nb"].name
    for_docs = bool(panels) and notebook["nb"] == S.first_notebook_with_panels()

    def move(p, j, slider):
        label = p.slider_name(slider)
        name = f"{p.label} slider '{label}'"
        known = S.KNOWN_DEAD_SLIDERS.get((nb_name, label))
        timeout = S.KNOWN_DEAD_TIMEOUT_MS if known else S.UPDATE_MS
        moved = p.expect_update(lambda: p.drag(slider), f"{name} (drag)", timeout=timeout)
        docs_shot = for_docs and p.index == 0 and j == 0 and not moved
        shot = p.screenshot(f"{j + 1}_{label}_after_drag", always=docs_shot, failed=bool(moved))
        if docs_shot:  # README screenshot 2: a slider moved
            S.maybe_update_docs(shot, "jupyterlab-slider-moved.png")
        n_before = len(moved)
        moved += p.expect_update(lambda: p.key_step(slider), f"{name} (key)", timeout=timeout)
        p.screenshot(f"{j + 1}_{label}_after_key", failed=len(moved) > n_before)
        if not known:
            return moved
        if moved:
            warnings.warn(f"{nb_name} {name}: known dead slider ({known}): {moved}", stacklevel=1)
            return []
        return [f"{name} now works: remove it from KNOWN_DEAD_SLIDERS in _support.py"]

    for p in panels:
        p.wait_idle()
        p.screenshot("0_before", always=True)
        if for_docs and p.index == 0:  # README screenshot 1: the lesson with its panel, in JupyterLab
            p.loc.evaluate("e => e.scrollIntoView({block: 'start'})")
            window = notebook["shots"] / "window_with_panel.png"
            notebook["page"].screenshot(path=str(window))
            S.maybe_update_docs(window, "jupyterlab-notebook.png")
        deferred = []
        for j, slider in enumerate(p.sliders()):
            if not p.is_enabled(slider):
                deferred.append((j, slider))
                continue
            problems += move(p, j, slider)
            n_controls += 1
        for j, ctl in enumerate(p.choices()):
            name = f"{p.label} control '{p.choice_name(ctl)}'"
            chose = p.expect_update(lambda: p.choose_other(ctl), name)
            problems += chose
            p.screenshot(f"c{j + 1}_{p.choice_name(ctl)}_after_choice", failed=bool(chose))
            n_controls += 1
        for j, slider in deferred:  # disabled at first: the other controls have moved since
            if p.is_enabled(slider):
                problems += move(p, j, slider)
                n_controls += 1
            else:
                problems.append(f"{p.label} slider '{p.slider_name(slider)}' stayed disabled "
                                "after every other control was changed (never exercised)")
        unknown = p.unknown_controls()
        if unknown:
            problems.append(f"{p.label}: controls this suite cannot move (not exercised): {unknown}")
    if len(panels) and not n_controls:
        problems.append("panels without sliders or dropdowns")
    S.VISITED["lab"][nb_name] = len(panels) if not problems else -1
    assert not problems, "\n".join(problems)


def test_bad_input_in_slider_boxes(notebook):
    """Out-of-range and non-numeric text typed into a slider's value box, and what the panel says.

    What the user sees (issue 15 item 5): each slider's value is in a box of the panel's
    own beside it. An out-of-range number is clamped to the slider's limit (the box and
    handle jump to the limit, the figure redraws there) and the status line says so
    ("… must be in [lo, hi]; set to hi"); a non-numeric entry is refused, the box
    reverts to the current value and the status line says so ("“abc” is not a number");
    both notes are visible. Afterwards a normal slider step must still redraw the figure
    (and clears the note).
    """
    problems: list[str] = []
    for p in _panels(notebook):
        # a slider over a list of stored settings (ipywidgets' SelectionSlider, lessons 5 and 9) has no
        # value box to type into: the first slider that has one
        sliders = [s for s in p.enabled_sliders()
                   if s.locator("xpath=..").locator(".panel-value-box input").count()]
        if not sliders:
            continue
        slider = sliders[0]
        name = f"{p.label} slider '{p.slider_name(slider)}'"
        handle = slider.locator(".noUi-handle")
        box = slider.locator("xpath=..").locator(".panel-value-box input")
        p.settle()

        def type_into_box(text):
            box.click()
            p.page.keyboard.press("Control+a")
            p.page.keyboard.type(text)
            p.page.keyboard.press("Enter")

        def status_visible() -> bool:
            return p.loc.locator(":scope > .widget-html").nth(1).is_visible()

        at_max = float(handle.get_attribute("aria-valuenow")) >= float(handle.get_attribute("aria-valuemax"))
        if at_max:
            problems += p.expect_update(lambda: p.key_step(slider, "ArrowLeft"), f"{name} (step off the limit)")
        problems += p.expect_update(lambda: type_into_box(TOO_BIG), f"{name} (typed {TOO_BIG})")
        p.settle()
        st = p.state()
        if not re.search(r"must be in \[.*\]; set to", st["status"]) or not status_visible():
            problems.append(f"{name}: typing {TOO_BIG} was not said in the status line: {st['status']!r}")
        if float(handle.get_attribute("aria-valuenow")) != float(handle.get_attribute("aria-valuemax")):
            problems.append(f"{name}: typing {TOO_BIG} did not clamp the slider to its maximum")
        if TOO_BIG in box.input_value().replace(",", ""):
            problems.append(f"{name}: the box still shows the out-of-range value: {box.input_value()!r}")
        p.screenshot("bad_input_1_out_of_range", failed=bool(problems))

        shown = box.input_value()
        value = handle.get_attribute("aria-valuenow")
        src = p.state()["src"]
        type_into_box("abc")
        try:
            p.page.wait_for_function("(panel) => /is not a number/.test(panel.innerText)", arg=p.el,
                                     timeout=S.UPDATE_MS)
        except Exception:  # noqa: BLE001 - reported below
            pass
        p.settle()
        if "is not a number" not in p.state()["status"] or not status_visible():
            problems.append(f"{name}: a non-numeric entry was not said in the status line: {p.state()['status']!r}")
        if handle.get_attribute("aria-valuenow") != value or p.state()["src"] != src:
            problems.append(f"{name}: a non-numeric entry changed the slider or figure")
        if box.input_value() != shown:
            problems.append(f"{name}: the box did not revert to {shown!r}: {box.input_value()!r}")
        p.screenshot("bad_input_2_non_numeric", failed=bool(problems))
        # the panel still works
        problems += p.expect_update(lambda: p.key_step(slider, "ArrowLeft"), f"{name} (step after bad input)")
        p.screenshot("bad_input_3_step_after", always=True)
        if "Traceback" in p.state()["status"]:
            problems.append(f"{name}: a traceback is shown in the panel")
    assert not problems, "\n".join(problems)


def test_slider_latency_key_press_to_pixels(notebook, latency_report):
    """Median of 10 single key steps of the first slider of each panel (reported, never asserted)."""
    for p in _panels(notebook):
        sliders = p.enabled_sliders()
        if not sliders:
            continue
        slider = sliders[0]
        key = p.step_key(slider)
        other = {"ArrowLeft": "ArrowRight", "ArrowRight": "ArrowLeft"}
        samples = []
        for _ in range(10):  # alternate so the slider moves between two neighbouring values
            samples.append(p.latency_step(slider, key))
            key = other[key]
        latency_report.append({"notebook": notebook["nb"].name, "panel": p.label,
                               "slider": p.slider_name(slider), **S.summarise_latency(samples)})
        print(f"{notebook['nb'].name} {p.label}: median {latency_report[-1]['median_ms']:.0f} ms")


def test_no_traceback_in_console_or_kernel_log(notebook):
    console = S.console_problems(notebook["messages"])
    (notebook["shots"] / "console.log").write_text(
        "\n".join(f"{k}: {t}" for k, t in notebook["messages"]) + "\n")
    assert not console, "browser console:\n" + "\n".join(console)
    log = notebook["server"].log_text()[notebook["log_start"]:]
    bad = S.server_log_problems(log)
    assert not bad, "server/kernel log:\n" + "\n".join(bad)


def test_slider_drag_follows_the_hand(notebook, latency_report):
    """A one-second drag across the first slider of each panel: new figures during the drag, and
    the last figure is the final value's (a key step away and back redraws the same image).
    A panel whose step takes longer than the drag (a network fit, as lesson 4's panel would
    run on data without stored fits: still busy when the drag ends) need only show the final
    value's figure.

    The frames per second during the drag go to the latency report (never asserted)."""
    problems = []
    for p in _panels(notebook):
        # a slider over a list of stored settings (ipywidgets' SelectionSlider, lessons 5 and 9) has no
        # value box to type into: the first slider that has one
        sliders = [s for s in p.enabled_sliders()
                   if s.locator("xpath=..").locator(".panel-value-box input").count()]
        if not sliders:
            continue
        slider = sliders[0]
        name = f"{p.label} slider '{p.slider_name(slider)}'"
        r = p.timed_drag(slider)
        slow = p.state()["busy"]  # still computing the drag's first step when the drag ends
        if r["during"] < 1 and not slow:
            problems.append(f"{name}: no new figure during a one-second drag")
        _settle(p)
        after_drag, state_after_drag = p.image_hash(), p.state()
        key = p.step_key(slider)
        back = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
        problems += p.expect_update(lambda: p.key_step(slider, key), f"{name} (step after the drag)",
                                    need_readout=False)
        problems += p.expect_update(lambda: p.key_step(slider, back), f"{name} (and back)",
                                    need_readout=False)
        _settle(p)
        if p.image_hash() != after_drag:
            now = p.state()
            problems.append(f"{name}: the figure after the drag is not the final value's "
                            f"(values {state_after_drag['values']} -> {now['values']}; readout "
                            f"{'same' if now['readout'] == state_after_drag['readout'] else 'changed'})")
        S.DRAGS.append({"notebook": notebook["nb"].name, "panel": p.label,
                        "slider": p.slider_name(slider), **r})
        print(f"{notebook['nb'].name} {p.label}: {r['during']} frames, {r['values_passed']} values passed, "
              f"in {r['duration_ms']:.0f} ms "
              f"of drag, {r['moves']} mouse moves ({r['fps']:.1f} frames per second)")
    assert not problems, "\n".join(problems)


def _settle(p) -> None:
    """Wait until the panel's figure is final (kernel idle, no new image for half a second)."""
    p.settle()


# -- exercises that answer back, and the panels' Reset (issue 29) --------------------------------

#: put ``source`` into the notebook's first answer cell, run it and the check cell after it; the
#: check's output text once it has one
JS_ANSWER_AND_CHECK = """async (source) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const nb = panel.content;
  const tags = (c) => (c.model.getMetadata ? c.model.getMetadata('tags') : c.model.metadata.get('tags')) || [];
  const i = nb.widgets.findIndex(c => tags(c).includes('answer'));
  if (i < 0 || !tags(nb.widgets[i + 1]).includes('check')) return null;
  nb.widgets[i].model.sharedModel.setSource(source);
  nb.activeCellIndex = i;
  await window.jupyterapp.commands.execute('notebook:run-cell-and-select-next');
  await window.jupyterapp.commands.execute('notebook:run-cell-and-select-next');
  return i + 1;
}"""
JS_OUTPUT_TEXT = """(i) => {
  const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
  return cell.node.querySelector('.jp-OutputArea') ? cell.node.querySelector('.jp-OutputArea').innerText : '';
}"""


def test_a_wrong_answer_gets_its_check_message_and_hint(notebook):
    """The student's way: write a plausible wrong answer (the exercise's own declared one) in the
    first answer cell, run it and its check: the check says ✗ with a hint, not a traceback."""
    from ensemble_lib.lessons import exercise_sets

    sets = exercise_sets()
    if notebook["nb"].name not in sets:
        pytest.skip("no exercises in this notebook")
    exercises, _ = sets[notebook["nb"].name]
    first = exercises.names[0]
    source = ("from ensemble_lib.lessons import exercise_sets\n"
              f"globals().update(exercise_sets()[{notebook['nb'].name!r}][0][{first!r}].wrong(globals()))")
    page = notebook["page"]
    check_cell = page.evaluate(JS_ANSWER_AND_CHECK, source)
    assert check_cell is not None, "no answer cell followed by its check cell"
    page.wait_for_function(f"() => ({JS_OUTPUT_TEXT})({check_cell}).includes('✗') "
                           f"|| ({JS_OUTPUT_TEXT})({check_cell}).includes('✓')", timeout=S.UPDATE_MS)
    text = page.evaluate(JS_OUTPUT_TEXT, check_cell)
    page.screenshot(path=str(notebook["shots"] / "exercise_wrong_answer.png"))
    assert "✗" in text and "Hint:" in text and "not answered yet" not in text, text
    assert "Traceback" not in text and "Error" not in text.split("Hint:")[0], text


def _press_reset(p) -> None:
    """Press the panel's Reset and wait for the step it publishes (Reset always publishes one, even
    when nothing moved), then for a streaming run to end. Every panel's start values read in their
    boxes as their grid points do (tests/ui/test_panel.py), so after Reset boxes and handles agree
    whether or not the front end sends its grid point back."""
    before = p.state()["step"]
    p.loc.locator("button.panel-reset").first.click()
    p.page.wait_for_function(
        f"([el, n]) => {{ const s = ({S.JS_PANEL_STATE})(el); return s.step > n && !s.busy && s.complete; }}",
        arg=[p.el, before], timeout=S.UPDATE_MS)
    # a streaming panel (lesson 5's SVI run, lesson 7's refit) publishes a step per frame: wait until
    # its run is over (the readout and the step stop changing)
    last = None
    for _ in range(int(S.UPDATE_MS / 1000)):
        now = p.state()
        if last is not None and (now["step"], now["readout"]) == (last["step"], last["readout"]):
            return
        last = now
        p.page.wait_for_timeout(1000)


def test_reset_returns_a_moved_panel_to_its_start(notebook):
    """Reset takes the first panel back to the values it was built with, whatever the tests before
    left it at; moved a step and reset again, its value boxes, image and readout are those again."""
    panels = _panels(notebook)
    if not panels:
        pytest.skip("no panel in this notebook")
    p = panels[0]
    p.wait_idle()
    _press_reset(p)
    start, start_hash = p.state(), p.image_hash()
    handle = p.enabled_sliders()[0].locator(".noUi-handle").first
    problems = p.expect_update(lambda: (handle.focus(), handle.press("ArrowRight")), "key step")
    if problems:  # at the right end already: step the other way
        problems = p.expect_update(lambda: (handle.focus(), handle.press("ArrowLeft")), "key step back")
    assert not problems, problems
    moved = p.state()
    # the value boxes moved, or (a panel whose sliders are all over stored settings has none) its readout
    assert moved["boxes"] != start["boxes"] if start["boxes"] else moved["readout"] != start["readout"]
    _press_reset(p)
    end = p.state()
    p.screenshot("after reset", always=True)

    def timeless(text):  # a readout may report how long a run took (lesson 5)
        return re.sub(r"[\d.]+ ?(ms|s)\b", "<time>", text)
    assert end["boxes"] == start["boxes"] and timeless(end["readout"]) == timeless(start["readout"])
    if timeless(start["readout"]) == start["readout"]:  # the same figure (a timed run may differ)
        assert p.image_hash() == start_hash
