"""Run every benchmark and write a dated report: ``python -m benchmarks.run`` (``make bench``).

Each ``benchmarks/bench_*.py`` module exposes ``CASES``: a dict mapping a case
name to ``(setup, step, target_ms)`` where ``setup()`` returns a context
object, ``step(ctx)`` is the operation timed, and ``target_ms`` is the
issue's target (or None). Timings are reported (median, 95th percentile),
never asserted. ``--quick`` runs few repetitions, as CI does so the harness
cannot rot.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import os
import platform
import pkgutil
import statistics
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _time_case(setup, step, repeats: int, warmup: bool = True) -> dict:
    ctx = setup()
    if warmup:
        step(ctx)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step(ctx)
        times.append((time.perf_counter() - t0) * 1e3)
    return {
        "median_ms": statistics.median(times),
        "p95_ms": float(np.percentile(times, 95)),
        "repeats": repeats,
    }


def machine_info() -> dict:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
    }


def run(quick: bool = False, only: list[str] | None = None) -> dict:
    results = {}
    for mod in sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_")):
        if only and not any(o in mod for o in only):
            continue
        cases = importlib.import_module(f"benchmarks.{mod}").CASES
        for name, (setup, step, target) in cases.items():
            r = _time_case(setup, step, repeats=1 if quick else 50, warmup=not quick)
            r["target_ms"] = target
            results[f"{mod[6:]}/{name}"] = r
    return results


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
