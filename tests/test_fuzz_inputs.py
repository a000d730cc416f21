"""Every metric and config on arbitrary Unicode (issue 17): lone surrogates, characters
without a Unicode name, control characters, any script. The answer is a number in range, or
a ``TypeError``/``ValueError`` naming the argument and the row; never another exception.

Inputs take the shapes of the spec's own examples (``metricore.registry``): every string
leaf of an example's predictions and references is replaced by drawn text, so each input
kind (plain text, gold alternatives, ANLS* structures, DUDE records, QuAC turns, token
lists, challenge task inputs) is exercised as the surfaces pass it. Identifiers and type
tags (``id``, ``dialog_id``, ``type``, ``answer_type``) and dict keys keep their values.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore.registry import METRICS

#: characters the issue found hostile, mixed into any Unicode
HOSTILE = [
    "\ud800",
    "\udfff",
    "\U00017000",
    "\U0010ffff",
    "\x00",
    "\u200b",
    "\ufeff",
    " ",
    "\n",
    "я",
    "a",
    "3",
]
TEXT = st.text(
    alphabet=st.one_of(st.characters(exclude_categories=()), st.sampled_from(HOSTILE)),
    max_size=12,
)
KEEP = frozenset({"id", "dialog_id", "type", "answer_type"})
#: the largest headline value of each metric (others: 1)
UPPER = {"token_f1": 100.0, "cider": 10.0, "coco_caption": 100.0}
#: headline keys with their own range: error rates (edits per reference character, inf
#: against empty references) and percentages
UNBOUNDED = {"cer": math.inf, "wer": math.inf, "accuracy": 100.0}
#: an error names the argument and the row: `predictions[3]`, references[0][1], a task
NAMED = re.compile(r"(predictions|references)\[\d+\]|task '")


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    if isinstance(value, dict):
        return [p for k, v in value.items() if k not in KEEP for p in _leaves(v, (*path, k))]
    return []


def _replace(value: Any, path: tuple[Any, ...], text: str) -> Any:
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(value, tuple):
        return tuple(_replace(v, rest, text) if i == head else v for i, v in enumerate(value))
    if isinstance(value, list):
        return [_replace(v, rest, text) if i == head else v for i, v in enumerate(value)]
    return {k: (_replace(v, rest, text) if k == head else v) for k, v in value.items()}


def _cases() -> list[tuple[str, str, Any]]:
    cases = []
    for name in METRICS:
        spec = METRICS[name]
        for config in spec.configs:
            own = [e for e in spec.examples if e.config == config.name]
            default = [e for e in spec.examples if e.config is None and config.name == spec.default_config]
            chosen = (own or default or list(spec.examples[:1]))[:1]
            cases.extend((name, config.name, e) for e in chosen)
    return cases


CASES = _cases()


def _check(name: str, config: str, example: Any, texts: list[str]) -> None:
    spec = METRICS[name]
    data = {"predictions": list(example.predictions), "references": list(example.references)}
    slots = [(side, p) for side in data for p in _leaves(data[side])]
    for (side, path), text in zip(slots, texts):
        data[side] = _replace(data[side], path, text)
    try:
        result = spec.compute(config, data["predictions"], data["references"], dict(example.options))
    except (TypeError, ValueError) as err:
        assert NAMED.search(str(err)), f"{name} ({config}): {type(err).__name__} naming no row: {err}"
        return
    for key, value in result.headline().items():
        upper = UNBOUNDED.get(key, UPPER.get(name, 1.0))
        assert isinstance(value, float), (name, config, key, value)
        assert math.isnan(value) or -1.0 <= value <= upper + 1e-9, (name, config, key, value)


def _test(name: str, config: str, example: Any, data: Any) -> None:
    n = sum(len(_leaves(list(v))) for v in (example.predictions, example.references))
    texts = data.draw(st.lists(TEXT, min_size=n, max_size=n))
    _check(name, config, example, texts)


@pytest.mark.parametrize(("name", "config", "example"), CASES, ids=[f"{n}-{c}" for n, c, _ in CASES])
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_arbitrary_unicode_gives_a_number_or_a_named_error(name, config, example, data):
    _test(name, config, example, data)


@pytest.mark.parametrize(("name", "config", "example"), CASES, ids=[f"{n}-{c}" for n, c, _ in CASES])
def test_every_string_a_hostile_character(name, config, example):
    """The characters the issue reported, each in every string slot at once."""
    n = sum(len(_leaves(list(v))) for v in (example.predictions, example.references))
    for char in HOSTILE:
        _check(name, config, example, [char * 2] * n)
