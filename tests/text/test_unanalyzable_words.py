"""Words pymorphy3 cannot analyze (issue 17): a letter without a Unicode name
(``unicodedata.name`` raises ``ValueError: no such name``) or a lone surrogate made
``fbc2_textqa``, ``fbc2_mathqa`` and ``fbc2_vqa`` crash; such a word is now its own lemma."""

from __future__ import annotations

import unicodedata

import pytest

from metricore import compute_meteor, compute_token_f1
from metricore.lexicon.morph import first_normal_form, morph_analyzer, normal_form

TANGUT = "\U00017000"  # a letter (isalpha) with no name in this Python's Unicode database


def test_the_character_has_no_name_and_pymorphy_raises():
    """The premise: pymorphy3 itself fails on it (what the challenge's code would do)."""
    with pytest.raises(ValueError):
        unicodedata.name(TANGUT)
    with pytest.raises(ValueError, match="no such name"):
        morph_analyzer().parse(f"x{TANGUT}")


@pytest.mark.parametrize("word", [TANGUT, f"X{TANGUT}y", "a\ud800", "\udfff"])
def test_an_unanalyzable_word_is_its_own_lower_cased_lemma(word):
    assert normal_form(word) == word.lower()
    assert first_normal_form(morph_analyzer(), word) == word.lower()


def test_analyzable_words_keep_pymorphys_lemma():
    assert normal_form("секунды") == "секунда"


@pytest.mark.parametrize("variant", ["fbc2_textqa", "fbc2_mathqa"])
def test_token_f1_scores_unnamed_characters(variant):
    r = compute_token_f1(
        [f"a {TANGUT} b", "x\ud800", "секунды"],
        [[f"a {TANGUT}"], ["x\ud800"], ["секунда"]],
        variant=variant,
        percent=False,
    )
    assert r.exact_match_scores[1:] == [1.0, 1.0]
    assert 0.0 < r.f1_scores[0] < 1.0


def test_meteor_fbc2_vqa_scores_unnamed_characters():
    r = compute_meteor([TANGUT, "x\ud800"], [[TANGUT], ["x\ud800"]], variant="fbc2_vqa")
    assert all(0.9 < s <= 1.0 for s in r.scores)
