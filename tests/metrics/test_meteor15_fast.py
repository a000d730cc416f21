"""The compiled backend of METEOR 1.5 (:mod:`metricore.metrics.meteor15.backend_c`).

Against the jar, the parity tests (``test_meteor15_parity.py``) run every case through both
backends. Here: the extension is importable where it was built (and must be in CI), its
constants are the Python modules', it agrees with the Python backend (the specification it
was written from) statistic for statistic on generated corpora dense in ties, stems,
synonyms, paraphrases and repeated words and on lines of any length, the C walk of the
paraphrase index gives each line what the Python walk gives, a stale build or one whose
constants differ is refused with a warning, and a malformed call of the private ``_fast``
functions is a ValueError or TypeError before anything is read.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.metrics.meteor15 import backend, backend_py, compute_meteor_1_5, dispatch, matchers
from metricore.metrics.meteor15.score import prepare
from tests.gen_cider_captions import caption_corpus, tokenized_corpus
from tests.gen_long_captions import long_corpus

COMPILED = dispatch.compiled_module()
needs_build = pytest.mark.skipif(COMPILED is None, reason="the C extension is not built here")


def _built_extension() -> object | None:
    """The extension module when it imports, whether or not the compiled backend accepted it."""
    try:
        from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _fast


BUILT = _built_extension()

# words with stems, synonyms and paraphrases of each other, function words and punctuation
WORDS = (
    "a an the of in on to is are and dog dogs puppy puppies man men person people kid child "
    "children big large small little photo picture image car automobile running runs run ran "
    "next beside front before sitting sits seated top atop near close by , ."
).split()
caption = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)
segment = st.tuples(caption, st.lists(caption, min_size=1, max_size=5))
long_caption = st.lists(st.sampled_from(WORDS), min_size=60, max_size=160).map(" ".join)


def _both(hyps: list[str], refs: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(dispatch.ENV_PURE_PYTHON, "1")
    assert backend()[0] == "python"
    python = compute_meteor_1_5(hyps, refs)
    monkeypatch.setenv(dispatch.ENV_PURE_PYTHON, "0")
    assert backend()[0] == "compiled"
    compiled = compute_meteor_1_5(hyps, refs)
    assert compiled.statistics == python.statistics
    assert compiled.best_reference == python.best_reference
    assert compiled.scores == python.scores
    assert compiled.meteor == python.meteor


def test_the_extension_is_importable_where_it_is_built() -> None:
    """Skipped only where the extension is not built, outside CI (CI builds it, so there a
    missing build fails); a build that imports but is refused (stale, other constants) fails
    everywhere."""
    if BUILT is None:
        if os.environ.get("CI"):
            pytest.fail(f"the compiled backend does not run in CI: {backend()[1]}")
        pytest.skip(f"the C extension is not importable here: {backend()[1]}")
    assert COMPILED is not None, f"the C extension is built but refused: {backend()[1]}"


@pytest.mark.skipif(BUILT is None, reason="the C extension is not built here")
def test_the_c_constants_are_the_python_ones() -> None:
    """What the C code decides with (beam size, statistics, weights, alpha..delta, phrase
    length) is what the specification says (a build that differs is refused at import, and
    this test fails)."""
    from metricore.metrics.meteor15 import align, score
    from metricore.metrics.meteor15.paraphrase import MAX_PHRASE

    _fast: Any = BUILT

    assert _fast.BEAM_SIZE == align.BEAM_SIZE == 40
    assert _fast.N_STATS == score.N_STATS == 23
    assert _fast.MAX_PHRASE == MAX_PHRASE
    assert _fast.MODULES == matchers.MODULES
    assert _fast.ALIGN_WEIGHTS == matchers.ALIGN_WEIGHTS
    assert _fast.WEIGHTS == score.WEIGHTS
    assert (_fast.ALPHA, _fast.BETA, _fast.GAMMA, _fast.DELTA) == (
        score.ALPHA,
        score.BETA,
        score.GAMMA,
        score.DELTA,
    )
    assert _fast.MAX_LINE_WORDS >= 1 << 20


@needs_build
@pytest.mark.parametrize(
    "name, value", [("BEAM_SIZE", 41), ("BETA", 0.25), ("WEIGHTS", (1.0, 0.6, 0.8, 0.5))]
)
def test_a_build_with_other_constants_is_refused(
    name: str, value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    monkeypatch.setattr(_fast, name, value)
    assert [m.split(":")[0] for m in COMPILED.constant_mismatches(_fast)] == [name]
    # importing the compiled backend again: refused, with a warning, and the Python one runs
    monkeypatch.delitem(sys.modules, COMPILED.__name__)
    with pytest.warns(RuntimeWarning, match=f"constants differ.*{name}"):
        module, reason = dispatch._load()
    assert module is None and name in reason


@needs_build
def test_a_stale_build_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]
    from metricore.metrics.meteor15.builds import stale_build

    assert stale_build(_fast, "_fast.c", "the compiled extension") is None
    monkeypatch.setattr(_fast, "SOURCE_HASH", "0000000000000000")
    reason = stale_build(_fast, "_fast.c", "the compiled extension")
    assert reason is not None and "pip install --no-deps -e ." in reason
    monkeypatch.delitem(sys.modules, COMPILED.__name__)
    with pytest.warns(RuntimeWarning, match="older than its source"):
        assert dispatch._load()[0] is None


def test_the_environment_variable_selects_the_python_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(dispatch.ENV_PURE_PYTHON, "1")
    assert backend() == ("python", f"{dispatch.ENV_PURE_PYTHON}=1 is set")
    assert dispatch.implementation() is backend_py
    r = compute_meteor_1_5(["a man riding a horse"], [["a man rides a horse", "a horse"]])
    assert r.scores == [r.meteor] and 0.89 < r.meteor < 0.90
    monkeypatch.setenv(dispatch.ENV_PURE_PYTHON, "0")
    assert backend()[0] == ("compiled" if COMPILED is not None else "python")


def test_without_the_extension_the_python_backend_runs_and_says_why() -> None:
    """An install without a C compiler: no warning, the Python backend, and the reason."""
    import subprocess

    code = (
        "import sys, warnings; warnings.simplefilter('error'); "
        "sys.modules['metricore.metrics.meteor15._fast'] = None; "
        "import metricore.metrics.meteor15 as m; print(m.backend()[0]); print(m.backend()[1])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    kind, reason = out.stdout.splitlines()
    assert kind == "python" and "is not built" in reason


def test_both_backends_offer_the_same_functions() -> None:
    for module in (backend_py, COMPILED) if COMPILED is not None else (backend_py,):
        assert callable(module.line_info) and callable(module.score_segments)
        assert module.NAME in ("python", "compiled")


@needs_build
@settings(max_examples=150, deadline=None)
@given(st.lists(segment, min_size=1, max_size=6))
def test_same_statistics_as_the_python_backend(rows: list[tuple[str, list[str]]]) -> None:
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
@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(long_caption, st.lists(st.one_of(long_caption, caption), min_size=1, max_size=3)),
                min_size=1, max_size=3))  # fmt: skip
def test_same_statistics_on_long_lines_of_few_words(rows: list[tuple[str, list[str]]]) -> None:
    """60 to 160 words drawn from 50: every word repeats, the beam is full of ties, spans
    cross the 64-position boundaries of the C code's position sets."""
    with pytest.MonkeyPatch.context() as mp:
        _both([h for h, _ in rows], [r for _, r in rows], mp)


def _c_results(hyps: list[str], refs: list[list[str]]) -> tuple[list, list]:
    """What the C code gives each segment (``None``: left to the Python path) and the
    compiled backend's results."""
    assert COMPILED is not None
    texts = [*hyps, *(r for rs in refs for r in rs)]
    lines = dict(zip(texts, COMPILED.line_info([prepare(t) for t in texts])))
    segments = [(lines[h], [lines[r] for r in rs]) for h, rs in zip(hyps, refs)]
    return COMPILED._c_segments(segments), COMPILED.score_segments(segments)


@needs_build
def test_lines_of_any_length_stay_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines of 65 to 300 words (and one of 2,000) are scored by the C code, not left to the
    Python path, with the Python backend's numbers."""
    hyps, refs = long_corpus(12, seed=3)
    rep = " ".join(["a dog runs on the beach near a man"] * 8)  # 72 words
    hyps += [rep, "a dog", rep[:200], " ".join(["the dog ran along a beach by the men"] * 222)]
    refs += [["a dog runs"], [rep], [rep, "a dog"], [rep, " ".join(["a man on a beach"] * 400)]]
    raw, results = _c_results(hyps, refs)
    assert all(r is not None for r in raw), [i for i, r in enumerate(raw) if r is None]
    assert raw == results
    assert max(len(prepare(t)) for t in hyps + [r for rs in refs for r in rs]) == 2000
    _both(hyps, refs, monkeypatch)


@needs_build
def test_a_position_both_stem_and_synonym_of_a_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """The word "dogs" is a stem and a synonym of each of 150 "dog": two one-word candidates per
    position, in a call of its own (its work space is sized for this line only; a
    sanitizer build once found a write past it here)."""
    _both([" ".join(["dog"] * 150)], [["dogs dogs", "dog dogs " * 3]], monkeypatch)


@needs_build
def test_generated_long_captions(monkeypatch: pytest.MonkeyPatch) -> None:
    _both(*long_corpus(40, seed=5, rich=0.5), monkeypatch)


def _walked(
    lines: list[tuple[str, ...]], compiled: bool, monkeypatch: pytest.MonkeyPatch, cold: bool = True
) -> list[tuple]:
    monkeypatch.setenv(dispatch.ENV_PURE_PYTHON, "0" if compiled else "1")
    if cold:  # from an empty trie: the walks go through every round of lookups
        matchers.walk_state()[0].clear()
    return [(x.nodes, x.found, x.found_at) for x in dispatch.line_info(lines)]


@needs_build
@pytest.mark.parametrize("seed", [4, 5])
def test_the_c_walk_gives_what_the_python_walk_gives(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    hyps, refs = tokenized_corpus(300, seed=seed)
    raw_h, raw_r = caption_corpus(60, seed=seed, rich=1.0)
    texts = hyps + [r for rs in refs for r in rs] + [t.replace("\n", " ") for t in raw_h]
    texts += [r.replace("\n", " ") for rs in raw_r for r in rs]
    texts += long_corpus(5, seed=seed)[0]
    lines = [prepare(t) for t in texts] + [(), ("a",), tuple("in front of the building".split()) * 3]
    python = _walked(lines, False, monkeypatch)
    assert sum(len(p[1]) for p in python) > 1000  # paraphrases were found
    assert _walked(lines, True, monkeypatch) == python
    # and with the trie already warm (one round only)
    assert _walked(lines, True, monkeypatch, cold=False) == python


# ---- the private _fast API refuses malformed calls before reading anything


def _i32(v: list[int]) -> np.ndarray:
    return np.array(v, dtype=np.int32)


def _i64(v: list[int]) -> np.ndarray:
    return np.array(v, dtype=np.int64)


def _inputs() -> list[np.ndarray]:
    """Two words, two lines ("w0 w1", "w1"), one paraphrase the first line holds at position
    1 and the second line's node emits, two segments (each line against the other)."""
    return [
        _i32([7, 8]), _i32([7, 8]), np.array([0, 1], dtype=np.uint8), _i64([0, 0, 0]), _i64([]),  # words
        _i64([0, 2, 3]), _i32([0, 1, 1]),  # lines
        _i64([0, 0, 1]), _i32([0, 1, 5]),  # trie nodes: line 1 reaches node 5 at position 0
        _i64([0, 1, 1]), _i32([0]), _i64([0, 1]), _i32([1]),  # line 0 holds paraphrase 0 at 1
        _i64([(5 << 32) | 0]), _i64([0, 1]), _i32([0]), np.ones(1, dtype=np.uint8),  # node 5 emits 0
        _i64([0, 2, 4]), _i32([0, 1, 1, 0]),  # segments
        np.zeros((2, 23)), np.zeros(2, dtype=np.int32), np.zeros(2),  # outputs
    ]  # fmt: skip


@needs_build
def test_the_minimal_inputs_score() -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    args = _inputs()
    _fast.score_segments(*args)
    assert args[20].tolist() == [0, 0]
    # "w1" (a function word) matched exactly both ways; the paraphrase candidate lost to it
    for stats in args[19]:
        assert stats[6] == stats[7] == 1 and stats[4:6].sum() == stats[8:20].sum() == 0


_BAD = [
    (18, _i32([0, 1, 1, 3]), ValueError, "seg_lines"),  # a line that does not exist
    (6, _i32([0, 1, 4]), ValueError, "line_words"),  # a word that does not exist
    (5, _i64([0, 2, 4]), ValueError, "line_off"),  # past the words
    (17, _i64([1, 2, 4]), ValueError, "seg_off"),  # does not start at 0
    (17, _i64([0, 2]), ValueError, "seg_off"),  # fewer segments than outputs
    (11, _i64([0]), ValueError, "fpos_off"),  # short: one entry per found paraphrase + 1
    (11, _i64([0, 1, 1, 1]), ValueError, "fpos_off"),  # long
    (14, _i64([0]), ValueError, "hit_off"),  # short: one entry per hit key + 1
    (13, _i64([9, 3]), ValueError, "hit_keys"),  # not sorted
    (9, _i64([0, 1]), ValueError, "found_off"),  # short
    (7, _i64([0, 1]), ValueError, "node_off"),  # short
    (8, _i32([0, 1]), ValueError, "node_off"),  # not triples
    (3, _i64([0, 0]), ValueError, "syn_off"),  # short
    (1, _i32([7]), ValueError, "word arrays"),  # one stem for two words
    (10, _i32([3]), ValueError, "found"),  # a paraphrase id past phrase_words
    (19, np.zeros((2, 22)), ValueError, "out_stats"),
    (21, np.zeros(3), ValueError, "out_score"),
    (19, np.zeros((2, 23), dtype=np.float32), TypeError, "out_stats"),
    (5, np.array([0, 2, 3], dtype=np.float64), TypeError, "line_off"),  # 8-byte items, not int64
    (6, np.array([0, 1, 1], dtype=np.uint32), TypeError, "line_words"),
    (20, np.zeros(2, dtype=np.int64), TypeError, "out_best"),
]


@needs_build
@pytest.mark.parametrize(
    "position, value, error, what", _BAD, ids=[f"{b[3]}-{i}" for i, b in enumerate(_BAD)]
)
def test_inconsistent_arrays_are_refused_before_any_read(
    position: int, value: np.ndarray, error: type[Exception], what: str
) -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    args = _inputs()
    args[position] = value
    with pytest.raises(error, match=what):
        _fast.score_segments(*args)


@needs_build
@pytest.mark.parametrize(
    "output, other",
    [(19, 20), (19, 5), (21, 19), (20, 18)],  # an output overlapping another output or an input
)
def test_outputs_sharing_memory_are_refused(output: int, other: int) -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    args = _inputs()
    raw = np.zeros(64, dtype=np.float64)
    shapes = {19: (2, 23), 20: (2,), 21: (2,)}
    dtype = {19: np.float64, 20: np.int32, 21: np.float64}
    need = int(np.prod(shapes[output])) * np.dtype(dtype[output]).itemsize
    if other >= 19:  # two outputs over one block of memory
        args[other] = np.frombuffer(raw, dtype=dtype[other])[: int(np.prod(shapes[other]))].reshape(
            shapes[other]
        )
        args[output] = np.frombuffer(raw, dtype=np.uint8)[:need].view(dtype[output]).reshape(shapes[output])
    else:  # an output laid over an input
        block = bytearray(args[other].tobytes() + bytes(need))
        args[other] = np.frombuffer(block, dtype=args[other].dtype)[: len(args[other])]
        args[output] = np.frombuffer(block, dtype=np.uint8)[:need].view(dtype[output]).reshape(shapes[output])
    with pytest.raises(ValueError, match="shares memory"):
        _fast.score_segments(*args)


@needs_build
def test_a_wrong_argument_count_is_refused() -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    with pytest.raises(TypeError, match="22 arrays"):
        _fast.score_segments(*_inputs()[:21])


@needs_build
@pytest.mark.parametrize(
    "trie, error, what",
    [
        ({"a": ["x"]}, TypeError, "trie"),  # an entry that is not [gram, children]
        ({"a": [(1,), None]}, TypeError, "trie"),  # a gram that is not a pair
        ({"a": [(1, 1 << 40), None]}, TypeError, "trie"),  # past int32
        ({"a": [(1, 2), "b"]}, TypeError, "trie"),  # children that are not a dict
        ({"a": [(1, 2), {"b": [None, []]}]}, None, ""),  # well formed
    ],
)
def test_the_walk_refuses_a_malformed_trie(trie: dict, error: type[Exception] | None, what: str) -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    marker = object()
    if error is None:  # "b" alone was not looked up yet
        unknown: set[tuple[str, ...]] = set()
        assert _fast.walk_line(("a", "b"), trie, marker, unknown, 7) is None and unknown == {("b",)}
        return
    with pytest.raises(error, match=what):
        _fast.walk_line(("a", "b"), trie, marker, set(), 7)


@needs_build
def test_the_walk_refuses_bad_arguments() -> None:
    from metricore.metrics.meteor15 import _fast  # type: ignore[attr-defined]

    for max_phrase in (0, _fast.MAX_PHRASE + 1):
        with pytest.raises(ValueError, match="max_phrase"):
            _fast.walk_line(("a",), {}, object(), set(), max_phrase)
    with pytest.raises(TypeError, match="word 1 is not a str"):
        _fast.walk_line(("a", 3), {}, object(), set(), 7)
