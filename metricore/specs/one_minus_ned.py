"""1-NED (ICDAR 2019 scene-text recognition) and CER: :mod:`metricore.metrics.ned`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metricore.core.spec import Config, Example, MetricSpec, Option, TaskUse
from metricore.core.stream import Stream
from metricore.metrics.ned import (
    EMPTY_PAIR_POLICIES,
    NED_VARIANTS,
    NEDItems,
    NEDResult,
    NEDVariant,
    compute_one_minus_ned,
    explain_ned,
    ned_items,
    ned_result,
)
from metricore.specs._cost import estimate, text_features
from metricore.stats.significance import Statistic, SumStatistic, mean_statistic

_EMPTY_PAIR = Option(
    "empty_pair",
    "choice",
    "zero",
    "score of an item whose prediction and gold are both empty: zero (ICDAR 2019, default) or one "
    "(empty vs empty is a match)",
    choices=EMPTY_PAIR_POLICIES,
    label="both empty scores",
)
_LOWERCASE = Option("lowercase", "bool", False, "compare case-insensitively")
_NFKC = Option("nfkc", "bool", False, "Unicode NFKC first (full-width = half-width, ReCTS)", label="NFKC")


def _options(variant: NEDVariant) -> tuple[Option, ...]:
    # a variant that lowercases itself has no lowercase option
    return (_EMPTY_PAIR, _NFKC) if "lower" in variant.steps else (_EMPTY_PAIR, _LOWERCASE, _NFKC)


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> NEDResult:
    return compute_one_minus_ned(predictions, references, variant=config, **options)


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> NEDItems:
    return ned_items(predictions, references, variant=config, **options)


def _finish(config: str, items: NEDItems, options: Mapping[str, Any], columns: bool) -> NEDResult:
    return ned_result(items, columns=columns)


def _cer_score(sums: np.ndarray, n: int) -> np.ndarray:
    """CER of summed (distance, gold length): 0 when both are 0, ``inf`` when only the lengths are."""
    dist, length = sums[:, 0], sums[:, 1]
    out = np.where(dist == 0, 0.0, math.inf)
    np.divide(dist, length, out=out, where=length != 0)
    return out


def _statistics(r: NEDResult) -> dict[str, Statistic]:
    out: dict[str, Statistic] = {
        "one_minus_ned": mean_statistic(r.scores, name="one_minus_ned"),
        "cer": SumStatistic((r.distances, r.reference_lengths), _cer_score, "cer"),
    }
    if r.correct is not None:
        out["accuracy"] = mean_statistic(r.correct, scale=100.0, name="accuracy")
    return out


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: NEDResult,
) -> list[str]:
    return explain_ned(predictions, r, **options)


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    return estimate(f"one_minus_ned/{config}", text_features(predictions, references))


SPEC = MetricSpec(
    name="one_minus_ned",
    label="1-NED",
    title="1-NED: one minus normalized edit distance",
    summary="Scene-text recognition score of ICDAR 2019 ReCTS/ArT as coded in clovaai "
    "deep-text-recognition-benchmark: per item 1 - LD(pred, gold) / max(|pred|, |gold|), 0 when either "
    "string is empty, averaged; corpus CER alongside. Several gold strings per item: the best counts.",
    configs=tuple(Config(name, v.reference, _options(v)) for name, v in NED_VARIANTS.items()),
    compute=_compute,
    stream=Stream(_items, _finish),
    result_types=(NEDResult,),
    closest_label="best gold",
    task=TaskUse(tuple(NED_VARIANTS), ("one_minus_ned",)),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example(
            "kitten / sitting and friends", ["sitting", "abd", "ba", "хор"], ["kitten", "abc", "ab", "хор"]
        ),
        Example("Cyrillic case (try lowercase)", ["Хор", "Москва"], ["хор", "москва"]),
        Example("Empty strings (try empty_pair=one)", ["", "abc", ""], ["", "", "abc"]),
        Example(
            "Full-width digits (NFKC)", ["２０１９年", "ＡＢＣ"], ["2019年", "ABC"], options={"nfkc": True}
        ),
    ),
)
