"""Test oracle: the DUDE benchmark ANLS rules (Jordy-VL/DUDEeval ``evaluate_submission.py``).

Written for the test suite from a description of the original logic; only the leaf rule
(RRC NLS) is shared with :mod:`tests.oracles.rrc_anls`.

* Not answerable (``answer_type == "not-answerable"``): an empty answer list becomes
  ``[""]``, on the gold and on the prediction side (the original does this for that answer
  type only; an empty predicted list for a list question stays empty and scores 0).
* Non-list question: a list prediction is reduced to its first element (``""`` when empty);
  the score is the RRC question score over the gold alternatives, with ``threshold``.
* List question (``"list" in answer_type``): NLS matrix between the two lists, each cell the
  RRC leaf score with the threshold **fixed at 0.5** (the original calls its leaf function
  with ``threshold=0.5`` here, whatever threshold the script was given); the shorter list
  gives the rows (the prediction when the lengths are equal); ``munkres`` on
  ``make_cost_matrix``; the matched values are summed and divided by
  ``max(len(set(gold)), len(pred))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from munkres import Munkres, make_cost_matrix

from .rrc_anls import question_score

__all__ = ["LIST_CELL_THRESHOLD", "question_score_dude", "list_score", "anls"]

#: the threshold the original hard-codes for list cells
LIST_CELL_THRESHOLD = 0.5


def _first(pred: Any) -> str:
    if isinstance(pred, list):
        return pred[0] if pred else ""
    return pred


def list_score(gold: list[str], pred: list[str]) -> float:
    if len(gold) < len(pred):
        rows, cols = gold, pred
    else:
        rows, cols = pred, gold
    matrix = [[question_score([r], c, LIST_CELL_THRESHOLD) for c in cols] for r in rows]
    denominator = max(len(set(gold)), len(pred))
    if not matrix:
        return 0.0 / denominator
    pairs = Munkres().compute(make_cost_matrix(matrix))
    total = 0.0
    for r, c in pairs:
        total += matrix[r][c]
    return total / denominator


def question_score_dude(
    gold: Sequence[str], pred: Any, answer_type: str | None, threshold: float = 0.5
) -> float:
    """One question. ``answer_type=None`` is read as ``"not-answerable"`` when the gold list
    is empty, else as a plain (non-list) question."""
    gold = list(gold)
    if answer_type is None and not gold:
        answer_type = "not-answerable"
    if answer_type == "not-answerable":
        # the original rewrites empty answer lists for this answer type only
        if gold == []:
            gold = [""]
        if pred == []:
            pred = [""]
    if answer_type is not None and "list" in answer_type:
        if not isinstance(pred, list):
            raise ValueError("the original iterates the characters of a str prediction here")
        # an empty predicted list gives an empty matrix: nothing matched, score 0
        return list_score(gold, list(pred))
    if not gold:
        raise ValueError("the original fails on an empty gold list here (min of no values)")
    return question_score(gold, _first(pred), threshold)


def anls(
    predictions: Sequence[Any],
    golds: Sequence[Sequence[str]],
    answer_types: Sequence[str | None],
    threshold: float = 0.5,
) -> tuple[float, list[float]]:
    scores = [question_score_dude(g, p, t, threshold) for p, g, t in zip(predictions, golds, answer_types)]
    return sum(scores) / len(scores), scores
