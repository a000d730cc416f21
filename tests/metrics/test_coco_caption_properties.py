"""BLEU, ROUGE-L and the COCO caption table (hypothesis): parity with the toolkit's scorers on
arbitrary token lists, bounds, identities, orders that must not matter, monotonicity of
ROUGE-L in the references, tokenization of clean text, and inputs left alone."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.metrics.bleu import compute_bleu
from metricore.metrics.coco_caption import compute_coco_caption
from metricore.metrics.rouge import compute_rouge_l

Bleu = pytest.importorskip("pycocoevalcap.bleu.bleu", reason="pycocoevalcap is not installed").Bleu
Rouge = pytest.importorskip("pycocoevalcap.rouge.rouge").Rouge

VOCAB = ["a", "man", "dog", "cat", "rides", "sits", "on", "the", "horse", "mat", "park", "red", "two"]

caption = st.lists(st.sampled_from(VOCAB), max_size=12).map(" ".join)
nonempty = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=12).map(" ".join)
image = st.tuples(caption, st.lists(caption, min_size=1, max_size=5))
corpus = st.lists(image, min_size=1, max_size=8)


def _split(items):
    return [c for c, _ in items], [list(r) for _, r in items]


@settings(max_examples=200, deadline=None)
@given(corpus)
def test_equal_to_the_toolkit_scorers(items):
    cands, refs = _split(items)
    gts, res = {i: r for i, r in enumerate(refs)}, {i: [c] for i, c in enumerate(cands)}
    b, bs = Bleu(4).compute_score(gts, res, verbose=0)
    r, rs = Rouge().compute_score(gts, res)
    ours_b = compute_bleu(cands, refs, tokenize=False)
    ours_r = compute_rouge_l(cands, refs, tokenize=False)
    assert ours_b.bleu == b and ours_b.per_order == bs
    assert ours_r.scores == rs.tolist() and ours_r.rouge_l == float(r)


@settings(max_examples=150, deadline=None)
@given(corpus)
def test_bounds_orders_and_inputs_untouched(items):
    cands, refs = _split(items)
    before = copy.deepcopy((cands, refs))
    t = compute_coco_caption(cands, refs, tokenize=False, scorers=["bleu", "rouge_l"])
    assert (cands, refs) == before
    for key, values in t.per_image.items():
        assert all(0.0 <= v <= 1.0 for v in values), key
        assert 0.0 <= t.table[key] <= 1.0
    assert t.table["ROUGE_L"] == pytest.approx(np.mean(t.per_image["ROUGE_L"]), abs=1e-15)
    # images in another order: the same per-image scores, moved along
    perm = list(reversed(range(len(cands))))
    p = compute_coco_caption(
        [cands[i] for i in perm], [refs[i] for i in perm], tokenize=False, scorers=["bleu", "rouge_l"]
    )
    for key in t.table:
        assert p.per_image[key] == [t.per_image[key][i] for i in perm]
        # corpus BLEU from integer sums: exactly the same; ROUGE-L a mean: the same up to rounding
        assert p.table[key] == pytest.approx(t.table[key], abs=1e-15)
    # references in another order within each image: the same scores (closest-length ties go
    # to the shorter length, whatever the order)
    q = compute_coco_caption(
        cands, [list(reversed(r)) for r in refs], tokenize=False, scorers=["bleu", "rouge_l"]
    )
    assert q.per_image == t.per_image and q.table == t.table


@settings(max_examples=150, deadline=None)
@given(nonempty, st.lists(nonempty, min_size=1, max_size=4), nonempty)
def test_rouge_l_identity_and_more_references(cand, refs, extra):
    assert compute_rouge_l([cand], [[cand, *refs]], tokenize=False).scores == [1.0]
    base = compute_rouge_l([cand], [refs], tokenize=False)
    more = compute_rouge_l([cand], [[*refs, extra]], tokenize=False)
    # F is increasing in P and R, and another reference can only raise their maxima
    assert more.scores[0] >= base.scores[0]
    assert more.precision[0] >= base.precision[0] and more.recall[0] >= base.recall[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), min_size=4, max_size=12))
def test_bleu_of_a_copy_is_one_up_to_the_constants(words):
    text = " ".join(words)
    r = compute_bleu([text], [[text]], tokenize=False)
    assert all(b == pytest.approx(1.0, abs=1e-8) for b in r.bleu)


@settings(max_examples=60, deadline=None)
@given(corpus)
def test_clean_lowercase_text_needs_no_tokenizer(items):
    cands, refs = _split(items)
    a = compute_coco_caption(cands, refs, scorers=["bleu", "rouge_l"])
    b = compute_coco_caption(cands, refs, tokenize=False, scorers=["bleu", "rouge_l"])
    assert a.table == b.table and a.per_image == b.per_image
