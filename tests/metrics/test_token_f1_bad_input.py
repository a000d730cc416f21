"""Bad input to the token-F1 family: a TypeError or ValueError that names the argument and the
index (or the id, for the SQuAD dict format), and the caller's data left as it was."""

from __future__ import annotations

import copy
import math

import pytest

from metricore import (
    compute_quac,
    compute_question_level,
    compute_token_f1,
    parse_squad_records,
    token_scores,
)

HF_P = [{"id": "a", "prediction_text": "x"}, {"id": "b", "prediction_text": "y"}]
HF_R = [
    {"id": "a", "answers": {"text": ["x"], "answer_start": [0]}},
    {"id": "b", "answers": {"text": ["y"], "answer_start": [0]}},
]


def _raises(error, pattern, fn, *args, **kwargs):
    before = copy.deepcopy((args, kwargs))
    with pytest.raises(error, match=pattern) as info:
        fn(*args, **kwargs)
    assert str(info.value).startswith("token_f1: "), "the message names the metric"
    assert (args, kwargs) == before, "the inputs were modified"


@pytest.mark.parametrize(
    ("preds", "refs", "kwargs", "error", "pattern"),
    [
        ("abc", [["a"]], {}, TypeError, "`predictions` must be a list"),
        (["a"], "a", {}, TypeError, "`references` must be a list"),
        (["a", "b"], [["a"]], {}, ValueError, "2 predictions but 1 references"),
        ([], [], {}, ValueError, "`predictions` is empty"),
        (["a", 3], [["a"], ["b"]], {}, TypeError, r"`predictions\[1\]` must be a str, got int"),
        (["a", ["b"]], [["a"], ["b"]], {}, TypeError, r"`predictions\[1\]` must be a str, got list"),
        (["a", None], [["a"], ["b"]], {}, TypeError, r"`predictions\[1\]`"),
        (["a", "b"], [["a"], 5], {}, TypeError, r"`references\[1\]` must be a str or a list of str"),
        (["a", "b"], [["a"], ["b", None]], {}, TypeError, r"`references\[1\]\[1\]` must be a str"),
        (["a", "b"], [["a"], []], {}, ValueError, r"`references\[1\]` has no answers"),
        (
            ["a"],
            [["a"]],
            {"variant": "squad3"},
            ValueError,
            "unknown variant 'squad3'; allowed: 'squad', 'squad_v2', 'mlqa'",
        ),
        (["a"], [["a"]], {"variant": "mlqa"}, ValueError, "needs `language`; allowed: 'en'"),
        (["a"], [["a"]], {"variant": "mlqa", "language": "fr"}, ValueError, "unknown language 'fr'"),
        (["a"], [["a"]], {"language": "en"}, ValueError, "only used by the 'mlqa' variant"),
        (["a"], [["a"]], {"no_answer_threshold": 0.5}, ValueError, "only used by 'squad_v2'"),
        (["a"], [["a"]], {"no_answer_probabilities": [0.1]}, ValueError, "only used by 'squad_v2'"),
        (
            ["a"],
            [["a"]],
            {"variant": "squad_v2", "no_answer_threshold": 1.5},
            ValueError,
            r"must be in \[0.0, 1.0\]",
        ),
        (["a"], [["a"]], {"variant": "squad_v2", "no_answer_threshold": math.nan}, ValueError, "got nan"),
        (["a"], [["a"]], {"variant": "squad_v2", "no_answer_threshold": "1"}, TypeError, "must be a number"),
        (
            ["a", "b"],
            [["a"], []],
            {"variant": "squad_v2", "no_answer_probabilities": [0.1]},
            ValueError,
            "got 1 no_answer_probabilities for 2 predictions",
        ),
        (
            ["a", "b"],
            [["a"], []],
            {"variant": "squad_v2", "no_answer_probabilities": [0.1, True]},
            TypeError,
            r"`no_answer_probabilities\[1\]` must be a number",
        ),
        (
            ["a", "b"],
            [["a"], []],
            {"variant": "squad_v2", "no_answer_probabilities": [0.1, -0.5]},
            ValueError,
            r"`no_answer_probabilities\[1\]` must be in",
        ),
        (["a"], [["a"]], {"percent": 1}, TypeError, "`percent` must be a bool"),
    ],
)
def test_plain_input_errors(preds, refs, kwargs, error, pattern):
    _raises(error, pattern, compute_token_f1, preds, refs, **kwargs)


def _hf(preds=None, refs=None):
    return copy.deepcopy(preds if preds is not None else HF_P), copy.deepcopy(
        refs if refs is not None else HF_R
    )


@pytest.mark.parametrize(
    ("mutate", "error", "pattern"),
    [
        (
            lambda p, r: p.__setitem__(1, {"id": "a", "prediction_text": "z"}),
            ValueError,
            r"predictions\[1\]: the id 'a' repeats \(first at predictions\[0\]\)",
        ),
        (
            lambda p, r: r.__setitem__(1, {"id": "a", "answers": {"text": ["x"]}}),
            ValueError,
            r"references\[1\]: the id 'a' repeats \(first at references\[0\]\)",
        ),
        (
            lambda p, r: p.__setitem__(1, {"id": "c", "prediction_text": "y"}),
            ValueError,
            r"references\[1\]: no prediction has the id 'b'",
        ),
        (
            lambda p, r: (
                p.append({"id": "c", "prediction_text": "y"}),
                r.append({"id": "a2", "answers": ["y"]}),
            ),
            ValueError,
            r"no prediction has the id 'a2'",
        ),
        (
            lambda p, r: p.__setitem__(0, {"prediction_text": "x"}),
            ValueError,
            r"`predictions\[0\]` has no 'id'",
        ),
        (
            lambda p, r: p.__setitem__(0, {"id": 7, "prediction_text": "x"}),
            TypeError,
            r"`predictions\[0\]\['id'\]` must be a str",
        ),
        (
            lambda p, r: p.__setitem__(0, {"id": "a"}),
            ValueError,
            r"`predictions\[0\]` \(id 'a'\) has no 'prediction_text'",
        ),
        (
            lambda p, r: p.__setitem__(0, {"id": "a", "prediction_text": 1.5}),
            TypeError,
            r"`predictions\[0\]\['prediction_text'\]` must be a str",
        ),
        (
            lambda p, r: p.__setitem__(1, "y"),
            TypeError,
            r"`predictions\[1\]` must be a dict in the SQuAD format",
        ),
        (
            lambda p, r: r.__setitem__(0, {"id": "a"}),
            ValueError,
            r"`references\[0\]` \(id 'a'\) has no 'answers'",
        ),
        (
            lambda p, r: r.__setitem__(0, {"id": "a", "answers": "x"}),
            TypeError,
            r"`references\[0\]\['answers'\]` must be",
        ),
        (
            lambda p, r: r.__setitem__(0, {"id": "a", "answers": {"answer_start": [0]}}),
            ValueError,
            r"`references\[0\]\['answers'\]` is a dict without a 'text' key",
        ),
        (
            lambda p, r: r.__setitem__(0, {"id": "a", "answers": {"text": ["x", 3]}}),
            TypeError,
            r"`references\[0\]\['answers'\]\['text'\]\[1\]` must be a str",
        ),
        (
            lambda p, r: r.__setitem__(0, {"id": "a", "answers": {"text": []}}),
            ValueError,
            r"`references\[0\]` \(id 'a'\) has no answers",
        ),
    ],
)
def test_squad_dict_errors_name_the_id_or_row(mutate, error, pattern):
    preds, refs = _hf()
    mutate(preds, refs)
    _raises(error, pattern, compute_token_f1, preds, refs)


def test_squad_dict_ids_must_pair_one_to_one():
    preds, refs = _hf()
    preds[1] = {"id": "zz", "prediction_text": "y"}
    with pytest.raises(ValueError, match=r"references\[1\]: no prediction has the id 'b'"):
        compute_token_f1(preds, refs)
    # parse_squad_records (public) also takes columns of different lengths
    preds, refs = _hf()
    preds.append({"id": "zz", "prediction_text": "y"})
    with pytest.raises(
        ValueError,
        match=r"predictions\[2\]: no reference has the id 'zz' \(1 prediction id\(s\) without a reference\)",
    ):
        parse_squad_records(preds, refs)


def test_squad_dict_probability_rules():
    preds, refs = _hf()
    preds[0]["no_answer_probability"] = 2.0
    with pytest.raises(ValueError, match=r"`predictions\[0\]\['no_answer_probability'\]` must be in"):
        compute_token_f1(preds, refs, variant="squad_v2")
    assert compute_token_f1(preds, refs).f1 == 100.0  # squad (v1.1) does not read it
    with pytest.raises(ValueError, match="give each prediction's 'no_answer_probability'"):
        compute_token_f1(*_hf(), variant="squad_v2", no_answer_probabilities=[0.0, 0.0])


def test_token_scores_and_other_entry_points():
    with pytest.raises(TypeError, match="`prediction` must be a str"):
        token_scores(None, "a")
    with pytest.raises(TypeError, match="`gold` must be a str"):
        token_scores("a", ["a"])
    with pytest.raises(TypeError, match=r"`predictions\[1\]\[0\]` must be a str"):
        compute_question_level([["a"], [1]], [["a"], ["b"]])
    with pytest.raises(TypeError, match=r"`references\[0\]` must be a list of str, got dict"):
        compute_question_level([["a"]], [{"a": 1}])
    with pytest.raises(ValueError, match="unknown normalizer 'nope'"):
        compute_question_level([["a"]], [["a"]], normalizer="nope")
    with pytest.raises(ValueError, match="got 1 dialog_ids for 2 predictions"):
        compute_quac(["a", "b"], [["a"], ["b"]], ["d"])
    with pytest.raises(TypeError, match=r"`dialog_ids\[1\]` must be a str"):
        compute_quac(["a", "b"], [["a"], ["b"]], ["d", 2])
    with pytest.raises(TypeError, match="`dialog_ids` must be a list"):
        compute_quac(["a"], [["a"]], "d")
    with pytest.raises(ValueError, match=r"`references\[0\]` has no answers"):
        compute_quac(["a"], [[]], ["d"])
    with pytest.raises(ValueError, match=r"`min_human_f1` must be in"):
        compute_quac(["a"], [["a"]], ["d"], min_human_f1=1.5)


def test_errors_leave_inputs_alone_and_successes_too():
    preds = ["The cat", "x"]
    refs = [["cat", "a cat"], "x"]
    before = copy.deepcopy((preds, refs))
    compute_token_f1(preds, refs)
    compute_token_f1(preds, refs, variant="squad_v2")
    compute_token_f1(*_hf())
    assert (preds, refs) == before
    hf = _hf()
    hf_before = copy.deepcopy(hf)
    compute_token_f1(*hf, variant="squad_v2")
    assert hf == hf_before
