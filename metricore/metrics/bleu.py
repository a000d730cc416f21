"""BLEU-1..4 exactly as the COCO caption toolkit computes it (``pycocoevalcap`` 1.2
``bleu/bleu.py`` + ``bleu/bleu_scorer.py``, ``Bleu(4).compute_score``).

Captions are PTB-tokenized as in ``COCOEvalCap`` (:mod:`metricore.metrics.caption_text`) and
split on whitespace (``str.split``). Per image ``i`` and order ``k = 1..n``:

* ``guess_k = max(0, len(c) - k + 1)``, the candidate's k-grams;
* ``correct_k = sum over the candidate's distinct k-grams w of min(count_c(w), max_j count_{r_j}(w))``
  (counts clipped by the largest count in any single reference);
* the effective reference length is the ``"closest"`` one: the reference length ``l``
  minimising ``(|l - len(c)|, l)`` (a tie goes to the shorter reference).

With ``tiny = 1e-15`` and ``small = 1e-9`` (the reference code's names; they keep a zero
count from dividing by zero and make an empty candidate score ~0, not an error)::

    BLEU_k = (prod_{j<=k} (correct_j + tiny) / (guess_j + small)) ** (1/k)
             * (exp(1 - 1/ratio) if ratio < 1 else 1),   ratio = (testlen + tiny) / (reflen + small)

The per-image scores use the image's own counts and lengths; the corpus score uses the sums of
``correct``, ``guess``, candidate lengths and closest reference lengths over all images (not a
mean of per-image scores). Degenerate cases, as in the reference: an empty candidate scores
``~0`` (``1e-6`` to the power ``1/k`` times ``exp(-1e24)`` = 0.0); a candidate with no matching
k-gram gets ``1e-15 / guess`` in its product, a tiny positive number, not 0.

Implementation: the captions' words are interned to integer ids (the CIDEr-D counter's
:class:`~metricore.metrics.cider_corpus.CaptionWords`) and their n-grams numbered a chunk of
images at a time; the per-(image, n-gram) maximum reference counts, the clipped matches and
the closest lengths are numpy reductions. An image's counts (:class:`BLEUStatistics`) depend on
its own captions only, so a stream of batches keeps them and sums them at the end
(:mod:`metricore.core.stream`). The floating-point steps are done in the reference's order
with Python's ``**`` and ``math.exp``, so the numbers are bit-identical to ``pycocoevalcap``
(``tests/metrics/test_coco_caption_parity.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.metrics.caption_text import CaptionTexts, tokenized_captions
from metricore.metrics.cider_corpus import CaptionWords, Chunk, chunks, local_entries

if TYPE_CHECKING:
    from metricore.stats.significance import SumStatistic

__all__ = [
    "BLEUResult",
    "BLEUStatistics",
    "bleu_counts",
    "bleu_keys",
    "bleu_result_of",
    "bleu_scores",
    "bleu_statistics",
    "bleu_statistics_of",
    "compute_bleu",
    "corpus_bleu",
]

_METRIC = "bleu"
DEFAULT_N = 4
#: the reference's constants: ``small`` in every denominator, ``tiny`` in every numerator
SMALL = 1e-9
TINY = 1e-15


def bleu_keys(n: int = DEFAULT_N) -> list[str]:
    """The toolkit's names of the orders: ``Bleu_1`` .. ``Bleu_n``."""
    return [f"Bleu_{k}" for k in range(1, n + 1)]


@dataclass(frozen=True, eq=False)
class BLEUStatistics(ItemStats):
    """Per-image counts: ``correct``/``guess`` (images x n, int), ``testlen`` (candidate
    lengths), ``reflen`` (closest reference lengths). An image's counts depend on its own
    captions only: a stream keeps them (:mod:`metricore.core.stream`) and the corpus BLEU
    is computed from their sums (:func:`bleu_result_of`)."""

    correct: np.ndarray
    guess: np.ndarray
    testlen: np.ndarray
    reflen: np.ndarray


@dataclass(frozen=True)
class BLEUResult(MetricResult):
    """Corpus BLEU-1..n (``bleu[k-1]``), per-image BLEU of every order (``per_order[k-1]``),
    and ``scores``: the per-image BLEU-n."""

    bleu: list[float]
    per_order: list[list[float]]
    scores: list[float]
    signature: str = field(repr=False)
    statistics: BLEUStatistics | None = field(default=None, repr=False, compare=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    # a part of the COCO caption table (metricore.metrics.coco_caption), not a registry metric;
    # its keys depend on n: Bleu_1..Bleu_n, each with its per-image column

    def headline_values(self) -> dict[str, Any]:
        return dict(zip(bleu_keys(len(self.bleu)), self.bleu))

    def columns(self) -> dict[str, Sequence[Any]]:
        return dict(zip(bleu_keys(len(self.bleu)), self.per_order))


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"bleu: `n` must be an int >= 1, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"bleu: `n` must be >= 1, got {n}")
    return int(n)


def bleu_statistics(texts: CaptionTexts, n: int = DEFAULT_N) -> BLEUStatistics:
    """The per-image counts of ``bleu_scorer.cook_test`` with ``eff="closest"``."""
    return bleu_counts(CaptionWords.of(texts.candidates, texts.references, texts.ref_counts), n)


def bleu_counts(words: CaptionWords, n: int = DEFAULT_N) -> BLEUStatistics:
    """:func:`bleu_statistics` of captions kept as word ids (a chunk of images at a time:
    an image's counts depend on its own captions only)."""
    v = max(len(words.vocab), 1)
    return BLEUStatistics.concat([_chunk_counts(chunk, n, v) for chunk in chunks(words)])


def _chunk_counts(chunk: Chunk, n: int, v: int) -> BLEUStatistics:
    num = chunk.b - chunk.a
    testlen = chunk.lengths[:num]
    ref_len = chunk.lengths[num:]
    image_of_ref = chunk.image_of_ref
    starts = np.zeros(num, np.int64)
    np.cumsum(np.bincount(image_of_ref, minlength=num)[:-1], out=starts[1:])
    # min over (|l - testlen|, l): encode the pair in one integer, distance first
    span = int(ref_len.max(initial=0)) + 1
    key = np.abs(ref_len - testlen[image_of_ref]) * span + ref_len
    reflen = np.minimum.reduceat(key, starts) % span if num else np.zeros(0, np.int64)

    guess = np.maximum(testlen[:, None] - np.arange(n)[None, :], 0)
    correct = np.zeros((num, n), np.int64)
    for k, (sent, gid, tf, size) in enumerate(local_entries(chunk, n, v)):
        is_ref = sent >= num
        r_key = image_of_ref[sent[is_ref] - num] * size + gid[is_ref]
        order = np.argsort(r_key, kind="stable")
        r_key, r_tf = r_key[order], tf[is_ref][order]
        if r_key.size:
            first = np.flatnonzero(np.concatenate(([True], r_key[1:] != r_key[:-1])))
            u_key, u_max = r_key[first], np.maximum.reduceat(r_tf, first)
        else:
            u_key, u_max = r_key, r_tf
        h_sent = sent[~is_ref]
        h_key = h_sent * size + gid[~is_ref]
        at = np.minimum(np.searchsorted(u_key, h_key), max(u_key.size - 1, 0))
        found = (u_key[at] == h_key) if u_key.size else np.zeros(h_key.size, bool)
        ref_max = np.where(found, u_max[at] if u_key.size else 0.0, 0.0)
        clipped = np.minimum(tf[~is_ref], ref_max)
        correct[:, k] = np.rint(np.bincount(h_sent, weights=clipped, minlength=num)).astype(np.int64)
    return BLEUStatistics(correct, guess.astype(np.int64), testlen.astype(np.int64), reflen.astype(np.int64))


def bleu_scores(stats: BLEUStatistics, *, columns: bool = True) -> tuple[list[float], list[list[float]]]:
    """Corpus BLEU-1..n from the summed counts, and per-image BLEU-1..n (``bleu_scorer.
    compute_score(option="closest")``), each step in the reference's floating-point order.
    ``columns=False``: the corpus scores only (no per-image lists)."""
    n = stats.correct.shape[1]
    corpus = corpus_bleu(
        stats.correct.sum(axis=0).tolist(),
        stats.guess.sum(axis=0).tolist(),
        int(stats.testlen.sum()),
        int(stats.reflen.sum()),
    )
    if not columns:
        return corpus, []
    ratio = (stats.testlen + TINY) / (stats.reflen + SMALL)
    brevity = [math.exp(1 - 1 / r) if r < 1 else 1.0 for r in ratio.tolist()]
    per_order: list[list[float]] = []
    product = np.ones(stats.correct.shape[0])
    for k in range(n):
        product = product * ((stats.correct[:, k] + TINY) / (stats.guess[:, k] + SMALL))
        e = 1.0 / (k + 1)
        # Python's ** (C pow) rather than np.power, whose SIMD kernel can differ in the last bit
        per_order.append([(p**e) * b for p, b in zip(product.tolist(), brevity)])
    return corpus, per_order


def corpus_bleu(
    correct: Sequence[float], guess: Sequence[float], testlen: float, reflen: float
) -> list[float]:
    """Corpus BLEU-1..n from summed counts (``correct``/``guess`` per order, summed candidate
    and closest reference lengths), in ``bleu_scorer.compute_score``'s floating-point order."""
    corpus: list[float] = []
    bleu = 1.0
    for k, (c, g) in enumerate(zip(correct, guess)):
        bleu *= float(c + TINY) / (g + SMALL)
        corpus.append(bleu ** (1.0 / (k + 1)))
    r = (testlen + TINY) / (reflen + SMALL)
    if r < 1:
        corpus = [b * math.exp(1 - 1 / r) for b in corpus]
    return corpus


def bleu_statistics_of(stats: BLEUStatistics) -> dict[str, SumStatistic]:
    """``{"Bleu_k": statistic}``: corpus BLEU-k as a statistic of per-image columns (the
    counts of every order up to k and both lengths), so that a bootstrap resample is scored
    from its own summed counts exactly as the corpus is; its value on all images is the
    corpus BLEU-k to the bit."""
    from metricore.stats.significance import SumStatistic  # scipy behind it: import on use

    n = stats.correct.shape[1]
    columns = np.column_stack([stats.correct, stats.guess, stats.testlen, stats.reflen]).T

    def order(k: int) -> Callable[[np.ndarray, int], np.ndarray]:
        def score(sums: np.ndarray, _: int) -> np.ndarray:
            return np.array(
                [
                    corpus_bleu(row[:k], row[n : n + k], row[2 * n], row[2 * n + 1])[-1]
                    for row in sums.tolist()
                ]
            )

        return score

    return {key: SumStatistic(columns, order(k), name=key) for k, key in enumerate(bleu_keys(n), 1)}


@paused_gc()
def compute_bleu(
    predictions: Sequence[str], references: Sequence[Any], *, n: int = DEFAULT_N, tokenize: bool = True
) -> BLEUResult:
    """BLEU-1..n of one candidate caption per image against the image's references, as the
    COCO caption toolkit computes it (module docstring).

    Args:
        predictions: one candidate caption per image.
        references: per image, a list of reference captions (a bare str is one reference).
        n: longest n-gram order (the toolkit runs 4).
        tokenize: PTB-tokenize raw captions as ``pycocoevalcap`` does (default); ``False`` for
            already tokenized text (split on whitespace as given).

    >>> r = compute_bleu(["a cat sits on the mat"], [["the cat sat on the mat", "a cat is on a mat"]])
    >>> [round(b, 4) for b in r.bleu]
    [0.8333, 0.7071, 0.5, 0.0001]
    >>> round(r.per_order[0][0], 4), r.signature
    (0.8333, 'bleu|eff:closest|n:4|tok:ptb-corenlp-3.4.1|version:0.1.0')
    """
    n = _check_n(n)
    texts = tokenized_captions(predictions, references, _METRIC, tokenize)
    return bleu_result(texts, n, tokenize)


def bleu_result(texts: CaptionTexts, n: int, tokenize: bool) -> BLEUResult:
    """:func:`compute_bleu` on captions already checked and tokenized."""
    return bleu_result_of(bleu_statistics(texts, n), tokenize, texts.raw)


def bleu_result_of(
    stats: BLEUStatistics, tokenize: bool, predictions: list[str] | None, *, columns: bool = True
) -> BLEUResult:
    """The result of every image's counts (``tokenize``: what the signature reports;
    ``columns=False``: without the per-image columns, the same corpus BLEU)."""
    corpus, per_order = bleu_scores(stats, columns=columns)
    options = {"n": len(corpus), "eff": "closest", "tok": "ptb-corenlp-3.4.1" if tokenize else "none"}
    return BLEUResult(
        bleu=corpus,
        per_order=per_order,
        scores=list(per_order[-1]) if columns else [],
        signature=build_signature(_METRIC, None, options),
        statistics=stats if columns else None,
        predictions=(predictions or []) if columns else [],
    )
