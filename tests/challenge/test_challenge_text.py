"""FusionBrain Challenge 2.0 TextQA (`fbc2_textqa`) and MathQA (`fbc2_mathqa`): the SPECS
vectors, parity with an oracle restated from the challenge's code on generated answers, and
properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.metrics.token_f1 import TOKEN_F1_VARIANTS, compute_token_f1, token_scores
from metricore.text.normalize import FBC2_NUMBER_LEMMAS, NORMALIZERS, fbc2_lemma
from tests.gen_fbc2 import answer_like, mathqa_questions, textqa_questions
from tests.oracles import fbc2_text_ref as ref

TEXTQA_GOLDS = ["a", "на 0,3 секунды", "a на 0,3 секунды"]
MATHQA_GOLDS = ["d", "-3", "d -3"]


def textqa(preds, golds):
    return compute_token_f1(preds, golds, variant="fbc2_textqa", percent=False)


def mathqa(preds, golds):
    return compute_token_f1(preds, golds, variant="fbc2_mathqa", percent=False)


@pytest.mark.parametrize(
    "pred, want",
    [("a) на 0,3 секунды", 1.0), ("A", 1.0), ("b) на секунду", 0.6667), ("Авиаконструктора Сухого", 0.0)],
)
def test_textqa_specs_vectors(pred, want):
    r = textqa([pred], [TEXTQA_GOLDS])
    assert round(r.f1, 4) == want
    assert r.f1_scores[0] == pytest.approx(ref.question_f1(TEXTQA_GOLDS, pred), abs=1e-12)


@pytest.mark.parametrize("pred, want", [("d) -3", 1.0), ("3", 0.0), ("ответ: d", 1.0)])
def test_mathqa_specs_vectors(pred, want):
    r = mathqa([pred], [MATHQA_GOLDS])
    assert r.exact_match == want
    assert r.exact_match == ref.question_exact(MATHQA_GOLDS, pred)


def test_letter_fallback_rules():
    # F1 0.667 > 0.5: no fallback although "b" is in the prediction
    assert textqa(["b) на секунду"], [TEXTQA_GOLDS]).closest == ["на 0,3 секунды"]
    # the fallback can lower the score: F1 0.5 (<= 0.5) becomes the letter's 0
    r = textqa(["кот b"], [["кот пёс"]])
    assert r.f1_scores == [0.0]
    assert token_scores("кот b", "кот пёс", variant="fbc2_textqa").f1 == 0.5  # the raw pair score
    # case-sensitive, Latin only, anywhere (even inside a word)
    assert textqa(["B) да нет", "b) да нет"], [["b"], ["b"]]).f1_scores == [0.5, 1.0]
    assert textqa(["bed"], [["b"]]).f1_scores == [1.0]
    assert textqa(["а) нет"], [["a"]]).f1_scores == [0.0]  # Cyrillic а
    # MathQA: the fallback is decided on exact match
    assert mathqa(["ответ: c, -5"], [["c", "-5", "c -5"]]).exact_match_scores == [1.0]
    # every score of the question is recomputed from the letter
    r = textqa(["зачем и почему d"], [["почему", "d"]])
    assert (r.f1_scores, r.exact_match_scores, r.precision_scores, r.closest) == ([1.0], [1.0], [1.0], ["d"])


def test_normalization_details():
    t, m = NORMALIZERS["fbc2_textqa"], NORMALIZERS["fbc2_mathqa"]
    assert t("a) на 0,3 секунды") == "a на 03 секунда"  # comma deleted, lemma
    assert t("Двух КОТОВ и одной кошки") == "2 кот и 1 кошка"  # number lemmas -> digits
    assert t("сто") == "сто"  # only the 13 lemmas of the challenge's map
    assert t("-3") == "3" and m("-3") == "-3"
    assert t("The answer") == "the answer"  # no article removal
    assert sorted(FBC2_NUMBER_LEMMAS.values(), key=int) == ["0", "0", "0"] + [str(i) for i in range(1, 11)]
    assert fbc2_lemma("никакого") == "0"
    assert TOKEN_F1_VARIANTS["fbc2_mathqa"].letter_fallback == "exact_match"


def test_empty_rules():
    # either side empty: 1 iff both are (no gold dropped, unlike squad_v2)
    assert textqa([""], [[""]]).f1_scores == [1.0]
    assert textqa(["..."], [["x", "!"]]).f1_scores == [1.0]  # "!" normalizes to "", as the prediction
    assert textqa(["x"], [[""]]).f1_scores == [0.0]
    assert mathqa([""], [["-"]]).exact_match_scores == [0.0]  # "-" is kept by MathQA
    with pytest.raises(ValueError, match="no answers"):
        textqa(["x"], [[]])


def _parity(gen, variant, question, n, seed):
    preds, golds = gen(n, seed=seed)
    r = compute_token_f1(preds, golds, variant=variant, percent=False)
    got = r.f1_scores if variant == "fbc2_textqa" else r.exact_match_scores
    want = [question(gs, p) for p, gs in zip(preds, golds)]
    bad = [(p, gs, a, b) for p, gs, a, b in zip(preds, golds, got, want) if abs(a - b) > 1e-12]
    assert not bad, f"{len(bad)} of {n} differ, e.g. {bad[:3]}"
    return want


def test_textqa_parity_with_the_original_rules_on_generated_answers():
    want = _parity(textqa_questions, "fbc2_textqa", ref.question_f1, 2500, seed=11)
    # the sweep exercises every branch: full, partial and zero F1
    assert (
        sum(w == 1.0 for w in want) > 500
        and sum(0 < w < 1 for w in want) > 300
        and sum(w == 0 for w in want) > 200
    )


def test_mathqa_parity_with_the_original_rules_on_generated_answers():
    want = _parity(mathqa_questions, "fbc2_mathqa", ref.question_exact, 2500, seed=12)
    assert 500 < sum(want) < 2000


def test_corpus_mean_and_layout_equal_the_original_loop():
    preds, golds = textqa_questions(300, seed=5)
    examples = {str(i): [{"type": "text", "content": g}] for i, g in enumerate(golds)}
    parts = {
        str(i): [{"type": "image", "content": "x.jpg"}, {"type": "text", "content": p}]
        for i, p in enumerate(preds)
    }
    mean, _ = ref.get_f1(examples, parts)
    assert textqa(preds, golds).f1 == mean  # summed left to right, as the original
    mpreds, mgolds = mathqa_questions(300, seed=6)
    examples = {str(i): [{"type": "text", "content": g}] for i, g in enumerate(mgolds)}
    parts = {str(i): [{"type": "text", "content": p}] for i, p in enumerate(mpreds)}
    assert mathqa(mpreds, mgolds).exact_match == ref.get_exact(examples, parts)[0]


TEXT = st.one_of(
    st.builds(lambda seed: answer_like(random.Random(seed)), st.integers(0, 10**6)),
    st.text(
        alphabet=st.sampled_from(list("abcdeABC -–,.!?()0123456789ёйцукенгшщзхъфывапролджэячсмитьбю")),
        max_size=25,
    ),
)
GOLDS = st.lists(TEXT, min_size=1, max_size=4)
SETTINGS = settings(max_examples=120, deadline=None)


@SETTINGS
@given(TEXT, GOLDS, st.sampled_from(["fbc2_textqa", "fbc2_mathqa"]), st.randoms(use_true_random=False))
def test_properties(pred, golds, variant, rnd):
    r = compute_token_f1([pred], [golds], variant=variant, percent=False)
    score = r.f1_scores[0] if variant == "fbc2_textqa" else r.exact_match_scores[0]
    assert 0.0 <= score <= 1.0
    assert 0.0 <= r.exact_match_scores[0] <= r.f1_scores[0] + 1e-12 or variant == "fbc2_mathqa"
    # deterministic, and the order of the gold answers does not matter
    shuffled = list(golds)
    rnd.shuffle(shuffled)
    again = compute_token_f1([pred], [shuffled], variant=variant, percent=False)
    assert (again.f1_scores, again.exact_match_scores) == (r.f1_scores, r.exact_match_scores)
    # equal to the oracle
    question = ref.question_f1 if variant == "fbc2_textqa" else ref.question_exact
    assert score == pytest.approx(question(golds, pred), abs=1e-12)
    # a prediction equal to a gold answer scores 1
    self_score = compute_token_f1([golds[0]], [golds], variant=variant, percent=False)
    assert self_score.f1_scores == [1.0] and self_score.exact_match_scores == [1.0]


def test_evaluate_configs_equal_the_core():
    import evaluate

    preds, golds = textqa_questions(40, seed=3)
    for config in ("fbc2_textqa", "fbc2_mathqa"):
        metric = evaluate.load("metrics/token_f1", config)
        got = metric.compute(predictions=preds, references=golds)
        want = compute_token_f1(preds, golds, variant=config).as_dict()
        assert got["f1"] == want["f1"] and got["exact_match"] == want["exact_match"]
        assert got["signature"] == want["signature"] == f"token_f1|variant:{config}|version:0.1.0"
