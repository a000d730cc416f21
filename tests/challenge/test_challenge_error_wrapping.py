"""How the challenge names the task in a core metric's error (issue 17)."""

from __future__ import annotations

import pytest

from metricore import score_challenge
from metricore.challenge.tasks import _as_task


def test_a_unicode_error_is_re_raised_as_a_value_error_naming_the_task():
    # type(err)(message) raised "TypeError: function takes exactly 5 arguments" here
    with pytest.raises(ValueError, match=r"^challenge_score: task 'TextQA': 'utf-8' codec") as info:
        with _as_task("TextQA"):
            raise UnicodeEncodeError("utf-8", "a\ud800", 1, 2, "surrogates not allowed")
    assert type(info.value) is ValueError


def test_a_type_error_subclass_stays_a_type_error():
    class Odd(TypeError):
        def __init__(self, a, b):
            super().__init__(f"{a} {b}")

    with pytest.raises(TypeError, match=r"^challenge_score: task 'T': x y$"):
        with _as_task("T"):
            raise Odd("x", "y")


def test_a_given_score_error_has_one_colon_after_the_task():
    with pytest.raises(ValueError) as info:
        score_challenge({"Hidden1": 2}, missing="zero")
    assert "::" not in str(info.value)
    assert str(info.value).startswith("challenge_score: task 'Hidden1': `score` must be in")
