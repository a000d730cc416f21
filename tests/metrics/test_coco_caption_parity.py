"""BLEU-1..4, ROUGE-L and the COCO caption table against ``pycocoevalcap`` 1.2 itself.

* The toolkit's own ``Bleu(4)``, ``Rouge()`` and ``Cider()`` scorers (pure Python) on the
  same PTB-tokenized text as metricore, on random pre-tokenized corpora (empty candidates and
  references, repeated words, doubled spaces and no-break spaces that ``str.split`` and
  ``str.split(" ")`` treat differently, 1-7 references, duplicates) and on the generated
  caption corpus (``tests/gen_cider_captions.py``: tokenizer-hostile text, empty captions).
* End to end with Java: the toolkit's ``PTBTokenizer`` then its scorers, against
  :func:`compute_coco_caption` on the raw captions; and the toolkit's ``COCOEvalCap.evaluate()``
  over ``pycocotools`` objects, with its METEOR 1.5 jar when metricore's METEOR 1.5 is
  installed (SPICE stubbed out: it needs a CoreNLP download), against
  :class:`metricore.metrics.coco_caption.COCOEvalCap`.

Every number, corpus and per image, to 1e-9 (BLEU and ROUGE-L are in fact bit-identical).
"""

from __future__ import annotations

import json
import random
import sys
import types

import numpy as np
import pytest

from metricore.metrics import cider_corpus
from metricore.metrics.bleu import compute_bleu
from metricore.metrics.coco_caption import COCOEvalCap, compute_coco_caption, meteor_1_5_available
from metricore.metrics.rouge import compute_rouge_l
from metricore.text.ptb_tokenize import coco_tokenize
from tests.gen_cider_captions import caption_corpus
from tests.oracles import java_ptb

Bleu = pytest.importorskip("pycocoevalcap.bleu.bleu", reason="pycocoevalcap is not installed").Bleu
Rouge = pytest.importorskip("pycocoevalcap.rouge.rouge").Rouge
Cider = pytest.importorskip("pycocoevalcap.cider.cider").Cider

TOL = 1e-9
JAVA = pytest.mark.skipif(
    java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())
)
BLEU_KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]


def _toolkit(
    gts: dict, res: dict, cider: bool = True, meteor: bool = False
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The toolkit's scorers on tokenized ``gts``/``res``: key -> corpus, key -> per image
    (``meteor``: also its METEOR 1.5 jar, which needs Java)."""
    corpus: dict[str, float] = {}
    per: dict[str, np.ndarray] = {}
    b, bs = Bleu(4).compute_score(gts, res, verbose=0)
    for k, key in enumerate(BLEU_KEYS):
        corpus[key], per[key] = b[k], np.asarray(bs[k], dtype=float)
    if meteor:
        from pycocoevalcap.meteor.meteor import Meteor

        m, ms = Meteor().compute_score(gts, res)  # the JVM stops when the scorer is collected
        corpus["METEOR"], per["METEOR"] = float(m), np.asarray(ms, dtype=float)
    r, rs = Rouge().compute_score(gts, res)
    corpus["ROUGE_L"], per["ROUGE_L"] = float(r), np.asarray(rs, dtype=float)
    if cider:
        c, cs = Cider().compute_score(gts, res)
        corpus["CIDEr"], per["CIDEr"] = float(c), np.asarray(cs, dtype=float)
    return corpus, per


def _dicts(cands: list[str], refs: list[list[str]]) -> tuple[dict, dict]:
    return {i: list(r) for i, r in enumerate(refs)}, {i: [c] for i, c in enumerate(cands)}


def _assert_table(table: dict, per_image: dict, corpus: dict, per: dict) -> float:
    """Every key equal to 1e-9; returns the largest difference seen."""
    assert list(table) == list(corpus)
    worst = 0.0
    for key in corpus:
        assert len(per_image[key]) == len(per[key])
        d = max(float(np.max(np.abs(np.asarray(per_image[key]) - per[key]))), abs(table[key] - corpus[key]))
        assert d <= TOL, (key, d)
        worst = max(worst, d)
    return worst


# ------------------------------------------------------------- pre-tokenized, no Java needed


def _random_corpus(rng: random.Random) -> tuple[list[str], list[list[str]]]:
    vocab = [f"w{i}" for i in range(rng.choice([2, 3, 8, 30, 200]))]
    n_img = rng.choice([1, 2, 3, 5, 20, 60])

    def cap() -> str:
        words = [rng.choice(vocab) for _ in range(rng.choice([0, 1, 2, 3, 4, 5, 6, 9, 15, 30]))]
        if words and rng.random() < 0.2:  # repeated words
            words = words[:1] * len(words)
        # separators that str.split() and str.split(" ") disagree on (ROUGE-L splits on " ")
        sep = rng.choice([" "] * 8 + ["  ", "\u00a0", "\t"])
        text = sep.join(words)
        if rng.random() < 0.05:
            text = " " + text
        return text

    refs, cands = [], []
    for _ in range(n_img):
        rs = [cap() for _ in range(rng.randint(1, 7))]
        if rng.random() < 0.2:
            rs.append(rs[0])  # duplicate reference
        refs.append(rs)
        r = rng.random()
        cands.append("" if r < 0.1 else rng.choice(rs) if r < 0.3 else cap())
    return cands, refs


@pytest.mark.parametrize("seed", range(80))
def test_pretokenized_random_corpora_vs_pycocoevalcap(seed):
    rng = random.Random(seed)
    cands, refs = _random_corpus(rng)
    corpus, per = _toolkit(*_dicts(cands, refs), cider=False)
    bleu = compute_bleu(cands, refs, tokenize=False)
    rouge = compute_rouge_l(cands, refs, tokenize=False)
    # bit-identical: the same floating-point steps in the same order
    assert bleu.bleu == [corpus[k] for k in BLEU_KEYS]
    assert bleu.per_order == [per[k].tolist() for k in BLEU_KEYS]
    assert rouge.scores == per["ROUGE_L"].tolist() and rouge.rouge_l == corpus["ROUGE_L"]


@pytest.mark.parametrize("chunk_words", [1, 13, 200])
def test_corpora_scored_in_chunks_vs_pycocoevalcap(chunk_words, monkeypatch):
    """BLEU's counts and CIDEr-D's n-gram statistics are computed a chunk of images at a time
    (metricore.metrics.cider_corpus): any chunk size gives the toolkit's numbers."""
    monkeypatch.setattr(cider_corpus, "CHUNK_WORDS", chunk_words)
    for seed in range(20):
        cands, refs = _random_corpus(random.Random(1000 + seed))
        corpus, per = _toolkit(*_dicts(cands, refs))
        r = compute_coco_caption(cands, refs, tokenize=False, scorers=["bleu", "rouge_l", "cider"])
        _assert_table(r.table, r.per_image, corpus, per)
        assert [r.table[k] for k in BLEU_KEYS] == [corpus[k] for k in BLEU_KEYS]
    cands, refs = caption_corpus(150, seed=17)
    tok_c, tok_r = coco_tokenize(cands), [coco_tokenize(rs) for rs in refs]
    corpus, per = _toolkit(*_dicts(tok_c, tok_r))
    r = compute_coco_caption(tok_c, tok_r, tokenize=False, scorers=["bleu", "rouge_l", "cider"])
    assert _assert_table(r.table, r.per_image, corpus, per) <= 1e-14


def test_hand_picked_edge_cases_vs_pycocoevalcap():
    cands = ["", "a a a a a", "a b c d", "x", "a b", "", "b a"]
    refs = [
        ["a b c"],  # empty candidate
        ["a a", "a a a a a a a a"],  # repeated words, clipped by the largest single-reference count
        ["a b c d e", "a b c"],  # closest reference length: a tie (|5-4| = |3-4|) goes to the shorter
        ["y z", "x"],  # one word: no 2-, 3-, 4-grams at all
        ["b a", "a b c d e f g h i j"],  # ROUGE-L precision and recall maxima from different references
        [""],  # empty candidate and empty reference: ROUGE-L 1 ([""] vs [""])
        ["a b", "b a", "a b"],  # duplicates
    ]
    corpus, per = _toolkit(*_dicts(cands, refs))
    r = compute_coco_caption(cands, refs, tokenize=False, scorers=["bleu", "rouge_l", "cider"])
    _assert_table(r.table, r.per_image, corpus, per)
    assert r.per_image["ROUGE_L"][5] == 1.0 and r.per_image["ROUGE_L"][0] == 0.0
    assert r.per_image["Bleu_1"][0] == 0.0


def test_generated_captions_same_tokens_vs_pycocoevalcap():
    """400 images x 5 references of tokenizer-hostile text, tokenized by metricore, scored by
    both (the tokenizer's own parity with Java is tested in tests/text)."""
    cands, refs = caption_corpus(400, seed=16)
    tok_c = coco_tokenize(cands)
    flat = coco_tokenize([c for rs in refs for c in rs])
    tok_r = [flat[5 * i : 5 * i + 5] for i in range(len(refs))]
    corpus, per = _toolkit(*_dicts(tok_c, tok_r))
    r = compute_coco_caption(cands, refs, scorers=["bleu", "rouge_l", "cider"])
    worst = _assert_table(r.table, r.per_image, corpus, per)
    assert worst <= 1e-14
    assert 0.1 < r.table["Bleu_4"] < 0.9 and 0.3 < r.table["ROUGE_L"] < 0.95  # a spread, not degenerate


# --------------------------------------------------------------------- the full pipeline


def _java_tokenized(cands: list[str], refs: list[list[str]]) -> tuple[dict, dict]:
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    gts = PTBTokenizer().tokenize({i: [{"caption": c} for c in rs] for i, rs in enumerate(refs)})
    res = PTBTokenizer().tokenize({i: [{"caption": c}] for i, c in enumerate(cands)})
    return gts, res


@JAVA
def test_end_to_end_vs_pycocoevalcap_java():
    """300 images: Java PTBTokenizer + Bleu/Rouge/Cider vs metricore on the raw captions."""
    cands, refs = caption_corpus(300, seed=1504)
    corpus, per = _toolkit(*_java_tokenized(cands, refs))
    r = compute_coco_caption(cands, refs, scorers=["bleu", "rouge_l", "cider"])
    _assert_table(r.table, r.per_image, corpus, per)


@JAVA
@pytest.mark.slow
def test_end_to_end_5000_images_vs_pycocoevalcap_java():
    """5,000 images x 5 references, as the issue asks: the whole table, METEOR 1.5 against the
    toolkit's jar included when metricore's METEOR 1.5 is installed."""
    cands, refs = caption_corpus(5000)
    meteor = meteor_1_5_available()
    corpus, per = _toolkit(*_java_tokenized(cands, refs), meteor=meteor)
    r = compute_coco_caption(
        cands,
        refs,
        scorers=["bleu", "meteor", "rouge_l", "cider"] if meteor else ["bleu", "rouge_l", "cider"],
    )
    _assert_table(r.table, r.per_image, corpus, per)


class _NoScorer:
    """Stands in for the toolkit's Meteor and Spice (a JVM and a CoreNLP download)."""

    def __init__(self, *args, **kwargs):
        pass

    def compute_score(self, gts, res):
        return 0.0, [0.0] * len(gts)

    def method(self):
        return "stub"


@JAVA
@pytest.mark.parametrize(
    "meteor",
    [
        False,
        pytest.param(
            True,
            marks=[
                pytest.mark.slow,  # the jar's JVM and paraphrase table, and METEOR 1.5's data
                pytest.mark.skipif(not meteor_1_5_available(), reason="METEOR 1.5 is not installed"),
            ],
        ),
    ],
)
def test_coco_eval_cap_drop_in_vs_pycocoevalcap(meteor, tmp_path, monkeypatch, capsys):
    """The toolkit's COCOEvalCap over pycocotools objects built from files vs ours, on the same
    COCO objects and on the files alone; with METEOR: the toolkit's jar against METEOR 1.5."""
    pycocotools_coco = pytest.importorskip("pycocotools.coco")
    import pycocoevalcap.eval as toolkit_eval

    cands, refs = caption_corpus(120, seed=7)
    ids = [1000 + 7 * i for i in range(len(cands))]
    images = [{"id": i} for i in ids] + [{"id": 5}]  # an image without a result
    anns = [
        {"image_id": i, "id": len(ids) * k + n, "caption": c}
        for n, (i, rs) in enumerate(zip(ids, refs))
        for k, c in enumerate(rs)
    ]
    anns.append({"image_id": 5, "id": 10**6, "caption": "an unused image"})
    ann_file, res_file = tmp_path / "captions.json", tmp_path / "results.json"
    ann_file.write_text(json.dumps({"images": images, "annotations": anns}), encoding="utf-8")
    results = [{"image_id": i, "caption": c} for i, c in zip(ids[::-1], cands[::-1])]  # any order
    res_file.write_text(json.dumps(results), encoding="utf-8")

    coco = pycocotools_coco.COCO(str(ann_file))
    coco_res = coco.loadRes(str(res_file))
    if not meteor:
        monkeypatch.setattr(toolkit_eval, "Meteor", _NoScorer)
    monkeypatch.setattr(toolkit_eval, "Spice", _NoScorer)
    theirs = toolkit_eval.COCOEvalCap(coco, coco_res)
    theirs.params["image_id"] = coco_res.getImgIds()
    theirs.evaluate()
    capsys.readouterr()
    want_keys = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", *(["METEOR"] if meteor else []), "ROUGE_L", "CIDEr"]

    ours_objects = COCOEvalCap(coco, coco_res, meteor=meteor)
    ours_objects.params["image_id"] = coco_res.getImgIds()
    ours_objects.evaluate()
    ours_files = COCOEvalCap.from_files(ann_file, res_file, meteor=meteor)
    ours_files.evaluate()
    for ours in (ours_objects, ours_files):
        assert list(ours.eval) == want_keys
        for key in want_keys:
            assert abs(ours.eval[key] - theirs.eval[key]) <= TOL, key
        assert set(ours.imgToEval) == set(theirs.imgToEval) == set(ids)
        for img, row in theirs.imgToEval.items():
            assert list(ours.imgToEval[img]) == ["image_id", *want_keys]
            for key in want_keys:
                assert abs(ours.imgToEval[img][key] - row[key]) <= TOL, (img, key)
        assert [e["image_id"] for e in ours.evalImgs] == [e["image_id"] for e in theirs.evalImgs]


# ------------------------------------------------------------------ METEOR 1.5 plumbing


def test_meteor_joins_the_table_when_installed(monkeypatch):
    """With a METEOR 1.5 module present, ``METEOR`` is computed on the PTB-tokenized texts
    and placed where the toolkit puts it; ``meteor=False`` / no module leave it out."""
    seen = {}

    def meteor15_items(predictions, references):
        seen["args"] = (predictions, references)
        return "statistics"

    def meteor15_result(items, columns=True):
        assert items == "statistics" and columns
        return types.SimpleNamespace(meteor=0.25, scores=[0.5, 0.0])

    fake = types.ModuleType("metricore.metrics.meteor15")
    fake.meteor15_items = meteor15_items
    fake.meteor15_result = meteor15_result
    monkeypatch.setitem(sys.modules, "metricore.metrics.meteor15", fake)
    cands = ["A dog's toy (red).", "a cat"]
    refs = [["A dog with a toy."], ["A cat, sleeping!", "a cat"]]
    r = compute_coco_caption(cands, refs)
    assert list(r.table) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]
    assert r.table["METEOR"] == 0.25 and r.per_image["METEOR"] == [0.5, 0.0]
    assert seen["args"] == (
        ["a dog 's toy -lrb- red -rrb-", "a cat"],
        [["a dog with a toy"], ["a cat sleeping", "a cat"]],
    )
    assert "meteor:1.5-en-norm" in r.signature
    without = compute_coco_caption(cands, refs, scorers=["bleu", "rouge_l", "cider"])
    assert "METEOR" not in without.table
    monkeypatch.setitem(
        sys.modules, "metricore.metrics.meteor15", types.ModuleType("metricore.metrics.meteor15")
    )
    assert "METEOR" not in compute_coco_caption(cands, refs).table  # a module without the function
