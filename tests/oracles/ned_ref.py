"""Test oracles for 1-NED and CER (scene-text recognition).

(a) :func:`icdar_one_minus_ned`: the ICDAR 2019 ReCTS/ArT rule as coded in clovaai
    deep-text-recognition-benchmark ``test.py``: per item 0 when either string is empty,
    else ``1 - ED / max(len)`` with ``editdistance.eval``; mean over items.
(b) :func:`dp_one_minus_ned`: the same rule over a pure-Python dynamic program.

:func:`reference_item` adds the documented options of ``metricore.compute_one_minus_ned``
(empty-pair policy, NFKC then lower-casing, several golds: best similarity, ties broken by
the smaller distance, then the first gold) on top of either distance.
CER = sum of distances / sum of gold lengths (of the chosen golds).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

import editdistance

from .rrc_anls import levenshtein

__all__ = [
    "ed_editdistance",
    "ed_dp",
    "icdar_one_minus_ned",
    "dp_one_minus_ned",
    "reference_item",
    "reference",
]


def ed_editdistance(a: str, b: str) -> int:
    return int(editdistance.eval(a, b))


def ed_dp(a: str, b: str) -> int:
    return levenshtein(a, b)


def _item(pred: str, gt: str, ed: Callable[[str, str], int]) -> float:
    if len(gt) == 0 or len(pred) == 0:
        return 0.0
    return 1 - ed(pred, gt) / max(len(gt), len(pred))


def icdar_one_minus_ned(preds: Sequence[str], gts: Sequence[str]) -> tuple[float, list[float]]:
    scores = [_item(p, g, ed_editdistance) for p, g in zip(preds, gts)]
    return sum(scores) / len(scores), scores


def dp_one_minus_ned(preds: Sequence[str], gts: Sequence[str]) -> tuple[float, list[float]]:
    scores = [_item(p, g, ed_dp) for p, g in zip(preds, gts)]
    return sum(scores) / len(scores), scores


def cer(distances: Sequence[int], gold_lengths: Sequence[int]) -> float:
    total = sum(gold_lengths)
    dist = sum(distances)
    if total == 0:
        return 0.0 if dist == 0 else float("inf")
    return dist / total


def _prepare(text: str, lowercase: bool, nfkc: bool) -> str:
    if nfkc:
        text = unicodedata.normalize("NFKC", text)
    if lowercase:
        text = text.lower()
    return text


def reference_item(
    pred: str,
    golds: Sequence[str],
    *,
    empty_pair: str = "zero",
    lowercase: bool = False,
    nfkc: bool = False,
    ed: Callable[[str, str], int] = ed_editdistance,
) -> tuple[float, int, int, int]:
    """(score, distance to the chosen gold, its length, its index)."""
    p = _prepare(pred, lowercase, nfkc)
    best: tuple[float, int, int, int] | None = None
    for k, raw in enumerate(golds):
        g = _prepare(raw, lowercase, nfkc)
        d = ed(p, g)
        score = _item(p, g, ed)
        if empty_pair == "one" and not p and not g:
            score = 1.0
        if best is None or score > best[0] or (score == best[0] and d < best[1]):
            best = (score, d, len(g), k)
    assert best is not None
    return best


def reference(
    preds: Sequence[str],
    golds: Sequence[Sequence[str]],
    **options,
) -> tuple[float, float, list[float], list[int], list[int], list[int]]:
    """(1-NED, CER, scores, distances, gold lengths, chosen indices)."""
    items = [reference_item(p, g, **options) for p, g in zip(preds, golds)]
    scores = [s for s, _, _, _ in items]
    dists = [d for _, d, _, _ in items]
    lengths = [n for _, _, n, _ in items]
    return sum(scores) / len(scores), cer(dists, lengths), scores, dists, lengths, [k for *_, k in items]


def clovaai_case_insensitive(
    preds: Sequence[str], gts: Sequence[str]
) -> tuple[float, float, list[float], list[bool]]:
    """deep-text-recognition-benchmark ``test.py`` ``validation``, the case-insensitive
    alphanumeric setting, as its loop writes it: ``lower()``, ``re.sub('[^0-9a-z]', '', .)``,
    ``pred == gt`` for accuracy (x100), the ICDAR 2019 branch for the normalized edit distance
    (``editdistance.eval`` in place of nltk's ``edit_distance``: the same Levenshtein)."""
    keep = "0123456789abcdefghijklmnopqrstuvwxyz"
    out_of = f"[^{keep}]"
    n_correct, norm_ed, scores, correct = 0, 0.0, [], []
    for pred, gt in zip(preds, gts):
        pred = re.sub(out_of, "", pred.lower())
        gt = re.sub(out_of, "", gt.lower())
        correct.append(pred == gt)
        if pred == gt:
            n_correct += 1
        if len(gt) == 0 or len(pred) == 0:
            item = 0.0
        elif len(gt) > len(pred):
            item = 1 - editdistance.eval(pred, gt) / len(gt)
        else:
            item = 1 - editdistance.eval(pred, gt) / len(pred)
        norm_ed += item
        scores.append(item)
    return n_correct / float(len(preds)) * 100, norm_ed / float(len(preds)), scores, correct
