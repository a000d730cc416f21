"""``evaluate.load`` of every metric folder, offline: same numbers as the core, streaming,
errors, signatures, and the caller's data left alone."""

from __future__ import annotations

import copy

import evaluate
import pytest

from metricore import ANLS_VARIANTS, compute_anls, compute_one_minus_ned

DOCVQA = (
    ["CocaCola", "12/15/89", "Dear dr. Lobo", "", "Thomas More"],
    [
        ["Coca Cola", "Coca Cola Company"],
        "12/15/88",
        ["Dear Dr. Lobo", "Dr. Lobo"],
        [""],
        ["  Thomas  Moore "],
    ],
)
STAR = (
    [{"a": "b", "c": "e"}, {"items": ["b", "c"]}, "Hello Wrld", None, [1, 2.5, True]],
    [{"a": "b", "c": "d"}, {"items": ["a", "b", "c"]}, ("Hello World", "Hi"), None, ["1", "2.5", "true"]],
)
DUDE = (
    [["one", "to"], [], "foo", ["Brussels", "x"], "Paris"],
    [
        {"answers": ["one", "two", "three"], "answer_type": "list/extractive"},
        {"answers": [], "answer_type": "not-answerable"},
        [],
        {"answers": ["Brussels"], "answer_type": "extractive"},
        ["paris", "Paris, France"],
    ],
)
DATA = {"docvqa": DOCVQA, "stvqa_paper": DOCVQA, "anls_star": STAR, "dude": DUDE}


@pytest.mark.parametrize("variant", list(ANLS_VARIANTS))
def test_anls_evaluate_equals_core(variant):
    preds, refs = DATA[variant]
    before = copy.deepcopy((preds, refs))
    metric = evaluate.load("metrics/anls", variant)
    got = metric.compute(predictions=preds, references=refs, threshold=0.4)
    want = compute_anls(preds, refs, variant=variant, threshold=0.4)
    assert got["scores"] == want.scores
    assert got["anls"] == pytest.approx(want.anls, abs=1e-12)
    assert got["signature"] == want.signature == f"anls|variant:{variant}|threshold:0.4|version:0.1.0"
    assert (preds, refs) == before, "the caller's inputs were modified"


def test_anls_default_config_is_docvqa():
    metric = evaluate.load("metrics/anls")
    got = metric.compute(predictions=["ab"], references=[["ac   "]])
    assert got == {"anls": 0.8, "scores": [0.8], "signature": "anls|variant:docvqa|version:0.1.0"}


@pytest.mark.parametrize("variant", ["docvqa", "anls_star", "dude"])
def test_anls_streaming_equals_one_shot(variant):
    preds, refs = DATA[variant]
    metric = evaluate.load("metrics/anls", variant)
    metric.add_batch(predictions=preds[:2], references=refs[:2])
    metric.add(prediction=preds[2], reference=refs[2])
    metric.add_batch(predictions=preds[3:], references=refs[3:])
    streamed = metric.compute()
    assert streamed["scores"] == compute_anls(preds, refs, variant=variant).scores


def test_anls_errors_name_the_absolute_row():
    metric = evaluate.load("metrics/anls")
    metric.add_batch(predictions=["a", "b"], references=["a", "b"])
    with pytest.raises(TypeError, match=r"predictions\[3\]"):
        metric.add_batch(predictions=["c", 7], references=["c", "d"])
    with pytest.raises(ValueError, match=r"references\[2\]"):
        metric.add_batch(predictions=["c"], references=[[]])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"predictions": ["a", "b"], "references": ["a"]}, ValueError, "2 predictions but 1 references"),
        ({"predictions": [], "references": []}, ValueError, "empty"),
        ({"predictions": "abc", "references": ["a", "b", "c"]}, TypeError, "`predictions` must be a list"),
        ({"predictions": [None], "references": ["a"]}, TypeError, r"predictions\[0\]"),
        ({"predictions": ["a"], "references": [["a", None]]}, TypeError, r"references\[0\]\[1\]"),
        ({"predictions": ["a"], "references": ["a"], "thresh": 0.5}, TypeError, r"unknown option\(s\)"),
        ({"predictions": ["a"], "references": ["a"], "threshold": 1.5}, ValueError, r"threshold"),
    ],
)
def test_anls_bad_input(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        evaluate.load("metrics/anls").compute(**kwargs)


def test_anls_star_rejects_prediction_tuples_and_unknown_types():
    metric = evaluate.load("metrics/anls", "anls_star")
    with pytest.raises(ValueError, match=r"predictions\[0\].*Tuples are reserved"):  # as anls-star raises it
        metric.compute(predictions=[("a", "b")], references=["a"])
    with pytest.raises(TypeError, match=r"references\[1\]"):
        metric.compute(predictions=["a", "b"], references=["a", {"k": object()}])


def test_unknown_config_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: 'docvqa', 'stvqa_paper', 'anls_star', 'dude'"):
        evaluate.load("metrics/anls", "docvq")


def test_one_minus_ned_evaluate_equals_core():
    preds = ["хор", "abd", "sitting", "", "ＡＢＣ", "colour"]
    refs = ["хор", "abc", "kitten", "", "abc", ["color", "colour"]]
    metric = evaluate.load("metrics/one_minus_ned")
    for options in ({}, {"empty_pair": "one", "lowercase": True, "nfkc": True}):
        got = metric.compute(predictions=preds, references=refs, **options)
        want = compute_one_minus_ned(preds, refs, **options)
        assert got == want.as_dict()
    with pytest.raises(ValueError, match="empty_pair"):
        metric.compute(predictions=["a"], references=["a"], empty_pair="maybe")


@pytest.mark.parametrize(
    ("name", "core"), [("anls", compute_anls), ("one_minus_ned", compute_one_minus_ned)], ids=["anls", "ned"]
)
@pytest.mark.parametrize(
    "refs",
    [
        ["Coca Cola", "abc", "", "kitten"],  # bare golds: stored as one-element lists
        [["Coca Cola"], ["abc"], [""], ["kitten"]],
        [["Coca Cola"], ["abc", "abd"], [""], ["kitten"]],  # one row with several golds
        [["Coca Cola", "x"], "abc", [""], ["kitten"]],
    ],
    ids=["bare", "one-each", "one-row-several", "first-row-several"],
)
def test_one_or_several_golds_per_row_score_as_the_core(name, core, refs):
    # the adapters hand the core bare golds when every stored row holds one (see single_golds)
    preds = ["CocaCola", "abd", "", "sitting"]
    metric = evaluate.load(f"metrics/{name}")
    metric.add_batch(predictions=preds[:2], references=refs[:2])
    metric.add(prediction=preds[2], reference=refs[2])
    got = metric.compute(predictions=preds[3:], references=refs[3:])
    assert got == core(preds, refs).as_dict()
