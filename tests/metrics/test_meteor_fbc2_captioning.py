"""``fbc2_captioning`` against the FusionBrain Challenge 2.0 captioning scorer
(``tests/oracles/fbc2_caption_ref.py``, its code restated with the real ``wordtodigits`` and
``razdel``): generated Russian captions with English and Russian number words, punctuation,
quotes and ``@@UNKNOWN@@``; the ``number_words`` option and its documented vectors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("wordtodigits")
pytest.importorskip("razdel")

from metricore import compute_meteor  # noqa: E402
from tests.oracles import fbc2_caption_ref as ref  # noqa: E402
from tests.oracles.fbc2_vqa_ref import FakeRuWordNet, ruwordnet_db  # noqa: E402

TOL = 1e-12
RU = "кот кошка кошки собака сидит на окне рыжий большой дом улица два три пять двух стоят".split()
EN = "two three five twenty one hundred and a cat cats sits point zero".split()
NOISE = [",", ".", "!", "(", ")", '"', "'", "@@UNKNOWN@@", "-", "%", "«", "»"]
#: thesaurus entries as the challenge looks them up: by the *stem* of a hypothesis word
#: (rumeteor's synonym stage runs on the stem stage's leftovers), hypernym titles compared with
#: reference stems
SYNONYMS = {"кот": ["кошк", "животное"], "собак": ["пёс", "кот"], "дом": ["здан", "улиц"], "cats": ["cat"]}


def _caption(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(1, 9)):
        r = rng.random()
        words.append(rng.choice(RU) if r < 0.55 else rng.choice(EN) if r < 0.85 else rng.choice(NOISE))
    text = " ".join(words)
    if rng.random() < 0.3:
        text = text.capitalize() + rng.choice([".", "!", " ."])
    return text


def captions(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        golds = [_caption(rng) for _ in range(rng.randint(1, 4))]
        r = rng.random()
        preds.append(
            golds[0] if r < 0.15 else rng.choice(golds) + " " + _caption(rng) if r < 0.4 else _caption(rng)
        )
        refs.append(golds)
    return preds, refs


@pytest.mark.parametrize("thesaurus", [False, True])
def test_generated_captions_equal_the_challenge_scorer(thesaurus, tmp_path):
    from metricore.lexicon.synonyms import RuWordNetSynonyms

    preds, refs = captions(1200, seed=31 if thesaurus else 30)
    wordnet = FakeRuWordNet(SYNONYMS if thesaurus else None)
    want = [ref.score_caption(p, r, wordnet) for p, r in zip(preds, refs)]
    source = RuWordNetSynonyms(ruwordnet_db(tmp_path / "ruwordnet.db", SYNONYMS)) if thesaurus else "none"
    got = compute_meteor(preds, refs, variant="fbc2_captioning", synonyms=source).scores
    bad = [(p, r, w, s) for p, r, w, s in zip(preds, refs, want, got) if abs(w - s) > TOL]
    assert not bad, bad[:5]
    assert len(set(want)) > 50  # the sweep is not degenerate


texts = st.builds(_caption, st.randoms(use_true_random=False))


@settings(max_examples=300, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=3))
def test_any_caption_equals_the_challenge_scorer(pred, golds):
    got = compute_meteor([pred], [golds], variant="fbc2_captioning", synonyms="none").scores[0]
    assert got == pytest.approx(ref.score_caption(pred, golds), abs=TOL)
    assert 0.0 <= got <= 1.0


@pytest.mark.parametrize(
    ("pred", "golds", "official", "both"),
    [
        ("two cats", ["two cats"], 0.25, 0.9375),  # the gold's "two" is never converted
        ("two cats", ["2 cats"], 0.9375, 0.9375),
        ("два кота", ["2 кота"], 0.25, 0.9375),  # Russian number words only with "both"
        ("a hundred and five birds", ["a 105 birds"], 1 / 3, 1 - 0.5 / 27),  # wordtodigits: "a 5 birds"
        ("one two cats", ["3 cats"], 0.9375, 5 / 21),  # wordtodigits sums adjacent number words
    ],
)
def test_vectors_official_and_both(pred, golds, official, both):
    assert ref.score_caption(pred, golds) == pytest.approx(official, abs=TOL)
    r = compute_meteor([pred], [golds], variant="fbc2_captioning", synonyms="none")
    assert r.scores[0] == pytest.approx(official, abs=TOL)
    assert "number_words" not in r.signature
    b = compute_meteor([pred], [golds], variant="fbc2_captioning", synonyms="none", number_words="both")
    assert b.scores[0] == pytest.approx(both, abs=TOL)
    assert "|number_words:both|" in b.signature
