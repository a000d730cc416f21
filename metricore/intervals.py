"""Confidence intervals of any core result, from the statistics its metric's spec declares.

:func:`headline_statistics` maps a core result to ``{result key: Statistic}`` through
:attr:`MetricSpec.statistics <metricore.core.spec.MetricSpec.statistics>` (per-item
statistics the result already holds, so bootstrap intervals and paired tests never re-run a
metric):

==========================  ================================================================
``anls``, ``meteor``,       mean of the per-item scores
``one_minus_ned``
``cer``                     sum of distances / sum of gold lengths (0 when both are 0,
                            ``inf`` when only the lengths are), as the core computes it
``cider``                   corpus CIDEr(-D), document frequencies recomputed per resample
                            (:mod:`metricore.metrics.cider_bootstrap`)
token F1 ``exact_match``,   means (x100 when ``percent``); ``squad_v2``: ``exact``, ``f1`` and
``f1``, ``precision``,      ``HasAns_*``/``NoAns_*`` as subgroup means (NaN when the group
``recall``                  is absent). ``best_*`` (thresholds tuned on the data) get none.
``coco_caption``            ``Bleu_k`` and ``METEOR`` (1.5): the corpus formula on the summed
                            per-image counts; ``ROUGE_L``: mean; ``CIDEr``: as ``cider``
question-level ``micro_*``  P/R/F1 of the summed TP, FP, FN
QuAC ``f1``, ``heq_q``,     means over counted questions (0 when none); ``heq_d``: share of
``human_f1``, ``heq_d``     the resample's dialogs whose counted questions all pass
==========================  ================================================================

Each statistic's value over all items equals the result's number; its value over a resample
equals the metric re-run on the resampled items (``tests/stats/test_significance_naive.py``). A
result whose numbers are not statistics of one item set (the challenge score combines tasks
scored on separate item sets) has :attr:`MetricSpec.intervals` instead.
"""

from __future__ import annotations

from typing import Any

from metricore.registry import spec_for
from metricore.stats.significance import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ConfidenceInterval,
    Statistic,
    bootstrap_cis,
    check_interval_method,
)

__all__ = ["confidence_intervals", "headline_statistics", "interval_fields"]


def headline_statistics(result: Any) -> dict[str, Statistic]:
    """``{key: Statistic}`` for each headline number of a core result (see the module docstring)."""
    spec = spec_for(result)
    if spec.statistics is None:
        raise TypeError(f"significance: no per-item statistics for {type(result).__name__} results")
    return dict(spec.statistics(result))


def confidence_intervals(
    result: Any,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    method: str | None = None,
) -> dict[str, ConfidenceInterval]:
    """Bootstrap interval of every headline number of ``result`` (shared resamples):
    ``method="percentile"``, ``"bca"``, or ``None`` for each statistic's default (the method
    whose coverage was measured, ``docs/statistics.md``). Results with their own
    :attr:`MetricSpec.intervals <metricore.core.spec.MetricSpec.intervals>` (the challenge
    score) offer the percentile interval only.

    >>> from metricore import compute_anls
    >>> r = compute_anls(["a", "b", "c", "d"], ["a", "b", "c", "x"])
    >>> ci = confidence_intervals(r, n_resamples=200)["anls"]
    >>> ci.score, ci.low, ci.high
    (0.75, 0.25, 1.0)
    """
    spec = spec_for(result)
    method = check_interval_method(method, spec.name)
    if spec.intervals is not None:
        if method not in (None, "percentile"):
            raise ValueError(f"{spec.name}: `interval_method` {method!r} is not available; use 'percentile'")
        return dict(spec.intervals(result, confidence, n_resamples, seed))
    return bootstrap_cis(
        headline_statistics(result),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        method=method,
    )


def interval_fields(
    result: Any,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    method: str | None = None,
) -> dict[str, Any]:
    """Flat ``{<key>_ci_low, <key>_ci_high}`` per headline number, plus ``confidence``,
    ``n_resamples`` and ``seed`` (what the ``evaluate`` modules add to their results), and
    ``interval_method`` when a method was asked for or a key's default is not the percentile
    interval (``{key: method}`` when they differ)."""
    out: dict[str, Any] = {}
    methods = {}
    for key, ci in confidence_intervals(
        result, confidence=confidence, n_resamples=n_resamples, seed=seed, method=method
    ).items():
        out[f"{key}_ci_low"] = ci.low
        out[f"{key}_ci_high"] = ci.high
        methods[key] = ci.method
    out.update(confidence=confidence, n_resamples=n_resamples, seed=seed)
    used = set(methods.values())
    if method is not None or used - {"percentile"}:
        out["interval_method"] = used.pop() if len(used) == 1 else methods
    return out
