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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CHUNK_WORDS", "CaptionWords", "Chunk", "CorpusNGrams", "chunks", "local_entries"]

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
    """Images ``a`` to ``b``: their captions (candidates, then references) as one array of
    word ids, with each word's caption and how many words of its caption start there."""

    a: int
    b: int
    words: np.ndarray  # word id per position
    sent: np.ndarray  # caption per position (0..b-a-1: candidates, then references)
    remaining: np.ndarray  # words from the position to the end of its caption
    num_captions: int
    image_of_ref: np.ndarray  # chunk image of each chunk reference
    lengths: np.ndarray  # words per caption


def chunks(words: CaptionWords, chunk_words: int | None = None, *, whole: bool = False) -> Iterator[Chunk]:
    """The images of ``words`` in chunks of about ``chunk_words`` words (default
    :data:`CHUNK_WORDS`; at least one image each; ``whole``: one chunk)."""
    num = words.num_images
    first_ref = _offsets(words.ref_counts)
    if whole or num == 0:
        bounds = [0, num]
    else:
        size = CHUNK_WORDS if chunk_words is None else chunk_words
        per_image = words.cand_len.astype(np.int64)
        per_image = per_image + np.add.reduceat(words.ref_len.astype(np.int64), first_ref[:-1])
        ends = np.cumsum(per_image)
        cuts = np.searchsorted(ends, np.arange(size, int(ends[-1]), size), side="right")
        bounds = [0, *sorted({int(c) for c in cuts.tolist() if 0 < c < num}), num]
    cand_at, ref_at = _offsets(words.cand_len), _offsets(words.ref_len)
    for a, b in zip(bounds[:-1], bounds[1:]):
        r0, r1 = int(first_ref[a]), int(first_ref[b])
        ids = np.concatenate(
            [words.cand_ids[cand_at[a] : cand_at[b]], words.ref_ids[ref_at[r0] : ref_at[r1]]]
        ).astype(np.int64)
        lengths = np.concatenate([words.cand_len[a:b], words.ref_len[r0:r1]]).astype(np.int64)
        starts = _offsets(lengths)[:-1]
        sent = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        remaining = np.repeat(starts + lengths, lengths) - np.arange(len(ids), dtype=np.int64)
        image_of_ref = np.repeat(np.arange(b - a, dtype=np.int64), words.ref_counts[a:b])
        yield Chunk(a, b, ids, sent, remaining, len(lengths), image_of_ref, lengths)


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


class CorpusNGrams:
    """Every n-gram (orders ``1..n``) of a corpus of captions, numbered as one call over the
    corpus numbers them (module docstring), with their document frequencies (how many
    images' references hold each), computed a chunk of images at a time.

    ``tables[k]`` (``k >= 1``): the sorted keys ``prefix id * V + last word id`` of the
    distinct (k+1)-grams (an n-gram's id is its index there; 1-grams are the words);
    ``sizes[k]`` the number of distinct (k+1)-grams; ``doc_freq[k]`` their document
    frequencies (with ``doc_freq=True``).
    """

    def __init__(self, words: CaptionWords, n: int, *, doc_freq: bool = True, chunk_words: int | None = None):
        self.words = words
        self.n = n
        self.v = max(len(words.vocab), 1)
        self.first_ref = _offsets(words.ref_counts)
        self.chunk_words = CHUNK_WORDS if chunk_words is None else chunk_words
        self.tables: list[np.ndarray] = [np.arange(self.v, dtype=np.int64)]
        self.doc_freq: list[np.ndarray] = []
        for k in range(n):
            self._number(k, doc_freq)

    @property
    def sizes(self) -> list[int]:
        return [self.v] + [len(t) for t in self.tables[1:]]

    # ---------------------------------------------------------------------------- chunks

    def chunks(self, whole: bool = False) -> Iterator[Chunk]:
        """The images in chunks of about ``chunk_words`` words (``whole``: one chunk)."""
        return chunks(self.words, self.chunk_words, whole=whole)

    def _keys(self, chunk: Chunk, k: int, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions where a (k+1)-gram starts, and its key (``ids``: the k-gram ids)."""
        pos = np.flatnonzero(chunk.remaining > k)
        return pos, ids[pos] * self.v + chunk.words[pos + k]

    def gram_ids(self, chunk: Chunk, upto: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per order ``k = 0 .. upto-1``: the positions where a (k+1)-gram starts, its id, and
        the ids at every position (-1 where none starts)."""
        total = len(chunk.words)
        full = chunk.words
        yield np.arange(total, dtype=np.int64), full, full
        for k in range(1, upto):
            pos, key = self._keys(chunk, k, full)
            gid = np.searchsorted(self.tables[k], key)
            full = np.full(total, -1, np.int64)
            full[pos] = gid
            yield pos, gid, full

    # ---------------------------------------------------------------------------- numbering

    def _number(self, k: int, doc_freq: bool) -> None:
        """Number the (k+1)-grams of every chunk (``tables[k]``) and, with ``doc_freq``, count
        the images whose references hold each (distinct per image, as ``pycocoevalcap``
        counts): both in one pass over the chunks."""
        found: list[np.ndarray] = []
        counts: list[np.ndarray] = []
        words_df = np.zeros(self.v, np.int64)
        for chunk in self.chunks():
            first_ref = chunk.b - chunk.a
            if k == 0:
                pos, keys = np.arange(len(chunk.words), dtype=np.int64), chunk.words
            else:
                *_, (_, _, ids) = self.gram_ids(chunk, k)
                pos, keys = self._keys(chunk, k, ids)
            if not doc_freq:
                found.append(_distinct(keys))
                continue
            sent = chunk.sent[pos]
            is_ref = sent >= first_ref
            image = chunk.image_of_ref[sent[is_ref] - first_ref]
            if k == 0:
                pairs = _distinct(image * self.v + keys[is_ref])
                words_df += np.bincount(pairs % self.v, minlength=self.v)
                continue
            distinct, local = np.unique(keys, return_inverse=True)
            size = len(distinct)
            pairs = _distinct(image * size + local.reshape(-1)[is_ref])
            found.append(distinct)
            counts.append(np.bincount(pairs % size, minlength=size))
        if k == 0:
            if doc_freq:
                self.doc_freq.append(words_df)
            return
        table = _distinct(np.concatenate(found)) if found else np.zeros(0, np.int64)
        self.tables.append(table)
        if doc_freq:
            df = np.zeros(len(table), np.int64)
            for distinct, count in zip(found, counts):
                df[np.searchsorted(table, distinct)] += count
            self.doc_freq.append(df)

    def texts(self, k: int) -> list[str]:
        """The (k+1)-grams as space-joined words, in id order."""
        columns = []
        keys = self.tables[k]
        for j in range(k, 0, -1):
            columns.append(keys % self.v)
            keys = self.tables[j - 1][keys // self.v]
        columns.append(keys)
        vocab = self.words.vocab
        cols = [[vocab[i] for i in col.tolist()] for col in reversed(columns)]
        return [" ".join(t) for t in zip(*cols)]

    # ---------------------------------------------------------------------------- statistics

    def entries(self, chunk: Chunk) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per order: (caption, n-gram id, count) of every distinct n-gram of every caption
        of the chunk, sorted by caption then id (captions numbered within the chunk)."""
        out = []
        for size, (pos, gid, _) in zip(self.sizes, self.gram_ids(chunk, self.n)):
            pairs, tf = np.unique(chunk.sent[pos] * size + gid, return_counts=True)
            out.append((pairs // size, pairs % size, tf.astype(np.float64)))
        return out

    def scores(self, weights: Sequence[np.ndarray], penalty: np.ndarray | None, clipped: bool) -> np.ndarray:
        """Per image and order: ``sum_j penalty_j * cos_clip(g(c), g(s_j))`` (before the
        factor ``10 / m`` and the mean over orders), with ``weights[k]`` the idf of each
        (k+1)-gram and ``penalty`` that of each reference (``None``: none)."""
        w = self.words
        per_order = np.zeros((w.num_images, self.n))
        for chunk in self.chunks():
            num_images = chunk.b - chunk.a
            r0, r1 = int(self.first_ref[chunk.a]), int(self.first_ref[chunk.b])
            part = None if penalty is None else penalty[r0:r1]
            for k, (sent, gid, tf) in enumerate(self.entries(chunk)):
                per_order[chunk.a : chunk.b, k] = _order_scores(
                    sent, gid, tf, self.sizes[k], weights[k], chunk, num_images, part, clipped
                )
        return per_order


def _order_scores(
    sent: np.ndarray,
    gid: np.ndarray,
    tf: np.ndarray,
    size: int,
    weights: np.ndarray,
    chunk: Chunk,
    num_images: int,
    penalty: np.ndarray | None,
    clipped: bool,
) -> np.ndarray:
    """One order's per-image sums over the references of a chunk (``pycocoevalcap``
    ``cider_scorer.py`` ``sim``, all pairs at once)."""
    image_of_ref = chunk.image_of_ref
    total_refs = chunk.num_captions - num_images
    is_ref = sent >= num_images
    weight = tf * weights[gid]
    norm = np.sqrt(
        np.bincount(sent, weights=weight * weight, minlength=chunk.num_captions).astype(np.float64)
    )
    # candidate entries: caption index == image index, sorted by (image, n-gram id)
    h_key = sent[~is_ref] * size + gid[~is_ref]
    h_w = weight[~is_ref]
    r_sent = sent[is_ref] - num_images
    r_key = image_of_ref[r_sent] * size + gid[is_ref]
    r_w = weight[is_ref]
    at = np.searchsorted(h_key, r_key)
    at_c = np.minimum(at, max(len(h_key) - 1, 0))
    found = (at < len(h_key)) & (h_key[at_c] == r_key) if len(h_key) else np.zeros(len(r_key), bool)
    c_w = np.where(found, h_w[at_c] if len(h_key) else 0.0, 0.0)
    prod = np.minimum(c_w, r_w) * r_w if clipped else c_w * r_w
    val = np.bincount(r_sent, weights=prod, minlength=total_refs).astype(np.float64, copy=False)
    denom = norm[image_of_ref] * norm[num_images:]
    val = np.divide(val, denom, out=val, where=denom != 0)
    if penalty is not None:
        val *= penalty
    return np.bincount(image_of_ref, weights=val, minlength=num_images)
