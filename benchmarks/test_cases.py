"""Every benchmark case, timed by pytest-benchmark (run by ``python -m benchmarks.run``).

Each ``benchmarks/bench_*.py`` module exposes ``CASES`` (name → ``(setup, step,
target_ms)``); this file turns every case into one pytest-benchmark item named
``test_case[<module>/<case>]``. ``setup()`` runs once, outside the timing;
``step(ctx)`` is what is timed, one call per round. The number of rounds and
warm-up rounds come from the environment (``BENCH_ROUNDS``, ``BENCH_WARMUP``),
which :mod:`benchmarks.run` sets: 50 and 1 normally, 1 and 0 in quick mode.
A case whose warm-up call takes longer than :data:`FAST_S` (a whole fit to
convergence, not a slider step) gets fewer rounds, about :data:`BUDGET_S`
seconds' worth and never fewer than 3; the report shows each case's count.

Not part of the test suite (``testpaths`` in pyproject.toml omits
``benchmarks/``): timings are reported, never asserted.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def all_cases() -> dict:
    """``{"toy/fit_full": (setup, step, target_ms), ...}`` over every bench module."""
    only = [o for o in os.environ.get("BENCH_ONLY", "").split(",") if o]
    cases = {}
    for mod in sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_")):
        if only and not any(o in mod for o in only):
            continue
        for name, case in importlib.import_module(f"benchmarks.{mod}").CASES.items():
            cases[f"{mod[len('bench_'):]}/{name}"] = case
    return cases


CASES = all_cases()

#: cases faster than this (slider steps, single evaluations) get every round asked for
FAST_S = 0.2
#: time budget of a slow case's rounds
BUDGET_S = 10.0


@pytest.mark.parametrize("name", list(CASES))
def test_case(benchmark, name):
    setup, step, target = CASES[name]
    ctx = setup()
    benchmark.extra_info["target_ms"] = target
    rounds = int(os.environ.get("BENCH_ROUNDS", "50"))
    warmup = int(os.environ.get("BENCH_WARMUP", "1"))
    if warmup:
        t0 = time.perf_counter()
        for _ in range(warmup):
            step(ctx)
        seconds = (time.perf_counter() - t0) / warmup
        if seconds > FAST_S:
            rounds = max(3, min(rounds, int(BUDGET_S / seconds)))
    benchmark.pedantic(step, args=(ctx,), rounds=rounds, iterations=1)
