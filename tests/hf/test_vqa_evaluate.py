"""``evaluate.load`` of ``metrics/vqa_accuracy`` and ``metrics/relaxed_accuracy``, offline:
the core's numbers, streaming, records with types, errors naming the absolute row, and the
caller's data left alone."""

from __future__ import annotations

import copy

import evaluate
import pytest

from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy
from metricore.metrics.vqa_accuracy import VQA_VARIANTS, compute_vqa_accuracy
from tests.gen_vqa import chart_answers, vqa_questions

PREDS, REFS, A_TYPES, Q_TYPES = vqa_questions(60, seed=2)
RECORDS = [{"answers": r, "answer_type": a, "question_type": q} for r, a, q in zip(REFS, A_TYPES, Q_TYPES)]


@pytest.mark.parametrize("variant", list(VQA_VARIANTS))
def test_vqa_evaluate_equals_core(variant):
    before = copy.deepcopy((PREDS, REFS, RECORDS))
    metric = evaluate.load("metrics/vqa_accuracy", variant)
    got = metric.compute(predictions=PREDS, references=REFS)
    assert got == compute_vqa_accuracy(PREDS, REFS, variant=variant).as_dict()
    got = metric.compute(predictions=PREDS, references=RECORDS)
    want = compute_vqa_accuracy(PREDS, REFS, variant=variant, answer_types=A_TYPES, question_types=Q_TYPES)
    assert got == want.as_dict() and "accuracy_yes/no" in got and "per_question_type" in got
    assert (PREDS, REFS, RECORDS) == before, "the caller's inputs were modified"


def test_vqa_default_config_is_vqav2():
    got = evaluate.load("metrics/vqa_accuracy").compute(predictions=["Yes"], references=[["yes"] * 10])
    assert got["scores"] == [0.0] and got["signature"] == "vqa_accuracy|variant:vqav2|version:0.1.0"


def test_vqa_streaming_equals_one_shot():
    metric = evaluate.load("metrics/vqa_accuracy")
    metric.add_batch(predictions=PREDS[:20], references=RECORDS[:20])
    metric.add(prediction=PREDS[20], reference=RECORDS[20])
    metric.add_batch(predictions=PREDS[21:], references=RECORDS[21:])
    streamed = metric.compute()
    assert streamed == compute_vqa_accuracy(PREDS, RECORDS).as_dict()


def test_vqa_errors_name_the_absolute_row():
    metric = evaluate.load("metrics/vqa_accuracy")
    metric.add_batch(predictions=["a", "b"], references=[["a"] * 10, ["b"] * 10])
    with pytest.raises(TypeError, match=r"`predictions\[3\]` must be a str"):
        metric.add_batch(predictions=["c", 7], references=[["c"] * 10, ["d"] * 10])
    with pytest.raises(ValueError, match=r"`references\[2\]` has no human answers"):
        metric.add_batch(predictions=["c"], references=[[]])
    with pytest.raises(TypeError, match=r"`references\[2\]\['answer_type'\]` must be a str"):
        metric.add(prediction="c", reference={"answers": ["c"] * 10, "answer_type": 3})
    with pytest.raises(TypeError, match="unknown option.*answer_types"):
        metric.compute(answer_types=["x", "y"])


def test_vqa_mixed_type_presence_is_refused_at_compute():
    metric = evaluate.load("metrics/vqa_accuracy")
    metric.add_batch(
        predictions=["a", "b"], references=[["a"] * 10, {"answers": ["b"] * 10, "answer_type": "other"}]
    )
    with pytest.raises(
        ValueError, match=r"`references\[0\]` has no answer_type but `references\[1\]` has one"
    ):
        metric.compute()


def test_vqa_interval_of_each_answer_type():
    got = evaluate.load("metrics/vqa_accuracy").compute(
        predictions=PREDS, references=RECORDS, confidence=0.9, n_resamples=200, seed=1
    )
    for key in ("accuracy", "accuracy_yes/no", "accuracy_number", "accuracy_other"):
        assert got[f"{key}_ci_low"] <= got[key] <= got[f"{key}_ci_high"]


@pytest.mark.parametrize(
    "options", [{}, {"swapped": True, "strip": True}, {"max_relative_change": 0.1, "number_commas": True}]
)
def test_relaxed_evaluate_equals_core(options):
    preds, refs = chart_answers(80, seed=4)
    before = copy.deepcopy((preds, refs))
    metric = evaluate.load("metrics/relaxed_accuracy")
    metric.add_batch(predictions=preds[:30], references=refs[:30])
    got = metric.compute(predictions=preds[30:], references=refs[30:], **options)
    assert got == compute_relaxed_accuracy(preds, refs, **options).as_dict()
    assert (preds, refs) == before


def test_relaxed_errors():
    metric = evaluate.load("metrics/relaxed_accuracy")
    with pytest.raises(TypeError, match=r"`references\[1\]\[0\]` must be a str"):
        metric.add_batch(predictions=["1", "2"], references=["1", [2]])
    with pytest.raises(ValueError, match="option `max_relative_change` must be in"):
        metric.compute(predictions=["1"], references=["1"], max_relative_change=-0.5)
