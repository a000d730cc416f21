"""The metric registry: one :class:`~metricore.core.spec.MetricSpec` per metric.

Every surface (the ``evaluate`` adapters, the CLI, the challenge tasks, the intervals, the
Spaces and the Trainer recipes) reads its configs, options, input kinds, compute function,
statistics, explain texts, examples and cost from here; none keeps a table of its own.
A metric joins by adding ``metricore/specs/<name>.py`` (defining ``SPEC``) and its name
below. Specs load on first access, so reading one metric's spec imports only that metric.

>>> from metricore.registry import METRICS, get
>>> list(METRICS)
['anls', 'token_f1', 'meteor', 'cider', 'one_minus_ned', 'challenge_score', 'coco_caption']
>>> get("anls").config_names
('docvqa', 'stvqa_paper', 'anls_star', 'dude')
>>> get("anls").run("docvqa", ["CocaCola"], [["Coca Cola"]]).anls
0.8888888888888888
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from metricore.core.spec import MetricSpec, did_you_mean

__all__ = ["METRICS", "get", "spec_for"]

_NAMES = ("anls", "token_f1", "meteor", "cider", "one_minus_ned", "challenge_score", "coco_caption")


class _Registry(Mapping[str, MetricSpec]):
    """Name -> spec, importing ``metricore.specs.<name>`` on first access."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names
        self._loaded: dict[str, MetricSpec] = {}

    def __getitem__(self, name: str) -> MetricSpec:
        if name not in self._names:
            raise KeyError(name)
        spec = self._loaded.get(name)
        if spec is None:
            spec = importlib.import_module(f"metricore.specs.{name}").SPEC
            self._loaded[name] = spec
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


METRICS: Mapping[str, MetricSpec] = _Registry(_NAMES)


def get(name: str) -> MetricSpec:
    """The spec of metric ``name``; an unknown name raises ``ValueError`` listing the metrics."""
    if name not in METRICS:
        raise ValueError(
            f"unknown metric {name!r}{did_you_mean(str(name), _NAMES)}; allowed: {', '.join(_NAMES)}"
        )
    return METRICS[name]


def spec_for(result: Any) -> MetricSpec:
    """The spec whose compute returns results of ``result``'s type."""
    for spec in METRICS.values():
        if isinstance(result, spec.result_types):
            return spec
    raise TypeError(f"no metric returns {type(result).__name__} results")
