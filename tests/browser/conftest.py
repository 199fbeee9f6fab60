"""Fixtures of the real-browser tests (JupyterLab and Voilà driven by Chromium).

Skipping rules
--------------
* ``/usr/bin/chromium`` or the ``playwright`` package missing: the tests skip
  with a one-line reason (``make test`` installs Chromium first when run as
  root). Under CI (``CI=true``) they fail loudly instead of skipping.
* ``pytest -m "not browser"`` deselects them.

What runs
---------
``test_jupyterlab.py`` (every notebook in a real JupyterLab: run all, every
slider by drag and key, bad input, latency, console and server logs),
``test_voila.py`` (every notebook as a Voilà app, one slider moved) and, last,
``test_zz_coverage.py`` (fails if a notebook or a panel exists that the run did
not visit). Notebooks are discovered in ``notebooks/``, never listed.

Artifacts
---------
Screenshots (before/after each slider move), server logs and console logs go
to ``test-artifacts/browser/`` (git-ignored); its path is printed at the end
of the run, and so does the slider latency report
(``browser-latency.{json,md}``; its JSON says whether the run was complete).
Each run also appends its wall time, load average (start and end) and
outcome to ``test-artifacts/browser-runs.jsonl``, which outlives the run's
folder; the latency report ends with the table of the runs on record.

Servers
-------
JupyterLab and Voilà run as ``make lab`` and ``make app`` do: behind a token
(generated per run, handed over in ``JUPYTER_TOKEN``; Voilà with
``--Voila.auto_token``) and with the XSRF check on. Pages open with the token
in their first URL; REST calls send it in an ``Authorization`` header.

Waiting for a panel
-------------------
Every panel acknowledges each finished step in a hidden element (step number
and the value-box texts it was computed from, sent after the figure and the
readout: ``FigurePanel._publish_step``). The tests wait for a step newer than
the one before an action, computed from the values on screen, instead of
guessing from pixels when a figure or a readout arrives.
The run writes no tracked file: ``make bench`` publishes the last complete
latency report to ``benchmarks/results/``, and ``UPDATE_DOCS_SCREENSHOTS=1``
refreshes ``docs/screenshots/``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _support as S  # noqa: E402

LATENCY = S.LATENCY


S.PARTIAL_RUN = pytest.StashKey[bool]()
_N_COLLECTED = pytest.StashKey[int]()
_ANY_SELECTED = pytest.StashKey[bool]()


def _is_browser_item(item) -> bool:
    return HERE in Path(str(item.fspath)).resolve().parents


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the browser tests, count them before any deselection, run the coverage rule last."""
    for item in items:
        if _is_browser_item(item):
            item.add_marker(pytest.mark.browser)
    config.stash[_N_COLLECTED] = sum(map(_is_browser_item, items))
    items.sort(key=lambda it: Path(str(it.fspath)).name == "test_zz_coverage.py")  # stable: only moves it last


def pytest_collection_finish(session):
    """A run that deselected some browser tests cannot judge coverage (test_zz_coverage skips)."""
    selected = sum(map(_is_browser_item, session.items))
    partial = selected != session.config.stash.get(_N_COLLECTED, 0)
    partial = partial or any("::" in str(a) for a in session.config.args)
    session.config.stash[S.PARTIAL_RUN] = partial
    session.config.stash[_ANY_SELECTED] = selected > 0


_RUN_START = pytest.StashKey[tuple]()


def pytest_sessionstart(session):
    """When the run started and the machine's load then (for the run record)."""
    session.config.stash[_RUN_START] = (time.monotonic(), _dt.datetime.now().isoformat(timespec="seconds"),
                                        os.getloadavg())


def pytest_sessionfinish(session, exitstatus):
    """Record this browser run: wall time, load average, passed / failed (see :func:`_support.record_run`)."""
    if not session.config.stash.get(_ANY_SELECTED, False):
        return
    t0, started, load0 = session.config.stash[_RUN_START]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter is not None else {}

    def count(kind):
        return sum(1 for r in stats.get(kind, []) if _is_browser_report(r))
    S.record_run({
        "started": started, "wall_s": round(time.monotonic() - t0, 1),
        "complete": not session.config.stash.get(S.PARTIAL_RUN, False),
        "passed": count("passed"), "failed": count("failed"), "errors": count("error"),
        "skipped": count("skipped"), "exit_status": int(exitstatus),
        "load_average_start": [round(x, 2) for x in load0],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    })


def _is_browser_report(report) -> bool:
    return str(getattr(report, "nodeid", "")).startswith("tests/browser/")


def pytest_terminal_summary(terminalreporter):
    """Where the artifacts are (only when this run selected browser tests)."""
    if not terminalreporter.config.stash.get(_ANY_SELECTED, False):
        return
    if S.ARTIFACTS.exists() and any(S.ARTIFACTS.iterdir()):
        terminalreporter.write_line(f"browser test screenshots and logs: {S.ARTIFACTS}")
    if LATENCY and S.LATENCY_MD.exists():
        terminalreporter.write_line(f"browser slider latency report: {S.LATENCY_MD}")


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium, or a skip (a failure under CI) with a one-line reason."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "the playwright package is not installed (pip install -e '.[test]')"
    if problem is None and not S.CHROMIUM.exists():
        hint = "run `make browser-deps` (root) or `make test`" if os.geteuid() == 0 else \
            "a root user can install it with `apt-get install chromium`"
        problem = f"{S.CHROMIUM} not found; {hint}"
    if problem:
        if S.is_ci():
            pytest.fail(f"CI=true but the browser tests cannot run: {problem}", pytrace=False)
        pytest.skip(f"browser tests skipped: {problem}")
    return S.CHROMIUM


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """A fresh test-artifacts/browser/ folder for screenshots and logs."""
    shutil.rmtree(S.ARTIFACTS, ignore_errors=True)
    S.ARTIFACTS.mkdir(parents=True)
    print(f"\nbrowser test screenshots and logs: {S.ARTIFACTS}")
    return S.ARTIFACTS


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(chromium_path), args=S.CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _serve(make_cmd, env, log_path, ready_path: str, root: Path, what: str):
    """Start a server on a free port, yield it, stop it.

    Three tries: a free port can be taken between probe and bind.
    """
    last_error = None
    token = S.new_token()
    env = {**env, "JUPYTER_TOKEN": token}  # as `make app` hands it to Voila (not on the command line)
    for _ in range(3):
        port = S.free_port()
        base = f"http://127.0.0.1:{port}"
        S.TOKENS[base] = token
        server = S.Server(make_cmd(port), env, log_path, f"{base}{ready_path}")
        try:
            server.start()
        except RuntimeError as exc:
            last_error = exc
            S.TOKENS.pop(base, None)
            continue
        server.base = base
        server.root = root
        try:
            yield server
        finally:
            server.stop()
            S.TOKENS.pop(base, None)
        return
    pytest.fail(f"{what} did not start: {last_error}", pytrace=False)


@pytest.fixture(scope="session")
def lab_server(chromium_path, artifacts, tmp_path_factory):
    """JupyterLab on a free port over a temporary copy of notebooks/, with a token (JUPYTER_TOKEN,
    generated for the run) and the XSRF check, as `make lab` runs it: pages open with the token
    in their first URL (:func:`_support.page_url`), REST calls send it in a header."""
    base_dir = tmp_path_factory.mktemp("lab")
    root = S.copy_suite(base_dir / "suite")

    def cmd(port):
        c = [S.bin_path("jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             "--ServerApp.port_retries=0", "--ServerApp.password=",
             f"--ServerApp.root_dir={root}", f"--LabServerApp.workspaces_dir={base_dir / 'workspaces'}",
             "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False"]
        return c + (["--allow-root"] if os.geteuid() == 0 else [])

    yield from _serve(cmd, S.isolated_jupyter_env(base_dir), artifacts / "jupyterlab-server.log",
                      "/api/status", root, "JupyterLab")


@pytest.fixture(scope="session")
def voila_server(chromium_path, artifacts, tmp_path_factory):
    """Voilà as `make app` runs it (a token, JUPYTER_TOKEN's, through ``--Voila.auto_token``; no browser
    auto-open) over a temporary copy of the suite.

    It serves the copy's ``notebooks/`` (``figures/`` beside it) with the repository's
    ``voila.json`` (solutions removed, the markdown-image renderer), as ``make app`` does.
    """
    base_dir = tmp_path_factory.mktemp("voila")
    root = S.copy_suite(base_dir / "suite")

    def cmd(port):
        return [S.bin_path("voila"), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
                "--Voila.auto_token=True",
                "--show_tracebacks=True", f"--Voila.config_file_paths={S.VOILA_CONFIG.parent}",
                str(root / "notebooks")]

    yield from _serve(cmd, S.isolated_jupyter_env(base_dir), artifacts / "voila-server.log", "/",
                      root, "Voilà")


@pytest.fixture(scope="session")
def panel_classes() -> set[str]:
    return S.panel_class_names()


@pytest.fixture(scope="session")
def latency_report(browser, request):
    """Collects per-panel latencies; writes test-artifacts/browser/browser-latency.{json,md} at the end.

    ``complete`` in the JSON is false for a partial run (-k, -m, node ids); ``make bench``
    publishes only a complete run's report to benchmarks/results/.
    """
    yield LATENCY
    if not LATENCY:
        return
    partial = request.config.stash.get(S.PARTIAL_RUN, False)
    out_json, out_md = S.LATENCY_JSON, S.LATENCY_MD
    meta = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "complete": not partial,
        "what": "key press (ArrowRight/Left on a focused slider handle) to the next painted frame "
                "after the new figure image is decoded; one single step at a time",
        "target_median_ms": S.LATENCY_TARGET_MS,
        "browser": f"Chromium {browser.version} (headless)",
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
                   f"load average {os.getloadavg()[0]:.2f}",
    }
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps({**meta, "panels": LATENCY, "drags": S.DRAGS}, indent=2) + "\n")
    lines = [
        "# Slider latency in the browser (JupyterLab)", "",
        f"Measured {meta['date']} with {meta['browser']} on {meta['machine']}.", "",
        f"What: {meta['what']}. Median of {LATENCY[0]['n']} steps per panel; "
        f"target ≤ {S.LATENCY_TARGET_MS:.0f} ms median (reported, not asserted).", "",
        "| notebook | panel | slider | median ms | min ms | max ms | within target |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for r in LATENCY:
        lines.append(f"| {r['notebook']} | {r['panel']} | {r['slider']} | {r['median_ms']:.0f} | "
                     f"{r['min_ms']:.0f} | {r['max_ms']:.0f} | "
                     f"{'yes' if r['median_ms'] <= S.LATENCY_TARGET_MS else 'no'} |")
    if S.DRAGS:
        lines += ["", "## Frames during a one-second drag", "",
                  "A scripted drag (mouse down, as many moves as the browser takes in one second across "
                  "most of the track, mouse up) on the first slider of each panel; frames = distinct "
                  "figure images the page received during that second (reported, not asserted; target "
                  "≥ 10 per second). A panel with no frame by then is held at the end of the track "
                  "until its first one (the test asserts only a frame before the release). Values "
                  "passed = distinct slider values the handle went through after its start value: a "
                  "panel can show at most one new figure per value, so a slider with few values (a "
                  "number of hidden units or components, 1 to 4) cannot reach 10 frames in a second; "
                  "for it the measure is whether every value passed was drawn.", "",
                  "| notebook | panel | slider | mouse moves | values passed | frames | drag ms | "
                  "frames per second |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in S.DRAGS:
            lines.append(f"| {r['notebook']} | {r['panel']} | {r['slider']} | {r['moves']} | "
                         f"{r.get('values_passed', '–')} | {r['during']} | "
                         f"{r['duration_ms']:.0f} | {r['fps']:.1f} |")
    if partial:
        lines[1:1] = ["", "Partial run (some browser tests were deselected): not published by `make bench`."]
    lines += ["", "Produced by `tests/browser/test_jupyterlab.py` (run by `make test`); "
              "published to benchmarks/results/ by `make bench`.", ""]
    out_md.write_text("\n".join(lines))

