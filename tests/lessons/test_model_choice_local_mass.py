"""Lesson 6, §1's basin masses (ensemble_lib.lessons.model_choice.local_mass): table, sentence, figure, exercise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.lessons.model_choice import local_mass as sec
from ensemble_lib.models.toy import make_posterior


@pytest.fixture(scope="module")
def rows():
    return sec.local_mass_rows()


def test_one_row_per_alpha_of_the_toy_table(rows):
    assert [r.alpha for r in rows] == list(sec.ALPHAS)
    for r in rows:  # the basin's mass: half of the exact Z (the mirror symmetry), to the grid's accuracy
        assert r.log_basin_mass == pytest.approx(r.log_Z - math.log(2), abs=5e-4)


def test_the_table_and_the_sentence_print_the_rows_numbers(rows):
    text = sec.format_local_mass(rows).text()
    for r in rows:
        assert f"{r.laplace_excess:+.4f}" in text and f"{100 * r.inside_2sd:.1f} %" in text
    s = sec.local_mass_sentence(rows)
    ex = [r.laplace_excess for r in rows]
    assert f"{min(ex):.3f}–{max(ex):.3f} nats" in s and "**overestimates**" in s and "**underestimates**" in s


def test_the_figure_draws_the_posterior_and_both_errors(rows):
    fig = sec.local_mass_figure(rows)
    ax, bx = fig.axes[:2]
    ys = [line.get_ydata() for line in bx.get_lines() if len(line.get_xdata()) == len(rows)]
    assert any(np.allclose(y, [r.laplace_excess for r in rows]) for y in ys)
    assert any(np.allclose(y, [r.marginal_laplace_excess for r in rows]) for y in ys)


def test_the_exercise_passes_a_solution_written_from_the_paper_and_fails_the_whole_posteriors_mass():
    post = make_posterior(seed=25, alpha=2.0)
    lap = laplace_fit(post, compute_kl=False)
    det = lap.hessian[0, 0] * lap.hessian[1, 1] - lap.hessian[0, 1] ** 2
    m = float(post.log_unnorm(lap.mean)) + math.log(2 * math.pi) - 0.5 * math.log(det)
    right = {"log_laplace_mass": m, "excess": m - post.log_Z + math.log(2)}
    ex = sec.LOCAL_MASS_EXERCISE
    assert ex.run(right).passed
    wrong = ex.run(ex.wrong({}))
    assert not wrong.passed and "both basins" in wrong.message
    assert not ex.run({**right, "log_laplace_mass": m + 1.0}).passed
