"""Token F1 and exact match for extractive QA: SQuAD v1.1, SQuAD v2.0, MLQA, and the
question-level (entity) precision/recall/F1 for list answers.

Per pair (prediction ``p``, gold ``g``), both normalized and split on whitespace::

    common = |tokens(p) ∩ tokens(g)|   (multiset intersection: "cat cat cat" vs "cat" -> 1)
    P = common / |tokens(p)|     R = common / |tokens(g)|     F1 = 2 P R / (P + R)
    EM = normalize(p) == normalize(g)

Per question, EM and F1 are each the maximum over the gold answers; the reported ``precision``
and ``recall`` are those of **the gold with the best F1, the first one on ties** (so
``f1 == 2PR/(P+R)`` per question, and P, R come from one gold). Corpus numbers are the means
over questions, times 100 by default (``percent=True``, as the official scripts and Hugging
Face's ``squad``/``squad_v2`` report them); per-question scores are always in [0, 1].

Variants (frozen :class:`TokenF1Variant` data over the one implementation):

``squad`` (default)
    SQuAD v1.1 official ``evaluate-v1.1.py`` (= HF ``evaluate`` ``squad``): normalizer
    ``squad`` (lowercase, delete ASCII punctuation, drop a/an/the, collapse whitespace).
    When nothing overlaps F1 is 0, **also when both sides are empty** (the script's
    ``num_same == 0`` branch returns first); EM of two empty strings is 1.
``squad_v2``
    SQuAD v2.0 official ``evaluate-v2.0.py`` (= HF ``evaluate`` ``squad_v2``): gold answers
    that normalize to ``""`` are dropped and a question left without any has the single gold
    ``""``; when either side has no tokens, P = R = F1 = 1 if both are empty, else 0. A
    question "has an answer" when its raw gold list is not empty (a gold made only of
    punctuation still makes it a HasAns question, as in the script). With
    ``no_answer_probabilities``, a question whose probability is ``> no_answer_threshold``
    (default 1.0) counts as answered "no answer": every score becomes 1 if the question has
    no answer, else 0. Reported: ``exact``, ``f1``, ``total``, ``HasAns_*``/``NoAns_*`` (always
    present; NaN for an empty group, where the script leaves the keys out) and ``best_exact``,
    ``best_f1`` with their thresholds (the script's ``find_best_thresh``: questions sorted by
    probability, stable, in prediction order; a no-answer question whose **raw** prediction
    string is non-empty costs one point there, even if it normalizes to ``""``).
``mlqa``
    MLQA official ``mlqa_evaluation_v1.py`` (facebookresearch/MLQA): the ``squad`` rules with
    the per-language normalizer ``mlqa_<language>`` (Unicode punctuation, the language's
    articles, CJK ideographs one token each for ``zh``); ``language`` is required.
``fbc2_textqa``
    AIJ 2022 FusionBrain Challenge 2.0 TextQA (ai-forever/fbc2_aij2022,
    ``evaluation/textqa/metric/calculate_f1.py``): normalizer ``fbc2_textqa`` (lowercase,
    delete ASCII punctuation, pymorphy lemma of each token with the Russian number words
    0..10 as digits, collapse whitespace; no article removal); either side empty: 1 if both
    are, else 0 (SQuAD v2's pair rule; no gold is dropped); best over golds. **Letter
    fallback**: a question whose F1 is <= 0.5 and whose *raw* prediction contains one of the
    Latin letters ``a b c d e`` (case-sensitive, anywhere, even inside a word) is re-scored with
    that first letter as the whole prediction; the new scores replace the old ones even when
    lower (``"b) на секунду"`` keeps 0.667 because 0.667 > 0.5).
``fbc2_mathqa``
    The challenge's MathQA (``evaluation/mathqa/metric/calculate_exact_score.py``): the same
    with normalizer ``fbc2_mathqa`` (``-`` kept: ``"-3"`` is not ``"3"``); the headline score
    is exact match, which also decides the letter fallback (EM 0 -> fallback).

Degenerate cases: an empty prediction list raises ``ValueError``; an empty gold list raises
``ValueError`` except in ``squad_v2`` (a question without an answer).

Inputs are plain lists (``predictions=[str]``, ``references=[[str]]`` or a bare ``str`` per
question) or Hugging Face's SQuAD dict format, matched by ``id`` (see
:func:`parse_squad_records`).

Speed: each distinct string is normalized once (``squad``: in bulk, see
:meth:`metricore.text.normalize.Normalizer.tokens_many`); each token multiset is stored as a
``frozenset`` of ``token`` / ``(token, k)`` items (the k-th copy of a repeated token), so a
multiset intersection is one C-level set intersection; a gold repeated within a question
is scored once, a pair of identical strings not at all; the arithmetic, the best-over-golds
reduction and the v2 threshold walk run in numpy; the cyclic garbage collector is paused
during a call (:mod:`metricore.core._gc`). Each value is computed with the scripts' operations in
their order, so per-question numbers are bit-identical to the official scripts', and corpus
means are summed left to right as they do.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, Literal, NamedTuple

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.grouping import group_argmax, group_max
from metricore.core.signature import build_signature
from metricore.core.validation import (
    check_bool,
    check_choice,
    check_number,
    check_pairs,
    check_str,
    check_string_list,
    check_strings,
    string_alternatives_column,
)
from metricore.text.normalize import MLQA_LANGUAGES, NORMALIZERS, Normalizer, get_normalizer

__all__ = [
    "TokenF1Variant",
    "TOKEN_F1_VARIANTS",
    "MLQA_LANGUAGES",
    "TokenScores",
    "TokenOverlap",
    "TokenF1Result",
    "SquadRecords",
    "QuestionLevelResult",
    "token_scores",
    "token_overlap",
    "compute_token_f1",
    "parse_squad_records",
    "squad_prediction",
    "squad_reference",
    "compute_question_level",
    "DEFAULT_NO_ANSWER_THRESHOLD",
]

_METRIC = "token_f1"
DEFAULT_NO_ANSWER_THRESHOLD = 1.0


@dataclass(frozen=True)
class TokenF1Variant:
    """A named bundle of options over the one token-F1 implementation."""

    name: str
    reference: str
    #: normalizer preset; ``None``: ``mlqa_<language>``
    normalizer: str | None
    #: ``v1``: F1 = 0 whenever nothing overlaps (empty vs empty too); ``v2``: the no-answer
    #: rules (empty golds dropped, empty vs empty = 1, thresholds, HasAns/NoAns);
    #: ``empty_match``: only v2's pair rule (either side empty: 1 if both are, else 0)
    rules: Literal["v1", "v2", "empty_match"]
    #: FBC2 letter fallback, decided on this per-question score (``None``: no fallback)
    letter_fallback: Literal["f1", "exact_match"] | None = None


TOKEN_F1_VARIANTS: dict[str, TokenF1Variant] = {
    v.name: v
    for v in (
        TokenF1Variant(
            "squad",
            "SQuAD v1.1 official evaluate-v1.1.py (Rajpurkar et al. 2016); HF evaluate `squad`",
            "squad",
            "v1",
        ),
        TokenF1Variant(
            "squad_v2",
            "SQuAD v2.0 official evaluate-v2.0.py (Rajpurkar et al. 2018); HF evaluate `squad_v2`",
            "squad",
            "v2",
        ),
        TokenF1Variant(
            "mlqa",
            "MLQA official mlqa_evaluation_v1.py, github.com/facebookresearch/MLQA (Lewis et al. 2020)",
            None,
            "v1",
        ),
        TokenF1Variant(
            "fbc2_textqa",
            "AIJ 2022 FusionBrain Challenge 2.0 TextQA, ai-forever/fbc2_aij2022 evaluation/textqa/metric/calculate_f1.py",
            "fbc2_textqa",
            "empty_match",
            "f1",
        ),
        TokenF1Variant(
            "fbc2_mathqa",
            "AIJ 2022 FusionBrain Challenge 2.0 MathQA (exact match), ai-forever/fbc2_aij2022 "
            "evaluation/mathqa/metric/calculate_exact_score.py",
            "fbc2_mathqa",
            "empty_match",
            "exact_match",
        ),
    )
}


# --------------------------------------------------------------------------------------------
# Per pair
# --------------------------------------------------------------------------------------------


def _multibag(tokens: list[str]) -> frozenset[Any]:
    """The multiset of ``tokens`` as a set: the k-th copy of a token is ``(token, k)``
    (k >= 2), so ``len(a & b)`` is the multiset intersection size."""
    seen: dict[str, int] = {}
    items: list[Any] = []
    for tok in tokens:
        k = seen.get(tok, 0) + 1
        seen[tok] = k
        items.append(tok if k == 1 else (tok, k))
    return frozenset(items)


class _Texts:
    """Distinct texts, each normalized and tokenized once.

    ``ids(strings)`` gives each string's row; strings with equal deduplication keys
    (:meth:`Normalizer.keys_many`) share a row. Per row: ``tokens`` (the normalized string is
    ``" ".join(tokens)``), ``bags`` (the token multiset as a set, see :func:`_multibag`) and
    the token count.
    """

    def __init__(self, normalizer: Normalizer) -> None:
        self.normalizer = normalizer
        self.index: dict[str, int] = {}
        self.tokens: list[list[str]] = []
        self.bags: list[frozenset[Any]] = []
        self._lengths: list[int] = []

    def ids(self, strings: Iterable[str]) -> list[int]:
        # a TypeError for a non-str; callers re-check the input to name its place
        keys = self.normalizer.keys_many(strings if isinstance(strings, list) else list(strings))
        index = self.index
        setdefault = index.setdefault
        before = len(index)
        out = [setdefault(k, len(index)) for k in keys]
        if len(index) > before:
            self._grow(list(islice(index, before, None)))
        return out

    def _grow(self, new: list[str]) -> None:
        tokens = self.normalizer.tokens_of_keys(new)
        lengths = list(map(len, tokens))
        bags = list(map(frozenset, tokens))
        if list(map(len, bags)) != lengths:
            for k, (bag, n) in enumerate(zip(bags, lengths)):
                if len(bag) != n:  # a repeated token
                    bags[k] = _multibag(tokens[k])
        self.tokens.extend(tokens)
        self.bags.extend(bags)
        self._lengths.extend(lengths)

    def lengths(self) -> np.ndarray:
        return np.asarray(self._lengths, dtype=np.int64)

    def pairs(self, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, ...]:
        """(common, |left|, |right|, exact) for aligned row pairs (int64 arrays).

        A pair of one row with itself needs no work (common = length, exact); exact match of
        two rows (equal normalized strings, i.e. equal token lists) is only checked where the
        two token multisets are equal.
        """
        lengths = self.lengths()
        nleft, nright = lengths[left], lengths[right]
        common = nleft.copy()
        distinct = left != right
        differ = np.flatnonzero(distinct)
        if len(differ):
            get = self.bags.__getitem__
            common[differ] = np.fromiter(
                map(
                    len,
                    map(
                        frozenset.intersection,
                        map(get, left[differ].tolist()),
                        map(get, right[differ].tolist()),
                    ),
                ),
                np.int64,
                len(differ),
            )
        exact = (common == nleft) & (common == nright)
        candidates = np.flatnonzero(exact & distinct)
        if len(candidates):
            toks = self.tokens
            lc, rc = left[candidates].tolist(), right[candidates].tolist()
            exact[candidates] = np.fromiter(
                (toks[a] == toks[b] for a, b in zip(lc, rc)), np.bool_, len(candidates)
            )
        return common, nleft, nright, exact


def _prf(
    common: np.ndarray, npred: np.ndarray, ngold: np.ndarray, rules: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F1 arrays, computed in the scripts' operation order
    (``1.0 * common / n`` then ``(2 * p * r) / (p + r)``) so each value is bit-identical."""
    hit = common > 0
    c = common.astype(np.float64)
    p = np.divide(c, npred, out=np.zeros(len(c)), where=hit)
    r = np.divide(c, ngold, out=np.zeros(len(c)), where=hit)
    f1 = np.divide(2.0 * p * r, p + r, out=np.zeros(len(c)), where=hit)
    if rules != "v1":
        empty = (npred == 0) | (ngold == 0)
        if empty.any():
            both = (empty & (npred == ngold)).astype(np.float64)
            p = np.where(empty, both, p)
            r = np.where(empty, both, r)
            f1 = np.where(empty, both, f1)
    return p, r, f1


class TokenScores(NamedTuple):
    """One (prediction, gold) pair's token precision, recall, F1 and exact match, in [0, 1]."""

    precision: float
    recall: float
    f1: float
    exact_match: float


def _variant_normalizer(spec: TokenF1Variant, language: str | None) -> Normalizer:
    return get_normalizer(spec.normalizer if spec.normalizer is not None else f"mlqa_{language}")


def _check_language(spec: TokenF1Variant, language: Any) -> str | None:
    if spec.normalizer is None:
        if language is None:
            raise ValueError(
                f"{_METRIC}: variant {spec.name!r} needs `language`; allowed: "
                f"{', '.join(repr(lang) for lang in MLQA_LANGUAGES)}"
            )
        return check_choice(language, MLQA_LANGUAGES, _METRIC, "language")
    if language is not None:
        raise ValueError(f"{_METRIC}: `language` is only used by the 'mlqa' variant, not {spec.name!r}")
    return None


def token_scores(
    prediction: str, gold: str, *, variant: str = "squad", language: str | None = None
) -> TokenScores:
    """Score one prediction against one gold answer (no best-over-golds, no thresholds).

    ``squad_v2``'s rule for empty sides applies (empty vs empty = 1); its dropping of empty
    golds is a per-question rule of :func:`compute_token_f1`.

    >>> token_scores("the big cat sat", "a cat sat down")
    TokenScores(precision=0.6666666666666666, recall=0.6666666666666666, f1=0.6666666666666666, exact_match=0.0)
    >>> token_scores("", "", variant="squad").f1, token_scores("", "", variant="squad_v2").f1
    (0.0, 1.0)
    """
    spec = TOKEN_F1_VARIANTS[check_choice(variant, TOKEN_F1_VARIANTS, _METRIC, "variant")]
    language = _check_language(spec, language)
    check_str(prediction, _METRIC, "prediction")
    check_str(gold, _METRIC, "gold")
    texts = _Texts(_variant_normalizer(spec, language))
    ids = np.asarray(texts.ids((prediction, gold)), dtype=np.int64)
    common, npred, ngold, exact = texts.pairs(ids[:1], ids[1:])
    p, r, f1 = _prf(common, npred, ngold, spec.rules)
    return TokenScores(float(p[0]), float(r[0]), float(f1[0]), float(exact[0]))


class TokenOverlap(NamedTuple):
    """The tokens behind one pair's F1 (:func:`token_overlap`), each group in text order."""

    common: tuple[str, ...]
    prediction_only: tuple[str, ...]
    gold_only: tuple[str, ...]

    def describe(self, max_tokens: int = 10) -> str:
        """``"common: cat, sat | pred only: big | gold only: down"`` (empty groups left out)."""
        parts = []
        for name, toks in (
            ("common", self.common),
            ("pred only", self.prediction_only),
            ("gold only", self.gold_only),
        ):
            if toks:
                more = f" … (+{len(toks) - max_tokens})" if len(toks) > max_tokens else ""
                parts.append(f"{name}: {', '.join(toks[:max_tokens])}{more}")
        return " | ".join(parts)


def token_overlap(
    prediction: str | Sequence[str],
    gold: str | Sequence[str],
    *,
    variant: str = "squad",
    language: str | None = None,
) -> TokenOverlap:
    """Which tokens a prediction shares with a gold answer: the multiset intersection that
    F1's ``common`` counts (``len(common)``), and what is left on each side. Strings are
    normalized and split as ``variant`` does; lists of tokens are used as they are.

    >>> token_overlap("the big cat sat", "a cat sat down")
    TokenOverlap(common=('cat', 'sat'), prediction_only=('big',), gold_only=('down',))
    >>> token_overlap("cat cat cat", "cat").prediction_only
    ('cat', 'cat')
    """
    spec = TOKEN_F1_VARIANTS[check_choice(variant, TOKEN_F1_VARIANTS, _METRIC, "variant")]
    language = _check_language(spec, language)

    def tokens(value: str | Sequence[str], name: str) -> list[str]:
        if isinstance(value, str):
            return _variant_normalizer(spec, language).tokens(value)
        if not isinstance(value, (list, tuple)):
            raise TypeError(
                f"{_METRIC}: `{name}` must be a str or a list of str tokens, got {type(value).__name__}"
            )
        return check_string_list(value, _METRIC, name)

    pred, golds = tokens(prediction, "prediction"), tokens(gold, "gold")
    left = Counter(golds)
    common: list[str] = []
    pred_only: list[str] = []
    for tok in pred:
        if left[tok] > 0:
            left[tok] -= 1
            common.append(tok)
        else:
            pred_only.append(tok)
    shared = Counter(common)  # the first copies of a gold token are the shared ones
    gold_only: list[str] = []
    for tok in golds:
        if shared[tok] > 0:
            shared[tok] -= 1
        else:
            gold_only.append(tok)
    return TokenOverlap(tuple(common), tuple(pred_only), tuple(gold_only))


# --------------------------------------------------------------------------------------------
# Best over golds
# --------------------------------------------------------------------------------------------


def _best_over_golds(
    preds: list[str], golds: list[list[str]], normalizer: Normalizer, rules: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Per question: EM (max over golds), F1 (max), P and R of the best-F1 gold (first on
    ties), and that gold's text. ``v2``: golds normalizing to "" are dropped first, and a
    question left with none gets the single gold ""."""
    texts = _Texts(normalizer)
    flat = list(chain.from_iterable(golds))
    pred_ids = np.asarray(texts.ids(preds), dtype=np.int64)
    gold_ids = np.asarray(texts.ids(flat), dtype=np.int64)
    gold_pos = np.arange(len(flat))  # where each gold comes from in ``flat``; -1: the "" gold
    counts = np.fromiter(map(len, golds), np.int64, len(golds))
    if rules == "v2":
        (empty_id,) = texts.ids([""])
        lengths = texts.lengths()
        question = np.repeat(np.arange(len(golds)), counts)
        keep = lengths[gold_ids] > 0
        counts = np.bincount(question[keep], minlength=len(golds))
        gold_ids, gold_pos = gold_ids[keep], gold_pos[keep]
        lonely = np.flatnonzero(counts == 0)
        if len(lonely):
            question = np.concatenate((question[keep], lonely))
            order = np.argsort(question, kind="stable")
            gold_ids = np.concatenate((gold_ids, np.full(len(lonely), empty_id)))[order]
            gold_pos = np.concatenate((gold_pos, np.full(len(lonely), -1)))[order]
            counts[lonely] = 1
    single = len(gold_ids) == len(pred_ids)  # every question has exactly one gold
    if not single:
        # a gold repeated within a question (SQuAD's annotators often agree) changes no max
        # and no first-best choice: keep its first occurrence only
        question = np.repeat(np.arange(len(counts)), counts)
        _, first = np.unique(question * (len(texts.tokens) + 1) + gold_ids, return_index=True)
        if len(first) < len(gold_ids):
            first.sort()
            gold_ids, gold_pos = gold_ids[first], gold_pos[first]
            counts = np.bincount(question[first], minlength=len(counts))
            single = len(gold_ids) == len(pred_ids)
    rep = pred_ids if single else np.repeat(pred_ids, counts)
    common, npred, ngold, exact = texts.pairs(rep, gold_ids)
    p, r, f1 = _prf(common, npred, ngold, rules)
    em = exact.astype(np.float64)
    if single:
        best_em, best_f1, best = em, f1, np.arange(len(f1))
    else:
        best_f1 = group_max(f1, counts)
        best_em = group_max(em, counts)
        best = group_argmax(f1, counts)
    closest = [flat[i] if i >= 0 else "" for i in gold_pos[best].tolist()]
    return best_em, best_f1, p[best], r[best], closest


# --------------------------------------------------------------------------------------------
# Hugging Face SQuAD dict format
# --------------------------------------------------------------------------------------------


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
    preds = list(predictions)
    refs = list(references)
    by_id: dict[str, int] = {}
    texts: list[str] = []
    probs: list[float] = []
    for i, row in enumerate(preds):
        qid, text, prob = squad_prediction(row, i, use_no_answer_probability=use_no_answer_probability)
        if qid in by_id:
            raise ValueError(
                f"{_METRIC}: duplicate prediction id {qid!r} at predictions[{i}] "
                f"(first at predictions[{by_id[qid]}])"
            )
        by_id[qid] = i
        texts.append(text)
        probs.append(0.0 if prob is None else prob)
    seen: dict[str, int] = {}
    out = SquadRecords([], [], [], [], [])
    for i, row in enumerate(refs):
        qid, golds = squad_reference(row, i)
        if qid in seen:
            raise ValueError(
                f"{_METRIC}: duplicate reference id {qid!r} at references[{i}] (first at references[{seen[qid]}])"
            )
        seen[qid] = i
        j = by_id.get(qid)
        if j is None:
            raise ValueError(f"{_METRIC}: no prediction has the id {qid!r} of references[{i}]")
        out.ids.append(qid)
        out.predictions.append(texts[j])
        out.references.append(golds)
        out.no_answer_probabilities.append(probs[j])
        out.prediction_rows.append(j)
    extra = [qid for qid in by_id if qid not in seen]
    if extra:
        raise ValueError(
            f"{_METRIC}: {len(extra)} prediction id(s) match no reference, e.g. {extra[0]!r} "
            f"at predictions[{by_id[extra[0]]}]"
        )
    return out


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenF1Result:
    """Corpus means (x100 when ``percent``) and per-question scores (always in [0, 1]).

    ``closest`` holds each question's gold whose precision and recall are reported (the best
    F1, first on ties; ``""`` for a ``squad_v2`` question scored against "no answer").
    ``squad_v2`` is the official v2.0 result dict (``exact``, ``f1``, ``total``, ``HasAns_*``,
    ``NoAns_*``, ``best_*``) for that variant, else ``None``. ``ids`` is set for dict input.
    """

    exact_match: float
    f1: float
    precision: float
    recall: float
    exact_match_scores: list[float]
    f1_scores: list[float]
    precision_scores: list[float]
    recall_scores: list[float]
    closest: list[str]
    variant: str
    language: str | None
    percent: bool
    ids: list[str] | None
    has_answer: list[bool] | None
    squad_v2: dict[str, float | int] | None
    signature: str = field(repr=False)

    def scores(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        if self.ids is not None:
            out["id"] = list(self.ids)
        out["exact_match"] = list(self.exact_match_scores)
        out["f1"] = list(self.f1_scores)
        out["precision"] = list(self.precision_scores)
        out["recall"] = list(self.recall_scores)
        return out

    def as_dict(self) -> dict[str, Any]:
        """The keys of HF's ``squad`` (``exact_match``, ``f1``) or ``squad_v2`` (``exact``,
        ``f1``, ``total``, ``HasAns_*``, ``NoAns_*``, ``best_*``), plus ``precision``,
        ``recall``, per-question ``scores`` and the ``signature``."""
        head: dict[str, Any]
        if self.squad_v2 is not None:
            head = dict(self.squad_v2)
        else:
            head = {"exact_match": self.exact_match, "f1": self.f1}
        head["precision"] = self.precision
        head["recall"] = self.recall
        head["scores"] = self.scores()
        head["signature"] = self.signature
        return head


def _mean(values: np.ndarray, scale: float) -> float:
    """``scale * sum / n`` summed left to right as the scripts do (NaN for no values)."""
    return scale * sum(values.tolist()) / len(values) if len(values) else float("nan")


def _best_thresh(
    raw: np.ndarray,
    probs: np.ndarray,
    order: np.ndarray,
    has_answer: np.ndarray,
    pred_nonempty: np.ndarray,
    scale: float,
) -> tuple[float, float]:
    """The v2.0 script's ``find_best_thresh``: walk questions by increasing probability,
    starting from "everything predicted no-answer" (score = #NoAns questions); an answerable
    question adds its raw score, an unanswerable one with a non-empty raw prediction loses 1.
    The first strict maximum gives the threshold (0.0 if none beats the start)."""
    num_no_ans = float((~has_answer).sum())
    diff = np.where(has_answer, raw, np.where(pred_nonempty, -1.0, 0.0))
    # the script's cur_score += diff, sequentially: cumsum adds in the same order
    walk = np.cumsum(np.concatenate(([num_no_ans], diff[order])))[1:]
    best_score, best_thresh = num_no_ans, 0.0
    if len(walk):
        i = int(np.argmax(walk))
        if walk[i] > num_no_ans:
            best_score, best_thresh = float(walk[i]), float(probs[order[i]])
    return scale * best_score / len(raw), best_thresh


_OPTION_LETTER = re.compile("[abcde]")


def _letter_fallback(
    spec: TokenF1Variant,
    texts: list[str],
    golds: list[list[str]],
    normalizer: Normalizer,
    scored: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
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
        return scored
    new = _best_over_golds(letters, [golds[i] for i in rows], normalizer, spec.rules)
    em, f1, p, r = (np.array(old, dtype=np.float64) for old in (em, f1, p, r))
    for old, fresh in zip((em, f1, p, r), new[:4]):
        old[rows] = fresh
    closest = list(closest)
    for i, gold in zip(rows, new[4]):
        closest[i] = gold
    return em, f1, p, r, closest


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
    >>> r.exact_match, round(r.f1, 4), r.as_dict()["scores"]["f1"]
    (50.0, 75.0, [1.0, 0.5])
    """
    spec = TOKEN_F1_VARIANTS[check_choice(variant, TOKEN_F1_VARIANTS, _METRIC, "variant")]
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
    if isinstance(preds[0], Mapping) or isinstance(refs[0], Mapping):
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
        order = np.argsort(np.asarray(records.prediction_rows), kind="stable")
        # questions sorted by probability, ties in prediction-row order (the script's dict order)
        order = order[np.argsort(probs[order], kind="stable")]
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
        order = np.argsort(probs, kind="stable")

    try:
        em, f1, p, r, closest = _best_over_golds(
            texts, golds, _variant_normalizer(spec, language), spec.rules
        )
    except TypeError:
        check_strings(texts, _METRIC, "predictions")
        string_alternatives_column(golds, _METRIC, allow_empty=v2)
        raise
    if spec.letter_fallback is not None:
        em, f1, p, r, closest = _letter_fallback(
            spec, texts, golds, _variant_normalizer(spec, language), (em, f1, p, r, closest)
        )
    scale = 100.0 if percent else 1.0
    has_answer: np.ndarray | None = None
    v2_dict: dict[str, float | int] | None = None
    if v2:
        has_answer = np.fromiter((bool(gs) for gs in golds), np.bool_, len(golds))
        raw_em, raw_f1 = em, f1
        predicted_no_answer = probs > threshold
        if predicted_no_answer.any():
            forced = (~has_answer).astype(np.float64)
            em, f1, p, r = (np.where(predicted_no_answer, forced, x) for x in (em, f1, p, r))
            closest = [("" if na else c) for c, na in zip(closest, predicted_no_answer.tolist())]
        pred_nonempty = np.fromiter((bool(t) for t in texts), np.bool_, len(texts))
        best_exact, best_exact_thresh = _best_thresh(raw_em, probs, order, has_answer, pred_nonempty, scale)
        best_f1, best_f1_thresh = _best_thresh(raw_f1, probs, order, has_answer, pred_nonempty, scale)
        v2_dict = {"exact": _mean(em, scale), "f1": _mean(f1, scale), "total": len(em)}
        for prefix, mask in (("HasAns", has_answer), ("NoAns", ~has_answer)):
            v2_dict[f"{prefix}_exact"] = _mean(em[mask], scale)
            v2_dict[f"{prefix}_f1"] = _mean(f1[mask], scale)
            v2_dict[f"{prefix}_total"] = int(mask.sum())
        v2_dict.update(
            best_exact=best_exact,
            best_exact_thresh=best_exact_thresh,
            best_f1=best_f1,
            best_f1_thresh=best_f1_thresh,
        )

    options: dict[str, Any] = {"percent": percent}
    defaults: dict[str, Any] = {"percent": True, "no_answer_threshold": DEFAULT_NO_ANSWER_THRESHOLD}
    if v2:
        options["no_answer_threshold"] = threshold
    if language is not None:
        options["language"] = language
    em_l, f1_l, p_l, r_l = em.tolist(), f1.tolist(), p.tolist(), r.tolist()
    n = len(em_l)
    return TokenF1Result(
        exact_match=scale * sum(em_l) / n,
        f1=scale * sum(f1_l) / n,
        precision=scale * sum(p_l) / n,
        recall=scale * sum(r_l) / n,
        exact_match_scores=em_l,
        f1_scores=f1_l,
        precision_scores=p_l,
        recall_scores=r_l,
        closest=closest,
        variant=spec.name,
        language=language,
        percent=percent,
        ids=ids,
        has_answer=None if has_answer is None else has_answer.tolist(),
        squad_v2=v2_dict,
        signature=build_signature(_METRIC, spec.name, options, defaults),
    )


# --------------------------------------------------------------------------------------------
# Question-level (entity) precision / recall / F1
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionLevelResult:
    """Entity-level scores of list answers.

    ``precision``/``recall``/``f1``/``exact_match``: means over questions of the per-question
    values (macro); ``micro_*``: from the summed TP/FP/FN counts. x100 when ``percent``.
    """

    precision: float
    recall: float
    f1: float
    exact_match: float
    micro_precision: float
    micro_recall: float
    micro_f1: float
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "exact_match": self.exact_match,
            "micro_precision": self.micro_precision,
            "micro_recall": self.micro_recall,
            "micro_f1": self.micro_f1,
            "scores": {
                "precision": list(self.precision_scores),
                "recall": list(self.recall_scores),
                "f1": list(self.f1_scores),
                "exact_match": list(self.exact_match_scores),
                "true_positives": list(self.true_positives),
                "false_positives": list(self.false_positives),
                "false_negatives": list(self.false_negatives),
            },
            "signature": self.signature,
        }


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


@paused_gc()
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
    p, r, f1 = _entity_prf(tp, fp, fn)
    em = ((fp == 0) & (fn == 0)).astype(np.float64)
    mp, mr, mf = _entity_prf(np.array([tp.sum()]), np.array([fp.sum()]), np.array([fn.sum()]))
    scale = 100.0 if percent else 1.0
    return QuestionLevelResult(
        precision=_mean(p, scale),
        recall=_mean(r, scale),
        f1=_mean(f1, scale),
        exact_match=_mean(em, scale),
        micro_precision=scale * float(mp[0]),
        micro_recall=scale * float(mr[0]),
        micro_f1=scale * float(mf[0]),
        precision_scores=p.tolist(),
        recall_scores=r.tolist(),
        f1_scores=f1.tolist(),
        exact_match_scores=em.tolist(),
        true_positives=tp.tolist(),
        false_positives=fp.tolist(),
        false_negatives=fn.tolist(),
        normalizer=normalizer,
        percent=percent,
        signature=build_signature(
            _METRIC,
            "question_level",
            {"normalizer": normalizer, "percent": percent},
            {"normalizer": "squad", "percent": True},
        ),
    )
