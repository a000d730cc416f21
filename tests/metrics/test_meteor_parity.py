"""METEOR `nltk` variant vs `nltk.translate.meteor_score` 3.10.x, per sample, to 1e-12.

Both sides get the same tokens (`nltk.word_tokenize(text, preserve_line=True)` on the NLTK
side; metricore's own cached tokenizer on ours, itself checked against NLTK here) and NLTK's
stock `nltk.corpus.wordnet` reader on the NLTK side (metricore uses its faster reader and
lemma-name lookup on the same files).
"""

from __future__ import annotations

import random

import pytest

nltk = pytest.importorskip("nltk")

from nltk.tokenize import word_tokenize  # noqa: E402
from nltk.translate.meteor_score import meteor_score, single_meteor_score  # noqa: E402

from metricore import compute_meteor  # noqa: E402
from metricore.lexicon.synonyms import get_synonym_source  # noqa: E402
from metricore.lexicon.wordnet import ensure_wordnet  # noqa: E402
from metricore.metrics.meteor import _nltk_line_tokenize, tokenize  # noqa: E402
from tests.gen_captions import caption_sets, russian_caption_sets  # noqa: E402

TOL = 1e-12
N_SETS = 5000


@pytest.fixture(scope="module")
def stock_wordnet():
    ensure_wordnet()  # provisions from Debian's files if needed (offline)
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet


def _tok(text: str) -> list[str]:
    return word_tokenize(text, preserve_line=True)


def _reference(hyps, refs, wn, **params):
    return [meteor_score([_tok(r) for r in rs], _tok(h), wordnet=wn, **params) for h, rs in zip(hyps, refs)]


DOC_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
DOC_REF = "It is a guide to action that ensures that the military will forever heed Party commands"


@pytest.mark.parametrize(
    ("hyp", "ref", "params", "want"),
    [
        (DOC_HYP, DOC_REF, {}, 0.6944),
        ("the cat was sat on the mat", "the cat sat on the mat", {}, 0.9654),
        ("the cat sat on the mat", "the cat sat on the mat", {}, 0.9977),
        ("the cat sat on the mat", "the cat sat on the mat", {"gamma": 0.0}, 1.0),
        ("cat", "cat", {}, 0.5),
        ("non matching hypothesis", "this is a cat", {}, 0.0),
        ("", "a cat", {}, 0.0),
        ("a cat", "", {}, 0.0),
    ],
)
def test_specs_vectors(stock_wordnet, hyp, ref, params, want):
    ours = compute_meteor([hyp], [[ref]], **params).scores[0]
    theirs = single_meteor_score(_tok(ref), _tok(hyp), wordnet=stock_wordnet, **params)
    assert ours == pytest.approx(theirs, abs=TOL)
    assert round(ours, 4) == want


def test_docstring_example_with_three_references(stock_wordnet):
    refs = [
        DOC_REF,
        "It is the guiding principle which guarantees the military forces always being under the command of the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    ours = compute_meteor([DOC_HYP], [refs])
    assert ours.scores[0] == pytest.approx(
        meteor_score([_tok(r) for r in refs], _tok(DOC_HYP), wordnet=stock_wordnet), abs=TOL
    )
    assert round(ours.meteor, 4) == 0.6944
    assert ours.signature.startswith("meteor|variant:nltk|nltk:3.10.")


@pytest.fixture(scope="module")
def corpus():
    return caption_sets(N_SETS)


def test_tokenizer_matches_nltk_on_the_corpus(corpus):
    hyps, refs = corpus
    texts = hyps + [r for rs in refs for r in rs]
    mismatches = [t for t in texts if list(tokenize(t)) != _tok(t)]
    assert not mismatches, mismatches[:5]


def test_tokenizer_matches_nltk_on_random_strings():
    rng = random.Random(11)
    alphabet = "ab Z09 '\"`.,:;!?()[]{}<>-*&$%#@\t_/~"
    extra = [
        "can't",
        "cannot",
        "gonna",
        "wanna",
        "d'ye",
        "more'n",
        "'tis",
        "'twas",
        "It's",
        "''",
        "``",
        "--",
        "...",
        "n't",
        "I'M",
        "they'RE",
        "é",
        "«",
        "“",
        "’",
        "—",
        "кот",
        "日本",
    ]
    for _ in range(20000):
        parts = [
            rng.choice(extra)
            if rng.random() < 0.3
            else "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
            for _ in range(rng.randint(0, 7))
        ]
        text = rng.choice([" ", "", "  "]).join(parts)
        assert _nltk_line_tokenize(text) == _tok(text), text


def test_parity_on_generated_caption_sets_with_varied_parameters(stock_wordnet, corpus):
    """>= 5,000 sets x 5 references; alpha/beta/gamma vary across five blocks."""
    hyps, refs = corpus
    assert len(hyps) >= 5000 and all(len(r) == 5 for r in refs)
    blocks = [
        {},
        {"alpha": 0.5, "beta": 1.0, "gamma": 0.2},
        {"alpha": 1.0, "beta": 0.0, "gamma": 1.0},
        {"alpha": 0.0, "beta": 6.0, "gamma": 0.9},
        {"alpha": 0.85, "beta": 0.2, "gamma": 0.6},
    ]
    size = len(hyps) // len(blocks)
    worst = 0.0
    compared = 0
    for b, params in enumerate(blocks):
        sl = slice(b * size, (b + 1) * size if b < len(blocks) - 1 else len(hyps))
        ours = compute_meteor(hyps[sl], refs[sl], **params).scores
        theirs = _reference(hyps[sl], refs[sl], stock_wordnet, **params)
        diffs = [abs(x - y) for x, y in zip(ours, theirs)]
        bad = [i for i, d in enumerate(diffs) if d > TOL]
        assert not bad, [(hyps[sl][i], refs[sl][i], ours[i], theirs[i], params) for i in bad[:3]]
        worst = max(worst, max(diffs))
        compared += len(diffs)
    assert compared == len(hyps)
    assert worst <= TOL


def test_parity_pre_tokenized_and_single_reference(stock_wordnet, corpus):
    hyps, refs = corpus
    hyps, refs = hyps[:600], refs[:600]
    tok_h = [_tok(h) for h in hyps]
    tok_r = [[_tok(r) for r in rs] for rs in refs]
    ours = compute_meteor(tok_h, tok_r).scores
    theirs = [meteor_score(r, h, wordnet=stock_wordnet) for h, r in zip(tok_h, tok_r)]
    assert max(abs(x - y) for x, y in zip(ours, theirs)) <= TOL
    single = compute_meteor(hyps, [rs[0] for rs in refs]).scores
    theirs1 = [single_meteor_score(_tok(rs[0]), _tok(h), wordnet=stock_wordnet) for h, rs in zip(hyps, refs)]
    assert max(abs(x - y) for x, y in zip(single, theirs1)) <= TOL


def test_parity_russian_text_in_the_nltk_variant(stock_wordnet):
    hyps, refs = russian_caption_sets(500)
    ours = compute_meteor(hyps, refs).scores
    theirs = _reference(hyps, refs, stock_wordnet)
    assert max(abs(x - y) for x, y in zip(ours, theirs)) <= TOL


def test_wordnet_lemma_names_match_nltk(stock_wordnet, corpus):
    """The fast lookup returns what NLTK's meteor builds from `wordnet.synsets(word)`."""
    from nltk.stem.porter import PorterStemmer

    hyps, refs = corpus
    stem = PorterStemmer().stem
    words = {w.lower() for t in hyps[:1500] + [r for rs in refs[:300] for r in rs] for w in _tok(t)}
    words |= {stem(w) for w in words}
    index_words = sorted(stock_wordnet._lemma_pos_offset_map)
    words |= set(random.Random(3).sample(index_words, 2000))
    words |= {"galore", "ate", "geese", "running", "better", "best", "mice", "Party", "US", "a", ""}
    source = get_synonym_source("wordnet")
    for w in sorted(words):
        want = {
            lemma.name()
            for synset in stock_wordnet.synsets(w)
            for lemma in synset.lemmas()
            if lemma.name().find("_") < 0
        }
        assert source.lookup(w) == want, w
