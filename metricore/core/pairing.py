"""Pairing two sides of a data set by id: the one implementation every caller uses.

Predictions are matched to references by id in the CLI's files, the challenge's per-id
submissions, SQuAD dict rows, per-id embedding tables and COCO results. Each caller names its
sides and places its own way (a file and line, a task, an image), so :func:`pair_ids` returns
the order, or raises :class:`IdMismatch`, a ``ValueError`` that carries *what* does not pair
(missing, extra and repeated ids, by position) for the caller to word.

>>> pair_ids(["b", "a"], ["a", "b"])
[1, 0]
>>> try:
...     pair_ids(["a", "a", "x"], ["a", "b"])
... except IdMismatch as err:
...     err.repeated_left, err.missing, err.extra
([(1, 0)], [1], [2])
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

__all__ = ["IdMismatch", "pair_ids", "ids_text"]


class IdMismatch(ValueError):
    """The ids of two sides do not pair one to one.

    ``repeated_left``/``repeated_right``: ``(position, first position)`` of each id met again
    on that side; ``missing``: positions on the right whose id no left item has; ``extra``:
    positions on the left whose id no right item has. The message is a plain summary;
    callers that know where the rows came from word their own (:meth:`describe`).
    """

    def __init__(
        self,
        left: Sequence[Any],
        right: Sequence[Any],
        *,
        repeated_left: list[tuple[int, int]],
        repeated_right: list[tuple[int, int]],
        missing: list[int],
        extra: list[int],
    ) -> None:
        self.left, self.right = left, right
        self.repeated_left, self.repeated_right = repeated_left, repeated_right
        self.missing, self.extra = missing, extra
        super().__init__(self.describe())

    def describe(
        self,
        left_name: str = "predictions",
        right_name: str = "references",
        *,
        where_left: Callable[[int], str] | None = None,
        where_right: Callable[[int], str] | None = None,
    ) -> str:
        """The first problem, in words: ``where_*`` name a position (default ``name[i]``)."""
        wl = where_left or (lambda i: f"{left_name}[{i}]")
        wr = where_right or (lambda i: f"{right_name}[{i}]")
        for repeated, side, where in (
            (self.repeated_left, self.left, wl),
            (self.repeated_right, self.right, wr),
        ):
            if repeated:
                i, first = repeated[0]
                more = f" ({len(repeated)} repeated ids)" if len(repeated) > 1 else ""
                return f"{where(i)}: the id {side[i]!r} repeats (first at {where(first)}){more}"
        if self.missing:
            i = self.missing[0]
            return (
                f"{wr(i)}: no {_singular(left_name)} has the id {self.right[i]!r} "
                f"({len(self.missing)} {_singular(right_name)} id(s) without a {_singular(left_name)})"
            )
        i = self.extra[0]
        return (
            f"{wl(i)}: no {_singular(right_name)} has the id {self.left[i]!r} "
            f"({len(self.extra)} {_singular(left_name)} id(s) without a {_singular(right_name)})"
        )


def _singular(name: str) -> str:
    return {"predictions": "prediction", "references": "reference"}.get(name, name)


def _repeats(ids: Sequence[Hashable]) -> tuple[dict[Hashable, int], list[tuple[int, int]]]:
    first: dict[Hashable, int] = {}
    repeated = []
    for i, x in enumerate(ids):
        at = first.setdefault(x, i)
        if at != i:
            repeated.append((i, at))
    return first, repeated


def pair_ids(left: Sequence[Hashable], right: Sequence[Hashable]) -> list[int]:
    """For each item of ``right`` (whose order the result follows), the position of the item
    of ``left`` with the same id; :class:`IdMismatch` unless every id appears once on each
    side and both sides hold the same ids."""
    at, repeated_left = _repeats(left)
    seen, repeated_right = _repeats(right)
    missing = [i for i, x in enumerate(right) if x not in at]
    extra = [i for i, x in enumerate(left) if x not in seen]
    if repeated_left or repeated_right or missing or extra:
        raise IdMismatch(
            left,
            right,
            repeated_left=repeated_left,
            repeated_right=repeated_right,
            missing=missing,
            extra=extra,
        )
    return [at[x] for x in right]


def ids_text(ids: Sequence[Any], limit: int = 5) -> str:
    """``'a', 'b', 'c' and 4 more`` (at most ``limit`` ids shown)."""
    shown = ", ".join(repr(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
