"""The batched METEOR alignment (metricore.metrics.meteor_align.score_batch) against a literal walk of
NLTK's stages (tests/oracles/meteor_walk.py), item by item: best score bit for bit and the
index of the best reference, on corpora made to hit every path (repeated words, one stem
for several words in a sentence, competing synonyms, empty sentences, case)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import compute_meteor
from metricore.metrics import meteor_align as ma
from tests.oracles.meteor_walk import align

VOCAB = [
    "cat",
    "cats",
    "Cat",
    "dog",
    "dogs",
    "DOG",
    "hound",
    "the",
    "a",
    "A",
    "sat",
    "sit",
    "sits",
    "mat",
    "on",
    "run",
    "running",
    "runs",
    "x",
]
STEM = {"cats": "cat", "dogs": "dog", "sits": "sit", "sat": "sit", "running": "run", "runs": "run"}
SYN = {
    "dog": frozenset({"hound", "mat", "Dog"}),
    "hound": frozenset({"dog", "hound"}),
    "cat": frozenset({"mat", "dog", "cat"}),
    "run": frozenset({"sit", "run", "on"}),
    "sit": frozenset({"mat", "on"}),
    "mat": frozenset({"on", "sit", "not_in_corpus"}),
    "the": frozenset({"a"}),
}


def _stem(word: str) -> str:
    return STEM.get(word, word)


def _syn(stem: str) -> frozenset[str]:
    return SYN.get(stem, frozenset())


def _batch(hyps, refs, *params):
    flat = [ref for alts in refs for ref in alts]
    return ma.score_batch(hyps, flat, [len(alts) for alts in refs], {}, _stem, _syn, *params)


def _expected(hyps, refs, alpha, beta, gamma):
    scores, best_k = [], []
    for hyp, alts in zip(hyps, refs):
        hw = [w.lower() for w in hyp]
        hs = [_stem(w) for w in hw]
        best, k_best = 0.0, 0
        for k, ref in enumerate(alts):
            rw = [w.lower() for w in ref]
            m, chunks = align(hw, hs, rw, [_stem(w) for w in rw], _syn) if hw and rw else (0, 0)
            s = ma._score(m, chunks, len(hw), len(rw), alpha, beta, gamma)
            if s > best:
                best, k_best = s, k
        scores.append(best)
        best_k.append(k_best)
    return scores, best_k


sentence = st.lists(st.sampled_from(VOCAB), max_size=10)
corpus = st.lists(st.tuples(sentence, st.lists(sentence, min_size=1, max_size=4)), min_size=1, max_size=25)
params = st.sampled_from(
    [(0.9, 3.0, 0.5), (0.5, 1.0, 0.2), (1.0, 0.0, 1.0), (0.0, 6.0, 0.9), (0.85, 0.2, 0.6)]
)


@settings(max_examples=300, deadline=None)
@given(corpus, params, st.booleans())
def test_batch_equals_the_nltk_walk_item_by_item(items, p, grid):
    hyps = [h for h, _ in items]
    refs = [r for _, r in items]
    limit = ma._GRID_LIMIT
    ma._GRID_LIMIT = limit if grid else 0  # both ways of finding the free hypothesis words
    try:
        assert _batch(hyps, refs, *p) == _expected(hyps, refs, *p)
    finally:
        ma._GRID_LIMIT = limit


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "A", "dog", "dogs", "x"]), max_size=12),
    st.lists(
        st.lists(st.sampled_from(["a", "dog", "dogs", "DOGS", "x"]), max_size=12), min_size=1, max_size=5
    ),
)
def test_repeated_and_non_uniform_words(hyp, refs):
    """Few words, many repeats: ranks, and stems standing for several words."""
    assert _batch([hyp], [refs], 0.9, 3.0, 0.5) == _expected([hyp], [refs], 0.9, 3.0, 0.5)


def test_per_pair_alignment_and_batch_agree_on_competing_synonyms():
    # hypothesis words compete for the same reference words in the synonym stage
    hyp = ["dog", "cat", "sit", "run", "mat"]
    refs = [["mat", "on", "hound", "mat", "on"], ["on", "on", "on"], ["mat"], [], ["x", "hound", "x"]]
    assert _batch([hyp], [refs], 0.9, 3.0, 0.5) == _expected([hyp], [refs], 0.9, 3.0, 0.5)
    h = ma._Prepared(hyp, [_stem(w) for w in hyp])
    for ref in refs[:3] + refs[4:]:
        r = ma._Prepared(ref, [_stem(w) for w in ref])
        assert ma._align_fast(h, r, _syn) == align(hyp, h.stems, ref, r.stems, _syn)
        h.syn_union = None


def test_empty_sentences_and_single_items():
    assert _batch([[]], [[["a"]]], 0.9, 3.0, 0.5) == ([0.0], [0])
    assert _batch([["a"]], [[[], ["b"]]], 0.9, 3.0, 0.5) == ([0.0], [0])
    assert _batch([["a"]], [[["b"], ["a"]]], 0.9, 3.0, 0.5) == ([0.5], [1])


def test_compute_meteor_falls_back_item_by_item_past_the_key_space(monkeypatch):
    hyps = ["the cat sat on the mat", "a dog runs", "", "two dogs, two cats"]
    refs = [["a cat sat on a mat", "the cat"], "dogs running", "x", ["the cats", "dogs and cats"]]
    want = compute_meteor(hyps, refs, synonyms={"dog": ["hound"]})
    monkeypatch.setattr(ma, "_KEY_LIMIT", 10)
    with pytest.raises(OverflowError):
        _batch([h.split() for h in hyps], [[["a", "cat"]]] * 4, 0.9, 3.0, 0.5)
    with_fallback = compute_meteor(hyps, refs, synonyms={"dog": ["hound"]})
    assert with_fallback.scores == want.scores
    assert with_fallback.best_reference == want.best_reference
