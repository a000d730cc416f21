"""Properties of VQA accuracy and relaxed accuracy: the leave-one-out formula, aggregation,
order, the result protocol, statistics and explain texts."""

from __future__ import annotations

import copy
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore.intervals import headline_statistics
from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy, relaxed_number
from metricore.metrics.vqa_accuracy import VQA_VARIANTS, compute_vqa_accuracy, leave_one_out_score
from metricore.registry import get
from tests.gen_vqa import vqa_questions

TEN = {0: 0.0, 1: 0.3, 2: 0.6, 3: 0.9, 4: 1.0}


@pytest.mark.parametrize("k", range(11))
def test_ten_answers_score_by_matches(k):
    answers = ["cat"] * k + ["dog"] * (10 - k)
    for variant in VQA_VARIANTS:
        r = compute_vqa_accuracy(["cat"], [answers], variant=variant)
        assert r.scores[0] == pytest.approx(TEN.get(k, 1.0), abs=1e-15) and r.matches == [k]


@settings(max_examples=200, deadline=None)
@given(hits=st.lists(st.booleans(), min_size=1, max_size=16))
def test_the_score_depends_on_the_count_only(hits):
    n, k = len(hits), sum(hits)
    want = (k * min(1.0, (k - 1) / 3) + (n - k) * min(1.0, k / 3)) / n
    assert leave_one_out_score(hits) == pytest.approx(want, abs=1e-15)
    assert 0.0 <= leave_one_out_score(hits) <= 1.0


@pytest.mark.filterwarnings("ignore:vqa_accuracy.*fewer than 4")
def test_many_answers_use_the_row_key_path():
    answers = ["a"] * 40 + ["b"] * 30
    r = compute_vqa_accuracy(["a", "b", "c"], [answers, answers, answers])
    assert r.scores == [leave_one_out_score([x == "a" for x in answers]), 1.0, 0.0]


def test_few_answers_are_scored_with_a_warning():
    with pytest.warns(UserWarning, match=r"2 question\(s\) have fewer than 4 human answers"):
        r = compute_vqa_accuracy(["a", "a", "a"], [["a"], ["a"] * 3, ["a"] * 10])
    assert r.scores == [0.0, pytest.approx(2 / 3), 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compute_vqa_accuracy(["a"], [["a"] * 4])


@pytest.mark.parametrize("variant", list(VQA_VARIANTS))
def test_aggregates_and_order(variant):
    preds, refs, a_types, q_types = vqa_questions(400, seed=3)
    before = copy.deepcopy((preds, refs, a_types, q_types))
    r = compute_vqa_accuracy(preds, refs, variant=variant, answer_types=a_types, question_types=q_types)
    assert (preds, refs, a_types, q_types) == before, "the inputs were modified"
    assert r.accuracy == pytest.approx(np.mean(r.scores), abs=1e-12)
    for t, mean in r.accuracy_per_answer_type.items():
        assert mean == pytest.approx(np.mean([s for s, x in zip(r.scores, a_types) if x == t]), abs=1e-12)
    assert list(r.accuracy_per_answer_type) == list(dict.fromkeys(a_types))  # first appearance
    for t, mean in r.accuracy_per_question_type.items():
        assert mean == pytest.approx(np.mean([s for s, x in zip(r.scores, q_types) if x == t]), abs=1e-12)
    order = np.random.default_rng(0).permutation(len(preds))
    shuffled = compute_vqa_accuracy(
        [preds[i] for i in order],
        [refs[i] for i in order],
        variant=variant,
        answer_types=[a_types[i] for i in order],
    )
    assert shuffled.scores == [r.scores[i] for i in order]
    # the answers' order changes at most the last bit of a score
    flipped = compute_vqa_accuracy(preds, [list(reversed(a)) for a in refs], variant=variant)
    assert np.allclose(flipped.scores, r.scores, rtol=0, atol=1e-15)


def test_result_protocol_and_dict():
    refs = [
        {"answers": ["yes"] * 10, "answer_type": "yes/no", "question_type": "is"},
        {"answers": ["2"] * 3 + ["3"] * 7, "answer_type": "number", "question_type": "how many"},
    ]
    r = compute_vqa_accuracy(["yes", "2"], refs)
    assert r.headline() == {"accuracy": 0.95, "accuracy_yes/no": 1.0, "accuracy_number": 0.9}
    assert type(r).headline_info("accuracy_number").higher_is_better is True
    out = r.as_dict()
    assert json.loads(json.dumps(out)) == out
    assert out["official"] == {
        "overall": 95.0,
        "perAnswerType": {"yes/no": 100.0, "number": 90.0},
        "perQuestionType": {"is": 100.0, "how many": 90.0},
    }
    assert (
        out["columns"] == {"matches": [10, 3]}
        and out["signature"] == "vqa_accuracy|variant:vqav2|version:0.1.0"
    )
    assert [(x["prediction"], x["score"], x["matches"]) for x in r.per_item()] == [
        ("yes", 1.0, 10),
        ("2", 0.9, 3),
    ]


def test_statistics_match_the_headline():
    preds, refs, a_types, _ = vqa_questions(300, seed=5)
    r = compute_vqa_accuracy(preds, refs, answer_types=a_types)
    stats = headline_statistics(r)
    assert set(stats) == set(r.headline())
    for key, value in r.headline().items():
        assert stats[key].value() == pytest.approx(value, abs=1e-12)
    rr = compute_relaxed_accuracy(["1", "2"], ["1", "3"])
    assert headline_statistics(rr)["relaxed_accuracy"].value() == 0.5


def test_registry_runs_explains_and_costs():
    for name in ("vqa_accuracy", "relaxed_accuracy"):
        spec = get(name)
        for e in spec.examples:
            config = spec.config(e.config).name
            r = spec.run(e.config, e.predictions, e.references, **e.options)
            why = spec.explain(config, e.predictions, e.references, dict(e.options), r)
            assert len(why) == len(r.scores) and all(why)
            assert spec.cost(config, e.predictions, e.references, dict(e.options)) > 0
    small = get("vqa_accuracy").cost("vqav2", ["a"], [["a"] * 10], {})
    large = get("vqa_accuracy").cost("vqav2", ["a" * 50] * 100, [["b" * 50] * 10] * 100, {})
    assert large > 50 * small


def test_explain_says_why():
    spec = get("vqa_accuracy")
    r = spec.run("vqav2", ["Yes", "Two dogs."], [["yes"] * 10, ["2 dogs"] * 3 + ["dogs"] * 7])
    why = spec.explain("vqav2", ["Yes", "Two dogs."], [["yes"] * 10, ["2 dogs"] * 3 + ["dogs"] * 7], {}, r)
    assert "compared as 'Yes'" in why[0] and "0 of 10" in why[0] and "all human answers equal" in why[0]
    assert "compared as '2 dogs'" in why[1] and "3 of 10" in why[1] and "= 0.9" in why[1]
    rel = get("relaxed_accuracy")
    preds, golds = ["10.4", "0.0", "abc", "12", "0"], ["10", "0", "x", "twelve", "1"]
    texts = rel.explain("pix2struct", preds, golds, {}, rel.run(None, preds, golds))
    assert texts[0].startswith("correct: |10.4 - 10| / |10| = 0.04")
    assert texts[1].startswith("wrong: the gold is 0, so compared as text")
    assert "neither is a number" in texts[2] and "'twelve' is not a number" in texts[3]
    assert texts[4].startswith("wrong: |0 - 1| / |1| = 1")
    swapped = rel.explain("pix2struct", ["0"], ["1"], {}, rel.run(None, ["0"], ["1"], swapped=True))
    assert swapped[0].startswith("wrong: the prediction is 0")


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    pred=st.text(max_size=8),
    golds=st.lists(st.text(max_size=8), min_size=1, max_size=3),
    tol=st.floats(0, 2),
)
def test_relaxed_properties(pred, golds, tol):
    r = compute_relaxed_accuracy([pred], [golds], max_relative_change=tol)
    assert r.scores[0] in (0.0, 1.0)
    # a wider tolerance never rejects what a narrower one accepts
    assert compute_relaxed_accuracy([pred], [golds], max_relative_change=tol + 0.5).scores[0] >= r.scores[0]
    # the prediction as a gold is correct, unless it reads as NaN or infinity (their relative
    # change is NaN, and NaN <= tolerance is false, as in the reference)
    number = relaxed_number(pred)
    if number is None or math.isfinite(number):
        assert compute_relaxed_accuracy([pred], [[*golds, pred]]).scores == [1.0]
    # adding a gold never lowers the score
    assert (
        compute_relaxed_accuracy([pred], [[*golds, "zz"]], max_relative_change=tol).scores[0] >= r.scores[0]
    )
