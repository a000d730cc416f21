"""Input checks shared by every metric.

Every check raises ``TypeError`` (wrong type) or ``ValueError`` (right type, bad value) with a
message that names the metric, the argument and the index, as sacrebleu's
``_check_corpus_score_args`` and torchmetrics' input checks do. Checks never mutate their
input: they return new lists.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence, Set
from itertools import chain
from typing import Any

import numpy as np

__all__ = [
    "as_list",
    "check_pairs",
    "paired_columns",
    "check_str",
    "check_strings",
    "checked_lengths",
    "check_probability",
    "check_choice",
    "string_alternatives",
    "string_alternatives_column",
    "flatten_alternatives",
    "flatten_with_counts",
    "gold_column",
    "check_bool",
    "check_number",
    "check_string_list",
]


def _typename(value: Any) -> str:
    return type(value).__name__


def as_list(value: Any, metric: str, name: str) -> list[Any]:
    """Turn a column (list, tuple, numpy array, pandas Series, ...) into a new list.

    A bare string or a mapping is refused: iterating it would silently score characters or
    keys.
    """
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        raise TypeError(f"{metric}: `{name}` must be a list (one entry per sample), got {_typename(value)}")
    try:
        return list(value)
    except TypeError:
        raise TypeError(
            f"{metric}: `{name}` must be a list (one entry per sample), got {_typename(value)}"
        ) from None


def paired_columns(predictions: Any, references: Any, metric: str) -> tuple[list[Any], list[Any]]:
    """The two columns as new lists, checked to pair one to one (they may be empty: a
    streamed batch can be)."""
    preds = as_list(predictions, metric, "predictions")
    refs = as_list(references, metric, "references")
    if len(preds) != len(refs):
        raise ValueError(
            f"{metric}: got {len(preds)} predictions but {len(refs)} references; "
            "each prediction needs exactly one reference entry"
        )
    return preds, refs


def check_pairs(predictions: Any, references: Any, metric: str) -> tuple[list[Any], list[Any]]:
    """Check the two columns pair one to one and are not empty; return them as new lists."""
    preds, refs = paired_columns(predictions, references, metric)
    if not preds:
        raise ValueError(f"{metric}: `predictions` is empty; the mean over zero samples is undefined")
    return preds, refs


def check_str(value: Any, metric: str, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{metric}: `{where}` must be a str, got {_typename(value)} ({value!r:.60})")
    return value


def check_strings(values: Sequence[Any], metric: str, name: str, start: int = 0) -> list[str]:
    """A new list of ``values``, each checked to be a str; ``start`` offsets the reported index."""
    out = list(values)
    if set(map(type, out)) <= {str}:
        return out
    for i, value in enumerate(out):
        if not isinstance(value, str):
            raise TypeError(
                f"{metric}: `{name}[{start + i}]` must be a str, got {_typename(value)} ({value!r:.60})"
            )
    return out


def checked_lengths(values: list[Any], metric: str, name: str) -> np.ndarray:
    """``len`` of every value, checking in the same pass that each is a str.

    ``str.__len__`` refuses anything that is not a str, so the check costs no pass of its own
    over the column (each pass over 100,000 strings is a cache miss per string). The error
    names the first bad index.
    """
    try:
        return np.fromiter(map(str.__len__, values), dtype=np.int64, count=len(values))
    except TypeError:
        check_strings(values, metric, name)
        raise


def string_alternatives(reference: Any, metric: str, index: int, *, allow_empty: bool = False) -> list[str]:
    """One sample's gold answers as a new list of strings.

    A bare string is one answer; a list or tuple holds alternatives. An empty list is an error
    unless ``allow_empty`` (then it is returned empty for the caller to interpret).
    """
    if isinstance(reference, str):
        return [reference]
    if isinstance(reference, (bytes, Mapping)) or not isinstance(reference, Iterable):
        raise TypeError(
            f"{metric}: `references[{index}]` must be a str or a list of str, "
            f"got {_typename(reference)} ({reference!r:.60})"
        )
    # A set has no order, and the order of alternatives decides which gold is reported as
    # closest on ties: sort it so the result does not change between runs.
    golds = sorted(reference, key=str) if isinstance(reference, Set) else list(reference)
    if not golds and not allow_empty:
        raise ValueError(f"{metric}: `references[{index}]` has no answers (empty list)")
    for j, gold in enumerate(golds):
        if not isinstance(gold, str):
            raise TypeError(
                f"{metric}: `references[{index}][{j}]` must be a str, got {_typename(gold)} ({gold!r:.60})"
            )
    return golds


def check_probability(value: Any, metric: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{metric}: `{name}` must be a number in [0, 1], got {_typename(value)}")
    value = float(value)
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise ValueError(f"{metric}: `{name}` must be in [0, 1], got {value}")
    return value


def check_choice(value: Any, allowed: Iterable[str], metric: str, name: str) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(
            f"{metric}: unknown {name} {value!r}; allowed: {', '.join(repr(a) for a in allowed)}"
        )
    return value


def string_alternatives_column(
    references: Sequence[Any], metric: str, *, start: int = 0, allow_empty: bool = False
) -> list[list[str]]:
    """:func:`string_alternatives` over a column, with a fast path for well-formed rows.

    Rows that already are a non-empty list of str are used as they are (never modified);
    anything else goes through the full check, which builds a new list or raises.
    """
    out: list[list[str]] = []
    append = out.append
    for i, ref in enumerate(references):
        kind = type(ref)
        if kind is str:
            append([ref])
        elif kind is list and ref and all(type(g) is str for g in ref):
            append(ref)
        else:
            append(string_alternatives(ref, metric, start + i, allow_empty=allow_empty))
    return out


def check_bool(value: Any, metric: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{metric}: `{name}` must be a bool, got {_typename(value)}")
    return value


def check_number(value: Any, metric: str, name: str, lo: float, hi: float) -> float:
    """A real number (int, float, numpy scalar; not a bool, not NaN) in ``[lo, hi]``, as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{metric}: `{name}` must be a number in [{lo}, {hi}], got {_typename(value)} ({value!r:.60})"
        )
    number = float(value)
    if not lo <= number <= hi:  # also refuses NaN
        raise ValueError(f"{metric}: `{name}` must be in [{lo}, {hi}], got {number}")
    return number


def check_string_list(value: Any, metric: str, where: str, *, allow_empty: bool = True) -> list[str]:
    """A new list of str from ``value`` found at ``where`` (e.g. ``"predictions[3]"``).

    A bare str is a one-element list; a list or tuple is checked element by element.
    """
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{metric}: `{where}` must be a list of str, got {_typename(value)} ({value!r:.60})")
    out = list(value)
    if not out and not allow_empty:
        raise ValueError(f"{metric}: `{where}` is an empty list")
    for j, item in enumerate(out):
        if not isinstance(item, str):
            raise TypeError(f"{metric}: `{where}[{j}]` must be a str, got {_typename(item)} ({item!r:.60})")
    return out


def flatten_with_counts(golds: Sequence[Sequence[str]]) -> tuple[list[str], np.ndarray]:
    """All alternatives one after another, and how many each sample has: the one layout of
    gold alternatives that :mod:`metricore.core.grouping` reduces."""
    counts = np.fromiter(map(len, golds), dtype=np.int64, count=len(golds))
    return list(chain.from_iterable(golds)), counts


def flatten_alternatives(golds: list[list[str]]) -> tuple[list[str], np.ndarray | None]:
    """:func:`flatten_with_counts`, with ``None`` counts when every sample has exactly one
    (the case that needs no grouping)."""
    flat, counts = flatten_with_counts(golds)
    return flat, (None if len(flat) == len(golds) and bool((counts == 1).all()) else counts)


def gold_column(
    references: Sequence[Any], metric: str, *, start: int = 0, check_items: bool = True
) -> tuple[list[str], np.ndarray | None]:
    """Checked gold alternatives of a whole column, flattened (see :func:`flatten_alternatives`).

    The checks run over the column with C-level ``map``/``set`` calls; only a column that
    fails them is walked row by row, to raise an error naming the row. With
    ``check_items=False`` the type of each alternative inside list rows is left for the
    caller's first pass over the strings to check (each pass over a large column costs
    a cache miss per string, so hot paths fuse the check with their own work).
    """
    refs = references if isinstance(references, list) else list(references)
    kinds = set(map(type, refs))
    if kinds <= {str}:
        return refs, None  # one bare gold per row: no list per row needed
    if kinds <= {list, tuple}:
        counts = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
        flat = list(chain.from_iterable(refs))
        if (not len(counts) or counts.min() > 0) and (not check_items or set(map(type, flat)) <= {str}):
            return flat, (None if len(flat) == len(refs) else counts)
    return flatten_alternatives(string_alternatives_column(refs, metric, start=start))
