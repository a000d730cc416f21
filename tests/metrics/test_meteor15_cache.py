"""METEOR 1.5's caches and shortcuts (:mod:`metricore.metrics.meteor15`): caches bounded,
results unchanged when they are warm from another corpus or cleared in the middle of a call
(compared with the real jar as pycocoevalcap 1.2 runs it), and the normalizer's shortcut for
plain text compared with the jar's own normalizer class."""

from __future__ import annotations

import functools
import random

import pytest

from metricore.metrics.meteor15 import compute_meteor_1_5, matchers, score
from metricore.metrics.meteor15.paraphrase import load_paraphrases
from tests.gen_cider_captions import caption_corpus, tokenized_corpus
from tests.oracles import meteor15_jar
from tests.oracles import meteor15_java_stages as stages

jar_needed = pytest.mark.skipif(
    meteor15_jar.unavailable_reason() is not None, reason=str(meteor15_jar.unavailable_reason())
)


def _same_as_jar(jar: meteor15_jar.JarMeteor, hyps: list[str], refs: list[list[str]]) -> None:
    _, scores, corpus = jar.compute(hyps, refs)
    ours = compute_meteor_1_5(hyps, refs)
    assert ours.scores == scores
    assert ours.meteor == corpus


def test_every_cache_is_bounded() -> None:
    assert matchers._MAX_GRAMS <= 1 << 20
    for f in (matchers._word, matchers.java_hash, score.prepare, load_paraphrases().emitted):
        info = f.cache_info()
        assert info.maxsize is not None and info.maxsize <= 1 << 18, f


def test_the_gram_trie_is_cleared_once_over_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matchers, "_MAX_GRAMS", 7)
    compute_meteor_1_5(["zebra grazing quietly in a green field"], [["a zebra grazes near two trees"]])
    assert "zebra" in matchers._GRAM_TRIE and matchers._gram_count > 7
    compute_meteor_1_5(["a red kite"], [["kites fly"]])
    assert "zebra" not in matchers._GRAM_TRIE and "kite" in matchers._GRAM_TRIE


@jar_needed
def test_warm_caches_from_another_corpus_change_nothing(jar: meteor15_jar.JarMeteor) -> None:
    _same_as_jar(jar, *tokenized_corpus(60, seed=31))
    _same_as_jar(jar, *tokenized_corpus(60, seed=32))  # caches now hold the first corpus's words


@jar_needed
def test_caches_cleared_mid_call_change_nothing(
    jar: meteor15_jar.JarMeteor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the n-gram trie is cleared now and then while lines are walked (as another thread's
    # call may clear it), and words are analysed again as the small LRU evicts them
    remember = matchers._remember
    calls = [0]

    def forgetful(phrase: tuple[str, ...], gram: tuple[int, int] | None) -> None:
        calls[0] += 1
        if calls[0] % 7 == 0 and calls[0] < 400:
            matchers._GRAM_TRIE.clear()
        remember(phrase, gram)

    matchers._GRAM_TRIE.clear()
    monkeypatch.setattr(matchers, "_remember", forgetful)
    monkeypatch.setattr(matchers, "_word", functools.lru_cache(maxsize=3)(matchers._word.__wrapped__))
    score.prepare.cache_clear()
    hyps, refs = tokenized_corpus(40, seed=33)
    raw_h, raw_r = caption_corpus(15, seed=34, rich=1.0)
    hyps += [h.replace("\n", " ") for h in raw_h]
    refs += [[r.replace("\n", " ") for r in rs] for rs in raw_r]
    _same_as_jar(jar, hyps, refs)
    assert calls[0] > 400  # the clears happened while the call looked n-grams up


@pytest.mark.skipif(stages.unavailable_reason() is not None, reason=str(stages.unavailable_reason()))
def test_plain_text_shortcut_matches_the_jar_normalizer() -> None:
    rng = random.Random(5)
    # letters, digits, spaces and ASCII marks (the shortcut's alphabet), plus a few texts
    # just outside it that must take the full normalizer
    alphabet = "abcxyzABCXYZ019      " + score._MARKS
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(400)]
    lines += ["DOTMULTI a", "a DOTMULTI. b", "  a  b  ", "", "A:B", "a 's", "a.b", "a-b", "x,y", "é:a"]
    want = stages.jar_lines("norm", lines)
    got = [score.prepare(line) for line in lines]
    bad = [(line, w, g) for line, w, g in zip(lines, want, got) if tuple(w.lower().split()) != g]
    assert not bad, bad[:5]
    assert sum(bool(score._SIMPLE.fullmatch(line)) for line in lines) >= 400
