"""Input checks shared by every metric.

Every check raises ``TypeError`` (wrong type) or ``ValueError`` (right type, bad value) with a
message that names the metric, the argument and the index, as sacrebleu's
``_check_corpus_score_args`` and torchmetrics' input checks do. Checks never mutate their
input: they return new lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "as_list",
    "check_pairs",
    "check_str",
    "check_strings",
    "check_probability",
    "check_choice",
    "string_alternatives",
    "string_alternatives_column",
]


def _typename(value: Any) -> str:
    return type(value).__name__


def as_list(value: Any, metric: str, name: str) -> list[Any]:
    """Turn a column (list, tuple, numpy array, pandas Series, ...) into a new list.

    A bare string or a mapping is refused: iterating it would silently score characters or
    keys.
    """
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        raise TypeError(
            f"{metric}: `{name}` must be a list (one entry per sample), got {_typename(value)}"
        )
    try:
        return list(value)
    except TypeError:
        raise TypeError(
            f"{metric}: `{name}` must be a list (one entry per sample), got {_typename(value)}"
        ) from None


def check_pairs(
    predictions: Any, references: Any, metric: str
) -> tuple[list[Any], list[Any]]:
    """Check the two columns pair one to one and are not empty; return them as new lists."""
    preds = as_list(predictions, metric, "predictions")
    refs = as_list(references, metric, "references")
    if len(preds) != len(refs):
        raise ValueError(
            f"{metric}: got {len(preds)} predictions but {len(refs)} references; "
            "each prediction needs exactly one reference entry"
        )
    if not preds:
        raise ValueError(
            f"{metric}: `predictions` is empty; the mean over zero samples is undefined"
        )
    return preds, refs


def check_str(value: Any, metric: str, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{metric}: `{where}` must be a str, got {_typename(value)} ({value!r:.60})")
    return value


def check_strings(values: Sequence[Any], metric: str, name: str, start: int = 0) -> list[str]:
    """A new list of ``values``, each checked to be a str; ``start`` offsets the reported index."""
    out = list(values)
    if all(type(v) is str for v in out):
        return out
    for i, value in enumerate(out):
        if not isinstance(value, str):
            raise TypeError(
                f"{metric}: `{name}[{start + i}]` must be a str, got {_typename(value)} ({value!r:.60})"
            )
    return out


def string_alternatives(
    reference: Any, metric: str, index: int, *, allow_empty: bool = False
) -> list[str]:
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
    golds = list(reference)
    if not golds and not allow_empty:
        raise ValueError(f"{metric}: `references[{index}]` has no answers (empty list)")
    for j, gold in enumerate(golds):
        if not isinstance(gold, str):
            raise TypeError(
                f"{metric}: `references[{index}][{j}]` must be a str, "
                f"got {_typename(gold)} ({gold!r:.60})"
            )
    return golds


def check_probability(value: Any, metric: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{metric}: `{name}` must be a number in [0, 1], got {_typename(value)}")
    value = float(value)
    if not 0.0 <= value <= 1.0:
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
