"""A claim test fails when its sentence's number is falsified (issue 29: "a deliberately falsified
number makes that test fail"), shown on lesson 3's claim tests (tests/notebooks/test_claims_bound.py).

Three falsifications, each run through the claim test as it stands: the number in the lesson's
text changed (as an edit that forgot the test would), the computed value the sentence reports
moved (as a library change that moved a published number would), and an ordering made false
("Laplace pays a huge KL" with Laplace's KL only five times the full fit's).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import _claims
import pytest

from ensemble_lib.inference.toy_fits import fit_all
from ensemble_lib.lessons import bound as bl

from . import test_claims_bound as claims


@pytest.fixture(scope="module")
def fits():
    return fit_all(bl.make_toy())


def test_the_claims_pass_as_the_lesson_stands(fits):
    claims.test_where_the_bound_panel_opens(fits)
    claims.test_laplace_pays_a_huge_kl(fits)


def test_a_falsified_number_in_the_lessons_text_fails_its_claim(fits, monkeypatch):
    text = _claims.markdown(claims.NB)
    assert "−1.281489" in text
    monkeypatch.setattr(_claims, "markdown", lambda nb: text.replace("−1.281489", "−1.281589"))
    with pytest.raises(AssertionError, match="no longer says"):
        claims.test_where_the_bound_panel_opens(fits)


def test_a_moved_computed_number_fails_its_claim(fits):
    moved = dataclasses.replace(fits.full, mean=fits.full.mean + 1e-3)  # F and KL move in the 4th decimal
    falsified = SimpleNamespace(posterior=fits.posterior, full=moved)
    with pytest.raises(AssertionError):
        claims.test_where_the_bound_panel_opens(falsified)


def test_a_falsified_ordering_fails_its_claim(fits):
    weak = SimpleNamespace(kl=5 * fits.full.kl)  # not "huge": below ten times the diagonal's
    with pytest.raises(AssertionError):
        claims.test_laplace_pays_a_huge_kl(SimpleNamespace(laplace=weak, diagonal=fits.diagonal, full=fits.full))
