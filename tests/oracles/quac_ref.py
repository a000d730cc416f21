"""Test oracle: the QuAC official scorer's F1 / HEQ-Q / HEQ-D logic (``scorer.py``, quac.ai),
in plain Python, written for the test suite from the scorer. Span-overlap categories (which
need the passage) are left out: they do not change the numbers.

``dialogs`` is a list of dialogs, each a list of (prediction, references) turns.
"""

from __future__ import annotations

from .squad_ref import f1_v1

__all__ = ["handle_cannot", "human_f1", "model_f1", "evaluate"]


def handle_cannot(refs: list[str]) -> list[str]:
    num_cannot = num_spans = 0
    for ref in refs:
        if ref == "CANNOTANSWER":
            num_cannot += 1
        else:
            num_spans += 1
    if num_cannot >= num_spans:
        return ["CANNOTANSWER"]
    return [x for x in refs if x != "CANNOTANSWER"]


def _span_f1(pred: str, gold: str) -> float:
    if gold == "CANNOTANSWER":
        return 1.0 if pred == "CANNOTANSWER" else 0.0
    return f1_v1(pred, gold)


def _max_over(pred: str, golds: list[str]) -> float:
    return max(_span_f1(pred, g) for g in golds)


def model_f1(pred: str, golds: list[str]) -> float:
    if len(golds) == 1:
        return _max_over(pred, golds)
    t_f1 = []
    for i in range(len(golds)):
        rest = [golds[z] for z in range(len(golds)) if z != i]
        t_f1.append(_max_over(pred, rest))
    return 1.0 * sum(t_f1) / len(t_f1)


def human_f1(refs: list[str]) -> float:
    if len(refs) == 1:
        return 1.0
    total = 0.0
    for i in range(len(refs)):
        best = 0
        for j in range(len(refs)):
            if i == j:
                continue
            f = f1_v1(refs[i], refs[j])
            if f > best:
                best = f
        total += best
    return total / len(refs)


def evaluate(dialogs: list[list[tuple[str, list[str]]]], min_f1: float = 0.4) -> dict[str, float]:
    total_qs = 0.0
    f1s: list[float] = []
    heq = dheq = total_dials = 0.0
    for turns in dialogs:
        good = 1.0
        for pred, refs in turns:
            golds = handle_cannot(refs)
            hf1 = human_f1(golds)
            mf1 = model_f1(pred, golds)
            if hf1 < min_f1:
                continue
            if mf1 >= hf1:
                heq += 1.0
            else:
                good = 0.0
            f1s.append(mf1)
            total_qs += 1.0
        dheq += good
        total_dials += 1
    return {
        "f1": sum(f1s) / len(f1s) if f1s else 0,
        "heq": heq / total_qs if total_qs else 0,
        "dheq": dheq / total_dials,
    }
