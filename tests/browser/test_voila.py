"""Every notebook as a Voilà app (code hidden), as a lecturer shows it: it renders, and a slider works.

For each ``notebooks/*.ipynb`` (discovered, not listed) the page
``/voila/render/notebooks/NAME`` is opened on the ``voila_server`` fixture (Voilà runs
the whole notebook in a fresh kernel for each visitor). The test waits until
every FigurePanel the notebook displays has its figure, then checks that no
cell shows an error or a widget as plain text, and moves the first slider of
the first panel by one key step: the figure (its pixels) and the readout must
change, and the panel's status line must show no error. Notebooks without a
panel (the learning path) must render without error.
"""

from __future__ import annotations

import warnings
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

#: the first wait for a Voilà page's panels; then one reload (see the test)
VOILA_FIRST_TRY_MS = 120_000


@pytest.mark.parametrize("nb", S.notebooks(), ids=lambda p: p.stem)
def test_voila_app_renders_and_a_slider_redraws(nb, browser, voila_server, artifacts, panel_classes):
    shots = artifacts / "voila"
    shots.mkdir(parents=True, exist_ok=True)
    expected = S.expected_panels(nb, panel_classes)
    context, page, messages = S.open_page(browser, 1100, 1000)
    log_start = len(voila_server.log_text())
    problems: list[str] = []
    try:
        url = f"{voila_server.base}/voila/render/notebooks/{quote(nb.name)}"
        rendered = ("([sel, n]) => document.querySelectorAll(sel).length >= n && "
                    "[...document.querySelectorAll(sel + ' > .widget-image')]"
                    ".every(i => i.complete && i.naturalWidth > 0)")
        # Voilà streams the page while the kernel runs the notebook: "load" comes at the end.
        page.goto(url, timeout=S.RUN_ALL_MS, wait_until="load")
        try:
            page.wait_for_function(rendered, arg=[S.PANEL_SELECTOR, expected], timeout=VOILA_FIRST_TRY_MS)
        except PlaywrightTimeoutError:
            # Voilà's known intermittent race (voila-dashboards/voila#920: the page's kernel
            # connection is re-established, "Starting buffering" in the server log, and the front
            # end reports "widget model not found"): the widgets never appear on that page, and a
            # visitor reloads. Reload once, say so, and fail only if the reload does not render.
            why = ("widget model not found" if any("widget model not found" in t for _, t in messages)
                   else "no console error")
            warnings.warn(f"{nb.name}: Voilà did not render the panels within "
                          f"{VOILA_FIRST_TRY_MS // 1000} s ({why}); reloading once", stacklevel=1)
            (shots / f"{nb.stem}_console_first_try.log").write_text(
                "\n".join(f"{k}: {t}" for k, t in messages) + "\n")
            messages.clear()  # the reloaded page's console is checked below, as for any page
            page.goto(url, timeout=S.RUN_ALL_MS, wait_until="load")
            page.wait_for_function(rendered, arg=[S.PANEL_SELECTOR, expected], timeout=S.RUN_ALL_MS)
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
        visited = 0
        if found:
            panel = S.Panel(page, 0, f"{nb.stem}_p1", shots)
            panel.loc.scroll_into_view_if_needed()
            panel.wait_idle()
            panel.screenshot("0_before")
            slider = panel.enabled_sliders()[0]
            name = f"Voilà p1 slider '{panel.slider_name(slider)}'"
            moved = panel.expect_update(lambda: panel.key_step(slider), f"{name} (key)")
            problems += moved
            status = panel.state()["status"]
            if status:
                problems.append(f"{name}: the panel's status line shows {status!r}")
            panel.screenshot("1_after_key")
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
        log = S.server_log_problems(voila_server.log_text()[log_start:])
        if log:
            problems.append("Voilà server/kernel log:\n" + "\n".join(log))
        S.VISITED["voila"][nb.name] = visited if not problems else -1
    finally:
        (shots / f"{nb.stem}_console.log").write_text("\n".join(f"{k}: {t}" for k, t in messages) + "\n")
        context.close()
    assert not problems, f"{nb.name} in Voilà:\n" + "\n".join(problems)
