"""The headline numbers of each metric result as resampling statistics of its items.

:func:`headline_statistics` maps a core result (``ANLSResult``, ``NEDResult``,
``METEORResult``, ``CIDErResult``, ``TokenF1Result``, ``QuestionLevelResult``, ``QuACResult``)
to ``{result key: Statistic}`` built from the per-item statistics the result already holds,
so bootstrap intervals and paired tests never re-run a metric:

==========================  ================================================================
``anls``, ``meteor``,       mean of the per-item scores
``one_minus_ned``
``cer``                     sum of distances / sum of gold lengths (0 when both are 0,
                            ``inf`` when only the lengths are), as the core computes it
``cider``                   corpus CIDEr(-D), document frequencies recomputed per resample
                            (:mod:`metricore.metrics.cider_bootstrap`); the mean with a fixed table
token F1 ``exact_match``,   means (x100 when ``percent``); ``squad_v2``: ``exact``, ``f1`` and
``f1``, ``precision``,      ``HasAns_*``/``NoAns_*`` as subgroup means (NaN when the group
``recall``                  is absent). ``best_*`` (thresholds tuned on the data) get none.
question-level ``micro_*``  P/R/F1 of the summed TP, FP, FN
QuAC ``f1``, ``heq_q``,     means over counted questions (0 when none);
``human_f1``, ``heq_d``     ``heq_d``: share of the resample's dialogs whose counted
                            questions all pass (:class:`DialogPassStatistic`)
==========================  ================================================================

Each statistic's value over all items equals the result's number; its value over a resample
equals the metric re-run on the resampled items (``tests/test_significance_naive.py``).
Other result types join with :func:`register_headlines`, or, when their numbers are not one
statistic of one item set (a challenge score combines tasks scored on separate item sets,
:mod:`metricore.challenge.intervals`), with :func:`register_intervals`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from metricore.metrics.anls import ANLSResult
from metricore.metrics.cider import CIDErResult
from metricore.metrics.meteor import METEORResult
from metricore.metrics.ned import NEDResult
from metricore.metrics.quac import QuACResult
from metricore.metrics.token_f1 import QuestionLevelResult, TokenF1Result
from metricore.stats.significance import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ConfidenceInterval,
    Statistic,
    SumStatistic,
    bootstrap_cis,
    mean_statistic,
    ratio_statistic,
    resample_weights,
)

__all__ = [
    "DialogPassStatistic",
    "confidence_intervals",
    "headline_statistics",
    "interval_fields",
    "register_headlines",
    "register_intervals",
]

Builder = Callable[[Any], dict[str, Statistic]]
Provider = Callable[[Any, float, int, "int | None"], dict[str, ConfidenceInterval]]
_BUILDERS: dict[type, Builder] = {}
_PROVIDERS: dict[type, Provider] = {}


def register_headlines(result_type: type, builder: Builder) -> None:
    """Teach :func:`headline_statistics` a result type: ``builder(result)`` returns
    ``{result key: Statistic}`` for its headline numbers."""
    _BUILDERS[result_type] = builder


def register_intervals(result_type: type, provider: Provider) -> None:
    """Teach :func:`confidence_intervals` a result type whose intervals are computed by
    ``provider(result, confidence, n_resamples, seed)`` rather than from statistics."""
    _PROVIDERS[result_type] = provider


def _lookup(registry: dict[type, Any], result: Any) -> Any:
    for kind in type(result).__mro__:
        if kind in registry:
            return registry[kind]
    return None


def _challenge_provider(result: Any) -> Provider | None:
    """The challenge score registers itself on first use (its package is optional here)."""
    if not type(result).__module__.startswith("metricore.challenge"):
        return None
    from metricore.challenge import intervals as challenge_intervals

    register_intervals(challenge_intervals.ChallengeResult, challenge_intervals._provider)
    return _lookup(_PROVIDERS, result)


def headline_statistics(result: Any) -> dict[str, Statistic]:
    """``{key: Statistic}`` for each headline number of a core result (see the module docstring)."""
    builder = _lookup(_BUILDERS, result)
    if builder is not None:
        return builder(result)
    raise TypeError(f"significance: no confidence intervals for {type(result).__name__} results")


def confidence_intervals(
    result: Any,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, ConfidenceInterval]:
    """Percentile bootstrap interval of every headline number of ``result`` (shared resamples).

    >>> from metricore import compute_anls
    >>> r = compute_anls(["a", "b", "c", "d"], ["a", "b", "c", "x"])
    >>> ci = confidence_intervals(r, n_resamples=200)["anls"]
    >>> ci.score, ci.low, ci.high
    (0.75, 0.25, 1.0)
    """
    provider = _lookup(_PROVIDERS, result) or _challenge_provider(result)
    if provider is not None:
        return provider(result, confidence, n_resamples, seed)
    return bootstrap_cis(
        headline_statistics(result), confidence=confidence, n_resamples=n_resamples, seed=seed
    )


def interval_fields(
    result: Any,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, Any]:
    """Flat ``{<key>_ci_low, <key>_ci_high}`` per headline number, plus ``confidence``,
    ``n_resamples`` and ``seed`` (what the ``evaluate`` modules add to their results)."""
    out: dict[str, Any] = {}
    for key, ci in confidence_intervals(
        result, confidence=confidence, n_resamples=n_resamples, seed=seed
    ).items():
        out[f"{key}_ci_low"] = ci.low
        out[f"{key}_ci_high"] = ci.high
    out.update(confidence=confidence, n_resamples=n_resamples, seed=seed)
    return out


# --------------------------------------------------------------------------------------------
# Statistics that are not sums
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DialogPassStatistic(Statistic):
    """QuAC HEQ-D: ``scale`` x the share of dialogs present in the multiset whose counted
    questions all pass (a dialog without counted questions passes).

    ``dialogs``: dialog id per question; ``fails``: counted and below human F1.
    """

    dialogs: Any
    fails: Any
    scale: float = 1.0
    _groups: sparse.csr_matrix = field(init=False, repr=False)
    _fail_groups: sparse.csr_matrix = field(init=False, repr=False)

    def __post_init__(self) -> None:
        codes = {d: i for i, d in enumerate(dict.fromkeys(self.dialogs))}
        rows = np.fromiter((codes[d] for d in self.dialogs), np.int64, len(self.dialogs))
        fails = np.asarray(self.fails, dtype=bool)
        if fails.shape != rows.shape or rows.size == 0:
            raise ValueError(
                "significance: DialogPassStatistic needs one dialog id and one fail flag per question"
            )
        cols = np.arange(rows.size)
        shape = (len(codes), rows.size)
        object.__setattr__(self, "fails", fails)
        object.__setattr__(
            self, "_groups", sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=shape)
        )
        object.__setattr__(
            self, "_fail_groups", sparse.csr_matrix((fails.astype(np.float64), (rows, cols)), shape=shape)
        )

    @property
    def size(self) -> int:
        return int(self.fails.size)

    def value(self) -> float:
        failed = (self._fail_groups @ np.ones(self.size)) > 0
        return self.scale * float(np.count_nonzero(~failed)) / failed.size

    def resampled(self, indices: np.ndarray) -> np.ndarray:
        wt = resample_weights(indices, self.size).T
        present = (self._groups @ wt) > 0
        failed = (self._fail_groups @ wt) > 0
        return self.scale * np.count_nonzero(present & ~failed, axis=0) / np.count_nonzero(present, axis=0)

    def swapped(self, other: Statistic, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(other, DialogPassStatistic) or other.size != self.size:
            raise TypeError("significance: both systems need a HEQ-D statistic over the same questions")
        n_dialogs = self._groups.shape[0]
        out = []
        for mine, theirs in ((self.fails, other.fails), (other.fails, self.fails)):
            mixed = np.where(swap, theirs, mine).T.astype(np.float64)
            failed = (self._groups @ mixed) > 0
            out.append(self.scale * (n_dialogs - np.count_nonzero(failed, axis=0)) / n_dialogs)
        return out[0], out[1]


def _cer_score(sums: np.ndarray, n: int) -> np.ndarray:
    dist, length = sums[:, 0], sums[:, 1]
    out = np.where(dist == 0, 0.0, math.inf)
    np.divide(dist, length, out=out, where=length != 0)
    return out


def _micro(which: int) -> Callable[[np.ndarray, int], np.ndarray]:
    """``metricore.metrics.token_f1._entity_prf`` on summed (TP, FP, FN): nothing predicted and
    nothing to find = 1, one side empty = 0."""

    def score(sums: np.ndarray, n: int) -> np.ndarray:
        tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
        npred, ngold = tp + fp, tp + fn
        both_empty = ((npred == 0) & (ngold == 0)).astype(np.float64)
        p = np.divide(tp, npred, out=both_empty.copy(), where=npred > 0)
        r = np.divide(tp, ngold, out=both_empty.copy(), where=ngold > 0)
        f1 = np.divide(2.0 * p * r, p + r, out=np.zeros(len(tp)), where=(p + r) > 0)
        return (p, r, f1)[which]

    return score


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------


def _anls(r: ANLSResult) -> dict[str, Statistic]:
    return {"anls": mean_statistic(r.scores, name="anls")}


def _meteor(r: METEORResult) -> dict[str, Statistic]:
    return {"meteor": mean_statistic(r.scores, name="meteor")}


def _ned(r: NEDResult) -> dict[str, Statistic]:
    return {
        "one_minus_ned": mean_statistic(r.scores, name="one_minus_ned"),
        "cer": SumStatistic((r.distances, r.reference_lengths), _cer_score, "cer"),
    }


def _cider(r: CIDErResult) -> dict[str, Statistic]:
    from metricore.metrics.cider_bootstrap import cider_statistic

    return {"cider": cider_statistic(r)}


def _token_f1(r: TokenF1Result) -> dict[str, Statistic]:
    scale = 100.0 if r.percent else 1.0
    cols = {
        "exact_match": r.exact_match_scores,
        "f1": r.f1_scores,
        "precision": r.precision_scores,
        "recall": r.recall_scores,
    }
    out: dict[str, Statistic] = {
        k: mean_statistic(v, scale=scale, name=f"token_f1 {k}") for k, v in cols.items()
    }
    if r.squad_v2 is None:
        return out
    out["exact"] = out.pop("exact_match")
    has = np.asarray(r.has_answer, dtype=np.float64)
    for prefix, member in (("HasAns", has), ("NoAns", 1.0 - has)):
        for key, scores in (("exact", r.exact_match_scores), ("f1", r.f1_scores)):
            out[f"{prefix}_{key}"] = ratio_statistic(
                np.asarray(scores) * member, member, scale=scale, name=f"token_f1 {prefix}_{key}"
            )
    return out


def _question_level(r: QuestionLevelResult) -> dict[str, Statistic]:
    scale = 100.0 if r.percent else 1.0
    out: dict[str, Statistic] = {
        "precision": mean_statistic(r.precision_scores, scale=scale),
        "recall": mean_statistic(r.recall_scores, scale=scale),
        "f1": mean_statistic(r.f1_scores, scale=scale),
        "exact_match": mean_statistic(r.exact_match_scores, scale=scale),
    }
    counts = (r.true_positives, r.false_positives, r.false_negatives)
    for which, key in enumerate(("micro_precision", "micro_recall", "micro_f1")):
        inner = _micro(which)
        out[key] = SumStatistic(counts, lambda s, n, f=inner: scale * f(s, n), f"token_f1 {key}")
    return out


def _quac(r: QuACResult) -> dict[str, Statistic]:
    if r.dialog_ids is None:
        raise ValueError("token_f1: this QuACResult has no dialog ids (build it with compute_quac)")
    scale = 100.0 if r.percent else 1.0
    counted = np.asarray(r.counted, dtype=np.float64)
    heq = np.asarray(r.heq_scores)
    return {
        "f1": ratio_statistic(np.asarray(r.f1_scores) * counted, counted, scale=scale, empty=0.0),
        "heq_q": ratio_statistic(heq, counted, scale=scale, empty=0.0),
        "heq_d": DialogPassStatistic(r.dialog_ids, (counted > 0) & (heq == 0), scale),
        "human_f1": ratio_statistic(np.asarray(r.human_f1_scores) * counted, counted, scale=scale, empty=0.0),
    }


for _type, _builder in (
    (ANLSResult, _anls),
    (METEORResult, _meteor),
    (NEDResult, _ned),
    (CIDErResult, _cider),
    (TokenF1Result, _token_f1),
    (QuestionLevelResult, _question_level),
    (QuACResult, _quac),
):
    register_headlines(_type, _builder)
