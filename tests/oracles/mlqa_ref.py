"""Test oracle: the MLQA official evaluation logic (facebookresearch/MLQA
``mlqa_evaluation_v1.py``), in plain Python, written for the test suite from the script.

Per language: lowercase; delete every character of Unicode category ``P*`` (scanned over
``range(sys.maxunicode)``) and ``string.punctuation``; replace articles by a space with the
script's regexes (Arabic: ``'\\sال^|ال'``); whitespace tokens, or for ``zh`` the "mixed
segmentation" (each CJK ideograph alone, other runs split on whitespace), re-joined with
single spaces. F1/EM as SQuAD v1.1 (no overlap = 0), max over golds, x100 means.
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections import Counter

__all__ = ["PUNCT", "normalize_answer", "f1_score", "exact_match_score", "evaluate"]

PUNCT = {chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")}.union(
    string.punctuation
)
WHITESPACE_LANGS = ["en", "es", "hi", "vi", "de", "ar"]
MIXED_SEGMENTATION_LANGS = ["zh"]


def _mixed_segmentation(text: str) -> list[str]:
    out: list[str] = []
    buf = ""
    for ch in text:
        if re.search(r"[\u4e00-\u9fa5]", ch) or ch in PUNCT:
            if buf != "":
                out.extend(buf.split())
                buf = ""
            out.append(ch)
        else:
            buf += ch
    if buf != "":
        out.extend(buf.split())
    return out


def _remove_articles(text: str, lang: str) -> str:
    if lang == "en":
        return re.sub(r"\b(a|an|the)\b", " ", text)
    if lang == "es":
        return re.sub(r"\b(un|una|unos|unas|el|la|los|las)\b", " ", text)
    if lang == "vi":
        return re.sub(r"\b(của|là|cái|chiếc|những)\b", " ", text)
    if lang == "de":
        return re.sub(r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b", " ", text)
    if lang == "ar":
        return re.sub("\\sال^|ال", " ", text)
    if lang in ("hi", "zh"):
        return text
    raise ValueError(lang)


def normalize_answer(s: str, lang: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in PUNCT)
    s = _remove_articles(s, lang)
    tokens = s.split() if lang in WHITESPACE_LANGS else _mixed_segmentation(s)
    return " ".join(t for t in tokens if t.strip() != "")


def f1_score(prediction: str, ground_truth: str, lang: str) -> float:
    p = normalize_answer(prediction, lang).split()
    g = normalize_answer(ground_truth, lang).split()
    num_same = sum((Counter(p) & Counter(g)).values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(p)
    recall = 1.0 * num_same / len(g)
    return (2 * precision * recall) / (precision + recall)


def exact_match_score(prediction: str, ground_truth: str, lang: str) -> bool:
    return normalize_answer(prediction, lang) == normalize_answer(ground_truth, lang)


def evaluate(predictions: list[str], golds: list[list[str]], lang: str) -> dict[str, float]:
    f1 = exact = 0
    for p, gs in zip(predictions, golds):
        exact += max(exact_match_score(p, g, lang) for g in gs)
        f1 += max(f1_score(p, g, lang) for g in gs)
    return {"exact_match": 100.0 * exact / len(golds), "f1": 100.0 * f1 / len(golds)}
