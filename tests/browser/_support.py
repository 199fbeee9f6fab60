"""Helpers for the real-browser tests: servers, notebook discovery and panel driving.

The browser tests start real servers (JupyterLab, Voilà) on free localhost
ports over a temporary copy of ``notebooks/`` and drive Debian's Chromium with
the Python ``playwright`` package (no ``playwright install``).

Which panels a notebook must show (the coverage rule)
-----------------------------------------------------
Every interactive panel is a :class:`ensemble_lib.ui.panel.FigurePanel`
subclass. :func:`expected_panels` reads a notebook's code cells (with
:mod:`ast`, without running them) and counts the places where a panel is
*displayed*:

* the cell's last statement is an expression that is a panel variable, its
  ``.widget`` attribute, or a direct call of a panel class
  (``panel = ToyExplorer(); panel.update(); panel.widget``), or
* the cell calls ``display(...)`` with such an expression as an argument.

A panel variable is a name assigned from a call of any ``FigurePanel``
class in the panel registry ``ensemble_lib.lessons.PANELS``. The browser test
then requires that the number of panels found in the page (a widget box with
a direct ``.widget-image`` child) equals that count, and that no slider,
dropdown or widget image on the page lies outside a visited panel. So a panel
the suite did not exercise, or a raw ``interact`` the rule does not know,
fails the test instead of being silently skipped.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
# the slider latency report: git-ignored like the rest; `make bench` publishes it to benchmarks/results/
LATENCY_JSON = ARTIFACTS / "browser-latency.json"
LATENCY_MD = ARTIFACTS / "browser-latency.md"
LATENCY_TARGET_MS = 100.0

# What the suite visited, filled by the tests and checked by test_zz_coverage.py:
# {"lab" | "voila": {notebook name: number of panels exercised, or -1 if a check failed}}
VISITED: dict[str, dict[str, int]] = {"lab": {}, "voila": {}}
# Set by conftest when -k/-m/--deselect/node ids left some browser tests out.
PARTIAL_RUN = None  # replaced by a pytest.StashKey in conftest
# Per-panel latency records, written to LATENCY_JSON / LATENCY_MD at the end.
LATENCY: list[dict] = []
#: per panel: distinct figures during a one-second drag (test_slider_drag_follows_the_hand)
DRAGS: list[dict] = []
#: one line per browser run (wall time, load average, passed / failed), appended: it outlives the
#: per-run artifacts folder, so that a series of runs (the "10 runs in a row" proof) is on record
RUNS_LOG = ROOT / "test-artifacts" / "browser-runs.jsonl"

CHROMIUM = Path("/usr/bin/chromium")
# the Voilà settings `make app` and the browser tests use (solutions removed, markdown images)
VOILA_CONFIG = ROOT / "voila.json"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

# Generous: the machine may be shared and slow. Waits are on DOM conditions,
# these are only upper bounds after which a test fails with a message.
SERVER_START_S = 90
PAGE_LOAD_MS = 120_000
RUN_ALL_MS = 300_000
UPDATE_MS = 60_000

# Browser console messages that are known to be harmless offline noise.
# Anything else of type "error", any message containing "Traceback" and any
# uncaught page error fails the test.
IGNORED_CONSOLE = [
    # fonts and icons fetched from a CDN or a missing local file (no network here)
    re.compile(r"Failed to load resource.*"),
    re.compile(r"(font|woff2?|ttf|favicon|\.ico)", re.I),
    # JupyterLab's optional checks for news/updates and the kernel-spec logo
    re.compile(r"(news|update|announcement)", re.I),
]


def notebooks() -> list[Path]:
    """Every notebook of the suite, in lesson order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def first_notebook_with_panels(classes: set[str] | None = None) -> Path | None:
    """The first lesson (in order) that displays a panel: the README's screenshots come from it."""
    return next((nb for nb in notebooks() if expected_panels(nb, classes)), None)


def is_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


# ---------------------------------------------------------------------------
# Coverage rule: which panels must a notebook display?
# ---------------------------------------------------------------------------

def panel_class_names() -> set[str]:
    """Names of every interactive panel: the one registry, ``ensemble_lib.lessons.PANELS``.

    (tests/ui/test_panel.py fails if a FigurePanel subclass defined in a lesson is missing from it.)
    """
    from ensemble_lib.lessons import PANELS

    return set(PANELS)


def _strip_magics(src: str) -> str:
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in src.splitlines())


def displayed_panels(nb_path: Path, classes: set[str] | None = None) -> list[str]:
    """Class names of the FigurePanel widgets the notebook displays, in order (see module docstring)."""
    classes = panel_class_names() if classes is None else classes
    cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
    panel_vars: dict[str, str] = {}  # variable -> panel class

    def callee(node) -> str | None:
        if isinstance(node, ast.Call):
            f = node.func
            return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        return None

    def panel_of(node) -> str | None:
        if isinstance(node, ast.Attribute) and node.attr == "widget":
            node = node.value
        if isinstance(node, ast.Name):
            return panel_vars.get(node.id)
        name = callee(node)
        return name if name in classes else None

    shown: list[str] = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        try:
            tree = ast.parse(_strip_magics(src))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and callee(node.value) in classes:
                panel_vars.update({t.id: callee(node.value) for t in node.targets if isinstance(t, ast.Name)})
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and callee(node) == "display":
                shown += [c for c in map(panel_of, node.args) if c]
        if tree.body and isinstance(tree.body[-1], ast.Expr) and panel_of(tree.body[-1].value):
            shown.append(panel_of(tree.body[-1].value))
    return shown


def expected_panels(nb_path: Path, classes: set[str] | None = None) -> int:
    """How many FigurePanel widgets the notebook displays (see module docstring)."""
    return len(displayed_panels(nb_path, classes))


def leaf_panel_classes() -> set[str]:
    """Every registered panel: each must be shown by some notebook."""
    return panel_class_names()


# ---------------------------------------------------------------------------
# Servers
# ---------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_suite(dest: Path) -> Path:
    """A temporary copy of notebooks/ and figures/ (autosave and kernels must not touch the real ones).

    The servers are rooted at ``dest``, so notebooks are at ``notebooks/NAME``
    and their ``../figures/`` links (the learning path's thumbnails) resolve.
    """
    (dest / "notebooks").mkdir(parents=True, exist_ok=True)
    for nb in notebooks():
        shutil.copy2(nb, dest / "notebooks" / nb.name)
    shutil.copytree(ROOT / "figures", dest / "figures", dirs_exist_ok=True)
    return dest


def isolated_jupyter_env(base: Path) -> dict:
    """Environment with empty Jupyter config/settings/workspaces/runtime dirs under ``base``.

    The page config disables JupyterLab's announcements plugin (its "news"
    toast would cover screenshots and it tries to reach the network). The
    notebook is rendered without windowing so every cell is in the DOM.
    """
    cfg, settings, ws, runtime = (base / d for d in ("config", "settings", "workspaces", "runtime"))
    (cfg / "labconfig").mkdir(parents=True, exist_ok=True)
    (cfg / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    nb_settings = settings / "@jupyterlab" / "notebook-extension"
    nb_settings.mkdir(parents=True, exist_ok=True)
    (nb_settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    ws.mkdir(parents=True, exist_ok=True)
    runtime.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(JUPYTER_CONFIG_DIR=str(cfg), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(ws), JUPYTER_RUNTIME_DIR=str(runtime),
               PYTHONUNBUFFERED="1", MPLBACKEND="agg")
    env.pop("JUPYTER_PATH", None)
    return env


class Server:
    """A server process in its own process group, stopped (group-wide) on exit."""

    def __init__(self, cmd: list[str], env: dict, log_path: Path, ready_url: str, cwd=None):
        self.cmd, self.env, self.log_path, self.ready_url, self.cwd = cmd, env, log_path, ready_url, cwd
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Server":
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.cmd, env=self.env, cwd=self.cwd, stdout=self._log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with code {self.proc.returncode}; "
                                   f"log:\n{self.log_text()[-3000:]}")
            try:
                with urllib.request.urlopen(authorized(self.ready_url), timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"server not ready after {SERVER_START_S} s; log:\n{self.log_text()[-3000:]}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """SIGTERM the group (the server shuts its kernels down), then SIGKILL if needed."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self._log.close()
        self.proc = None


def bin_path(name: str) -> str:
    """The console script ``name`` next to this Python (the project's venv)."""
    cand = Path(sys.executable).parent / name
    return str(cand) if cand.exists() else (shutil.which(name) or name)


#: the token of each server the suite started, by its base URL (``http://127.0.0.1:PORT``): the
#: servers run with a token and the XSRF check, as ``make lab`` and ``make app`` do
TOKENS: dict[str, str] = {}


def new_token() -> str:
    """A fresh server token (handed to the server in ``JUPYTER_TOKEN``, never on its command line)."""
    import secrets

    return secrets.token_hex(24)


def _token_for(url: str) -> str | None:
    return next((t for base, t in TOKENS.items() if url == base or url.startswith(base + "/")), None)


def authorized(url: str) -> urllib.request.Request:
    """A request to one of the suite's servers carrying its token (``Authorization: token …``; a
    token-authenticated request needs no XSRF cookie)."""
    token = _token_for(url)
    return urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})


def page_url(url: str) -> str:
    """``url`` with its server's token as a query parameter, for a page's first visit (the server
    then sets its login cookie in the browser context)."""
    token = _token_for(url)
    if not token:
        return url
    return f"{url}{'&' if '?' in url else '?'}token={token}"


def api(base: str, path: str, method: str = "GET"):
    req = authorized(base + path)
    req.method = method
    with urllib.request.urlopen(req, timeout=30) as r:
        body = r.read()
    return json.loads(body) if body else None


def shutdown_all_sessions(base: str) -> None:
    """The kernel outlives the page: delete every session (and its kernel)."""
    for sess in api(base, "/api/sessions") or []:
        with contextlib.suppress(OSError):
            api(base, f"/api/sessions/{sess['id']}", method="DELETE")


# ---------------------------------------------------------------------------
# In-page JavaScript
# ---------------------------------------------------------------------------

# All FigurePanel roots: a widget box with a direct .widget-image child.
PANEL_SELECTOR = ".widget-box:has(> .widget-image)"

JS_PANEL_STATE = r"""
(panel) => {
  const img = panel.querySelector(':scope > .widget-image');
  const htmls = [...panel.querySelectorAll(':scope > .widget-html')];
  const text = (e) => e ? e.innerText.trim() : '';
  return {
    src: img ? img.getAttribute('src') : null,
    complete: img ? (img.complete && img.naturalWidth > 0) : false,
    readout: text(htmls[0]),
    status: text(htmls[1]),
    // a step in progress: "computing…" in the status line, or every control disabled
    // (a control the current values make irrelevant stays disabled when idle)
    busy: /computing/i.test(text(htmls[1])) || panel.classList.contains('panel-computing')
          || (() => { const c = [...panel.querySelectorAll(
                          ':scope > .widget-hbox > * :is(.slider, select, input, button)')];
                      return c.length > 0 && c.every(e => e.disabled || e.hasAttribute('disabled')); })(),
    values: [...panel.querySelectorAll('.widget-slider .noUi-handle, .widget-dropdown select, '
                                       + '.widget-toggle-buttons .mod-active, input')]
            .map(h => h.getAttribute('aria-valuenow') ?? h.value ?? h.innerText),
    // the panel's acknowledgement of its last finished step (FigurePanel._publish_step): its
    // number and the value-box texts it was computed from; "settled" when those are what the
    // boxes show now (the figure and readout of the values on screen are in)
    ...(() => {
      const mark = panel.querySelector(':scope > .panel-step [data-step]');
      // the value boxes, then each selection slider's own readout (it has no box): as
      // FigurePanel._box_texts lists them
      const boxes = [...panel.querySelectorAll('.panel-value-box input')].map(i => i.value).concat(
        [...panel.querySelectorAll('.panel-controls > .widget-slider .widget-readout')].map(e => e.innerText.trim()));
      const stepBoxes = mark ? JSON.parse(mark.getAttribute('data-boxes')) : null;
      // each slider's handle where its box says (the front end's value is the kernel's): within
      // half a unit of the box's last digit, the handle's value or (a log slider's handle is in
      // the exponent) 10 to its power; a box the check cannot read agrees
      const pairs = [...panel.querySelectorAll('.panel-slider')].map(row => [
        row.querySelector('.noUi-handle'), row.querySelector('.panel-value-box input')]);
      const agrees = ([h, b]) => {
        if (!h || !b) return true;
        const text = b.value.replace(/,/g, '').trim(), v = Number(text);
        const x = Number(h.getAttribute('aria-valuetext') ?? h.getAttribute('aria-valuenow'));
        if (!text || !isFinite(v) || !isFinite(x)) return true;
        const m = text.match(/^[-+]?\d*(?:\.(\d*))?(?:e([-+]?\d+))?$/i);
        if (!m) return true;
        const tol = 0.505 * Math.pow(10, (m[2] ? Number(m[2]) : 0) - (m[1] ? m[1].length : 0));
        return Math.abs(x - v) <= tol || Math.abs(Math.pow(10, x) - v) <= tol;
      };
      return {step: mark ? Number(mark.getAttribute('data-step')) : -1, stepBoxes, boxes,
              settled: stepBoxes !== null && JSON.stringify(stepBoxes) === JSON.stringify(boxes)
                       && pairs.every(agrees),
              handles: pairs.map(([h]) => h && h.getAttribute('aria-valuetext'))};
    })(),
  };
}
"""

JS_IMAGE_HASH = """
async (panel) => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const img = panel.querySelector(':scope > .widget-image');
    try {
      const buf = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
      let h = 2166136261;
      for (let i = 0; i < buf.length; i++) { h = Math.imul(h ^ buf[i], 16777619); }
      return buf.length + ':' + (h >>> 0).toString(16);
    } catch (e) {  // the blob URL was revoked by a newer image: read the newer one
      await new Promise(r => setTimeout(r, 50));
    }
  }
  throw new Error('could not read the panel image');
}
"""

# Wait until an update finished: the panel acknowledged a step newer than ``before`` computed from
# the values its boxes show, its image is decoded, and it is idle (no pending change, no stream).
# The acknowledgement is sent after the step's image and readout, so they are that step's.
JS_UPDATED = """
([panel, before]) => {
  const s = (%s)(panel);
  return s.step > before.step && s.settled && s.complete && !s.busy;
}
""" % JS_PANEL_STATE

# Idle: the last acknowledged step is that of the values on screen, no change pending, image decoded.
JS_IDLE = """
(panel) => { const s = (%s)(panel); return s.settled && s.complete && !s.busy; }
""" % JS_PANEL_STATE

# Latency probe: time from the keydown on the handle to the frame after the
# new image is decoded (key press to changed pixels on screen).
JS_ARM_LATENCY = ("""
(panel) => {
  const img = panel.querySelector(':scope > .widget-image');
  const old = img.getAttribute('src');
  window.__lat = new Promise((resolve, reject) => {
    // a step that never redraws must fail the test, not hang it
    setTimeout(() => reject(new Error('no new figure within %d ms of the key press')), %d);
    let t0 = null;
    const onKey = () => { if (t0 === null) t0 = performance.now(); };
    document.addEventListener('keydown', onKey, {capture: true, once: true});
    const obs = new MutationObserver(async () => {
      const now = panel.querySelector(':scope > .widget-image');
      if (now.getAttribute('src') === old) return;
      obs.disconnect();
      try { await now.decode(); } catch (e) {}
      requestAnimationFrame(() => resolve(performance.now() - t0));
    });
    obs.observe(panel, {attributes: true, subtree: true, attributeFilter: ['src']});
  });
}
""" % (UPDATE_MS, UPDATE_MS))


# Drag probe: every distinct figure image the panel shows from now on, with its time.
JS_ARM_FRAMES = """
(panel) => {
  const t0 = performance.now();
  window.__frames = [];
  let last = panel.querySelector(':scope > .widget-image').getAttribute('src');
  if (window.__frameObs) window.__frameObs.disconnect();
  // the slider values the handles went through, the start value included: their aria-valuetext,
  // the value in full (aria-valuenow is rounded, to one decimal for lesson 3's mean of u, whose
  // step is 0.005: it would count one value where the handle passed twenty)
  const values = () => [...panel.querySelectorAll('.noUi-handle')]
    .map(h => h.getAttribute('aria-valuetext') || h.getAttribute('aria-valuenow')).join(' ');
  window.__values = new Set([values()]);
  window.__frameObs = new MutationObserver((records) => {
    if (records.some(r => r.attributeName !== 'src')) window.__values.add(values());
    const src = panel.querySelector(':scope > .widget-image').getAttribute('src');
    if (src !== last) { last = src; window.__frames.push(performance.now() - t0); }
  });
  window.__frameObs.observe(panel, {attributes: true, subtree: true,
                                    attributeFilter: ['src', 'aria-valuenow', 'aria-valuetext']});
}
"""


def plain_text_widgets(page) -> list[str]:
    """Output areas that show a widget's text repr (front-end missing) or a widget error."""
    return page.evaluate(r"""() => [...document.querySelectorAll('.jp-OutputArea-output')]
        .map(e => e.innerText || '')
        .filter(t => /^(VBox|HBox|Box|interactive|IntSlider|FloatSlider|FloatLogSlider|Image|Dropdown|Output|ProgressBar)\(/m.test(t)
                     || /Error displaying widget|Error rendering widget|model not found/i.test(t))
        .map(t => t.slice(0, 200))""")  # noqa: E501 (one JavaScript regex literal)


# Display maths that did not render, in markdown cells once MathJax (3, in JupyterLab 4 and Voilà 0.5)
# has typeset them: its error nodes (a TeX error such as two \tag in one display), and TeX left as
# visible text ($…$, $$…$$ or a \command outside code) once rendered maths, code and scripts are
# taken out of a copy of the cell.
JS_MATH_PROBLEMS = r"""() => {
  const out = [];
  for (const e of document.querySelectorAll('mjx-merror, .MathJax_Error, .mjx-merror')) {
    const cell = e.closest('.jp-Cell');
    out.push('MathJax error: ' + (e.getAttribute('data-mjx-error') || e.textContent || '').slice(0, 160)
             + (cell ? ' in: ' + (cell.innerText || '').slice(0, 80) : ''));
  }
  for (const md of document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')) {
    const c = md.cloneNode(true);
    c.querySelectorAll('mjx-container, .MathJax, .MathJax_Preview, mjx-assistive-mml, script, code, pre, style')
      .forEach(x => x.remove());
    const t = c.textContent || '';
    const m = t.match(/\$\$[\s\S]+?\$\$|\$[^$\n]+\$|\\(tag|[A-Za-z]{2,})\b/);
    if (m) out.push('raw TeX on the page: ' + JSON.stringify(m[0].slice(0, 80))
                    + ' in: ' + (md.innerText || '').slice(0, 80));
  }
  return [...new Set(out)];
}"""


def math_problems(page, timeout_ms: int = 20_000) -> list[str]:
    """Maths in markdown cells that did not render (see JS_MATH_PROBLEMS), after MathJax had time to typeset."""
    try:
        page.wait_for_function(f"() => ({JS_MATH_PROBLEMS})().length === 0", timeout=timeout_ms, polling=250)
    except Exception:  # noqa: BLE001 - report what is still wrong
        pass
    return page.evaluate(JS_MATH_PROBLEMS)


def open_page(browser, width: int, height: int):
    """A new context and page that record console messages and page errors: (context, page, messages)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(UPDATE_MS)
    messages: list[tuple[str, str]] = []
    page.on("console", lambda m: messages.append((m.type, f"{m.text} [{m.location.get('url', '')}]")))
    page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
    return context, page, messages


def console_problems(messages: list[tuple[str, str]]) -> list[str]:
    """Console messages that must fail a test (see IGNORED_CONSOLE for what is ignored)."""
    bad = []
    for kind, text in messages:
        if kind == "pageerror" or "Traceback" in text:
            bad.append(f"{kind}: {text[:500]}")
        elif kind == "error" and not any(p.search(text) for p in IGNORED_CONSOLE):
            bad.append(f"{kind}: {text[:500]}")
    return bad


def server_log_problems(text: str) -> list[str]:
    """Tracebacks in a server log (kernel-side widget callback errors land there)."""
    return [m.group(0)[:800] for m in re.finditer(r"(Exception in comm_msg|Traceback \(most recent call last\))"
                                                   r"[\s\S]{0,800}", text)]


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:40] or "x"


def summarise_latency(samples: list[float]) -> dict:
    return {"n": len(samples), "median_ms": round(statistics.median(samples), 1),
            "min_ms": round(min(samples), 1), "max_ms": round(max(samples), 1),
            "samples_ms": [round(x, 1) for x in samples]}


def maybe_update_docs(src: Path, name: str) -> None:
    """With UPDATE_DOCS_SCREENSHOTS=1, copy a screenshot into docs/screenshots/NAME."""
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS", "") not in {"", "0"} and src.exists():
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, DOCS_SCREENSHOTS / name)


# ---------------------------------------------------------------------------
# Driving one panel
# ---------------------------------------------------------------------------

class Panel:
    """One FigurePanel in a page: its sliders, image, readout and status line."""

    def __init__(self, page, index: int, label: str, shots: Path):
        self.page, self.index, self.label, self.shots = page, index, label, shots
        self.loc = page.locator(PANEL_SELECTOR).nth(index)
        self.el = self.loc.element_handle()

    def state(self) -> dict:
        return self.el.evaluate(JS_PANEL_STATE)

    def image_hash(self) -> str:
        return self.el.evaluate(JS_IMAGE_HASH)

    def sliders(self) -> list:
        return self.loc.locator(".widget-slider").all()

    @staticmethod
    def is_enabled(slider) -> bool:
        """False for a slider the panel shows disabled (irrelevant at the current values)."""
        return slider.locator(".slider[disabled]").count() == 0

    def enabled_sliders(self) -> list:
        return [s for s in self.sliders() if self.is_enabled(s)]

    def choices(self) -> list:
        """Dropdowns, toggle buttons, radio buttons and checkboxes (each exercised once)."""
        return self.loc.locator(":scope > .widget-hbox > :is(.widget-dropdown, .widget-toggle-buttons, "
                                ".widget-radio, .widget-checkbox)").all()

    def unknown_controls(self) -> list[str]:
        """Controls in the panel's rows that this suite does not know how to move (the "Reset"
        button every panel has is pressed in tests/ui/test_panel.py, not here)."""
        return self.el.evaluate("""(panel) => [...panel.querySelectorAll(':scope > .widget-hbox > *')]
            .filter(e => !e.matches('.panel-slider, .widget-slider, .widget-dropdown, .widget-toggle-buttons, '
                                    + '.widget-radio, .widget-checkbox, .widget-label, .widget-html, '
                                    + '.panel-reset'))
            .map(e => e.className)""")

    @staticmethod
    def slider_name(slider) -> str:
        return slider.locator(".widget-label").first.inner_text().strip() or "slider"

    def wait_idle(self, timeout=UPDATE_MS) -> None:
        self.page.wait_for_function(JS_IDLE, arg=self.el, timeout=timeout)

    def screenshot(self, name: str, always: bool = False, failed: bool = False) -> Path:
        """The panel's picture in the artefacts: always for the steps that frame a test (or the
        README needs) and for a step that failed; every intermediate step only with
        ``BROWSER_ALL_SHOTS=1`` (each costs Chromium a render and a PNG encode, about a hundred
        per run, while the library tests share the cores)."""
        path = self.shots / f"{self.label}_{slug(name)}.png"
        if always or failed or ALL_SHOTS:
            self.loc.screenshot(path=str(path), timeout=UPDATE_MS)
        return path

    def expect_update(self, action, what: str, need_readout: bool = True, timeout: int = UPDATE_MS) -> list[str]:
        """Run ``action()`` and wait for a new figure; return problems (empty if fine)."""
        from playwright.sync_api import TimeoutError as PWTimeout

        try:
            self.wait_idle()
        except PWTimeout:
            now = self.state()
            return [f"{what}: the panel did not settle before the action within {UPDATE_MS / 1000:.0f} s "
                    f"(step {now['step']} computed from {now['stepBoxes']}, value boxes {now['boxes']}, "
                    f"handles {now['handles']}, busy {now['busy']}, image decoded {now['complete']})"]
        before = self.state()
        h_before = self.image_hash()
        action()
        try:
            self.page.wait_for_function(JS_UPDATED, arg=[self.el, before], timeout=timeout)
        except PWTimeout:
            now = self.state()
            return [f"{what}: no finished step within {timeout / 1000:.0f} s "
                    f"(step {before['step']} -> {now['step']}, value boxes {before['boxes']} -> "
                    f"{now['boxes']}, step computed from {now['stepBoxes']}, handles "
                    f"{before['handles']} -> {now['handles']}, busy {now['busy']}, readout changed: "
                    f"{now['readout'] != before['readout']}, status {now['status']!r})"]
        after = self.state()
        problems = []
        if "Not updated" in after["status"]:
            problems.append(f"{what}: the panel refused a value the slider offers: {after['status']}")
        if self.image_hash() == h_before:
            problems.append(f"{what}: the image was re-sent but its pixels did not change")
        if need_readout and after["readout"] == before["readout"]:
            problems.append(f"{what}: the readout did not change")
        return problems

    # -- moves ----------------------------------------------------------------
    def _drag_ends(self, slider, margin: float, wait_idle: bool = False) -> tuple[float, float, float]:
        """Where a drag of ``slider``'s handle starts (x0, y0) and ends (x1, same y): at ``margin``
        or 1 − ``margin`` of the track, whichever is farther from the handle."""
        handle = slider.locator(".noUi-handle")
        handle.scroll_into_view_if_needed()
        if wait_idle:
            self.wait_idle()
        hb = handle.bounding_box()
        tb = slider.locator(".noUi-base").bounding_box()
        x0, y0 = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
        frac = (x0 - tb["x"]) / tb["width"]
        return x0, y0, tb["x"] + tb["width"] * (margin if frac > 0.5 else 1.0 - margin)

    def drag(self, slider) -> None:
        """Drag the handle to 25 % or 75 % of the track (whichever is farther)."""
        x0, y0, x1 = self._drag_ends(slider, 0.25)
        self.page.mouse.move(x0, y0)
        self.page.mouse.down()
        self.page.mouse.move(x1, y0, steps=8)
        self.page.mouse.up()

    @staticmethod
    def step_key(slider) -> str:
        handle = slider.locator(".noUi-handle")
        now = float(handle.get_attribute("aria-valuenow"))
        top = float(handle.get_attribute("aria-valuemax"))
        return "ArrowLeft" if now >= top - 1e-9 else "ArrowRight"

    def key_step(self, slider, key: str | None = None) -> None:
        """Press ``key`` once on the focused handle, as a user tabbing to the slider would.

        The caller (:meth:`expect_update`) has waited until the panel acknowledged the step of
        the values on screen; whether the press reached the kernel is judged there, by the
        panel's next acknowledged step (none within the timeout fails the test).
        """
        handle = slider.locator(".noUi-handle")
        key = key or self.step_key(slider)
        handle.focus()
        handle.press(key)

    @staticmethod
    def choice_name(ctl) -> str:
        label = ctl.locator(".widget-label").first
        text = label.inner_text().strip() if label.count() else ""
        return text or ctl.get_attribute("class").split()[-1]

    def choose_other(self, ctl) -> None:
        """Pick a value other than the current one (as a user would, with the mouse)."""
        cls = ctl.get_attribute("class")
        if "widget-dropdown" in cls:
            sel = ctl.locator("select")
            current = sel.input_value()
            values = [o.get_attribute("value") for o in sel.locator("option").all()]
            sel.select_option(next(v for v in values if v != current))
        elif "widget-toggle-buttons" in cls:
            ctl.locator("button:not(.mod-active)").first.click()
        elif "widget-radio" in cls:
            ctl.locator("input[type=radio]:not(:checked)").first.click()
        else:  # checkbox
            ctl.locator("input[type=checkbox]").click()

    def timed_drag(self, slider, seconds: float = 1.0) -> dict:
        """Drag the handle across most of the track for ``seconds``; count the new figures.

        The mouse moves as often as the browser takes moves (each to where the hand
        would be at that time), so the drag lasts ``seconds`` whatever one move costs.
        Returns the mouse moves made, the distinct images shown while the button was
        down (``during``), the slider values the handle passed (``values_passed``, the start
        value not counted), the drag's duration in ms and ``fps`` = during / duration.
        """
        x0, y0, x1 = self._drag_ends(slider, 0.1, wait_idle=True)
        self.el.evaluate(JS_ARM_FRAMES)
        self.page.mouse.move(x0, y0)
        self.page.mouse.down()
        t0 = time.perf_counter()
        moves = 0
        while (elapsed := time.perf_counter() - t0) < seconds:
            self.page.mouse.move(x0 + (x1 - x0) * elapsed / seconds, y0)
            moves += 1
            self.page.wait_for_timeout(8)
        self.page.mouse.move(x1, y0)
        duration = 1000.0 * (time.perf_counter() - t0)
        during = self.page.evaluate("() => window.__frames.length")
        # the slider values the hand passed during the drag (a slider with few values, such as a
        # number of components 1-4, can show no more new figures than that)
        passed = self.page.evaluate("() => window.__values.size - 1")
        # a panel whose step takes longer than the drag (a network fit takes a second or more on
        # a loaded machine; lesson 4's default data has its fits stored) may have drawn nothing
        # yet: the hand then stays down at the end of the track until its first frame, so that a
        # figure that follows the hand is told from one that waits for the release
        # (``before_release``; ``fps`` counts the drag only)
        held = 0.0
        if during == 0:
            t1 = time.perf_counter()
            with contextlib.suppress(Exception):
                self.page.wait_for_function("() => window.__frames.length > 0", timeout=UPDATE_MS,
                                            polling=50)
            held = 1000.0 * (time.perf_counter() - t1)
        before_release = self.page.evaluate("() => window.__frames.length")
        self.page.mouse.up()
        return {"moves": moves + 1, "during": int(during), "values_passed": int(passed),
                "duration_ms": round(duration, 1),
                "fps": round(1000.0 * during / duration, 1), "before_release": int(before_release),
                "held_ms": round(held, 1)}

    def settle(self, quiet_ms: int = 500, timeout: int = UPDATE_MS) -> None:
        """Wait until the kernel is idle and the figure has not changed for ``quiet_ms``.

        (The panel no longer disables its controls during a step, and a streaming panel
        sends frames after its first: "idle" alone does not mean the last frame is in.)
        """
        t0 = time.perf_counter()
        last = None
        while 1000.0 * (time.perf_counter() - t0) < timeout:
            self.wait_idle()
            src = self.state()["src"]
            kernel_idle = self.page.evaluate(
                "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                " const k = w && w.sessionContext && w.sessionContext.session"
                " && w.sessionContext.session.kernel; return !k || k.status === 'idle'; }")
            if src == last and kernel_idle:
                return
            last = src
            self.page.wait_for_timeout(quiet_ms)

    def latency_step(self, slider, key: str) -> float:
        """Milliseconds from the key press to the frame after the new image is decoded."""
        self.wait_idle()
        self.el.evaluate(JS_ARM_LATENCY)
        slider.locator(".noUi-handle").press(key)
        ms = self.page.evaluate("() => window.__lat", )
        self.wait_idle()
        return float(ms)


def broken_markdown_images(page, timeout_ms: int = 10_000) -> list[str]:
    """``src`` of images in markdown cells that have not loaded (e.g. a missing figure) after a wait."""
    js = """() => [...document.querySelectorAll('.jp-MarkdownOutput img, .jp-RenderedMarkdown img')]
        .filter(i => !(i.complete && i.naturalWidth > 0))
        .map(i => i.getAttribute('src') || '(no src)')"""
    try:
        page.wait_for_function(f"() => ({js})().length === 0", timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - report what is still broken
        pass
    return page.evaluate(js)


# Sliders known to be dead in some state (moving them changes nothing) while the panel
# still shows them enabled: {(notebook, slider label): why}. The slider test reports them
# as warnings instead of failures, and FAILS once the slider works (remove the entry then).
# The fix is for the panel to name the control in FigurePanel.inactive_controls().
KNOWN_DEAD_SLIDERS: dict[tuple[str, str], str] = {}

#: every intermediate screenshot (each slider move, each bad input), not only the framing ones
ALL_SHOTS = os.environ.get("BROWSER_ALL_SHOTS") == "1"
KNOWN_DEAD_TIMEOUT_MS = 8_000


def stray_controls(page) -> list[str]:
    """Sliders, dropdowns and widget images that are not inside any FigurePanel."""
    return page.evaluate("""(sel) => [...document.querySelectorAll(
            '.widget-slider, .widget-dropdown, .widget-toggle-buttons, .widget-radio, .widget-checkbox, '
            + '.widget-text, .widget-button, .widget-image, .jupyter-matplotlib')]
        .filter(e => !e.closest(sel))
        .map(e => e.className + ': ' + (e.innerText || '').slice(0, 80))""", PANEL_SELECTOR)


# ---------------------------------------------------------------------------
# Does a panel fit on a small laptop screen?
# ---------------------------------------------------------------------------

#: The screen every panel must fit on (issue 15, item 4): a 1366 × 768 laptop.
SCREEN = (1366, 768)
#: What the screen gives a maximised browser window's page: the desktop's taskbar or top panel
#: (about 40 px) and the browser's tab strip and address bar (about 71 px) take 111 px of the
#: height, nothing of the width. The test's viewport is therefore 1366 × 657.
BROWSER_CHROME_PX = (0, 111)
SMALL_VIEWPORT = (SCREEN[0] - BROWSER_CHROME_PX[0], SCREEN[1] - BROWSER_CHROME_PX[1])
#: The smallest font size (CSS px) a panel may use for its labels, readout and status line.
MIN_FONT_PX = 11.0

# The visible notebook area (the notebook's scrolling box, without its scroll bars) and a panel's
# extent in it: the union of the boxes of everything the panel shows (controls, image, readout,
# status line), its image's shown and natural sizes, text that its box clips, and the smallest font.
JS_PANEL_FIT = r"""
(panel) => {
  const w = window.jupyterapp.shell.currentWidget;
  const outer = w.content.node.querySelector('.jp-WindowedPanel-outer') || w.content.node;
  const a = outer.getBoundingClientRect();
  const area = {left: a.left + outer.clientLeft, top: a.top + outer.clientTop,
                width: outer.clientWidth, height: outer.clientHeight};
  let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity, minFont = Infinity;
  const clipped = [];
  for (const e of [panel, ...panel.querySelectorAll('*')]) {
    const cs = getComputedStyle(e);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const q = e.getBoundingClientRect();
    if (q.width === 0 || q.height === 0) continue;
    l = Math.min(l, q.left); t = Math.min(t, q.top); r = Math.max(r, q.right); b = Math.max(b, q.bottom);
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own) {
      minFont = Math.min(minFont, parseFloat(cs.fontSize));
      if ((e.scrollWidth > e.clientWidth + 1 && cs.overflowX !== 'visible')
          || (e.scrollHeight > e.clientHeight + 1 && cs.overflowY !== 'visible'))
        clipped.push(e.textContent.trim().slice(0, 60));
    }
  }
  const img = panel.querySelector(':scope > .widget-image');
  return {area, left: l, top: t, right: r, bottom: b, width: r - l, height: b - t,
          min_font_px: minFont, clipped,
          image: img ? {shown: [img.clientWidth, img.clientHeight],
                        natural: [img.naturalWidth, img.naturalHeight]} : null,
          sidebar_open: !!document.querySelector('#jp-left-stack:not(.lm-mod-hidden)')
                        && document.querySelector('#jp-left-stack').offsetWidth > 0};
}
"""


def panel_fit(panel: "Panel") -> dict:
    """Where ``panel`` lies in the visible notebook area once scrolled to its top (see JS_PANEL_FIT).

    Adds ``problems``: what does not fit (height, width, left or right edge), an image not
    shown at its natural size (a panel must not fit by shrinking its figure), clipped text
    and a font below :data:`MIN_FONT_PX`.
    """
    panel.loc.evaluate("e => e.scrollIntoView({block: 'start'})")
    panel.page.wait_for_timeout(100)
    m = panel.el.evaluate(JS_PANEL_FIT)
    area, problems = m["area"], []
    if m["height"] > area["height"] + 0.5:
        problems.append(f"{m['height']:.0f} px tall, the notebook shows {area['height']:.0f} px "
                        f"({m['height'] - area['height']:.0f} px too tall)")
    if m["width"] > area["width"] + 0.5:
        problems.append(f"{m['width']:.0f} px wide, the notebook shows {area['width']:.0f} px")
    if m["left"] < area["left"] - 0.5 or m["right"] > area["left"] + area["width"] + 0.5:
        problems.append(f"sticks out of the notebook: x from {m['left'] - area['left']:.0f} to "
                        f"{m['right'] - area['left']:.0f} px of {area['width']:.0f}")
    img = m["image"]
    if img and any(abs(s - n) > 1 for s, n in zip(img["shown"], img["natural"])):
        problems.append(f"image shown at {img['shown'][0]} × {img['shown'][1]} px, "
                        f"rendered at {img['natural'][0]} × {img['natural'][1]}")
    if m["clipped"]:
        problems.append(f"clipped text: {m['clipped'][:4]}")
    if m["min_font_px"] < MIN_FONT_PX:
        problems.append(f"text at {m['min_font_px']:g} px (below {MIN_FONT_PX:g} px)")
    m["problems"] = problems
    return m


#: the measured panel sizes at the small screen (test_every_panel_fits_a_1366x768_screen)
PANEL_FIT_JSON = ARTIFACTS / "panel-fit.json"


def record_panel_fit(notebook: str, rows: list[dict]) -> None:
    """Add one notebook's measured panels to :data:`PANEL_FIT_JSON` (replacing its earlier rows)."""
    data = json.loads(PANEL_FIT_JSON.read_text()) if PANEL_FIT_JSON.exists() else {
        "screen": list(SCREEN), "browser_chrome_px": list(BROWSER_CHROME_PX),
        "viewport": list(SMALL_VIEWPORT), "panels": []}
    data["panels"] = [r for r in data["panels"] if r["notebook"] != notebook] + rows
    PANEL_FIT_JSON.parent.mkdir(parents=True, exist_ok=True)
    PANEL_FIT_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def record_run(run: dict) -> None:
    """Append ``run`` to :data:`RUNS_LOG` and to this run's latency report (JSON ``run`` and a
    table of the recorded runs in the Markdown), if the run wrote one."""
    RUNS_LOG.parent.mkdir(parents=True, exist_ok=True)
    with RUNS_LOG.open("a") as f:
        f.write(json.dumps(run) + "\n")
    if LATENCY_JSON.exists():
        data = json.loads(LATENCY_JSON.read_text())
        data["run"] = run
        LATENCY_JSON.write_text(json.dumps(data, indent=2) + "\n")
    if LATENCY_MD.exists():
        runs = [json.loads(line) for line in RUNS_LOG.read_text().splitlines() if line.strip()]
        lines = ["", "## Browser runs on record", "",
                 f"This run: {run['wall_s']:.0f} s wall, load average {run['load_average_start'][0]:.2f} "
                 f"at the start and {run['load_average_end'][0]:.2f} at the end ({run['cpus']} CPUs); "
                 f"{run['passed']} passed, {run['failed']} failed, {run['errors']} errors. "
                 f"Every run recorded in test-artifacts/{RUNS_LOG.name} (appended by each run):", "",
                 "| started | complete | wall s | load avg start (1/5/15 min) | load avg end | passed | "
                 "failed | errors |", "|---|---|---:|---|---|---:|---:|---:|"]
        for r in runs:
            lines.append(f"| {r['started']} | {'yes' if r['complete'] else 'no'} | {r['wall_s']:.0f} | "
                         f"{' / '.join(f'{x:.2f}' for x in r['load_average_start'])} | "
                         f"{' / '.join(f'{x:.2f}' for x in r['load_average_end'])} | {r['passed']} | "
                         f"{r['failed']} | {r['errors']} |")
        LATENCY_MD.write_text(LATENCY_MD.read_text().rstrip("\n") + "\n" + "\n".join(lines) + "\n")
