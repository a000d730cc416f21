"""Corpus-level CIDEr / CIDEr-D under bootstrap resampling.

Three ways to take a resample's document frequencies (``resample_df``, :data:`RESAMPLE_DF`):
``"fixed"`` (the default: those of the scored corpus, so the statistic is the mean of the
per-image scores), ``"multiset"`` (recomputed, as re-running the metric on the resampled list
gives; below) and ``"distinct"`` (recomputed over the resample's distinct images). The default
was chosen by measured coverage (``benchmarks/coverage.py``, ``docs/statistics.md``): with
recomputed frequencies a duplicated image lowers the idf of its own n-grams, resampled scores
drift down and the percentile interval sits too low (coverage about 0.89 at nominal 0.95
on generated captions); with fixed frequencies it is about 0.93-0.95.

With ``df="corpus"`` a CIDEr score depends on the whole set of images scored together: the
idf of an n-gram is ``log(I) - log(max(1, df))`` with ``df`` the number of images whose
references contain it. Re-running the metric on a bootstrap resample (a multiset of ``I``
images, duplicates counted as separate images, as ``pycocoevalcap`` counts its list
entries) therefore changes every weight. This module computes exactly that, for all
resamples of a chunk at once, without re-running the metric:

* ``df`` of a resample with item counts ``w`` is ``w @ A`` for the binary image x n-gram
  matrix ``A`` (n-gram among the image's references);
* every idf is >= 0, so each tf-idf product is ``idf^2`` times a product of term
  frequencies (``min(c, t) * t`` clipped, ``c * t`` plain) and each squared norm is
  ``sum tf^2 idf^2``: numerators and norms are sparse matrices of term-frequency products
  applied to the vector ``q = idf^2`` of each resample;
* the per-image score follows as in :func:`metricore.metrics.cider.compute_cider`, and the
  resample's corpus score is ``sum_i w_i score_i / I``.

With a :class:`metricore.metrics.cider.DocumentFrequency` table the idf does not depend on the
scored images and the statistic is the plain mean of the per-image scores. Approximate
randomization swaps candidates between two systems over the same images and references, so
the document frequencies (references only) stay those of the full corpus: the per-image
scores are swapped as they are.

``tests/stats/test_significance_naive.py`` checks the resampled values against
:func:`~metricore.metrics.cider.compute_cider` re-run on each resample (agreement to 1e-9).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from metricore.metrics.cider import CIDER_SCALE, CIDErResult, CIDErStatistics, idf
from metricore.stats.significance import CHUNK_ELEMENTS, Statistic, mean_statistic, resample_weights

__all__ = ["DEFAULT_RESAMPLE_DF", "RESAMPLE_DF", "CIDErCorpusStatistic", "cider_statistic"]

#: a resample's document frequencies: ``"fixed"`` (those of the scored corpus: the per-image
#: scores are resampled as they are), ``"multiset"`` (recomputed over the resample, each draw
#: an image, as re-running the metric on the resampled list does), ``"distinct"``
#: (recomputed over the resample's distinct images)
RESAMPLE_DF = ("fixed", "multiset", "distinct")
#: chosen by the coverage measured in ``benchmarks/coverage.md`` (module docstring)
DEFAULT_RESAMPLE_DF = "fixed"


@dataclass(frozen=True)
class _Order:
    """The sparse pieces of one n-gram order (``G`` distinct n-grams, ``R`` references)."""

    presence_t: sparse.csr_matrix  # (G, I): n-gram among image i's references
    numerator: sparse.csr_matrix  # (R, G): tf products of matched n-grams
    ref_norm: sparse.csr_matrix  # (R, G): reference tf^2
    cand_norm: sparse.csr_matrix  # (I, G): candidate tf^2


def _build_orders(st: CIDErStatistics) -> tuple[_Order, ...]:
    n_img = st.num_images
    n_ref = int(st.ref_counts.sum())
    image_of_ref = np.repeat(np.arange(n_img, dtype=np.int64), st.ref_counts)
    out = []
    for (sent, gid, tf), size in zip(st.entries, st.sizes):
        is_ref = sent >= n_img
        c_img, c_g, c_tf = sent[~is_ref], gid[~is_ref], tf[~is_ref]
        r_row = sent[is_ref] - n_img
        r_g, r_tf = gid[is_ref], tf[is_ref]
        r_img = image_of_ref[r_row]
        # candidate entries are sorted by (image, n-gram id): find each reference n-gram there
        c_key = c_img * size + c_g
        r_key = r_img * size + r_g
        at = np.minimum(np.searchsorted(c_key, r_key), max(len(c_key) - 1, 0))
        found = (c_key[at] == r_key) if len(c_key) else np.zeros(len(r_key), bool)
        c_match = np.where(found, c_tf[at] if len(c_key) else 0.0, 0.0)
        prod = np.minimum(c_match, r_tf) * r_tf if st.clipped else c_match * r_tf
        keep = prod != 0
        pairs = np.unique(r_img * size + r_g)
        out.append(
            _Order(
                presence_t=sparse.csr_matrix(
                    (np.ones(len(pairs)), (pairs % size, pairs // size)), shape=(size, n_img)
                ),
                numerator=sparse.csr_matrix((prod[keep], (r_row[keep], r_g[keep])), shape=(n_ref, size)),
                ref_norm=sparse.csr_matrix((r_tf * r_tf, (r_row, r_g)), shape=(n_ref, size)),
                cand_norm=sparse.csr_matrix((c_tf * c_tf, (c_img, c_g)), shape=(n_img, size)),
            )
        )
    return tuple(out)


@dataclass(frozen=True, eq=False)
class CIDErCorpusStatistic(Statistic):
    """Corpus CIDEr(-D) with document frequencies from the references of each resample.

    Build it with :func:`cider_statistic` from a :class:`~metricore.metrics.cider.CIDErResult`.
    """

    statistics: CIDErStatistics
    scores: np.ndarray  # observed per-image scores
    #: how a resample's document frequencies are taken (:data:`RESAMPLE_DF`)
    resample_df: str = DEFAULT_RESAMPLE_DF
    _orders: tuple[_Order, ...] = field(init=False, repr=False)
    _image_of_ref: np.ndarray = field(init=False, repr=False)
    _ref_starts: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.resample_df not in RESAMPLE_DF:
            raise ValueError(
                f"cider: `resample_df` must be one of {', '.join(map(repr, RESAMPLE_DF))}, got {self.resample_df!r:.40}"
            )
        st = self.statistics
        object.__setattr__(self, "scores", np.asarray(self.scores, dtype=np.float64))
        object.__setattr__(self, "_orders", _build_orders(st))
        object.__setattr__(
            self, "_image_of_ref", np.repeat(np.arange(st.num_images, dtype=np.int64), st.ref_counts)
        )
        starts = np.zeros(st.num_images, np.int64)
        np.cumsum(st.ref_counts[:-1], out=starts[1:])
        object.__setattr__(self, "_ref_starts", starts)

    @property
    def size(self) -> int:
        return self.statistics.num_images

    @property
    def _scores_fixed(self) -> bool:
        """Per-image scores do not move under resampling: a saved table, or ``"fixed"``."""
        return self.statistics.fixed_df or self.resample_df == "fixed"

    def value(self) -> float:
        return float(np.mean(self.scores))

    def _rows_at_once(self) -> int:
        widest = max([int(self.statistics.ref_counts.sum())] + list(self.statistics.sizes))
        return max(1, CHUNK_ELEMENTS // widest)

    def image_scores(self, weights: np.ndarray, num_images: int | np.ndarray | None = None) -> np.ndarray:
        """Per-image scores ``(I, rows)`` under the document frequencies of each row of
        ``weights`` (``(rows, I)`` item counts of a resample), the idf's image count being
        ``num_images`` (default: ``I``; the jackknife's rows hold ``I - 1``; an array: one
        count per row)."""
        st = self.statistics
        n_img = st.num_images
        count = n_img if num_images is None else num_images
        wt = np.ascontiguousarray(weights.T)
        if np.ndim(count) == 0:
            # q = idf^2 by document frequency 0..I: a lookup instead of a log per n-gram and row
            q_of_df = idf(np.arange(n_img + 1), int(count))
            q_of_df *= q_of_df

            def weight(df: np.ndarray) -> np.ndarray:
                return q_of_df[np.rint(df).astype(np.intp)]
        else:
            log_count = np.log(np.asarray(count, dtype=np.float64))[None, :]

            def weight(df: np.ndarray) -> np.ndarray:
                return (log_count - np.log(np.maximum(df, 1.0))) ** 2

        total = np.zeros((n_img, weights.shape[0]))
        for order in self._orders:
            df = order.presence_t @ wt  # (G, rows), whole numbers
            q = weight(df)
            num = order.numerator @ q
            norm_r = np.sqrt(order.ref_norm @ q)
            norm_c = np.sqrt(order.cand_norm @ q)
            denom = norm_c[self._image_of_ref] * norm_r
            val = np.divide(num, denom, out=np.zeros_like(num), where=denom != 0)
            if st.penalty is not None:
                val *= st.penalty[:, None]
            total += np.add.reduceat(val, self._ref_starts, axis=0)
        return total / len(self._orders) / st.ref_counts[:, None] * CIDER_SCALE

    def resampled(self, indices: np.ndarray) -> np.ndarray:
        n_img = self.size
        if self._scores_fixed:
            return self.scores[indices].sum(axis=1) / n_img
        out = np.empty(indices.shape[0])
        step = self._rows_at_once()
        for start in range(0, indices.shape[0], step):
            w = resample_weights(indices[start : start + step], n_img)
            if self.resample_df == "distinct":
                present = (w > 0).astype(np.float64)
                per_image = self.image_scores(present, present.sum(axis=1))
            else:
                per_image = self.image_scores(w)
            out[start : start + step] = np.einsum("bi,ib->b", w, per_image) / n_img
        return out

    def jackknife(self) -> np.ndarray:
        """The corpus score with each image left out (document frequencies and the idf's image
        count over the ``I - 1`` others, as re-running the metric without it would give)."""
        n_img = self.size
        if n_img < 2:
            return np.full(n_img, np.nan)
        if self._scores_fixed:
            return (self.scores.sum() - self.scores) / (n_img - 1)
        out = np.empty(n_img)
        step = self._rows_at_once()
        for start in range(0, n_img, step):
            rows = np.arange(start, min(n_img, start + step))
            w = np.ones((len(rows), n_img))
            w[np.arange(len(rows)), rows] = 0.0
            per_image = self.image_scores(w, n_img - 1)
            out[rows] = np.einsum("bi,ib->b", w, per_image) / (n_img - 1)
        return out

    def differs(self, other: Statistic) -> np.ndarray:
        if not isinstance(other, CIDErCorpusStatistic) or other.size != self.size:
            return super().differs(other)
        return np.asarray(self.scores != other.scores)

    def swapped(self, other: Statistic, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(other, CIDErCorpusStatistic) or other.size != self.size:
            raise TypeError("significance: both systems need a CIDEr statistic over the same images")
        # all images present: document frequencies are those of the full reference corpus
        return mean_statistic(self.scores).swapped(mean_statistic(other.scores), swap)


def cider_statistic(result: CIDErResult, *, resample_df: str = DEFAULT_RESAMPLE_DF) -> CIDErCorpusStatistic:
    """The resampling statistic of a :func:`~metricore.metrics.cider.compute_cider` result
    (``resample_df``: :data:`RESAMPLE_DF`)."""
    if result.statistics is None:
        raise ValueError("cider: this CIDErResult carries no n-gram statistics (build it with compute_cider)")
    return CIDErCorpusStatistic(result.statistics, np.asarray(result.scores), resample_df)
