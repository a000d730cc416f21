"""A lossless text form for structured answers (ANLS*, DUDE lists).

JSON has no tuple, and a tuple means "alternatives" to ANLS*, so tuples are written as
``{"__tuple__": [...]}``. Used wherever structured answers must travel as text: the
``evaluate`` Arrow cache (which needs one column type), JSONL files, the CLI and the Spaces.
Dict keys must be strings (JSON's rule); the key ``"__tuple__"`` is reserved.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["to_json", "from_json", "untag", "parse_text_cell", "TUPLE_TAG"]

TUPLE_TAG = "__tuple__"


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


def to_json(obj: Any, where: str = "value") -> str:
    """Encode ``obj`` (tuples tagged); ``where`` names it in error messages."""
    return json.dumps(_tag(obj, where), ensure_ascii=False)


def from_json(text: str) -> Any:
    return untag(json.loads(text))


def parse_text_cell(text: str, *, structured: bool, list_cell: bool) -> Any:
    """The value of a text cell (a CSV cell, a table cell in a Space).

    ``structured``: the cell is read as tagged JSON (:func:`from_json`) when it parses, as
    plain text otherwise. ``list_cell`` (a references cell): a JSON list (``["a", "b"]``)
    gives several gold answers; any other text is one answer. The fallbacks to plain text
    are deliberate: a cell such as ``[sic] answer`` is an answer, not a malformed list.
    """
    if structured:
        try:
            return from_json(text)
        except (ValueError, RecursionError):
            return text
    if list_cell and text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if isinstance(value, list):
            return value
    return text
