"""Test oracle: the Robust Reading Competition (RRC) DocVQA ANLS script, in plain Python.

Written for the test suite from the description of the official evaluation code (DocVQA /
InfographicVQA, rrc.cvc.uab.es): no numpy, no RapidFuzz, nothing shared with ``metricore``.

For every gold ``answer`` of a question:

* ``gt = " ".join(answer.strip().lower().split())`` and the same for the prediction;
* ``dist`` = Levenshtein distance of the two *normalized* strings (classic dynamic program);
* ``length = max(len(answer.upper()), len(pred.upper()))``: the **raw** strings, upper-cased
  (``"ß".upper() == "SS"``, so the divisor can exceed the string lengths);
* ``value = 0.0 if length == 0 else dist / length``.

``question_result = 1 - min(values)``, set to 0 when ``< threshold``; ANLS is the mean over
questions.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["levenshtein", "normalize", "normalized_values", "question_score", "anls"]


def levenshtein(a: str, b: str) -> int:
    """Unit-cost edit distance over code points (two-row Wagner-Fischer)."""
    if a == b:
        return 0
    if not a:
        return len(b)
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            substitution = previous[j - 1] + (ca != cb)
            deletion = previous[j] + 1
            insertion = current[j - 1] + 1
            current.append(min(substitution, deletion, insertion))
        previous = current
    return previous[-1]


def normalize(text: str) -> str:
    return " ".join(text.strip().lower().split())


def normalized_values(answers: Sequence[str], pred: str) -> list[float]:
    """``dist / length`` per gold answer, exactly as the script computes it."""
    det = normalize(pred)
    values = []
    for answer in answers:
        gt = normalize(answer)
        dist = levenshtein(gt, det)
        length = max(len(answer.upper()), len(pred.upper()))
        values.append(0.0 if length == 0 else float(dist) / float(length))
    return values


def question_score(answers: Sequence[str], pred: str, threshold: float = 0.5) -> float:
    """One question: ``1 - min(values)``, zeroed below ``threshold``."""
    values = normalized_values(answers, pred)
    result = 1 - min(values)
    if result < threshold:
        result = 0
    return float(result)


def anls(
    predictions: Sequence[str], golds: Sequence[Sequence[str]], threshold: float = 0.5
) -> tuple[float, list[float]]:
    """(mean, per-question scores)."""
    scores = [question_score(g, p, threshold) for p, g in zip(predictions, golds)]
    return sum(scores) / len(scores), scores
