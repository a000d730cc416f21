"""ANLS (docvqa, stvqa_paper, anls_star, dude): :mod:`metricore.metrics.anls`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.spec import Config, Example, MetricSpec, Option, TaskUse
from metricore.core.stream import Stream
from metricore.metrics.anls import (
    ANLS_VARIANTS,
    DEFAULT_THRESHOLD,
    ANLSItems,
    ANLSResult,
    anls_items,
    anls_result,
    compute_anls,
    explain_anls,
)
from metricore.specs._cost import estimate, structure_features, text_features
from metricore.stats.significance import Statistic, mean_statistic

_THRESHOLD = Option(
    "threshold",
    "number",
    DEFAULT_THRESHOLD,
    "similarity threshold τ: scores below it count 0",
    low=0.0,
    high=1.0,
    label="threshold τ",
    step=0.05,
)
_STRUCTURED = frozenset({"anls_star", "dude"})


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> ANLSResult:
    return compute_anls(predictions, references, variant=config, **options)


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> ANLSItems:
    return anls_items(predictions, references, variant=config, **options)


def _finish(config: str, items: ANLSItems, options: Mapping[str, Any], columns: bool) -> ANLSResult:
    return anls_result(items, columns=columns)


def _statistics(r: ANLSResult) -> dict[str, Statistic]:
    return {"anls": mean_statistic(r.scores, name="anls")}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: ANLSResult,
) -> list[str]:
    return explain_anls(predictions, r)


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    features = (structure_features if config in _STRUCTURED else text_features)(predictions, references)
    return estimate(f"anls/{config}", features)


SPEC = MetricSpec(
    name="anls",
    label="ANLS",
    title="ANLS: Average Normalized Levenshtein Similarity",
    summary="Document-VQA answer scoring: per question, the normalized Levenshtein similarity to the "
    "closest gold answer, zeroed under the threshold τ, averaged over questions.",
    configs=tuple(
        Config(
            name,
            variant.reference,
            (_THRESHOLD,),
            (("structured", "structured"),) if name in _STRUCTURED else (("text", "alternatives"),),
        )
        for name, variant in ANLS_VARIANTS.items()
    ),
    compute=_compute,
    stream=Stream(_items, _finish),
    result_types=(ANLSResult,),
    closest_label="best gold",
    task=TaskUse(tuple(ANLS_VARIANTS), ("anls",)),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example(
            "Gold alternatives (Coca Cola)",
            ["The Coca", "CocaCola", "Coca cola", "Cola", "Cat"],
            [["Coca Cola", "Coca Cola Company"]] * 5,
        ),
        Example(
            "DocVQA-like questions",
            ["  Thomas  Moore ", "$ 1,000", "Hello Wrld", "ITC LIMITED", "1998"],
            [
                ["Thomas More"],
                ["$1,000", "1,000 dollars"],
                ["Hello World"],
                ["itc limited"],
                ["5 March 1998"],
            ],
        ),
        Example("Threshold edge: stvqa_paper", ["ac", "ac   "], [["ab"], ["ab"]], config="stvqa_paper"),
        Example(
            "ANLS* structured (dicts, lists, tuples)",
            [{"a": "b", "c": "e"}, {"a": ["b", "c"]}, "CocaCola", None],
            [{"a": "b", "c": "d"}, {"a": ["a", "b", "c"]}, ("Coca Cola", "Coca Cola Company"), None],
            config="anls_star",
        ),
        Example(
            "DUDE lists and not-answerable",
            [["one", "to", "three"], ["a"], [], "foo", "Hello Wrld"],
            [
                {"answers": ["one", "two", "three"], "answer_type": "list/extractive"},
                {"answers": ["a", "a"], "answer_type": "list/extractive"},
                [],
                [],
                ["Hello World"],
            ],
            config="dude",
        ),
    ),
)
