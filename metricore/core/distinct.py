"""Distinct values of a column: work done once per distinct string, spread back by code.

Answer columns repeat themselves (ten human answers of a question, the same few answers across
a dataset), so metrics that normalize or parse strings do it once per distinct string and
gather the results by each item's code.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

__all__ = ["distinct"]

T = TypeVar("T", bound=Hashable)


def distinct(values: Sequence[T]) -> tuple[np.ndarray, list[T]]:
    """``(codes, uniques)``: the distinct values in order of first occurrence, and each value's
    index among them (``uniques[codes[i]] == values[i]``).

    One C-level pass: ``dict.setdefault`` keeps each value's first position, so a position
    equal to the item's own index marks a first occurrence; the dict's insertion order is
    that order.

    >>> distinct(["b", "a", "b", "c", "a"])
    (array([0, 1, 0, 2, 1]), ['b', 'a', 'c'])
    """
    first: dict[T, int] = {}
    n = len(values)
    at = np.fromiter(map(first.setdefault, values, itertools.count()), dtype=np.intp, count=n)
    starts = np.flatnonzero(at == np.arange(n))
    dense = np.empty(n, dtype=np.intp)
    dense[starts] = np.arange(len(starts))
    return dense[at], list(first)
