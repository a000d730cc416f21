"""The compiled per-pair path of METEOR 1.5 (:mod:`metricore.metrics.meteor15.fast`).

Against the jar, the parity tests (``test_meteor15_parity.py``) run every case through both
paths. Here: the compiled path is built where CI runs, it agrees with the Python path (the
specification it was written from) statistic for statistic on generated corpora dense in
ties, stems, synonyms, paraphrases and repeated words, lines longer than its 64-word masks
go to the Python path, the C walk of the paraphrase index gives each line what the Python
walk gives, and a stale build is refused.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.metrics.meteor15 import compute_meteor_1_5, fast, matchers, native
from tests.gen_cider_captions import caption_corpus, tokenized_corpus

needs_build = pytest.mark.skipif(native.built() is None, reason="the C extension is not built here")

# words with stems, synonyms and paraphrases of each other, function words and punctuation
WORDS = (
    "a an the of in on to is are and dog dogs puppy puppies man men person people kid child "
    "children big large small little photo picture image car automobile running runs run ran "
    "next beside front before sitting sits seated top atop near close by , ."
).split()
caption = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)
segment = st.tuples(caption, st.lists(caption, min_size=1, max_size=5))


def _both(hyps: list[str], refs: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fast.ENV_PURE_PYTHON, "1")
    python = compute_meteor_1_5(hyps, refs)
    monkeypatch.setenv(fast.ENV_PURE_PYTHON, "0")
    assert fast.compiled()
    compiled = compute_meteor_1_5(hyps, refs)
    assert compiled.statistics == python.statistics
    assert compiled.best_reference == python.best_reference
    assert compiled.scores == python.scores
    assert compiled.meteor == python.meteor


def test_extension_is_built_where_ci_runs() -> None:
    if not os.environ.get("CI"):
        pytest.skip("checked in CI, where scripts/setup builds the package")
    assert native.built() is not None, "scripts/setup did not build metricore.metrics.meteor15._fast"
    assert native.stale_build(native.built()) is None
    assert fast.compiled()


@needs_build
@settings(max_examples=150, deadline=None)
@given(st.lists(segment, min_size=1, max_size=6))
def test_same_statistics_as_the_python_path(rows: list[tuple[str, list[str]]]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _both([h for h, _ in rows], [r for _, r in rows], mp)


@needs_build
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_statistics_on_generated_corpora(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    hyps, refs = tokenized_corpus(400, seed=seed)
    raw_h, raw_r = caption_corpus(100, seed=seed + 10, rich=1.0)
    hyps += [h.replace("\n", " ") for h in raw_h]
    refs += [[r.replace("\n", " ") for r in rs] for rs in raw_r]
    _both(hyps, refs, monkeypatch)


@needs_build
def test_lines_over_64_words_take_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    long = " ".join(["a dog runs on the beach near a man"] * 8)  # 72 words
    hyps = [long, "a dog", long[:200], "a dog runs"]
    refs = [["a dog runs"], [long], [long, "a dog"], ["a puppy runs", "dogs run"]]
    from metricore.metrics.meteor15.matchers import line_info
    from metricore.metrics.meteor15.score import prepare

    lines = line_info([prepare(t) for t in (hyps[0], refs[0][0], hyps[3], *refs[3])])
    done = fast.score_segments([(lines[0], [lines[1]]), (lines[2], lines[3:])])
    assert done[0] is None and done[1] is not None
    _both(hyps, refs, monkeypatch)


@needs_build
def test_a_stale_build_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    module = native.built()
    assert native.stale_build(module) is None
    monkeypatch.setattr(module, "SOURCE_HASH", "0000000000000000")
    reason = native.stale_build(module)
    assert reason is not None and "pip install --no-deps -e ." in reason


def test_the_environment_variable_selects_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fast.ENV_PURE_PYTHON, "1")
    assert not fast.compiled()
    r = compute_meteor_1_5(["a man riding a horse"], [["a man rides a horse", "a horse"]])
    assert r.scores == [r.meteor] and 0.89 < r.meteor < 0.90


def _walked(
    lines: list[tuple[str, ...]], compiled: bool, monkeypatch: pytest.MonkeyPatch, cold: bool = True
) -> list[tuple]:
    monkeypatch.setenv(fast.ENV_PURE_PYTHON, "0" if compiled else "1")
    if cold:  # from an empty trie: the walks go through every round of lookups
        matchers._GRAM_TRIE.clear()
    return [(x.nodes, x.found, x.found_at) for x in matchers.line_info(lines)]


@needs_build
@pytest.mark.parametrize("seed", [4, 5])
def test_the_c_walk_gives_what_the_python_walk_gives(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from metricore.metrics.meteor15.score import prepare

    hyps, refs = tokenized_corpus(300, seed=seed)
    raw_h, raw_r = caption_corpus(60, seed=seed, rich=1.0)
    texts = hyps + [r for rs in refs for r in rs] + [t.replace("\n", " ") for t in raw_h]
    texts += [r.replace("\n", " ") for rs in raw_r for r in rs]
    lines = [prepare(t) for t in texts] + [(), ("a",), tuple("in front of the building".split()) * 3]
    python = _walked(lines, False, monkeypatch)
    assert sum(len(p[1]) for p in python) > 1000  # paraphrases were found
    assert _walked(lines, True, monkeypatch) == python
    # and with the trie already warm (one round only)
    assert _walked(lines, True, monkeypatch, cold=False) == python


def _minimal_inputs() -> list:
    """One word, one line, one segment (the line against itself), no paraphrases."""
    import numpy as np

    i32 = lambda v: np.array(v, dtype=np.int32)  # noqa: E731
    i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    return [
        i32([7]), i32([7]), np.array([0], dtype=np.uint8), i64([0, 0]), i64([]),  # words
        i64([0, 1]), i32([0]),  # lines
        i64([0, 0]), i32([]), i64([0, 0]), i32([]), i64([0]), i32([]),  # walks
        i64([]), i64([0]), i32([]), np.zeros(1, dtype=np.uint8),  # hits, phrase sizes
        i64([0, 2]), i32([0, 0]),  # segments
        np.zeros((1, 23)), np.zeros(1, dtype=np.int32), np.zeros(1),  # outputs
    ]  # fmt: skip


@needs_build
@pytest.mark.parametrize(
    "position, value, what",
    [
        (18, [0, 3], "seg_lines"),  # a line that does not exist
        (6, [4], "line_words"),  # a word that does not exist
        (5, [0, 2], "line_off"),  # past the words
        (17, [1, 2], "seg_off"),  # does not start at 0
    ],
)
def test_inconsistent_arrays_are_refused_before_any_read(position: int, value: list, what: str) -> None:
    import numpy as np

    module = native.built()
    args = _minimal_inputs()
    module.score_segments(*args)
    assert args[20].tolist() == [0] and args[21].tolist() == [1.0]  # a line against itself
    args[position] = np.array(value, dtype=args[position].dtype)
    with pytest.raises(ValueError, match=what):
        module.score_segments(*args)
    with pytest.raises(ValueError, match="max_phrase"):
        module.walk_line(("a",), {}, object(), set(), 0)
