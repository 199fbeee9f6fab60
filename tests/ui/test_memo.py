"""The panel machine's one cache of computed states: ``LRUMemo`` and ``FigurePanel.memo``.

Each property is checked against a count of calls or the identity of the objects returned, never
against the memo's own bookkeeping alone.
"""

from __future__ import annotations

import pytest

from ensemble_lib.ui.memo import LRUMemo
from ensemble_lib.ui.panel import FigurePanel
from ensemble_lib.ui.plotting import new_figure


class Counter:
    """A compute function that returns a new object per call and counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return [self.calls]


def test_a_hit_returns_the_identical_object_without_computing():
    memo, f = LRUMemo(4), Counter()
    first = memo.get("a", f)
    assert memo.get("a", f) is first and f.calls == 1
    assert (memo.hits, memo.misses) == (1, 1)


def test_the_memo_holds_at_most_maxsize_values():
    memo, f = LRUMemo(3), Counter()
    for k in range(10):
        memo.get(k, f)
        assert len(memo) == min(k + 1, 3)
    assert memo.keys() == [7, 8, 9] and f.calls == 10


def test_the_least_recently_used_key_is_evicted_first():
    memo, f = LRUMemo(3), Counter()
    for k in "abc":
        memo.get(k, f)
    memo.get("a", f)  # a hit makes "a" the most recently used: "b" is now the oldest
    memo.get("d", f)
    assert "b" not in memo and {"a", "c", "d"} == set(memo.keys())
    calls = f.calls
    memo.get("b", f)  # evicted: computed again
    assert f.calls == calls + 1 and "c" not in memo


def test_keys_are_compared_by_equality_as_a_dicts_are():
    memo, f = LRUMemo(4), Counter()
    first = memo.get((1, 2.0), f)
    assert memo.get((1.0, 2), f) is first and f.calls == 1  # equal tuples: one key
    assert memo.get((1, 2.5), f) is not first and f.calls == 2
    assert memo.get(repr((1, 2.0)), f) is not memo.get(repr((1.0, 2)), f)  # a panel wanting 2 ≠ 2.0 uses repr


def test_an_error_is_not_kept_and_the_next_call_computes_again():
    memo, f = LRUMemo(4), Counter()

    def refuse():
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        memo.get("k", refuse)
    assert "k" not in memo and len(memo) == 0
    assert memo.get("k", f) == [1] and f.calls == 1


def test_find_never_computes_and_put_keeps_a_value_as_the_most_recently_used():
    memo, f = LRUMemo(2), Counter()
    assert memo.find("a") is None and memo.find("a", 0) == 0 and len(memo) == 0
    value = memo.put("a", [1])
    memo.put("b", [2])
    assert memo.find("a") is value  # "a" is now the most recently used: "b" goes next
    memo.put("c", [3])
    assert memo.keys() == ["a", "c"] and memo.get("a", f) is value and f.calls == 0
    replaced = memo.put("c", [4])
    assert memo.find("c") is replaced and len(memo) == 2


def test_maxsize_zero_keeps_nothing():
    memo, f = LRUMemo(0), Counter()
    a, b = memo.get("k", f), memo.get("k", f)
    assert a is not b and f.calls == 2 and len(memo) == 0


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_bad_maxsize_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="maxsize must be an integer >= 0"):
        LRUMemo(bad)


class _Squares(FigurePanel):
    """A tiny panel whose compute goes through the machine's memo (before the base class is set up too)."""

    MEMO_SIZE = 2

    def __init__(self):
        self.calls = 0
        self.early = self.compute(1)  # a subclass may compute before the base class is set up
        fig, ax = new_figure(2.0, 2.0)
        (self.line,) = ax.plot([0, 1], [0, 0])
        super().__init__({"x": self.slider("x", 1, 0, 10)}, fig)

    def _square(self, x):
        self.calls += 1
        return {"x": x, "x2": x * x}

    def compute(self, x):
        return self.memo(x, lambda: self._square(x))

    def draw(self, state):
        self.line.set_ydata([0, state["x2"]])


def test_a_panels_memo_returns_the_state_computed_before_and_is_bounded_by_memo_size():
    p = _Squares()
    assert p.update() is p.early and p.calls == 1  # the state computed before the base class was set up
    p.controls["x"].value = 2
    p.controls["x"].value = 1
    assert p.state is p.early and p.calls == 2
    p.controls["x"].value = 3  # MEMO_SIZE = 2: x = 2, the least recently used, goes
    p.controls["x"].value = 2
    assert p.calls == 4 and p.state == {"x": 2, "x2": 4}
