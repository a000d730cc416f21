"""Test oracle: the official SQuAD v1.1 and v2.0 evaluation logic, in plain Python.

Written for the test suite from the official scripts' logic (``evaluate-v1.1.py`` and
``evaluate-v2.0.py``, rajpurkar.github.io/SQuAD-explorer; Hugging Face ``evaluate`` embeds
the same functions in ``metrics/squad/compute_score.py`` and ``metrics/squad_v2``): per-pair
functions called once per (prediction, gold), a ``Counter`` intersection, dict-based loops,
nothing shared with ``metricore``. It is also the "official loop" of the benchmark.

Data shapes follow the scripts: a question is ``{"id": str, "answers": [str, ...]}``,
predictions are ``{id: str}``, no-answer probabilities ``{id: float}``.
"""

from __future__ import annotations

import re
import string
from collections import Counter

__all__ = [
    "normalize_answer",
    "f1_v1",
    "exact_v1",
    "evaluate_v1",
    "question_v1",
    "f1_v2",
    "exact_v2",
    "raw_scores_v2",
    "evaluate_v2",
]

_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """Lowercase, drop ASCII punctuation, replace a/an/the by a space, collapse whitespace."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


# ---------------------------------------------------------------------------- v1.1


def f1_v1(prediction: str, ground_truth: str) -> float:
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(ground_truth).split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_tokens)
    recall = 1.0 * num_same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def exact_v1(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def question_v1(prediction: str, ground_truths: list[str]) -> tuple[float, float]:
    """(EM, F1) of one question: each the max over the gold answers."""
    return (
        max(exact_v1(prediction, g) for g in ground_truths),
        max(f1_v1(prediction, g) for g in ground_truths),
    )


def evaluate_v1(
    questions: list[dict], predictions: dict[str, str], per_question: list | None = None
) -> dict[str, float]:
    """The v1.1 ``evaluate``: questions without a prediction score 0 (and count).

    ``per_question``: if a list is given, each question's ``(EM, F1)`` is appended to it.
    """
    f1 = exact_match = total = 0
    for qa in questions:
        total += 1
        if qa["id"] not in predictions:
            continue
        ground_truths = list(qa["answers"])
        prediction = predictions[qa["id"]]
        em_q = max(exact_v1(prediction, g) for g in ground_truths)
        f1_q = max(f1_v1(prediction, g) for g in ground_truths)
        exact_match += em_q
        f1 += f1_q
        if per_question is not None:
            per_question.append((em_q, f1_q))
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# ---------------------------------------------------------------------------- v2.0


def _tokens_v2(s: str) -> list[str]:
    if not s:
        return []
    return normalize_answer(s).split()


def exact_v2(a_gold: str, a_pred: str) -> int:
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def f1_v2(a_gold: str, a_pred: str) -> float:
    gold_toks = _tokens_v2(a_gold)
    pred_toks = _tokens_v2(a_pred)
    common = Counter(gold_toks) & Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def raw_scores_v2(questions: list[dict], preds: dict[str, str]) -> tuple[dict, dict]:
    exact_scores: dict[str, float] = {}
    f1_scores: dict[str, float] = {}
    for qa in questions:
        qid = qa["id"]
        gold_answers = [a for a in qa["answers"] if normalize_answer(a)]
        if not gold_answers:
            gold_answers = [""]
        if qid not in preds:
            continue
        a_pred = preds[qid]
        exact_scores[qid] = max(exact_v2(a, a_pred) for a in gold_answers)
        f1_scores[qid] = max(f1_v2(a, a_pred) for a in gold_answers)
    return exact_scores, f1_scores


def _apply_no_ans_threshold(scores, na_probs, qid_to_has_ans, thresh):
    out = {}
    for qid, s in scores.items():
        out[qid] = float(not qid_to_has_ans[qid]) if na_probs[qid] > thresh else s
    return out


def _eval_dict(exact_scores, f1_scores, qid_list=None):
    if not qid_list:
        total = len(exact_scores)
        return {
            "exact": 100.0 * sum(exact_scores.values()) / total,
            "f1": 100.0 * sum(f1_scores.values()) / total,
            "total": total,
        }
    total = len(qid_list)
    return {
        "exact": 100.0 * sum(exact_scores[k] for k in qid_list) / total,
        "f1": 100.0 * sum(f1_scores[k] for k in qid_list) / total,
        "total": total,
    }


def _best_thresh(preds, scores, na_probs, qid_to_has_ans):
    num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
    cur_score = num_no_ans
    best_score = cur_score
    best_thresh = 0.0
    qid_list = sorted(na_probs, key=lambda k: na_probs[k])
    for qid in qid_list:
        if qid not in scores:
            continue
        if qid_to_has_ans[qid]:
            diff = scores[qid]
        elif preds[qid]:
            diff = -1
        else:
            diff = 0
        cur_score += diff
        if cur_score > best_score:
            best_score = cur_score
            best_thresh = na_probs[qid]
    return 100.0 * best_score / len(scores), best_thresh


def evaluate_v2(
    questions: list[dict],
    preds: dict[str, str],
    na_probs: dict[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> dict:
    """What HF ``squad_v2`` returns: exact, f1, total, HasAns_*/NoAns_* (only for non-empty
    groups), best_exact(_thresh), best_f1(_thresh), plus, for the tests, the per-question
    thresholded scores under ``_exact_per_question`` / ``_f1_per_question``. ``na_probs``
    iterates in prediction order (HF builds it from the predictions list); default all 0.0."""
    if na_probs is None:
        na_probs = {k: 0.0 for k in preds}
    qid_to_has_ans = {qa["id"]: bool(qa["answers"]) for qa in questions}
    has_ans = [k for k, v in qid_to_has_ans.items() if v]
    no_ans = [k for k, v in qid_to_has_ans.items() if not v]
    exact_raw, f1_raw = raw_scores_v2(questions, preds)
    exact_t = _apply_no_ans_threshold(exact_raw, na_probs, qid_to_has_ans, na_prob_thresh)
    f1_t = _apply_no_ans_threshold(f1_raw, na_probs, qid_to_has_ans, na_prob_thresh)
    out = _eval_dict(exact_t, f1_t)
    if has_ans:
        for k, v in _eval_dict(exact_t, f1_t, qid_list=has_ans).items():
            out[f"HasAns_{k}"] = v
    if no_ans:
        for k, v in _eval_dict(exact_t, f1_t, qid_list=no_ans).items():
            out[f"NoAns_{k}"] = v
    out["best_exact"], out["best_exact_thresh"] = _best_thresh(preds, exact_raw, na_probs, qid_to_has_ans)
    out["best_f1"], out["best_f1_thresh"] = _best_thresh(preds, f1_raw, na_probs, qid_to_has_ans)
    out["_exact_per_question"] = exact_t
    out["_f1_per_question"] = f1_t
    return out
