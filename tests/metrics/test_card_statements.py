"""Statements of the metric cards that state a number, checked (issue 20): DUDE's empty lists,
PyPI ``anls``'s threshold against ``stvqa_paper``'s, QuAC with no counted question."""

from __future__ import annotations

import random

import pytest

from metricore import compute_anls, compute_quac
from tests.oracles import dude_anls


def _dude(pred, answers, answer_type=None):
    ref = answers if answer_type is None else {"answers": answers, "answer_type": answer_type}
    return compute_anls([pred], [ref], variant="dude").scores[0]


def test_dude_empty_lists_as_the_card_says():
    # not answerable: typed so, or untyped with an empty gold list
    assert _dude([], [], "not-answerable") == 1.0
    assert _dude([], []) == 1.0
    assert _dude("", []) == 1.0
    # typed as a plain question with an empty gold list: read as not answerable
    assert _dude([], [], "extractive") == 1.0
    assert _dude("x", [], "extractive") == 0.0
    # an empty prediction for a list question: 0, as the script scores it with munkres 3.0
    assert _dude([], ["a", "b"], "list/extractive") == 0.0
    assert dude_anls.question_score_dude(["a", "b"], [], "list/extractive") == 0.0
    # a list question whose gold list is empty: 0 whatever is predicted (the script: 0/0)
    assert _dude([], [], "list/extractive") == 0.0
    assert _dude(["a"], [], "list/abstractive") == 0.0
    with pytest.raises(ZeroDivisionError):
        dude_anls.question_score_dude([], [], "list/extractive")


def test_pypi_anls_threshold_is_one_minus_tau():
    anls = pytest.importorskip("anls")
    rng = random.Random(5)
    words = ["abcd", "abxx", "abcx", "a", "", "Coca Cola", "coca-cola", "xyz", "abcdefgh", "abcdefgx"]
    for _ in range(400):
        pred, golds = rng.choice(words), rng.sample(words, rng.randint(1, 3))
        for t in (0.125, 0.25, 0.5, 0.75):  # binary fractions: 1 - t is exact
            want = anls.anls_score(pred, golds, threshold=t)
            got = compute_anls([pred], [golds], variant="stvqa_paper", threshold=1 - t).scores[0]
            assert got == pytest.approx(want, abs=1e-12), (pred, golds, t)


def test_quac_without_counted_questions():
    r = compute_quac(["a", "b"], [["x y", "z w"], ["p q", "r s"]], ["d0", "d0"], min_human_f1=0.9)
    assert (r.f1, r.heq_q, r.heq_d) == (0.0, 0.0, 100.0)
