"""Bad input to VQA accuracy and relaxed accuracy: a TypeError or ValueError that names the
metric, the argument and the row, and the caller's data left as it was."""

from __future__ import annotations

import copy
import math

import pytest

from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy
from metricore.metrics.vqa_accuracy import compute_vqa_accuracy

TEN = ["a"] * 10


def _raises(fn, metric, error, pattern, *args, **kwargs):
    before = copy.deepcopy((args, kwargs))
    with pytest.raises(error, match=pattern) as info:
        fn(*args, **kwargs)
    assert str(info.value).startswith(f"{metric}: "), "the message names the metric"
    assert (args, kwargs) == before, "the inputs were modified"


@pytest.mark.parametrize(
    ("preds", "refs", "kwargs", "error", "pattern"),
    [
        ("abc", [TEN], {}, TypeError, "`predictions` must be a list"),
        (["a"], TEN, {}, ValueError, "1 predictions but 10 references"),
        ([], [], {}, ValueError, "`predictions` is empty"),
        (["a", 3], [TEN, TEN], {}, TypeError, r"`predictions\[1\]` must be a str, got int"),
        (["a", None], [TEN, TEN], {}, TypeError, r"`predictions\[1\]` must be a str"),
        (["a", "b"], [TEN, []], {}, ValueError, r"`references\[1\]` has no human answers \(empty list\)"),
        (
            ["a", "b"],
            [TEN, ["a", 5]],
            {},
            TypeError,
            r"`references\[1\]\[1\]` must be a str \(a human answer\), got int",
        ),
        (["a", "b"], [TEN, 7], {}, TypeError, r"`references\[1\]` must be a list of human answers"),
        (["a"], [{"answer": "a"}], {}, ValueError, r"`references\[0\]` is a dict without an 'answers' key"),
        (["a"], [{"answers": []}], {}, ValueError, r"`references\[0\]` has no human answers"),
        (["a"], [{"answers": "a b"}], {}, None, None),  # a bare str is one answer (scored, with a warning)
        (["a"], [{"answers": 3}], {}, TypeError, r"`references\[0\]\['answers'\]` must be a list"),
        (
            ["a"],
            [{"answers": ["a", None]}],
            {},
            TypeError,
            r"`references\[0\]\['answers'\]\[1\]` must be a str",
        ),
        (
            ["a"],
            [{"answers": [{"id": 1}]}],
            {},
            ValueError,
            r"`references\[0\]\['answers'\]\[0\]` is a dict without an 'answer' key",
        ),
        (
            ["a"],
            [{"answers": [{"answer": 1}]}],
            {},
            TypeError,
            r"`references\[0\]\['answers'\]\[0\]\['answer'\]` must be a str",
        ),
        (
            ["a"],
            [{"answers": TEN, "answer_type": 1}],
            {},
            TypeError,
            r"`references\[0\]\['answer_type'\]` must be a str",
        ),
        (
            ["a"],
            [{"answers": TEN, "question_type": ["x"]}],
            {},
            TypeError,
            r"`references\[0\]\['question_type'\]` must be a str",
        ),
        (
            ["a", "b"],
            [{"answers": TEN}, {"answers": TEN, "answer_type": "other"}],
            {},
            ValueError,
            r"`references\[0\]` has no answer_type but `references\[1\]` has one",
        ),
        (["a", "b"], [TEN, TEN], {"answer_types": ["x"]}, ValueError, "got 1 answer_types for 2 predictions"),
        (
            ["a", "b"],
            [TEN, TEN],
            {"question_types": ["x", "y", "z"]},
            ValueError,
            "got 3 question_types for 2",
        ),
        (
            ["a", "b"],
            [TEN, TEN],
            {"answer_types": ["x", None]},
            TypeError,
            r"`answer_types\[1\]` must be a str",
        ),
        (["a"], [TEN], {"answer_types": "x"}, TypeError, "`answer_types` must be a list"),
        (
            ["a"],
            [TEN],
            {"variant": "vqav3"},
            ValueError,
            "unknown variant 'vqav3'; allowed: 'vqav2', 'vqav2_2017', 'textvqa'",
        ),
    ],
)
def test_vqa_bad_input(preds, refs, kwargs, error, pattern):
    if error is None:
        with pytest.warns(UserWarning, match="fewer than 4"):
            assert compute_vqa_accuracy(preds, refs, **kwargs).scores == [0.0]
        return
    _raises(compute_vqa_accuracy, "vqa_accuracy", error, pattern, preds, refs, **kwargs)


@pytest.mark.parametrize(
    ("preds", "refs", "kwargs", "error", "pattern"),
    [
        (["1", "2"], ["1"], {}, ValueError, "2 predictions but 1 references"),
        ([], [], {}, ValueError, "`predictions` is empty"),
        (["1", 2], ["1", "2"], {}, TypeError, r"`predictions\[1\]` must be a str, got int"),
        (["1", "2"], ["1", 2.0], {}, TypeError, r"`references\[1\]` must be a str or a list of str"),
        (["1", "2"], ["1", ["2", None]], {}, TypeError, r"`references\[1\]\[1\]` must be a str"),
        (["1", "2"], ["1", []], {}, ValueError, r"`references\[1\]` has no answers"),
        (
            ["1"],
            ["1"],
            {"max_relative_change": -0.1},
            ValueError,
            r"`max_relative_change` must be in \[0.0, inf\]",
        ),
        (["1"], ["1"], {"max_relative_change": math.nan}, ValueError, "got nan"),
        (["1"], ["1"], {"max_relative_change": "5%"}, TypeError, "`max_relative_change` must be a number"),
        (["1"], ["1"], {"swapped": 1}, TypeError, "`swapped` must be a bool"),
        (["1"], ["1"], {"lowercase": None}, TypeError, "`lowercase` must be a bool"),
        (
            ["1"],
            ["1"],
            {"variant": "chartqa"},
            ValueError,
            "unknown variant 'chartqa'; allowed: 'pix2struct'",
        ),
    ],
)
def test_relaxed_bad_input(preds, refs, kwargs, error, pattern):
    _raises(compute_relaxed_accuracy, "relaxed_accuracy", error, pattern, preds, refs, **kwargs)


def test_the_spec_refuses_bad_options_before_scoring():
    from metricore.registry import get

    with pytest.raises(
        ValueError, match=r"relaxed_accuracy \(pix2struct\): option `max_relative_change` must be in"
    ):
        get("relaxed_accuracy").bind(max_relative_change=-1)
    with pytest.raises(TypeError, match="unknown option.*'answer_types'"):
        get("vqa_accuracy").bind("vqav2", answer_types=["x"])
