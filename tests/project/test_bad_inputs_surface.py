# ruff: noqa: E501 - one case per line in the table
"""Bad inputs refused across studies, the lessons' public helpers and the panels (issue 31, item 2).

The second part of the bad-input table of tests/project/test_bad_inputs.py, in its format (one
:func:`~project.test_bad_inputs.C` per case, sharing its ``TARGETS``, which the coverage test
tests/project/test_bad_input_coverage.py reads): each call has one bad argument, and the
``ValueError``'s message must match the pattern — the argument's name and the allowed range.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
import pytest

from project.test_bad_inputs import C

from ensemble_lib import lessons


@lru_cache(maxsize=None)
def panel(name):
    """The registered panel ``name``, built once."""
    return lessons.PANELS[name][0]()


def good(name):
    """The panel's current (valid) control values."""
    return panel(name).values()


CASES = [
    # --- the lessons' registry (lessons/__init__.py)
    C(lambda: lessons.panel_class("NoSuchPanel"), r"name must be one of the registered panels", id="panel-class-name", on="lessons.panel_class"),
    C(lambda: lessons.panel_class(None), r"name must be one of the registered panels", id="panel-class-none", on="lessons.panel_class"),
]


@pytest.mark.parametrize("call, pattern", CASES)
def test_a_bad_input_is_refused_with_a_value_error_naming_the_argument(call, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=pattern):
            call()
