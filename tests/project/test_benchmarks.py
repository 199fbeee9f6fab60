"""The benchmark command runs (quick mode) so it cannot rot. Timings are never asserted."""

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import run as bench
from benchmarks.plots import fitted_exponent


def test_quick_benchmark_run_writes_a_report_with_every_case(tmp_path):
    bench.main(["--quick", "--outdir", str(tmp_path / "res"), "--figures", str(tmp_path / "fig")])
    (report,) = (tmp_path / "res").glob("report-*.json")
    data = json.loads(report.read_text())
    assert data["quick"] is True and data["machine"]["cpu_count"] >= 1
    modules = {name.split("/")[0] for name in data["results"]}
    assert {"toy", "network", "hyper", "mackay"} <= modules
    for r in data["results"].values():
        assert r["median_ms"] > 0
    assert (tmp_path / "fig" / "network_scaling.png").is_file()
    assert (tmp_path / "fig" / "svi_kl_vs_time.png").is_file()
    assert "| case |" in next((tmp_path / "res").glob("report-*.md")).read_text()


def test_every_lesson_panel_has_slider_step_cases():
    """Each panel of the registry ensemble_lib.lessons.PANELS is timed (compute, draw, whole step)."""
    from benchmarks import _panels
    from benchmarks.test_cases import all_cases
    from ensemble_lib.lessons import PANELS

    all_cases()  # imports every bench module, which registers its panels
    missing = set(PANELS) - _panels.BENCHED
    assert not missing, f"panels without benchmark cases (benchmarks/_panels.py): {sorted(missing)}"


def test_fitted_exponent_recovers_a_power_law():
    assert fitted_exponent([(n, 3.0 * n**1.5) for n in (10, 20, 40, 80)]) == pytest.approx(1.5)


def test_run_all_growth_report_gives_medians_and_paired_growth():
    """benchmarks/run_all_growth.py's table: per lesson the medians of each tree, the growth of the
    medians, the median of each round's after/before, and the exercise cells' median time."""
    from benchmarks.run_all_growth import report

    runs = [dict(rep=r, lesson="01", tree=t, run_all_s=s, wall_s=s + 1, load_1min=1.0, exercise_cells_s=e)
            for r, t, s, e in [(0, "before", 2.0, 0.1), (0, "after", 3.0, 0.5), (1, "before", 4.0, 0.1),
                               (1, "after", 4.4, 0.5), (2, "before", 3.0, 0.2), (2, "after", 3.3, 0.6)]]
    runs.append(dict(rep=0, lesson="08", tree="after", run_all_s=5.0, wall_s=6.0, load_1min=2.0))
    table = report({"runs": runs, "cpus": 2}).splitlines()
    row = next(line for line in table if line.startswith("| 01 |"))
    # medians 3.0 and 3.3 (+10.0 %); paired growths +50 %, +10 %, +10 %: median +10.0 %
    assert row == "| 01 | 3 / 3 | 3.00 | 3.30 | +10.0 % | +10.0 % | 0.10 / 0.50 |"
    assert next(line for line in table if line.startswith("| 08 |")) == "| 08 | 0 / 1 | — | 5.00 | n/a | n/a | — / — |"


def test_pool_clock_reads_every_time_the_two_lessons_print():
    """benchmarks/pool_clock.py reads lessons 5 and 9's own times from their outputs, as the stored
    lessons have them and as a Voilà page embeds them (each output a JSON script)."""
    from benchmarks.pool_clock import LESSONS, _PATTERNS, _page_outputs, read_times

    found = {}
    for name in LESSONS:
        nb = json.loads((Path(__file__).parents[2] / "notebooks" / name).read_text(encoding="utf-8"))
        outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
        html = "".join("".join(o.get("data", {}).get("text/html", "")) for o in outputs)
        times = read_times(html)
        page = "".join('<script type="application/vnd.voila.cell-output+json">' + json.dumps(o) + "</script>"
                       for o in outputs)
        assert read_times(_page_outputs(page)) == times, name
        found.update(times)
    assert set(found) == set(_PATTERNS) and all(t > 0 for t in found.values()), found


def test_lessons_ready_writes_the_library_bytecode_a_student_would_have(tmp_path):
    """benchmarks/lessons_ready.py compiles a tree's library before timing it, even where the
    environment forbids writing bytecode on import (PYTHONDONTWRITEBYTECODE, set on the machine the
    reports were made on): a student's kernels read the bytecode their first import wrote."""
    import importlib.util

    from benchmarks.lessons_ready import compile_library

    (tmp_path / "ensemble_lib" / "core").mkdir(parents=True)
    for name in ("__init__.py", "core/__init__.py", "core/maths.py"):
        (tmp_path / "ensemble_lib" / name).write_text("X = 1\n")
    compile_library(str(tmp_path))
    for name in ("__init__.py", "core/__init__.py", "core/maths.py"):
        assert Path(importlib.util.cache_from_source(str(tmp_path / "ensemble_lib" / name))).is_file(), name


def test_bound_trees_alternates_the_trees_and_summarises_every_batch(tmp_path):
    """benchmarks/bound_trees.py runs issue 30's bound + gradient case in each tree (here this one,
    twice under two names), alternating them from round to round, and tabulates every batch."""
    from benchmarks import bound_trees

    root = Path(__file__).parents[2]
    out = tmp_path / "rows.jsonl"
    bound_trees.main([str(out), "--tree", f"a={root}", "--tree", f"b={root}", "--rounds", "2",
                      "--calls", "2", "--repeats", "2"])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["tree"], r["round"]) for r in rows] == [("a", 0), ("b", 0), ("b", 1), ("a", 1)]
    assert all(len(r["wall_ms"]) == len(r["cpu_ms"]) == 2 and min(r["cpu_ms"]) > 0 for r in rows)
    table = bound_trees.summary(out).splitlines()
    assert table[0].startswith("| tree |") and [line.split(" | ")[1] for line in table[2:]] == ["2", "2"]
    with __import__("pytest").raises(SystemExit):
        bound_trees.main([str(out), "--tree", f"a={tmp_path}"])  # no ensemble_lib/ there


def test_natural_gradient_prototype_reaches_the_full_familys_optimum_on_the_toy():
    """benchmarks/natural_gradient.py's step (Λ ← (1 − r)Λ + r·2G) ends where the library's full-covariance
    fit does: its fixed point is the bound's stationarity in C (here on the toy, from its Laplace start)."""
    from benchmarks.natural_gradient import natural_gradient_fit
    from ensemble_lib import kl_fit, laplace_fit, make_posterior

    post = make_posterior(seed=3, alpha=1.0)
    lap = laplace_fit(post, compute_kl=False)
    ng = natural_gradient_fit(post, lap.mean, lap.cov, family="full")
    best = kl_fit(post, "full")
    assert ng["stopped"] == "rise < 1e-11"
    assert ng["bound"] == pytest.approx(best.bound, abs=1e-7)
    np.testing.assert_allclose(ng["cov"], best.cov, atol=1e-4)
