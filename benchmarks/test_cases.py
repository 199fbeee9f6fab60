"""Every benchmark case, timed by pytest-benchmark (run by ``python -m benchmarks.run``).

Each ``benchmarks/bench_*.py`` module exposes ``CASES`` (name → ``(setup, step,
target_ms)``); this file turns every case into one pytest-benchmark item named
``test_case[<module>/<case>]``. ``setup()`` runs once, outside the timing;
``step(ctx)`` is what is timed, one call per round. The number of rounds and
warm-up rounds come from the environment (``BENCH_ROUNDS``, ``BENCH_WARMUP``),
which :mod:`benchmarks.run` sets: 50 and 1 normally, 1 and 0 in quick mode.

Not part of the test suite (``testpaths`` in pyproject.toml omits
``benchmarks/``): timings are reported, never asserted.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
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


@pytest.mark.parametrize("name", list(CASES))
def test_case(benchmark, name):
    setup, step, target = CASES[name]
    ctx = setup()
    benchmark.extra_info["target_ms"] = target
    benchmark.pedantic(step, args=(ctx,), rounds=int(os.environ.get("BENCH_ROUNDS", "50")),
                       warmup_rounds=int(os.environ.get("BENCH_WARMUP", "1")), iterations=1)
