"""The four matching modules of METEOR 1.5 (``edu.cmu.meteor.aligner.*Matcher``).

Each module proposes :class:`Match` candidates per reference position, appended in the
jar's loop order (reference position outer, hypothesis position inner; paraphrases from the
reference side, then from the hypothesis side). The order matters: the beam search breaks
ties by it. Word identity is Java's ``String.hashCode`` equality, as in the jar.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

from metricore.metrics.meteor15.data import load_data
from metricore.metrics.meteor15.paraphrase import MAX_PHRASE, load_paraphrases, phrase_key
from metricore.metrics.meteor15.stem import stem

__all__ = [
    "EXACT",
    "PARAPHRASE",
    "STEM",
    "SYNONYM",
    "LinePhrases",
    "Match",
    "candidate_matches",
    "java_hash",
    "line_phrases",
]

EXACT, STEM, SYNONYM, PARAPHRASE = 0, 1, 2, 3
# the aligner's own module weights (MeteorScorer.loadConfiguration), distinct from the
# scoring weights; the beam adds them to an int, so they truncate
_ALIGN_WEIGHTS = (1.0, 0.5, 0.5, 0.5)


class Match(NamedTuple):
    start: int  # reference position
    length: int
    match_start: int  # hypothesis position
    match_length: int
    module: int
    mask2: int  # reference positions covered, as a bit mask
    mask1: int  # hypothesis positions covered
    gain: int  # what the beam adds to matches1 + matches2

    @classmethod
    def make(cls, start: int, length: int, match_start: int, match_length: int, module: int) -> Match:
        w = _ALIGN_WEIGHTS[module]
        return cls(
            start,
            length,
            match_start,
            match_length,
            module,
            ((1 << length) - 1) << start,
            ((1 << match_length) - 1) << match_start,
            int(match_length * w) + int(length * w),
        )


@functools.lru_cache(maxsize=1 << 18)
def java_hash(s: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units, 32-bit signed)."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


@functools.lru_cache(maxsize=1 << 18)
def _stem_hash(word: str) -> int:
    return java_hash(stem(word))


_SUFFIXES = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
    ("men", "man"), ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""),
    ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""),
    ("er", "e"), ("est", "e"),
)  # fmt: skip


def _morph(word: str, synsets: dict[str, frozenset[int]]) -> str:
    """``SynonymDictionary.morph``: WordNet's detachment rules, first base it knows."""
    if word.endswith("ss") or len(word.encode("utf-16-le", "surrogatepass")) <= 4:
        return word
    for suffix, add in _SUFFIXES:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)] + add
            if base in synsets:
                return base
    return ""


@functools.lru_cache(maxsize=1 << 18)
def synsets_of(word: str) -> frozenset[int]:
    """The synsets of a word and of its base form(s) (``getSynSets`` + ``getStemSynSets``)."""
    data = load_data()
    syn = data.synsets
    out = set(syn.get(word, ()))
    bases = data.exceptions.get(word)
    if bases is not None:
        for base in bases:
            out.update(syn.get(base, ()))
    else:
        out.update(syn.get(_morph(word, syn), ()))
    return frozenset(out)


class LinePhrases(NamedTuple):
    # per start position: the trie nodes (word count, node) the walk reaches, in order
    walks: tuple[tuple[tuple[int, int], ...], ...]
    # paraphrase id -> positions (ascending) where the line contains that phrase
    found: dict[int, list[int]]


def line_phrases(lines: Sequence[tuple[str, ...]]) -> list[LinePhrases]:
    """The paraphrase-table view of each line, with one index lookup for all of them."""
    table = load_paraphrases()
    spans = [
        [(i, k) for i in range(len(words)) for k in range(1, min(MAX_PHRASE, len(words) - i) + 1)]
        for words in lines
    ]
    keys = [phrase_key(" ".join(words[i : i + k])) for words, sp in zip(lines, spans) for i, k in sp]
    all_nodes = table.nodes(keys)
    all_pids = table.phrases(keys)
    out = []
    at = 0
    for words, sp in zip(lines, spans):
        nodes = dict(zip(sp, all_nodes[at : at + len(sp)]))
        found: dict[int, list[int]] = {}
        for (i, _), pid in zip(sp, all_pids[at : at + len(sp)]):
            if pid >= 0:
                found.setdefault(pid, []).append(i)
        at += len(sp)
        walks = []
        for i in range(len(words)):
            walk = []
            for k in range(1, min(MAX_PHRASE, len(words) - i) + 1):
                node = nodes[(i, k)]
                if node < 0:
                    break
                walk.append((k, node))
            walks.append(tuple(walk))
        out.append(LinePhrases(tuple(walks), found))
    return out


def _emitted_in(node: int, other: LinePhrases) -> list[int]:
    """Ids of the paraphrases a node emits that the other line contains, in emission order
    (repeated as often as the table repeats them)."""
    emitted = load_paraphrases().emitted(node)
    hits = [(rank, pid) for pid in other.found if pid in emitted for rank in emitted[pid]]
    hits.sort()
    return [pid for _, pid in hits]


def candidate_matches(
    words1: tuple[str, ...],
    words2: tuple[str, ...],
    phrases1: LinePhrases | None = None,
    phrases2: LinePhrases | None = None,
) -> tuple[list[list[Match]], list[int], list[int]]:
    """Candidates per reference position and the coverage counts of both lines.

    ``words1`` is the hypothesis (the jar's line 1), ``words2`` a reference (line 2);
    ``phrases1``/``phrases2`` their :func:`line_phrases` when already computed.
    """
    n1, n2 = len(words1), len(words2)
    h1 = [java_hash(w) for w in words1]
    h2 = [java_hash(w) for w in words2]
    cands: list[list[Match]] = [[] for _ in range(n2)]
    cov1 = [0] * n1
    cov2 = [0] * n2

    def add(m: Match) -> None:
        cands[m.start].append(m)
        for k in range(m.match_length):
            cov1[m.match_start + k] += 1
        for k in range(m.length):
            cov2[m.start + k] += 1

    for j in range(n2):
        for i in range(n1):
            if h1[i] == h2[j]:
                add(Match.make(j, 1, i, 1, EXACT))
    # identical lines: the jar runs the exact module only
    if n1 == n2 and h1 == h2:
        return cands, cov1, cov2
    s1 = [_stem_hash(w) for w in words1]
    s2 = [_stem_hash(w) for w in words2]
    for j in range(n2):
        for i in range(n1):
            if s1[i] == s2[j] and h1[i] != h2[j]:
                add(Match.make(j, 1, i, 1, STEM))
    y1 = [synsets_of(w) for w in words1]
    y2 = [synsets_of(w) for w in words2]
    for j in range(n2):
        for i in range(n1):
            if h1[i] != h2[j] and not y1[i].isdisjoint(y2[j]):
                add(Match.make(j, 1, i, 1, SYNONYM))
    lp1 = phrases1 if phrases1 is not None else line_phrases([words1])[0]
    lp2 = phrases2 if phrases2 is not None else line_phrases([words2])[0]
    sizes = load_paraphrases().phrase_words
    for j, walk in enumerate(lp2.walks):
        for length, node in walk:
            for pid in _emitted_in(node, lp1):
                for i in lp1.found[pid]:
                    add(Match.make(j, length, i, int(sizes[pid]), PARAPHRASE))
    for i, walk in enumerate(lp1.walks):
        for length, node in walk:
            for pid in _emitted_in(node, lp2):
                for j in lp2.found[pid]:
                    add(Match.make(j, int(sizes[pid]), i, length, PARAPHRASE))
    return cands, cov1, cov2
