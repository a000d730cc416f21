"""The FusionBrain Challenge 2.0 submission layout, and plain lists, as aligned columns.

The challenge (ai-forever/fbc2_aij2022, README "Data structure" and "General rules for metric
calculation") keeps every file as a dict from a sample id to a list of typed parts::

    predictions.json   {"0": [{"type": "text", "content": "a) на 0,3 секунды"}], ...}
    ground_truth.json  {"0": [{"type": "text", "content": ["a", "на 0,3 секунды"]}], ...}
    sample_ids.json    {"0": 0, ...}                      (sample id -> task number)

The answer is the content of the **first** ``"text"`` part (image parts are ignored; a
prediction without a text part is ``""``, as the challenge's loop leaves it); the gold
answers are the content of the first ``"text"`` part of the ground truth (a list of
alternatives, or one string). The README also writes a ground truth as a single part
``{"type": "text", "content": [...]}`` without the list; both forms are accepted.

Plain lists work too: a prediction is a str (or a parts list), a reference a str, a list of
str, or parts. Per-id dicts are matched by id, in the ground truth's order; a missing or an
extra id is an error naming the task and the ids (the challenge asserted equal id sets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.pairing import IdMismatch, ids_text, pair_ids

__all__ = ["answer_text", "gold_answers", "match_ids", "text_columns", "fail"]

_METRIC = "challenge_score"


def fail(task: str | None, message: str, kind: type[Exception] = ValueError) -> Exception:
    """An error whose message starts with the metric and the task it concerns."""
    where = f"task {task!r}: " if task is not None else ""
    return kind(f"{_METRIC}: {where}{message}")


def _typename(value: Any) -> str:
    return type(value).__name__


def _is_part(value: Any) -> bool:
    return isinstance(value, Mapping) and "type" in value


def _first_text_part(parts: Sequence[Any], task: str, where: str) -> Mapping[str, Any] | None:
    for j, part in enumerate(parts):
        if not _is_part(part):
            raise fail(
                task,
                f"`{where}[{j}]` must be a part {{'type': 'text' | 'image', 'content': ...}}, "
                f"got {_typename(part)} ({part!r:.60})",
                TypeError,
            )
        if "content" not in part:
            raise fail(task, f"`{where}[{j}]` has no 'content'")
        if part["type"] == "text":
            return part
    return None


def answer_text(value: Any, task: str, where: str) -> str:
    """One prediction: a str, one part, or a list of parts (the first text part counts)."""
    if isinstance(value, str):
        return value
    if _is_part(value):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise fail(
            task,
            f"`{where}` must be a str or a list of typed parts, got {_typename(value)} ({value!r:.60})",
            TypeError,
        )
    part = _first_text_part(value, task, where)
    if part is None:
        return ""
    content = part["content"]
    if not isinstance(content, str):
        raise fail(
            task, f"`{where}`: the text part's 'content' must be a str, got {_typename(content)}", TypeError
        )
    return content


def gold_answers(value: Any, task: str, where: str) -> list[str]:
    """One sample's gold answers: a str, a list of str, one part or a list of parts."""
    if isinstance(value, str):
        return [value]
    if _is_part(value):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise fail(
            task,
            f"`{where}` must be a str, a list of str or a list of typed parts, got {_typename(value)} ({value!r:.60})",
            TypeError,
        )
    if value and all(_is_part(v) for v in value):
        part = _first_text_part(value, task, where)
        if part is None:
            raise fail(task, f"`{where}` has no 'text' part")
        content = part["content"]
        value = [content] if isinstance(content, str) else content
        if not isinstance(value, (list, tuple)):
            raise fail(
                task,
                f"`{where}`: the text part's 'content' must be a str or a list of str, got {_typename(content)}",
                TypeError,
            )
    golds = list(value)
    if not golds:
        raise fail(task, f"`{where}` has no gold answers (empty list)")
    for j, gold in enumerate(golds):
        if not isinstance(gold, str):
            raise fail(task, f"`{where}[{j}]` must be a str, got {_typename(gold)} ({gold!r:.60})", TypeError)
    return golds


def match_ids(predictions: Mapping[Any, Any], references: Mapping[Any, Any], task: str) -> list[str]:
    """The ids of ``references`` (in their order), checked to be exactly those of
    ``predictions``; ids are compared as strings (JSON keys are strings)."""
    pred_ids = [str(k) for k in predictions]
    ref_ids = [str(k) for k in references]
    if not ref_ids:
        raise fail(task, "`references` is empty; the mean over zero samples is undefined")
    try:
        pair_ids(pred_ids, ref_ids)
    except IdMismatch as err:
        for side, repeated in (("predictions", err.repeated_left), ("references", err.repeated_right)):
            if repeated:  # keys of a dict: equal only as strings
                raise fail(task, f"`{side}` has ids that are equal as strings (e.g. 1 and '1')") from None
        parts = []
        if err.missing:
            parts.append(f"no prediction for id(s) {ids_text([ref_ids[i] for i in err.missing])}")
        if err.extra:
            parts.append(f"prediction id(s) {ids_text([pred_ids[i] for i in err.extra])} match no reference")
        raise fail(task, "mismatched ids: " + "; ".join(parts)) from None
    return ref_ids


def _by_str(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in mapping.items()}


def text_columns(
    predictions: Any, references: Any, task: str
) -> tuple[list[str] | None, list[str], list[list[str]]]:
    """``(ids, predictions, gold lists)`` from per-id dicts (ids matched) or plain lists
    (paired by position; ``ids`` is ``None``)."""
    keyed_p, keyed_r = isinstance(predictions, Mapping), isinstance(references, Mapping)
    if keyed_p != keyed_r:
        raise fail(
            task,
            "`predictions` and `references` must both be per-id dicts (the challenge layout) "
            f"or both lists; got {_typename(predictions)} and {_typename(references)}",
            TypeError,
        )
    if keyed_p:
        ids = match_ids(predictions, references, task)
        p, r = _by_str(predictions), _by_str(references)
        return (
            ids,
            [answer_text(p[i], task, f"predictions[{i!r}]") for i in ids],
            [gold_answers(r[i], task, f"references[{i!r}]") for i in ids],
        )
    for side, column in (("predictions", predictions), ("references", references)):
        if isinstance(column, (str, bytes)) or not isinstance(column, Sequence):
            raise fail(task, f"`{side}` must be a list or a per-id dict, got {_typename(column)}", TypeError)
    if len(predictions) != len(references):
        raise fail(
            task, f"mismatched lengths: {len(predictions)} predictions but {len(references)} references"
        )
    if not predictions:
        raise fail(task, "`predictions` is empty; the mean over zero samples is undefined")
    return (
        None,
        [answer_text(x, task, f"predictions[{k}]") for k, x in enumerate(predictions)],
        [gold_answers(x, task, f"references[{k}]") for k, x in enumerate(references)],
    )
