"""``core.progress.report``: the library's one progress-callback shape ``progress(done, total, what=None)``.

(The notebook's progress bar, a callback of that shape, is tested in tests/ui/test_progress.py.)
"""

import pytest

from ensemble_lib.core.progress import report


def test_no_callback_means_nothing_is_called_and_nothing_is_checked():
    assert report(None, 1, 2) is None
    assert report(None, 5, 2, what=3) is None  # only a given callback's arguments are checked


def test_a_callback_receives_done_and_total_and_what_only_when_given():
    calls = []
    report(lambda *a, **k: calls.append((a, k)), 0, 3)
    report(lambda *a, **k: calls.append((a, k)), 3, 3, what="grid")
    assert calls == [((0, 3), {}), ((3, 3), {"what": "grid"})]


def test_a_two_argument_callback_works_while_no_step_is_named():
    seen = []
    report(lambda d, n: seen.append((d, n)), 2, 4)
    assert seen == [(2, 4)]


@pytest.mark.parametrize("done, total", [(0, 0), (0, 1), (1, 1), (7, 7)])
def test_done_may_be_anything_from_zero_to_the_total(done, total):
    seen = []
    report(lambda d, n: seen.append((d, n)), done, total)
    assert seen == [(done, total)]


@pytest.mark.parametrize("done, total, name", [(-1, 3, "done"), (4, 3, "done"), (0, -1, "total"),
                                               (1.5, 3, "done"), (True, 3, "done"), (1, "3", "total")])
def test_done_outside_zero_to_total_or_not_an_integer_is_refused_by_name(done, total, name):
    calls = []
    with pytest.raises(ValueError, match=rf"^{name} must be an integer"):
        report(lambda *a, **k: calls.append(a), done, total)
    assert calls == []


def test_a_callback_that_is_not_callable_or_a_step_name_that_is_not_a_str_is_refused():
    with pytest.raises(ValueError, match="progress must be callable or None"):
        report(42, 0, 1)
    with pytest.raises(ValueError, match="what must be a str or None, got int"):
        report(lambda *a, **k: None, 0, 1, what=3)
