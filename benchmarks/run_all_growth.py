"""Run All time of every lesson, two source trees interleaved in one session.

``python -m benchmarks.run_all_growth BEFORE_TREE AFTER_TREE OUT.json [--reps N] [--lessons 01 02 ...]``
executes each lesson notebook of both trees top to bottom with nbclient (a fresh kernel
per run, ``PYTHONPATH`` set to the notebook's own tree, working directory its
``notebooks/`` folder, nothing written back), ``N`` rounds; within a round every lesson
runs once from each tree, the order of the two trees alternating from round to round so
that neither always runs second. A lesson missing from one tree is timed in the other
alone.

Two times per run, in seconds:

* ``run_all_s``: from the first cell's start to the last cell's reply, as the kernel
  stamped them (what Run All costs a student; the kernel's start-up is left out);
* ``wall_s``: the whole nbclient run, kernel start and shutdown included.

Each run also records the load average when it started. The result (every run, and the
commit of each tree) goes to ``OUT.json``, written atomically and rewritten after each
run, so an interrupted session keeps what finished. ``--report OUT.json`` prints the
Markdown table of medians and growth. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: the child process that times one notebook (run with the tree's PYTHONPATH)
_CHILD = r"""
import json, sys, time
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=1200, kernel_name="python3", record_timing=True,
                        resources={"metadata": {"path": sys.argv[2]}})
t0 = time.perf_counter()
client.execute()
wall = time.perf_counter() - t0
from datetime import datetime
stamps = [c.metadata.get("execution", {}) for c in nb.cells if c.cell_type == "code"]
stamps = [s for s in stamps if "iopub.execute_input" in s and "shell.execute_reply" in s]
parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
run_all = (parse(stamps[-1]["shell.execute_reply"]) - parse(stamps[0]["iopub.execute_input"])).total_seconds()
cells = []
for c in nb.cells:
    s = c.metadata.get("execution", {})
    if c.cell_type == "code" and "iopub.execute_input" in s and "shell.execute_reply" in s:
        cells.append({"tags": c.metadata.get("tags", []), "first_line": c.source.split("\n")[0][:70],
                      "s": (parse(s["shell.execute_reply"]) - parse(s["iopub.execute_input"])).total_seconds()})
print(json.dumps({"wall_s": wall, "run_all_s": run_all, "cells": cells}))
"""


def _commit(tree: Path) -> str:
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def _lesson_path(tree: Path, lesson: str) -> Path | None:
    found = sorted((tree / "notebooks").glob(f"{lesson}_*.ipynb"))
    return found[0] if found else None


def time_notebook(tree: Path, notebook: Path, keep_cells: bool = False) -> dict:
    """Execute ``notebook`` in a fresh kernel with ``tree`` first on the path; its two times (and
    with ``keep_cells`` each code cell's time, tags and first line)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"}
    load = os.getloadavg()
    out = subprocess.run([sys.executable, "-c", _CHILD, str(notebook), str(notebook.parent)],
                         env=env, cwd=str(notebook.parent), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{notebook} failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load_1min"] = round(load[0], 2)
    if not keep_cells:
        result.pop("cells", None)
    return result


#: the tags of an exercise's cells (answer, check, solution)
_EXERCISE_TAGS = {"answer", "check", "solution"}


def cell_profile(tree: Path, lesson: str, top: int = 8) -> str:
    """One run of a lesson: the time of its exercise cells (tagged answer, check, solution) and the
    slowest cells, as Markdown lines (to find what a lesson's growth costs)."""
    r = time_notebook(tree, _lesson_path(tree, lesson), keep_cells=True)
    cells = r["cells"]
    ex = sum(c["s"] for c in cells if _EXERCISE_TAGS & set(c["tags"]))
    lines = [f"lesson {lesson}: run all {r['run_all_s']:.2f} s, exercise cells {ex:.2f} s "
             f"(load {r['load_1min']})"]
    for c in sorted(cells, key=lambda c: -c["s"])[:top]:
        lines.append(f"  {c['s']:6.2f} s  {','.join(c['tags']) or '-':>12}  {c['first_line']}")
    return "\n".join(lines)


def _write(path: Path, data: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def measure(before: Path, after: Path, out: Path, reps: int, lessons: list[str]) -> dict:
    data = {"started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "commits": {"before": _commit(before), "after": _commit(after)},
            "cpus": os.cpu_count(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "reps": reps, "runs": []}
    if out.exists():  # resume: keep what finished
        old = json.loads(out.read_text())
        if old.get("commits") == data["commits"]:
            data = old
    done = {(r["rep"], r["lesson"], r["tree"]) for r in data["runs"]}
    for rep in range(reps):
        order = [("before", before), ("after", after)]
        if rep % 2:
            order.reverse()
        for lesson in lessons:
            for name, tree in order:
                nb = _lesson_path(tree, lesson)
                if nb is None or (rep, lesson, name) in done:
                    continue
                r = time_notebook(tree, nb, keep_cells=True)
                cells = r.pop("cells")
                r["exercise_cells_s"] = sum(c["s"] for c in cells if _EXERCISE_TAGS & set(c["tags"]))
                r["slowest_cells"] = sorted(cells, key=lambda c: -c["s"])[:5]
                r.update(rep=rep, lesson=lesson, tree=name, notebook=nb.name)
                data["runs"].append(r)
                print(f"round {rep} lesson {lesson} {name}: run all {r['run_all_s']:.2f} s "
                      f"(wall {r['wall_s']:.2f} s, load {r['load_1min']})", flush=True)
                _write(out, data)
    data["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    _write(out, data)
    return data


def report(data: dict) -> str:
    """Markdown table: per lesson the median Run All time of each tree and the growth."""
    lines = ["| lesson | runs (before / after) | median before (s) | median after (s) | growth of the medians | "
             "median of the paired growths | exercise cells before / after (s, median) |",
             "|---|---|---|---|---|---|---|"]
    lessons = sorted({r["lesson"] for r in data["runs"]})
    for lesson in lessons:
        def pick(tree, key):
            return [r[key] for r in data["runs"] if r["lesson"] == lesson and r["tree"] == tree and key in r]
        b, a = pick("before", "run_all_s"), pick("after", "run_all_s")
        wb, wa = pick("before", "wall_s"), pick("after", "wall_s")
        mb = statistics.median(b) if b else None
        ma = statistics.median(a) if a else None
        growth = f"{100 * (ma / mb - 1):+.1f} %" if mb and ma else "n/a"

        def fmt(x):
            return f"{x:.2f}" if x is not None else "—"
        # each round's after / before (the two ran next to each other, at about the same load)
        pairs = {}
        for r in data["runs"]:
            if r["lesson"] == lesson:
                pairs.setdefault(r["rep"], {})[r["tree"]] = r["run_all_s"]
        ratios = [p["after"] / p["before"] - 1 for p in pairs.values() if len(p) == 2]
        paired = f"{100 * statistics.median(ratios):+.1f} %" if ratios else "n/a"
        eb, ea = pick("before", "exercise_cells_s"), pick("after", "exercise_cells_s")
        ex = f"{fmt(statistics.median(eb) if eb else None)} / {fmt(statistics.median(ea) if ea else None)}"
        del wb, wa
        lines.append(f"| {lesson} | {len(b)} / {len(a)} | {fmt(mb)} | {fmt(ma)} | {growth} | {paired} | {ex} |")
    loads = [r["load_1min"] for r in data["runs"]]
    lines.append("")
    lines.append(f"Load average (1 min) at the start of each run: min {min(loads)}, "
                 f"median {statistics.median(loads):.2f}, max {max(loads)} on {data['cpus']} CPUs.")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lessons", nargs="+", default=[f"{i:02d}" for i in range(1, 9)])
    ap.add_argument("--report", type=Path)
    ap.add_argument("--profile", type=Path, help="a tree: its lessons' exercise cells and slowest cells")
    args = ap.parse_args(argv)
    if args.profile:
        for lesson in args.lessons:
            print(cell_profile(args.profile.resolve(), lesson), flush=True)
        return
    if args.report:
        print(report(json.loads(args.report.read_text())))
        return
    if len(args.trees) != 3:
        ap.error("give BEFORE_TREE AFTER_TREE OUT.json")
    before, after, out = args.trees
    t0 = time.perf_counter()
    data = measure(before.resolve(), after.resolve(), out, args.reps, args.lessons)
    print(report(data))
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
