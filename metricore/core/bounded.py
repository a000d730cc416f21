"""Caches that stay bounded in a long-running process (a Space, a training job's hook).

:class:`BoundedCache` is a ``dict`` (reads stay C-speed ``dict.get``) that forgets everything
once it holds more than ``max_entries`` keys or more than ``max_chars`` characters of string
keys. Clearing wholesale instead of evicting one entry at a time keeps every insertion O(1)
and adds no bookkeeping per read; the caches it serves are warm again after one request.
Both bounds together cap the memory: entries of a few characters (words) hit the entry bound,
long strings (whole captions of 2,000 characters) the character bound.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(dict[K, V]):
    """A dict cleared when an insertion would pass ``max_entries`` or ``max_chars`` (the
    summed length of its ``str`` keys, or of the first ``str`` of a tuple key)."""

    def __init__(self, max_entries: int, max_chars: int) -> None:
        super().__init__()
        self.max_entries = max_entries
        self.max_chars = max_chars
        self.chars = 0

    @staticmethod
    def _length(key: Any) -> int:
        if isinstance(key, str):
            return len(key)
        if isinstance(key, tuple) and key and isinstance(key[0], str):
            return len(key[0])
        return 0

    def __setitem__(self, key: K, value: V) -> None:
        if key not in self:
            n = self._length(key)
            if len(self) >= self.max_entries or self.chars + n > self.max_chars:
                self.clear()
            self.chars += n
        super().__setitem__(key, value)

    def setdefault(self, key: K, default: Any = None) -> V:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        super().clear()
        self.chars = 0
