"""The compiled path of METEOR 1.5's per-pair work (``_fast.c``; :mod:`.native` says
when it runs).

:func:`score_segments` lays out what the Python modules computed per line (word hashes,
stems, synsets and function words of :mod:`.matchers`; the paraphrase trie walk) as flat
arrays and lets the C code do, for every hypothesis-reference pair, what
:func:`.matchers.candidate_matches`, :func:`.align.align` and :func:`.score.best_line` do:
the Python functions stay the specification (their docstrings cite the jar) and the
fallback. The tests compare both paths with the jar and with each other.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import accumulate

import numpy as np

from metricore.metrics.meteor15 import native
from metricore.metrics.meteor15.matchers import Line, word_analysis
from metricore.metrics.meteor15.native import ENV_PURE_PYTHON
from metricore.metrics.meteor15.paraphrase import load_paraphrases

__all__ = ["ENV_PURE_PYTHON", "compiled", "score_segments"]
_N_STATS = 23
# the C code keeps a line's positions in 64-bit masks; longer lines take the Python path
_MAX_WORDS = 64

#: (best reference index, its 23 statistics, its score) of a segment
SegmentResult = tuple[int, tuple[float, ...], float]


def compiled() -> bool:
    """Whether pairs are scored by the compiled code."""
    return native.compiled() is not None


def _i32(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _i64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@functools.lru_cache(maxsize=1 << 18)
def _packed(word: str) -> tuple[int, int, bool, tuple[int, ...]]:
    """A word's hash, stem hash, function flag and sorted synset ids."""
    a = word_analysis(word)
    return a.hash, a.stem_hash, a.function, tuple(sorted(a.synsets))


def _pack(line: Line) -> tuple[bytes, bytes, bytes, bytes]:
    """What the C walk gives (:attr:`.matchers.Line.packed`) for a line the Python walk did."""
    return (
        _i32([x for t in line.nodes for x in t]).tobytes(),
        _i32(list(line.found)).tobytes(),
        _i32([len(at) for at in line.found_at]).tobytes(),
        _i32([b for at in line.found_at for b in at]).tobytes(),
    )


def score_segments(segments: Sequence[tuple[Line, Sequence[Line]]]) -> list[SegmentResult | None]:
    """The best reference of each ``(hypothesis, references)`` segment, as
    :func:`.score.best_line` returns it; ``None`` for a segment the compiled code leaves to
    the Python path (a line of more than 64 words, or no reference)."""
    _fast = native.built()
    if _fast is None:
        raise RuntimeError("meteor 1.5: the compiled extension is not built")
    index: dict[int, int] = {}
    lines: list[Line] = []
    seg_lines: list[int] = []
    seg_off = [0]
    for hyp, refs in segments:
        for line in (hyp, *refs):
            k = index.get(id(line))
            if k is None:
                k = index[id(line)] = len(lines)
                lines.append(line)
            seg_lines.append(k)
        seg_off.append(len(seg_lines))

    # comprehensions over flat data: this layout is the Python part of the compiled path
    vocabulary = list(set().union(*[line.words for line in lines]))
    words = dict(zip(vocabulary, range(len(vocabulary))))
    analysed = [_packed(w) for w in vocabulary]
    syn_ids = [x for a in analysed for x in a[3]]
    syn_off = [0, *accumulate(len(a[3]) for a in analysed)]
    line_words = [words[w] for line in lines for w in line.words]
    line_off = [0, *accumulate(len(line.words) for line in lines)]
    packs = [line.packed if line.packed is not None else _pack(line) for line in lines]
    node_flat = np.frombuffer(b"".join([p[0] for p in packs]), dtype=np.int32)
    node_off = _i64([0, *accumulate(len(p[0]) // 12 for p in packs)])
    found = np.frombuffer(b"".join([p[1] for p in packs]), dtype=np.int32)
    found_off = _i64([0, *accumulate(len(p[1]) // 4 for p in packs)])
    counts = np.frombuffer(b"".join([p[2] for p in packs]), dtype=np.int32)
    fpos = np.frombuffer(b"".join([p[3] for p in packs]), dtype=np.int32)
    fpos_off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=fpos_off[1:])

    # (trie node, paraphrase id) -> the ranks at which the node emits it, for the nodes the
    # lines reach and the paraphrases they hold (a few thousand entries for 5,000 images)
    table = load_paraphrases()
    held = frozenset(np.unique(found).tolist())
    hits: list[tuple[int, tuple[int, ...]]] = []
    for node in np.unique(node_flat[2::3]).tolist():
        pids, ranks = table.emitted(node)
        hits.extend(((node << 32) | pid, ranks[pid]) for pid in pids.intersection(held))
    hits.sort()
    hit_ranks: list[int] = []
    hit_off = [0]
    for _, node_ranks in hits:
        hit_ranks.extend(node_ranks)
        hit_off.append(len(hit_ranks))

    n = len(segments)
    out_stats = np.zeros((n, _N_STATS), dtype=np.float64)
    out_best = np.zeros(n, dtype=np.int32)
    out_score = np.zeros(n, dtype=np.float64)
    _fast.score_segments(
        _i32([a[0] for a in analysed]),
        _i32([a[1] for a in analysed]),
        np.array([a[2] for a in analysed], dtype=np.uint8),
        _i64(syn_off),
        _i64(syn_ids),
        _i64(line_off),
        _i32(line_words),
        node_off,
        node_flat,
        found_off,
        found,
        fpos_off,
        fpos,
        np.array([k for k, _ in hits], dtype=np.int64),
        _i64(hit_off),
        _i32(hit_ranks),
        np.ascontiguousarray(table.phrase_words, dtype=np.uint8),
        _i64(seg_off),
        _i32(seg_lines),
        out_stats,
        out_best,
        out_score,
    )
    out: list[SegmentResult | None] = []
    for best, st, score in zip(out_best.tolist(), out_stats.tolist(), out_score.tolist()):
        out.append(None if best < 0 else (best, tuple(st), score))
    return out
