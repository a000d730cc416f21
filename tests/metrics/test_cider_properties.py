"""CIDEr invariants (hypothesis): bounds, identities, orders that must not matter, the
relation between the variants, tokenization of already clean text, tables, and inputs left
alone."""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import DocumentFrequency, compute_cider
from metricore.metrics import cider_corpus

VOCAB = ["a", "man", "dog", "cat", "rides", "sits", "on", "the", "horse", "mat", "park", "red", "two"]

caption = st.lists(st.sampled_from(VOCAB), max_size=10).map(" ".join)
nonempty = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=10).map(" ".join)
image = st.tuples(caption, st.lists(nonempty, min_size=1, max_size=5))
corpus = st.lists(image, min_size=2, max_size=8)


def _split(items):
    return [c for c, _ in items], [list(r) for _, r in items]


@settings(max_examples=150, deadline=None)
@given(corpus, st.sampled_from(["cider_d", "cider"]))
def test_bounds_orders_and_inputs_untouched(items, variant):
    cands, refs = _split(items)
    before = copy.deepcopy((cands, refs))
    r = compute_cider(cands, refs, tokenize=False, variant=variant)
    assert (cands, refs) == before
    assert all(0.0 <= s <= 10.0 + 1e-9 for s in r.scores)
    assert r.cider == np.mean(r.scores)
    # images in another order: the same per-image scores, moved along
    perm = list(reversed(range(len(cands))))
    p = compute_cider([cands[i] for i in perm], [refs[i] for i in perm], tokenize=False, variant=variant)
    assert np.allclose(p.scores, [r.scores[i] for i in perm], rtol=0, atol=1e-12)
    # references in another order within each image: the same scores
    q = compute_cider(cands, [list(reversed(x)) for x in refs], tokenize=False, variant=variant)
    assert np.allclose(q.scores, r.scores, rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(corpus)
def test_cider_d_never_exceeds_plain_cider(items):
    cands, refs = _split(items)
    d = compute_cider(cands, refs, tokenize=False)
    plain = compute_cider(cands, refs, tokenize=False, variant="cider")
    assert all(a <= b + 1e-12 for a, b in zip(d.scores, plain.scores))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(VOCAB), min_size=4, max_size=9), min_size=2, max_size=6, unique_by=tuple
    )
)
def test_candidate_equal_to_its_only_reference_scores_ten(sentences):
    # every caption gets a word of its own, so every n-gram order has a non-zero weight
    caps = [" ".join([*ws, f"only{i}"]) for i, ws in enumerate(sentences)]
    r = compute_cider(caps, [[c] for c in caps], tokenize=False)
    assert np.allclose(r.scores, 10.0, rtol=0, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(corpus)
def test_ptb_tokenization_leaves_clean_lowercase_text_alone(items):
    cands, refs = _split(items)
    a = compute_cider(cands, refs, tokenize=True)
    b = compute_cider(cands, refs, tokenize=False)
    assert a.scores == b.scores
    assert a.signature != b.signature  # the tokenizer is named


@settings(max_examples=80, deadline=None)
@given(corpus)
def test_table_of_the_scored_references_equals_corpus_frequencies(items):
    cands, refs = _split(items)
    table = DocumentFrequency.from_references(refs, tokenize=False)
    a = compute_cider(cands, refs, tokenize=False)
    b = compute_cider(cands, refs, tokenize=False, df=table)
    assert np.allclose(a.scores, b.scores, rtol=0, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(corpus, st.floats(0.5, 50))
def test_a_wider_length_penalty_never_lowers_a_score(items, sigma):
    cands, refs = _split(items)
    narrow = compute_cider(cands, refs, tokenize=False, sigma=sigma)
    wide = compute_cider(cands, refs, tokenize=False, sigma=sigma * 2)
    assert all(w >= s - 1e-12 for s, w in zip(narrow.scores, wide.scores))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 64).flatmap(
        lambda bits: st.tuples(
            st.just(1 << bits),
            st.lists(st.integers(0, (1 << min(bits, 63)) - 1), max_size=300),
            st.integers(1, 12),
        )
    )
)
def test_radix_order_of_ngram_keys_is_numpys_stable_argsort(case):
    """CIDEr sorts n-gram keys below 2^48 by 16-bit digits (cider_corpus._stable_order): the
    order of NumPy's stable argsort, ties included, whatever the bound."""
    bound, values, distinct = case
    keys = np.asarray(values, dtype=np.int64)
    keys = keys[np.arange(len(keys)) % distinct] if len(keys) else keys  # ties
    assert np.array_equal(cider_corpus._stable_order(keys, bound), np.argsort(keys, kind="stable"))
