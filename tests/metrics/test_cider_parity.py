"""CIDEr-D and CIDEr against their references, per image and for the corpus, to 1e-9.

* ``cider_d`` vs ``pycocoevalcap`` 1.2: ``PTBTokenizer`` (Java) then ``Cider().compute_score``
  on the 5,000-image caption corpus (5 references each, text rich in what tokenizers disagree
  on), and ``Cider`` alone on pre-tokenized random corpora (no Java needed): duplicates, empty
  candidates, 1-7 references, short captions, other ``sigma``.
* ``cider`` (plain) and document-frequency tables vs ``tests/oracles/cider_ref.py``, a literal
  dict-based transcription of the authors' algorithm (their Python 2 code does not run here).
* The SPECS section 4 vectors.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from metricore import DocumentFrequency, coco_tokenize, compute_cider
from metricore.metrics import cider_corpus
from tests.gen_cider_captions import caption_corpus
from tests.oracles import cider_ref, java_ptb

pycoco_cider = pytest.importorskip("pycocoevalcap.cider.cider", reason="pycocoevalcap is not installed")
Cider = pycoco_cider.Cider

TOL = 1e-9
N_IMAGES = 5000
JAVA = pytest.mark.skipif(
    java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())
)


def _pycoco(cands: list[str], refs: list[list[str]], **kw) -> tuple[float, np.ndarray]:
    gts = {i: list(r) for i, r in enumerate(refs)}
    res = {i: [c] for i, c in enumerate(cands)}
    score, scores = Cider(**kw).compute_score(gts, res)
    return float(score), np.asarray(scores, dtype=float)


def _assert_close(ours, ref_scores, ref_corpus):
    assert len(ours.scores) == len(ref_scores)
    assert np.max(np.abs(np.asarray(ours.scores) - ref_scores)) <= TOL
    assert abs(ours.cider - ref_corpus) <= TOL


# ---------------------------------------------------------------------------- SPECS vectors


def test_specs_vectors():
    same = compute_cider(
        ["a man rides a horse", "two dogs play in snow"],
        [["a man rides a horse"], ["two dogs play in snow"]],
        tokenize=False,
    )
    assert same.scores == pytest.approx([10.0, 10.0], abs=1e-12)
    one_wrong = compute_cider(
        ["a man rides a horse", "a cat sleeps on it"],
        [["a man rides a horse"], ["two dogs play in snow"]],
        tokenize=False,
    )
    assert one_wrong.cider == pytest.approx(5.0, abs=1e-12)
    cands = ["a cat sits on a mat", "a dog runs"]
    refs = [["a cat sits on a mat", "a cat on a mat"], ["a dog runs in the park", "a dog in a park"]]
    r = compute_cider(cands, refs, tokenize=False)
    assert round(r.cider, 4) == 5.0491
    assert [round(s, 4) for s in r.scores] == [7.2504, 2.8477]
    _assert_close(r, *reversed(_pycoco(cands, refs)))


# ------------------------------------------------------------- pre-tokenized, no Java needed


def _random_corpus(rng: random.Random) -> tuple[list[str], list[list[str]]]:
    vocab = [f"w{i}" for i in range(rng.choice([3, 8, 30, 200]))]
    n_img = rng.choice([2, 3, 5, 20, 60])

    def cap() -> str:
        return " ".join(rng.choice(vocab) for _ in range(rng.choice([0, 1, 2, 3, 4, 6, 9, 15])))

    refs, cands = [], []
    for _ in range(n_img):
        rs = [cap() or "w0" for _ in range(rng.randint(1, 7))]
        if rng.random() < 0.2:
            rs.append(rs[0])  # duplicate reference
        refs.append(rs)
        r = rng.random()
        cands.append("" if r < 0.1 else rng.choice(rs) if r < 0.3 else cap())
    return cands, refs


@pytest.mark.parametrize("seed", range(60))
def test_pretokenized_random_corpora_vs_pycocoevalcap(seed):
    rng = random.Random(seed)
    cands, refs = _random_corpus(rng)
    sigma = rng.choice([6.0, 6.0, 1.0, 0.5, 20.0])
    ours = compute_cider(cands, refs, tokenize=False, sigma=sigma)
    score, scores = _pycoco(cands, refs, sigma=sigma)
    _assert_close(ours, scores, score)


@pytest.mark.parametrize("seed", range(30))
def test_plain_cider_and_cider_d_vs_oracle(seed):
    rng = random.Random(1000 + seed)
    cands, refs = _random_corpus(rng)
    for variant, clipped, penalty in (("cider", False, False), ("cider_d", True, True)):
        ours = compute_cider(cands, refs, tokenize=False, variant=variant)
        want = cider_ref.cider_scores(cands, refs, clipped=clipped, penalty=penalty)
        assert np.max(np.abs(np.asarray(ours.scores) - want)) <= TOL
        assert abs(ours.cider - float(np.mean(want))) <= TOL


def test_n_other_than_4_vs_oracle():
    rng = random.Random(5)
    cands, refs = _random_corpus(rng)
    for n in (1, 2, 3, 6):
        ours = compute_cider(cands, refs, tokenize=False, n=n)
        want = cider_ref.cider_scores(cands, refs, clipped=True, penalty=True, n=n)
        assert np.max(np.abs(np.asarray(ours.scores) - want)) <= TOL


@pytest.mark.parametrize("key_bound", [1, 1 << 12, 1 << 20])
@pytest.mark.parametrize("chunk_words", [None, 9])
def test_keys_on_lower_orders_ids_vs_pycocoevalcap_and_oracle(key_bound, chunk_words, monkeypatch):
    """An n-gram's key is its words' ids as base-V digits while it stays below
    ``cider_corpus._KEY_BOUND`` (2^63: vocabularies up to 55,108 words at n = 4), else its
    (n-1)-gram's id * V + its last word's: with smaller bounds every order (1), or some of
    them, is keyed the second way, in one chunk or many. CIDEr-D against ``Cider`` (n = 4:
    its reference captions are cooked with n = 4 whatever n it is given) and, at n = 6, the
    oracle; plain CIDEr with a document-frequency table (n-gram texts decoded from the keys)
    against the oracle."""
    monkeypatch.setattr(cider_corpus, "_KEY_BOUND", key_bound)
    if chunk_words is not None:
        monkeypatch.setattr(cider_corpus, "CHUNK_WORDS", chunk_words)
    for seed in range(12):
        cands, refs = _random_corpus(random.Random(2000 + seed))
        ours = compute_cider(cands, refs, tokenize=False)
        _assert_close(ours, *reversed(_pycoco(cands, refs)))
        longer = compute_cider(cands, refs, tokenize=False, n=6)
        assert longer.statistics is not None
        if key_bound == 1:
            assert all(longer.statistics.grams.rebased[1:])
        want = cider_ref.cider_scores(cands, refs, clipped=True, penalty=True, n=6)
        assert np.max(np.abs(np.asarray(longer.scores) - want)) <= TOL
        table = DocumentFrequency.from_references(refs[: len(refs) // 2 + 1], tokenize=False)
        oracle_table = {tuple(key.split()): v for key, v in table.counts.items()}
        plain = compute_cider(cands, refs, tokenize=False, df=table, variant="cider")
        want = cider_ref.cider_scores(
            cands, refs, clipped=False, penalty=False, table=oracle_table, table_images=table.num_images
        )
        assert np.max(np.abs(np.asarray(plain.scores) - want)) <= TOL


# ----------------------------------------------------------------- document-frequency tables


def test_table_of_the_same_references_equals_corpus_mode():
    cands, refs = caption_corpus(400, seed=3)
    table = DocumentFrequency.from_references(refs)
    a = compute_cider(cands, refs)
    b = compute_cider(cands, refs, df=table)
    assert np.max(np.abs(np.asarray(a.scores) - b.scores)) <= 1e-12
    assert "df:corpus" in a.signature and f"df:table-{table.fingerprint}-400img" in b.signature


def test_subset_scored_with_a_table_vs_oracle(tmp_path):
    cands, refs = caption_corpus(600, seed=4)
    table = DocumentFrequency.from_references(refs)
    path = tmp_path / "df.json.gz"
    table.save(path)
    loaded = DocumentFrequency.load(path)
    assert loaded == table and loaded.fingerprint == table.fingerprint
    sub_c, sub_r = cands[:25], refs[:25]
    tok_c = coco_tokenize(sub_c)
    tok_r_flat = coco_tokenize([c for r in sub_r for c in r])
    tok_r, k = [], 0
    for r in sub_r:
        tok_r.append(tok_r_flat[k : k + len(r)])
        k += len(r)
    oracle_table = {tuple(key.split()): v for key, v in table.counts.items()}
    for variant, clipped, penalty in (("cider_d", True, True), ("cider", False, False)):
        ours = compute_cider(sub_c, sub_r, df=loaded, variant=variant)
        want = cider_ref.cider_scores(
            tok_c, tok_r, clipped=clipped, penalty=penalty, table=oracle_table, table_images=table.num_images
        )
        assert np.max(np.abs(np.asarray(ours.scores) - want)) <= TOL
    # a single image is fine with a table (no warning, non-zero score)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = compute_cider(sub_c[:1], sub_r[:1], df=table)
    assert one.scores[0] > 0


# ------------------------------------------------------------------- documented behaviour


def test_one_image_scores_zero_with_a_warning():
    with pytest.warns(UserWarning, match="one image"):
        r = compute_cider(["a man rides a horse"], [["a man rides a horse", "a person on a horse"]])
    assert r.scores == [0.0] and r.cider == 0.0
    assert _pycoco(["a man rides a horse"], [["a man rides a horse", "a person on a horse"]])[0] == 0.0


def test_empty_candidate_scores_zero_and_duplicates_count_per_reference():
    cands = ["", "a dog runs in the park", "a cat"]
    refs = [
        ["a man rides a horse"],
        ["a dog runs in the park", "a dog runs in the park", "a dog"],
        ["a cat sleeps", "a cat sleeps"],
    ]
    r = compute_cider(cands, refs, tokenize=False)
    assert r.scores[0] == 0.0
    score, scores = _pycoco(cands, refs)
    _assert_close(r, scores, score)


# --------------------------------------------------------------------- the full pipeline


@JAVA
def test_full_pipeline_vs_pycocoevalcap_java():
    """5,000 images x 5 references, raw text: Java PTBTokenizer + Cider vs metricore alone."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    cands, refs = caption_corpus(N_IMAGES)
    gts = PTBTokenizer().tokenize({i: [{"caption": c} for c in rs] for i, rs in enumerate(refs)})
    res = PTBTokenizer().tokenize({i: [{"caption": c}] for i, c in enumerate(cands)})
    # the tokenized strings themselves are equal
    ours_refs = coco_tokenize([c for rs in refs for c in rs])
    assert ours_refs == [c for i in range(N_IMAGES) for c in gts[i]]
    assert coco_tokenize(cands) == [res[i][0] for i in range(N_IMAGES)]
    score, scores = Cider().compute_score(gts, res)
    ours = compute_cider(cands, refs)
    _assert_close(ours, np.asarray(scores), float(score))
    assert 0.5 < ours.cider < 5 and np.std(ours.scores) > 0.5  # a spread of scores, not all 0 or 10
