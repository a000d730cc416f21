"""What a Space's worker computes for one request, as plain data (no ``gradio`` here: the
workers import only metricore).

:func:`score_rows` binds the metric, scores, adds the bootstrap interval when asked and
builds the per-sample table (the result's records, the closest gold, the per-item columns and
the spec's *why*); it returns a :class:`Scored` of plain data, never the result object, which
can be large (METEOR 1.5 keeps every segment's statistics). :func:`warm` runs each metric's
worked examples once, so that a worker forked afterwards starts with WordNet, tokenizers and
tables loaded.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metricore import registry
from metricore.core.spec import BoundMetric, MetricSpec
from metricore.core.structured import to_json

__all__ = ["ScoreRequest", "Scored", "display", "score_rows", "warm"]


def display(value: Any) -> str:
    """A table cell for any answer: strings as they are, structures as tagged JSON."""
    return value if isinstance(value, str) else to_json(value)


@dataclass(frozen=True)
class ScoreRequest:
    """One Space request, checked and bound by the server: ``metric`` is the registry name,
    or the spec itself when it is not the registry's (a test's variant)."""

    metric: str | MetricSpec
    config: str
    options: Mapping[str, Any]
    predictions: list[Any]
    references: list[Any]
    confidence: float | None = None

    def bound(self) -> BoundMetric:
        spec = registry.get(self.metric) if isinstance(self.metric, str) else self.metric
        return spec.bind_options(self.config, self.options)


@dataclass(frozen=True)
class Scored:
    """A scored request as plain data: the headline numbers (with ``<key>_ci_low``/``_ci_high``
    when an interval was asked for), the per-sample rows, the signature, the finite per-item
    scores (the histogram), the main headline key and the per-item scale of the headline."""

    headline: dict[str, Any]
    rows: list[dict[str, Any]]
    signature: str
    scores: list[float]
    main_key: str | None
    item_scale: float


def _headline(result: Any, confidence: float | None) -> dict[str, Any]:
    """The headline numbers, each with ``<key>_ci_low``/``_ci_high`` when an interval was
    asked for (NaN bounds of an empty subgroup left out)."""
    out: dict[str, Any] = dict(result.headline())
    if confidence is None:
        return out
    from metricore.intervals import confidence_intervals

    for key, ci in confidence_intervals(result, confidence=confidence).items():
        if key in out and math.isfinite(ci.low) and math.isfinite(ci.high):
            out[key + "_ci_low"], out[key + "_ci_high"] = ci.low, ci.high
    return out


def _rows(
    bound: BoundMetric, result: Any, predictions: Sequence[Any], references: Sequence[Any]
) -> list[dict[str, Any]]:
    """The per-sample table: the result's records, the closest gold under the spec's label
    (or the references, for a metric that scores against all of them), the per-item columns
    (a copy of the main score left out) and the spec's *why*."""
    why = bound.explain(predictions, references, result)
    records = result.per_item()
    scores = list(result.scores)
    columns = {k: list(v) for k, v in result.columns().items()}
    same = {k for k, v in columns.items() if v == scores}
    has_closest = any(r["closest"] is not None for r in records)
    label = bound.spec.closest_label
    rows = []
    for record, ref, text in zip(records, references, why):
        row: dict[str, Any] = {}
        if record["id"] is not None:
            row["id"] = record["id"]
        row["prediction"] = display(record["prediction"] if record["prediction"] is not None else "")
        if has_closest:
            row[label] = "" if record["closest"] is None else display(record["closest"])
        row["score"] = record["score"]
        for key in columns:
            if key != "id" and key not in same:
                row[key] = record[key]
        if not has_closest:
            row["references"] = display(ref)
        row["why"] = text
        rows.append(row)
    return rows


def score_rows(request: ScoreRequest) -> Scored:
    """Score one request the way its Space shows it (module docstring)."""
    bound = request.bound()
    predictions, references = request.predictions, request.references
    result = bound.run(predictions, references)
    headline = _headline(result, request.confidence)
    rows = _rows(bound, result, predictions, references)
    scores = [float(s) for s in result.scores if isinstance(s, (int, float)) and math.isfinite(s)]
    return Scored(headline, rows, result.signature, scores, result.main_key(), float(result.item_scale()))


def _ready(spec: MetricSpec, config: str) -> bool:
    """Whether ``config`` can run without building data first (warming must not build it)."""
    need = spec.data
    if need is None or config not in need.configs:
        return True
    return bool(need.available() and need.prepared())


def _with_tasks(names: Sequence[str]) -> list[str]:
    """``names``, and after a metric that scores whole submissions (the challenge score) every
    metric a challenge task may use."""
    out: list[str] = []
    for name in names:
        try:
            spec = registry.get(name)
        except ValueError:
            continue
        more = [n for n in registry.names() if registry.get(n).task is not None] if not spec.rows else []
        out += [n for n in (name, *more) if n not in out]
    return out


def warm(names: Sequence[str]) -> None:
    """Run every worked example of each metric in ``names`` once (errors are reported on
    stderr and skipped: a worker then loads what it needs on its first request)."""
    t0 = time.perf_counter()
    done = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the examples' notes are for their requests, not the log
        for name in _with_tasks(names):
            _warm_one(name)
            done.append(name)
    print(
        f"metricore workers: warmed {', '.join(done) or 'nothing'} in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
    )


def _warm_one(name: str) -> None:
    """Run the worked examples of metric ``name`` (each config whose data is ready)."""
    spec = registry.get(name)
    for example in spec.examples:
        config = spec.config(example.config).name
        if not _ready(spec, config):
            continue
        preds, refs = list(example.predictions), list(example.references)
        try:
            if spec.rows:
                score_rows(ScoreRequest(name, config, dict(example.options), preds, refs))
            else:
                spec.run(config, preds, refs, **example.options)
        except Exception as err:  # a missing optional resource: its requests will say so
            print(f"metricore workers: warming {name} ({config}) failed: {err}", file=sys.stderr)
