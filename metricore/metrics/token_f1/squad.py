"""Token F1 and exact match of extractive QA answers over a corpus: :func:`compute_token_f1`
and its :class:`TokenF1Result`, for every variant of
:mod:`metricore.metrics.token_f1.variants` (SQuAD v1.1, SQuAD v2.0, MLQA, FusionBrain
Challenge 2.0 TextQA/MathQA).

Per question, the scores are those of :mod:`metricore.metrics.token_f1.overlap` (EM and F1
the best over the golds; P and R those of the best-F1 gold); ``squad_v2`` adds the no-answer
rules of :mod:`metricore.metrics.token_f1.v2_report`. Corpus numbers are the means over
questions, summed left to right as the official scripts do, times 100 by default
(``percent=True``, as the official scripts and Hugging Face's ``squad``/``squad_v2`` report
them); per-question scores are always in [0, 1].

**Letter fallback** (``fbc2_textqa``, ``fbc2_mathqa``; ai-forever/fbc2_aij2022
``get_f1``/``get_exact``): a question whose decisive score (F1, resp. EM) is <= 0.5 and whose
*raw* prediction contains one of the Latin letters ``a b c d e`` (case-sensitive, anywhere,
even inside a word) is re-scored with that first letter as the whole prediction; the new
scores replace the old ones even when lower (``"b) на секунду"`` keeps 0.667 because
0.667 > 0.5).

Degenerate cases: an empty prediction list raises ``ValueError``; an empty gold list raises
``ValueError`` except in ``squad_v2`` (a question without an answer).

Inputs are plain lists (``predictions=[str]``, ``references=[[str]]`` or a bare ``str`` per
question) or Hugging Face's SQuAD dict format, matched by ``id``
(:mod:`metricore.metrics.token_f1.squad_format`).

:func:`compute_token_f1` is ``token_f1_result(token_f1_items(...))``: the per-question
statistics (:class:`TokenF1Items`), then the corpus numbers from them, so that the rows can be
scored in batches with the same result (:mod:`metricore.core.stream`).

The cyclic garbage collector is paused during a call (:mod:`metricore.core._gc`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    check_bool,
    check_number,
    check_pairs,
    check_strings,
    string_alternatives_column,
)
from metricore.metrics.token_f1.overlap import _best_over_golds, _Scored
from metricore.metrics.token_f1.squad_format import parse_squad_records
from metricore.metrics.token_f1.v2_report import _squad_v2, question_order, v2_flags
from metricore.metrics.token_f1.variants import (
    _METRIC,
    DEFAULT_NO_ANSWER_THRESHOLD,
    TokenF1Variant,
    _check_language,
    _variant_normalizer,
    _variant_spec,
)
from metricore.text.normalize import Normalizer

__all__ = [
    "InputRows",
    "TokenF1Items",
    "TokenF1Result",
    "compute_token_f1",
    "token_f1_items",
    "token_f1_result",
]


@dataclass(frozen=True)
class TokenF1Result(MetricResult):
    """Corpus means (x100 when ``percent``) and per-question scores (always in [0, 1]).

    ``scores`` is the per-question F1 (the same values as ``f1_scores``, for every variant:
    ``fbc2_mathqa``'s headline exact match is in ``exact_match_scores``). ``closest`` holds each
    question's gold whose precision and recall are reported (the best F1, first on ties;
    ``""`` for a ``squad_v2`` question scored against "no answer"). ``squad_v2`` is the
    official v2.0 result dict (``exact``, ``f1``, ``total``, ``HasAns_*``, ``NoAns_*``,
    ``best_*``) for that variant, else ``None``. ``ids`` is set for dict input.

    ``closest``, ``ids`` and the predictions are texts of the input, not compared (``==``):
    a stream's result (:func:`token_f1_result` of statistics whose texts were dropped) holds
    the same numbers without them.
    """

    exact_match: float
    f1: float
    precision: float
    recall: float
    scores: list[float]
    exact_match_scores: list[float]
    f1_scores: list[float]
    precision_scores: list[float]
    recall_scores: list[float]
    closest: list[str] = field(compare=False)
    variant: str
    language: str | None
    percent: bool
    ids: list[str] | None = field(compare=False)
    has_answer: list[bool] | None
    squad_v2: dict[str, float | int] | None
    signature: str = field(repr=False)
    #: the predictions as scored (for :meth:`per_item`); for SQuAD dict input the prediction
    #: texts in reference order, the order of every per-question column
    predictions: list[Any] = field(default_factory=list, repr=False, compare=False)
    #: what was scored per question: the prediction, or the option letter that replaced it
    #: (``fbc2_textqa``/``fbc2_mathqa`` letter fallback)
    scored_predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    METRIC = "token_f1"
    HEADLINE = (
        Headline("exact_match", items="exact_match", mean=True),
        Headline("f1", items="score", mean=True),
        Headline("exact", items="exact_match", mean=True),
        Headline("HasAns_exact"),
        Headline("HasAns_f1"),
        Headline("NoAns_exact"),
        Headline("NoAns_f1"),
        Headline("best_exact"),
        Headline("best_exact_thresh", higher_is_better=None),
        Headline("best_f1"),
        Headline("best_f1_thresh", higher_is_better=None),
        Headline("precision", items="precision", mean=True),
        Headline("recall", items="recall", mean=True),
    )
    COLUMNS = (
        ("exact_match", "exact_match_scores"),
        ("f1", "f1_scores"),
        ("precision", "precision_scores"),
        ("recall", "recall_scores"),
    )

    def headline_values(self) -> dict[str, Any]:
        """``exact_match``, ``f1``, ``precision``, ``recall``. For ``squad_v2`` the v2.0 dict's
        numbers take the place of ``exact_match`` and ``f1``: ``exact``, ``f1``,
        ``HasAns_*``/``NoAns_*`` and ``best_*`` with their thresholds (the official script's keys,
        as Hugging Face ``squad_v2`` returns them); its question counts (``total``,
        ``*_total``) are :meth:`extra` numbers."""
        values: dict[str, Any] = dict.fromkeys(h.key for h in self.HEADLINE)
        if self.squad_v2 is not None:
            values.update((k, v) for k, v in self.squad_v2.items() if not k.endswith("total"))
        else:
            values.update(exact_match=self.exact_match, f1=self.f1)
        values.update(precision=self.precision, recall=self.recall)
        return values

    def extra(self) -> dict[str, Any]:
        if self.squad_v2 is None:
            return {}
        return {k: v for k, v in self.squad_v2.items() if k.endswith("total")}

    def item_ids(self) -> list[str] | None:
        return self.ids

    def item_closest(self) -> list[str] | None:
        return self.closest or None

    def item_scale(self) -> float:
        return 100.0 if self.percent else 1.0


_OPTION_LETTER = re.compile("[abcde]")


def _letter_fallback(
    spec: TokenF1Variant,
    texts: list[str],
    golds: list[list[str]],
    normalizer: Normalizer,
    scored: _Scored,
) -> tuple[_Scored, dict[int, str]]:
    """The FusionBrain Challenge 2.0 option-letter rule (``get_f1``/``get_exact``): when a
    question's best ``spec.letter_fallback`` score is <= 0.5 and ``re.search("[abcde]",
    prediction)`` finds a letter in the raw prediction, that letter becomes the prediction
    and every score of the question is recomputed from it (kept even if lower)."""
    em, f1, p, r, closest = scored
    decisive = f1 if spec.letter_fallback == "f1" else em
    rows: list[int] = []
    letters: list[str] = []
    for i in np.flatnonzero(decisive <= 0.5).tolist():
        found = _OPTION_LETTER.search(texts[i])
        if found is not None:
            rows.append(i)
            letters.append(found.group())
    if not rows:
        return scored, {}
    new = _best_over_golds(letters, [golds[i] for i in rows], normalizer, spec.rules)
    em, f1, p, r = (np.array(old, dtype=np.float64) for old in (em, f1, p, r))
    for old, fresh in zip((em, f1, p, r), new[:4]):
        old[rows] = fresh
    closest = list(closest)
    for i, gold in zip(rows, new[4]):
        closest[i] = gold
    return (em, f1, p, r, closest), dict(zip(rows, letters))


@dataclass(frozen=True)
class InputRows:
    """How a batch's questions came: as Hugging Face SQuAD dicts or as plain lists (the first
    row decides for all, as in one call), and, for ``squad_v2`` dict input, per question the
    row of its prediction in the input (the best-threshold walk breaks probability ties in
    that order). :meth:`concat` shifts each batch's rows by the rows before it: the rows of
    the whole input, for batches each of whose ids pair within the batch. (The token F1 spec
    holds SQuAD dict rows: the command line pairs them by position, so their ids need not
    pair within a batch.)"""

    squad_dicts: bool
    size: int
    prediction_rows: np.ndarray | None = None

    @classmethod
    def concat(cls, parts: Sequence[InputRows]) -> InputRows:
        offsets = np.cumsum([0, *(part.size for part in parts)])
        for part, offset in zip(parts, offsets.tolist()):
            if part.squad_dicts != parts[0].squad_dicts:
                kinds = ("plain lists", "SQuAD dicts")
                raise ValueError(
                    f"{_METRIC}: the rows from {offset} on are {kinds[part.squad_dicts]}, the first rows "
                    f"{kinds[parts[0].squad_dicts]}; give every row in one format"
                )
        rows = None
        if parts[0].prediction_rows is not None:
            rows = np.concatenate(
                [
                    p.prediction_rows + o
                    for p, o in zip(parts, offsets.tolist())
                    if p.prediction_rows is not None
                ]
            )
        return cls(parts[0].squad_dicts, int(offsets[-1]), rows)


@dataclass(frozen=True)
class TokenF1Items(ItemStats):
    """The per-question statistics token F1 is computed from (:mod:`metricore.core.stream`):
    EM, F1, P and R of each question (after the letter fallback; for ``squad_v2`` before the
    no-answer threshold, which :func:`token_f1_result` applies), how the rows came
    (:class:`InputRows`) and, for ``squad_v2``, each question's has-answer and
    raw-prediction-non-empty flags and no-answer probability. The texts (closest gold, ids,
    predictions raw and as scored) serve a batch's per-question rows; a stream drops them."""

    exact_match: np.ndarray
    f1: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    rows: InputRows
    variant: str
    language: str | None
    percent: bool
    no_answer_threshold: float
    has_answer: np.ndarray | None = None
    prediction_nonempty: np.ndarray | None = None
    no_answer_probabilities: np.ndarray | None = None
    closest: list[str] | None = None
    ids: list[str] | None = None
    predictions: list[str] | None = None
    scored_predictions: list[str] | None = None

    TEXT = ("closest", "ids", "predictions", "scored_predictions")
    SHARED = ("variant", "language", "percent", "no_answer_threshold")


@paused_gc()
def token_f1_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "squad",
    language: str | None = None,
    no_answer_probabilities: Sequence[float] | None = None,
    no_answer_threshold: float = DEFAULT_NO_ANSWER_THRESHOLD,
    percent: bool = True,
) -> TokenF1Items:
    """Each question's statistics (arguments as :func:`compute_token_f1`, which is
    ``token_f1_result(token_f1_items(...))``); a question's numbers depend on that question
    only (its ``squad_v2`` probability ties are broken by :attr:`InputRows.prediction_rows`)."""
    spec = _variant_spec(variant)
    language = _check_language(spec, language)
    check_bool(percent, _METRIC, "percent")
    v2 = spec.rules == "v2"
    threshold = check_number(no_answer_threshold, _METRIC, "no_answer_threshold", 0.0, 1.0)
    if not v2:
        if no_answer_probabilities is not None:
            raise ValueError(
                f"{_METRIC}: `no_answer_probabilities` is only used by 'squad_v2', not {spec.name!r}"
            )
        if threshold != DEFAULT_NO_ANSWER_THRESHOLD:
            raise ValueError(
                f"{_METRIC}: `no_answer_threshold` is only used by 'squad_v2', not {spec.name!r}"
            )
    preds, refs = check_pairs(predictions, references, _METRIC)

    ids: list[str] | None = None
    prediction_rows: np.ndarray | None = None
    squad_dicts = isinstance(preds[0], Mapping) or isinstance(refs[0], Mapping)
    if squad_dicts:
        if no_answer_probabilities is not None:
            raise ValueError(
                f"{_METRIC}: with SQuAD dict input, give each prediction's 'no_answer_probability' "
                "instead of `no_answer_probabilities`"
            )
        records = parse_squad_records(preds, refs, use_no_answer_probability=v2)
        ids, texts, golds = records.ids, records.predictions, records.references
        if not v2:
            for i, gs in enumerate(golds):
                if not gs:
                    raise ValueError(
                        f"{_METRIC}: `references[{i}]` (id {ids[i]!r}) has no answers (empty list)"
                    )
        probs = np.asarray(records.no_answer_probabilities, dtype=np.float64)
        if v2:
            prediction_rows = np.asarray(records.prediction_rows, dtype=np.int64)
    else:
        # Fast path: element types are checked on the distinct strings while scoring; a
        # failure there re-runs the full checks below, which name the argument and index.
        texts = preds
        golds = (
            refs
            if set(map(type, refs)) == {list} and (v2 or 0 not in map(len, refs))
            else string_alternatives_column(refs, _METRIC, allow_empty=v2)
        )
        if no_answer_probabilities is None:
            probs = np.zeros(len(texts))
        else:
            plist = list(no_answer_probabilities)
            if len(plist) != len(texts):
                raise ValueError(
                    f"{_METRIC}: got {len(plist)} no_answer_probabilities for {len(texts)} predictions"
                )
            probs = np.asarray(
                [
                    check_number(x, _METRIC, f"no_answer_probabilities[{i}]", 0.0, 1.0)
                    for i, x in enumerate(plist)
                ],
                dtype=np.float64,
            )

    try:
        scored = _best_over_golds(texts, golds, _variant_normalizer(spec, language), spec.rules)
    except TypeError:
        check_strings(texts, _METRIC, "predictions")
        string_alternatives_column(golds, _METRIC, allow_empty=v2)
        raise
    letters: dict[int, str] = {}
    if spec.letter_fallback is not None:
        scored, letters = _letter_fallback(spec, texts, golds, _variant_normalizer(spec, language), scored)
    em, f1, p, r, closest = scored
    has_answer = prediction_nonempty = None
    if v2:
        has_answer, prediction_nonempty = v2_flags(texts, golds)
    return TokenF1Items(
        exact_match=em,
        f1=f1,
        precision=p,
        recall=r,
        rows=InputRows(squad_dicts, len(texts), prediction_rows),
        variant=spec.name,
        language=language,
        percent=percent,
        no_answer_threshold=threshold,
        has_answer=has_answer,
        prediction_nonempty=prediction_nonempty,
        no_answer_probabilities=probs if v2 else None,
        closest=closest,
        ids=ids,
        predictions=texts,
        scored_predictions=[letters.get(i, text) for i, text in enumerate(texts)] if letters else list(texts),
    )


def token_f1_result(items: TokenF1Items, *, columns: bool = True) -> TokenF1Result:
    """The result of every question's statistics, in question order: the corpus means
    (summed left to right, as the official scripts) and, for ``squad_v2``, the no-answer
    threshold and the v2.0 report with its best thresholds
    (:mod:`~metricore.metrics.token_f1.v2_report`). ``columns=False``: without the
    per-question columns (the same headline numbers and signature)."""
    scale = 100.0 if items.percent else 1.0
    em, f1, p, r = items.exact_match, items.f1, items.precision, items.recall
    closest = items.closest
    v2_dict: dict[str, float | int] | None = None
    if items.has_answer is not None:
        probs = items.no_answer_probabilities
        if probs is None or items.prediction_nonempty is None:
            raise ValueError(f"{_METRIC}: squad_v2 statistics without their probabilities and flags")
        order = question_order(probs, items.rows.prediction_rows)
        (em, f1, p, r), forced, v2_dict = _squad_v2(
            (em, f1, p, r),
            items.has_answer,
            items.prediction_nonempty,
            probs,
            order,
            items.no_answer_threshold,
            scale,
        )
        if forced is not None and closest is not None:
            closest = [("" if na else c) for c, na in zip(closest, forced.tolist())]

    options: dict[str, Any] = {"percent": items.percent}
    defaults: dict[str, Any] = {"percent": True, "no_answer_threshold": DEFAULT_NO_ANSWER_THRESHOLD}
    if v2_dict is not None:
        options["no_answer_threshold"] = items.no_answer_threshold
    if items.language is not None:
        options["language"] = items.language
    em_l, f1_l, p_l, r_l = em.tolist(), f1.tolist(), p.tolist(), r.tolist()
    n = len(em_l)
    has_answer: list[bool] | None = None
    if items.has_answer is not None:
        has_answer = items.has_answer.tolist() if columns else []
    predictions = items.predictions or []
    return TokenF1Result(
        exact_match=scale * sum(em_l) / n,
        f1=scale * sum(f1_l) / n,
        precision=scale * sum(p_l) / n,
        recall=scale * sum(r_l) / n,
        scores=list(f1_l) if columns else [],
        exact_match_scores=em_l if columns else [],
        f1_scores=f1_l if columns else [],
        precision_scores=p_l if columns else [],
        recall_scores=r_l if columns else [],
        closest=(closest or []) if columns else [],
        variant=items.variant,
        language=items.language,
        percent=items.percent,
        ids=items.ids if columns else None,
        has_answer=has_answer,
        squad_v2=v2_dict,
        signature=build_signature(_METRIC, items.variant, options, defaults),
        predictions=predictions if columns else [],
        scored_predictions=(items.scored_predictions or []) if columns else [],
    )


@paused_gc()
def compute_token_f1(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "squad",
    language: str | None = None,
    no_answer_probabilities: Sequence[float] | None = None,
    no_answer_threshold: float = DEFAULT_NO_ANSWER_THRESHOLD,
    percent: bool = True,
) -> TokenF1Result:
    """Token F1, exact match, precision and recall of extractive QA answers.

    Args:
        predictions: one answer string per question, or HF SQuAD dicts
            ``{"id", "prediction_text"[, "no_answer_probability"]}`` (matched by id).
        references: per question, a list of gold answers or a bare str (one answer); for
            ``squad_v2`` an empty list means "no answer". Or HF SQuAD dicts
            ``{"id", "answers": {"text": [...], "answer_start": [...]}}``.
        variant: one of :data:`TOKEN_F1_VARIANTS` (``squad``, ``squad_v2``, ``mlqa``,
            ``fbc2_textqa``, ``fbc2_mathqa``).
        language: ``mlqa`` only (required there): one of :data:`MLQA_LANGUAGES`.
        no_answer_probabilities: ``squad_v2`` with plain lists: per question, the model's
            probability that there is no answer (default all 0.0). Dict input carries it in
            each prediction's ``no_answer_probability``.
        no_answer_threshold: ``squad_v2``: questions whose probability is above it count as
            predicted "no answer" (default 1.0: none).
        percent: report corpus numbers x100 (default, as the official scripts) or in [0, 1].

    >>> r = compute_token_f1(["The Cat!", "cat cat cat"], [["cat"], ["cat"]])
    >>> r.exact_match, round(r.f1, 4), r.scores, r.as_dict()["columns"]["f1"]
    (50.0, 75.0, [1.0, 0.5], [1.0, 0.5])
    """
    return token_f1_result(
        token_f1_items(
            predictions,
            references,
            variant=variant,
            language=language,
            no_answer_probabilities=no_answer_probabilities,
            no_answer_threshold=no_answer_threshold,
            percent=percent,
        )
    )
