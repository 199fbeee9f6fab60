"""Every notebook as a Voilà app (code hidden), as a lecturer shows it: it renders, and a slider works.

For each ``notebooks/*.ipynb`` (discovered, not listed) the page
``/voila/render/NAME`` is opened on the ``voila_server`` fixture (Voilà serves
``notebooks/`` with the repository's ``voila.json``, as ``make app`` does: every
lesson but those in its ``preheat_denylist`` is run ahead in a kernel of Voilà's
preheated pool, and each visitor gets that kernel while a fresh one refills the
pool). The server log must say the page came from the pool (``Using pre-heated
kernel: ... for NAME``), or, for a lesson on the denylist, that it did not, so a
setting or a request that changes which lessons are pooled fails the test. The
test waits until
every FigurePanel the notebook displays has its figure, then checks that no
cell shows an error or a widget as plain text, that no exercise solution is on
the page (cells tagged ``solution`` are removed: one code cell on the page per
other code cell), that every display equation rendered (no MathJax error, no
raw TeX), and moves the first slider of the first panel by one key step: the
figure (its pixels) and the readout must change, and the panel's status line
must show no error. Notebooks without a panel (the learning path) must render
without error. With the learning path, Voilà's start page is checked to list
the lessons and nothing else.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

import _support as S

JS_ERROR_OUTPUTS = r"""() => [...document.querySelectorAll('.jp-OutputArea-output')]
    .filter(e => e.matches('[data-mime-type="application/vnd.jupyter.stderr"]')
                 || e.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]'))
    .map(e => e.innerText || '')
    .filter(t => /Traceback|\w+Error\b|Exception/.test(t))
    .map(t => t.slice(0, 400))"""

#: (cells tagged `solution`, `answer` or `check` on the page, code cells on the page);
#: Voilà names a cell's tags in its classes
JS_CODE_CELLS = """() => [document.querySelectorAll('.celltag_solution, .celltag_answer, .celltag_check').length,
                          document.querySelectorAll('.jp-Cell.jp-CodeCell').length]"""

#: the entries of Voilà's start page (a file browser rendered in the page)
JS_TREE_ENTRIES = """() => [...document.querySelectorAll('.jp-DirListing-itemText')]
    .map(e => (e.innerText || '').trim()).filter(t => t)"""


#: lessons Voilà does not run ahead (voila.json's preheat_denylist; none now: the two lessons that time
#: themselves take CPU time, tests/notebooks/test_claims_learning_path.py)
PREHEAT_DENIED = set(json.loads(S.VOILA_CONFIG.read_text(encoding="utf-8"))
                     .get("VoilaKernelManager", {}).get("preheat_denylist", []))


def _code_cells_without_solutions(nb) -> int:
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    left_out = {"solution", "answer", "check"}  # voila.json's remove_cell_tags: exercises need code
    return sum(c["cell_type"] == "code" and not left_out & set(c.get("metadata", {}).get("tags", []))
               for c in cells)


def _start_page_problems(context, base: str, shot) -> list[str]:
    """Voilà's start page (what `make app` opens) lists the lessons and nothing else of the repository.

    Opened in a page of its own (the start page's console is not the notebook's).
    """
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    lessons = sorted(nb.name for nb in S.notebooks())
    listed = f"() => ({JS_TREE_ENTRIES})().length >= {len(lessons)}"
    for attempt in range(2):
        page.goto(S.page_url(base + "/"), timeout=S.PAGE_LOAD_MS, wait_until="load")
        try:
            # the listing comes within a second or two, also under load; the reload gets the full wait
            page.wait_for_function(listed, timeout=START_PAGE_FIRST_TRY_MS if not attempt else S.UPDATE_MS)
        except PlaywrightTimeoutError:
            pass
        shown = sorted(page.evaluate(JS_TREE_ENTRIES))
        if shown or attempt:
            break
        # in two of five clean-clone CI runs under make test's load the page drew its listing's
        # header and no entry for a minute (nothing in the server log; never on a quiet machine):
        # a visitor reloads, and a wrong listing still fails below. The console goes beside the shot.
        Path(shot).with_suffix(".first_try_console.log").write_text("\n".join(console) + "\n")
        warnings.warn("Voilà's start page listed nothing within "
                      f"{START_PAGE_FIRST_TRY_MS // 1000} s; reloading once", stacklevel=1)
    page.screenshot(path=str(shot))
    return [] if shown == lessons else [f"Voilà's start page lists {shown}, not only the lessons {lessons}"]


#: the first wait for the start page's listing; then one reload (:func:`_start_page_problems`)
START_PAGE_FIRST_TRY_MS = 15_000
#: how long one attempt waits for a Voilà page's panels (see :func:`_open_rendered`)
VOILA_ATTEMPT_MS = 120_000
#: attempts at a Voilà page before the test fails, each in a fresh browser context
VOILA_ATTEMPTS = 3

#: every FigurePanel on the page (at least n) has a decoded figure
JS_RENDERED = ("([sel, n]) => document.querySelectorAll(sel).length >= n && "
               "[...document.querySelectorAll(sel + ' > .widget-image')]"
               ".every(i => i.complete && i.naturalWidth > 0)")


def _open_rendered(browser, url: str, expected: int, shots: Path, nb: Path):
    """Open ``url`` until its ``expected`` panels are drawn: ``(context, page, messages)`` of the page that drew.

    Voilà's known intermittent race (voila-dashboards/voila#920: the front end reports "widget
    model not found", and the server log may say "Starting buffering": the page's kernel connection
    was re-established) leaves a page whose widgets never appear; a visitor closes the tab and opens
    the link again. Each attempt is such a visitor: a fresh browser context (no state of the broken
    page is carried over; a reload in the same page, as this test did before, failed for 300 s
    under make test's load in one CI run), a fresh kernel from Voilà's pool, and a warning that
    says so. The test fails only if none of :data:`VOILA_ATTEMPTS` draws the panels within
    :data:`VOILA_ATTEMPT_MS` each. The console of each failed attempt goes beside the screenshots.
    """
    for attempt in range(1, VOILA_ATTEMPTS + 1):
        context, page, messages = S.open_page(browser, 1100, 1000)
        try:
            # Voilà streams the page while the kernel runs the notebook: "load" comes at the end.
            page.goto(url, timeout=S.RUN_ALL_MS, wait_until="load")
            page.wait_for_function(JS_RENDERED, arg=[S.PANEL_SELECTOR, expected], timeout=VOILA_ATTEMPT_MS)
            return context, page, messages
        except PlaywrightTimeoutError as exc:
            why = ("widget model not found" if any("widget model not found" in t for _, t in messages)
                   else "no console error")
            log = shots / f"{nb.stem}_console_attempt{attempt}.log"
            log.write_text(f"{exc}\n" + "\n".join(f"{k}: {t}" for k, t in messages) + "\n")
            try:
                page.screenshot(path=str(log.with_suffix(".png")))
            except PlaywrightTimeoutError:
                pass
            context.close()
            if attempt == VOILA_ATTEMPTS:
                raise AssertionError(f"{nb.name}: Voilà did not draw the panels in {VOILA_ATTEMPTS} attempts of "
                                     f"{VOILA_ATTEMPT_MS // 1000} s each (last: {why}; consoles in {shots})") from exc
            warnings.warn(f"{nb.name}: Voilà did not draw the panels within {VOILA_ATTEMPT_MS // 1000} s "
                          f"({why}); opening it again in a fresh browser context "
                          f"(attempt {attempt + 1} of {VOILA_ATTEMPTS})", stacklevel=1)
    raise AssertionError("unreachable")  # pragma: no cover


@pytest.mark.parametrize("nb", S.notebooks(), ids=lambda p: p.stem)
def test_voila_app_renders_and_a_slider_redraws(nb, browser, voila_server, artifacts, panel_classes):
    shots = artifacts / "voila"
    shots.mkdir(parents=True, exist_ok=True)
    expected = S.expected_panels(nb, panel_classes)
    log_start = len(voila_server.log_text())
    url = S.page_url(f"{voila_server.base}/voila/render/{quote(nb.name)}")
    context, page, messages = _open_rendered(browser, url, expected, shots, nb)
    problems: list[str] = []
    try:
        errors = page.evaluate(JS_ERROR_OUTPUTS)
        if errors:
            problems.append(f"cells show errors: {errors}")
        as_text = S.plain_text_widgets(page)
        if as_text:
            problems.append(f"widgets rendered as plain text: {as_text}")
        found = page.locator(S.PANEL_SELECTOR).count()
        if found != expected:
            problems.append(f"the notebook displays {expected} FigurePanel(s) but Voilà shows {found}")
        stray = S.stray_controls(page)
        if stray:
            problems.append(f"controls/figures outside any FigurePanel: {stray}")
        solutions, code_cells = page.evaluate(JS_CODE_CELLS)
        if solutions or code_cells != _code_cells_without_solutions(nb):
            problems.append(f"exercise cells in the app: {solutions} cell(s) tagged solution, answer or check, "
                            f"{code_cells} code cells on the page for "
                            f"{_code_cells_without_solutions(nb)} non-solution code cells")
        problems += S.math_problems(page)
        visited = 0
        if found:
            panel = S.Panel(page, 0, f"{nb.stem}_p1", shots)
            panel.loc.scroll_into_view_if_needed()
            panel.wait_idle()
            panel.screenshot("0_before", always=True)
            slider = panel.enabled_sliders()[0]
            name = f"Voilà p1 slider '{panel.slider_name(slider)}'"
            moved = panel.expect_update(lambda: panel.key_step(slider), f"{name} (key)")
            problems += moved
            status = panel.state()["status"]
            if status:
                problems.append(f"{name}: the panel's status line shows {status!r}")
            panel.screenshot("1_after_key", always=True)
            if not moved and nb == S.first_notebook_with_panels(panel_classes):  # README screenshot 3
                window = shots / "voila_window.png"
                panel.loc.evaluate("e => e.scrollIntoView({block: 'start'})")
                page.screenshot(path=str(window))
                S.maybe_update_docs(window, "voila-app.png")
            visited = found if not moved else -1
        else:
            page.screenshot(path=str(shots / f"{nb.stem}.png"))
        console = S.console_problems(messages)
        if console:
            problems.append("browser console:\n" + "\n".join(console))
        log_text = voila_server.log_text()[log_start:]
        pooled = bool(re.search(rf"Using pre-heated kernel: \S+ for {re.escape(nb.name)}", log_text))
        if nb.name in PREHEAT_DENIED and pooled:
            problems.append("the page came from Voilà's kernel pool, but voila.json's preheat_denylist leaves it out "
                            "(the lesson times its own computations)")
        elif nb.name not in PREHEAT_DENIED and not pooled:
            problems.append("the page did not come from Voilà's preheated kernel pool (voila.json's preheat_kernel): "
                            "no 'Using pre-heated kernel: ... for " + nb.name + "' in the server log")
        log = S.server_log_problems(log_text)
        if log:
            problems.append("Voilà server/kernel log:\n" + "\n".join(log))
        if nb == S.notebooks()[0]:  # with the learning path: the start page `make app` opens
            problems += _start_page_problems(context, voila_server.base, shots / "start_page.png")
        S.VISITED["voila"][nb.name] = visited if not problems else -1
    finally:
        (shots / f"{nb.stem}_console.log").write_text("\n".join(f"{k}: {t}" for k, t in messages) + "\n")
        context.close()
    assert not problems, f"{nb.name} in Voilà:\n" + "\n".join(problems)
