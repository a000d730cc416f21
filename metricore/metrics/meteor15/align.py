"""The alignment search of METEOR 1.5 (``edu.cmu.meteor.aligner.Aligner``), step for step.

Candidates that are the only one at their reference position and overlap nothing are fixed
first; the rest is a beam search (width 40) over reference positions. Paths are ranked by
the jar's ``PARTIAL_COMPARE_TOTAL``: more (truncated, weighted) matched words, then fewer
chunks, then smaller distance, ties kept in insertion order (Java's stable sort). Two quirks
of the jar are kept because they decide ties: a new path's distance is added to the path it
branched from, and the weighted match count is an ``int`` (a one-word stem, synonym or
paraphrase match adds nothing to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from metricore.metrics.meteor15.matchers import LinePhrases, Match, candidate_matches

__all__ = ["BEAM_SIZE", "Alignment", "align"]

BEAM_SIZE = 40


class _Path:
    __slots__ = ("chunks", "distance", "idx", "last_end", "matches", "score", "used1", "used2")

    def __init__(self, matches: list[Match | None], used1: int, used2: int) -> None:
        self.matches = matches
        self.used1 = used1
        self.used2 = used2
        self.score = 0
        self.chunks = 0
        self.idx = 0
        self.last_end = -1
        self.distance = 0

    def copy(self) -> _Path:
        p = _Path(self.matches.copy(), self.used1, self.used2)
        p.score, p.chunks, p.idx, p.last_end, p.distance = (
            self.score,
            self.chunks,
            self.idx,
            self.last_end,
            self.distance,
        )
        return p

    def take(self, m: Match) -> None:
        self.score += m.gain
        if self.last_end != -1 and m.match_start != self.last_end:
            self.chunks += 1
        self.idx = m.start + m.length
        self.last_end = m.match_start + m.match_length


def _rank(p: _Path) -> tuple[int, int, int]:
    return (-p.score, p.chunks, p.distance)


def _resolve(cands: list[list[Match]], start: _Path) -> _Path:
    n = len(cands)
    next_paths = [start]
    for current in range(n + 1):
        paths = next_paths
        next_paths = []
        paths.sort(key=_rank)
        for path in paths[:BEAM_SIZE]:
            if current == n:
                if path.last_end != -1:
                    path.chunks += 1
                next_paths.append(path)
                continue
            if path.used2 >> current & 1:
                if current < path.idx:
                    next_paths.append(path)
                else:
                    fixed = path.matches[path.idx]
                    if fixed is not None:
                        path.take(fixed)
                        path.distance += abs(fixed.start - fixed.match_start)
                        next_paths.append(path)
                continue
            for m in cands[current]:
                if path.used2 & m.mask2 or path.used1 & m.mask1:
                    continue
                new = path.copy()
                new.used2 |= m.mask2
                new.used1 |= m.mask1
                new.matches[current] = m
                new.take(m)
                path.distance += abs(m.start - m.match_start)  # sic: the parent's
                next_paths.append(new)
            if path.last_end != -1:
                path.chunks += 1
                path.last_end = -1
            path.idx += 1
            next_paths.append(path)
        if not next_paths:
            next_paths.append(paths[0])
    next_paths.sort(key=_rank)
    return next_paths[0]


@dataclass(frozen=True)
class Alignment:
    """The chosen matches (one slot per reference position) and their counts."""

    matches: tuple[Match | None, ...]
    chunks: int


def align(
    words1: tuple[str, ...],
    words2: tuple[str, ...],
    phrases1: LinePhrases | None = None,
    phrases2: LinePhrases | None = None,
) -> Alignment:
    """Align a hypothesis (line 1) with a reference (line 2), as ``Aligner.align``."""
    cands, cov1, cov2 = candidate_matches(words1, words2, phrases1, phrases2)
    initial = _Path([None] * len(words2), 0, 0)
    for j, ms in enumerate(cands):
        if len(ms) == 1:
            m = ms[0]
            if all(cov2[j + k] == 1 for k in range(m.length)) and all(
                cov1[m.match_start + k] == 1 for k in range(m.match_length)
            ):
                initial.matches[j] = m
                initial.used2 |= m.mask2
                initial.used1 |= m.mask1
    best = _resolve(cands, initial)
    return Alignment(tuple(best.matches), _count_chunks(best.matches))


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
            idx = m.start + m.length
            last_end = m.match_start + m.match_length
    if last_end != -1:
        chunks += 1
    return chunks
