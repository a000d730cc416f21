"""The Hugging Face SQuAD dict format: predictions and references matched by ``id``.

This is the input format of HF ``evaluate``'s ``squad`` and ``squad_v2`` metrics (and, for the
references, of the ``squad`` / ``squad_v2`` datasets):

* prediction: ``{"id": str, "prediction_text": str}``, plus ``"no_answer_probability"`` (a
  number in [0, 1]) for SQuAD v2.0;
* reference: ``{"id": str, "answers": answers}`` with answers as the datasets'
  ``{"text": [...], "answer_start": [...]}``, the SQuAD JSON's ``[{"text": ...}, ...]`` or a
  plain ``[str, ...]``.

Rows are returned in **reference** order (the official scripts walk the dataset); ids must be
unique on each side and pair one to one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metricore.core.pairing import IdMismatch, pair_ids
from metricore.core.validation import check_number, check_str, check_string_list
from metricore.metrics.token_f1.variants import _METRIC

__all__ = ["SquadRecords", "parse_squad_records", "squad_prediction", "squad_reference"]


@dataclass(frozen=True)
class SquadRecords:
    """HF SQuAD-format rows turned into aligned lists, in **reference** order."""

    ids: list[str]
    predictions: list[str]
    references: list[list[str]]
    #: per question, the prediction's ``no_answer_probability`` (0.0 when absent)
    no_answer_probabilities: list[float]
    #: per question, the row of its prediction in the input (the order of the script's ties)
    prediction_rows: list[int]


def _gold_texts(answers: Any, where: str) -> list[str]:
    """``{"text": [...], "answer_start": [...]}`` (HF datasets), ``[{"text": ...}, ...]`` (the
    SQuAD JSON) or ``[str, ...]``."""
    if isinstance(answers, Mapping):
        if "text" not in answers:
            raise ValueError(f"{_METRIC}: `{where}` is a dict without a 'text' key")
        return check_string_list(answers["text"], _METRIC, f"{where}['text']")
    if isinstance(answers, (list, tuple)):
        out = []
        for j, a in enumerate(answers):
            if isinstance(a, Mapping):
                if "text" not in a:
                    raise ValueError(f"{_METRIC}: `{where}[{j}]` is a dict without a 'text' key")
                out.append(check_str(a["text"], _METRIC, f"{where}[{j}]['text']"))
            elif isinstance(a, str):
                out.append(a)
            else:
                raise TypeError(
                    f"{_METRIC}: `{where}[{j}]` must be a str or {{'text': str}}, got {type(a).__name__}"
                )
        return out
    raise TypeError(
        f"{_METRIC}: `{where}` must be {{'text': [...], 'answer_start': [...]}} or a list, "
        f"got {type(answers).__name__}"
    )


def _record_id(row: Any, where: str) -> str:
    if not isinstance(row, Mapping):
        raise TypeError(
            f"{_METRIC}: `{where}` must be a dict in the SQuAD format (all rows alike), got {type(row).__name__}"
        )
    if "id" not in row:
        raise ValueError(f"{_METRIC}: `{where}` has no 'id'")
    return check_str(row["id"], _METRIC, f"{where}['id']")


def squad_prediction(
    row: Any, index: int, *, use_no_answer_probability: bool = True
) -> tuple[str, str, float | None]:
    """``(id, prediction_text, no_answer_probability)`` of one HF SQuAD prediction dict
    (``None`` for an absent or unused probability); errors name ``predictions[index]``."""
    where = f"predictions[{index}]"
    qid = _record_id(row, where)
    if "prediction_text" not in row:
        raise ValueError(f"{_METRIC}: `{where}` (id {qid!r}) has no 'prediction_text'")
    text = check_str(row["prediction_text"], _METRIC, f"{where}['prediction_text']")
    prob = row.get("no_answer_probability") if use_no_answer_probability else None
    if prob is not None:
        prob = check_number(prob, _METRIC, f"{where}['no_answer_probability']", 0.0, 1.0)
    return qid, text, prob


def squad_reference(row: Any, index: int) -> tuple[str, list[str]]:
    """``(id, gold texts)`` of one HF SQuAD reference dict; errors name ``references[index]``."""
    where = f"references[{index}]"
    qid = _record_id(row, where)
    if "answers" not in row:
        raise ValueError(f"{_METRIC}: `{where}` (id {qid!r}) has no 'answers'")
    return qid, _gold_texts(row["answers"], f"{where}['answers']")


def parse_squad_records(
    predictions: Sequence[Any], references: Sequence[Any], *, use_no_answer_probability: bool = True
) -> SquadRecords:
    """Match HF SQuAD-format predictions to references by ``id``.

    predictions: ``{"id": str, "prediction_text": str}`` (+ ``"no_answer_probability"``:
    a number in [0, 1], read only when ``use_no_answer_probability``; 0.0 when absent, the
    official script's default). references: ``{"id": str, "answers": answers}`` with answers
    as ``{"text": [...], "answer_start": [...]}``, ``[{"text": ...}]`` or ``[str]``.

    Ids must be unique on each side and pair one to one; a duplicate, a reference without a
    prediction or a prediction without a reference raises ``ValueError`` naming the id
    (the official scripts score a missing prediction 0 in v1.1 and crash in v2.0; HF keeps the
    last of duplicate prediction ids).
    """
    pred_ids: list[str] = []
    texts: list[str] = []
    probs: list[float] = []
    for i, row in enumerate(predictions):
        qid, text, prob = squad_prediction(row, i, use_no_answer_probability=use_no_answer_probability)
        pred_ids.append(qid)
        texts.append(text)
        probs.append(0.0 if prob is None else prob)
    ref_ids: list[str] = []
    golds: list[list[str]] = []
    for i, row in enumerate(references):
        qid, answers = squad_reference(row, i)
        ref_ids.append(qid)
        golds.append(answers)
    try:
        order = pair_ids(pred_ids, ref_ids)
    except IdMismatch as err:
        raise ValueError(f"{_METRIC}: {err.describe()}") from None
    return SquadRecords(
        ids=ref_ids,
        predictions=[texts[j] for j in order],
        references=golds,
        no_answer_probabilities=[probs[j] for j in order],
        prediction_rows=order,
    )
