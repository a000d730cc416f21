"""Rough request costs for the Spaces' limits, in work units of about a microsecond.

Each metric's cost follows the shape of its algorithm (edit distances grow with the product
of the two lengths, an assignment with the cube of the list length, a Fréchet distance with
the cube of the feature dimension); the constants were set from timings on a 2-core machine
and only need to be right within a small factor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "ARRAY_NUMBER",
    "FLOPS_PER_UNIT",
    "array_shape",
    "size",
    "describe",
    "bootstrap_cost",
    "text_cost",
    "text_pair_cost",
    "structured_cost",
    "token_cost",
]

_ITEM_OVERHEAD = 2.0
#: LAPACK/BLAS floating-point operations per unit (~1 µs) on a shared 2-core machine
FLOPS_PER_UNIT = 2_000.0
#: reading one number of an array input (JSON list -> float64 array, finiteness check)
ARRAY_NUMBER = 0.1


def array_shape(value: Any) -> tuple[int, int]:
    """(rows, longest row) of a list of lists or a per-id dict of lists (0, 0 for anything
    else), without walking the numbers."""
    rows = list(value.values()) if isinstance(value, Mapping) else value
    if not isinstance(rows, (list, tuple)) or not rows:
        return 0, 0
    return len(rows), max((len(r) for r in rows if isinstance(r, (list, tuple))), default=0)


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


def describe(predictions: Sequence[Any], references: Sequence[Any]) -> str:
    """The size of a request in words (rows, characters, references per row, longest list),
    for a refusal message."""
    chars = longest = most_refs = 0
    for p, r in zip(predictions, references):
        pc, _, plong = size(p)
        rc, _, rlong = size(r)
        chars += pc + rc
        longest = max(longest, plong, rlong if not isinstance(r, (list, tuple)) else 0)
        if isinstance(r, (list, tuple)):
            most_refs = max(most_refs, len(r))
            longest = max(longest, max((size(x)[2] for x in r), default=0))
    text = f"{max(len(predictions), len(references)):,} rows, {chars:,} characters"
    if most_refs > 1:
        text += f", up to {most_refs:,} references per row"
    if longest > 1:
        text += f", lists of up to {longest:,} items"
    return text


def _alternatives(ref: Any) -> list[str]:
    if isinstance(ref, str):
        return [ref]
    if isinstance(ref, (list, tuple)):
        return [r for r in ref if isinstance(r, str)]
    return []


#: edit distances (metricore.text.levenshtein, bit-parallel): per string pair, per cell
_PAIR, _CELL = 15.0, 0.0003


def text_pair_cost(predictions: Sequence[Any], references: Sequence[Any], per_cell: float = _CELL) -> float:
    """Edit-distance work: per item, a pair overhead and prediction length x gold length per
    gold alternative (measured: 5,000 rows x 20 golds of 300 characters, 3.4 s)."""
    total = 0.0
    for p, r in zip(predictions, references):
        n = len(p) if isinstance(p, str) else size(p)[0]
        golds = _alternatives(r) or [""]
        total += _ITEM_OVERHEAD + sum(_PAIR + per_cell * (n + 1) * (len(g) + 1) for g in golds)
    return total


def _structure(value: Any) -> tuple[int, int, int, float, float]:
    """(characters, leaves, containers below the root, sum of cubed lengths of lists of leaves,
    the same for lists holding containers) of a JSON-like value, iteratively."""
    chars = leaves = containers = 0
    flat = nested = 0.0
    stack = [(value, True)]
    while stack:
        v, root = stack.pop()
        if isinstance(v, (Mapping, list, tuple)):
            containers += not root
            items = list(v.values()) if isinstance(v, Mapping) else list(v)
            if isinstance(v, Mapping):
                chars += sum(len(str(k)) for k in v)
            elif any(isinstance(x, (Mapping, list, tuple)) for x in items):
                nested += len(items) ** 3
            else:
                flat += len(items) ** 3
            stack.extend((x, False) for x in items)
        else:
            chars += len(v) if isinstance(v, str) else 8
            leaves += 1
    return chars, leaves, containers, flat, nested


def structured_cost(predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """ANLS*/DUDE work per item: the edit distances of every leaf pair (characters x
    characters), a Python comparison per leaf pair, a nested comparison (with its own small
    assignment) per pair of inner containers, and per list an assignment
    (:func:`metricore.text.matching.munkres_pairs`, cubic; measured before it replaced the
    pure-Python ``munkres`` call for lists holding containers: 400 two-string lists against
    400, 15 s)."""
    total = 0.0
    for p, r in zip(predictions, references):
        pc, pl, pn, pf, pm = _structure(p)
        rc, rl, rn, rf, rm = _structure(r)
        total += (
            _ITEM_OVERHEAD
            + _CELL * (pc + 1) * (rc + 1)
            + 0.5 * pl * rl
            + 100.0 * pn * rn
            + 1e-4 * max(pf, rf)
            + 0.5 * max(pm, rm)
        )
    return total


def _words_and_chars(value: Any) -> tuple[int, int]:
    if isinstance(value, str):
        return len(value.split()), len(value)
    chars, leaves, _ = size(value)
    return leaves, chars


def token_cost(
    predictions: Sequence[Any],
    references: Sequence[Any],
    per_pair: float = 0.0,
    *,
    per_word: float = 0.0,
    per_char: float = 0.0,
) -> float:
    """Tokenized-text work per item: every word and character of the prediction and of each
    gold (tokenizing, stemming, n-gram counting, lookups), plus ``per_pair`` for each pair of
    a prediction word and a gold word (an alignment)."""
    total = 0.0
    for p, r in zip(predictions, references):
        pw, pc = _words_and_chars(p)
        golds = _alternatives(r) if isinstance(r, (str, list, tuple)) else []
        if not golds:
            golds = [r]
        total += 5 * _ITEM_OVERHEAD + per_word * pw + per_char * pc
        for g in golds:
            gw, gc = _words_and_chars(g)
            total += per_word * gw + per_char * gc + per_pair * (pw + 1) * (gw + 1)
    return total


#: METEOR on words never seen before (stems and WordNet synonym sets looked up cold), per
#: word and per hypothesis-reference word pair: 1,000 rows x 12 unique words x 5 references
#: took 17.6 s on the shared 2-core machine (load 11)
METEOR_PER_WORD, METEOR_PER_PAIR = 150.0, 3.0
_METEOR_PER_CHAR = METEOR_PER_WORD / 4


def text_cost(chars: int) -> float:
    """Work of ``chars`` characters of text under the dearest text metric (METEOR's rate)."""
    return _METEOR_PER_CHAR * chars


def bootstrap_cost(name: str, config: str, predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """Extra work of a 1,000-resample bootstrap interval: a vectorised pass over per-item
    statistics for most metrics; CIDEr-D recomputes document frequencies per resample
    (measured: 1,000 images x 6 captions of 12 words, 2.3 s)."""
    n = len(predictions)
    if name == "cider":
        return token_cost(predictions, references, per_word=40.0)
    return 2.0 * n + 50_000.0
