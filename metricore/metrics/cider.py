"""CIDEr and CIDEr-D: consensus-based image description evaluation (Vedantam et al., CVPR 2015).

Each caption becomes, for every n-gram order ``k = 1..n``, a vector of tf-idf weights
``g_k(s)[w] = tf(w, s) * (log(I) - log(max(1, df(w))))``, where ``tf`` is the raw count of the
n-gram ``w`` in caption ``s``, ``I`` the number of images and ``df(w)`` the number of images
whose *reference* captions contain ``w`` (an n-gram no reference contains gets the full
``log(I)``). For a candidate ``c`` of an image with references ``s_1..s_m``::

    CIDEr-D_k(c) = 10/m * sum_j  exp(-(l(c) - l(s_j))^2 / (2 sigma^2))
                                 * sum_w min(g_k(c)[w], g_k(s_j)[w]) * g_k(s_j)[w]
                                 / (||g_k(c)|| * ||g_k(s_j)||)
    CIDEr-D(c)   = mean over k of CIDEr-D_k(c);   corpus score = mean over images.

The factor 10 is part of the published CIDEr-D definition (it puts scores on a scale similar
to other metrics); ``l(s)`` is, as in the reference code, the number of *bigrams* of ``s``
(``len(words) - 1``; the code counts the entries of its bigram vector), and a cosine term whose
denominator is zero counts as 0. Variants (:data:`CIDER_VARIANTS`):

``cider_d`` (default)
    The COCO caption evaluation toolkit: ``pycocoevalcap`` 1.2 ``PTBTokenizer`` then
    ``Cider().compute_score`` (which is CIDEr-D): clipped products, Gaussian length penalty,
    ``sigma = 6``, document frequencies from the evaluated references.
``cider``
    Plain CIDEr as in the authors' code (github.com/vrama91/cider, ``pyciderevalcap/cider``):
    ``sum_w g_k(c)[w] * g_k(s_j)[w]`` (no clipping), no length penalty, the same factor 10.

Document frequencies come from the evaluated references (``df="corpus"``, the toolkits'
default: scores then depend on which images are scored together) or from a
:class:`DocumentFrequency` table saved once from a reference corpus and reloaded, so that small
subsets are scored on one scale (``I`` is then the table's image count, as in the authors'
``coco-val-df`` mode).

Degenerate cases: with one image and corpus document frequencies every weight is
``log(1) - log(1) = 0``, so the score is 0 (a :class:`UserWarning` says so); an empty
candidate scores 0; an image with no reference is an error (``ValueError``); duplicate
references count once in ``df`` (per image) and once each in the mean over references.

Implementation: :func:`compute_cider` is ``cider_result(cider_items(...))``. :func:`cider_items`
checks and tokenizes the captions and keeps their words as integer ids
(:class:`~metricore.metrics.cider_corpus.CaptionWords`: what a stream of batches keeps,
:mod:`metricore.core.stream`); :func:`cider_result` numbers the n-grams (an n-gram's id is its
rank in the order of its words' ids, first word first), counts the document frequencies and
computes term frequencies, norms and the clipped products with numpy, one sort of an order's
n-grams a chunk of images at a time (:class:`~metricore.metrics.cider_corpus.CorpusNGrams`;
a corpus of one chunk is numbered and scored in the same pass), with the numbers of one pass
over all captions. Corpus statistics are computed inside each call and nothing is kept between
calls. The numbers equal ``pycocoevalcap`` to 1e-9 (``tests/metrics/test_cider_parity.py``);
only the order of floating-point additions differs.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    as_list,
    check_choice,
    check_pairs,
    check_strings,
    flatten_with_counts,
    paired_columns,
    string_alternatives_column,
)
from metricore.metrics.cider_corpus import CaptionWords, CorpusNGrams
from metricore.text.ptb_tokenize import coco_tokenize

__all__ = [
    "check_cider_inputs",
    "CIDErVariant",
    "CIDER_VARIANTS",
    "CIDErItems",
    "CIDErResult",
    "CIDErStatistics",
    "DocumentFrequency",
    "check_cider_options",
    "cider_items",
    "cider_items_of_words",
    "cider_result",
    "compute_cider",
    "CIDErMatch",
    "CIDErExplanation",
    "explain_cider",
    "idf",
    "DEFAULT_N",
    "DEFAULT_SIGMA",
]

_METRIC = "cider"
DEFAULT_N = 4
DEFAULT_SIGMA = 6.0
#: Scale factor of the CIDEr-D definition (and of the authors' plain CIDEr code).
CIDER_SCALE = 10.0
_TOKENIZERS = {True: "ptb", False: "none"}
_DF_FORMAT = "metricore-cider-document-frequency"


@dataclass(frozen=True)
class CIDErVariant:
    """A named bundle of options over the one CIDEr implementation."""

    name: str
    reference: str
    clipped: bool  # sum min(g_c, g_s) * g_s instead of sum g_c * g_s
    length_penalty: bool  # Gaussian penalty on the difference of (bigram) lengths


#: the names of :data:`CIDER_VARIANTS`
CIDErVariantName = Literal["cider_d", "cider"]

CIDER_VARIANTS: dict[str, CIDErVariant] = {
    v.name: v
    for v in (
        CIDErVariant(
            "cider_d",
            "COCO caption evaluation: pycocoevalcap==1.2 PTBTokenizer + Cider (CIDEr-D)",
            clipped=True,
            length_penalty=True,
        ),
        CIDErVariant(
            "cider",
            "Vedantam et al. 2015, github.com/vrama91/cider pyciderevalcap/cider (plain CIDEr)",
            clipped=False,
            length_penalty=False,
        ),
    )
}


@dataclass(frozen=True)
class CIDErResult(MetricResult):
    """Corpus score (mean over images) and per-image scores."""

    cider: float
    scores: list[float]
    variant: str
    signature: str = field(repr=False)
    #: the n-gram statistics behind the scores (for bootstrap intervals that recompute the
    #: document frequencies per resample, :mod:`metricore.metrics.cider_bootstrap`)
    statistics: CIDErStatistics | None = field(default=None, repr=False, compare=False)
    #: the candidate captions as scored (for :meth:`per_item`)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    # no ``closest``: CIDEr scores a caption against all references at once
    METRIC = "cider"
    HEADLINE = (Headline("cider", higher_is_better=True, items="score", mean=True),)


@dataclass(frozen=True, eq=False)
class CIDErStatistics:
    """Per-caption n-gram term frequencies of one :func:`compute_cider` call.

    Captions are numbered candidates first (caption ``i`` = image ``i``), then references in
    image order (``ref_counts[i]`` each). ``entries[k]`` = (caption, (k+1)-gram id, count) as
    in the scoring code, ``sizes[k]`` the number of distinct (k+1)-grams; ``penalty`` is the
    length penalty per reference (``None`` for plain CIDEr); ``fixed_df``: the document
    frequencies came from a :class:`DocumentFrequency` table, not from these references.
    The entries are built from the captions' word ids when first read (a result keeps the
    ids, not the entries).
    """

    num_images: int
    ref_counts: np.ndarray
    penalty: np.ndarray | None
    clipped: bool
    fixed_df: bool
    grams: CorpusNGrams = field(repr=False)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(self.grams.sizes)

    @functools.cached_property
    def entries(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        (whole,) = self.grams.chunks(whole=True)
        return tuple(self.grams.entries(whole))


# --------------------------------------------------------------------------------------------
# Document-frequency tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentFrequency:
    """How many images' references contain each n-gram, over a reference corpus of
    ``num_images`` images: the idf statistics of CIDEr, saved once and reused.

    N-grams are stored as their words joined by single spaces (after tokenization words hold
    no whitespace). ``tokenizer`` is ``"ptb"`` (built from raw captions with the PTB tokenizer)
    or ``"none"`` (from pre-tokenized captions); scoring checks that it matches.

    >>> table = DocumentFrequency.from_references([["a dog runs", "a dog"], ["a cat"]])
    >>> table.num_images, table.counts["a"], table.counts["a dog"], table.counts["cat"]
    (2, 2, 1, 1)
    """

    counts: Mapping[str, int]
    num_images: int
    n: int = DEFAULT_N
    tokenizer: str = "ptb"

    def __post_init__(self) -> None:
        if not isinstance(self.counts, Mapping):
            raise TypeError(
                f"cider: DocumentFrequency.counts must be a mapping, got {type(self.counts).__name__}"
            )
        if isinstance(self.num_images, bool) or not isinstance(self.num_images, int) or self.num_images < 1:
            raise ValueError(
                f"cider: DocumentFrequency.num_images must be an int >= 1, got {self.num_images!r}"
            )
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"cider: DocumentFrequency.n must be an int >= 1, got {self.n!r}")
        if self.tokenizer not in _TOKENIZERS.values():
            raise ValueError(
                f"cider: DocumentFrequency.tokenizer must be one of {sorted(_TOKENIZERS.values())}, "
                f"got {self.tokenizer!r}"
            )

    @classmethod
    def from_references(
        cls, references: Sequence[Any], *, n: int = DEFAULT_N, tokenize: bool = True
    ) -> DocumentFrequency:
        """Count, for every n-gram (orders 1..n), the images whose references contain it.

        ``references``: per image, a list of reference captions (or one caption as a str),
        tokenized as :func:`compute_cider` does.
        """
        n = _check_n(n)
        refs = _check_references(references, "references")
        flat, counts = flatten_with_counts(refs)
        sentences = _tokenized(flat, tokenize, "references")
        stats = _NGramStats(sentences, n)
        image_of = np.repeat(np.arange(len(refs)), counts)
        table: dict[str, int] = {}
        for k in range(n):
            sent, gid, _ = stats.entries[k]
            pairs = _distinct(image_of[sent] * stats.sizes[k] + gid)
            df = np.bincount(pairs % stats.sizes[k], minlength=stats.sizes[k])
            for g, text in enumerate(stats.ngram_texts(k)):
                table[text] = int(df[g])
        return cls(table, len(refs), n, _TOKENIZERS[tokenize])

    @classmethod
    def from_mapping(
        cls, counts: Mapping[Any, float], num_images: int, *, n: int | None = None, tokenizer: str = "ptb"
    ) -> DocumentFrequency:
        """A table from an existing mapping, e.g. the authors' ``coco-val-df`` pickle (n-gram
        tuples to counts, 40504 images) after you have loaded it yourself. Keys may be tuples
        of words or space-joined strings; counts must be whole numbers."""
        table: dict[str, int] = {}
        longest = 0
        for key, value in counts.items():
            text = " ".join(key) if isinstance(key, tuple) else key
            if not isinstance(text, str) or not text or text != " ".join(text.split()):
                raise ValueError(f"cider: document-frequency key {key!r} is not an n-gram of words")
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or value != int(value)
                or value < 0
            ):
                raise ValueError(
                    f"cider: document frequency of {key!r} must be a whole number >= 0, got {value!r}"
                )
            table[text] = int(value)
            longest = max(longest, text.count(" ") + 1)
        return cls(table, num_images, n if n is not None else max(longest, 1), tokenizer)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the table as JSON (gzip-compressed when the name ends in ``.gz``)."""
        data = {
            "format": _DF_FORMAT,
            "version": 1,
            "n": self.n,
            "tokenizer": self.tokenizer,
            "num_images": self.num_images,
            "counts": dict(sorted(self.counts.items())),
        }
        blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "wb") as fh:
            fh.write(blob)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DocumentFrequency:
        """Read a table written by :meth:`save`."""
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
        if not isinstance(data, dict) or data.get("format") != _DF_FORMAT:
            raise ValueError(
                f"cider: {os.fspath(path)!r} is not a document-frequency table written by DocumentFrequency.save"
            )
        if data.get("version") != 1:
            raise ValueError(f"cider: unsupported document-frequency table version {data.get('version')!r}")
        return cls(
            {str(k): int(v) for k, v in data["counts"].items()},
            int(data["num_images"]),
            int(data["n"]),
            str(data["tokenizer"]),
        )

    @functools.cached_property
    def fingerprint(self) -> str:
        """A short content hash, written into CIDEr signatures (computed once per table)."""
        h = hashlib.sha256()
        h.update(f"{self.num_images}|{self.n}|{self.tokenizer}|".encode())
        for key in sorted(self.counts):
            h.update(key.encode("utf-8"))
            h.update(b"\x00")
            h.update(str(self.counts[key]).encode())
            h.update(b"\x01")
        return h.hexdigest()[:12]


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"cider: `n` must be an int >= 1, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"cider: `n` must be >= 1, got {n}")
    return int(n)


def _check_sigma(sigma: Any) -> float:
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.floating, np.integer)):
        raise TypeError(f"cider: `sigma` must be a positive number, got {type(sigma).__name__}")
    sigma = float(sigma)
    if not (sigma > 0.0 and math.isfinite(sigma)):
        raise ValueError(f"cider: `sigma` must be a positive finite number, got {sigma}")
    return sigma


def _check_references(references: Any, name: str, start: int = 0) -> list[list[str]]:
    refs = string_alternatives_column(
        as_list(references, _METRIC, name), _METRIC, start=start, allow_empty=True
    )
    for i, r in enumerate(refs):
        if not r:
            raise ValueError(
                f"cider: `{name}[{start + i}]` has no reference caption; every image needs at least "
                "one (an image without references cannot be scored)"
            )
    return refs


def check_cider_inputs(
    predictions: Any, references: Any, start: int = 0
) -> tuple[list[str], list[list[str]]]:
    """Check one batch of rows (``start`` = index of its first row) and return new lists:
    candidates as str, references as lists of str (a bare str is one reference). Errors
    name the argument and the absolute row."""
    preds, refs = paired_columns(predictions, references, _METRIC)
    return check_strings(preds, _METRIC, "predictions", start), _check_references(refs, "references", start)


def _tokenized(captions: list[str], tokenize: bool, where: str) -> list[str]:
    """Captions as space-separated words: PTB-tokenized (one Java-compatible call for the
    whole list, as the pipeline does) or as given."""
    if tokenize:
        return coco_tokenize(captions, where=where)
    return captions


# --------------------------------------------------------------------------------------------
# N-gram statistics
# --------------------------------------------------------------------------------------------


class _NGramStats:
    """Integer n-gram ids and term frequencies for a list of captions.

    ``entries[k]`` = (caption index, n-gram id, count) of every distinct (k+1)-gram of every
    caption, sorted by caption then id; ``sizes[k]`` the number of distinct (k+1)-grams.
    """

    def __init__(self, sentences: list[str], n: int) -> None:
        lengths = np.fromiter((len(s.split()) for s in sentences), np.int64, len(sentences))
        words = " ".join(sentences).split()
        vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
        self.vocab = list(vocab)
        self.lengths = lengths
        total = len(words)
        wid = np.fromiter(map(vocab.__getitem__, words), np.int64, total)
        v = max(len(vocab), 1)
        starts = np.zeros(len(sentences), np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        sent = np.repeat(np.arange(len(sentences), dtype=np.int64), lengths)
        remaining = np.repeat(starts + lengths, lengths) - np.arange(total, dtype=np.int64)
        self.entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.sizes: list[int] = []
        self._parents: list[np.ndarray] = []  # (k+1)-gram id -> k-gram id of its prefix
        self._last: list[np.ndarray] = []  # (k+1)-gram id -> id of its last word
        gid = wid
        size = v
        for k in range(n):
            if k == 0:
                pos = np.arange(total, dtype=np.int64)
                ids = wid
                self._parents.append(np.full(v, -1, np.int64))
                self._last.append(np.arange(v, dtype=np.int64))
            else:
                pos = np.flatnonzero(remaining > k)
                key = gid[pos] * v + wid[pos + k]
                uniq, ids = np.unique(key, return_inverse=True)
                ids = ids.reshape(-1)
                size = len(uniq)
                self._parents.append(uniq // v)
                self._last.append(uniq % v)
                full = np.full(total, -1, np.int64)
                full[pos] = ids
                gid = full
            pairs, tf = np.unique(sent[pos] * size + ids, return_counts=True)
            self.entries.append((pairs // size, pairs % size, tf.astype(np.float64)))
            self.sizes.append(size)

    def ngram_texts(self, k: int) -> list[str]:
        """The (k+1)-grams as space-joined words, in id order."""
        seqs = [self._last[k]]
        parent = self._parents[k]
        for j in range(k - 1, -1, -1):
            seqs.append(self._last[j][parent])
            parent = self._parents[j][parent]
        vocab = self.vocab
        cols = [[vocab[i] for i in col.tolist()] for col in reversed(seqs)]
        return [" ".join(t) for t in zip(*cols)]


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


def idf(document_frequency: np.ndarray, num_images: int) -> np.ndarray:
    """``log(I) - log(max(1, df))``: the one home of CIDEr's n-gram weighting (pycocoevalcap
    ``cider_scorer.py`` ``counts2vec``), used by the scores and the bootstrap."""
    df = np.asarray(document_frequency, dtype=np.float64)
    return math.log(float(num_images)) - np.log(np.maximum(df, 1.0))


# --------------------------------------------------------------------------------------------
# The metric
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CIDErItems(ItemStats):
    """What CIDEr keeps of the rows (:mod:`metricore.core.stream`): every caption's words as
    ids (:class:`~metricore.metrics.cider_corpus.CaptionWords`), the options, and the
    candidates as given (the per-item texts, which a stream drops). The scores, which
    depend on the whole corpus, come from :func:`cider_result`."""

    words: CaptionWords
    variant: str
    n: int
    sigma: float
    tokenize: bool
    table: DocumentFrequency | None
    predictions: list[str] | None = None

    TEXT = ("predictions",)
    SHARED = ("variant", "n", "sigma", "tokenize", "table")


@paused_gc()
def compute_cider(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    variant: CIDErVariantName = "cider_d",
    n: int = DEFAULT_N,
    sigma: float = DEFAULT_SIGMA,
    tokenize: bool = True,
    df: Literal["corpus"] | DocumentFrequency = "corpus",
) -> CIDErResult:
    """Score one candidate caption per image against the image's reference captions.

    Args:
        predictions: one candidate caption per image.
        references: per image, a list of reference captions (a bare str is one reference).
        variant: ``"cider_d"`` (default, COCO toolkit numbers) or ``"cider"`` (plain CIDEr);
            see :data:`CIDER_VARIANTS`.
        n: longest n-gram order (4 in both reference implementations, which only run with 4).
        sigma: standard deviation of the length penalty (``cider_d`` only; default 6).
        tokenize: PTB-tokenize raw captions as ``pycocoevalcap`` does (default); ``False`` for
            already tokenized input (words separated by whitespace, used as they are).
        df: ``"corpus"`` (document frequencies from these references, the default) or a
            :class:`DocumentFrequency` table (e.g. of the full test set) to score subsets on a
            fixed scale.

    Returns:
        :class:`CIDErResult`: ``cider`` (mean over images) and ``scores`` (per image).

    >>> r = compute_cider(["a cat sits on a mat", "a dog runs"],
    ...                   [["a cat sits on a mat", "a cat on a mat"],
    ...                    ["a dog runs in the park", "a dog in a park"]], tokenize=False)
    >>> round(r.cider, 4), [round(s, 4) for s in r.scores]
    (5.0491, [7.2504, 2.8477])
    """
    return cider_result(
        cider_items(predictions, references, variant=variant, n=n, sigma=sigma, tokenize=tokenize, df=df)
    )


def check_cider_options(
    variant: Any, n: Any, sigma: Any, tokenize: Any, df: Any
) -> tuple[CIDErVariant, int, float, bool, DocumentFrequency | None]:
    """The checked options of :func:`compute_cider` (the variant, ``n``, ``sigma``,
    ``tokenize`` and the document-frequency table, ``None`` for ``"corpus"``)."""
    spec = CIDER_VARIANTS[check_choice(variant, CIDER_VARIANTS, _METRIC, "variant")]
    n = _check_n(n)
    sigma = _check_sigma(sigma)
    if not isinstance(tokenize, bool):
        raise TypeError(f"cider: `tokenize` must be a bool, got {type(tokenize).__name__}")
    table: DocumentFrequency | None = None
    if isinstance(df, DocumentFrequency):
        table = df
        if table.tokenizer != _TOKENIZERS[tokenize]:
            raise ValueError(
                f"cider: the document-frequency table was built with tokenizer {table.tokenizer!r} "
                f"but tokenize={tokenize} uses {_TOKENIZERS[tokenize]!r}; build it the same way"
            )
        if table.n < n:
            raise ValueError(f"cider: the document-frequency table has n-grams up to {table.n}, not {n}")
    elif not (isinstance(df, str) and df == "corpus"):
        raise ValueError(f"cider: `df` must be 'corpus' or a DocumentFrequency table, got {df!r}")
    return spec, n, sigma, tokenize, table


@paused_gc()
def cider_items(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    variant: CIDErVariantName = "cider_d",
    n: int = DEFAULT_N,
    sigma: float = DEFAULT_SIGMA,
    tokenize: bool = True,
    df: Literal["corpus"] | DocumentFrequency = "corpus",
) -> CIDErItems:
    """The rows as :func:`cider_result` scores them (arguments as :func:`compute_cider`,
    which is ``cider_result(cider_items(...))``): checked, tokenized, their words as ids."""
    spec, n, sigma, tokenize, table = check_cider_options(variant, n, sigma, tokenize, df)
    preds, raw_refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    refs = _check_references(raw_refs, "references")
    flat, ref_counts = flatten_with_counts(refs)
    words = CaptionWords.of(
        _tokenized(preds, tokenize, "predictions"), _tokenized(flat, tokenize, "references"), ref_counts
    )
    return CIDErItems(words, spec.name, n, sigma, tokenize, table, preds)


def cider_items_of_words(words: CaptionWords, *, tokenize: bool) -> CIDErItems:
    """:class:`CIDErItems` of CIDEr-D with its defaults on captions already checked, tokenized
    and turned into word ids (the COCO caption table); ``tokenize`` is what the signature
    reports."""
    return CIDErItems(words, "cider_d", DEFAULT_N, DEFAULT_SIGMA, tokenize, None)


def cider_result(items: CIDErItems, *, columns: bool = True) -> CIDErResult:
    """The scores of every row's statistics (the corpus's document frequencies, then each
    image's score). ``columns=False``: without the per-image columns (the same ``cider``)."""
    spec = CIDER_VARIANTS[items.variant]
    words, table, n = items.words, items.table, items.n
    num_images = words.num_images
    if table is None and num_images == 1:
        warnings.warn(
            "cider: one image with document frequencies from its own references: every idf is "
            "log(1) - log(1) = 0, so the score is 0. Score a whole corpus, or pass df=a "
            "DocumentFrequency table.",
            UserWarning,
            stacklevel=4,  # compute_cider's caller (through its paused_gc wrapper)
        )
    grams = CorpusNGrams(words, n, doc_freq=table is None)

    def weigh(k: int) -> np.ndarray:
        """The idf of every (k+1)-gram (once the order is numbered)."""
        if table is None:
            return idf(grams.doc_freq[k], num_images)
        get = table.counts.get
        df = np.fromiter((get(t, 0) for t in grams.texts(k)), np.float64, grams.sizes[k])
        return idf(df, table.num_images)

    penalty: np.ndarray | None = None
    if spec.length_penalty:
        # the reference code's "length": entries of the bigram term-frequency vector
        bigrams_c = np.maximum(words.cand_len.astype(np.int64) - 1, 0).astype(np.float64)
        bigrams_r = np.maximum(words.ref_len.astype(np.int64) - 1, 0).astype(np.float64)
        image_of_ref = np.repeat(np.arange(num_images, dtype=np.int64), words.ref_counts)
        delta = bigrams_c[image_of_ref] - bigrams_r
        penalty = np.exp(-(delta * delta) / (2.0 * items.sigma * items.sigma))
    per_order = grams.scores(weigh, penalty, spec.clipped)
    scores = per_order.mean(axis=1) / words.ref_counts * CIDER_SCALE

    options = {
        "tok": "ptb-corenlp-3.4.1" if items.tokenize else "none",
        "n": n,
        "sigma": items.sigma,
        "df": "corpus" if table is None else f"table-{table.fingerprint}-{table.num_images}img",
    }
    if not spec.length_penalty:
        del options["sigma"]
    statistics = None
    if columns:
        statistics = CIDErStatistics(
            num_images, words.ref_counts, penalty, spec.clipped, table is not None, grams
        )
    return CIDErResult(
        cider=float(np.mean(scores)),
        scores=scores.tolist() if columns else [],
        variant=spec.name,
        signature=build_signature(_METRIC, spec.name, options),
        statistics=statistics,
        predictions=(items.predictions or []) if columns else [],
    )


@dataclass(frozen=True)
class CIDErMatch:
    """A candidate n-gram that some reference of its image also contains."""

    ngram: str  # words joined by spaces
    order: int
    #: ``log(I) - log(max(1, df))`` over the evaluated references; 0: every image has it
    idf: float


@dataclass(frozen=True)
class CIDErExplanation:
    """Which n-grams of one candidate its references share (:func:`explain_cider`)."""

    matches: tuple[CIDErMatch, ...]  # by order, then in candidate order
    #: distinct candidate n-grams per order 1..n
    candidate_ngrams: tuple[int, ...]

    def describe(self, max_shown: int = 5) -> str:
        """``"shared 1-4-grams: 5/5 · 3/5 · 2/4 · 1/3 | longest: “a cat sits” | idf 0: “a”"``."""
        if not any(self.candidate_ngrams):
            return "empty candidate → 0"
        n = len(self.candidate_ngrams)
        per_order = [sum(m.order == k for m in self.matches) for k in range(1, n + 1)]
        text = f"shared 1-{n}-grams: " + " · ".join(
            f"{s}/{c}" for s, c in zip(per_order, self.candidate_ngrams)
        )
        if self.matches:
            top = self.matches[-1].order
            text += f" | longest: “{next(m.ngram for m in self.matches if m.order == top)}”"
        else:
            text += " | nothing shared"
        weightless = [m.ngram for m in self.matches if m.idf == 0.0]
        if weightless:
            more = f" (+{len(weightless) - max_shown})" if len(weightless) > max_shown else ""
            shown = ", ".join(f"“{g}”" for g in weightless[:max_shown])
            text += f" | idf 0 (in every image's references): {shown}{more}"
        return text


def explain_cider(
    predictions: Sequence[str], references: Sequence[Any], *, n: int = DEFAULT_N, tokenize: bool = True
) -> list[CIDErExplanation]:
    """Per image, the candidate's n-grams (orders 1..n, after the same tokenization as
    :func:`compute_cider`) that a reference of the image contains, with their corpus idf.

    These are the n-grams with a non-zero product in the cosine *before* tf-idf weighting,
    clipping and the length penalty: one with idf 0 (present in every image's references)
    still contributes nothing.

    >>> e = explain_cider(["a cat sits", "a dog"], [["a cat sat"], ["a dog runs"]], tokenize=False)
    >>> [(m.ngram, round(m.idf, 4)) for m in e[0].matches]
    [('a', 0.0), ('cat', 0.6931), ('a cat', 0.6931)]
    >>> print(e[1].describe())
    shared 1-4-grams: 2/2 · 1/1 · 0/0 · 0/0 | longest: “a dog” | idf 0 (in every image's references): “a”
    """
    n = _check_n(n)
    if not isinstance(tokenize, bool):
        raise TypeError(f"cider: `tokenize` must be a bool, got {type(tokenize).__name__}")
    preds, raw_refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    refs = _check_references(raw_refs, "references")
    flat, counts = flatten_with_counts(refs)
    cands = [s.split() for s in _tokenized(preds, tokenize, "predictions")]
    ref_words = [s.split() for s in _tokenized(flat, tokenize, "references")]

    def grams(words: list[str]) -> list[str]:
        return [" ".join(words[i : i + k]) for k in range(1, n + 1) for i in range(len(words) - k + 1)]

    ends = np.cumsum(counts).tolist()
    image_grams = [set().union(*map(grams, ref_words[e - c : e])) for e, c in zip(ends, counts.tolist())]
    shared = [
        [g for g in dict.fromkeys(grams(words)) if g in ref_set] for words, ref_set in zip(cands, image_grams)
    ]
    df = DocumentFrequency.from_references(refs, n=n, tokenize=tokenize).counts
    log_images = math.log(float(len(preds)))
    return [
        CIDErExplanation(
            tuple(CIDErMatch(g, g.count(" ") + 1, log_images - math.log(df[g])) for g in found),
            tuple(
                len({" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}) for k in range(1, n + 1)
            ),
        )
        for found, words in zip(shared, cands)
    ]
