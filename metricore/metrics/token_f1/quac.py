"""QuAC word-level F1 and the human equivalence scores HEQ-Q and HEQ-D.

Pinned to the QuAC official scorer (``scorer.py``, quac.ai; Choi et al. 2018), using the
SQuAD v1.1 token F1 of :mod:`metricore.metrics.token_f1.overlap` (normalizer ``squad``; no
overlap = 0):

* CANNOTANSWER: when at least as many references are ``"CANNOTANSWER"`` as are spans, the
  references become ``["CANNOTANSWER"]``; otherwise the CANNOTANSWER references are dropped.
  Against a CANNOTANSWER reference a prediction scores 1 when it is exactly
  ``"CANNOTANSWER"`` and 0 otherwise.
* human F1 of a question: 1.0 for a single reference, else the mean over references i of the
  best F1 of reference i against the other references (leave one out).
* model F1 of a question: the best F1 against the single reference, else the mean over i of
  the best F1 against the references without i.
* questions whose human F1 is below ``min_human_f1`` (0.4) are left out of F1 and HEQ.
* ``f1``: mean model F1 over the counted questions; ``heq_q``: share of counted questions with
  model F1 >= human F1; ``heq_d``: share of dialogs (all of them) whose counted questions all
  pass (a dialog without counted questions passes). F1 and HEQ-Q are 0 when no question
  counts, as in the scorer. x100 when ``percent`` (the scorer prints x100).

Dialogs are the groups of equal ``dialog_ids``; their questions need not be adjacent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    as_list,
    check_bool,
    check_number,
    check_pairs,
    check_strings,
    string_alternatives_column,
)
from metricore.metrics.token_f1.overlap import _prf, _Texts
from metricore.text.normalize import get_normalizer

__all__ = [
    "CANNOTANSWER",
    "DEFAULT_MIN_HUMAN_F1",
    "QuACItems",
    "QuACResult",
    "compute_quac",
    "quac_items",
    "quac_references",
    "quac_result",
]

_METRIC = "token_f1"
CANNOTANSWER = "CANNOTANSWER"
DEFAULT_MIN_HUMAN_F1 = 0.4


def quac_references(refs: Sequence[str]) -> list[str]:
    """The scorer's ``handle_cannot``: ``["CANNOTANSWER"]`` when CANNOTANSWER references are
    at least as many as span references, else the span references.

    >>> quac_references(["CANNOTANSWER", "a span"]), quac_references(["CANNOTANSWER", "x", "y"])
    (['CANNOTANSWER'], ['x', 'y'])
    """
    spans = [r for r in refs if r != CANNOTANSWER]
    if len(refs) - len(spans) >= len(spans):
        return [CANNOTANSWER]
    return spans


def _leave_one_out_mean(values: list[float]) -> float:
    """Mean over i of max(values without i); the single value itself when there is one."""
    n = len(values)
    if n == 1:
        return values[0]
    total = 0.0
    for i in range(n):
        total += max(values[:i] + values[i + 1 :])
    return total / n


@dataclass(frozen=True)
class QuACResult(MetricResult):
    """QuAC F1, HEQ-Q, HEQ-D (x100 when ``percent``) and per-question statistics.

    ``f1_scores`` (model F1) and ``human_f1_scores`` are in [0, 1] for every question;
    ``counted`` says which questions enter F1 and HEQ (human F1 >= ``min_human_f1``);
    ``heq_scores`` is 1.0 for a counted question with model F1 >= human F1, else 0.0.
    ``scores`` is the per-question model F1 (the same values as ``f1_scores``; questions that
    are not counted included).
    """

    f1: float
    heq_q: float
    heq_d: float
    human_f1: float
    total_questions: int
    counted_questions: int
    total_dialogs: int
    scores: list[float]
    f1_scores: list[float]
    human_f1_scores: list[float]
    counted: list[bool]
    heq_scores: list[float]
    min_human_f1: float
    percent: bool
    signature: str = field(repr=False)
    #: the dialog of each question (HEQ-D groups by it)
    dialog_ids: list[str] | None = field(default=None, repr=False, compare=False)
    #: the predictions as scored (for :meth:`per_item`)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    # no ``id`` (a question is identified by its dialog, the ``dialog_id`` column) and no
    # ``closest`` (a question's F1 is a leave-one-out mean over its references)
    METRIC = "token_f1"
    HEADLINE = (
        Headline("f1", items="score"),
        Headline("heq_q", items="heq"),
        Headline("heq_d"),
        Headline("human_f1", higher_is_better=None, items="human_f1"),
    )
    COLUMNS = (
        ("f1", "f1_scores"),
        ("heq", "heq_scores"),
        ("human_f1", "human_f1_scores"),
        ("counted", "counted"),
        ("dialog_id", "dialog_ids"),
    )

    def extra(self) -> dict[str, Any]:
        return {
            "total_questions": self.total_questions,
            "counted_questions": self.counted_questions,
            "total_dialogs": self.total_dialogs,
        }

    def item_scale(self) -> float:
        return 100.0 if self.percent else 1.0


@dataclass(frozen=True)
class QuACItems(ItemStats):
    """The per-question statistics QuAC's scores are computed from
    (:mod:`metricore.core.stream`): each question's model F1 and human F1 (float64 columns)
    and its dialog id (HEQ-D groups by it; the strings of a batch are shared per dialog, so a
    stream keeps one string per dialog and a reference per question). The predictions serve
    a batch's per-question rows (a stream drops them)."""

    model_f1: np.ndarray
    human_f1: np.ndarray
    dialog_ids: list[str]
    min_human_f1: float
    percent: bool
    predictions: list[str] | None = None

    TEXT = ("predictions",)
    SHARED = ("min_human_f1", "percent")


@paused_gc()
def quac_items(
    predictions: Sequence[str],
    references: Sequence[Any],
    dialog_ids: Sequence[str],
    *,
    min_human_f1: float = DEFAULT_MIN_HUMAN_F1,
    percent: bool = True,
) -> QuACItems:
    """Each question's model and human F1 and dialog (arguments as :func:`compute_quac`,
    which is ``quac_result(quac_items(...))``)."""
    check_bool(percent, _METRIC, "percent")
    min_f1 = check_number(min_human_f1, _METRIC, "min_human_f1", 0.0, 1.0)
    preds, refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    raw_refs = string_alternatives_column(refs, _METRIC)
    dialogs = check_strings(as_list(dialog_ids, _METRIC, "dialog_ids"), _METRIC, "dialog_ids")
    if len(dialogs) != len(preds):
        raise ValueError(f"{_METRIC}: got {len(dialogs)} dialog_ids for {len(preds)} predictions")

    golds = [quac_references(r) for r in raw_refs]
    texts = _Texts(get_normalizer("squad"))
    pred_ids = texts.ids(preds)

    # model: every (prediction, reference) pair at once
    counts = [len(gs) for gs in golds]
    flat = [g for gs in golds for g in gs]
    rep = np.repeat(np.asarray(pred_ids, dtype=np.int64), counts)
    common, npred, ngold, _ = texts.pairs(rep, np.asarray(texts.ids(flat), dtype=np.int64))
    pair_f1 = _prf(common, npred, ngold, "v1")[2]
    is_cannot = np.fromiter((g == CANNOTANSWER for g in flat), np.bool_, len(flat))
    if is_cannot.any():
        pred_cannot = np.repeat(np.fromiter((p == CANNOTANSWER for p in preds), np.bool_, len(preds)), counts)
        pair_f1 = np.where(is_cannot, pred_cannot.astype(np.float64), pair_f1)
    pair_list = pair_f1.tolist()

    # humans: every ordered pair of distinct references of a question
    left: list[int] = []
    right: list[int] = []
    for gs in golds:
        if len(gs) > 1:
            ids = texts.ids(gs)
            for i, a in enumerate(ids):
                for j, b in enumerate(ids):
                    if i != j:
                        left.append(a)
                        right.append(b)
    hcommon, hn1, hn2, _ = texts.pairs(np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64))
    human_pairs = _prf(hcommon, hn1, hn2, "v1")[2].tolist()

    model: list[float] = []
    human: list[float] = []
    pos = hpos = 0
    for n in counts:
        model.append(_leave_one_out_mean(pair_list[pos : pos + n]))
        pos += n
        if n == 1:
            human.append(1.0)
            continue
        total = 0.0
        for _ in range(n):
            total += max([0.0] + human_pairs[hpos : hpos + n - 1])
            hpos += n - 1
        human.append(total / n)

    # one string object per dialog: what a stream keeps of the dialog ids
    shared: dict[str, str] = {}
    dialogs = [shared.setdefault(d, d) for d in dialogs]
    return QuACItems(
        np.asarray(model, dtype=np.float64),
        np.asarray(human, dtype=np.float64),
        dialogs,
        min_f1,
        percent,
        preds,
    )


def quac_result(items: QuACItems, *, columns: bool = True) -> QuACResult:
    """The result of every question's statistics: F1 and human F1 over the counted
    questions (summed left to right, as the scorer), HEQ-Q, HEQ-D over every dialog.
    ``columns=False``: without the per-question columns."""
    model, human = items.model_f1.tolist(), items.human_f1.tolist()
    min_f1, percent = items.min_human_f1, items.percent
    counted = [h >= min_f1 for h in human]
    passed = [c and m >= h for c, m, h in zip(counted, model, human)]
    dialog_ok: dict[str, bool] = {}
    for d, c, ok in zip(items.dialog_ids, counted, passed):
        dialog_ok[d] = dialog_ok.get(d, True) and (ok or not c)
    n_counted = sum(counted)
    scale = 100.0 if percent else 1.0

    def counted_mean(values: list[float]) -> float:
        if not n_counted:
            return 0.0
        return scale * sum(v for v, c in zip(values, counted) if c) / n_counted

    return QuACResult(
        f1=counted_mean(model),
        heq_q=scale * sum(passed) / n_counted if n_counted else 0.0,
        heq_d=scale * sum(dialog_ok.values()) / len(dialog_ok),
        human_f1=counted_mean(human),
        total_questions=len(model),
        counted_questions=n_counted,
        total_dialogs=len(dialog_ok),
        scores=list(model) if columns else [],
        f1_scores=model if columns else [],
        human_f1_scores=human if columns else [],
        counted=counted if columns else [],
        heq_scores=[float(x) for x in passed] if columns else [],
        min_human_f1=min_f1,
        percent=percent,
        signature=build_signature(
            _METRIC,
            "quac",
            {"min_human_f1": min_f1, "percent": percent},
            {"min_human_f1": DEFAULT_MIN_HUMAN_F1, "percent": True},
        ),
        dialog_ids=items.dialog_ids if columns else None,
        predictions=(items.predictions or []) if columns else [],
    )


@paused_gc()
def compute_quac(
    predictions: Sequence[str],
    references: Sequence[Any],
    dialog_ids: Sequence[str],
    *,
    min_human_f1: float = DEFAULT_MIN_HUMAN_F1,
    percent: bool = True,
) -> QuACResult:
    """Score QuAC answers.

    Args:
        predictions: one answer string per question (``"CANNOTANSWER"`` to abstain).
        references: per question, the reference answers (a list of str; a bare str is one).
        dialog_ids: per question, the id of its dialog (HEQ-D groups by it).
        min_human_f1: questions with a lower human F1 are not counted (default 0.4).
        percent: x100 (default) or [0, 1] for the corpus numbers.

    >>> refs = [["the cat sat on the mat", "cat sat on the mat", "a cat on a mat"]] * 2
    >>> r = compute_quac(["cat sat on the mat", "cat"], refs, ["d1", "d2"])
    >>> [round(x, 4) for x in r.f1_scores], round(r.human_f1_scores[0], 4), r.heq_q, r.heq_d
    ([1.0, 0.4667], 0.9524, 50.0, 50.0)
    """
    return quac_result(
        quac_items(predictions, references, dialog_ids, min_human_f1=min_human_f1, percent=percent)
    )
