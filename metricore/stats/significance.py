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
* **paired bootstrap** (sacrebleu ``_paired_bs_test``, the Moses script): both systems are
  evaluated on the *same* resamples; with ``d_b = |s_sys(b) - s_base(b)|``, the null
  distribution is ``d_b - mean(d)`` and ``p = (#{b: d_b - mean(d) > |observed|} + 1) / (R + 1)``.
  This is in effect Berg-Kirkpatrick et al.'s (2012) *one-sided* test in the direction of the
  observed difference (``P(|d*| > 2 |observed|)`` for large differences): read as a two-sided
  test its false-positive rate is about ``2 alpha`` (measured in
  ``tests/stats/test_significance.py``). ``p_value_two_sided`` is the two-sided test of the same
  resamples, ``(#{b: |(s_sys(b) - s_base(b)) - observed| >= |observed|} + 1) / (R + 1)``
  (the resampled differences shifted to the null), whose false-positive rate is ``alpha``.
  The interval of the difference is the percentile interval of the signed
  ``s_sys(b) - s_base(b)``; it excludes 0 about as often as ``p_value_two_sided < alpha``.
* **approximate randomization** (sacrebleu ``_paired_ar_test``): in each trial every item's
  two outputs are swapped between the systems with probability 1/2;
  ``p = (#{t: |s_A'(t) - s_B'(t)| > |observed|} + 1) / (T + 1)``.

One divergence, on purpose: when the observed difference is exactly 0 both tests return
``p = 1`` (sacrebleu's strict ``>`` gives ``1 / (R + 1)``, i.e. "significant", for two
identical systems; multeval issue #5).

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
    "ConfidenceInterval",
    "PairedBootstrapResult",
    "PairedRandomizationResult",
    "Statistic",
    "SumStatistic",
    "bootstrap_ci",
    "bootstrap_cis",
    "bootstrap_distribution",
    "check_interval_options",
    "mean_statistic",
    "paired_bootstrap",
    "paired_randomization",
    "percentile_interval",
    "ratio_statistic",
    "resample_indices",
    "resample_weights",
    "swap_masks",
]

DEFAULT_CONFIDENCE = 0.95
DEFAULT_RESAMPLES = 1000
DEFAULT_TRIALS = 10_000  # sacrebleu's default number of AR trials
DEFAULT_SEED = 0
#: indices per chunk (int64: 16 MiB); part of the definition of the index stream
CHUNK_ELEMENTS = 1 << 21

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
    confidence: Any, n_resamples: Any, seed: Any, metric: str = _NAME
) -> tuple[float, int, int | None]:
    """``confidence`` in (0, 1), ``n_resamples`` an int >= 1, ``seed`` an int >= 0 or ``None``
    (fresh OS entropy: not reproducible); ``TypeError``/``ValueError`` naming ``metric``."""
    return (
        _check_confidence(confidence, metric),
        _check_count(n_resamples, metric, "n_resamples"),
        _check_seed(seed, metric),
    )


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
    """A headline number as a function of a multiset of items (by index ``0..size-1``)."""

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

    def __post_init__(self) -> None:
        cols = self.columns
        if isinstance(cols, np.ndarray) and cols.ndim == 2:
            cols = list(cols)
        if isinstance(cols, (str, bytes)) or not isinstance(cols, (Sequence, np.ndarray)) or len(cols) == 0:
            raise TypeError(f"{self.name}: `columns` must be a non-empty sequence of per-item columns")
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

    def _score(self, sums: np.ndarray) -> np.ndarray:
        return np.asarray(self.score(sums, self.size), dtype=np.float64).reshape(len(sums))

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
    numerators: Any, denominators: Any, *, scale: float = 1.0, empty: float = math.nan, name: str = "ratio"
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
    return SumStatistic((num, den), _ratio_score(float(scale), float(empty)), name)


def _as_statistic(value: Any, name: str) -> Statistic:
    if isinstance(value, Statistic):
        return value
    return mean_statistic(value, name=name)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfidenceInterval:
    """A percentile bootstrap interval around ``score`` (the statistic over all items).

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
        }


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap of ``system`` against ``baseline`` on the same resamples.

    ``difference = system.score - baseline.score``; ``low``/``high`` bound it (percentile
    interval of the resampled differences); ``p_value`` as sacrebleu's ``paired_bs`` (one-sided
    in the direction of the observed difference), ``p_value_two_sided`` the two-sided test
    (see the module docstring).
    """

    baseline: ConfidenceInterval
    system: ConfidenceInterval
    difference: float
    low: float
    high: float
    p_value: float
    p_value_two_sided: float
    confidence: float
    n_resamples: int
    seed: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": "paired_bootstrap",
            "baseline": self.baseline.as_dict(),
            "system": self.system.as_dict(),
            "difference": self.difference,
            "difference_low": self.low,
            "difference_high": self.high,
            "p_value": self.p_value,
            "p_value_two_sided": self.p_value_two_sided,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class PairedRandomizationResult:
    """Approximate randomization of ``system`` against ``baseline`` (sacrebleu's ``paired_ar``)."""

    baseline_score: float
    system_score: float
    difference: float
    p_value: float
    n_trials: int
    seed: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": "approximate_randomization",
            "baseline": self.baseline_score,
            "system": self.system_score,
            "difference": self.difference,
            "p_value": self.p_value,
            "n_trials": self.n_trials,
            "seed": self.seed,
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
    # the epsilon keeps e.g. 1000 * (1 - 0.9) / 2 = 49.999... at 50
    k = min(int(math.floor(v.size * (1.0 - c) / 2.0 + 1e-9)), (v.size - 1) // 2)
    return float(v[k]), float(v[v.size - 1 - k])


def _interval(
    score: float, values: np.ndarray, confidence: float, n_resamples: int, seed: int | None
) -> ConfidenceInterval:
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
    )


def bootstrap_cis(
    statistics: Mapping[str, Statistic],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, ConfidenceInterval]:
    """Percentile intervals of several statistics of the same items, from shared resamples."""
    confidence, n_resamples, seed = check_interval_options(confidence, n_resamples, seed)
    names = list(statistics)
    dist = bootstrap_distribution([statistics[k] for k in names], n_resamples=n_resamples, seed=seed)
    return {
        k: _interval(statistics[k].value(), dist[j], confidence, n_resamples, seed)
        for j, k in enumerate(names)
    }


def bootstrap_ci(
    statistic: Statistic | Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> ConfidenceInterval:
    """Percentile bootstrap interval of a statistic (a bare sequence of per-item scores
    means their mean).

    >>> ci = bootstrap_ci([0.0, 1.0] * 500, n_resamples=2000, seed=1)
    >>> ci.score, round(ci.low, 3), round(ci.high, 3)
    (0.5, 0.471, 0.531)
    """
    stat = _as_statistic(statistic, "scores")
    return bootstrap_cis({"s": stat}, confidence=confidence, n_resamples=n_resamples, seed=seed)["s"]


# --------------------------------------------------------------------------------------------
# Paired tests
# --------------------------------------------------------------------------------------------


def _p_value(null: np.ndarray, observed: float) -> float:
    """sacrebleu's ``_compute_p_value``: ``(#{null > observed} + 1) / (N + 1)``, NaN trials
    dropped; 1 when nothing was observed (see the module docstring)."""
    if math.isnan(observed):
        return math.nan
    if observed == 0.0:
        return 1.0
    null = null[~np.isnan(null)]
    return (int(np.count_nonzero(null > observed)) + 1) / (null.size + 1)


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
    """Paired bootstrap resampling (sacrebleu ``paired_bs``; Koehn 2004): is ``system``
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
    if math.isnan(observed):
        two_sided = math.nan
    else:
        extreme = np.count_nonzero(np.abs(defined - observed) >= abs(observed))
        two_sided = (int(extreme) + 1) / (defined.size + 1) if observed != 0.0 else 1.0
    return PairedBootstrapResult(
        baseline=_interval(score_a, dist[0], confidence, n_resamples, seed),
        system=_interval(score_b, dist[1], confidence, n_resamples, seed),
        difference=observed,
        low=low,
        high=high,
        p_value=_p_value(null, abs(observed)),
        p_value_two_sided=two_sided,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )


def paired_randomization(
    baseline: Statistic | Sequence[float],
    system: Statistic | Sequence[float],
    *,
    n_trials: int = DEFAULT_TRIALS,
    seed: int | None = DEFAULT_SEED,
) -> PairedRandomizationResult:
    """Paired approximate randomization (sacrebleu ``paired_ar``; Riezler and Maxwell 2005).

    >>> r = paired_randomization([0.0, 1.0] * 50, [1.0, 1.0] * 50, n_trials=1000)
    >>> r.difference, r.p_value
    (0.5, 0.000999000999000999)
    """
    n_trials = _check_count(n_trials, _NAME, "n_trials")
    seed = _check_seed(seed, _NAME)
    a, b = _pair(baseline, system)
    n = a.size
    score_a, score_b = a.value(), b.value()
    null = np.empty(n_trials)
    pos = 0
    for mask in swap_masks(n, n_trials, seed):
        sa, sb = a.swapped(b, mask)
        null[pos : pos + len(mask)] = np.abs(sa - sb)
        pos += len(mask)
    return PairedRandomizationResult(
        baseline_score=score_a,
        system_score=score_b,
        difference=score_b - score_a,
        p_value=_p_value(null, abs(score_b - score_a)),
        n_trials=n_trials,
        seed=seed,
    )
