"""Question-level (entity) precision, recall and F1 of list answers.

Each answer is a set of entities: a list of strings (a bare str is one entity). Entities are
normalized with a :mod:`metricore.text.normalize` preset (default ``squad``: case, ASCII
punctuation and articles ignored); entities that normalize to ``""`` are dropped and
duplicates count once. Per question::

    TP = |pred ∩ gold|    FP = |pred - gold|    FN = |gold - pred|
    P = TP / (TP + FP)    R = TP / (TP + FN)    F1 = 2 P R / (P + R)    EM = (pred == gold)

nothing predicted and nothing to find scores P = R = F1 = 1; an empty side against a
non-empty one scores 0. Reported: the means over questions (macro; summed left to right) and
``micro_*`` from the summed TP/FP/FN counts, x100 when ``percent``. Reference: the MRC
survey's question-level precision/recall/F1 (an answer is a set of entities; see the metric
card ``metrics/token_f1/README.md``); there is no official script to pin to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import check_bool, check_choice, check_pairs, check_string_list
from metricore.metrics.token_f1.overlap import _mean
from metricore.metrics.token_f1.variants import _METRIC
from metricore.text.normalize import NORMALIZERS, get_normalizer

__all__ = [
    "QuestionLevelItems",
    "QuestionLevelResult",
    "compute_question_level",
    "question_level_items",
    "question_level_result",
]


@dataclass(frozen=True)
class QuestionLevelResult(MetricResult):
    """Entity-level scores of list answers.

    ``precision``/``recall``/``f1``/``exact_match``: means over questions of the per-question
    values (macro); ``micro_*``: from the summed TP/FP/FN counts. x100 when ``percent``.
    ``scores`` is the per-question F1 in [0, 1] (the same values as ``f1_scores``).
    """

    precision: float
    recall: float
    f1: float
    exact_match: float
    micro_precision: float
    micro_recall: float
    micro_f1: float
    scores: list[float]
    precision_scores: list[float]
    recall_scores: list[float]
    f1_scores: list[float]
    exact_match_scores: list[float]
    true_positives: list[int]
    false_positives: list[int]
    false_negatives: list[int]
    normalizer: str
    percent: bool
    signature: str = field(repr=False)
    #: the predictions as scored (for :meth:`per_item`): each question's entity list
    predictions: list[list[str]] = field(default_factory=list, repr=False, compare=False)

    # no ``closest``: a question's entity set is scored against the whole gold set
    METRIC = "token_f1"
    HEADLINE = (
        Headline("precision", items="precision", mean=True),
        Headline("recall", items="recall", mean=True),
        Headline("f1", items="score", mean=True),
        Headline("exact_match", items="exact_match", mean=True),
        Headline("micro_precision"),
        Headline("micro_recall"),
        Headline("micro_f1"),
    )
    COLUMNS = (
        ("precision", "precision_scores"),
        ("recall", "recall_scores"),
        ("f1", "f1_scores"),
        ("exact_match", "exact_match_scores"),
        ("true_positives", "true_positives"),
        ("false_positives", "false_positives"),
        ("false_negatives", "false_negatives"),
    )

    def item_scale(self) -> float:
        return 100.0 if self.percent else 1.0


def _entity_prf(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R); nothing predicted and nothing to find
    scores P = R = F1 = 1; an empty side against a non-empty one scores 0."""
    tp = tp.astype(np.float64)
    npred, ngold = tp + fp, tp + fn
    both_empty = (npred == 0) & (ngold == 0)
    p = np.divide(tp, npred, out=both_empty.astype(np.float64), where=npred > 0)
    r = np.divide(tp, ngold, out=both_empty.astype(np.float64), where=ngold > 0)
    f1 = np.divide(2.0 * p * r, p + r, out=np.zeros(len(tp)), where=(p + r) > 0)
    return p, r, f1


@dataclass(frozen=True)
class QuestionLevelItems(ItemStats):
    """The per-question statistics question-level scores are computed from
    (:mod:`metricore.core.stream`): each question's TP, FP and FN counts; the entity lists
    as scored serve a batch's per-question rows (a stream drops them)."""

    true_positives: np.ndarray
    false_positives: np.ndarray
    false_negatives: np.ndarray
    normalizer: str
    percent: bool
    predictions: list[list[str]] | None = None

    TEXT = ("predictions",)
    SHARED = ("normalizer", "percent")


@paused_gc()
def question_level_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    normalizer: str = "squad",
    percent: bool = True,
) -> QuestionLevelItems:
    """Each question's TP/FP/FN counts (arguments as :func:`compute_question_level`, which is
    ``question_level_result(question_level_items(...))``)."""
    norm = get_normalizer(check_choice(normalizer, NORMALIZERS, _METRIC, "normalizer"))
    check_bool(percent, _METRIC, "percent")
    preds, refs = check_pairs(predictions, references, _METRIC)
    pred_lists = [check_string_list(x, _METRIC, f"predictions[{i}]") for i, x in enumerate(preds)]
    gold_lists = [check_string_list(x, _METRIC, f"references[{i}]") for i, x in enumerate(refs)]
    distinct = list(dict.fromkeys(chain.from_iterable(chain(pred_lists, gold_lists))))
    cache = dict(zip(distinct, norm.many(distinct)))

    def entity_set(xs: list[str]) -> set[str]:
        return {cache[x] for x in xs} - {""}

    n = len(preds)
    tp = np.empty(n, np.int64)
    fp = np.empty(n, np.int64)
    fn = np.empty(n, np.int64)
    for i, (ps, gs) in enumerate(zip(pred_lists, gold_lists)):
        pset, gset = entity_set(ps), entity_set(gs)
        both = len(pset & gset)
        tp[i], fp[i], fn[i] = both, len(pset) - both, len(gset) - both
    return QuestionLevelItems(tp, fp, fn, normalizer, percent, pred_lists)


def question_level_result(items: QuestionLevelItems, *, columns: bool = True) -> QuestionLevelResult:
    """The result of every question's counts: macro means (summed left to right) and micro
    scores of the summed counts. ``columns=False``: without the per-question columns."""
    tp, fp, fn = items.true_positives, items.false_positives, items.false_negatives
    p, r, f1 = _entity_prf(tp, fp, fn)
    em = ((fp == 0) & (fn == 0)).astype(np.float64)
    mp, mr, mf = _entity_prf(np.array([tp.sum()]), np.array([fp.sum()]), np.array([fn.sum()]))
    scale = 100.0 if items.percent else 1.0
    f1_l = f1.tolist() if columns else []
    return QuestionLevelResult(
        precision=_mean(p, scale),
        recall=_mean(r, scale),
        f1=_mean(f1, scale),
        exact_match=_mean(em, scale),
        micro_precision=scale * float(mp[0]),
        micro_recall=scale * float(mr[0]),
        micro_f1=scale * float(mf[0]),
        scores=list(f1_l),
        precision_scores=p.tolist() if columns else [],
        recall_scores=r.tolist() if columns else [],
        f1_scores=f1_l,
        exact_match_scores=em.tolist() if columns else [],
        true_positives=tp.tolist() if columns else [],
        false_positives=fp.tolist() if columns else [],
        false_negatives=fn.tolist() if columns else [],
        normalizer=items.normalizer,
        percent=items.percent,
        signature=build_signature(
            _METRIC,
            "question_level",
            {"normalizer": items.normalizer, "percent": items.percent},
            {"normalizer": "squad", "percent": True},
        ),
        predictions=(items.predictions or []) if columns else [],
    )


def compute_question_level(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    normalizer: str = "squad",
    percent: bool = True,
) -> QuestionLevelResult:
    """Question-level (entity) precision, recall and F1 for list answers.

    Each answer is a set of entities: a list of strings (a bare str is one entity). Entities
    are normalized with the ``normalizer`` preset (default ``squad``: case, ASCII punctuation
    and articles ignored); entities that normalize to ``""`` are dropped and duplicates count
    once. Per question TP = entities in both sets, FP = predicted only, FN = gold only;
    ``exact_match`` = the two sets are equal. An empty list is allowed on either side (see
    :func:`_entity_prf` for the empty cases: both empty = 1, one empty = 0).

    >>> r = compute_question_level([["Paris", "the Lyon"]], [["paris", "Nice", "Lyon"]])
    >>> round(r.precision, 2), round(r.recall, 2), round(r.f1, 2)
    (100.0, 66.67, 80.0)
    """
    return question_level_result(
        question_level_items(predictions, references, normalizer=normalizer, percent=percent)
    )
