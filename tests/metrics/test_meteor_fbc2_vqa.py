"""``fbc2_vqa`` METEOR vs the FusionBrain Challenge 2.0 VisualQA scorer (the oracle
:mod:`tests.oracles.fbc2_vqa_ref`, on the real PyPI ``wordtodigits`` 1.0.2), and
:func:`metricore.text.numbers.wordtodigits` vs that package.

Generated answers are what VQA models and golds look like: digits, English number phrases
(``"twenty one"``, ``"one two"``, ``"point five"``, ``"cats and two dogs"``), Russian number
words in several cases, colours, yes/no, non-ASCII numerals (``"²"``, ``"½"``, ``"٣"``), ``float()``
words (``"nan"``, ``"1e5"``), ASCII punctuation.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

w2d = pytest.importorskip("wordtodigits")

from metricore import compute_meteor, score_submission  # noqa: E402
from metricore.challenge import whole_submission_example  # noqa: E402
from metricore.metrics.meteor import NUMBER_WORDS, explain_meteor  # noqa: E402
from metricore.registry import get  # noqa: E402
from metricore.text.numbers import first_number, numeric_gold, wordtodigits  # noqa: E402
from tests.oracles import fbc2_vqa_ref as ref  # noqa: E402

TOL = 1e-12

# ---- wordtodigits vs the package ------------------------------------------------------------

W2D_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen nineteen "
    "twenty thirty forty ninety hundred thousand million and point One TWO Twenty Hundred "
    "Thousand AND And Point POINT cats dog the a 3 12 1.5 . ? ! , ; minus"
).split()
SEPARATORS = (" ", " ", " ", "  ", "\t", "\n", "\u00a0", "")

phrases = st.lists(st.tuples(st.sampled_from(W2D_WORDS), st.sampled_from(SEPARATORS)), max_size=10).map(
    lambda pairs: "".join(w + s for w, s in pairs)
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(phrases, st.text(max_size=30), st.sampled_from(("", " ", ".", "?!", "and", "point"))))
def test_wordtodigits_equals_the_package(text):
    assert wordtodigits(text) == w2d.convert(text)


def test_wordtodigits_sweep_equals_the_package():
    rng = random.Random(7)
    for _ in range(30_000):
        text = "".join(rng.choice(W2D_WORDS) + rng.choice(SEPARATORS) for _ in range(rng.randint(0, 9)))
        assert wordtodigits(text) == w2d.convert(text), text


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("twenty one dogs", "21 dogs"),
        ("one two", "3"),  # sums: not "1 2"
        ("hundred", "0"),  # a bare hundred multiplies 0
        ("two hundred and five", "205"),
        ("cats and two dogs", "cats 2 dogs"),  # "and" before a number word goes, anywhere
        ("one point five", "1.5"),
        ("point twenty", "0. twenty"),
        ("one thousand?", "1000?"),
        ("One", "1"),
        ("three And four", "3 And 4"),  # "and" is matched case-sensitively
    ],
)
def test_wordtodigits_quirks(text, want):
    assert wordtodigits(text) == want == w2d.convert(text)


# ---- the numeric rule's pieces -----------------------------------------------------------------


def test_numeric_gold_is_isnumeric_then_float():
    assert numeric_gold("12") == (True, 12.0)
    assert numeric_gold("٣") == (True, 3.0)  # Arabic-Indic digit: float() reads it
    assert numeric_gold("²") == (True, None) and numeric_gold("½") == (True, None)
    assert numeric_gold("1.5") == (False, None) and numeric_gold("three") == (False, None)


def test_first_number_takes_digit_led_tokens_float_reads():
    assert first_number(["ответ", "²", "3d", "12", "5"]) == 12.0
    assert first_number(["1e5"]) == 100000.0
    assert first_number(["0.", "2"]) == 0.0  # wordtodigits writes "0." for "point twenty"
    assert first_number(["nan", "inf", "three"]) is None


# ---- generated VQA answers ---------------------------------------------------------------------

RU = (
    "да нет красный красная красного желтый желтого синий кошка кошки кот собака собаки машина "
    "машины дом или образ на столе человек люди мяч слева справа"
).split()
EN = "yes no red car cats cat dog dogs a the on left two-tone blue".split()
EN_NUMBERS = (
    "zero one two three four five ten eleven twenty thirty hundred thousand and point twenty-one one two"
).split()
RU_NUMBERS = (
    "ноль нисколько никакой никакого один одна одного два две двух три трёх четыре пять пяти "
    "шесть семь восемь девять десять десяти одиннадцать сто двадцать"
).split()
DIGITS = "0 1 2 3 5 7 10 12 25 100 1976 007 2.5 3,5 -4 +7 5% 1e5 nan inf ² ½ ٣ 五 3d 1st".split()


def _answer(rng: random.Random) -> str:
    words = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        pool = rng.choices((RU, EN, EN_NUMBERS, RU_NUMBERS, DIGITS), weights=(30, 15, 20, 15, 20))[0]
        word = rng.choice(pool)
        if rng.random() < 0.1:
            word = word.capitalize()
        if rng.random() < 0.1:
            word += rng.choice(string.punctuation)
        words.append(word)
    return rng.choice((" ", " ", ", ", "  ")).join(words)


def vqa_questions(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, golds) pairs; golds are often one number, sometimes its word."""
    rng = random.Random(seed)
    preds, golds = [], []
    for _ in range(n):
        gold = [_answer(rng) for _ in range(rng.choice((1, 1, 2, 3)))]
        if rng.random() < 0.35:
            gold[0] = rng.choice(DIGITS[:12])
        r = rng.random()
        pred = gold[0] if r < 0.2 else rng.choice(gold) + " " + _answer(rng) if r < 0.35 else _answer(rng)
        preds.append(pred)
        golds.append(gold)
    return preds, golds


SYNONYMS = {"кошка": ["кот", "животное"], "машина": ["транспорт"], "красный": ["цвет"]}


@pytest.mark.parametrize("synonyms", [None, SYNONYMS])
def test_generated_answers_equal_the_challenge_scorer(synonyms):
    preds, golds = vqa_questions(1500, seed=20 if synonyms is None else 21)
    wordnet = ref.FakeRuWordNet(synonyms)
    want = [ref.score_answer(p, g, wordnet) for p, g in zip(preds, golds)]
    got = compute_meteor(preds, golds, variant="fbc2_vqa", synonyms=synonyms or "none").scores
    bad = [(p, g, w, s) for p, g, w, s in zip(preds, golds, want, got) if abs(w - s) > TOL]
    assert not bad, bad[:5]
    # the sweep reaches every branch: numeric golds, unreadable numeric golds, METEOR
    assert sum(w in (0.0, 1.0) for w in want) < len(want)
    assert any(g[0] == "²" or g[0] == "½" for g in golds)


answers = st.builds(_answer, st.randoms(use_true_random=False))


@settings(max_examples=300, deadline=None)
@given(answers, st.lists(answers, min_size=1, max_size=3))
def test_any_answer_equals_the_challenge_scorer(pred, golds):
    got = compute_meteor([pred], [golds], variant="fbc2_vqa", synonyms="none").scores[0]
    assert got == pytest.approx(ref.score_answer(pred, golds), abs=TOL)
    assert 0.0 <= got <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(RU + EN), min_size=1, max_size=4), st.lists(st.sampled_from(RU + EN), max_size=4)
)
def test_without_number_words_the_two_readings_agree(pred, gold):
    p, g = " ".join(pred), " ".join(gold) or "да"
    default = compute_meteor([p], [[g]], variant="fbc2_vqa", synonyms="none").scores
    both = compute_meteor([p], [[g]], variant="fbc2_vqa", synonyms="none", number_words="both").scores
    assert default == both


# ---- the vectors, the option, the signature --------------------------------------------


@pytest.mark.parametrize(
    ("pred", "golds", "official", "both"),
    [
        ("two cats", ["two cats", "cats"], 1 / 1.1, 1.0),  # the gold "two" is never converted
        ("или, образ две", ["две или образ"], 2 / 3, 1.0),  # Russian words only as whole answers
        ("5", ["3", "five"], 0.6, 1.0),
        ("three", ["3", "two"], 1.0, 1.0),
        ("три кошки", ["3"], 0.0, 1.0),
        ("one two", ["3"], 1.0, 1 / 3),  # wordtodigits sums; the cardinal reading sees 1, 2
        ("2", ["²"], 0.0, 0.0),  # numeric gold float() cannot read: 0, as the challenge
    ],
)
def test_vectors_official_and_both(pred, golds, official, both):
    assert ref.score_answer(pred, golds) == pytest.approx(official, abs=TOL)
    r = compute_meteor([pred], [golds], variant="fbc2_vqa", synonyms="none")
    assert r.scores[0] == pytest.approx(official, abs=TOL)
    assert "number_words" not in r.signature
    b = compute_meteor([pred], [golds], variant="fbc2_vqa", synonyms="none", number_words="both")
    assert b.scores[0] == pytest.approx(both, abs=TOL)
    assert "|number_words:both|" in b.signature


def test_number_words_option_is_checked():
    with pytest.raises(ValueError, match="number_words.*allowed: 'prediction', 'both'"):
        compute_meteor(["a"], ["a"], variant="fbc2_vqa", number_words="gold")
    with pytest.raises(ValueError, match="fbc2_vqa and fbc2_captioning variants only"):
        compute_meteor(["a"], ["a"], number_words="both")
    with pytest.raises(ValueError, match="fbc2_vqa and fbc2_captioning variants only"):
        compute_meteor(["a"], ["a"], variant="nltk", number_words="prediction")


def test_number_words_is_an_option_of_the_fbc2_configs_only():
    spec = get("meteor")
    for config in spec.configs:
        names = {o.name: o for o in config.options}
        if config.name in ("fbc2_vqa", "fbc2_captioning"):
            assert names["number_words"].default == "prediction"
            assert tuple(names["number_words"].choices) == NUMBER_WORDS
        else:
            assert "number_words" not in names


def test_explain_names_the_rule():
    assert explain_meteor("2", ["²"], variant="fbc2_vqa", synonyms="none").describe() == (
        "numeric rule: gold '²' is numeric but not a float() → 0"
    )
    a = explain_meteor("two cats", ["two cats", "cats"], variant="fbc2_vqa", synonyms="none")
    assert a.hypothesis == ("2", "cats") and a.reference == ("cats",)


# ---- the challenge score ---------------------------------------------------------------------


def test_visualqa_task_and_integral_follow_the_challenge_composition():
    """The VisualQA task score is the scorer's ``calc_meteor`` on the same files, and the
    integral is the challenge's sum (open tasks / 15, hidden / 10) with that number in it."""
    sub = whole_submission_example()
    preds, truth = sub["predictions"], sub["references"]
    vqa_ids = [k for k, t in sub["task_ids"].items() if t == 4]
    added = {
        "90": ("two cats", ["two cats", "cats"]),
        "91": ("или, образ две", ["две или образ"]),
        "92": (None, ["3"]),  # an image instead of a text answer: 0, as the scorer
    }
    for key, (answer, golds) in added.items():
        part = (
            {"type": "text", "content": answer}
            if answer is not None
            else {"type": "image", "content": "x.jpg"}
        )
        preds[key] = [part]
        truth[key] = [{"type": "text", "content": golds}]
        sub["task_ids"][key] = 4
        vqa_ids.append(key)
    r = score_submission(**sub)  # the default thesaurus: no thesaurus match fires on these answers
    official = ref.calc_meteor({k: truth[k] for k in vqa_ids}, {k: preds[k] for k in vqa_ids})
    assert r.task_scores["VisualQA"] == pytest.approx(official, abs=TOL)
    assert r.task_scores["VisualQA"] == pytest.approx((1.0 + 0.6 + 1 / 1.1 + 2 / 3 + 0.0) / 5, abs=TOL)
    open_tasks = ("TextQA", "MathQA", "ImageGeneration", "ImageCaptioning", "VisualQA", "TRitW")
    hidden = [f"Hidden{i}" for i in range(1, 7)]
    composed = sum(r.task_scores[t] for t in open_tasks) / 15 + sum(r.task_scores[t] for t in hidden) / 10
    assert r.integral == pytest.approx(composed, abs=1e-12)
