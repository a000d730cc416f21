"""Bad input: every refusal has the right exception type and a message that names the
argument and, for per-sample problems, the index (``predictions[1]``, ``references[0][2]``).
Valid corner cases (empty strings, not-answerable DUDE questions) are checked too.
"""

from __future__ import annotations

import re

import pytest

from metricore import compute_anls, compute_one_minus_ned

ANLS_VARIANTS = ("docvqa", "stvqa_paper", "anls_star", "dude")
STRING_ONLY = ("docvqa", "stvqa_paper")


def raises(exc, *fragments):
    """``pytest.raises`` that also requires every fragment (literally) in the message."""
    return pytest.raises(exc, match="(?s)" + "".join(f"(?=.*{re.escape(f)})" for f in fragments))


# ---------------------------------------------------------------------------------------
# column-level problems (both metrics)


def _anls(variant):
    return lambda p, r, **kw: compute_anls(p, r, variant=variant, **kw)


METRICS = [pytest.param(_anls(v), id=f"anls-{v}") for v in ANLS_VARIANTS] + [
    pytest.param(compute_one_minus_ned, id="one_minus_ned")
]


@pytest.mark.parametrize("score", METRICS)
def test_mismatched_lengths(score):
    with raises(ValueError, "2 predictions", "1 references"):
        score(["a", "b"], ["a"])
    with raises(ValueError, "1 predictions", "2 references"):
        score(["a"], ["a", "b"])


@pytest.mark.parametrize("score", METRICS)
def test_bare_string_columns_are_refused(score):
    # iterating a str would silently score its characters
    with raises(TypeError, "`predictions`", "str"):
        score("ab", ["a", "b"])
    with raises(TypeError, "`references`", "str"):
        score(["a", "b"], "ab")


@pytest.mark.parametrize("score", METRICS)
@pytest.mark.parametrize("column", [None, 5, {"a": "b"}, b"ab"])
def test_non_list_columns_are_refused(score, column):
    with raises(TypeError, "`predictions`"):
        score(column, ["a"])
    with raises(TypeError, "`references`"):
        score(["a"], column)


@pytest.mark.parametrize("score", METRICS)
def test_empty_prediction_list(score):
    with raises(ValueError, "`predictions`", "empty"):
        score([], [])


# ---------------------------------------------------------------------------------------
# per-sample type problems


@pytest.mark.parametrize("variant", STRING_ONLY)
@pytest.mark.parametrize("bad", [None, 1, 2.5, b"b", {"x": "b"}, ["b"]])
def test_anls_string_variants_prediction_types(variant, bad):
    with raises(TypeError, "`predictions[1]`", type(bad).__name__):
        compute_anls(["a", bad], ["a", "b"], variant=variant)


@pytest.mark.parametrize("variant", STRING_ONLY + ("dude",))
@pytest.mark.parametrize("bad", [None, 1, b"b", {"x": "b"}])
def test_anls_reference_types(variant, bad):
    if variant == "dude" and isinstance(bad, dict):
        with raises(ValueError, "`references[1]`", "answers"):
            compute_anls(["a", "b"], ["a", bad], variant=variant)
        return
    with raises(TypeError, "`references[1]`", type(bad).__name__):
        compute_anls(["a", "b"], ["a", bad], variant=variant)


@pytest.mark.parametrize("variant", STRING_ONLY + ("dude",))
@pytest.mark.parametrize("bad", [None, 3, b"x"])
def test_anls_reference_alternative_types(variant, bad):
    with raises(TypeError, "`references[1][2]`", type(bad).__name__):
        compute_anls(["a", "b"], [["a"], ["b", "c", bad]], variant=variant)


@pytest.mark.parametrize("bad", [None, 1, b"b", {"x": "b"}])
def test_dude_prediction_types(bad):
    with raises(TypeError, "`predictions[1]`", type(bad).__name__):
        compute_anls(["a", bad], ["a", "b"], variant="dude")
    with raises(TypeError, "`predictions[1][1]`", type(bad).__name__):
        compute_anls(["a", ["b", bad]], ["a", ["b", "c"]], variant="dude")


def test_dude_reference_dict_form_problems():
    with raises(ValueError, "`references[1]`", "answers"):
        compute_anls(["a", "b"], ["a", {"answer": ["b"]}], variant="dude")
    with raises(TypeError, "`references[1]['answer_type']`"):
        compute_anls(["a", "b"], ["a", {"answers": ["b"], "answer_type": 3}], variant="dude")
    with raises(TypeError, "`references[0]`", "NoneType"):
        compute_anls(["a"], [{"answers": None, "answer_type": "extractive"}], variant="dude")


def test_dude_answer_types_problems():
    with raises(ValueError, "answer_types", "1", "2"):
        compute_anls(["a", "b"], ["a", "b"], variant="dude", answer_types=["extractive"])
    for variant in ("docvqa", "stvqa_paper", "anls_star"):
        with raises(ValueError, "answer_types", variant):
            compute_anls(["a"], ["a"], variant=variant, answer_types=["extractive"])


def test_dude_answer_types_element_type():
    with raises(TypeError, "answer_types[0]"):
        compute_anls(["a", "b"], ["a", "b"], variant="dude", answer_types=[3, None])


def test_dude_answer_types_bare_string():
    preds = [["a", "b", "c"]] * 4
    golds = [["a", "b", "c"]] * 4
    with raises(TypeError, "answer_types"):
        compute_anls(preds, golds, variant="dude", answer_types="list")


# ---------------------------------------------------------------------------------------
# references with no answers


@pytest.mark.parametrize("variant", STRING_ONLY)
def test_no_answers_refused_for_string_variants(variant):
    with raises(ValueError, "`references[1]`", "no answers"):
        compute_anls(["a", "b"], ["a", []], variant=variant)


def test_no_answers_is_not_answerable_in_dude():
    result = compute_anls(["a", [], "", "x", ["x"]], ["a", [], [], [], []], variant="dude")
    assert result.scores == [1.0, 1.0, 1.0, 0.0, 0.0]
    typed = compute_anls(["x", []], [[], []], variant="dude", answer_types=["not-answerable"] * 2)
    assert typed.scores == [0.0, 1.0]


def test_anls_star_empty_list_vs_string():
    with raises(ValueError, "`references[1]`", "`predictions[1]`", "empty list"):
        compute_anls(["a", "x"], ["a", []], variant="anls_star")
    # [] vs [] and [] vs None are valid structured answers
    assert compute_anls([[], None], [[], []], variant="anls_star").scores == [1.0, 0.0]


def test_one_minus_ned_no_answers():
    with raises(ValueError, "`references[1]`", "no answers"):
        compute_one_minus_ned(["a", "b"], ["a", []])


# ---------------------------------------------------------------------------------------
# ANLS* structures


def test_anls_star_tuple_in_prediction():
    # ValueError, as anls-star raises it (with its text)
    with raises(ValueError, "`predictions[1]`", "tuple", "Tuples are reserved"):
        compute_anls(["a", ("x",)], ["a", "x"], variant="anls_star")
    with raises(ValueError, "`predictions[1]['k'][1]`", "tuple"):
        compute_anls(["a", {"k": [1, ("x",)]}], ["a", {"k": [1, "x"]}], variant="anls_star")


def test_anls_star_unsupported_leaf_types():
    with raises(TypeError, "`predictions[1]`", "bytes"):
        compute_anls(["a", b"x"], ["a", "x"], variant="anls_star")
    with raises(TypeError, "`references[0]['k']`", "set"):
        compute_anls([{"k": "a"}], [{"k": {"a"}}], variant="anls_star")
    with raises(TypeError, "`references[0][1]`", "bytes"):
        compute_anls(["a"], [("a", b"x")], variant="anls_star")


def test_anls_star_empty_tuple():
    with raises(ValueError, "`references[0]`", "empty tuple"):
        compute_anls(["a"], [()], variant="anls_star")


# ---------------------------------------------------------------------------------------
# 1-NED per-sample problems


@pytest.mark.parametrize("bad", [None, 1, b"b", {"x": "b"}, ["b"]])
def test_one_minus_ned_prediction_types(bad):
    with raises(TypeError, "`predictions[1]`", type(bad).__name__):
        compute_one_minus_ned(["a", bad], ["a", "b"])


@pytest.mark.parametrize("bad", [None, 1, b"b", {"x": "b"}])
def test_one_minus_ned_reference_types(bad):
    with raises(TypeError, "`references[1]`", type(bad).__name__):
        compute_one_minus_ned(["a", "b"], ["a", bad])
    with raises(TypeError, "`references[1][1]`", type(bad).__name__):
        compute_one_minus_ned(["a", "b"], ["a", ["b", bad]])


# ---------------------------------------------------------------------------------------
# options


@pytest.mark.parametrize("variant", ["foo", "DocVQA", "", None, "anls"])
def test_unknown_variant(variant):
    with raises(ValueError, "variant", "docvqa"):
        compute_anls(["a"], ["a"], variant=variant)


@pytest.mark.parametrize("variant", ANLS_VARIANTS)
@pytest.mark.parametrize("threshold", [1.5, -0.1, float("nan"), float("inf"), -1])
def test_threshold_out_of_range(variant, threshold):
    with raises(ValueError, "threshold"):
        compute_anls(["a"], ["a"], variant=variant, threshold=threshold)


@pytest.mark.parametrize("variant", ANLS_VARIANTS)
@pytest.mark.parametrize("threshold", ["0.5", None, True, [0.5], b"0.5"])
def test_threshold_not_a_number(variant, threshold):
    with raises(TypeError, "threshold"):
        compute_anls(["a"], ["a"], variant=variant, threshold=threshold)


@pytest.mark.parametrize("threshold", [0, 1, 0.0, 1.0])
def test_threshold_bounds_are_valid(threshold):
    assert compute_anls(["a"], ["a"], threshold=threshold).threshold == float(threshold)


@pytest.mark.parametrize("empty_pair", ["two", "ONE", None, 1, ""])
def test_unknown_empty_pair(empty_pair):
    with raises(ValueError, "empty_pair", "zero", "one"):
        compute_one_minus_ned(["a"], ["a"], empty_pair=empty_pair)


@pytest.mark.parametrize("name", ["lowercase", "nfkc"])
@pytest.mark.parametrize("value", [1, "yes", None])
def test_flag_types(name, value):
    with raises(TypeError, name, "bool"):
        compute_one_minus_ned(["a"], ["a"], **{name: value})


# ---------------------------------------------------------------------------------------
# valid corner cases


@pytest.mark.parametrize("variant", ANLS_VARIANTS)
def test_empty_strings_are_valid_anls(variant):
    assert compute_anls([""], [""], variant=variant).scores == [1.0]
    assert compute_anls([""], [[""]], variant=variant).scores == [1.0]
    assert compute_anls([""], [["x", ""]], variant=variant).scores == [1.0]
    assert compute_anls(["x"], [[""]], variant=variant).scores == [0.0]


def test_empty_strings_are_valid_one_minus_ned():
    assert compute_one_minus_ned([""], [""]).scores == [0.0]
    assert compute_one_minus_ned([""], [""], empty_pair="one").scores == [1.0]
    assert compute_one_minus_ned([""], [""], empty_pair="zero").one_minus_ned == 0.0


def test_non_list_sequences_are_accepted():
    # tuples and generators are columns too (converted to new lists)
    assert compute_anls(("a", "b"), (["a"], ["b"])).scores == [1.0, 1.0]
    assert compute_one_minus_ned((p for p in ["ab"]), (g for g in ["ab"])).scores == [1.0]
