"""METEOR invariants (hypothesis): the fast alignment equals the NLTK-shaped one, bounds,
identities, reference order, case, and inputs left alone."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import compute_meteor
from metricore.metrics.meteor import _align_fast, _Prepared
from metricore.text.numbers import numeric_similarity, spelled_numbers_to_digits
from tests.oracles.meteor_walk import align

VOCAB = [
    "cat",
    "cats",
    "dog",
    "dogs",
    "hound",
    "the",
    "a",
    "sat",
    "sit",
    "sits",
    "mat",
    "on",
    "run",
    "running",
]
STEM = {"cats": "cat", "dogs": "dog", "sits": "sit", "sat": "sit", "running": "run"}
SYN = {
    "dog": frozenset({"hound"}),
    "hound": frozenset({"dog"}),
    "cat": frozenset({"mat", "dog"}),
    "run": frozenset({"sit"}),
}

words = st.lists(st.sampled_from(VOCAB), max_size=12)
text = st.lists(st.sampled_from(VOCAB + ["Cat", "DOG", ",", ".", "!"]), max_size=10).map(" ".join)
params = st.fixed_dictionaries({"alpha": st.floats(0, 1), "beta": st.floats(0, 8), "gamma": st.floats(0, 1)})


def _prep(ws: list[str]) -> _Prepared:
    return _Prepared(list(ws), [STEM.get(w, w) for w in ws])


@settings(max_examples=400, deadline=None)
@given(words, words)
def test_fast_alignment_equals_the_reference_walk(hyp, ref):
    def syn(w):
        return SYN.get(w, frozenset())

    h, r = _prep(hyp), _prep(ref)
    assert _align_fast(h, r, syn) == align(h.words, h.stems, r.words, r.stems, syn)


@settings(max_examples=150, deadline=None)
@given(text, st.lists(text, min_size=1, max_size=4), params)
def test_scores_bounded_reference_order_free_and_inputs_untouched(hyp, refs, p):
    preds, golds = [hyp], [refs]
    before = copy.deepcopy((preds, golds))
    r = compute_meteor(preds, golds, synonyms={"dog": ["hound"]}, **p)
    assert (preds, golds) == before
    assert 0.0 <= r.scores[0] <= 1.0
    rev = compute_meteor([hyp], [list(reversed(refs))], synonyms={"dog": ["hound"]}, **p)
    assert rev.scores == r.scores
    more = compute_meteor([hyp], [refs + ["the cat"]], synonyms={"dog": ["hound"]}, **p)
    assert more.scores[0] >= r.scores[0]
    assert (
        compute_meteor([hyp.upper()], [[x.upper() for x in refs]], synonyms={"dog": ["hound"]}, **p).scores
        == r.scores
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=15), st.floats(0, 1), st.floats(0, 6))
def test_identical_sentences_score_one_minus_the_minimum_penalty(ws, gamma, beta):
    sentence = " ".join(ws)
    got = compute_meteor([sentence], [sentence], gamma=gamma, beta=beta, synonyms="none").scores[0]
    n = len(ws)
    assert abs(got - (1 - gamma * (1.0 / n) ** beta)) < 1e-12


@settings(max_examples=100, deadline=None)
@given(text, text)
def test_mean_is_the_mean_of_scores(a, b):
    r = compute_meteor([a, b], [b, a], synonyms="none")
    assert abs(r.meteor - sum(r.scores) / 2) < 1e-15


_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _english(n: int) -> str:
    def below_1000(k: int) -> list[str]:
        out = []
        if k >= 100:
            out += [_UNITS[k // 100], "hundred"]
            k %= 100
            if k:
                out.append("and")
        if k >= 20:
            out.append(_TENS[k // 10])
            if k % 10:
                out.append(_UNITS[k % 10])
        elif k or not out:
            out.append(_UNITS[k])
        return out

    if n == 0:
        return "zero"
    parts = []
    if n >= 1000:
        parts += below_1000(n // 1000) + ["thousand"]
        n %= 1000
        if n == 0:
            return " ".join(parts)
    return " ".join(parts + below_1000(n))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 999_999))
def test_english_number_words_round_trip(n):
    assert spelled_numbers_to_digits(f"there are {_english(n)} cats", ("en",)) == f"there are {n} cats"


@given(st.floats(0, 1e6), st.floats(0, 1e6))
def test_numeric_similarity_is_symmetric_and_bounded(a, b):
    s = numeric_similarity(a, b)
    assert s == numeric_similarity(b, a)
    assert 0.0 <= s <= 1.0
