"""The benchmark command runs (quick mode) so it cannot rot. Timings are never asserted."""

import json

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
    assert fitted_exponent([(n, 3.0 * n**1.5) for n in (10, 20, 40, 80)]) == __import__("pytest").approx(1.5)
