"""Token overlap of a prediction with gold answers: per pair, and best over a question's golds.

Per pair (prediction ``p``, gold ``g``), both normalized and split on whitespace::

    common = |tokens(p) ∩ tokens(g)|   (multiset intersection: "cat cat cat" vs "cat" -> 1)
    P = common / |tokens(p)|     R = common / |tokens(g)|     F1 = 2 P R / (P + R)
    EM = normalize(p) == normalize(g)

as in SQuAD v1.1's ``evaluate-v1.1.py`` (``f1_score``, ``exact_match_score``). The variant's
``rules`` (:class:`~metricore.metrics.token_f1.variants.TokenF1Variant`) decide the pairs
where nothing overlaps: ``v1`` scores 0, also when both sides are empty; ``v2`` and
``empty_match`` score 1 when both sides are empty and 0 when only one is (SQuAD v2.0's
``compute_f1``).

Per question, EM and F1 are each the maximum over the gold answers; the reported ``precision``
and ``recall`` are those of **the gold with the best F1, the first one on ties** (so
``f1 == 2PR/(P+R)`` per question, and P, R come from one gold). Per-question scores are in
[0, 1].

Speed: each distinct string is normalized once (``squad``: in bulk, see
:meth:`metricore.text.normalize.Normalizer.tokens_many`); each token multiset is stored as a
``frozenset`` of ``token`` / ``(token, k)`` items (the k-th copy of a repeated token), so a
multiset intersection is one C-level set intersection; a gold repeated within a question
is scored once, a pair of identical strings not at all; the arithmetic and the
best-over-golds reduction run in numpy. Each value is computed with the scripts' operations
in their order, so per-question numbers are bit-identical to the official scripts', and
corpus means (:func:`_mean`) are summed left to right as they do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, NamedTuple

import numpy as np

from metricore.core.grouping import group_argmax, group_max
from metricore.core.validation import check_str, check_string_list, flatten_with_counts
from metricore.metrics.token_f1.variants import (
    _METRIC,
    _check_language,
    _variant_normalizer,
    _variant_spec,
)
from metricore.text.normalize import Normalizer

__all__ = ["TokenScores", "TokenOverlap", "token_scores", "token_overlap"]

#: per question: EM, F1, P, R (arrays) and the gold P and R were taken from
_Scored = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]


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


def token_scores(
    prediction: str, gold: str, *, variant: str = "squad", language: str | None = None
) -> TokenScores:
    """Score one prediction against one gold answer (no best-over-golds, no thresholds).

    ``squad_v2``'s rule for empty sides applies (empty vs empty = 1); its dropping of empty
    golds is a per-question rule of :func:`~metricore.metrics.token_f1.squad.compute_token_f1`.

    >>> token_scores("the big cat sat", "a cat sat down")
    TokenScores(precision=0.6666666666666666, recall=0.6666666666666666, f1=0.6666666666666666, exact_match=0.0)
    >>> token_scores("", "", variant="squad").f1, token_scores("", "", variant="squad_v2").f1
    (0.0, 1.0)
    """
    spec = _variant_spec(variant)
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
    spec = _variant_spec(variant)
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


def _best_over_golds(preds: list[str], golds: list[list[str]], normalizer: Normalizer, rules: str) -> _Scored:
    """Per question: EM (max over golds), F1 (max), P and R of the best-F1 gold (first on
    ties), and that gold's text. ``v2``: golds normalizing to "" are dropped first, and a
    question left with none gets the single gold ""."""
    texts = _Texts(normalizer)
    flat, counts = flatten_with_counts(golds)
    pred_ids = np.asarray(texts.ids(preds), dtype=np.int64)
    gold_ids = np.asarray(texts.ids(flat), dtype=np.int64)
    gold_pos = np.arange(len(flat))  # where each gold comes from in ``flat``; -1: the "" gold
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


def _mean(values: np.ndarray, scale: float) -> float:
    """``scale * sum / n`` summed left to right as the scripts do (NaN for no values)."""
    return scale * sum(values.tolist()) / len(values) if len(values) else float("nan")
