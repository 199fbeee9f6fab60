"""The times lessons 5 and 9 measure of themselves, taken in Voilà's pool against taken alone.

Lessons 5 and 9 time their own computations (lesson 5: the exact fit and each SVI run; lesson 9:
the KL fit), in CPU time (``time.thread_time``). Voilà's kernel pool (``voila.json``) runs every
lesson ahead, all at once, in the app's first minute, so those times are taken while the other
lessons run beside them. This benchmark shows how much that changes them:

* ``alone`` — each lesson run top to bottom in a fresh kernel (nbclient), no other lesson beside it;
* ``pool`` — the app started as ``make app`` starts it (the tree's ``voila.json``), each lesson's
  page fetched once the app has warmed up: the page the pool ran during the warm-up.

The times are read from the pages' tables (lesson 5's timing table, lesson 9's cost table).

``PYTHONPATH=. python -m benchmarks.pool_clock [--repeats N] [--out FILE.jsonl]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

from benchmarks.lessons_ready import _page, _voila, _wait_warm

LESSONS = ("05_deterministic_vs_stochastic_vi.ipynb", "09_monte_carlo.ipynb")

#: what each lesson prints of its own times: label → pattern of the number (ms or s)
_PATTERNS = {
    "lesson 5: exact fit (ms)": r"exact \(quadrature\)</td>.*?<td[^>]*>([\d.]+) ms \(median of 3\)",
    "lesson 5: SVI S = 1 fixed (ms)": r"SVI, S = 1</td><td[^>]*>fixed</td><td[^>]*>\d+ steps in ([\d.]+) ms",
    "lesson 5: SVI S = 1 decaying (ms)": r"SVI, S = 1</td><td[^>]*>decaying</td><td[^>]*>\d+ steps in ([\d.]+) ms",
    "lesson 5: SVI S = 16 fixed (ms)": r"SVI, S = 16</td><td[^>]*>fixed</td><td[^>]*>\d+ steps in ([\d.]+) ms",
    "lesson 5: SVI S = 16 decaying (ms)": r"SVI, S = 16</td><td[^>]*>decaying</td><td[^>]*>\d+ steps in ([\d.]+) ms",
    "lesson 9: KL fit (s)": r"KL, full Gaussian</td>(?:<td[^>]*>[^<]*</td>){2}<td[^>]*>([\d.]+)</td>",
}


def read_times(html: str) -> dict:
    """Every number of :data:`_PATTERNS` found in ``html`` (a page or a notebook's outputs)."""
    html = re.sub(r"\s*style=\"[^\"]*\"", "", html)
    return {label: float(m.group(1)) for label, pat in _PATTERNS.items()
            if (m := re.search(pat, html, flags=re.S))}


def alone(tree: str, name: str) -> dict:
    """Run lesson ``name`` in a fresh kernel, no other lesson beside it; its times."""
    import nbformat
    from nbclient import NotebookClient

    os.environ["PYTHONPATH"] = tree
    path = Path(tree, "notebooks", name)
    nb = nbformat.read(path, 4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    html = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []))
    return read_times(html)


def pooled(tree: str) -> dict:
    """Start the app (pool on, as ``make app``), wait for its warm-up; each lesson's page's times."""
    import urllib.request

    start = time.perf_counter()
    with _voila(tree, ["--Voila.token=", f"--Voila.config_file_paths={tree}", str(Path(tree, "notebooks"))]) \
            as (server, port):
        _page(f"http://127.0.0.1:{port}/voila/render/{LESSONS[0]}", "first")  # waits for its pool kernel
        _wait_warm(server, start)
        out = {}
        for name in LESSONS:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/voila/render/{name}", timeout=600) as r:
                out.update(read_times(_page_outputs(r.read().decode())))
        return out


def _page_outputs(page: str) -> str:
    """The HTML outputs of a Voilà page (each cell output is a JSON script in it)."""
    blocks = re.findall(r'<script type="application/vnd.voila.cell-output\+json">(.*?)</script>', page, flags=re.S)
    html = (json.loads(b).get("data", {}).get("text/html", "") for b in blocks)
    return "".join(h if isinstance(h, str) else "".join(h) for h in html)  # a list of lines, as stored


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", default=".", help="the checkout whose notebooks/ and voila.json to use")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each way, alternating")
    parser.add_argument("--out", help="append one JSON line per run to this file")
    args = parser.parse_args(argv)
    tree = str(Path(args.tree).resolve())
    for i in range(args.repeats):
        for way in ("alone", "pool"):
            load = os.getloadavg()[0]
            if way == "alone":
                times = {}
                for name in LESSONS:
                    times.update(alone(tree, name))
            else:
                times = pooled(tree)
            row = {"way": way, "run": i, "load1_start": load, "load1_end": os.getloadavg()[0], **times}
            print(json.dumps(row), flush=True)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
