"""One bound + gradient evaluation of two source trees side by side, alternating (issue 30).

``python -m benchmarks.bound_trees OUT.jsonl --tree before=DIR --tree after=DIR [--rounds N]``
times issue 30's unit of work, ``kl_objective`` of the collapsed bound in the full family on
Boston split 0 at MacKay's evidence fit (:func:`benchmarks.bench_network_fits._bound_gradient_case`,
target ≤ 1.5 ms), in each tree in turn: a fresh process per tree and round (``PYTHONPATH`` = the
tree, one BLAS thread), trees alternating and their order swapped from round to round, so both see
the same load. Each process warms up (100 calls), then times ``--repeats`` batches of ``--calls``
calls and writes one JSON row: the tree, the round, the per-call wall and CPU (``thread_time``)
times of every batch, and the 1-minute load average. A tree is any unpacked commit
(``git archive COMMIT ensemble_lib benchmarks tests/_network_reference.py | tar -x -C DIR``).

``python -m benchmarks.bound_trees summary OUT.jsonl`` prints, per tree, the minimum and median over
all batches as a Markdown table. Timings are reported (``benchmarks/results/``), never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def measure(calls: int, repeats: int) -> dict:
    """In this process: per-call wall and CPU times (ms) of ``repeats`` batches of ``calls`` evaluations."""
    from benchmarks.bench_network_fits import _bound_gradient_case

    setup, step, _ = _bound_gradient_case()
    ctx = setup()
    for _ in range(100):
        step(ctx)
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(calls):
            step(ctx)
        cpu.append((time.thread_time() - c0) / calls * 1e3)
        wall.append((time.perf_counter() - w0) / calls * 1e3)
    return {"wall_ms": wall, "cpu_ms": cpu, "load1": os.getloadavg()[0]}


def _one(tree: Path, calls: int, repeats: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    code = (f"import json; from benchmarks.bound_trees import measure; "
            f"print(json.dumps(measure({calls}, {repeats})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(out: Path, trees: dict[str, Path], rounds: int, calls: int, repeats: int) -> None:
    names = list(trees)
    with out.open("a") as fh:
        for r in range(rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                row = {"tree": name, "round": r, **_one(trees[name], calls, repeats)}
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(f"round {r} {name}: min {min(row['wall_ms']):.3f} ms wall, "
                      f"{min(row['cpu_ms']):.3f} ms CPU (load {row['load1']:.2f})", flush=True)


def summary(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    by_tree: dict[str, list[dict]] = {}
    for row in rows:
        by_tree.setdefault(row["tree"], []).append(row)
    lines = ["| tree | processes | wall min | wall median | CPU min | CPU median | load |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, rs in by_tree.items():
        wall = [t for r in rs for t in r["wall_ms"]]
        cpu = [t for r in rs for t in r["cpu_ms"]]
        loads = [r["load1"] for r in rs]
        lines.append(f"| {name} | {len(rs)} | {min(wall):.3f} ms | {statistics.median(wall):.3f} ms | "
                     f"{min(cpu):.3f} ms | {statistics.median(cpu):.3f} ms | "
                     f"{min(loads):.2f}–{max(loads):.2f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["summary"]:
        print(summary(Path(argv[1])))
        return
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bound_trees", description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="JSON-lines file the rows are appended to")
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=DIR",
                    help="a source tree (ensemble_lib/ and benchmarks/ at its root); give two or more")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--calls", type=int, default=200, help="evaluations per timed batch")
    ap.add_argument("--repeats", type=int, default=5, help="timed batches per process")
    args = ap.parse_args(argv)
    trees = {}
    for spec in args.tree:
        name, sep, d = spec.partition("=")
        if not sep or not name or not Path(d, "ensemble_lib").is_dir():
            ap.error(f"--tree must be NAME=DIR with DIR/ensemble_lib a directory, got {spec!r}")
        trees[name] = Path(d).resolve()
    for opt in ("rounds", "calls", "repeats"):
        if getattr(args, opt) < 1:
            ap.error(f"--{opt} must be at least 1, got {getattr(args, opt)}")
    run(args.out, trees, args.rounds, args.calls, args.repeats)
    print(summary(args.out))


if __name__ == "__main__":
    main()
