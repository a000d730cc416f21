"""CIDEr's corpus statistics from captions kept as word ids, computed in chunks of images.

What a CIDEr score needs of a corpus is its captions' words: :class:`CaptionWords` holds them
as integer ids into one vocabulary (4 bytes a word, no string per caption), which is what a
stream of batches keeps (:mod:`metricore.core.stream`; :meth:`CaptionWords.concat` joins the
batches' vocabularies). :class:`CorpusNGrams` then numbers every n-gram of the corpus and
counts the images whose references hold it (the document frequencies), and
:meth:`CorpusNGrams.scores` scores the images a chunk at a time, so that memory follows the
chunk, not the corpus.

The numbers are those of one call over the whole corpus, to the bit: words are numbered by
first occurrence in the candidates then in the references (the order of
``" ".join(candidates + references).split()``), an n-gram's id is its rank among the
corpus's n-grams ordered by (id of its (n-1)-gram prefix, id of its last word), so every sum
over a caption's n-grams runs in the same order, and the idf weights and length penalties are
computed over the whole corpus at once. Chunks only decide which images are scored together;
each image's numbers depend on its own captions and the corpus-wide weights.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CHUNK_WORDS", "CaptionWords", "Chunk", "CorpusNGrams", "chunk_bounds", "chunks", "local_entries"]

#: words (candidates and references) scored at a time; bounds the working memory
CHUNK_WORDS = 1 << 20


@dataclass(frozen=True, eq=False)
class CaptionWords:
    """Captions as word ids: per image one candidate and ``ref_counts[i]`` references.

    ``vocab``: the distinct words, numbered by first occurrence in the candidates, then in the
    references (the first ``cand_vocab`` occur in the candidates); ``cand_ids``/``ref_ids``:
    the words of every candidate / reference one after another (uint16 while the vocabulary
    has at most 65,536 words, else int32: :func:`id_type`), ``cand_len`` /
    ``ref_len`` how many each caption has. Rows are cut (:meth:`head`) and joined
    (:meth:`concat`) in row order, the numbering staying that of one call over the rows.
    """

    vocab: list[str]
    cand_vocab: int
    cand_ids: np.ndarray
    cand_len: np.ndarray
    ref_ids: np.ndarray
    ref_len: np.ndarray
    ref_counts: np.ndarray

    @classmethod
    def of(cls, candidates: Sequence[str], references: Sequence[str], ref_counts: np.ndarray) -> CaptionWords:
        """Captions whose words are separated by whitespace (``references``: every image's,
        one after another, ``ref_counts[i]`` for image ``i``)."""
        index: dict[str, int] = {}
        cand_ids = _word_ids(candidates, index)
        cand_vocab = len(index)
        ref_ids = _word_ids(references, index)
        dtype = id_type(len(index))
        return cls(
            list(index),
            cand_vocab,
            cand_ids.astype(dtype, copy=False),
            _word_counts(candidates),
            ref_ids.astype(dtype, copy=False),
            _word_counts(references),
            np.asarray(ref_counts, dtype=np.int64),
        )

    @property
    def num_images(self) -> int:
        return len(self.cand_len)

    def head(self, rows: int) -> CaptionWords:
        """The first ``rows`` images, their words numbered as one call over them would."""
        refs = int(self.ref_counts[:rows].sum())
        cand_ids = self.cand_ids[: int(self.cand_len[:rows].sum())]
        ref_ids = self.ref_ids[: int(self.ref_len[:refs].sum())]
        size = len(self.vocab)
        first = np.full(size, np.iinfo(np.int64).max)
        seen, at = np.unique(cand_ids, return_index=True)
        first[seen] = at
        seen_r, at_r = np.unique(ref_ids, return_index=True)
        only_r = first[seen_r] == np.iinfo(np.int64).max
        first[seen_r[only_r]] = len(cand_ids) + at_r[only_r]
        used = np.flatnonzero(first != np.iinfo(np.int64).max)
        order = used[np.argsort(first[used], kind="stable")]
        renumber = np.zeros(size, id_type(len(order)))
        renumber[order] = np.arange(len(order))
        vocab = self.vocab
        return CaptionWords(
            [vocab[i] for i in order.tolist()],
            len(seen),
            renumber[cand_ids],
            self.cand_len[:rows],
            renumber[ref_ids],
            self.ref_len[:refs],
            self.ref_counts[:rows],
        )

    @classmethod
    def concat(cls, parts: Sequence[CaptionWords]) -> CaptionWords:
        """The images of ``parts`` one after another, numbered as one call over them: the
        candidates' words first (by first occurrence), then the references' other words."""
        if len(parts) == 1:
            return parts[0]
        index: dict[str, int] = {}
        for p in parts:
            for w in p.vocab[: p.cand_vocab]:
                index.setdefault(w, len(index))
        cand_vocab = len(index)
        for p in parts:
            for w in p.vocab[p.cand_vocab :]:
                index.setdefault(w, len(index))
        dtype = id_type(len(index))
        renumber = [np.fromiter(map(index.__getitem__, p.vocab), dtype, len(p.vocab)) for p in parts]
        return cls(
            list(index),
            cand_vocab,
            np.concatenate([r[p.cand_ids] for r, p in zip(renumber, parts)]),
            np.concatenate([p.cand_len for p in parts]),
            np.concatenate([r[p.ref_ids] for r, p in zip(renumber, parts)]),
            np.concatenate([p.ref_len for p in parts]),
            np.concatenate([p.ref_counts for p in parts]),
        )


#: captions split into words at a time (a word is a str object until it has its id)
_SPLIT_CAPTIONS = 4096


def id_type(size: int) -> type[np.unsignedinteger[Any]] | type[np.signedinteger[Any]]:
    """The integer type of word ids into a vocabulary of ``size`` words (2 bytes a word for
    most caption corpora)."""
    return np.uint16 if size <= 1 << 16 else np.int32


def _word_ids(captions: Sequence[str], index: dict[str, int]) -> np.ndarray:
    """The ids of the captions' words (int32), new words numbered from ``len(index)`` in order
    of first occurrence (``index`` grows)."""
    out = []
    for at in range(0, len(captions), _SPLIT_CAPTIONS):
        words = " ".join(captions[at : at + _SPLIT_CAPTIONS]).split()
        for w in dict.fromkeys(words):
            index.setdefault(w, len(index))
        out.append(np.fromiter(map(index.__getitem__, words), np.int32, len(words)))
    return np.concatenate(out) if out else np.zeros(0, np.int32)


def _word_counts(captions: Sequence[str]) -> np.ndarray:
    return np.fromiter((len(s.split()) for s in captions), np.int32, len(captions))


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of an integer array (sorted): a sort and a comparison, faster
    here than ``np.unique``'s hashing."""
    if keys.size == 0:
        return keys
    keys = np.sort(keys)
    keep = np.empty(keys.size, bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _offsets(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


@dataclass(frozen=True)
class Chunk:
    """Images ``a`` to ``b``: their captions as one array of word ids, with each word's
    caption and how many words of its caption start there. Captions are numbered candidates
    first (``0..b-a-1``), then references; positions follow that numbering, or (``image_major``
    of :func:`chunks`) go image by image, each image's candidate then its references."""

    a: int
    b: int
    words: np.ndarray  # word id per position
    sent: np.ndarray  # caption per position (0..b-a-1: candidates, then references)
    remaining: np.ndarray  # words from the position to the end of its caption
    num_captions: int
    image_of_ref: np.ndarray  # chunk image of each chunk reference
    lengths: np.ndarray  # words per caption


def chunk_bounds(words: CaptionWords, chunk_words: int | None = None, *, whole: bool = False) -> list[int]:
    """The first image of every chunk of :func:`chunks`, then the number of images."""
    num = words.num_images
    if whole or num == 0:
        return [0, num]
    size = CHUNK_WORDS if chunk_words is None else chunk_words
    per_image = words.cand_len.astype(np.int64)
    per_image = per_image + np.add.reduceat(words.ref_len.astype(np.int64), _offsets(words.ref_counts)[:-1])
    ends = np.cumsum(per_image)
    cuts = np.searchsorted(ends, np.arange(size, int(ends[-1]), size), side="right")
    return [0, *sorted({int(c) for c in cuts.tolist() if 0 < c < num}), num]


def chunks(
    words: CaptionWords, chunk_words: int | None = None, *, whole: bool = False, image_major: bool = False
) -> Iterator[Chunk]:
    """The images of ``words`` in chunks of about ``chunk_words`` words (default
    :data:`CHUNK_WORDS`; at least one image each; ``whole``: one chunk); ``image_major``:
    positions image by image (:class:`Chunk`)."""
    bounds = chunk_bounds(words, chunk_words, whole=whole)
    first_ref = _offsets(words.ref_counts)
    cand_at, ref_at = _offsets(words.cand_len), _offsets(words.ref_len)
    for a, b in zip(bounds[:-1], bounds[1:]):
        r0, r1 = int(first_ref[a]), int(first_ref[b])
        ids = np.concatenate(
            [words.cand_ids[cand_at[a] : cand_at[b]], words.ref_ids[ref_at[r0] : ref_at[r1]]]
        ).astype(np.int64)
        lengths = np.concatenate([words.cand_len[a:b], words.ref_len[r0:r1]]).astype(np.int64)
        image_of_ref = np.repeat(np.arange(b - a, dtype=np.int64), words.ref_counts[a:b])
        captions = np.arange(len(lengths), dtype=np.int64)
        if image_major:
            # each image's candidate, then its references (a stable sort keeps their order)
            image = np.concatenate([np.arange(b - a, dtype=np.int64), image_of_ref])
            captions = np.argsort(2 * image + (captions >= b - a), kind="stable")
            ids = ids[_ranges(_offsets(lengths)[captions], lengths[captions])]
        at = _offsets(lengths[captions])
        sent = np.repeat(captions, lengths[captions])
        remaining = np.repeat(at[1:], lengths[captions]) - np.arange(len(ids), dtype=np.int64)
        yield Chunk(a, b, ids, sent, remaining, len(lengths), image_of_ref, lengths)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``starts[i] .. starts[i] + lengths[i] - 1`` for every ``i``, one after another."""
    shift = starts - _offsets(lengths)[:-1]
    return np.repeat(shift, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)


def local_entries(chunk: Chunk, n: int, v: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """Per order ``1..n``: (caption, n-gram id, count, number of ids) of every distinct n-gram
    of every caption of ``chunk``, sorted by caption then id, the n-grams numbered within the
    chunk (``v``: the vocabulary's size). What per-image counts need (BLEU), without the
    corpus's numbering."""
    out = []
    total = len(chunk.words)
    ids, size = chunk.words, v
    for k in range(n):
        if k == 0:
            pos, gid = np.arange(total, dtype=np.int64), ids
        else:
            pos = np.flatnonzero(chunk.remaining > k)
            uniq, gid = np.unique(ids[pos] * v + chunk.words[pos + k], return_inverse=True)
            gid = gid.reshape(-1)
            size = len(uniq)
            ids = np.full(total, -1, np.int64)
            ids[pos] = gid
        pairs, tf = np.unique(chunk.sent[pos] * size + gid, return_counts=True)
        out.append((pairs // size, pairs % size, tf.astype(np.float64), size))
    return out


#: keys of n-grams stay below this (int64); a longer n-gram's key starts from its prefix's id
_KEY_BOUND = 1 << 63


@dataclass(frozen=True, eq=False)
class _Grouped:
    """One order's n-grams of a chunk whose positions go image by image, as entries (one per
    distinct n-gram of a caption) sorted by (n-gram, image, caption): a stable sort of the
    positions by key keeps each image's candidate before its references."""

    keys: np.ndarray  # the chunk's distinct keys, sorted
    rank: np.ndarray  # per entry: its n-gram's index in ``keys``
    sent: np.ndarray  # per entry: its caption (candidates first)
    tf: np.ndarray  # per entry: how often the caption holds the n-gram
    image: np.ndarray  # per entry: the chunk image of its caption
    new_group: np.ndarray  # per entry: the first of its (n-gram, image)

    @classmethod
    def of(cls, chunk: Chunk, pos: np.ndarray, key: np.ndarray, bound: int) -> _Grouped:
        """The entries of the n-grams starting at ``pos``, of keys ``key`` (below ``bound``)."""
        order = _stable_order(key, bound)
        # one gather in random order each (pos is increasing: chunk.sent[pos] is not)
        key, sent = key[order], chunk.sent[pos][order]
        new_key = _changes(key)
        new_entry = new_key.copy()
        np.logical_or(new_entry[1:], sent[1:] != sent[:-1], out=new_entry[1:])
        at = np.flatnonzero(new_entry)
        sent = sent[at]
        image = np.concatenate([np.arange(chunk.b - chunk.a, dtype=np.int64), chunk.image_of_ref])[sent]
        new_group = new_key[at]
        np.logical_or(new_group[1:], image[1:] != image[:-1], out=new_group[1:])
        return cls(
            key[new_key], np.cumsum(new_key)[at] - 1, sent, np.diff(at, append=len(key)), image, new_group
        )

    def doc_freq(self, num_images: int) -> np.ndarray:
        """Per key: the images among whose references it is (each counted once)."""
        is_ref = self.sent >= num_images
        rank, image = self.rank[is_ref], self.image[is_ref]
        first = _changes(rank)
        np.logical_or(first[1:], image[1:] != image[:-1], out=first[1:])
        return np.bincount(rank[first], minlength=len(self.keys))


def _stable_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of keys in ``[0, bound)``: below 2^48, a radix sort
    on 16-bit digits, lowest first (NumPy's stable sort of 16-bit integers is a radix sort,
    several times faster than its sort of 64-bit ones)."""
    if bound > 1 << 48:
        return np.argsort(keys, kind="stable")
    order: np.ndarray | None = None
    for shift in range(0, max(bound - 1, 1).bit_length(), 16):
        digit = (keys >> shift).astype(np.uint16)  # the low 16 bits
        if order is None:
            order = np.argsort(digit, kind="stable")
        else:
            order = order[np.argsort(digit[order], kind="stable")]
    assert order is not None
    return order


def _changes(values: np.ndarray) -> np.ndarray:
    """Where a sorted array's value differs from the one before (the first: True)."""
    out = np.empty(len(values), bool)
    out[:1] = True
    np.not_equal(values[1:], values[:-1], out=out[1:])
    return out


class CorpusNGrams:
    """Every n-gram (orders ``1..n``) of a corpus of captions, numbered as one call over the
    corpus numbers them (module docstring), with their document frequencies (how many
    images' references hold each), computed a chunk of images at a time.

    An n-gram's key is ``prefix * V + last word id``, ``prefix`` being its (n-1)-gram's key
    (the words' ids as digits in base ``V``: keys order n-grams as their ids do), or, where
    that key could pass :data:`_KEY_BOUND` (``rebased[k]``), its (n-1)-gram's id.
    ``tables[k]``: the sorted keys of the distinct (k+1)-grams (an n-gram's id is its index
    there; 1-grams are the words); ``sizes[k]`` the number of distinct (k+1)-grams;
    ``doc_freq[k]`` their document frequencies (with ``doc_freq=True``). They are there once
    :meth:`number` or :meth:`scores` has run.
    """

    def __init__(self, words: CaptionWords, n: int, *, doc_freq: bool = True, chunk_words: int | None = None):
        self.words = words
        self.n = n
        self.v = max(len(words.vocab), 1)
        self.first_ref = _offsets(words.ref_counts)
        self.chunk_words = CHUNK_WORDS if chunk_words is None else chunk_words
        self.with_doc_freq = doc_freq
        self.tables: list[np.ndarray] = [np.arange(self.v, dtype=np.int64)]
        self.rebased = [False]
        self.key_bounds = [self.v]  # per order planned: its keys stay below it
        self.doc_freq: list[np.ndarray] = []
        self._numbered = 0  # orders numbered so far

    @property
    def sizes(self) -> list[int]:
        return [len(t) for t in self.tables]

    # ---------------------------------------------------------------------------- chunks

    def chunks(self, whole: bool = False) -> Iterator[Chunk]:
        """The images in chunks of about ``chunk_words`` words (``whole``: one chunk), positions
        image by image."""
        return chunks(self.words, self.chunk_words, whole=whole, image_major=True)

    def _plan(self, k: int) -> None:
        """How order ``k >= 1``'s keys are made (``rebased[k]``): from the (k-1)-gram's id
        (numbered already) where its key could pass :data:`_KEY_BOUND`."""
        rebased = self.key_bounds[-1] * self.v > _KEY_BOUND
        self.rebased.append(rebased)
        self.key_bounds.append((len(self.tables[k - 1]) if rebased else self.key_bounds[-1]) * self.v)

    def gram_keys(self, chunk: Chunk, upto: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Per order ``k = 0 .. upto-1``: the positions where a (k+1)-gram starts and its key
        (by the time order ``k``'s keys are asked for, it is planned, :meth:`_plan`, and with
        ``rebased[k]`` order ``k-1`` numbered)."""
        pos = np.arange(len(chunk.words), dtype=np.int64)
        key = chunk.words
        yield pos, key
        for k in range(1, upto):
            more = chunk.remaining[pos] > k
            pos, key = pos[more], key[more]
            if self.rebased[k]:
                key = np.searchsorted(self.tables[k - 1], key)
            key = key * self.v + chunk.words[pos + k]
            yield pos, key

    def _ids(self, k: int, g: _Grouped) -> np.ndarray:
        """The id of the n-gram of every entry of ``g`` (order ``k``, numbered)."""
        table = self.tables[k]
        # a chunk holding every n-gram of the corpus: the index there is the id
        return g.rank if len(g.keys) == len(table) else np.searchsorted(table, g.keys)[g.rank]

    def grouped(self, chunk: Chunk) -> Iterator[tuple[_Grouped, np.ndarray]]:
        """Per order: the chunk's entries (:class:`_Grouped`) and the id of each of their
        n-grams (every order numbered)."""
        self.number()
        for k, (pos, key) in enumerate(self.gram_keys(chunk, self.n)):
            g = _Grouped.of(chunk, pos, key, self.key_bounds[k])
            yield g, self._ids(k, g)

    # ---------------------------------------------------------------------------- numbering

    def number(self) -> None:
        """Number every order (``tables``, ``doc_freq``), as many orders a pass over the chunks
        as their keys allow (all of them unless a key could pass :data:`_KEY_BOUND`)."""
        while self._numbered < self.n:
            lo = self._numbered
            if lo:
                self._plan(lo)
            upto = lo + 1
            while upto < self.n and self.key_bounds[-1] * self.v <= _KEY_BOUND:
                self._plan(upto)
                upto += 1
            self._number(lo, upto)

    def _number(self, lo: int, upto: int) -> None:
        """Number the n-grams of orders ``lo+1 .. upto`` of every chunk and, with document
        frequencies, count the images whose references hold each (distinct per image, as
        ``pycocoevalcap`` counts): all in one pass over the chunks."""
        found: list[list[np.ndarray]] = [[] for _ in range(lo, upto)]
        counts: list[list[np.ndarray]] = [[] for _ in range(lo, upto)]
        for chunk in self.chunks():
            for k, (pos, key) in enumerate(self.gram_keys(chunk, upto)):
                if k < lo:
                    continue
                if self.with_doc_freq:
                    g = _Grouped.of(chunk, pos, key, self.key_bounds[k])
                    found[k - lo].append(g.keys)
                    counts[k - lo].append(g.doc_freq(chunk.b - chunk.a))
                elif k:
                    found[k - lo].append(_distinct(key))
        for k in range(lo, upto):
            self._keep(k, found[k - lo], counts[k - lo])

    def _keep(self, k: int, parts: list[np.ndarray], counts: list[np.ndarray]) -> None:
        """Order ``k``'s table and document frequencies from its chunks' distinct keys and
        their counts."""
        if k:
            if len(parts) == 1:
                table = parts[0]
            else:
                table = _distinct(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
            self.tables.append(table)
        if self.with_doc_freq:
            table = self.tables[k]
            df = np.zeros(len(table), np.int64)
            for distinct, count in zip(parts, counts):
                if len(distinct) == len(table):
                    df += count
                else:
                    df[np.searchsorted(table, distinct)] += count
            self.doc_freq.append(df)
        self._numbered = k + 1

    def texts(self, k: int) -> list[str]:
        """The (k+1)-grams as space-joined words, in id order."""
        columns = []
        keys = self.tables[k]
        for j in range(k, 0, -1):
            columns.append(keys % self.v)
            keys = keys // self.v
            if self.rebased[j]:
                keys = self.tables[j - 1][keys]
        columns.append(keys)
        vocab = self.words.vocab
        cols = [[vocab[i] for i in col.tolist()] for col in reversed(columns)]
        return [" ".join(t) for t in zip(*cols)]

    # ---------------------------------------------------------------------------- statistics

    def entries(self, chunk: Chunk) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per order: (caption, n-gram id, count) of every distinct n-gram of every caption
        of the chunk, sorted by caption then id (captions numbered within the chunk)."""
        out = []
        for size, (g, ids) in zip(self.sizes, self.grouped(chunk)):
            order = np.argsort(g.sent * size + ids)
            out.append((g.sent[order], ids[order], g.tf[order].astype(np.float64)))
        return out

    def scores(
        self, weigh: Callable[[int], np.ndarray], penalty: np.ndarray | None, clipped: bool
    ) -> np.ndarray:
        """Per image and order: ``sum_j penalty_j * cos_clip(g(c), g(s_j))`` (before the
        factor ``10 / m`` and the mean over orders), with ``weigh(k)`` the idf of each
        (k+1)-gram (asked for once order ``k`` is numbered) and ``penalty`` that of each
        reference (``None``: none). A corpus of one chunk is numbered and scored in the
        same pass, an order at a time; otherwise :meth:`number` runs first."""
        per_order = np.zeros((self.words.num_images, self.n))
        if self._numbered == 0 and len(chunk_bounds(self.words, self.chunk_words)) == 2:
            (chunk,) = self.chunks()
            keys = self.gram_keys(chunk, self.n)
            for k in range(self.n):
                if k:
                    self._plan(k)
                g = _Grouped.of(chunk, *next(keys), self.key_bounds[k])
                self._keep(k, [g.keys], [g.doc_freq(chunk.b - chunk.a)] if self.with_doc_freq else [])
                per_order[:, k] = _order_scores(g, self._ids(k, g), weigh(k), chunk, penalty, clipped)
            return per_order
        self.number()
        weights = [weigh(k) for k in range(self.n)]
        for chunk in self.chunks():
            r0, r1 = int(self.first_ref[chunk.a]), int(self.first_ref[chunk.b])
            part = None if penalty is None else penalty[r0:r1]
            for k, (g, ids) in enumerate(self.grouped(chunk)):
                per_order[chunk.a : chunk.b, k] = _order_scores(g, ids, weights[k], chunk, part, clipped)
        return per_order


def _order_scores(
    g: _Grouped, ids: np.ndarray, weights: np.ndarray, chunk: Chunk, penalty: np.ndarray | None, clipped: bool
) -> np.ndarray:
    """One order's per-image sums over the references of a chunk (``pycocoevalcap``
    ``cider_scorer.py`` ``sim``, all pairs at once). Each caption's entries come in n-gram id
    order, so every sum adds its terms in the order of one pass over the sorted vectors."""
    num_images = chunk.b - chunk.a
    image_of_ref = chunk.image_of_ref
    total_refs = chunk.num_captions - num_images
    weight = g.tf * weights[ids]
    # (an empty bincount is of ints, whatever its weights)
    norm = np.sqrt(
        np.bincount(g.sent, weights=weight * weight, minlength=chunk.num_captions).astype(np.float64)
    )
    is_ref = g.sent >= num_images
    # a reference's n-gram meets its candidate's at the head of its (n-gram, image) group
    head = np.maximum.accumulate(np.where(g.new_group, np.arange(len(ids)), 0))[is_ref]
    r_w = weight[is_ref]
    c_w = np.where(is_ref[head], 0.0, weight[head])
    prod = np.minimum(c_w, r_w) * r_w if clipped else c_w * r_w
    val = np.bincount(g.sent[is_ref] - num_images, weights=prod, minlength=total_refs).astype(
        np.float64, copy=False
    )
    denom = norm[image_of_ref] * norm[num_images:]
    val = np.divide(val, denom, out=val, where=denom != 0)
    if penalty is not None:
        val *= penalty
    return np.bincount(image_of_ref, weights=val, minlength=num_images)
