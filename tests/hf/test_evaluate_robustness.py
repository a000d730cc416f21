"""The ``evaluate`` path on input the core accepts or refuses (issue 17): option values are
checked before the added rows are consumed, lone surrogates are named by row (or stored
losslessly for structured answers), deep structures give a ValueError, not RecursionError."""

from __future__ import annotations

import sys

import evaluate
import pytest

from metricore import compute_anls
from metricore.core.structured import MAX_DEPTH

sys.modules.setdefault("transformers.pipelines", None)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def anls():
    return evaluate.load("metrics/anls")


@pytest.fixture(scope="module")
def anls_star():
    return evaluate.load("metrics/anls", "anls_star")


def test_a_bad_option_value_keeps_the_added_rows(anls):
    anls.add_batch(predictions=["CocaCola", "x"], references=[["Coca Cola"], ["x"]])
    with pytest.raises(ValueError, match=r"option `threshold` must be in \[0, 1\], got 2"):
        anls.compute(threshold=2)
    with pytest.raises(TypeError, match=r"threshold.*must be a number"):
        anls.compute(threshold="high")
    # the retry still has both rows
    got = anls.compute(threshold=0.5)
    assert got["scores"] == pytest.approx(compute_anls(["CocaCola", "x"], [["Coca Cola"], ["x"]]).scores)


def test_a_lone_surrogate_is_refused_in_add_batch_naming_the_row(anls):
    anls.add_batch(predictions=["a", "b"], references=[["a"], ["b"]])
    with pytest.raises(ValueError, match=r"^anls: `predictions\[3\]` contains a lone surrogate"):
        anls.add_batch(predictions=["c", "d\ud800"], references=[["c"], ["d"]])
    with pytest.raises(ValueError, match=r"^anls: `references\[2\]\` contains a lone surrogate"):
        anls.add(prediction="e", reference=["\udfffe"])
    assert anls.compute()["scores"] == [1.0, 1.0]  # the refused rows were not cached


@pytest.mark.parametrize(
    ("name", "preds", "refs", "where"),
    [
        ("anls", ["a", "b", "c"], [["a"], ["b", "x\udc00"], ["c"]], r"references\[1\]"),
        ("one_minus_ned", ["a", "b", "c"], ["a", "b", "c\ud800"], r"references\[2\]"),
        ("one_minus_ned", ["a", "\ud800", "c"], ["a", "b", "c"], r"predictions\[1\]"),
    ],
)
def test_a_lone_surrogate_in_the_first_batch_is_named_and_nothing_is_cached(name, preds, refs, where):
    # the Arrow conversion of the first batch finds the surrogate: the error names the row, and
    # the module has started no cache, so a clean retry scores only the retried rows
    module = evaluate.load(f"metrics/{name}")
    with pytest.raises(ValueError, match=rf"^{name}: `{where}` contains a lone surrogate"):
        module.add_batch(predictions=preds, references=refs)
    assert module.writer is None and len(module) == 0
    assert module.compute(predictions=["a"], references=["a"])["scores"] == [1.0]


def test_a_structured_answer_with_a_surrogate_scores_as_the_core_does(anls_star):
    preds, refs = [{"a": "x\ud800"}, ["y", "\udc00z"]], [{"a": ("x\ud800", "w")}, ["y", "\udc00z"]]
    got = anls_star.compute(predictions=preds, references=refs)
    assert got["scores"] == compute_anls(preds, refs, variant="anls_star").scores == [1.0, 1.0]


def _deep(depth: int):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 600])
def test_a_too_deep_structure_is_a_value_error_naming_the_row(anls_star, depth):
    with pytest.raises(ValueError, match=rf"`predictions\[1\]` is nested more than {MAX_DEPTH} levels"):
        anls_star.compute(predictions=["x", _deep(depth)], references=["x", "x"])
    with pytest.raises(ValueError, match=rf"`references\[0\]` is nested more than {MAX_DEPTH} levels"):
        compute_anls(["x"], [_deep(depth)], variant="anls_star")
