"""Properties and input checks of METEOR 1.5 (:mod:`metricore.metrics.meteor15`)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.core.result import MetricResult
from metricore.metrics.meteor15 import compute_meteor_1_5, corpus_statistic
from metricore.metrics.meteor15.api import score_line_parts
from metricore.metrics.meteor15.normalize import java_tokens
from metricore.metrics.meteor15.score import aggregate, meteor_score

WORDS = [
    "a",
    "the",
    "man",
    "men",
    "dog",
    "dogs",
    "puppy",
    "riding",
    "rides",
    "horse",
    "on",
    "beach",
    "shore",
    "big",
    "large",
    "of",
    ".",
]
caption = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
references = st.lists(caption, min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(caption, references), min_size=1, max_size=4))
def test_scores_are_bounded_and_corpus_is_from_summed_statistics(rows: list[tuple[str, list[str]]]) -> None:
    r = compute_meteor_1_5([h for h, _ in rows], [rs for _, rs in rows])
    assert isinstance(r, MetricResult)
    assert all(0.0 <= s <= 1.0 for s in r.scores)
    assert r.scores == [meteor_score(s) for s in r.statistics]
    assert r.meteor == meteor_score(aggregate(r.statistics))
    assert corpus_statistic(r).value() == pytest.approx(r.meteor, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(caption.filter(lambda c: c.strip() != ""))
def test_identical_caption_scores_one(c: str) -> None:
    assert compute_meteor_1_5([c], [[c]]).scores == [1.0]


@settings(max_examples=40, deadline=None)
@given(caption, references, caption)
def test_another_reference_never_lowers_the_score(h: str, refs: list[str], extra: str) -> None:
    before = compute_meteor_1_5([h], [refs]).scores[0]
    after = compute_meteor_1_5([h], [refs + [extra]]).scores[0]
    assert after >= before


def test_empty_hypothesis_scores_zero_and_per_item_names_the_reference() -> None:
    r = compute_meteor_1_5(["", "a dog runs"], [["a dog"], ["a cat walks", "a dog runs"]])
    assert r.scores[0] == 0.0 and r.scores[1] == 1.0
    items = r.per_item()
    assert items[1]["closest"] == "a dog runs" and items[1]["prediction"] == "a dog runs"
    assert set(r.as_dict()) == {"meteor", "scores", "columns", "signature"}
    assert r.as_dict()["columns"] == {"best_reference": r.best_reference}
    assert r.headline() == {"meteor": r.meteor} and not math.isnan(r.meteor)


def test_score_line_is_parsed_as_the_jar_parses_it() -> None:
    assert score_line_parts("a ||| b  c", ["x ||| y", "z"]) == ("a b c", ["x", "y", "z"])
    assert score_line_parts("", []) == ("", [""])


@pytest.mark.parametrize(
    ("predictions", "references", "error", "match"),
    [
        ("a dog", [["a dog"]], TypeError, "predictions"),
        (["a dog"], [["a dog"], ["b"]], ValueError, "1 predictions but 2 references"),
        ([], [], ValueError, "empty"),
        ([3], [["a"]], TypeError, r"predictions\[0\]"),
        (["a"], [[None]], TypeError, r"references\[0\]\[0\]"),
        (["a", "b\nc"], [["a"], ["b"]], ValueError, r"predictions\[1\]"),
        (["a"], [["x", "b\rc"]], ValueError, r"references\[0\]\[1\]"),
    ],
)
def test_bad_input(predictions: object, references: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        compute_meteor_1_5(predictions, references)  # type: ignore[arg-type]


def test_missing_pycocoevalcap_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from metricore.metrics.meteor15 import data

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match=r"metricore\[coco\]"):
        data.meteor_dir()


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab. \t\n\r\f\x0b\x1c\x1d\x1e\x1f\x85\xa0\u2000\u3000é")), max_size=30
    )
)
def test_java_tokens_split_on_string_tokenizer_delimiters_only(text: str) -> None:
    # java.util.StringTokenizer's default delimiters are " \t\n\r\f", nothing else
    want = [t for t in re.split("[ \t\n\r\f]+", text) if t]
    assert java_tokens(text) == want
