"""Oracle: the FusionBrain Challenge 2.0 TextQA (F1) and MathQA (exact match) scorers, restated
plainly from ai-forever/fbc2_aij2022 ``evaluation/textqa/metric/calculate_f1.py`` and
``evaluation/mathqa/metric/calculate_exact_score.py`` (pymorphy3 for the original's pymorphy2).

Deliberately naive: one pymorphy analyzer of its own, no caches, no numpy, the original's
order of operations, its own dict-of-parts input. Only what the original does on valid input
is reproduced (its crash on an empty parts list and its ``print`` calls are not).
"""

from __future__ import annotations

import collections
import re
import string

import pymorphy3

_MORPH = pymorphy3.MorphAnalyzer()

NUMBER_LEMMAS = {
    "ноль": "0",
    "нисколько": "0",
    "никакой": "0",
    "один": "1",
    "два": "2",
    "три": "3",
    "четыре": "4",
    "пять": "5",
    "шесть": "6",
    "семь": "7",
    "восемь": "8",
    "девять": "9",
    "десять": "10",
}


def lemma(word: str) -> str:
    normal = _MORPH.parse(word)[0].normal_form
    return NUMBER_LEMMAS.get(normal, normal)


def normalize_answer(s: str, keep_hyphen: bool = False) -> str:
    """lower -> remove punctuation (MathQA keeps '-') -> lemma per token -> fix whitespace."""
    text = s.lower()
    exclude = set(string.punctuation)
    if keep_hyphen:
        exclude.discard("-")
    text = "".join(ch for ch in text if ch not in exclude)
    text = " ".join(lemma(word) for word in text.split())
    return " ".join(text.split())


def get_tokens(s: str) -> list[str]:
    if not s:
        return []
    return normalize_answer(s).split()


def compute_f1(gold: str, pred: str) -> float:
    gold_toks = get_tokens(gold)
    pred_toks = get_tokens(pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def compute_exact(gold: str, pred: str) -> int:
    return int(normalize_answer(gold, keep_hyphen=True) == normalize_answer(pred, keep_hyphen=True))


def _first_text(parts: list[dict]) -> str:
    prediction = ""
    for element in parts:
        prediction = ""
        if element["type"] == "text":
            prediction = element["content"]
            break
    return prediction


def _question_score(golds: list[str], prediction: str, pair) -> float:
    score = max(pair(g, prediction) for g in golds)
    if score <= 0.5:
        label = re.search("[abcde]", prediction)
        if label is not None:
            prediction = prediction[label.span()[0]]
            score = max(pair(g, prediction) for g in golds)
    return score


def question_f1(golds: list[str], prediction: str) -> float:
    """One TextQA question: best F1 over golds, then the letter fallback."""
    return _question_score(golds, prediction, compute_f1)


def question_exact(golds: list[str], prediction: str) -> float:
    """One MathQA question: best exact match over golds, then the letter fallback."""
    return _question_score(golds, prediction, compute_exact)


def get_f1(examples: dict, preds: dict) -> tuple[float, dict[str, float]]:
    """``examples``/``preds`` in the challenge layout; (mean, per-key scores)."""
    scores = {key: question_f1(examples[key][0]["content"], _first_text(preds[key])) for key in examples}
    return sum(scores.values()) / len(examples), scores


def get_exact(examples: dict, preds: dict) -> tuple[float, dict[str, float]]:
    scores = {key: question_exact(examples[key][0]["content"], _first_text(preds[key])) for key in examples}
    return sum(scores.values()) / len(examples), scores
