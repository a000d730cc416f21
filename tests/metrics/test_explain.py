"""The "why" behind a score, as the Spaces show it: METEOR's alignment by stage, the tokens
behind token F1 and the n-grams CIDEr matches. Each explanation is checked against the
number it explains and, for METEOR, stage by stage against NLTK's own matching functions."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import compute_cider, compute_meteor, token_scores
from metricore.lexicon.wordnet import ensure_wordnet
from metricore.metrics.cider import DocumentFrequency, explain_cider
from metricore.metrics.meteor import explain_meteor, tokenize
from metricore.metrics.token_f1 import token_overlap
from metricore.text.normalize import get_normalizer
from tests.gen_captions import caption_sets

# ----------------------------------------------------------------------------- METEOR


@pytest.fixture(scope="module")
def nltk_stages():
    """NLTK 3.10's three matching stages with the stock WordNet reader."""
    nltk_meteor = pytest.importorskip("nltk.translate.meteor_score")
    from nltk.stem.porter import PorterStemmer

    ensure_wordnet()
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    stemmer = PorterStemmer()

    def stages(hyp: list[str], ref: list[str]) -> dict[str, set[tuple[int, int]]]:
        h, r = nltk_meteor._generate_enums(hyp, ref)
        exact, h, r = nltk_meteor._match_enums(h, r)
        stem, h, r = nltk_meteor._enum_stem_match(h, r, stemmer=stemmer)
        syn, h, r = nltk_meteor._enum_wordnetsyn_match(h, r, wordnet=wordnet)
        return {"exact": set(exact), "stem": set(stem), "synonym": set(syn)}

    return stages


def _by_stage(alignment) -> dict[str, set[tuple[int, int]]]:
    out: dict[str, set[tuple[int, int]]] = {"exact": set(), "stem": set(), "synonym": set()}
    for i, j, stage in alignment.matches:
        out[stage].add((i, j))
    return out


def test_meteor_alignment_equals_nltk_stage_by_stage(nltk_stages):
    hyps, refs = caption_sets(60, seed=11, refs=3)
    synonym_matches = 0
    for hyp, alts in zip(hyps, refs):
        a = explain_meteor(hyp, alts)
        gold = alts[a.reference_index]
        assert a.score == compute_meteor([hyp], [alts]).scores[0]
        assert a.score == compute_meteor([hyp], [gold]).scores[0]
        want = nltk_stages(list(tokenize(hyp)), list(tokenize(gold)))
        assert _by_stage(a) == want, (hyp, gold)
        synonym_matches += len(want["synonym"])
    assert synonym_matches > 0  # the corpus exercises the WordNet stage


def test_meteor_alignment_reproduces_the_score():
    hyps, refs = caption_sets(40, seed=3, refs=2)
    for hyp, alts in zip(hyps, refs):
        a = explain_meteor(hyp, alts, alpha=0.7, beta=2.0, gamma=0.4, synonyms="none")
        m, nh, nr = len(a.matches), len(a.hypothesis), len(a.reference)
        if m == 0:
            assert a.score == 0.0
            continue
        p, r = m / nh, m / nr
        want = (1 - 0.4 * (a.chunks / m) ** 2.0) * p * r / (0.7 * p + 0.3 * r)
        assert a.score == pytest.approx(want, abs=1e-12)


def test_meteor_describe_names_every_stage():
    a = explain_meteor("A dog runs in the park.", ["a hound is running in a park"])
    assert (
        a.describe()
        == "exact: a, in, park | stem: runs→running | synonym: dog→hound | unmatched: the, . | 4 chunks"
    )
    assert explain_meteor("3", ["5"], variant="fbc2_vqa").describe() == "numeric rule: min/max(3, 5) = 0.6"
    assert explain_meteor("кошка", ["5"], variant="fbc2_vqa").describe() == (
        "numeric rule: gold 5, no number in the prediction → 0"
    )
    assert explain_meteor("", ["a cat"]).describe() == "empty side → 0"
    with pytest.raises(ValueError, match=r"meteor: .*references\[0\]. has no references"):
        explain_meteor("a", [])


# ----------------------------------------------------------------------------- token F1

TOKENS = st.lists(
    st.sampled_from(["the", "cat", "sat", "a", "big", "mat", "Cat", "on", ","]), max_size=8
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(TOKENS, TOKENS)
def test_token_overlap_is_the_multiset_f1_counts(pred, gold):
    o = token_overlap(pred, gold)
    s = token_scores(pred, gold)
    norm = get_normalizer("squad")
    p, g = norm.tokens(pred), norm.tokens(gold)
    assert Counter(o.common) + Counter(o.prediction_only) == Counter(p)
    assert Counter(o.common) + Counter(o.gold_only) == Counter(g)
    assert not set(o.prediction_only) & set(o.gold_only)
    if o.common:
        assert s.precision == len(o.common) / len(p) and s.recall == len(o.common) / len(g)
    else:
        assert s.f1 == 0.0


def test_token_overlap_variants_and_errors():
    assert (
        token_overlap("北京大学", "北京", variant="mlqa", language="zh").describe()
        == "common: 北, 京 | pred only: 大, 学"
    )
    assert (
        token_overlap(["paris", "lyon"], ["paris", "nice", "lyon"]).describe()
        == "common: paris, lyon | gold only: nice"
    )
    with pytest.raises(
        TypeError, match=r"token_f1: `prediction` must be a str or a list of str tokens, got int"
    ):
        token_overlap(1, "a")
    with pytest.raises(ValueError, match="language"):
        token_overlap("a", "a", variant="mlqa")


# ----------------------------------------------------------------------------- CIDEr


def test_cider_matches_are_the_shared_ngrams_with_corpus_idf():
    hyps, refs = caption_sets(30, seed=5, refs=3)
    explained = explain_cider(hyps, refs)
    table = DocumentFrequency.from_references(refs)
    scores = compute_cider(hyps, refs).scores
    for e, score in zip(explained, scores):
        assert all(1 <= m.order <= 4 for m in e.matches)
        for m in e.matches:
            assert m.idf == pytest.approx(math.log(len(hyps)) - math.log(table.counts[m.ngram]))
        if not any(m.idf > 0 for m in e.matches):
            assert score == 0.0
    e = explain_cider(["a cat sits", "a dog"], [["a cat sat"], ["a dog runs"]], tokenize=False)
    assert [m.ngram for m in e[0].matches] == ["a", "cat", "a cat"] and e[0].candidate_ngrams == (3, 2, 1, 0)
    assert e[0].describe() == (
        "shared 1-4-grams: 2/3 · 1/2 · 0/1 · 0/0 | longest: “a cat” | idf 0 (in every image's references): “a”"
    )
    assert explain_cider(["", "x"], ["a", "b"])[0].describe() == "empty candidate → 0"
    with pytest.raises(ValueError, match=r"cider: `references\[1\]` has no reference caption"):
        explain_cider(["a", "b"], [["a"], []])
