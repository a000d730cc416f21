"""VQA accuracy (VQAv2 master and v2.0 release, TextVQA/EvalAI): :mod:`metricore.metrics.vqa_accuracy`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metricore.core.spec import Config, Example, MetricSpec, TaskUse
from metricore.core.stream import Stream
from metricore.metrics.vqa_accuracy import (
    VQA_VARIANTS,
    VQAAccuracyResult,
    VQAItems,
    explain_vqa_accuracy,
    vqa_items,
    vqa_result,
)
from metricore.specs._cost import size
from metricore.stats.significance import Statistic, mean_statistic, ratio_statistic


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> VQAItems:
    return vqa_items(predictions, references, variant=config, **options)


def _finish(config: str, items: VQAItems, options: Mapping[str, Any], columns: bool) -> VQAAccuracyResult:
    return vqa_result(items, columns=columns)


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> VQAAccuracyResult:
    return vqa_result(_items(config, predictions, references, options))


def _statistics(r: VQAAccuracyResult) -> dict[str, Statistic]:
    """``accuracy``: the mean of the question scores; ``accuracy_<type>``: the mean over the
    questions of that answer type (a ratio of sums, NaN in a resample without the type)."""
    out: dict[str, Statistic] = {"accuracy": mean_statistic(r.scores, name="accuracy")}
    if r.answer_types is not None:
        scores = np.asarray(r.scores)
        types = np.asarray(r.answer_types, dtype=object)
        for answer_type in r.accuracy_per_answer_type or {}:
            member = (types == answer_type).astype(np.float64)
            key = f"accuracy_{answer_type}"
            out[key] = ratio_statistic(scores * member, member, name=key)
    return out


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: VQAAccuracyResult,
) -> list[str]:
    return explain_vqa_accuracy(predictions, references, r)


#: per question and per human answer, in work units (~1 µs): each distinct string is
#: processed once (a few µs), each answer costs an id lookup; measured 200,000 questions x 10
#: answers in about 3 s
_PER_QUESTION, _PER_ANSWER, _PER_CHAR = 3.0, 1.0, 0.05


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    total = 0.0
    for p, r in zip(predictions, references):
        chars, leaves, _ = size(r)
        total += _PER_QUESTION + _PER_CHAR * (size(p)[0] + chars) + _PER_ANSWER * leaves
    return total


_SPECS_VECTORS = (
    ["Yes", "Two dogs.", "the red car", "1,000", "st. louis", "dont know"],
    [
        ["yes"] * 10,
        ["2 dogs"] * 3 + ["two dogs"] * 2 + ["dogs"] * 5,
        ["red car"] * 2 + ["car"] * 8,
        ["1000"] * 4 + ["1,000"] * 6,
        ["st louis"] * 3 + ["st. louis"] * 7,
        ["don't know"] * 5 + ["no"] * 5,
    ],
)

SPEC = MetricSpec(
    name="vqa_accuracy",
    label="VQA accuracy",
    title="VQA accuracy: min(1, matching human answers / 3), leave-one-out",
    summary="VQAv2, TextVQA, VizWiz and OK-VQA answer scoring: per question, the mean over the leave-one-out "
    "subsets of the human answers of min(1, matches / 3) after the official answer processing "
    "(punctuation, digits, articles, contractions), averaged over questions; per answer type and per "
    "question type when the types are given. Configs pin the official script at master (vqav2), its "
    "2017 v2.0 release (vqav2_2017) and mmf's TextVQA evaluator (textvqa).",
    notes="References: the human answers of each question (normally 10) as a JSON list, or the VQA "
    'annotation record {"answers": [...], "answer_type": ..., "question_type": ...}. The *why* column '
    "shows the prediction as compared and how many human answers match.",
    configs=tuple(Config(name, v.reference) for name, v in VQA_VARIANTS.items()),
    compute=_compute,
    result_types=(VQAAccuracyResult,),
    task=TaskUse(tuple(VQA_VARIANTS), ("accuracy",)),
    stream=Stream(_items, _finish),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example("Case, numbers, articles (vqav2: master)", *_SPECS_VECTORS),
        Example("The same with the v2.0 release rules", *_SPECS_VECTORS, config="vqav2_2017"),
        Example("The same with TextVQA's EvalAI processor", *_SPECS_VECTORS, config="textvqa"),
        Example(
            "Annotation records with answer and question types",
            ["yes", "2", "red", "no"],
            [
                {"answers": ["yes"] * 9 + ["no"], "answer_type": "yes/no", "question_type": "is the"},
                {
                    "answers": ["2"] * 6 + ["two"] * 2 + ["3"] * 2,
                    "answer_type": "number",
                    "question_type": "how many",
                },
                {
                    "answers": ["red"] * 2 + ["maroon"] * 8,
                    "answer_type": "other",
                    "question_type": "what color is the",
                },
                {"answers": ["yes"] * 7 + ["no"] * 3, "answer_type": "yes/no", "question_type": "is the"},
            ],
        ),
    ),
)
