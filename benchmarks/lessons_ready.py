"""Every lesson's Run All, and the live panels' first frames, before and after a change (issue 30).

``python -m benchmarks.lessons_ready runall OUT.jsonl --tree before=DIR --tree after=DIR [--reps N] [--lessons 03 06]``
executes every lesson of each tree top to bottom as JupyterLab's Run All does (nbclient, a fresh
kernel started in the tree's ``notebooks/`` with ``PYTHONPATH`` = the tree), alternating the trees
lesson by lesson (and their order from one repetition to the next), so both see the same load. Per
run it records the wall time of kernel start-up plus every cell, the cells alone, the kernel's own
CPU seconds (user + system: the figure a busy shared machine changes least) and the 1-minute load
average. A tree is any unpacked commit (``git archive COMMIT | tar -x -C DIR``); its library's
bytecode is written first (:func:`compile_library`), as a student's first import would.

``python -m benchmarks.lessons_ready panels OUT.jsonl`` (run once per tree, with its ``PYTHONPATH``)
times in this process lesson 5's slider step (the step size moved, 1000 SVI steps and the draw) and
lesson 7's α step as a browser streams it: its first frame, and the frames up to both K = 1 fits.

``python -m benchmarks.lessons_ready app OUT.jsonl --tree now=DIR [--reps N]`` starts the app as
``make app`` does (the tree's ``notebooks/`` and ``voila.json``), with Voilà's preheated kernel pool
on and off in turn, and times the first page, the warm-up and every lesson's page (:func:`app_loads`);
with ``--chromium PATH`` each lesson is opened in that browser, until its panels are drawn;
``--pause S`` sets the seconds between lessons, ``--preheat on|off`` one setting only.

``python -m benchmarks.lessons_ready summary RUNALL.jsonl`` prints medians as a Markdown table.

``python -m benchmarks.lessons_ready voila OUT.jsonl --tree ... [--reps N]``: the same for a Voilà
page load (:func:`voila_load`: a fresh server per load, one HTTP GET read to its end, which Voilà
sends once the last cell has run; the widgets' drawing in a browser comes on top). Timings are
reported (``benchmarks/results/``), never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from contextlib import ExitStack, contextmanager
from pathlib import Path


def run_all(tree: str, name: str) -> dict:
    """One Run All of lesson ``name`` of ``tree`` in a fresh kernel."""
    import nbformat
    import psutil
    from nbclient import NotebookClient

    os.environ["PYTHONPATH"] = tree  # the kernel inherits it
    path = Path(tree, "notebooks", name)
    nb = nbformat.read(path, 4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    with client.setup_kernel():
        t1 = time.perf_counter()
        kernel = psutil.Process(client.km.provisioner.process.pid)
        c0 = sum(kernel.cpu_times()[:2])
        for i, cell in enumerate(nb.cells):
            client.execute_cell(cell, i)
        t2 = time.perf_counter()
        cpu = sum(kernel.cpu_times()[:2]) - c0
    return {"lesson": name, "total_s": t2 - t0, "kernel_start_s": t1 - t0, "cells_s": t2 - t1,
            "kernel_cpu_s": cpu, "load1": load}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _voila(tree: str, args: list[str]):
    """A ``voila`` server started in ``tree``'s root with ``args`` (``PYTHONPATH`` = the tree), once its
    port answers: yields ``(process, port)``; stopped on exit."""
    import shutil
    import socket
    import subprocess
    import sys

    voila = shutil.which("voila", path=str(Path(sys.executable).parent)) or "voila"
    port = _free_port()
    server = subprocess.Popen([voila, "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", *args],
                              cwd=tree, env={**os.environ, "PYTHONPATH": tree},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield server, port
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


def _page(url: str, name: str) -> dict:
    """One HTTP GET of a Voilà page, read to its end."""
    import urllib.request

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        body = response.read()
    return {"lesson": name, "total_s": time.perf_counter() - t0, "bytes": len(body),
            "traceback": b"Traceback" in body, "load1": load}


def voila_load(tree: str, name: str) -> dict:
    """One Voilà page load of lesson ``name`` of ``tree``: a fresh ``voila`` server (started in the
    tree's root, so the lessons' ``../figures/`` images resolve), then one HTTP GET read to its end.

    Voilà 0.5 runs every cell in a fresh kernel while it sends the page, so the GET ends when the
    last cell has run; the widgets' drawing in a browser comes on top (the browser suite times it).
    Voilà reads the tree's ``voila.json`` (the working directory's): where it turns the kernel pool
    on, the server runs the lesson ahead from its start, and the GET sent at once waits for that run.
    """
    with _voila(tree, [f"notebooks/{name}"]) as (_, port):
        return _page(f"http://127.0.0.1:{port}/", name)


def _tree_cpu(process) -> float:
    """CPU seconds (user + system) of ``process``'s children so far (the app's kernels)."""
    import psutil

    total = 0.0
    for child in process.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.NoSuchProcess:
            pass
    return total


def _wait_warm(server, start: float, limit: float = 300.0) -> None:
    """Until the server's kernels have started and then used under 0.05 CPU-s in a second."""
    import psutil

    parent, last = psutil.Process(server.pid), None
    while time.perf_counter() - start < limit:
        cpu = _tree_cpu(parent)
        if last is not None and parent.children() and cpu - last < 0.05:
            return
        last = cpu
        time.sleep(1.0)


def _panels_shown(notebook: Path) -> int:
    """How many FigurePanels the app shows of the stored lesson: displayed boxes holding an image
    (the stored widget state says which), outside the exercise cells Voilà leaves out."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})

    def is_panel(model_id: str) -> bool:
        children = state.get(model_id, {}).get("state", {}).get("children", [])
        return any(state.get(c.removeprefix("IPY_MODEL_"), {}).get("model_name") == "ImageModel" for c in children)

    left_out = {"solution", "answer", "check"}  # voila.json's remove_cell_tags
    return sum(is_panel(out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"])
               for cell in nb["cells"] if not left_out & set(cell.get("metadata", {}).get("tags", []))
               for out in cell.get("outputs", []) if "application/vnd.jupyter.widget-view+json" in out.get("data", {}))


#: a Voilà page is drawn when it shows the lesson's panels, each with its figure loaded
_DRAWN = ("([n]) => document.querySelectorAll('.widget-box:has(> .widget-image)').length >= n && "
          "[...document.querySelectorAll('.widget-box > .widget-image')].every(i => i.complete && i.naturalWidth > 0)")


def app_loads(tree: str, preheat: bool, pause: float = 3.0, chromium: str | None = None,
              tab: str = "fresh") -> list[dict]:
    """Every lesson's page load on one app server started as ``make app`` starts it (the tree's
    ``notebooks/`` folder, its ``voila.json``), with Voilà's kernel pool on (``preheat``) or off.

    Rows: ``first`` — the learning path requested the moment the server answers (a lecturer who
    opens the printed address at once); ``warm`` — from the server's start until its kernels stop
    working (every lesson run ahead in its pool kernel, or nothing to do without the pool); then
    each lesson in order, ``pause`` seconds apart (a student reading), each a fresh HTTP GET read to
    its end. The pool refills behind each page taken from it, so the rows include that work.

    With ``chromium`` (a Chromium binary, driven by Playwright) each lesson of the walk is opened in
    the browser instead: ``total_s`` until the page's load event, ``drawn_s`` until it shows every
    panel with its figure (the widgets connected to their kernel and drawn). ``tab``: ``"fresh"``
    opens each lesson in a browser context of its own (an empty HTTP cache: Voilà's scripts fetched
    every time); ``"one"`` walks them in one tab, as a student does, each lesson opened by navigating
    it (the browser's cache kept from lesson to lesson, so only the first lesson fetches the scripts).
    """
    if tab not in ("fresh", "one"):
        raise ValueError(f"tab must be 'fresh' or 'one', got {tab!r}")
    lessons = sorted(p.name for p in Path(tree, "notebooks").glob("[0-9][0-9]_*.ipynb"))
    args = ["--Voila.token=", f"--Voila.config_file_paths={tree}", f"--VoilaConfiguration.preheat_kernel={preheat}",
            str(Path(tree, "notebooks"))]
    start = time.perf_counter()
    with _voila(tree, args) as (server, port), ExitStack() as stack:
        def url(name):
            return f"http://127.0.0.1:{port}/voila/render/{name}"

        def get(name):
            return {**_page(url(name), name), "preheat": preheat}

        def draw(name):
            context = shared[0] if shared else browser.new_context(viewport={"width": 1100, "height": 1000})
            page = shared[1] if shared else context.new_page()
            load, console = os.getloadavg()[0], []
            listen = lambda m: console.append(f"{m.type}: {m.text}")  # noqa: E731
            page.on("console", listen)
            try:
                n, before_reload = _panels_shown(Path(tree, "notebooks", name)), None
                t0 = time.perf_counter()
                page.goto(url(name), timeout=600_000, wait_until="load")
                t1 = time.perf_counter()
                try:
                    page.wait_for_function(_DRAWN, arg=[n], timeout=60_000)
                except Exception:  # Voilà's race (voila#920): a visitor reloads, as the browser suite does
                    before_reload = page.evaluate(
                        "() => document.querySelectorAll('.widget-box:has(> .widget-image)').length")
                    page.reload(timeout=600_000, wait_until="load")
                    page.wait_for_function(_DRAWN, arg=[n], timeout=120_000)
                return {"lesson": name, "total_s": t1 - t0, "drawn_s": time.perf_counter() - t0, "load1": load,
                        "preheat": preheat, "browser": True, "panels": n, "tab": tab,
                        "reloaded": before_reload is not None, "panels_before_reload": before_reload,
                        "console_errors": [m for m in console if m.startswith("error")][:5]}
            finally:
                page.remove_listener("console", listen)
                if not shared:
                    context.close()

        shared = ()
        if chromium:
            from playwright.sync_api import sync_playwright  # only for this benchmark (the test extra)

            browser = stack.enter_context(sync_playwright()).chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
            stack.callback(browser.close)
            if tab == "one":
                context = browser.new_context(viewport={"width": 1100, "height": 1000})
                stack.callback(context.close)
                shared = (context, context.new_page())
        rows = [{**get(lessons[0]), "row": "first", "since_start_s": time.perf_counter() - start}]
        _wait_warm(server, start)
        rows.append({"lesson": "(all)", "row": "warm", "total_s": time.perf_counter() - start, "preheat": preheat,
                     "load1": os.getloadavg()[0]})
        for name in lessons:
            time.sleep(pause)
            rows.append({**(draw(name) if chromium else get(name)), "row": "walk"})
        return rows


def _timed(fn, n: int) -> dict:
    import numpy as np

    wall, cpu = [], []
    for i in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(i)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"wall_ms": 1e3 * float(np.median(wall)), "cpu_ms": 1e3 * float(np.median(cpu)), "n": n}


def panels() -> dict:
    """Lesson 5's step and lesson 7's streamed α step, in this process (the tree on ``PYTHONPATH``)."""
    from ensemble_lib.lessons.mixture import MixtureExplorer, forget_mixtures
    from ensemble_lib.lessons.stochastic_vi import DEFAULT_STEP, SVIExplorer

    out = {"tree": os.environ.get("PYTHONPATH", ""), "load1_start": os.getloadavg()[0]}
    svi = SVIExplorer()
    svi.update()
    steps = [DEFAULT_STEP, DEFAULT_STEP * 10 ** 0.1]
    svi.controls["step_size"].value = steps[1]
    out["svi_step"] = _timed(lambda i: setattr(svi.controls["step_size"], "value", steps[i % 2]), 30)
    out["svi_compute"] = _timed(lambda i: svi.compute(**{**svi.values(), "step_size": steps[i % 2]}), 30)
    mix = MixtureExplorer()
    mix.update()
    alphas = (0.2, 0.2 * 10 ** 0.05)

    def frames(k):
        def step(i):
            forget_mixtures()
            for n, state in enumerate(mix.compute_stream(**{**mix.values(), "alpha": alphas[i % 2]}), 1):
                mix.draw(state)
                mix.render()
                mix.format_readout(state)
                if n == k:
                    break
        return step

    out["mixture_first_frame"] = _timed(frames(1), 20)
    first = next(iter(mix.compute_stream(**{**mix.values(), "alpha": 0.3})))
    forget_mixtures()
    fitted_first = bool(first.comparison.quadrature.fits)
    out["mixture_first_frame_has_fits"] = fitted_first
    out["mixture_frames_to_k1_fits"] = _timed(frames(1 if fitted_first else 2), 20)
    out["load1_end"] = os.getloadavg()[0]
    return out


def summary(rows) -> str:
    """Medians per lesson, before → after (the first two tree labels met)."""
    labels = list(dict.fromkeys(r["label"] for r in rows))[:2]
    by = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by[r["lesson"]][r["label"]].append(r)
    fields = [f for f in ("total_s", "cells_s", "kernel_cpu_s") if f in rows[0]]
    lines = ["| lesson | " + " | ".join(f"{f} before → after" for f in fields) + " | pairs | load average |",
             "|---" * (len(fields) + 3) + "|"]
    for lesson in sorted(by):
        a, b = by[lesson][labels[0]], by[lesson][labels[-1]]
        cells = [f"{statistics.median(r[f] for r in a):.1f} → {statistics.median(r[f] for r in b):.1f}"
                 for f in fields]
        loads = [r["load1"] for r in a + b]
        lines.append(f"| {lesson.split('.')[0]} | " + " | ".join(cells)
                     + f" | {min(len(a), len(b))} | {min(loads):.0f}–{max(loads):.0f} |")
    return "\n".join(lines)


def compile_library(tree: str) -> None:
    """Write the bytecode of ``tree``'s library, as a student's Python does on its first import.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the machine these reports were made on), every
    kernel would compile the library's modules from source: about 0.15 s of a lesson's imports there
    (`results/inline-one-draw-2026-11-28.md`), which a student pays once, not per lesson.
    """
    import compileall

    compileall.compile_dir(str(Path(tree, "ensemble_lib")), quiet=1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("runall", "voila", "app", "panels", "summary"))
    parser.add_argument("out", help="JSON lines file (appended to; read by summary)")
    parser.add_argument("--tree", action="append", default=[], help="LABEL=DIR, twice (runall)")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--lessons", nargs="+", metavar="NN",
                        help="runall, voila: only the lessons whose file names start with these numbers (03 05)")
    parser.add_argument("--chromium", help="app: open each lesson in this Chromium (Playwright) instead of one GET")
    parser.add_argument("--pause", type=float, default=3.0, help="app: seconds between the walk's lessons")
    parser.add_argument("--preheat", choices=("both", "on", "off"), default="both", help="app: pool on, off, both")
    parser.add_argument("--tab", choices=("fresh", "one"), default="fresh",
                        help="app with --chromium: each lesson in a fresh browser context, or all in one tab")
    args = parser.parse_args(argv)
    if args.what == "summary":
        print(summary([json.loads(line) for line in Path(args.out).read_text().splitlines()]))
        return
    with Path(args.out).open("a") as f:
        if args.what == "panels":
            f.write(json.dumps(panels()) + "\n")
            return
        trees = dict(t.split("=", 1) for t in args.tree)
        for tree in trees.values():
            compile_library(tree)
        if args.what == "app":
            for rep in range(args.reps):
                both = (True, False) if rep % 2 == 0 else (False, True)
                for preheat in {"both": both, "on": (True,), "off": (False,)}[args.preheat]:
                    for label, tree in trees.items():
                        for row in app_loads(tree, preheat, pause=args.pause, chromium=args.chromium,
                                               tab=args.tab):
                            row = {**row, "label": label, "rep": rep, "pause_s": args.pause,
                                   "t": time.strftime("%H:%M:%S")}
                            f.write(json.dumps(row) + "\n")
                            f.flush()
            return
        lessons = sorted(p.name for p in Path(next(iter(trees.values())), "notebooks").glob("[0-9][0-9]_*.ipynb"))
        if args.lessons:
            lessons = [n for n in lessons if n[:2] in {x.zfill(2) for x in args.lessons}]
            if not lessons:
                raise SystemExit(f"--lessons {' '.join(args.lessons)} names no lesson of the tree")
        for rep in range(args.reps):
            order = list(trees) if rep % 2 == 0 else list(trees)[::-1]
            for name in lessons:
                for label in order:
                    run = run_all if args.what == "runall" else voila_load
                    row = {**run(trees[label], name), "label": label, "rep": rep, "t": time.strftime("%H:%M:%S")}
                    f.write(json.dumps(row) + "\n")
                    f.flush()


if __name__ == "__main__":
    main()
