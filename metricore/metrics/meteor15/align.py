"""The alignment search of METEOR 1.5 (``edu.cmu.meteor.aligner.Aligner``), step for step.

Candidates that are the only one at their reference position and overlap nothing are fixed
first; the rest is a beam search (width 40) over reference positions. Paths are ranked by
the jar's ``PARTIAL_COMPARE_TOTAL``: more (truncated, weighted) matched words, then fewer
chunks, then smaller distance, ties kept in insertion order (Java's stable sort). Two quirks
of the jar are kept because they decide ties: a new path's distance is added to the path it
branched from, and the weighted match count is an ``int`` (a one-word stem, synonym or
paraphrase match adds nothing to it).

The search is the jar's, made cheaper without changing a decision: a path is a small list
whose matches are a linked chain (nothing is copied when a path branches), its rank is one
integer that orders as the jar's three-way comparison, a line pair whose candidates were
all fixed up front skips the search (it has one path only), and the positions before the
first open choice are followed without a beam (it holds one path there).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from metricore.metrics.meteor15.matchers import Line, Match, candidate_matches

__all__ = ["BEAM_SIZE", "Alignment", "align"]

BEAM_SIZE = 40

# a path: [rank, idx, last_end, used1, used2, chain]; chain is (match, chain) of the matches
# it took in the search (None when it took none); rank packs the jar's ordering keys
_Path = list
_RANK = operator.itemgetter(0)


def _resolve(
    cands: list[list[Match]], fixed: list[Match | None], used1: int, used2: int, n1: int, first: int
) -> _Path:
    """The beam search from the start; ``first``: the first position with a candidate
    that is not fixed (before it the beam holds one path, which is followed directly)."""
    n = len(cands)
    # a path adds each candidate's distance (< the longer line's length) at most once, and
    # its chunk count is at most the number of positions + 1: (-score, chunks, distance)
    # packs into the integer (-score * chunk_bound + chunks) * dist_bound + distance, which
    # orders as the jar's PARTIAL_COMPARE_TOTAL and is kept up to date as the three change
    dist_bound = 1 + max(n, n1) * sum(map(len, cands))
    chunk = dist_bound  # one more chunk
    point = (n + 2) * dist_bound  # one less score
    rank, idx, last_end = 0, 0, -1
    for current in range(first):
        if used2 >> current & 1:
            if current >= idx:
                m = fixed[current]
                if m is None:  # the jar keeps the path as it was
                    continue
                rank += m.distance - m.gain * point
                if last_end != -1 and m.match_start != last_end:
                    rank += chunk
                idx, last_end = m.end2, m.end1
        else:
            if last_end != -1:
                rank += chunk
                last_end = -1
            idx += 1
    next_paths: list[_Path] = [[rank, idx, last_end, used1, used2, None]]
    for current in range(first, n):
        paths = next_paths
        next_paths = []
        append = next_paths.append
        if len(paths) > 1:
            paths.sort(key=_RANK)  # stable, as Java's Collections.sort
            del paths[BEAM_SIZE:]
        bit = 1 << current
        step = cands[current]
        for path in paths:
            rank, idx, last_end, u1, u2, chain = path
            if u2 & bit:
                if current >= idx:  # the fixed match starting here (idx == current)
                    m = fixed[current]
                    if m is None:
                        continue
                    rank += m.distance - m.gain * point
                    if last_end != -1 and m.match_start != last_end:
                        rank += chunk
                    path[0] = rank
                    path[1] = m.end2
                    path[2] = m.end1
                append(path)
                continue
            for m in step:
                mask2, mask1, gain, start1, end2, end1, d, _, _, _, _ = m
                if u2 & mask2 or u1 & mask1:
                    continue
                r = rank - gain * point if gain else rank
                append(
                    [
                        r + chunk if last_end != -1 and start1 != last_end else r,
                        end2,
                        end1,
                        u1 | mask1,
                        u2 | mask2,
                        (m, chain),
                    ]
                )
                rank += d  # sic: the parent's distance
            if last_end != -1:
                rank += chunk
                path[2] = -1
            path[0] = rank
            path[1] = idx + 1
            append(path)
        if not next_paths:
            next_paths.append(paths[0])
    paths = next_paths
    if len(paths) > 1:
        paths.sort(key=_RANK)
        del paths[BEAM_SIZE:]
    for path in paths:
        if path[2] != -1:
            path[0] += chunk
    if len(paths) > 1:
        paths.sort(key=_RANK)
    return paths[0]


@dataclass(frozen=True)
class Alignment:
    """The chosen matches (one slot per reference position) and their counts."""

    matches: tuple[Match | None, ...]
    chunks: int


def align(l1: Line, l2: Line) -> Alignment:
    """Align a hypothesis (line 1) with a reference (line 2), as ``Aligner.align``."""
    cands, cov1, cov2 = candidate_matches(l1, l2)
    fixed: list[Match | None] = [None] * len(cands)
    used1 = used2 = 0
    first = -1
    for j, ms in enumerate(cands):
        if len(ms) == 1:
            m = ms[0]
            if (
                cov2[j] == 1 and cov1[m.match_start] == 1
                if m.length == 1 and m.match_length == 1
                else all(c == 1 for c in cov2[j : m.end2])
                and all(c == 1 for c in cov1[m.match_start : m.end1])
            ):
                fixed[j] = m
                used2 |= m.mask2
                used1 |= m.mask1
                continue
        if ms and first < 0:
            first = j
    if first < 0:
        # every candidate is fixed: the search has one path, which takes them all
        return Alignment(tuple(fixed), _count_chunks(fixed))
    chain = _resolve(cands, fixed, used1, used2, len(l1.words), first)[5]
    matches = fixed.copy()
    while chain is not None:
        m, chain = chain
        matches[m.start] = m
    return Alignment(tuple(matches), _count_chunks(matches))


def _count_chunks(matches: list[Match | None]) -> int:
    chunks = 0
    idx = 0
    last_end = -1
    while idx < len(matches):
        m = matches[idx]
        if m is None:
            if last_end != -1:
                chunks += 1
                last_end = -1
            idx += 1
        else:
            if last_end != -1 and m.match_start != last_end:
                chunks += 1
            idx = m.end2
            last_end = m.end1
    if last_end != -1:
        chunks += 1
    return chunks
