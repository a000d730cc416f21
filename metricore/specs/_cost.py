"""Rough request costs for the Spaces' limits, in work units of about a microsecond.

Each metric's cost follows the shape of its algorithm (edit distances grow with the product
of the two lengths, an assignment with the cube of the list length, a Fréchet distance with
the cube of the feature dimension); the constants were set from timings on a 2-core machine
and only need to be right within a small factor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["size", "text_pair_cost", "structured_cost", "token_cost"]

_ITEM_OVERHEAD = 2.0


def size(value: Any) -> tuple[int, int, int]:
    """(characters, leaves, longest list) of a JSON-like value, iteratively (no recursion limit)."""
    chars = leaves = longest = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            chars += len(v)
            leaves += 1
        elif isinstance(v, Mapping):
            stack.extend(v.values())
            chars += sum(len(str(k)) for k in v)
        elif isinstance(v, (list, tuple)):
            longest = max(longest, len(v))
            stack.extend(v)
        else:
            chars += 8
            leaves += 1
    return chars, leaves, longest


def _alternatives(ref: Any) -> list[str]:
    if isinstance(ref, str):
        return [ref]
    if isinstance(ref, (list, tuple)):
        return [r for r in ref if isinstance(r, str)]
    return []


def text_pair_cost(predictions: Sequence[Any], references: Sequence[Any], per_cell: float = 0.002) -> float:
    """Edit-distance work: prediction length x the gold alternatives' lengths, per item."""
    total = 0.0
    for p, r in zip(predictions, references):
        n = len(p) if isinstance(p, str) else size(p)[0]
        total += _ITEM_OVERHEAD + per_cell * (n + 1) * sum(len(g) + 1 for g in _alternatives(r))
    return total


def structured_cost(predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """ANLS*/DUDE work: every leaf pair's edit distance plus a cubic assignment per list."""
    total = 0.0
    for p, r in zip(predictions, references):
        pc, pl, plong = size(p)
        rc, rl, rlong = size(r)
        total += _ITEM_OVERHEAD + 0.002 * (pc + 1) * (rc + 1) + 0.05 * pl * rl + 0.01 * max(plong, rlong) ** 3
    return total


def token_cost(predictions: Sequence[Any], references: Sequence[Any], per_pair: float = 0.5) -> float:
    """Word-alignment work (METEOR, token F1): words of the prediction x words of each gold."""
    total = 0.0
    for p, r in zip(predictions, references):
        pw = len(p.split()) if isinstance(p, str) else size(p)[1]
        golds = _alternatives(r) if isinstance(r, (str, list, tuple)) else []
        rw = sum(len(g.split()) for g in golds) if golds else size(r)[1]
        total += 5 * _ITEM_OVERHEAD + per_pair * (pw + 1) * (rw + 1)
    return total
