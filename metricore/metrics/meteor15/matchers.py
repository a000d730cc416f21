"""The four matching modules of METEOR 1.5 (``edu.cmu.meteor.aligner.*Matcher``).

Each module proposes :class:`Match` candidates per reference position, appended in the
jar's loop order (reference position outer, hypothesis position inner; paraphrases from the
reference side, then from the hypothesis side). The order matters: the beam search breaks
ties by it. Word identity is Java's ``String.hashCode`` equality, as in the jar.

Everything that depends on one line only (word hashes, stems, synsets, function words, the
paraphrase-table walk) is computed once per distinct line (:func:`line_info`) and shared by
all the pairs the line takes part in; per-word and per-n-gram results are cached across
calls in bounded caches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from metricore.metrics.meteor15.data import load_data, synset_ids
from metricore.metrics.meteor15.normalize import java_lower
from metricore.metrics.meteor15.paraphrase import MAX_PHRASE, load_paraphrases
from metricore.metrics.meteor15.stem import stem

__all__ = [
    "ALIGN_WEIGHTS",
    "EXACT",
    "MODULES",
    "PARAPHRASE",
    "STEM",
    "SYNONYM",
    "Line",
    "Match",
    "candidate_matches",
    "java_hash",
    "line_info",
    "walk_state",
    "word_analysis",
]

EXACT, STEM, SYNONYM, PARAPHRASE = 0, 1, 2, 3
MODULES = (EXACT, STEM, SYNONYM, PARAPHRASE)
# the aligner's own module weights (MeteorScorer.loadConfiguration), distinct from the
# scoring weights; the beam adds them to an int, so they truncate
ALIGN_WEIGHTS = (1.0, 0.5, 0.5, 0.5)


class Match(NamedTuple):
    """A candidate match; the fields the beam search reads come first (it unpacks them)."""

    mask2: int  # reference positions covered, as a bit mask
    mask1: int  # hypothesis positions covered
    gain: int  # what the beam adds to matches1 + matches2
    match_start: int  # hypothesis position
    end2: int  # start + length
    end1: int  # match_start + match_length
    distance: int  # |start - match_start|
    start: int  # reference position
    length: int
    match_length: int
    module: int

    @classmethod
    def make(cls, start: int, length: int, match_start: int, match_length: int, module: int) -> Match:
        w = ALIGN_WEIGHTS[module]
        return cls(
            ((1 << length) - 1) << start,
            ((1 << match_length) - 1) << match_start,
            int(match_length * w) + int(length * w),
            match_start,
            start + length,
            match_start + match_length,
            abs(start - match_start),
            start,
            length,
            match_length,
            module,
        )


# one-word matches are built without Match.make: their gain is int(1 * 1.0) * 2 = 2 for
# exact, int(1 * 0.5) * 2 = 0 for stem and synonym
_new_match = tuple.__new__


@functools.lru_cache(maxsize=1 << 18)
def java_hash(s: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units, 32-bit signed)."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


_SUFFIXES = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
    ("men", "man"), ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""),
    ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""),
    ("er", "e"), ("est", "e"),
)  # fmt: skip


def _morph(word: str, synsets: dict[str, str]) -> str:
    """``SynonymDictionary.morph``: WordNet's detachment rules, first base it knows."""
    if word.endswith("ss") or len(word.encode("utf-16-le", "surrogatepass")) <= 4:
        return word
    for suffix, add in _SUFFIXES:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)] + add
            if base in synsets:
                return base
    return ""


def synsets_of(word: str) -> frozenset[int]:
    """The synsets of a word and of its base form(s) (``getSynSets`` + ``getStemSynSets``)."""
    data = load_data()
    syn = data.synsets
    lines = [syn.get(word, "")]
    bases = data.exceptions.get(word)
    if bases is not None:
        lines.extend(syn.get(base, "") for base in bases)
    else:
        lines.append(syn.get(_morph(word, syn), ""))
    return synset_ids(" ".join(lines))


class _Word(NamedTuple):
    hash: int  # String.hashCode, the word's identity for the exact matcher
    stem_hash: int
    synsets: frozenset[int]
    function: bool  # a function word of the scorer


@functools.lru_cache(maxsize=1 << 18)
def _word(word: str) -> _Word:
    return _Word(
        java_hash(word),
        java_hash(stem(word)),
        synsets_of(word),
        java_lower(word) in load_data().function_words,
    )


def word_analysis(word: str) -> _Word:
    """A word's hash, stem hash, synsets and whether it is a function word (cached)."""
    return _word(word)


# The index lookups of earlier lines, kept for the next ones: a trie keyed by words (an
# n-gram's entry is reached one word at a time, without building its string). An entry is
# [gram, children]; gram is (trie node, paraphrase id) as ParaphraseTable.grams gives it,
# None when no phrase of the table starts with these words, _UNKNOWN when not looked up.
# Cleared at the start of a call once it holds more than _MAX_GRAMS n-grams (about 60 MB);
# within a call it holds at most the n-grams of the call's lines.
_Entry = list  # [gram, dict[str, _Entry] | None]
_UNKNOWN = (-2, -2)
_GRAM_TRIE: dict[str, _Entry] = {}
_MAX_GRAMS = 1 << 18
_gram_count = 0


def _forget_grams_if_full() -> None:
    global _gram_count
    if _gram_count > _MAX_GRAMS:
        _GRAM_TRIE.clear()
        _gram_count = 0


def walk_state() -> tuple[dict[str, _Entry], tuple[int, int]]:
    """The n-gram trie the line walks read (cleared, never replaced) and its marker of an
    n-gram not looked up yet: what a compiled walk (``backend_c``) reads."""
    return _GRAM_TRIE, _UNKNOWN


def _remember(phrase: tuple[str, ...], gram: tuple[int, int] | None) -> None:
    global _gram_count
    level = _GRAM_TRIE
    for w in phrase[:-1]:
        e = level.get(w)
        if e is None:  # the trie was cleared since the prefix was looked up
            e = level[w] = [_UNKNOWN, None]
        if e[1] is None:
            e[1] = {}
        level = e[1]
    e = level.get(phrase[-1])
    if e is None:
        level[phrase[-1]] = [gram, None]
        _gram_count += 1
    else:
        e[0] = gram


class Line:
    """What the matchers and the scorer need of one line (prepared words).

    Held in tuples and dicts of numbers, which the garbage collector stops tracking, so
    that the lines of a large corpus add little to every collection. A backend may walk the
    paraphrase index its own way (:func:`line_info` takes the class to make): a subclass
    overrides :meth:`walk` and the :attr:`nodes`, :attr:`found` and :attr:`found_at` it
    gives.
    """

    __slots__ = (
        "_done",
        "_found",
        "_found_at",
        "_function",
        "_hashes",
        "_nodes",
        "info",
        "rel",
        "words",
    )

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = words
        # the Python path's word hashes and function-word flags, made on first use (the
        # compiled path reads the words' analyses directly)
        self._hashes: tuple[int, ...] | None = None
        self._function: tuple[bool, ...] | None = None
        # set by walk(): (start, word count, trie node) of every node the trie walks reach,
        # in the jar's order; the ids of the paraphrases the line contains, and the positions
        # (ascending) of each (tuples, not a dict, so the collector stops tracking them)
        self._nodes: tuple[tuple[int, int, int], ...] | None = None
        self._found: tuple[int, ...] = ()
        self._found_at: tuple[tuple[int, ...], ...] = ()
        # while n-grams are looked up: per position, its (nodes, paraphrase ids) once walked
        self._done: list[tuple[list[tuple[int, int, int]], list[int]] | None] | None = None
        # as a hypothesis (created on first use: references need none): the analysis of
        # each word, and reference word -> what the one-word matchers find for it
        self.info: tuple[_Word, ...] | None = None
        self.rel: dict[str, tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] | None = None

    @property
    def nodes(self) -> tuple[tuple[int, int, int], ...]:
        """(start, word count, trie node) of every node the trie walks reach, in the jar's
        order (none before the line is walked)."""
        return self._nodes if self._nodes is not None else ()

    @property
    def found(self) -> tuple[int, ...]:
        """The ids of the paraphrases the line contains."""
        return self._found

    @property
    def found_at(self) -> tuple[tuple[int, ...], ...]:
        """The positions (ascending) of each of :attr:`found`."""
        return self._found_at

    @property
    def hashes(self) -> tuple[int, ...]:
        if self._hashes is None:
            self._hashes = tuple([_word(w).hash for w in self.words])
        return self._hashes

    @property
    def function(self) -> tuple[bool, ...]:
        if self._function is None:
            self._function = tuple([_word(w).function for w in self.words])
        return self._function

    def relate(self, word: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """The positions the exact module matches ``word`` (a reference word) to, and the
        (position, module) pairs of the stem then synonym modules, in the jar's order."""
        w = _word(word)
        h, sh, ys = w.hash, w.stem_hash, w.synsets
        exact: list[int] = []
        stems: list[tuple[int, int]] = []
        synonyms: list[tuple[int, int]] = []
        info = self.info
        if info is None:
            info = self.info = tuple([_word(w) for w in self.words])
        for i, x in enumerate(info):
            if x.hash == h:
                exact.append(i)
                continue
            if x.stem_hash == sh:
                stems.append((i, STEM))
            if ys and not ys.isdisjoint(x.synsets):
                synonyms.append((i, SYNONYM))
        r = (tuple(exact), tuple(stems + synonyms))
        if self.rel is None:
            self.rel = {}
        self.rel[word] = r
        return r

    def walk(self, unknown: set[tuple[str, ...]]) -> bool:
        """Walk the paraphrase index from every position; ``False`` when some position met
        an n-gram not looked up yet (added to ``unknown``): that position is walked again
        on the next call."""
        words = self.words
        n = len(words)
        done = self._done
        if done is None:
            done = self._done = [None] * n
        complete = True
        root = _GRAM_TRIE
        for i in range(n):
            if done[i] is not None:
                continue
            alive = True
            last = n - i if n - i < MAX_PHRASE else MAX_PHRASE
            nodes: list[tuple[int, int, int]] = []
            pids: list[int] = []
            level: dict[str, _Entry] | None = root
            k = 0
            while True:
                e = level.get(words[i + k]) if level is not None else None
                g = _UNKNOWN if e is None else e[0]
                if g is _UNKNOWN:
                    unknown.add(words[i : i + k + 1])
                    complete = False
                    break
                k += 1
                if g is None:  # no phrase of the table starts with these words
                    done[i] = (nodes, pids)
                    break
                node, pid = g
                if alive:
                    if node >= 0:
                        nodes.append((i, k, node))
                    else:  # the jar's trie walk stops here
                        alive = False
                if pid >= 0:
                    pids.append(pid)
                if k == last:
                    done[i] = (nodes, pids)
                    break
                level = e[1]  # type: ignore[index]
        if not complete:
            return False
        self._done = None
        all_nodes: list[tuple[int, int, int]] = []
        found: dict[int, list[int]] = {}
        for i, walked in enumerate(done):
            assert walked is not None
            all_nodes += walked[0]
            for pid in walked[1]:
                at = found.get(pid)
                if at is None:
                    found[pid] = [i]
                else:
                    at.append(i)
        self._nodes = tuple(all_nodes)
        self._found = tuple(found)
        self._found_at = tuple([tuple(v) for v in found.values()])
        return True


def line_info(lines: Sequence[tuple[str, ...]], make: Callable[[tuple[str, ...]], Line] = Line) -> list[Line]:
    """The line (made by ``make``: :class:`Line` or a backend's subclass) of each line,
    walked; equal word tuples share one."""
    _forget_grams_if_full()
    made: dict[tuple[str, ...], Line] = {}
    out = []
    for words in lines:
        line = made.get(words)
        if line is None:
            line = made[words] = make(words)
        out.append(line)
    # walk every line; the n-grams met for the first time are looked up together, and the
    # lines that met them walked again (each round reaches at least one word further)
    todo = list(made.values())
    while todo:
        unknown: set[tuple[str, ...]] = set()
        todo = [line for line in todo if not line.walk(unknown)]
        if unknown:
            phrases = sorted(unknown)
            grams = load_paraphrases().grams([" ".join(p) for p in phrases])
            for phrase, g in zip(phrases, grams):
                _remember(phrase, g)
    return out


def _emitted_in(hits: frozenset[int], ranks: dict[int, tuple[int, ...]]) -> list[int]:
    """The paraphrases of ``hits`` a node emits, in emission order (``ranks``: each one's
    places in the node's file order; repeated as often as the table repeats them)."""
    if len(hits) == 1:
        (pid,) = hits
        return [pid] * len(ranks[pid])
    return [pid for _, pid in sorted((rank, pid) for pid in hits for rank in ranks[pid])]


def candidate_matches(l1: Line, l2: Line) -> tuple[list[list[Match]], list[int], list[int]]:
    """Candidates per reference position and the coverage counts of both lines.

    ``l1`` is the hypothesis (the jar's line 1), ``l2`` a reference (line 2).
    """
    n1, n2 = len(l1.words), len(l2.words)
    cands: list[list[Match]] = [[] for _ in range(n2)]
    cov1 = [0] * n1
    cov2 = [0] * n2
    new = _new_match
    rel = l1.rel
    if rel is None:
        rel = l1.rel = {}
    # identical lines: the jar runs the exact module only
    only_exact = n1 == n2 and l1.hashes == l2.hashes
    for j, word in enumerate(l2.words):
        r = rel.get(word)
        if r is None:
            r = l1.relate(word)
        exact, other = r
        if exact:
            cj = cands[j]
            bit = 1 << j
            for i in exact:
                cj.append(new(Match, (bit, 1 << i, 2, i, j + 1, i + 1, abs(j - i), j, 1, 1, EXACT)))
                cov1[i] += 1
            cov2[j] += len(exact)
        if other and not only_exact:
            cj = cands[j]
            bit = 1 << j
            for i, module in other:
                cj.append(new(Match, (bit, 1 << i, 0, i, j + 1, i + 1, abs(j - i), j, 1, 1, module)))
                cov1[i] += 1
            cov2[j] += len(other)
    if only_exact:
        return cands, cov1, cov2
    # a reference phrase whose paraphrase the hypothesis holds, then the other way round
    for j, length, i, size in _paraphrase_pairs(l2, l1):
        _add(cands, cov1, cov2, Match.make(j, length, i, size, PARAPHRASE))
    for i, length, j, size in _paraphrase_pairs(l1, l2):
        _add(cands, cov1, cov2, Match.make(j, size, i, length, PARAPHRASE))
    return cands, cov1, cov2


def _paraphrase_pairs(source: Line, other: Line) -> Iterator[tuple[int, int, int, int]]:
    """``(start, words, other_start, other_words)`` for each phrase of ``source`` that emits a
    paraphrase ``other`` contains, in the jar's order (source positions, then emission order)."""
    if not other.found:
        return
    table = load_paraphrases()
    sizes, emitted = table.phrase_words, table.emitted
    found, at = other.found, other.found_at
    for a, length, node in source.nodes:
        pids, ranks = emitted(node)
        # iterates over the other line's few paraphrases, not over what the node emits
        hits = pids.intersection(found)
        if not hits:
            continue
        for pid in _emitted_in(hits, ranks):
            size = int(sizes[pid])
            for b in at[found.index(pid)]:
                yield a, length, b, size


def _add(cands: list[list[Match]], cov1: list[int], cov2: list[int], m: Match) -> None:
    cands[m.start].append(m)
    for k in range(m.match_start, m.match_start + m.match_length):
        cov1[k] += 1
    for k in range(m.start, m.start + m.length):
        cov2[k] += 1
