"""Run every benchmark and write a dated report: ``python -m benchmarks.run`` (``make bench``).

Each ``benchmarks/bench_*.py`` module exposes ``CASES``: a dict mapping a case
name to ``(setup, step, target_ms)`` where ``setup()`` returns a context
object, ``step(ctx)`` is the operation timed, and ``target_ms`` is the
issue's target (or None). The timing itself is pytest-benchmark's
(``benchmarks/test_cases.py``, 50 rounds after one warm-up, in a separate
process); this module turns its JSON into the report: median and 95th
percentile per case, the target, the machine. Timings are reported, never
asserted. ``--quick`` runs one round of each case, as CI does so the harness
cannot rot.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def machine_info() -> dict:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
    }


def run(quick: bool = False, only: list[str] | None = None) -> dict:
    """Time every case with pytest-benchmark; return ``{case: {median_ms, p95_ms, repeats, target_ms}}``."""
    import subprocess
    import sys
    import tempfile

    env = dict(os.environ, BENCH_ROUNDS="1" if quick else "50", BENCH_WARMUP="0" if quick else "1",
               BENCH_ONLY=",".join(only or []))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "benchmark.json"
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", str(HERE / "test_cases.py"), "-q", "-p", "no:randomly", "-p", "no:xdist",
             f"--benchmark-json={out}", "--benchmark-disable-gc", "--benchmark-sort=name"],
            cwd=HERE.parent, env=env, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError("benchmark run failed:\n" + proc.stdout[-4000:] + proc.stderr[-2000:])
        data = json.loads(out.read_text())
    results = {}
    for b in data["benchmarks"]:
        times = np.asarray(b["stats"]["data"]) * 1e3
        results[b["param"]] = {"median_ms": float(np.median(times)),
                               "p95_ms": float(np.percentile(times, 95)),
                               "repeats": int(times.size),
                               "target_ms": b["extra_info"].get("target_ms")}
    return dict(sorted(results.items()))


def write_report(results: dict, outdir: Path, quick: bool) -> tuple[Path, Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.date.today().isoformat()
    info = machine_info()
    jpath = outdir / f"report-{stamp}.json"
    mpath = outdir / f"report-{stamp}.md"
    jpath.write_text(json.dumps({"date": stamp, "quick": quick, "machine": info, "results": results}, indent=2))
    lines = [f"# Benchmark report {stamp}{' (quick mode)' if quick else ''}", "",
             "Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), "",
             "| case | median ms | p95 ms | target ms | meets target |", "|---|---|---|---|---|"]
    for name, r in results.items():
        tgt = r["target_ms"]
        ok = "" if tgt is None else ("yes" if r["median_ms"] <= tgt else "no")
        lines.append(f"| {name} | {r['median_ms']:.2f} | {r['p95_ms']:.2f} | {'' if tgt is None else tgt} | {ok} |")
    mpath.write_text("\n".join(lines) + "\n")
    return jpath, mpath


def time_test_suite() -> dict:
    """Wall time of the whole test command's pytest run (installs excluded)."""
    import subprocess
    import sys

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x"], cwd=HERE.parent,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return {"median_ms": seconds * 1e3, "p95_ms": seconds * 1e3, "repeats": 1,
            "target_ms": 5 * 60 * 1e3, "summary": tail, "exit_code": proc.returncode}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description="Run the benchmarks and write a report.")
    p.add_argument("--quick", action="store_true", help="one repetition, no warm-up (CI)")
    p.add_argument("--only", nargs="*", help="substrings of benchmark module names")
    p.add_argument("--outdir", default=str(HERE / "results"))
    p.add_argument("--figures", default=str(HERE.parent / "figures"),
                   help="where the timing figures go")
    p.add_argument("--test-suite", action="store_true",
                   help="also time the whole pytest run (the default in full mode)")
    args = p.parse_args(argv)
    results = run(args.quick, args.only)
    if args.test_suite or not (args.quick or args.only):
        results["tests/whole_test_command"] = time_test_suite()
    from benchmarks.plots import write_timing_figures

    write_timing_figures(results, Path(args.figures))
    j, m = write_report(results, Path(args.outdir), args.quick)
    print(m.read_text())


if __name__ == "__main__":
    main()
