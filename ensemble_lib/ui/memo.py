"""A small keyed, bounded memo: the one cache of computed states the panel machine offers.

A panel's step is a pure function of its control values (:meth:`FigurePanel.compute
<ensemble_lib.ui.panel.FigurePanel.compute>`), so a state computed once for some values can be
shown again without recomputing it when the user moves a slider back. :class:`LRUMemo` keeps
the states of the last ``maxsize`` keys looked up, dropping the least recently used one first;
:meth:`FigurePanel.memo <ensemble_lib.ui.panel.FigurePanel.memo>` is how a panel uses it.

* a hit returns the very object stored (``is``-identical), and makes it the most recently used;
* keys are compared by equality (``==`` and ``hash``), as a dict's, so ``(1, 2.0)`` and
  ``(1.0, 2)`` are one key;
* a ``compute`` that raises stores nothing (a refused value is refused again next time, and a
  later good one is not shadowed by it).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


def _hashable(key) -> None:
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"key must be hashable (e.g. a tuple of numbers and strings), "
                         f"got {type(key).__name__}") from None


class LRUMemo:
    """Values by key, at most ``maxsize`` of them; the least recently used goes first.

    Parameters
    ----------
    maxsize : int
        How many values are kept (0: none, every look-up computes).

    Attributes
    ----------
    hits, misses : int
        Look-ups answered from the memo, and ones that computed.

    Examples
    --------
    >>> memo = LRUMemo(2)
    >>> memo.get("a", lambda: [1]) is memo.get("a", lambda: [2])
    True
    """

    def __init__(self, maxsize: int):
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 0:
            raise ValueError(f"maxsize must be an integer >= 0, got {maxsize!r}")
        self.maxsize = maxsize
        self._values: OrderedDict = OrderedDict()  # oldest use first
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept for ``key``, or ``compute()`` (kept, evicting the least recently used).

        An exception from ``compute`` propagates and nothing is kept.
        """
        _hashable(key)
        if not callable(compute):
            raise ValueError(f"compute must be callable (it makes the value), got {type(compute).__name__}")
        try:
            value = self._values[key]
        except KeyError:
            pass
        else:
            self._values.move_to_end(key)
            self.hits += 1
            return value
        self.misses += 1
        return self.put(key, compute())

    def find(self, key: Hashable, default: Any = None) -> Any:
        """The value kept for ``key`` (made the most recently used), or ``default``: a look-up that
        never computes (e.g. a streaming step that shows a kept value at once, else fills in)."""
        _hashable(key)
        try:
            value = self._values[key]
        except KeyError:
            return default
        self._values.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: Hashable, value: Any) -> Any:
        """Keep ``value`` for ``key`` (replacing any, as the most recently used); return it."""
        _hashable(key)
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.maxsize:
            self._values.popitem(last=False)
        return value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list:
        """The keys kept, least recently used first."""
        return list(self._values)

    def clear(self) -> None:
        """Forget every value (the counts stay)."""
        self._values.clear()


__all__ = ["LRUMemo"]
