"""METEOR 1.5 statistics and scores (``edu.cmu.meteor.scorer.MeteorScorer``/``MeteorStats``).

English defaults of the jar (task ``rank``): alpha 0.85, beta 0.2, gamma 0.6, delta 0.75,
module weights exact 1.0, stem 0.6, synonym 0.8, paraphrase 0.6. Arithmetic follows the
jar's order and IEEE semantics (0/0 is NaN, a NaN score is 0).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

from metricore.metrics.meteor15.align import Alignment, align
from metricore.metrics.meteor15.data import load_data
from metricore.metrics.meteor15.matchers import LinePhrases
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


def meteor_score(st: Stats) -> float:
    """``MeteorScorer.computeMetrics`` on a statistics line."""
    tl, rl, tf, rf = st[0], st[1], st[2], st[3]
    t_len = (DELTA * (tl - tf)) + ((1.0 - DELTA) * tf)
    r_len = (DELTA * (rl - rf)) + ((1.0 - DELTA) * rf)
    t_m = 0.0
    r_m = 0.0
    for k in range(4):
        t_m += st[4 + 4 * k] * WEIGHTS[k] * DELTA
    for k in range(4):
        r_m += st[5 + 4 * k] * WEIGHTS[k] * DELTA
    for k in range(4):
        t_m += st[6 + 4 * k] * WEIGHTS[k] * (1.0 - DELTA)
    for k in range(4):
        r_m += st[7 + 4 * k] * WEIGHTS[k] * (1.0 - DELTA)
    precision = _div(t_m, t_len)
    recall = _div(r_m, r_len)
    f_mean = _div(1.0, _div(1.0 - ALPHA, precision) + _div(ALPHA, recall))
    t_total = sum(st[4 + 4 * k] + st[6 + 4 * k] for k in range(4))
    r_total = sum(st[5 + 4 * k] + st[7 + 4 * k] for k in range(4))
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


def _alignment_stats(w1: tuple[str, ...], w2: tuple[str, ...], a: Alignment) -> Stats:
    fw = load_data().function_words
    f1 = [java_lower(w) in fw for w in w1]
    f2 = [java_lower(w) in fw for w in w2]
    st = [0.0] * N_STATS
    st[0], st[1], st[2], st[3] = len(w1), len(w2), sum(f1), sum(f2)
    for m in a.matches:
        if m is None:
            continue
        base = 4 + 4 * m.module
        for k in range(m.match_start, m.match_start + m.match_length):
            st[base + (2 if f1[k] else 0)] += 1
        for k in range(m.start, m.start + m.length):
            st[base + (3 if f2[k] else 1)] += 1
    st[20] = a.chunks
    st[21] = sum(st[4 + 4 * k] + st[6 + 4 * k] for k in range(4))
    st[22] = sum(st[5 + 4 * k] + st[7 + 4 * k] for k in range(4))
    return tuple(float(x) for x in st)


@functools.lru_cache(maxsize=1 << 16)
def prepare(text: str) -> tuple[str, ...]:
    """``-norm`` as the jar applies it: normalize, lower-case, split."""
    return tuple(java_tokens(java_lower(normalize(text))))


def best_reference(
    hypothesis: str,
    references: Sequence[str],
    phrases: Mapping[tuple[str, ...], LinePhrases] | None = None,
) -> tuple[int, Stats]:
    """Index and statistics of the best-scoring reference (the first one on ties), as
    ``MeteorScorer.getMeteorStats(test, references)``; ``(-1, ())`` without references.
    ``phrases``: :func:`.matchers.line_phrases` of the prepared lines, when computed."""
    w1 = prepare(hypothesis)
    p = phrases or {}
    best: Stats = ()
    best_k = -1
    best_score = -1.0
    for k, ref in enumerate(references):
        w2 = prepare(ref)
        st = _alignment_stats(w1, w2, align(w1, w2, p.get(w1), p.get(w2)))
        s = meteor_score(st)
        if s > best_score:
            best, best_k, best_score = st, k, s
    return best_k, best


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
