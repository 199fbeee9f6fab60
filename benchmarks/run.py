"""Run every benchmark and write a dated report: ``python -m benchmarks.run`` (``make bench``).

Each ``benchmarks/bench_*.py`` module exposes ``CASES``: a dict mapping a case
name to ``(setup, step, target_ms)`` where ``setup()`` returns a context
object, ``step(ctx)`` is the operation timed, and ``target_ms`` is the
issue's target (or None). The timing itself is pytest-benchmark's
(``benchmarks/test_cases.py``, 50 rounds after one warm-up, in a separate
process); this module turns its JSON into the report: median and 95th
percentile per case, the target, the machine. Timings are reported, never
asserted.

``--quick`` (CI, ``tests/project/test_benchmarks.py``) runs one round, no warm-up, so
the harness cannot rot: every case is still collected (each bench module
imports and registers its cases) but a few are left out (:func:`quick_skips`):
those whose work another case repeats, and the long fits to convergence.

The report also records the wall time of ``make test`` (which writes it to
``test-artifacts/make-test-time.json``), with the date it was measured; with
``BENCH_TEST_TIME=1`` (or ``--test-suite``) the command runs ``make test``
first to measure it afresh. ``make bench`` is also what publishes the browser
suite's slider latency report: the last complete browser run's
``test-artifacts/browser/browser-latency.{json,md}`` is copied to
``benchmarks/results/`` (``make test`` itself writes no tracked file).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: written by `make test`: its wall time (installs excluded), date, exit status
MAKE_TEST_TIME = ROOT / "test-artifacts" / "make-test-time.json"
#: written by the browser suite (tests/browser/conftest.py); published by this command
#: each exercise check's time, recorded by tests/ui/test_exercises.py (target: under a second)
CHECK_TIMES = ROOT / "test-artifacts" / "exercise-check-times.json"
CHECK_TARGET_S = 1.0
BROWSER_LATENCY = [ROOT / "test-artifacts" / "browser" / f"browser-latency.{ext}" for ext in ("json", "md")]
#: the issue's target for `make test` on the 2-core machine
MAKE_TEST_TARGET_S = 5 * 60


def cpu_model() -> str:
    """The CPU's model name (Linux: ``/proc/cpuinfo``), else the architecture."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict:
    """What the timings depend on: Python, the OS, the CPU (its model and numpy's SIMD level) and numpy."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
        simd = next((f for f in ("AVX512F", "AVX2", "SSE42", "ASIMD") if features.get(f)), "baseline")
    except ImportError:
        simd = "unknown"
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": cpu_model(),
        "simd": simd,
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
    }


def quick_skips(cases: dict) -> list[str]:
    """Cases that quick mode collects (so their module imports and registers them) but does not run.

    * a panel's ``<prefix>_compute`` and ``<prefix>_draw`` when its ``<prefix>_step``
      has the same set-up: the step runs both through the panel's callback;
    * the fits to convergence (``*_to_convergence*``): tens of seconds each, the rest of
      the quick run together takes less; ``fit_ensemble`` is tested in tests/inference/test_network_fits.py.
    """
    skip = [name for name in cases if "_to_convergence" in name]
    for name, (setup, _step, _target) in cases.items():
        for part in ("_compute", "_draw"):
            sibling = cases.get(name.removesuffix(part) + "_step") if name.endswith(part) else None
            if sibling is not None and getattr(setup, "base", setup) is sibling[0]:
                skip.append(name)
    return sorted(skip)


def run(quick: bool = False, only: list[str] | None = None) -> tuple[dict, list[str]]:
    """Time the cases with pytest-benchmark.

    Returns ``({case: {median_ms, p95_ms, repeats, target_ms}}, cases left out in quick mode)``.
    """
    import tempfile

    # not PYTEST_XDIST_WORKER & co (set when the test suite runs this on an xdist worker):
    # pytest-benchmark would take the child for an xdist worker and disable the timing
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env.update(BENCH_ROUNDS="1" if quick else "50", BENCH_WARMUP="0" if quick else "1",
               BENCH_ONLY=",".join(only or []))
    skipped = []
    if quick:
        from benchmarks.test_cases import CASES

        skipped = quick_skips(CASES)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "benchmark.json"
        # without nbval and the project's addopts (its nbval options): loading nbval (nbformat,
        # jsonschema) costs the child a second or two and no benchmark needs it
        cmd = [sys.executable, "-m", "pytest", str(HERE / "test_cases.py"), "-q", "-p", "no:randomly",
               "-p", "no:xdist", "-p", "no:nbval", "-p", "no:cacheprovider", "-o", "addopts=",
               f"--benchmark-json={out}", "--benchmark-disable-gc", "--benchmark-sort=name"]
        cmd += [f"--deselect=benchmarks/test_cases.py::test_case[{name}]" for name in skipped]
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if quick and proc.returncode == 5:  # every selected case left out (e.g. --quick --only network_fits)
            data = {"benchmarks": []}
        elif proc.returncode != 0 or not out.exists():
            raise RuntimeError("benchmark run failed:\n" + proc.stdout[-4000:] + proc.stderr[-2000:])
        else:
            data = json.loads(out.read_text())
    results = {}
    for b in data["benchmarks"]:
        times = np.asarray(b["stats"]["data"]) * 1e3
        results[b["param"]] = {"median_ms": float(np.median(times)),
                               "p95_ms": float(np.percentile(times, 95)),
                               "repeats": int(times.size),
                               "target_ms": b["extra_info"].get("target_ms")}
    only_skipped = [name for name in skipped if not only or any(o in "bench_" + name.split("/")[0] for o in only)]
    return dict(sorted(results.items())), only_skipped


#: the long studies' wall times, written by their commands' ``--times`` option
#: (``python -m ensemble_lib.studies.table1 --table --times benchmarks/results/table1-times.json``,
#: ``python -m ensemble_lib.studies.hmc_reference --demo --times benchmarks/results/hmc-reference-times.json``)
STUDY_TIMES = {"table1": (HERE / "results" / "table1-times.json", 5 * 60),  # issue 30
               "hmc_reference": (HERE / "results" / "hmc-reference-times.json", 30 * 60)}  # issue 32


def study_times() -> dict:
    """Each study's last recorded wall time (s) with its target, from the files its command wrote."""
    out = {}
    for name, (path, target) in STUDY_TIMES.items():
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        per = rec["split_seconds"]
        splits = {k: v for k, v in per.items() if isinstance(v, list)}
        total = rec.get("wall_seconds")
        if total is None:  # run one split after another: the sum is the wall time
            total = sum(sum(v) for v in splits.values())
        out[name] = {"wall_s": round(float(total), 1), "target_s": target, "date": rec.get("date"),
                     "splits": {k: len(v) for k, v in splits.items()}, "n_jobs": rec.get("n_jobs")}
    return out


def last_make_test_time() -> dict | None:
    """The last ``make test`` wall time recorded in test-artifacts/ (None if never measured here)."""
    try:
        rec = json.loads(MAKE_TEST_TIME.read_text())
        return {**rec, "target_s": MAKE_TEST_TARGET_S}
    except (OSError, ValueError):
        return None


def measure_make_test() -> dict | None:
    """Run ``make test`` (its output goes to the terminal); return the wall time it recorded."""
    print("timing `make test` (BENCH_TEST_TIME=1) ...", flush=True)
    MAKE_TEST_TIME.unlink(missing_ok=True)
    # without BENCH_TEST_TIME: the test suite's own quick benchmark run must not time `make test` again
    env = {k: v for k, v in os.environ.items() if k != "BENCH_TEST_TIME"}
    subprocess.run(["make", "test"], cwd=ROOT, env=env)
    return last_make_test_time()


def publish_browser_latency(outdir: Path) -> str | None:
    """Copy the last complete browser run's latency report to ``outdir``; return its date, if any."""
    src_json, src_md = BROWSER_LATENCY
    try:
        meta = json.loads(src_json.read_text())
    except (OSError, ValueError):
        return None
    if not meta.get("complete") or not src_md.exists():
        return None
    outdir.mkdir(parents=True, exist_ok=True)
    for src in BROWSER_LATENCY:
        shutil.copyfile(src, outdir / src.name)
    return meta.get("date")


def _check_times_line() -> str:
    """The exercises' checks: how many, the slowest, against the 1-second target (from the last test run)."""
    try:
        rec = json.loads(CHECK_TIMES.read_text())
        times = {k: max(v.values()) for k, v in rec["checks"].items()}
    except (OSError, ValueError, KeyError, AttributeError):
        return "Exercise checks: not timed on this machine yet (tests/ui/test_exercises.py records them)."
    slowest = max(times, key=times.get)
    over = sorted(k for k, t in times.items() if t > CHECK_TARGET_S)
    return (f"Exercise checks (tests/ui/test_exercises.py, {rec.get('date')}): {len(times)} checks, "
            f"the slowest {slowest} at {times[slowest]:.3f} s; target < {CHECK_TARGET_S:g} s: "
            + ("met." if not over else f"not met by {', '.join(over)}."))


def _make_test_line(rec: dict | None) -> str:
    if rec is None:
        return ("`make test` wall time: not measured on this machine yet "
                "(`make test` records it; `BENCH_TEST_TIME=1 make bench` measures it first).")
    verdict = "passed" if rec.get("exit_status") == 0 else f"FAILED (exit status {rec.get('exit_status')})"
    within = "yes" if rec["seconds"] <= rec["target_s"] else "no"
    return (f"`make test` wall time (installs excluded): {rec['seconds']} s, measured {rec.get('date')} "
            f"at commit {rec.get('commit')}, {verdict}, {rec.get('cpus')} CPUs, "
            f"{rec.get('workers')} pytest-xdist workers; "
            f"target ≤ {rec['target_s']} s: {within}.")


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _load_line(load: dict | None) -> str:
    if not load or load.get("start") is None:
        return "Load average: not recorded."
    return (f"Load average (1, 5, 15 min) at the start: {', '.join(map(str, load['start']))}; at the end: "
            f"{', '.join(map(str, load['end']))}; on {os.cpu_count()} CPUs. A run on a busy machine waits "
            "for a core as well as working: compare it with a report made at a like load.")


def write_report(results: dict, outdir: Path, quick: bool, make_test: dict | None = None,
                 quick_skipped: list[str] = (), browser_latency: str | None = None,
                 load: dict | None = None) -> tuple[Path, Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.date.today().isoformat()
    info = machine_info()
    jpath = outdir / f"report-{stamp}.json"
    mpath = outdir / f"report-{stamp}.md"
    studies = study_times()
    jpath.write_text(json.dumps({"date": stamp, "quick": quick, "machine": info, "results": results,
                                 "quick_skipped": list(quick_skipped), "make_test": make_test,
                                 "browser_latency_published": browser_latency, "studies": studies,
                                 "load_average": load},
                                indent=2))
    lines = [f"# Benchmark report {stamp}{' (quick mode)' if quick else ''}", "",
             "Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), "", _load_line(load), "",
             _make_test_line(make_test), "", _check_times_line(), ""]
    for name, st in studies.items():
        lines += [f"Study `{name}` (measured {st['date']}): {st['wall_s'] / 60:.1f} min wall for "
                  + ", ".join(f"{n} {k} splits" for k, n in st["splits"].items())
                  + (f" on {st['n_jobs']} processes" if st.get("n_jobs") else "")
                  + f"; target {st['target_s'] / 60:.0f} min: "
                  + ("met" if st["wall_s"] <= st["target_s"] else "not met") + ".", ""]
    if browser_latency:
        lines += [f"Slider latency in the browser: [browser-latency.md](browser-latency.md) "
                  f"(the browser suite's run of {browser_latency}).", ""]
    if quick_skipped:
        lines += [f"Quick mode: one round per case; {len(quick_skipped)} cases collected but not run "
                  "(a panel's compute and draw, which its step case runs; the fits to convergence): "
                  + ", ".join(quick_skipped) + ".", ""]
    lines += ["| case | median ms | p95 ms | target ms | meets target |", "|---|---|---|---|---|"]
    for name, r in results.items():
        tgt = r["target_ms"]
        ok = "" if tgt is None else ("yes" if r["median_ms"] <= tgt else "no")
        lines.append(f"| {name} | {r['median_ms']:.2f} | {r['p95_ms']:.2f} | {'' if tgt is None else tgt} | {ok} |")
    mpath.write_text("\n".join(lines) + "\n")
    return jpath, mpath


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description="Run the benchmarks and write a report.")
    p.add_argument("--quick", action="store_true",
                   help="one repetition, no warm-up, a few cases left out (CI; see quick_skips)")
    p.add_argument("--only", nargs="*", help="substrings of benchmark module names")
    p.add_argument("--outdir", default=str(HERE / "results"))
    p.add_argument("--figures", default=str(ROOT / "figures"),
                   help="where the timing figures go")
    p.add_argument("--test-suite", action="store_true",
                   help="run `make test` first and report its wall time (also: BENCH_TEST_TIME=1)")
    args = p.parse_args(argv)
    full = not (args.quick or args.only)
    timed = args.test_suite or (not args.quick and
                                os.environ.get("BENCH_TEST_TIME", "").strip().lower() in {"1", "true", "yes"})
    make_test = measure_make_test() if timed else last_make_test_time()
    load = {"start": load_average()}
    results, skipped = run(args.quick, args.only)
    load["end"] = load_average()
    # only a full run publishes (the quick run of the test suite writes to a temporary folder)
    browser_latency = publish_browser_latency(Path(args.outdir)) if full else None
    from benchmarks.plots import write_timing_figures

    write_timing_figures(results, Path(args.figures))
    j, m = write_report(results, Path(args.outdir), args.quick, make_test, skipped, browser_latency, load)
    print(m.read_text())


if __name__ == "__main__":
    main()
