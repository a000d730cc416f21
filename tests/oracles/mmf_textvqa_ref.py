"""Test oracle: TextVQA accuracy as facebookresearch/mmf scores it
(``mmf/utils/m4c_evaluators.py``: ``EvalAIAnswerProcessor`` and ``TextVQAAccuracyEvaluator``).

Written for the test suite from the module's logic, statement by statement: the processor
lower-cases, deletes ``,`` and ``?``, splits ``'s``, strips, turns newlines and tabs into
spaces, strips, then runs the VQA punctuation rule (with its own comma pattern
``(?<=\\d)(\\,)+(?=\\d)``) and the digit/article/contraction rule; the evaluator scores each
*unique* processed human answer by the leave-one-out mean over ``(index, answer)`` pairs and
gives the prediction the score of its unique answer (0 when absent), asserting 10 answers.
The answer tables come from :mod:`tests.oracles.vqa_eval_ref` (mmf's are the same 120
contractions and 12 number words; ``tests/metrics/test_vqa_accuracy_parity.py`` checks the
processor on its own too).
"""

from __future__ import annotations

import re
from typing import Any

from .vqa_eval_ref import ARTICLES, CONTRACTIONS, MANUAL_MAP, PERIOD_STRIP, PUNCT

__all__ = ["EvalAIAnswerProcessor", "answer_scores", "evaluate"]

COMMA_STRIP = re.compile(r"(?<=\d)(\,)+(?=\d)")


class EvalAIAnswerProcessor:
    def __init__(self) -> None:
        self.number_map = dict(MANUAL_MAP)  # grown by setdefault, as in mmf

    def word_tokenize(self, word: str) -> str:
        word = word.lower()
        word = word.replace(",", "").replace("?", "").replace("'s", " 's")
        return word.strip()

    def process_punctuation(self, in_text: str) -> str:
        out_text = in_text
        for p in PUNCT:
            if (p + " " in in_text or " " + p in in_text) or (re.search(COMMA_STRIP, in_text) is not None):
                out_text = out_text.replace(p, "")
            else:
                out_text = out_text.replace(p, " ")
        return PERIOD_STRIP.sub("", out_text, re.UNICODE)

    def process_digit_article(self, in_text: str) -> str:
        out_text = []
        for word in in_text.lower().split():
            word = self.number_map.setdefault(word, word)
            if word not in ARTICLES:
                out_text.append(word)
        for word_id, word in enumerate(out_text):
            if word in CONTRACTIONS:
                out_text[word_id] = CONTRACTIONS[word]
        return " ".join(out_text)

    def __call__(self, item: str) -> str:
        item = self.word_tokenize(item)
        item = item.replace("\n", " ").replace("\t", " ").strip()
        item = self.process_punctuation(item)
        return self.process_digit_article(item)


def answer_scores(processor: EvalAIAnswerProcessor, raw_answers: list[str]) -> dict[str, float]:
    """``TextVQAAccuracyEvaluator._compute_answer_scores``."""
    answers = [processor(a) for a in raw_answers]
    assert len(answers) == 10
    gt_answers = list(enumerate(answers))
    scores = {}
    for unique_answer in set(answers):
        accs = []
        for gt_answer in gt_answers:
            other_answers = [item for item in gt_answers if item != gt_answer]
            matching_answers = [item for item in other_answers if item[1] == unique_answer]
            accs.append(min(1, float(len(matching_answers)) / 3))
        scores[unique_answer] = sum(accs) / len(accs)
    return scores


def evaluate(pred_list: list[dict[str, Any]]) -> tuple[list[float], float]:
    """``TextVQAAccuracyEvaluator.eval_pred_list``: per entry ``{"pred_answer", "gt_answers"}``,
    returns (the per-question scores, the accuracy)."""
    processor = EvalAIAnswerProcessor()
    pred_scores = []
    for entry in pred_list:
        pred_answer = processor(entry["pred_answer"])
        unique_answer_scores = answer_scores(processor, entry["gt_answers"])
        pred_scores.append(unique_answer_scores.get(pred_answer, 0.0))
    return pred_scores, sum(pred_scores) / len(pred_scores)
