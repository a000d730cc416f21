"""The SQuAD v2.0 report: no-answer questions, the probability threshold, HasAns/NoAns groups
and the best thresholds, as the official ``evaluate-v2.0.py`` (= HF ``evaluate``
``squad_v2``) computes them.

* Gold answers that normalize to ``""`` are dropped and a question left without any has the
  single gold ``""`` (:func:`metricore.metrics.token_f1.overlap._best_over_golds`, rules
  ``v2``).
* A question "has an answer" when its raw gold list is not empty (a gold made only of
  punctuation still makes it a HasAns question, as in the script).
* With no-answer probabilities, a question whose probability is ``> no_answer_threshold``
  (default 1.0) counts as answered "no answer": every score becomes 1 if the question has no
  answer, else 0.
* Reported: ``exact``, ``f1``, ``total``, ``HasAns_*``/``NoAns_*`` (always present; NaN for
  an empty group, where the script leaves the keys out) and ``best_exact``, ``best_f1`` with
  their thresholds (the script's ``find_best_thresh``: questions sorted by probability,
  stable, in prediction order; a no-answer question whose **raw** prediction string is
  non-empty costs one point there, even if it normalizes to ``""``). The threshold walk runs
  in numpy and adds in the script's order, so the numbers are bit-identical.
"""

from __future__ import annotations

import numpy as np

from metricore.metrics.token_f1.overlap import _mean


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


def v2_flags(texts: list[str], golds: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per question: whether it has an answer (its raw gold list is not empty) and whether its
    raw prediction string is non-empty (what ``find_best_thresh`` charges a no-answer
    question for)."""
    has_answer = np.fromiter((bool(gs) for gs in golds), np.bool_, len(golds))
    pred_nonempty = np.fromiter((bool(t) for t in texts), np.bool_, len(texts))
    return has_answer, pred_nonempty


def _squad_v2(
    raw: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    has_answer: np.ndarray,
    pred_nonempty: np.ndarray,
    probs: np.ndarray,
    order: np.ndarray,
    threshold: float,
    scale: float,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray | None, dict[str, float | int]]:
    """The per-question EM, F1, P, R after the no-answer threshold, which questions it
    forced to "no answer" (``None``: none), and the v2.0 result dict. ``raw``: the scores
    before the threshold; ``order``: the questions by increasing probability (ties in
    prediction order)."""
    em, f1, p, r = raw
    # the best thresholds are found on the scores before any threshold is applied
    raw_em, raw_f1 = em, f1
    above = probs > threshold
    predicted_no_answer = above if above.any() else None
    if predicted_no_answer is not None:
        forced = (~has_answer).astype(np.float64)
        em, f1, p, r = (np.where(predicted_no_answer, forced, x) for x in (em, f1, p, r))
    best_exact, best_exact_thresh = _best_thresh(raw_em, probs, order, has_answer, pred_nonempty, scale)
    best_f1, best_f1_thresh = _best_thresh(raw_f1, probs, order, has_answer, pred_nonempty, scale)
    report: dict[str, float | int] = {"exact": _mean(em, scale), "f1": _mean(f1, scale), "total": len(em)}
    for prefix, mask in (("HasAns", has_answer), ("NoAns", ~has_answer)):
        report[f"{prefix}_exact"] = _mean(em[mask], scale)
        report[f"{prefix}_f1"] = _mean(f1[mask], scale)
        report[f"{prefix}_total"] = int(mask.sum())
    report.update(
        best_exact=best_exact,
        best_exact_thresh=best_exact_thresh,
        best_f1=best_f1,
        best_f1_thresh=best_f1_thresh,
    )
    return (em, f1, p, r), predicted_no_answer, report


def question_order(probs: np.ndarray, prediction_rows: np.ndarray | None) -> np.ndarray:
    """The questions by increasing no-answer probability, ties in prediction-row order (the
    script's dict order; ``None``: the questions' own order, as with plain lists)."""
    if prediction_rows is None:
        return np.argsort(probs, kind="stable")
    order = np.argsort(prediction_rows, kind="stable")
    return order[np.argsort(probs[order], kind="stable")]
