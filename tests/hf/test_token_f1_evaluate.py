"""``evaluate.load("metrics/token_f1", config)`` offline: the core's numbers for every config,
Hugging Face's SQuAD dict format, streaming (``add_batch``/``add``) equal to one-shot
``compute``, and errors that name the absolute row."""

from __future__ import annotations

import copy
import math

import evaluate
import pytest

from metricore import compute_quac, compute_question_level, compute_token_f1
from tests.gen_token_f1 import questions

PREDS, REFS = questions(60, seed=99)
V2_REFS = [g if i % 3 else [] for i, g in enumerate(REFS)]
HF_PREDS = [
    {"id": f"q{i}", "prediction_text": p, "no_answer_probability": (i % 7) / 7} for i, p in enumerate(PREDS)
]
HF_REFS = [
    {"id": f"q{i}", "answers": {"text": g, "answer_start": [0] * len(g)}} for i, g in enumerate(V2_REFS)
]
QL_PREDS = [["Paris", "the Lyon"], [], ["x", "y"], ["Rome"]]
QL_REFS = [["paris", "Nice", "Lyon"], [], ["X"], []]
QUAC_REFS = [
    ["the cat sat on the mat", "cat sat on the mat", "a cat on a mat"],
    ["CANNOTANSWER", "x"],
    ["red", "blue"],
    ["Paris", "in Paris"],
]
QUAC_PREDS = ["cat sat on the mat", "CANNOTANSWER", "red", "Paris"]
QUAC_DIALOGS = ["d1", "d2", "d1", "d3"]
QUAC_ROWS = [{"dialog_id": d, "answers": r} for d, r in zip(QUAC_DIALOGS, QUAC_REFS)]


def _same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for key in got:
        a, b = got[key], want[key]
        if isinstance(a, float) and math.isnan(a):
            assert isinstance(b, float) and math.isnan(b), key
        else:
            assert a == b, key


CASES = {
    "squad": (PREDS, REFS, {}, lambda: compute_token_f1(PREDS, REFS)),
    "squad_v2": (
        PREDS,
        V2_REFS,
        {"no_answer_threshold": 0.5},
        lambda: compute_token_f1(PREDS, V2_REFS, variant="squad_v2", no_answer_threshold=0.5),
    ),
    "mlqa": (
        PREDS,
        REFS,
        {"language": "de"},
        lambda: compute_token_f1(PREDS, REFS, variant="mlqa", language="de"),
    ),
    "question_level": (QL_PREDS, QL_REFS, {}, lambda: compute_question_level(QL_PREDS, QL_REFS)),
    "quac": (
        QUAC_PREDS,
        QUAC_ROWS,
        {"min_human_f1": 0.3},
        lambda: compute_quac(QUAC_PREDS, QUAC_REFS, QUAC_DIALOGS, min_human_f1=0.3),
    ),
}


@pytest.mark.parametrize("config", list(CASES))
def test_each_config_equals_the_core(config):
    preds, refs, kwargs, core = CASES[config]
    before = copy.deepcopy((preds, refs))
    metric = evaluate.load("metrics/token_f1", config)
    got = metric.compute(predictions=preds, references=refs, **kwargs)
    _same(got, core().as_dict())
    assert got["signature"].startswith(f"token_f1|variant:{config}|")
    assert (preds, refs) == before, "the caller's inputs were modified"


@pytest.mark.parametrize("config", list(CASES))
def test_streaming_equals_one_shot(config):
    preds, refs, kwargs, core = CASES[config]
    metric = evaluate.load("metrics/token_f1", config)
    metric.add_batch(predictions=preds[:1], references=refs[:1])
    metric.add(prediction=preds[1], reference=refs[1])
    metric.add_batch(predictions=preds[2:], references=refs[2:])
    _same(metric.compute(**kwargs), core().as_dict())


def test_default_config_is_squad_with_hf_keys():
    metric = evaluate.load("metrics/token_f1")
    got = metric.compute(predictions=["The Cat!", "cat cat cat"], references=[["cat"], "cat"])
    assert (got["exact_match"], got["f1"]) == (50.0, 75.0)
    assert got["scores"] == [1.0, 0.5]  # per-question F1; every per-question number under `columns`
    assert got["columns"] == {
        "exact_match": [1.0, 0.0],
        "f1": [1.0, 0.5],
        "precision": [1.0, 1 / 3],
        "recall": [1.0, 1.0],
    }
    assert got["signature"] == "token_f1|variant:squad|version:0.1.0"
    unit = metric.compute(predictions=["The Cat!"], references=[["cat"]], percent=False)
    assert unit["f1"] == 1.0 and "percent:no" in unit["signature"]


def test_hf_dict_format_squad_and_squad_v2():
    squad = evaluate.load("metrics/token_f1", "squad")
    hf_refs_v1 = [r for r in HF_REFS if r["answers"]["text"]]
    keep = {r["id"] for r in hf_refs_v1}
    hf_preds_v1 = [
        {"id": p["id"], "prediction_text": p["prediction_text"]} for p in HF_PREDS if p["id"] in keep
    ]
    got = squad.compute(predictions=hf_preds_v1[::-1], references=hf_refs_v1)  # matched by id
    _same(got, compute_token_f1(hf_preds_v1, hf_refs_v1).as_dict())
    v2 = evaluate.load("metrics/token_f1", "squad_v2")
    got = v2.compute(predictions=HF_PREDS, references=HF_REFS, no_answer_threshold=0.4)
    want = compute_token_f1(HF_PREDS, HF_REFS, variant="squad_v2", no_answer_threshold=0.4).as_dict()
    _same(got, want)
    assert got["HasAns_total"] + got["NoAns_total"] == got["total"] == len(HF_PREDS)
    assert got["columns"]["id"] == [r["id"] for r in HF_REFS]


def test_hf_dict_format_streams_with_predictions_and_references_in_other_batches():
    v2 = evaluate.load("metrics/token_f1", "squad_v2")
    preds = HF_PREDS[::-1]  # a prediction and its reference land in different batches
    for k in range(0, len(preds), 25):
        v2.add_batch(predictions=preds[k : k + 25], references=HF_REFS[k : k + 25])
    # same prediction order as the rows added (best_f1 visits tied probabilities in that order)
    _same(v2.compute(), compute_token_f1(preds, HF_REFS, variant="squad_v2").as_dict())


def test_errors_name_the_absolute_row_and_formats_do_not_mix():
    metric = evaluate.load("metrics/token_f1")
    metric.add_batch(predictions=["x", "y"], references=[["x"], "y"])
    with pytest.raises(TypeError, match=r"predictions\[3\]"):
        metric.add_batch(predictions=["c", 7], references=["c", "d"])
    with pytest.raises(ValueError, match=r"references\[2\]` has no answers"):
        metric.add_batch(predictions=["c"], references=[[]])
    with pytest.raises(ValueError, match="use one format per computation"):
        metric.add_batch(predictions=HF_PREDS[:1], references=HF_REFS[1:2])
    assert metric.compute()["f1"] == 100.0

    v2 = evaluate.load("metrics/token_f1", "squad_v2")
    with pytest.raises(ValueError, match=r"predictions\[1\]: the id 'q0' repeats"):
        v2.compute(predictions=[HF_PREDS[0], HF_PREDS[0]], references=HF_REFS[:2])
    with pytest.raises(TypeError, match=r"`references\[1\]` must be a dict in the SQuAD format"):
        v2.add_batch(predictions=HF_PREDS[:2], references=[HF_REFS[0], ["x"]])


def test_config_keywords_and_quac_rows_are_checked():
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'language'"):
        evaluate.load("metrics/token_f1", "squad").compute(
            predictions=["a"], references=[["a"]], language="en"
        )
    with pytest.raises(TypeError, match="option `language` is required"):
        evaluate.load("metrics/token_f1", "mlqa").compute(predictions=["a"], references=[["a"]])
    quac = evaluate.load("metrics/token_f1", "quac")
    with pytest.raises(TypeError, match=r"`references\[0\]` must be a dict \{'dialog_id'"):
        quac.add_batch(predictions=["a"], references=[["a"]])
    with pytest.raises(TypeError, match=r"`references\[0\]\['dialog_id'\]` must be a str"):
        quac.add_batch(predictions=["a"], references=[{"dialog_id": 3, "answers": ["a"]}])
    with pytest.raises(ValueError, match="unknown config 'squad3'"):
        evaluate.load("metrics/token_f1", "squad3")
