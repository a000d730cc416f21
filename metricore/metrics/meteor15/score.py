"""METEOR 1.5 statistics and scores (``edu.cmu.meteor.scorer.MeteorScorer``/``MeteorStats``).

English defaults of the jar (task ``rank``): alpha 0.85, beta 0.2, gamma 0.6, delta 0.75,
module weights exact 1.0, stem 0.6, synonym 0.8, paraphrase 0.6. Arithmetic follows the
jar's order and IEEE semantics (0/0 is NaN, a NaN score is 0).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence

from metricore.metrics.meteor15.align import Alignment, align
from metricore.metrics.meteor15.matchers import Line
from metricore.metrics.meteor15.normalize import java_lower, java_tokens, normalize

__all__ = [
    "ALPHA",
    "BETA",
    "DELTA",
    "GAMMA",
    "WEIGHTS",
    "N_STATS",
    "aggregate",
    "contribution",
    "best_line",
    "best_reference",
    "format_stats",
    "meteor_score",
    "prepare",
    "segment_stats",
]

ALPHA, BETA, GAMMA, DELTA = 0.85, 0.2, 0.6, 0.75
WEIGHTS = (1.0, 0.6, 0.8, 0.6)
N_STATS = 23

# the 23 statistics of a SCORE line, in order:
# 0 test length, 1 reference length, 2 test function words, 3 reference function words,
# 4 + 4k .. 7 + 4k (module k): test content, reference content, test function, reference
# function matches; 20 chunks, 21 test word matches, 22 reference word matches
Stats = tuple[float, ...]


def _div(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_REST = 1.0 - DELTA


def meteor_score(st: Stats) -> float:
    """``MeteorScorer.computeMetrics`` on a statistics line (the jar's operations, in its
    order: each sum is taken in the jar's order, never reordered)."""
    tl, rl, tf, rf = st[0], st[1], st[2], st[3]
    t_len = (DELTA * (tl - tf)) + (_REST * tf)
    r_len = (DELTA * (rl - rf)) + (_REST * rf)
    # the jar's order: test then reference content matches (module by module, weighted by
    # delta), then test then reference function-word matches (by 1 - delta)
    t_m = 0.0
    r_m = 0.0
    for k in range(4):
        t_m += st[4 + 4 * k] * WEIGHTS[k] * DELTA
    for k in range(4):
        r_m += st[5 + 4 * k] * WEIGHTS[k] * DELTA
    for k in range(4):
        t_m += st[6 + 4 * k] * WEIGHTS[k] * _REST
    for k in range(4):
        r_m += st[7 + 4 * k] * WEIGHTS[k] * _REST
    precision = t_m / t_len if t_len else _div(t_m, t_len)
    recall = r_m / r_len if r_len else _div(r_m, r_len)
    f_mean = _div(1.0, _div(1.0 - ALPHA, precision) + _div(ALPHA, recall))
    t_total = 0 + (st[4] + st[6]) + (st[8] + st[10]) + (st[12] + st[14]) + (st[16] + st[18])
    r_total = 0 + (st[5] + st[7]) + (st[9] + st[11]) + (st[13] + st[15]) + (st[17] + st[19])
    if t_total == tl and r_total == rl and st[20] == 1:
        frag = 0.0
    else:
        frag = _div(st[20], (st[21] + st[22]) / 2)
    if math.isnan(frag) or math.isnan(f_mean):
        return 0.0
    penalty = GAMMA * (math.inf if frag == math.inf else math.pow(frag, BETA))
    score = f_mean * (1.0 - penalty)
    if math.isnan(score):
        return 0.0
    return max(score, 0.0)


def _alignment_stats(l1: Line, l2: Line, a: Alignment) -> Stats:
    f1 = l1.function
    f2 = l2.function
    # counts are whole numbers: summed as ints they are the jar's sums of doubles
    st = [0] * N_STATS
    for m in a.matches:
        if m is None:
            continue
        base = 4 + 4 * m.module
        if m.match_length == 1 and m.length == 1:
            st[base + 2 if f1[m.match_start] else base] += 1
            st[base + 3 if f2[m.start] else base + 1] += 1
            continue
        for k in range(m.match_start, m.end1):
            st[base + 2 if f1[k] else base] += 1
        for k in range(m.start, m.end2):
            st[base + 3 if f2[k] else base + 1] += 1
    st[0], st[1], st[2], st[3] = len(f1), len(f2), sum(f1), sum(f2)
    st[20] = a.chunks
    st[21] = st[4] + st[6] + st[8] + st[10] + st[12] + st[14] + st[16] + st[18]
    st[22] = st[5] + st[7] + st[9] + st[11] + st[13] + st[15] + st[17] + st[19]
    return tuple(map(float, st))


# Text made of ASCII letters, digits, spaces and the ASCII punctuation the normalizer only
# sets apart (all but . ' ` , -) triggers no other rule of it: the jar's words are then the
# space-separated tokens once each such mark is a token of its own. Only "DOTMULTI", the
# normalizer's own placeholder, would be rewritten.
_MARKS = '!"#$%&()*+/:;<=>?@[\\]^_{|}~'
_PLAIN = re.compile("[a-z0-9 ]*")
_SIMPLE = re.compile("[A-Za-z0-9 " + re.escape(_MARKS) + "]*")
_SET_APART = str.maketrans({c: f" {c} " for c in _MARKS})


@functools.lru_cache(maxsize=1 << 16)
def prepare(text: str) -> tuple[str, ...]:
    """``-norm`` as the jar applies it: normalize, lower-case, split."""
    if _PLAIN.fullmatch(text):
        return _split(text)
    if _SIMPLE.fullmatch(text) and "DOTMULTI" not in text:
        return _split(text.translate(_SET_APART).lower())
    return tuple(java_tokens(java_lower(normalize(text))))


def _split(text: str) -> tuple[str, ...]:
    # only called on text whose one whitespace character is the space
    return tuple(text.split())


def _lines(texts: Sequence[str], lines: Mapping[tuple[str, ...], Line] | None) -> list[Line]:
    out = []
    for text in texts:
        words = prepare(text)
        line = lines.get(words) if lines is not None else None
        out.append(line if line is not None else Line(words))
    return out


def best_reference(
    hypothesis: str,
    references: Sequence[str],
    lines: Mapping[tuple[str, ...], Line] | None = None,
) -> tuple[int, Stats]:
    """Index and statistics of the best-scoring reference (the first one on ties), as
    ``MeteorScorer.getMeteorStats(test, references)``; ``(-1, ())`` without references.
    ``lines``: the :class:`.matchers.Line` of prepared lines, when computed."""
    l1, *refs = _lines([hypothesis, *references], lines)
    k, st, _ = best_line(l1, refs)
    return k, st


def best_line(l1: Line, refs: Sequence[Line]) -> tuple[int, Stats, float]:
    """:func:`best_reference` on prepared lines, with the best score (-1.0 without
    references)."""
    best: Stats = ()
    best_k = -1
    best_score = -1.0
    for k, l2 in enumerate(refs):
        st = _alignment_stats(l1, l2, align(l1, l2))
        s = meteor_score(st)
        if s > best_score:
            best, best_k, best_score = st, k, s
    return best_k, best, best_score


def segment_stats(hypothesis: str, references: Sequence[str]) -> Stats:
    """The statistics the jar answers to ``SCORE ||| ref ... ||| hyp``."""
    return best_reference(hypothesis, references)[1]


def _perfect(st: Stats) -> bool:
    return (
        sum(st[4 + 4 * k] + st[6 + 4 * k] for k in range(4)) == st[0]
        and sum(st[5 + 4 * k] + st[7 + 4 * k] for k in range(4)) == st[1]
        and st[20] == 1.0
    )


def contribution(st: Stats) -> Stats:
    """What a segment adds to the corpus statistics (``MeteorStats.addStats``): all its
    statistics, except the chunk of a segment that is one chunk matching every word."""
    return st[:20] + (0.0,) + st[21:] if _perfect(st) else st


def aggregate(stats: Sequence[Stats]) -> Stats:
    """The corpus statistics: the segments' contributions summed in order."""
    total = [0.0] * N_STATS
    for st in stats:
        for i, x in enumerate(contribution(st)):
            total[i] += x
    return tuple(total)


def format_stats(st: Stats) -> str:
    """The statistics as the jar prints them (Java ``Double.toString`` of whole numbers)."""
    return " ".join(f"{x:.1f}" for x in st)
