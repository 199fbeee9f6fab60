"""A lesson's quantitative sentences, tied to the numbers they describe (issue 29, item 3).

Every sentence in a lesson's text that compares, orders, counts or places a number ("lies
between", "≫", "about 0.3", "all four units") is either *generated* — written from the computed
values when the lesson runs (an f-string shown with ``IPython.display.Markdown``, or a readout
line) — or *claimed* here: a test finds the sentence word for word in the lesson's markdown and
asserts, on values the library computes afresh, what the sentence says. Editing the sentence
without the test, or a change that makes the numbers contradict it, fails the build.

Use::

    from _claims import sentence

    def test_lesson1_laplace_far_worse_than_kl_fits():
        sentence("01_toy_posterior_laplace_vs_kl.ipynb", "Laplace's KL is more than ten times")
        fits = ...  # computed by the library here, from the lesson's settings
        assert fits.kl["laplace"] > 10 * fits.kl["full"]

The test's name and the quoted fragment name the sentence; a deliberately falsified number
(in the assertion's operands) makes the test fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2009", " ").replace("\u00a0", " ")).strip()


def markdown(notebook: str) -> str:
    """All of a lesson's markdown cells, whitespace normalised (one space between words)."""
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    return _normalise("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"))


def sentence(notebook: str, fragment: str) -> str:
    """The sentence of ``notebook`` containing ``fragment`` (whitespace normalised); fails if absent."""
    text, frag = markdown(notebook), _normalise(fragment)
    at = text.find(frag)
    assert at >= 0, f"{notebook} no longer says {fragment!r}: update the sentence's test with it"
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1
    end = text.find(". ", at + len(frag))
    return text[start: len(text) if end < 0 else end + 1].strip()
