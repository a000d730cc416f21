"""Bootstrap confidence intervals and paired significance tests over per-sample statistics.

Definitions follow sacrebleu's ``sacrebleu/significance.py`` (2.x; Koehn 2004 for the paired
bootstrap, Riezler and Maxwell 2005 / multeval for approximate randomization), re-implemented
here over any metric whose headline number is a function of per-item statistics:

* a **statistic** (:class:`Statistic`) is the map from a multiset of items to the headline
  number. :class:`SumStatistic` covers every metric whose headline is a function of *sums*
  of per-item sufficient statistics: a plain mean (:func:`mean_statistic`), a ratio of sums
  such as CER = sum of edits / sum of gold lengths (:func:`ratio_statistic`), or any
  ``score(sums, n)``. Corpus statistics that are not sums (CIDEr's document frequencies)
  subclass :class:`Statistic` (see :mod:`metricore.metrics.cider_bootstrap`).
* **bootstrap resample** ``b``: ``n`` item indices drawn uniformly with replacement; the
  statistic is evaluated on that multiset (equal to re-running the metric on the resampled
  items, which ``tests/stats/test_significance_naive.py`` checks for every metric).
* **percentile interval** at level ``c`` over ``R`` resampled values (NaN values, e.g. a
  subgroup absent from a resample, left out): sorted, ``low = v[k]``, ``high = v[R - 1 - k]``
  with ``k = floor(R (1 - c) / 2)``; for ``c = 0.95`` this is sacrebleu's ``estimate_ci``
  (``k = R // 40``).
* **BCa interval** (``method="bca"``; Efron 1987): the percentile levels moved by a bias
  correction (the share of resampled values below the estimate) and an acceleration (the
  skewness of the jackknife values), :func:`bca_levels`. Each statistic has a
  ``default_method``: percentile, except where ``benchmarks/coverage.py`` measured the
  percentile interval's coverage outside [0.93, 0.97] (``docs/statistics.md``).
* **paired bootstrap** (Koehn 2004): both systems are evaluated on the *same* resamples;
  ``p_value = (#{b: |(s_sys(b) - s_base(b)) - observed| >= |observed|} + 1) / (R + 1)`` (the
  resampled differences shifted to the null, two-sided). ``p_value_sacrebleu`` is sacrebleu's
  ``_paired_bs_test`` (the Moses script): with ``d_b = |s_sys(b) - s_base(b)|``,
  ``(#{b: d_b - mean(d) > |observed|} + 1) / (R + 1)``, in effect a one-sided test in the
  direction of the observed difference (false-positive rate about ``2 alpha`` read two-sided,
  measured in ``tests/stats/test_significance.py``), kept for comparison with published numbers.
  The interval of the difference is the percentile interval of the signed differences.
* **paired randomization** (Riezler and Maxwell 2005; sacrebleu ``_paired_ar_test``): every
  item's two outputs are swapped between the systems with probability 1/2. When only ``k``
  items differ and ``2^k <= n_trials``, all ``2^k`` swap patterns are enumerated and the
  p-value is exact: the share of patterns with ``|s_A' - s_B'| >= |observed|``. Otherwise
  ``p = (b + 1) / (T + 1)`` over ``T`` random trials, ``b`` counting those at least as extreme
  (a valid p-value: never below ``1 / (T + 1)``). sacrebleu counts only strictly larger ones,
  which with few items says p = 1e-4 where the exact p is 0.25 (the observed difference is the
  largest of few distinct values); its number is kept as ``p_value_sacrebleu``.
* both paired tests carry a ``warning`` when the sample cannot reach the requested
  confidence (:func:`small_sample_warning`: ``2 / 2^k > 1 - confidence``).

Ties: "at least as extreme" allows a relative slack of 1e-9, so that the same difference
reached by another order of additions counts. Two identical systems get ``p = 1``.

Resampling is vectorised: index matrices are drawn ``max(1, CHUNK_ELEMENTS // n)`` resamples
at a time from one ``numpy.random.default_rng(seed)`` stream, so memory stays bounded and the
indices depend only on ``(n, seed)`` (the first ``r`` resamples are the same whatever
``n_resamples``). :func:`resample_indices` yields exactly the index rows used, for checking
against a loop that re-runs a metric.
"""

from __future__ import annotations

import abc
import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "CHUNK_ELEMENTS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "INTERVAL_METHODS",
    "MAX_RESAMPLED_DRAWS",
    "MAX_RESAMPLES",
    "ConfidenceInterval",
    "PairedBootstrapResult",
    "PairedRandomizationResult",
    "Statistic",
    "SumStatistic",
    "bca_interval",
    "bca_levels",
    "bootstrap_ci",
    "bootstrap_cis",
    "bootstrap_distribution",
    "check_interval_method",
    "check_interval_options",
    "mean_statistic",
    "paired_bootstrap",
    "paired_randomization",
    "percentile_interval",
    "ratio_statistic",
    "resample_indices",
    "resample_weights",
    "sign_patterns",
    "small_sample_warning",
    "swap_masks",
]

DEFAULT_CONFIDENCE = 0.95
DEFAULT_RESAMPLES = 1000
DEFAULT_TRIALS = 10_000  # sacrebleu's default number of AR trials
DEFAULT_SEED = 0
#: interval methods of :func:`bootstrap_cis` (``None``: each statistic's ``default_method``)
INTERVAL_METHODS = ("percentile", "bca")
#: indices per chunk (int64: 16 MiB); part of the definition of the index stream
CHUNK_ELEMENTS = 1 << 21
#: the most bootstrap resamples an interval may ask for (its values take 8 MB per headline)
MAX_RESAMPLES = 1_000_000
#: the most items x resamples one interval may draw (chunked, so a bound on time, not memory)
MAX_RESAMPLED_DRAWS = 10**11

_NAME = "significance"


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


def _check_count(value: Any, metric: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{metric}: `{name}` must be an int >= 1, got {type(value).__name__} ({value!r:.40})")
    if value < 1:
        raise ValueError(f"{metric}: `{name}` must be >= 1, got {value}")
    return int(value)


def _check_confidence(value: Any, metric: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{metric}: `confidence` must be a number in (0, 1) such as 0.95, got {type(value).__name__} ({value!r:.40})"
        )
    c = float(value)
    if not 0.0 < c < 1.0:  # also refuses NaN
        raise ValueError(f"{metric}: `confidence` must be in (0, 1) (exclusive), e.g. 0.95; got {c}")
    return c


def _check_seed(value: Any, metric: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{metric}: `seed` must be an int >= 0 or None, got {type(value).__name__} ({value!r:.40})"
        )
    if value < 0:
        raise ValueError(f"{metric}: `seed` must be >= 0 (or None for fresh entropy), got {value}")
    return int(value)


def check_interval_options(
    confidence: Any, n_resamples: Any, seed: Any, metric: str = _NAME, n: int | None = None
) -> tuple[float, int, int | None]:
    """``confidence`` in (0, 1), ``n_resamples`` an int in [1, :data:`MAX_RESAMPLES`], ``seed``
    an int >= 0 or ``None`` (fresh OS entropy: not reproducible); with ``n`` (the number of
    items), ``n * n_resamples`` at most :data:`MAX_RESAMPLED_DRAWS`. ``TypeError``/``ValueError``
    naming ``metric``."""
    count = _check_count(n_resamples, metric, "n_resamples")
    # one float per resample and headline is kept, so an absurd count would end in a bare
    # MemoryError (10**12 resamples: 8 TB) instead of a message
    if count > MAX_RESAMPLES:
        raise ValueError(f"{metric}: `n_resamples` must be at most {MAX_RESAMPLES:,}, got {count:,}")
    if n is not None and n * count > MAX_RESAMPLED_DRAWS:
        raise ValueError(
            f"{metric}: {n:,} items x `n_resamples`={count:,} is {n * count:,} draws, more than the "
            f"{MAX_RESAMPLED_DRAWS:,} allowed; use fewer resamples"
        )
    return (_check_confidence(confidence, metric), count, _check_seed(seed, metric))


def _column(values: Any, metric: str, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes, Mapping)) or values is None:
        raise TypeError(f"{metric}: `{name}` must be a sequence of numbers, got {type(values).__name__}")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{metric}: `{name}` must be a sequence of numbers") from None
    if arr.ndim != 1:
        raise ValueError(
            f"{metric}: `{name}` must be one-dimensional (one value per item), got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{metric}: `{name}` is empty; a statistic over zero items is undefined")
    return arr


# --------------------------------------------------------------------------------------------
# Index streams
# --------------------------------------------------------------------------------------------


def _rows_per_chunk(n: int) -> int:
    return max(1, CHUNK_ELEMENTS // n)


def resample_indices(n: int, n_resamples: int, seed: int | None = DEFAULT_SEED) -> Iterator[np.ndarray]:
    """The bootstrap index rows, as ``(rows, n)`` int64 chunks, in resample order.

    >>> [chunk.shape for chunk in resample_indices(1_000_000, 5)]
    [(2, 1000000), (2, 1000000), (1, 1000000)]
    """
    n = _check_count(n, _NAME, "n")
    n_resamples = _check_count(n_resamples, _NAME, "n_resamples")
    rng = np.random.default_rng(_check_seed(seed, _NAME))
    rows = _rows_per_chunk(n)
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n, size=(min(rows, n_resamples - start), n), dtype=np.int64)


def swap_masks(n: int, n_trials: int, seed: int | None = DEFAULT_SEED) -> Iterator[np.ndarray]:
    """Approximate-randomization swap masks, as ``(rows, n)`` bool chunks: ``True`` = the
    item's two outputs change sides in that trial."""
    n = _check_count(n, _NAME, "n")
    n_trials = _check_count(n_trials, _NAME, "n_trials")
    rng = np.random.default_rng(_check_seed(seed, _NAME))
    rows = _rows_per_chunk(n)
    for start in range(0, n_trials, rows):
        yield rng.integers(0, 2, size=(min(rows, n_trials - start), n), dtype=bool)


def resample_weights(indices: np.ndarray, n: int) -> np.ndarray:
    """Per resample row, how many times each item was drawn: ``(rows, n)`` float64.

    >>> resample_weights(np.array([[0, 0, 2], [1, 2, 2]]), 3).tolist()
    [[2.0, 0.0, 1.0], [0.0, 1.0, 2.0]]
    """
    rows = indices.shape[0]
    flat = (indices + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


class Statistic(abc.ABC):
    """A headline number as a function of a multiset of items (by index ``0..size-1``).

    ``default_method`` is the interval method used when none is asked for: the one whose
    coverage ``benchmarks/coverage.py`` measured within [0.93, 0.97] at nominal 0.95.
    """

    default_method: str = "percentile"

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """Number of items."""

    @abc.abstractmethod
    def value(self) -> float:
        """The statistic over all items, each once (the metric's reported number)."""

    @abc.abstractmethod
    def resampled(self, indices: np.ndarray) -> np.ndarray:
        """The statistic over each row of ``indices`` (``(rows, size)`` int): ``(rows,)``."""

    def swapped(self, other: Statistic, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Approximate randomization: the statistics of the two pseudo-systems of each row of
        ``swap`` (``(rows, size)`` bool; ``True`` = the item is taken from the other system)."""
        raise TypeError(f"{_NAME}: {type(self).__name__} does not support approximate randomization")

    def jackknife(self) -> np.ndarray:
        """The statistic with each item left out in turn, ``(size,)`` (BCa's acceleration)."""
        raise TypeError(f"{_NAME}: {type(self).__name__} has no jackknife; use method='percentile'")

    def differs(self, other: Statistic) -> np.ndarray:
        """``(size,)`` bool: items whose swap between the two systems can change anything
        (all of them unless a subclass knows better); the exact test enumerates these."""
        return np.ones(self.size, dtype=bool)


ScoreFn = Callable[[np.ndarray, int], np.ndarray]


@dataclass(frozen=True, eq=False)
class SumStatistic(Statistic):
    """A statistic computed from the sums of per-item columns: ``score(sums, n)`` maps a
    ``(rows, k)`` array of column sums (over a multiset of ``n`` items) to ``(rows,)``.

    >>> s = SumStatistic((np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 4.0])),
    ...                  lambda sums, n: sums[:, 0] / sums[:, 1])
    >>> s.value(), s.resampled(np.array([[0, 0, 2]])).tolist()
    (0.75, [0.625])
    """

    columns: Any  # k sequences of n numbers; stored as a (k, n) float64 array
    score: ScoreFn
    name: str = "statistic"
    default_method: str = "percentile"

    def __post_init__(self) -> None:
        cols = self.columns
        if isinstance(cols, np.ndarray) and cols.ndim == 2:
            cols = list(cols)
        if isinstance(cols, (str, bytes)) or not isinstance(cols, (Sequence, np.ndarray)) or len(cols) == 0:
            raise TypeError(f"{self.name}: `columns` must be a non-empty sequence of per-item columns")
        if self.default_method not in INTERVAL_METHODS:
            raise ValueError(f"{self.name}: `default_method` must be one of {INTERVAL_METHODS}")
        arrays = [_column(c, self.name, f"columns[{j}]") for j, c in enumerate(cols)]
        for j, a in enumerate(arrays[1:], 1):
            if a.size != arrays[0].size:
                raise ValueError(
                    f"{self.name}: `columns[{j}]` has {a.size} items but `columns[0]` has {arrays[0].size}"
                )
        object.__setattr__(self, "columns", np.ascontiguousarray(np.stack(arrays)))

    @property
    def size(self) -> int:
        return int(self.columns.shape[1])

    def _score(self, sums: np.ndarray, n: int | None = None) -> np.ndarray:
        n = self.size if n is None else n
        return np.asarray(self.score(sums, n), dtype=np.float64).reshape(len(sums))

    def jackknife(self) -> np.ndarray:
        if self.size < 2:
            return np.full(self.size, math.nan)
        return self._score(self.columns.sum(axis=1)[None, :] - self.columns.T, self.size - 1)

    def differs(self, other: Statistic) -> np.ndarray:
        if not isinstance(other, SumStatistic) or other.columns.shape != self.columns.shape:
            return super().differs(other)
        return np.any(self.columns != other.columns, axis=0)

    def value(self) -> float:
        return float(self._score(self.columns.sum(axis=1)[None, :])[0])

    def resampled(self, indices: np.ndarray) -> np.ndarray:
        sums = np.empty((indices.shape[0], self.columns.shape[0]))
        for j, col in enumerate(self.columns):
            sums[:, j] = col[indices].sum(axis=1)
        return self._score(sums)

    def swapped(self, other: Statistic, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(other, SumStatistic) or other.columns.shape != self.columns.shape:
            raise TypeError(f"{_NAME}: both systems need the same kind of statistic ({self.name})")
        # Pseudo-system A takes B's statistics where swapped: sum_A + swap @ (B - A).
        delta = swap.astype(np.float64) @ (other.columns - self.columns).T
        return (
            self._score(self.columns.sum(axis=1)[None, :] + delta),
            other._score(other.columns.sum(axis=1)[None, :] - delta),
        )


def _mean_score(scale: float) -> ScoreFn:
    def score(sums: np.ndarray, n: int) -> np.ndarray:
        return scale * sums[:, 0] / n

    return score


def _ratio_score(scale: float, empty: float) -> ScoreFn:
    def score(sums: np.ndarray, n: int) -> np.ndarray:
        num, den = sums[:, 0], sums[:, 1]
        out = np.full(len(sums), empty, dtype=np.float64)
        np.divide(num, den, out=out, where=den != 0)
        return np.where(den != 0, scale * out, empty)

    return score


def mean_statistic(scores: Any, *, scale: float = 1.0, name: str = "mean") -> SumStatistic:
    """``scale * mean(scores)``: ANLS, METEOR, 1-NED, token F1/EM, ...

    >>> mean_statistic([1.0, 0.0, 0.5], scale=100).value()
    50.0
    """
    return SumStatistic((_column(scores, name, "scores"),), _mean_score(float(scale)), name)


def ratio_statistic(
    numerators: Any,
    denominators: Any,
    *,
    scale: float = 1.0,
    empty: float = math.nan,
    name: str = "ratio",
    default_method: str = "percentile",
) -> SumStatistic:
    """``scale * sum(numerators) / sum(denominators)`` (``empty`` when the denominator sum is
    0): a subgroup mean (denominators = membership 0/1) or a micro-average.

    >>> ratio_statistic([1.0, 0.0, 1.0], [1, 0, 1]).value()
    1.0
    """
    num = _column(numerators, name, "numerators")
    den = _column(denominators, name, "denominators")
    if num.size != den.size:
        raise ValueError(f"{name}: got {num.size} numerators but {den.size} denominators")
    return SumStatistic((num, den), _ratio_score(float(scale), float(empty)), name, default_method)


def _as_statistic(value: Any, name: str) -> Statistic:
    if isinstance(value, Statistic):
        return value
    return mean_statistic(value, name=name)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap interval around ``score`` (the statistic over all items); ``method`` is
    ``"percentile"`` or ``"bca"``.

    ``mean`` and ``std`` are those of the resampled values; ``undefined`` counts resamples
    where the statistic was NaN (left out of the interval).
    """

    score: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    seed: int | None
    mean: float
    std: float
    undefined: int = 0
    method: str = "percentile"

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "mean": self.mean,
            "std": self.std,
            "undefined": self.undefined,
            "method": self.method,
        }


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap of ``system`` against ``baseline`` on the same resamples.

    ``difference = system.score - baseline.score``; ``low``/``high`` bound it (percentile
    interval of the resampled differences). ``p_value`` is the two-sided test
    ``(b + 1) / (R + 1)`` with ``b`` counting resampled differences, shifted to the null, at
    least as far from 0 as the observed one (``p_value_two_sided`` is the same number, its
    former name); ``p_value_sacrebleu`` is sacrebleu's ``paired_bs`` p-value, kept for
    comparison with published numbers (one-sided in the observed direction, strict ``>``).
    ``warning`` says when the sample is too small for the requested confidence.
    """

    baseline: ConfidenceInterval
    system: ConfidenceInterval
    difference: float
    low: float
    high: float
    p_value: float
    p_value_sacrebleu: float
    confidence: float
    n_resamples: int
    seed: int | None
    n_nonzero: int = 0
    warning: str | None = None

    @property
    def p_value_two_sided(self) -> float:
        return self.p_value

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": "paired_bootstrap",
            "baseline": self.baseline.as_dict(),
            "system": self.system.as_dict(),
            "difference": self.difference,
            "difference_low": self.low,
            "difference_high": self.high,
            "p_value": self.p_value,
            "p_value_two_sided": self.p_value,
            "p_value_sacrebleu": self.p_value_sacrebleu,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "n_nonzero": self.n_nonzero,
            "warning": self.warning,
        }


@dataclass(frozen=True)
class PairedRandomizationResult:
    """Paired randomization test of ``system`` against ``baseline``.

    ``exact``: every one of the ``2^k`` swap patterns of the ``k = n_nonzero`` items whose two
    outputs differ was enumerated and ``p_value`` is the exact permutation p-value (share of
    patterns with ``|difference| >=`` the observed one); otherwise ``p_value = (b + 1) /
    (T + 1)`` over ``T`` random trials (``b``: trials at least as extreme), a valid p-value.
    ``p_value_sacrebleu`` is sacrebleu's ``paired_ar`` p-value on the random trials (strict
    ``>``), kept for comparison with published numbers only: with few items it can be far
    too small. ``warning`` says when the sample is too small for the requested confidence.
    """

    baseline_score: float
    system_score: float
    difference: float
    p_value: float
    n_trials: int
    seed: int | None
    exact: bool = False
    n_nonzero: int = 0
    p_value_sacrebleu: float = math.nan
    warning: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": "exact_permutation" if self.exact else "approximate_randomization",
            "baseline": self.baseline_score,
            "system": self.system_score,
            "difference": self.difference,
            "p_value": self.p_value,
            "exact": self.exact,
            "n_nonzero": self.n_nonzero,
            "p_value_sacrebleu": self.p_value_sacrebleu,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "warning": self.warning,
        }


# --------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------


def _same_size(stats: Sequence[Statistic]) -> int:
    n = stats[0].size
    for s in stats[1:]:
        if s.size != n:
            raise ValueError(f"{_NAME}: statistics over {n} and {s.size} items cannot share resamples")
    if n < 1:
        raise ValueError(f"{_NAME}: a statistic over zero items is undefined")
    return n


def bootstrap_distribution(
    statistics: Sequence[Statistic], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED
) -> np.ndarray:
    """The resampled values of each statistic, ``(len(statistics), n_resamples)``; every
    statistic sees the same resamples (they must have the same number of items)."""
    stats = list(statistics)
    if not stats:
        raise ValueError(f"{_NAME}: no statistic given")
    n = _same_size(stats)
    out = np.empty((len(stats), _check_count(n_resamples, _NAME, "n_resamples")))
    pos = 0
    for idx in resample_indices(n, n_resamples, seed):
        for j, s in enumerate(stats):
            out[j, pos : pos + len(idx)] = s.resampled(idx)
        pos += len(idx)
    return out


def _order_index(size: int, share: float) -> int:
    # the epsilon keeps e.g. 1000 * (1 - 0.9) / 2 = 49.999... at 50
    return min(max(int(math.floor(size * share + 1e-9)), 0), size - 1)


def percentile_interval(values: Any, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """``(v[k], v[R - 1 - k])`` of the sorted non-NaN values, ``k = floor(R (1 - c) / 2)``
    (sacrebleu's ``estimate_ci`` at 95%); ``(nan, nan)`` when every value is NaN.

    >>> percentile_interval(range(1000), 0.95)
    (25.0, 974.0)
    """
    c = _check_confidence(confidence, _NAME)
    v = np.asarray(values, dtype=np.float64).ravel()
    v = np.sort(v[~np.isnan(v)])
    if v.size == 0:
        return math.nan, math.nan
    k = min(_order_index(v.size, (1.0 - c) / 2.0), (v.size - 1) // 2)
    return float(v[k]), float(v[v.size - 1 - k])


def bca_levels(
    values: Any, score: float, jackknife: Any, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float, float, float]:
    """``(alpha_low, alpha_high, z0, a)``: the BCa interval's percentile levels (Efron 1987;
    Efron and Tibshirani 1993, ch. 14.3) from the resampled values, the full-sample
    ``score`` and the leave-one-out values ``jackknife``:

    * bias correction ``z0 = Phi^-1(share of resampled values below score)`` (ties count
      half; the share is kept within ``[1 / 2R, 1 - 1 / 2R]``);
    * acceleration ``a = sum d^3 / (6 (sum d^2)^(3/2))`` with ``d = mean(jackknife) - jackknife``
      (0 when the jackknife values are all equal);
    * ``alpha = Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1((1 -/+ c) / 2)``.

    With ``z0 = a = 0`` the levels are the percentile interval's ``(1 -/+ c) / 2``.
    """
    from scipy.special import ndtr, ndtri

    c = _check_confidence(confidence, _NAME)
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[~np.isnan(v)]
    r = v.size
    below = (np.count_nonzero(v < score) + 0.5 * np.count_nonzero(v == score)) / max(r, 1)
    z0 = float(ndtri(min(max(below, 0.5 / max(r, 1)), 1.0 - 0.5 / max(r, 1))))
    jack = np.asarray(jackknife, dtype=np.float64).ravel()
    jack = jack[np.isfinite(jack)]
    d = jack.mean() - jack if jack.size else jack
    ss = float(np.sum(d * d))
    a = float(np.sum(d**3)) / (6.0 * ss**1.5) if ss > 0.0 else 0.0
    levels = []
    for tail in ((1.0 - c) / 2.0, (1.0 + c) / 2.0):
        z = float(ndtri(tail))
        shrink = 1.0 - a * (z0 + z)
        # past the pole the formula leaves [0, 1]: the interval runs to that end
        levels.append(float(ndtr(z0 + (z0 + z) / shrink)) if shrink > 0 else float(tail > 0.5))
    return levels[0], levels[1], z0, a


def bca_interval(
    values: Any, score: float, jackknife: Any, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Bias-corrected and accelerated interval (:func:`bca_levels`): the order statistics
    ``v[floor(R alpha_low)]`` and ``v[R - 1 - floor(R (1 - alpha_high))]`` of the sorted
    non-NaN values (the rule of :func:`percentile_interval`, which it equals when ``z0 = a = 0``).

    >>> bca_interval(range(1000), 499.5, [0.0, 1.0], 0.95)
    (25.0, 974.0)
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = np.sort(v[~np.isnan(v)])
    if v.size == 0 or math.isnan(score):
        return math.nan, math.nan
    lo, hi, _, _ = bca_levels(v, score, jackknife, confidence)
    return float(v[_order_index(v.size, lo)]), float(v[v.size - 1 - _order_index(v.size, 1.0 - hi)])


def check_interval_method(value: Any, metric: str = _NAME) -> str | None:
    """``None`` (each statistic's default) or one of :data:`INTERVAL_METHODS`."""
    if value is None or (isinstance(value, str) and value in INTERVAL_METHODS):
        return value
    raise ValueError(
        f"{metric}: `interval_method` must be one of {', '.join(map(repr, INTERVAL_METHODS))} "
        f"(or None for the metric's default), got {value!r:.40}"
    )


def _interval(
    score: float,
    values: np.ndarray,
    confidence: float,
    n_resamples: int,
    seed: int | None,
    method: str = "percentile",
    jackknife: Callable[[], np.ndarray] | None = None,
) -> ConfidenceInterval:
    if method == "bca":
        if jackknife is None:
            raise TypeError(f"{_NAME}: the BCa interval needs the statistic's jackknife values")
        low, high = bca_interval(values, score, jackknife(), confidence)
    else:
        low, high = percentile_interval(values, confidence)
    defined = values[~np.isnan(values)]
    return ConfidenceInterval(
        score=score,
        low=low,
        high=high,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        mean=float(defined.mean()) if defined.size else math.nan,
        std=float(defined.std()) if defined.size else math.nan,
        undefined=int(values.size - defined.size),
        method=method,
    )


def bootstrap_cis(
    statistics: Mapping[str, Statistic],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    method: str | None = None,
) -> dict[str, ConfidenceInterval]:
    """Intervals of several statistics of the same items, from shared resamples:
    ``method="percentile"``, ``"bca"``, or ``None`` for each statistic's ``default_method``."""
    confidence, n_resamples, seed = check_interval_options(confidence, n_resamples, seed)
    method = check_interval_method(method)
    names = list(statistics)
    dist = bootstrap_distribution([statistics[k] for k in names], n_resamples=n_resamples, seed=seed)
    out = {}
    for j, k in enumerate(names):
        stat = statistics[k]
        chosen = method or stat.default_method
        out[k] = _interval(stat.value(), dist[j], confidence, n_resamples, seed, chosen, stat.jackknife)
    return out


def bootstrap_ci(
    statistic: Statistic | Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    method: str | None = None,
) -> ConfidenceInterval:
    """Bootstrap interval of a statistic (a bare sequence of per-item scores means their
    mean); ``method`` as :func:`bootstrap_cis`.

    >>> ci = bootstrap_ci([0.0, 1.0] * 500, n_resamples=2000, seed=1)
    >>> ci.score, round(ci.low, 3), round(ci.high, 3)
    (0.5, 0.471, 0.531)
    """
    stat = _as_statistic(statistic, "scores")
    return bootstrap_cis(
        {"s": stat}, confidence=confidence, n_resamples=n_resamples, seed=seed, method=method
    )["s"]


# --------------------------------------------------------------------------------------------
# Paired tests
# --------------------------------------------------------------------------------------------

#: relative slack of "at least as extreme": the same difference reached by another order of
#: additions must count (scipy.stats.permutation_test uses 1e-14; sums of scores need more)
_TIES = 1e-9


def _at_least(null: np.ndarray, observed: float) -> int:
    return int(np.count_nonzero(null >= observed - _TIES * max(abs(observed), 1e-300)))


def _monte_carlo_p(null: np.ndarray, observed: float) -> float:
    """``(b + 1) / (m + 1)``, ``b`` = trials at least as extreme as ``observed``; NaN trials
    dropped. Never below ``1 / (m + 1)``, and ``P(p <= alpha) <= alpha`` under the null."""
    if math.isnan(observed):
        return math.nan
    null = null[~np.isnan(null)]
    return (_at_least(null, observed) + 1) / (null.size + 1)


def _sacrebleu_p(null: np.ndarray, observed: float) -> float:
    """sacrebleu's ``_compute_p_value``: ``(#{null > observed} + 1) / (N + 1)``, NaN trials
    dropped; 1 when nothing was observed (sacrebleu would say ``1 / (N + 1)``)."""
    if math.isnan(observed):
        return math.nan
    if observed == 0.0:
        return 1.0
    null = null[~np.isnan(null)]
    return (int(np.count_nonzero(null > observed)) + 1) / (null.size + 1)


def small_sample_warning(
    n_nonzero: int, confidence: float, n_draws: int | None = None, *, test: str = "randomization"
) -> str | None:
    """Why no difference can reach significance at ``1 - confidence``, or ``None``.

    With ``k`` items whose outputs differ there are ``2^k`` sign patterns; the observed one
    and its mirror are always as extreme, so no two-sided p-value of the paired randomization
    test can fall below ``2 / 2^k``. The paired bootstrap has no such floor (on 3 differing
    items it can report 0.003), and that is the trouble: its p-value is then not to be
    trusted, which its warning says (``test="bootstrap"``) instead of a floor its own number
    contradicts. ``n_draws`` Monte Carlo trials cannot give a p-value below ``1 / (n_draws + 1)``.

    >>> small_sample_warning(3, 0.95)
    'only 3 items differ between the systems: no p-value can fall below 2/2^3 = 0.25, above alpha = 0.05 (confidence 0.95); no difference can be significant at this level'
    """
    alpha = 1.0 - confidence
    floor_exact = 2.0 / 2.0**n_nonzero if n_nonzero < 1024 else 0.0
    if floor_exact > alpha and test == "bootstrap":
        return (
            f"only {n_nonzero} item{'s' if n_nonzero != 1 else ''} differ{'' if n_nonzero != 1 else 's'} "
            f"between the systems: too few for the bootstrap's p-value to be trusted (an exact paired "
            f"randomization test cannot fall below 2/2^{n_nonzero} = {floor_exact:.4g}, above alpha = "
            f"{alpha:.4g}); no difference can be shown significant at confidence {confidence:g}"
        )
    if floor_exact > alpha:
        return (
            f"only {n_nonzero} item{'s' if n_nonzero != 1 else ''} differ{'' if n_nonzero != 1 else 's'} "
            f"between the systems: no p-value can fall below 2/2^{n_nonzero} = {floor_exact:.4g}, "
            f"above alpha = {alpha:.4g} (confidence {confidence:g}); no difference can be significant at this level"
        )
    if n_draws is not None and 1.0 / (n_draws + 1) > alpha:
        return (
            f"{n_draws} random draws cannot give a p-value below 1/{n_draws + 1} = {1.0 / (n_draws + 1):.4g}, "
            f"above alpha = {alpha:.4g}; use more"
        )
    return None


def _pair(baseline: Any, system: Any) -> tuple[Statistic, Statistic]:
    a = _as_statistic(baseline, "baseline")
    b = _as_statistic(system, "system")
    if a.size != b.size:
        raise ValueError(
            f"{_NAME}: the systems must be scored on the same items; got {a.size} baseline and {b.size} system items"
        )
    return a, b


def paired_bootstrap(
    baseline: Statistic | Sequence[float],
    system: Statistic | Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> PairedBootstrapResult:
    """Paired bootstrap resampling (Koehn 2004; sacrebleu ``paired_bs``): is ``system``
    different from ``baseline`` on these items? Bare sequences are per-item scores (mean).

    >>> r = paired_bootstrap([0.0, 1.0] * 50, [1.0, 1.0] * 50, n_resamples=200)
    >>> r.difference, r.p_value < 0.01, r.low > 0
    (0.5, True, True)
    """
    confidence, n_resamples, seed = check_interval_options(confidence, n_resamples, seed)
    a, b = _pair(baseline, system)
    dist = bootstrap_distribution([a, b], n_resamples=n_resamples, seed=seed)
    score_a, score_b = a.value(), b.value()
    diffs = dist[1] - dist[0]
    low, high = percentile_interval(diffs, confidence)
    defined = diffs[~np.isnan(diffs)]
    spread = np.abs(defined)
    null = spread - spread.mean() if spread.size else spread
    observed = score_b - score_a
    k = int(np.count_nonzero(a.differs(b)))
    return PairedBootstrapResult(
        baseline=_interval(score_a, dist[0], confidence, n_resamples, seed),
        system=_interval(score_b, dist[1], confidence, n_resamples, seed),
        difference=observed,
        low=low,
        high=high,
        p_value=_monte_carlo_p(np.abs(defined - observed), abs(observed)),
        p_value_sacrebleu=_sacrebleu_p(null, abs(observed)),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        n_nonzero=k,
        warning=small_sample_warning(k, confidence, n_resamples, test="bootstrap"),
    )


def _swap_nulls(a: Statistic, b: Statistic, masks: Iterator[np.ndarray], count: int) -> np.ndarray:
    null = np.empty(count)
    pos = 0
    for mask in masks:
        sa, sb = a.swapped(b, mask)
        null[pos : pos + len(mask)] = np.abs(sa - sb)
        pos += len(mask)
    return null


def sign_patterns(n: int, where: np.ndarray) -> Iterator[np.ndarray]:
    """Every swap mask over the items ``where`` (the others never swap): ``2^len(where)``
    rows of ``n`` bools, as ``(rows, n)`` chunks; row ``j`` swaps the items whose bit is set
    in ``j`` (row 0: the observed assignment)."""
    k = len(where)
    total = 1 << k
    rows = _rows_per_chunk(n)
    bits = np.int64(1) << np.arange(k, dtype=np.int64)
    for start in range(0, total, rows):
        codes = np.arange(start, min(total, start + rows), dtype=np.int64)
        mask = np.zeros((len(codes), n), dtype=bool)
        mask[:, where] = (codes[:, None] & bits[None, :]) != 0
        yield mask


def paired_randomization(
    baseline: Statistic | Sequence[float],
    system: Statistic | Sequence[float],
    *,
    n_trials: int = DEFAULT_TRIALS,
    seed: int | None = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedRandomizationResult:
    """Paired randomization test (Riezler and Maxwell 2005; sacrebleu ``paired_ar``): exact
    when the ``k`` items whose outputs differ allow it (``2^k <= n_trials``: every swap
    pattern enumerated), Monte Carlo ``(b + 1) / (T + 1)`` otherwise. ``confidence`` only
    decides the small-sample ``warning``.

    >>> r = paired_randomization([0.0, 1.0] * 50, [1.0, 1.0] * 50, n_trials=1000)
    >>> r.difference, r.exact, r.p_value
    (0.5, False, 0.000999000999000999)
    >>> r = paired_randomization([0.0, 0.0, 0.0, 0.0], [0.5, 0.3, 0.2, 0.0])
    >>> r.exact, r.n_nonzero, r.p_value
    (True, 3, 0.25)
    """
    n_trials = _check_count(n_trials, _NAME, "n_trials")
    seed = _check_seed(seed, _NAME)
    confidence = _check_confidence(confidence, _NAME)
    a, b = _pair(baseline, system)
    n = a.size
    score_a, score_b = a.value(), b.value()
    observed = abs(score_b - score_a)
    where = np.flatnonzero(a.differs(b))
    k = len(where)
    null = _swap_nulls(a, b, swap_masks(n, n_trials, seed), n_trials)
    exact = k < 63 and (1 << k) <= n_trials
    if exact:
        patterns = _swap_nulls(a, b, sign_patterns(n, where), 1 << k)
        p = math.nan if math.isnan(observed) else _at_least(patterns, observed) / patterns.size
    else:
        p = _monte_carlo_p(null, observed)
    return PairedRandomizationResult(
        baseline_score=score_a,
        system_score=score_b,
        difference=score_b - score_a,
        p_value=p,
        n_trials=n_trials,
        seed=seed,
        exact=exact,
        n_nonzero=k,
        p_value_sacrebleu=_sacrebleu_p(null, observed),
        warning=small_sample_warning(k, confidence, None if exact else n_trials),
    )
