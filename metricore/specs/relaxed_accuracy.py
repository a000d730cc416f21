"""Relaxed accuracy (ChartQA, PlotQA; pix2struct's ``relaxed_correctness``):
:mod:`metricore.metrics.relaxed_accuracy`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.spec import Config, Example, MetricSpec, Option, TaskUse
from metricore.core.stream import Stream
from metricore.metrics.relaxed_accuracy import (
    DEFAULT_MAX_RELATIVE_CHANGE,
    RELAXED_VARIANTS,
    RelaxedAccuracyResult,
    RelaxedItems,
    explain_relaxed_accuracy,
    relaxed_items,
    relaxed_result,
)
from metricore.specs._cost import size
from metricore.stats.significance import Statistic, mean_statistic

_OPTIONS = (
    Option(
        "max_relative_change",
        "number",
        DEFAULT_MAX_RELATIVE_CHANGE,
        "tolerance for numbers: |prediction - gold| / |gold| at most this (0.05 = 5%)",
        low=0.0,
        high=math.inf,
        label="max relative change",
        step=0.01,
        ui_low=0.0,
        ui_high=0.25,
    ),
    Option(
        "swapped",
        "bool",
        False,
        "relaxed_correctness(prediction, gold) as Qwen-VL/InternVL call it: the tolerance is relative to the "
        "prediction, and a prediction of 0 is compared as text",
        label="arguments swapped (Qwen-VL)",
    ),
    Option("strip", "bool", False, "strip the prediction's surrounding whitespace first (Qwen-VL)"),
    Option("lowercase", "bool", True, "compare non-numbers case-insensitively (pix2struct lower-cases both)"),
    Option(
        "number_commas",
        "bool",
        False,
        "read numbers with thousands separators ('1,234.5'): commas are deleted before float()",
        label="commas in numbers",
    ),
)


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> RelaxedItems:
    return relaxed_items(predictions, references, variant=config, **options)


def _finish(
    config: str, items: RelaxedItems, options: Mapping[str, Any], columns: bool
) -> RelaxedAccuracyResult:
    return relaxed_result(items, columns=columns)


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> RelaxedAccuracyResult:
    return relaxed_result(_items(config, predictions, references, options))


def _statistics(r: RelaxedAccuracyResult) -> dict[str, Statistic]:
    return {"relaxed_accuracy": mean_statistic(r.scores, name="relaxed_accuracy")}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: RelaxedAccuracyResult,
) -> list[str]:
    return explain_relaxed_accuracy(predictions, r)


#: per question and per gold, in work units (~1 µs): a float() and a lower() per distinct string
_PER_QUESTION, _PER_GOLD, _PER_CHAR = 3.0, 1.0, 0.02


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    total = 0.0
    for p, r in zip(predictions, references):
        chars, leaves, _ = size(r)
        total += _PER_QUESTION + _PER_CHAR * (size(p)[0] + chars) + _PER_GOLD * leaves
    return total


SPEC = MetricSpec(
    name="relaxed_accuracy",
    label="Relaxed accuracy",
    title="Relaxed accuracy: numbers within 5%, text exactly (ChartQA, PlotQA)",
    summary="Chart QA answer scoring as pix2struct's relaxed_correctness: a number within max_relative_change "
    "(5%) of the gold counts (a trailing % reads as a fraction, a gold of 0 is compared as text), anything "
    "else must match the gold case-insensitively; the best of several golds counts; the mean over questions.",
    configs=tuple(Config(name, v.reference, _OPTIONS) for name, v in RELAXED_VARIANTS.items()),
    task=TaskUse(tuple(RELAXED_VARIANTS), ("relaxed_accuracy",)),
    stream=Stream(_items, _finish),
    compute=_compute,
    result_types=(RelaxedAccuracyResult,),
    closest_label="best gold",
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example(
            "ChartQA-like answers",
            ["12.5%", "10.4", "10.6", "0.0", "Yes", "1,000"],
            ["0.125", "10", "10", "0", ["no", "yes"], "1000"],
        ),
        Example(
            "Copies: swapped arguments, commas in numbers",
            ["0", "104", "1,000", " Yes "],
            ["0.01", "100", "1000", "yes"],
            options={"swapped": True, "strip": True, "number_commas": True},
        ),
    ),
)
