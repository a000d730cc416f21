"""Test oracle: relaxed accuracy as google-research/pix2struct computes it
(``pix2struct/metrics.py``: ``relaxed_correctness`` and ``aggregate_metrics``), and the copy
in QwenLM/Qwen-VL ``eval_mm/evaluate_vqa.py`` (``evaluate_relaxed_accuracy``, which InternVL
repeats) that calls it with the arguments swapped.

Written for the test suite from those functions' logic, statement by statement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["relaxed_correctness", "aggregate_metrics", "qwen_relaxed_accuracy"]


def relaxed_correctness(target: str, prediction: str, max_relative_change: float = 0.05) -> bool:
    def _to_float(text: str) -> float | None:
        try:
            if text.endswith("%"):
                return float(text.rstrip("%")) / 100.0
            else:
                return float(text)
        except ValueError:
            return None

    prediction_float = _to_float(prediction)
    target_float = _to_float(target)
    if prediction_float is not None and target_float:
        relative_change = abs(prediction_float - target_float) / abs(target_float)
        return relative_change <= max_relative_change
    else:
        return prediction.lower() == target.lower()


def aggregate_metrics(
    targets: Sequence[Sequence[str]],
    predictions: Sequence[str],
    metric_fn: Callable[[str, str], Any],
    normalize_fn: Callable[[str], str] = lambda v: v,
    per_question: list[Any] | None = None,
) -> float:
    """pix2struct's aggregate (x100); ``per_question`` collects each question's ``max``."""
    assert len(targets) == len(predictions)
    total = 0
    for prediction, target in zip(predictions, targets):
        p = normalize_fn(prediction)
        best = max(metric_fn(normalize_fn(t), p) for t in target)
        if per_question is not None:
            per_question.append(best)
        total += best
    return (100.0 * total) / len(targets)


def qwen_relaxed_accuracy(entries: list[dict[str, Any]]) -> tuple[list[bool], float]:
    """Qwen-VL's ``evaluate_relaxed_accuracy``: entries ``{"answer": prediction, "annotation":
    str or list}``; returns (per question, the mean)."""
    scores = []
    for elem in entries:
        annotation = elem["annotation"]
        if isinstance(annotation, str):
            annotation = [annotation]
        scores.append(max([relaxed_correctness(elem["answer"].strip(), ann) for ann in annotation]))
    return scores, sum(scores) / len(scores)
