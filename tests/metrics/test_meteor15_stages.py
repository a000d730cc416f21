"""Stages of METEOR 1.5 against the jar's own classes: the ``-norm`` normalizer and the
Snowball English stemmer (run through ``java`` with a small compiled driver)."""

from __future__ import annotations

import pytest

from metricore.metrics.meteor15.data import load_data
from metricore.metrics.meteor15.normalize import normalize
from metricore.metrics.meteor15.stem import stem
from metricore.text.ptb_tokenize import coco_tokenize
from tests.gen_cider_captions import TRICKY, caption_corpus
from tests.oracles import meteor15_java_stages as stages

pytestmark = pytest.mark.skipif(
    stages.unavailable_reason() is not None, reason=str(stages.unavailable_reason())
)

_BREAKS = str.maketrans({c: " " for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})


def test_normalizer_matches_jar() -> None:
    hyps, refs = caption_corpus(400, seed=3, rich=1.0)
    tricky = [s for k, v in TRICKY.items() for s in [k, *v]]
    lines = [s.translate(_BREAKS) for s in hyps + [r for rs in refs for r in rs] + tricky]
    lines += coco_tokenize(lines)
    lines += ["U.S.-based Mr. Smith's 1,000.50 $ ... e.g. etc. No. 5", "a -- b – c “d” ‘e’ `f` ''g''"]
    # one rule's trigger at a time (the normalizer skips the rules whose character is absent),
    # and the placeholder's own text, which the multi-dot rule rewrites even without ".."
    lines += ["DOTMULTI.x", "a DOTMULTI. b", "DOTMULTI..", "``a``", "‘b’ c", "a–b", "a--b", "a---b"]
    lines += ["1,000", "a,b", "a ,b", "1,a", "a,1", "don't", "mcdonald 's", "’s", "1's", "rock'n'roll"]
    lines += ["a.b.", "etc.", "Mr. x", "x -", "- x", "''", "'", "`", ",", "..."]
    # ASCII control characters that Python's str.split() splits on and Java's tokenizer does not
    lines += ["a\x1fb  c.", "x\x1f y", "tab\tsep 's", "a  b", "a\xa0b"]
    want = stages.jar_lines("norm", lines)
    bad = [(line, w, normalize(line)) for line, w in zip(lines, want) if normalize(line) != w]
    assert not bad, bad[:5]


def test_stemmer_matches_jar() -> None:
    data = load_data()
    words = sorted({w for k in data.synsets for w in k.replace("_", " ").split()} | set(data.exceptions))
    words = [w for w in words if w.translate(_BREAKS) == w][::10]
    want = stages.jar_lines("stem", words)
    bad = [(w, j, stem(w)) for w, j in zip(words, want) if stem(w) != j]
    assert not bad, bad[:10]
