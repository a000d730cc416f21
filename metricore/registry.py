"""The metric registry: one :class:`~metricore.core.spec.MetricSpec` per metric.

Every surface (the ``evaluate`` adapters, the CLI, the challenge tasks, the intervals, the
Spaces, the Trainer recipes, the bundles and the demo) reads a metric's configs, options,
input kinds, compute function, statistics, explain texts, examples and cost from here, and
iterates :data:`METRICS` for the list of metrics; none keeps a table of its own.

The metrics are discovered: every module ``metricore/specs/<name>.py`` (not starting with
``_``) defines ``SPEC``, and its file name is the metric's name. Adding a metric adds files
and edits none (``metricore new-metric NAME`` writes them). Names are listed without
importing a spec, and a spec is imported on first access, so reading one metric's spec
imports only that metric.

>>> from metricore.registry import METRICS, get
>>> list(METRICS)[:3]
['anls', 'challenge_score', 'cider']
>>> get("anls").config_names
('docvqa', 'stvqa_paper', 'anls_star', 'dude')
>>> get("anls").bind("docvqa").run(["CocaCola"], [["Coca Cola"]]).anls
0.8888888888888888
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from typing import Any

import metricore.specs
from metricore.core.spec import MetricSpec, did_you_mean

__all__ = ["METRICS", "get", "names", "row_metrics", "spec_for"]


@functools.lru_cache(maxsize=1)
def names() -> tuple[str, ...]:
    """Every metric's name, sorted (the spec modules' file names; nothing is imported)."""
    found = (m.name for m in pkgutil.iter_modules(metricore.specs.__path__) if not m.name.startswith("_"))
    return tuple(sorted(found))


class _Registry(Mapping[str, MetricSpec]):
    """Name -> spec, importing ``metricore.specs.<name>`` on first access."""

    def __init__(self) -> None:
        self._loaded: dict[str, MetricSpec] = {}

    def __getitem__(self, name: str) -> MetricSpec:
        spec = self._loaded.get(name)
        if spec is None:
            if name not in names():
                raise KeyError(name)
            spec = importlib.import_module(f"metricore.specs.{name}").SPEC
            if not isinstance(spec, MetricSpec) or spec.name != name:
                raise TypeError(f"metricore/specs/{name}.py: SPEC must be a MetricSpec named {name!r}")
            self._loaded[name] = spec
        return spec

    def __contains__(self, name: object) -> bool:
        return name in names()

    def __iter__(self) -> Iterator[str]:
        return iter(names())

    def __len__(self) -> int:
        return len(names())


METRICS: Mapping[str, MetricSpec] = _Registry()


def get(name: str) -> MetricSpec:
    """The spec of metric ``name``; an unknown name raises ``ValueError`` listing the metrics."""
    if name not in METRICS:
        raise ValueError(
            f"unknown metric {name!r}{did_you_mean(str(name), names())}; allowed: {', '.join(names())}"
        )
    return METRICS[name]


def row_metrics() -> list[str]:
    """The metrics scored row by row (one prediction and its references per item): those of
    ``metricore score``, the Spaces' shared builder and the Trainer recipes."""
    return [name for name in names() if METRICS[name].rows]


def spec_for(result: Any) -> MetricSpec:
    """The spec of the metric that returned ``result`` (by the name its type declares)."""
    name = getattr(type(result), "METRIC", None)
    if name is None:
        raise TypeError(f"no metric returns {type(result).__name__} results")
    return get(name)
