"""Lesson 5 (``ensemble_lib.lessons.stochastic_vi``): every control value gives a finite run, the panel's
readout, the running mean, the figures. (The estimator and fit it calls: tests/inference/test_svi.py;
the panel's widgets: tests/ui/test_panel.py.)
"""

import itertools

import numpy as np
import pytest

from ensemble_lib.inference.svi import svi_fit
from ensemble_lib.lessons import stochastic_vi as svi_lesson
from ensemble_lib.lessons.stochastic_vi import running_mean

from _committed import assert_writes_the_committed_files
from inference import test_svi

# the paper's toy and its two deterministic optima: the estimator's tests' fixtures, shared
post, optimum = test_svi.post, test_svi.optimum


def test_svi_panel_calls_the_gap_a_noise_floor_only_once_the_run_has_settled():
    """Lesson 5's readout: at a = 0.01 (1000 steps) the run is still falling, at a = 0.05 it has settled."""
    panel = svi_lesson.SVIExplorer()
    gap = "gap to the optimum after 1000 steps"
    slow = panel.format_readout(panel.compute(0.01, 1, "fixed", "full", 0))
    settled = panel.format_readout(panel.compute(0.05, 1, "fixed", "full", 0))
    assert gap in slow and gap in settled
    assert "no noise floor yet" in slow and "noise floor 0.4478" not in slow
    assert "yes (" in settled and "noise floor 0.4478" in settled


def test_every_control_value_gives_a_finite_run(post, optimum):
    lo, hi = svi_lesson.STEP_RANGE
    S_opts = svi_lesson.SAMPLE_OPTIONS
    corners = itertools.product((lo, hi), (S_opts[0], S_opts[-1]), ("fixed", "decaying"),
                                ("full", "diagonal"))
    rng = np.random.default_rng(99)
    randoms = [(10 ** rng.uniform(np.log10(lo), np.log10(hi)), int(rng.choice(S_opts)),
                str(rng.choice(["fixed", "decaying"])), str(rng.choice(["full", "diagonal"])))
               for _ in range(4)]
    for a, S, schedule, family in list(corners) + randoms:
        h = svi_fit(post, family, rng=np.random.default_rng(0), n_samples=S, step_size=a,
                    schedule=schedule, n_iter=svi_lesson.PANEL_N_ITER, kl_every=50,
                    tau=svi_lesson.DEFAULT_TAU, kappa=svi_lesson.DEFAULT_KAPPA,
                    init=svi_lesson.LESSON_START)
        assert np.all(np.isfinite(h.kl)) and np.all(np.isfinite(h.thetas)), (a, S, schedule, family)
        assert np.min(h.kl) >= optimum[family].kl - 1e-7


def test_running_mean_against_a_loop():
    y = np.random.default_rng(0).normal(size=57)
    got = running_mean(y, 0.2)
    for i in range(1, y.size + 1):
        n = max(int(np.ceil(0.2 * i)), 1)
        assert got[i - 1] == pytest.approx(y[i - n:i].mean(), rel=1e-12, abs=1e-12)


def test_iteration_figure_is_the_committed_one_and_timing_figure_is_separate(tmp_path):
    assert_writes_the_committed_files(svi_lesson.write_figures, tmp_path, ["svi_kl_vs_iteration.png"])
    t = svi_lesson.write_timing_figures(tmp_path / "t")
    assert [p.name for p in t] == ["svi_kl_vs_time.png"]
    assert t[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
