"""ANLS: Average Normalized Levenshtein Similarity, in the four variants leaderboards use.

Per question ``NLS(g, p) = 1 - LD(g, p) / length``, the best over the gold answers, set to 0
below the threshold ``tau`` (0.5), averaged over questions. The variants differ only in data
(how strings are normalized, which lengths divide, which side of ``tau`` is kept, how lists
are matched), so each is a frozen :class:`ANLSVariant`:

``docvqa`` (default)
    Robust Reading Competition script behind the DocVQA and InfographicVQA leaderboards:
    distance on ``" ".join(s.strip().lower().split())``; the divisor is
    ``max(len(gold.upper()), len(pred.upper()))`` of the **raw** strings (the script writes
    ``len(answer.upper())``: upper-casing lengthens a few characters such as ``"ß"``);
    similarity exactly ``tau`` is kept; empty vs empty is 1.
``stvqa_paper``
    ST-VQA paper and PyPI ``anls`` 0.0.2 (``anls.anls_score(prediction, gold_labels)``):
    divisor from the **normalized** upper-cased strings; zero when ``LD / length >= 1 - tau``
    (exactly 0.5 scores 0).
``anls_star``
    ANLS* (arXiv 2402.03848, PyPI ``anls-star`` 1.0.1): structured answers, see
    :mod:`metricore.metrics.anls_star`.
``dude``
    DUDE benchmark (repo Jordy-VL/DUDEeval ``evaluate_submission.py``): leaves as ``docvqa``;
    an empty answer list (not answerable) becomes ``[""]`` on either side; list questions
    are Hungarian-matched (parts thresholded at 0.5 whatever ``threshold`` says, as the
    script hard-codes) and divided by ``max(len(set(gold)), len(pred))``; an empty list
    predicted for a list question scores 0; a list predicted for a non-list question counts
    its first element only. A question is a list question when its ``answer_type``
    contains ``"list"``; without answer types, an empty gold list is not answerable and a
    non-empty list prediction marks a list question (the ANLS* convention).

Degenerate cases: an empty prediction list raises ``ValueError`` (the mean of nothing is
undefined); a question with no gold answers raises ``ValueError`` except in ``dude`` (not
answerable) and ``anls_star`` (an empty list is a valid structured answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.grouping import BestPick, group_max
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    as_list,
    check_choice,
    check_pairs,
    check_probability,
    check_strings,
    flatten_alternatives,
    gold_column,
    string_alternatives,
)
from metricore.metrics.anls_star import anls_star_scores
from metricore.text.levenshtein import (
    distance_matrix,
    explain_edits,
    normalized_similarity,
    pair_distances,
    upper_lengths,
)
from metricore.text.matching import max_weight_matching
from metricore.text.normalize import rrc_normalize, rrc_normalize_batch, rrc_normalize_many

__all__ = [
    "ANLSVariant",
    "ANLSItems",
    "ANLSResult",
    "ANLS_VARIANTS",
    "anls_items",
    "anls_result",
    "compute_anls",
    "explain_anls",
    "DEFAULT_THRESHOLD",
]

DEFAULT_THRESHOLD = 0.5
_METRIC = "anls"


@dataclass(frozen=True)
class ANLSVariant:
    """A named bundle of options over the one ANLS implementation."""

    name: str
    reference: str
    #: which strings give the divisor: raw strings upper-cased (RRC), normalized strings
    #: upper-cased (PyPI anls), or normalized strings as they are (ANLS*).
    length_basis: Literal["raw_upper", "normalized_upper", "normalized"]
    #: ``below``: zero when similarity < tau; ``at_or_below``: zero when LD/len >= 1 - tau.
    zero_rule: Literal["below", "at_or_below"]
    structure: Literal["alternatives", "anls_star", "dude"]


ANLS_VARIANTS: dict[str, ANLSVariant] = {
    v.name: v
    for v in (
        ANLSVariant(
            "docvqa",
            "Robust Reading Competition DocVQA evaluation script (rrc.cvc.uab.es, ch=17)",
            "raw_upper",
            "below",
            "alternatives",
        ),
        ANLSVariant(
            "stvqa_paper",
            "Biten et al. 2019 (ST-VQA) and PyPI anls==0.0.2 anls.anls_score",
            "normalized_upper",
            "at_or_below",
            "alternatives",
        ),
        ANLSVariant(
            "anls_star",
            "Peer et al. 2024 (arXiv 2402.03848) and PyPI anls-star==1.0.1 anls_score",
            "normalized",
            "below",
            "anls_star",
        ),
        ANLSVariant(
            "dude",
            "DUDE benchmark, github.com/Jordy-VL/DUDEeval evaluate_submission.py",
            "raw_upper",
            "below",
            "dude",
        ),
    )
}


@dataclass(frozen=True)
class ANLSResult(MetricResult):
    """Mean ANLS, per-question scores, and what each question was matched with.

    ``closest`` holds, per question, the gold answer the score came from (for ``docvqa`` and
    ``stvqa_paper`` the best alternative; for ``anls_star`` the closest gold structure; for
    ``dude`` list questions the gold list). It is built on first access: most callers only
    need the scores.
    """

    anls: float
    scores: list[float]
    variant: str
    threshold: float
    signature: str = field(repr=False)
    #: ``None`` on a result built without its texts (a stream's summary)
    picks: BestPick | None = field(repr=False, compare=False)
    #: the predictions as scored (for :meth:`per_item`)
    predictions: list[Any] = field(default_factory=list, repr=False, compare=False)

    METRIC = "anls"
    HEADLINE = (Headline("anls", higher_is_better=True, items="score", mean=True),)

    @cached_property
    def closest(self) -> list[Any]:
        return [] if self.picks is None else self.picks.resolve()

    def item_closest(self) -> list[Any] | None:
        return None if self.picks is None else self.closest


def _lengths(texts: list[str]) -> np.ndarray:
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def _string_scores(
    predictions: list[str],
    flat_golds: list[str],
    counts: np.ndarray | None,
    variant: ANLSVariant,
    threshold: float,
) -> tuple[np.ndarray, BestPick]:
    """Scores, and each question's best gold in ``flat_golds`` (resolved on request).

    ``flat_golds`` holds every question's alternatives one after another, ``counts[i]`` of
    them for question ``i`` (``None``: exactly one each). All (prediction, gold) pairs go to
    one C++ distance call; :mod:`metricore.core.grouping` reduces them per question.
    """
    if variant.length_basis == "raw_upper":
        norm_preds, pred_len = rrc_normalize_batch(predictions)
        norm_golds, gold_len = rrc_normalize_batch(flat_golds)
    else:
        norm_preds = rrc_normalize_many(predictions)
        norm_golds = rrc_normalize_many(flat_golds)
        measure = upper_lengths if variant.length_basis == "normalized_upper" else _lengths
        pred_len, gold_len = measure(norm_preds), measure(norm_golds)
    if counts is None:
        rep_preds = norm_preds
    else:
        rep_preds = np.repeat(np.array(norm_preds, dtype=object), counts).tolist()
    dist = pair_distances(rep_preds, norm_golds)
    if counts is not None:
        pred_len = np.repeat(pred_len, counts)
    lengths = np.maximum(pred_len, gold_len)

    # Both references compute ``d / length`` first; the similarity is ``1 - that``.
    ratio = np.divide(dist, lengths, out=np.zeros(len(dist)), where=lengths != 0)
    similarity = 1.0 - ratio
    if variant.zero_rule == "below":
        kept = np.where(similarity < threshold, 0.0, similarity)
    else:
        # PyPI anls: ``1 - nl if nl < tau_distance else 0`` with tau_distance = 1 - tau.
        kept = np.where(ratio < 1.0 - threshold, similarity, 0.0)

    if counts is None:
        return kept, BestPick(flat_golds)
    return group_max(kept, counts), BestPick(flat_golds, values=similarity, counts=counts)


#: DUDEeval scores list answer parts with the threshold fixed at 0.5
#: (``get_NLSL`` calls ``get_NLS(..., threshold=0.5)``), whatever threshold the run uses.
DUDE_LIST_THRESHOLD = 0.5


def _dude_list_score(gold: list[str], pred: list[str]) -> float:
    """DUDE list question: Hungarian matching on thresholded NLS / max(|set(gold)|, |pred|)."""
    if not pred:
        # DUDEeval crashes on an empty list here (munkres on an empty matrix); nothing is
        # matched, so the question scores 0.
        return 0.0
    dist = distance_matrix(rrc_normalize_many(gold), rrc_normalize_many(pred))
    lengths = np.maximum.outer(upper_lengths(gold), upper_lengths(pred))
    sim = normalized_similarity(dist, lengths)
    sim[sim < DUDE_LIST_THRESHOLD] = 0.0
    rows, cols = max_weight_matching(sim)
    return float(sim[rows, cols].sum()) / max(len(set(gold)), len(pred))


def _dude_prediction(pred: Any, index: int) -> str | list[str]:
    if isinstance(pred, str):
        return pred
    if isinstance(pred, (list, tuple)):
        for j, item in enumerate(pred):
            if not isinstance(item, str):
                raise TypeError(f"anls: `predictions[{index}][{j}]` must be a str, got {type(item).__name__}")
        return list(pred)
    raise TypeError(f"anls: `predictions[{index}]` must be a str or a list of str, got {type(pred).__name__}")


def _dude_reference(ref: Any, index: int) -> tuple[list[str], str | None]:
    """DUDE gold: a list/str of answers, or the ground-truth dict ``{"answers", "answer_type"}``."""
    answer_type = None
    if isinstance(ref, dict):
        if "answers" not in ref:
            raise ValueError(f"anls: `references[{index}]` is a dict without an 'answers' key")
        answer_type = ref.get("answer_type")
        if answer_type is not None and not isinstance(answer_type, str):
            raise TypeError(f"anls: `references[{index}]['answer_type']` must be a str")
        ref = ref["answers"]
    return string_alternatives(ref, _METRIC, index, allow_empty=True), answer_type


def _dude_is_list(pred: str | list[str], golds: list[str], answer_type: str | None) -> bool:
    if answer_type is not None:
        return "list" in answer_type
    # Without the DUDE answer type: an empty gold list is a not-answerable question, and a
    # non-empty list prediction marks a list question (the ANLS* convention).
    return bool(golds) and isinstance(pred, list) and len(pred) > 0


def _score_dude(
    preds: list[Any], refs: list[Any], threshold: float, answer_types: Sequence[str | None] | None
) -> tuple[np.ndarray, list[Any]]:
    scores = np.zeros(len(preds))
    closest: list[Any] = [None] * len(preds)
    single_idx: list[int] = []
    single_preds: list[str] = []
    single_golds: list[list[str]] = []
    for i, (raw_pred, raw_ref) in enumerate(zip(preds, refs)):
        pred = _dude_prediction(raw_pred, i)
        golds, answer_type = _dude_reference(raw_ref, i)
        if answer_types is not None and answer_types[i] is not None:
            answer_type = answer_types[i]
        is_list = _dude_is_list(pred, golds, answer_type)
        # Not answerable: an empty gold list is [""] (DUDEeval does so for answer_type
        # "not-answerable"; for other types its script fails on an empty gold list).
        golds = golds or [""]
        if is_list:
            scores[i] = _dude_list_score(golds, [pred] if isinstance(pred, str) else pred)
            closest[i] = golds
        else:
            single_idx.append(i)
            # A list for a non-list question: the first element counts ("" when empty).
            single_preds.append(pred if isinstance(pred, str) else (pred[0] if pred else ""))
            single_golds.append(golds)
    if single_idx:
        flat, counts = flatten_alternatives(single_golds)
        s, picks = _string_scores(single_preds, flat, counts, ANLS_VARIANTS["dude"], threshold)
        idx = np.asarray(single_idx)
        scores[idx] = s
        for i, gold in zip(single_idx, picks.resolve()):
            closest[i] = gold
    return scores, closest


def _check_answer_types(answer_types: Any, n: int) -> list[str | None]:
    types = as_list(answer_types, _METRIC, "answer_types")
    if len(types) != n:
        raise ValueError(f"anls: got {len(types)} answer_types for {n} predictions")
    for i, t in enumerate(types):
        if t is not None and not isinstance(t, str):
            raise TypeError(
                f"anls: `answer_types[{i}]` must be a str (a DUDE answer_type such as "
                f"'list/extractive') or None, got {type(t).__name__}"
            )
    return types


@dataclass(frozen=True)
class ANLSItems(ItemStats):
    """The per-question statistics ANLS is computed from (:mod:`metricore.core.stream`):
    each question's score, and the texts of its per-question rows."""

    scores: np.ndarray
    variant: str
    threshold: float
    picks: BestPick | None = None
    predictions: list[Any] | None = None

    TEXT = ("picks", "predictions")
    SHARED = ("variant", "threshold")
    SPILLS = True


@paused_gc()
def anls_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "docvqa",
    threshold: float = DEFAULT_THRESHOLD,
    answer_types: Sequence[str | None] | None = None,
) -> ANLSItems:
    """Each question's score (arguments as :func:`compute_anls`, which is
    ``anls_result(anls_items(...))``); a question's score depends on that question only."""
    spec = ANLS_VARIANTS[check_choice(variant, ANLS_VARIANTS, _METRIC, "variant")]
    threshold = check_probability(threshold, _METRIC, "threshold")
    preds, refs = check_pairs(predictions, references, _METRIC)
    if answer_types is not None:
        if spec.structure != "dude":
            raise ValueError(f"anls: `answer_types` is only used by the 'dude' variant, not {variant!r}")
        answer_types = _check_answer_types(answer_types, len(preds))

    if spec.structure == "alternatives":
        flat, counts = gold_column(refs, _METRIC, check_items=False)
        try:
            scores_arr, picks = _string_scores(preds, flat, counts, spec, threshold)
        except (AttributeError, TypeError):
            # A non-str value somewhere: find it and say where (the fast path does not).
            try:
                check_strings(preds, _METRIC, "predictions")
            except TypeError as err:
                raise TypeError(f"{err} (structured answers need variant='anls_star' or 'dude')") from None
            gold_column(refs, _METRIC)
            raise
    elif spec.structure == "anls_star":
        star_scores, star_closest = anls_star_scores(preds, refs, threshold=threshold)
        scores_arr = np.asarray(star_scores, dtype=np.float64)
        picks = BestPick(star_closest)
    else:
        scores_arr, closest = _score_dude(preds, refs, threshold, answer_types)
        picks = BestPick(closest)
    return ANLSItems(scores_arr, spec.name, threshold, picks, preds)


def anls_result(items: ANLSItems, *, columns: bool = True) -> ANLSResult:
    """The result of every question's statistics: ``anls`` is the mean of the scores.
    ``columns=False``: without the per-question columns (the same ``anls``)."""
    return ANLSResult(
        anls=float(items.scores.mean()),
        scores=items.scores.tolist() if columns else [],
        variant=items.variant,
        threshold=items.threshold,
        signature=build_signature(
            "anls", items.variant, {"threshold": items.threshold}, {"threshold": DEFAULT_THRESHOLD}
        ),
        picks=items.picks if columns else None,
        predictions=(items.predictions or []) if columns else [],
    )


def compute_anls(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "docvqa",
    threshold: float = DEFAULT_THRESHOLD,
    answer_types: Sequence[str | None] | None = None,
) -> ANLSResult:
    """Score predictions against gold answers with ANLS.

    Args:
        predictions: one answer per question: a str (``docvqa``, ``stvqa_paper``), any
            ANLS* structure (``anls_star``), a str or list of str (``dude``).
        references: per question, a list of gold alternatives or a bare str (one answer);
            ``anls_star``: a structure (tuple = alternatives, list = Hungarian-matched list);
            ``dude``: a list of str, or the DUDE ground-truth dict
            ``{"answers": [...], "answer_type": "list/extractive"}``.
        variant: one of :data:`ANLS_VARIANTS`.
        threshold: ``tau`` in [0, 1]; similarities below it score 0 (``stvqa_paper``: at
            or below, see the module docstring).
        answer_types: ``dude`` only: the DUDE ``answer_type`` per question (overrides
            the dict form).

    Returns:
        :class:`ANLSResult`; ``anls`` is the mean of ``scores``.

    >>> compute_anls(["CocaCola"], [["Coca Cola", "Coca Cola Company"]]).anls
    0.8888888888888888
    """
    return anls_result(
        anls_items(predictions, references, variant=variant, threshold=threshold, answer_types=answer_types)
    )


def explain_anls(predictions: Sequence[Any], result: ANLSResult) -> list[str]:
    """Why each question scored what it did (the Spaces' *why* column): the edits between the
    normalized prediction and its closest gold, or how a structure was compared."""
    out = []
    for pred, gold, score in zip(predictions, result.closest, result.scores):
        if isinstance(pred, list) and isinstance(gold, str):
            pred = pred[0] if pred else ""  # DUDE: a list for a non-list question counts its first element
        if isinstance(pred, str) and isinstance(gold, str):
            text = explain_edits(rrc_normalize(pred), rrc_normalize(gold))
            if score == 0 and text != "exact match":
                text += f"; similarity under τ={result.threshold:g} → 0"
        elif pred == gold:
            text = "exact match"
        elif isinstance(gold, list):
            text = "lists matched element to element (Hungarian)"
        elif isinstance(gold, dict):
            text = "dicts compared key by key"
        else:
            text = "structures compared leaf by leaf"
        out.append(text)
    return out
