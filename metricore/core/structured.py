"""A lossless text form for structured answers (ANLS*, DUDE lists).

JSON has no tuple, and a tuple means "alternatives" to ANLS*, so tuples are written as
``{"__tuple__": [...]}``. Used wherever structured answers must travel as text: the
``evaluate`` Arrow cache (which needs one column type), JSONL files, the CLI and the Spaces.
Dict keys must be strings (JSON's rule); the key ``"__tuple__"`` is reserved; a key may not
repeat within one object (:class:`DuplicateKeyError`); answers nest at most
:data:`MAX_DEPTH` levels (a ``ValueError`` naming the value otherwise).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "jsonable",
    "to_json",
    "from_json",
    "loads_strict",
    "DuplicateKeyError",
    "untag",
    "parse_text_cell",
    "check_depth",
    "escape_surrogates",
    "nesting_depth",
    "MAX_DEPTH",
    "TUPLE_TAG",
]

TUPLE_TAG = "__tuple__"

#: the deepest nesting of lists, tuples and dicts a structured answer may have. The code that
#: walks answers is recursive (as the ``anls-star`` package's), so a deeper one would end in a
#: RecursionError; real answers are a few levels deep.
MAX_DEPTH = 100


def nesting_depth(obj: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply lists, tuples and dicts nest in ``obj`` (a leaf: 0), counted without
    recursion; stops counting once past ``limit`` (returns ``limit + 1``)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        depth += 1
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def check_depth(obj: Any, where: str, metric: str = "") -> None:
    """``ValueError`` naming ``where`` (e.g. ``predictions[3]``) when ``obj`` nests deeper than
    :data:`MAX_DEPTH`."""
    if isinstance(obj, str) or obj is None:  # the common case, without the walk
        return
    if nesting_depth(obj) > MAX_DEPTH:
        prefix = f"{metric}: " if metric else ""
        raise ValueError(
            f"{prefix}`{where}` is nested more than {MAX_DEPTH} levels deep (lists, tuples and dicts); "
            f"structured answers may nest at most {MAX_DEPTH} levels"
        )


def _tag(obj: Any, where: str) -> Any:
    if isinstance(obj, tuple):
        return {TUPLE_TAG: [_tag(x, f"{where}[{i}]") for i, x in enumerate(obj)]}
    if isinstance(obj, list):
        return [_tag(x, f"{where}[{i}]") for i, x in enumerate(obj)]
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"`{where}` has a key of type {type(k).__name__}; keys must be str")
            if k == TUPLE_TAG:
                raise ValueError(f"`{where}` uses the reserved key {TUPLE_TAG!r}")
            out[k] = _tag(v, f"{where}[{k!r}]")
        return out
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(
        f"`{where}` has unsupported type {type(obj).__name__}; use str, int, float, bool, "
        "None, list, tuple or dict"
    )


def untag(obj: Any) -> Any:
    """A decoded JSON value with its tagged tuples (``{"__tuple__": [...]}``) made tuples again."""
    if isinstance(obj, list):
        return [untag(x) for x in obj]
    if isinstance(obj, dict):
        if len(obj) == 1 and TUPLE_TAG in obj:
            return tuple(untag(x) for x in obj[TUPLE_TAG])
        return {k: untag(v) for k, v in obj.items()}
    return obj


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(json_text: str) -> str:
    """JSON text with each lone surrogate written as its ``\\udXXX`` escape: text that UTF-8
    (a file, the Arrow cache) can hold, and that decodes back to the same str. Surrogates
    only occur inside JSON string literals, where the escape is valid."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def to_json(obj: Any, where: str = "value") -> str:
    """Encode ``obj`` (tuples tagged; non-ASCII kept, lone surrogates escaped); ``where``
    names it in error messages (also when it nests deeper than :data:`MAX_DEPTH`)."""
    check_depth(obj, where)
    return escape_surrogates(json.dumps(_tag(obj, where), ensure_ascii=False))


class DuplicateKeyError(ValueError):
    """A JSON object repeats a key. ``json.loads`` keeps the last value silently, which in an
    id -> value file would score a different answer than the one first written."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} repeats in one JSON object")
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def loads_strict(text: str) -> Any:
    """``json.loads``, refusing an object with a repeated key (:class:`DuplicateKeyError`)."""
    return json.loads(text, object_pairs_hook=_unique_pairs)


def from_json(text: str, where: str = "value") -> Any:
    """Decode tagged JSON (:func:`loads_strict`, then :func:`untag`); ``ValueError`` naming
    ``where`` when it nests deeper than :data:`MAX_DEPTH`."""
    try:
        value = loads_strict(text)
    except RecursionError:  # the C decoder gives up near the interpreter's recursion limit
        raise ValueError(
            f"`{where}` is nested more than {MAX_DEPTH} levels deep (lists, tuples and dicts); "
            f"structured answers may nest at most {MAX_DEPTH} levels"
        ) from None
    check_depth(value, where)
    return untag(value)


def parse_text_cell(text: str, *, structured: bool, list_cell: bool) -> Any:
    """The value of a text cell (a CSV cell, a table cell in a Space).

    ``structured``: the cell is read as tagged JSON (:func:`from_json`) when it parses, as
    plain text otherwise. ``list_cell`` (a references cell): a JSON list (``["a", "b"]``)
    gives several gold answers, a JSON object a reference record (``{"answers": [...],
    "answer_type": ...}``: DUDE, VQA annotations); any other text is one answer. The
    fallbacks to plain text are deliberate: a cell such as ``[sic] answer`` is an answer, not
    a malformed list.
    """
    if structured:
        try:
            value = loads_strict(text)
        except DuplicateKeyError:
            raise  # JSON after all, with a key written twice: not an answer to read as text
        except (ValueError, RecursionError):
            return text
        check_depth(value, "cell")
        return untag(value)
    opened = text.lstrip()[:1]
    if list_cell and opened in ("[", "{"):
        try:
            value = loads_strict(text)
        except DuplicateKeyError:
            raise
        except (ValueError, RecursionError):
            return text
        if isinstance(value, list if opened == "[" else dict):
            check_depth(value, "cell")
            return value
    return text


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data, with the one rule every surface (the CLI's output, the
    Spaces' API and pages) shows non-finite numbers by: the strings ``"nan"``, ``"inf"`` and
    ``"-inf"`` (JSON has no such numbers); numpy scalars become Python numbers, tuples lists,
    mapping keys strings."""
    if isinstance(value, float):
        return (
            value
            if math.isfinite(value)
            else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))
        )
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (str, bytes)):
        return jsonable(value.item())  # a numpy scalar
    return value
