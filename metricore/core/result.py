"""The one result base every metric's result derives from.

Every core ``compute_*`` returns a frozen dataclass derived from :class:`MetricResult` that
*declares* its metric and shape as class facts, and gets the rest from them:

* ``METRIC``: the registry name of the metric (:mod:`metricore.registry` finds the result's
  spec by it, importing nothing else);
* ``HEADLINE``: its headline numbers, each a :class:`Headline` naming the attribute (and the
  key of :meth:`~MetricResult.headline` and :meth:`~MetricResult.as_dict`), whether higher or
  lower is better (as torchmetrics' ``higher_is_better``; ``None`` for a number that is not a
  score, such as a tuned threshold) and the per-item column it summarises; a headline whose
  value is ``None`` on a result (e.g. an accuracy a variant does not report) is left out;
* ``COLUMNS``: its per-item columns besides ``scores``, as ``(key, attribute)`` pairs; a
  column whose attribute is ``None`` on a result is left out.

Instances hold ``scores`` (one number per item: the item's main score), ``signature`` (the
reproducibility signature, :mod:`metricore.core.signature`) and, where the metric has them,
``predictions`` (the items as scored), ``ids`` and ``closest`` (per item, the gold the score
was taken from; ``None`` where a metric scores against all references at once).

From that declaration:

* :meth:`~MetricResult.headline`: ``{key: number}`` of the headline numbers;
* :meth:`~MetricResult.per_item`: one record per item, ``{"index", "id", "prediction",
  "closest", "score", <column>: ...}``;
* :meth:`~MetricResult.as_dict`: the plain dict the ``evaluate`` modules return.

**The shape of ``as_dict()["scores"]``, on every metric**: a list with one number per item,
the item's main score (what :attr:`scores` holds). A metric with more per-item numbers adds
``"columns"``: a dict of per-item lists, one per entry of ``COLUMNS`` (plus ``"id"`` when the
items came with ids). Other keys are the headline numbers, the result's
:meth:`~MetricResult.extra` numbers (counts and the like) and ``signature``.

Consumers (CLI, Spaces, intervals, challenge tasks, evaluate adapters) rely on these names
only; none probes a result with ``getattr``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["Headline", "MetricResult", "item_records"]


@dataclass(frozen=True)
class Headline:
    """One headline number of a result type.

    ``key``: the attribute holding it and its key in ``headline()``/``as_dict()``.
    ``higher_is_better``: its direction (``None``: not a score, e.g. a threshold).
    ``items``: the per-item column it aggregates (``"score"`` for :attr:`MetricResult.scores`,
    else a ``COLUMNS`` key; ``None`` when it aggregates no single column).
    ``mean``: it is the plain mean of that column (times :meth:`MetricResult.item_scale`),
    not a corpus formula over summed counts (BLEU, METEOR 1.5) or a subgroup's mean.
    """

    key: str
    higher_is_better: bool | None = True
    items: str | None = None
    mean: bool = False


class MetricResult:
    """Base of every core result (module docstring). Subclasses are frozen dataclasses that
    set ``METRIC``, ``HEADLINE`` and ``COLUMNS`` and hold ``scores`` and ``signature``."""

    METRIC: ClassVar[str | None] = None
    HEADLINE: ClassVar[tuple[Headline, ...]] = ()
    COLUMNS: ClassVar[tuple[tuple[str, str], ...]] = ()

    # set by every subclass (dataclass fields)
    scores: list[float]
    signature: str

    # ------------------------------------------------------------------ overridable facts

    def item_predictions(self) -> Sequence[Any] | None:
        """The items as scored (``None``: the result does not keep them)."""
        predictions = getattr(self, "predictions", None)
        return predictions if predictions else None

    def item_ids(self) -> Sequence[Any] | None:
        """Each item's id, when the input had ids."""
        return None

    def item_closest(self) -> Sequence[Any] | None:
        """Each item's closest gold, when the metric scores against one gold."""
        return None

    def item_scale(self) -> float:
        """What the headline numbers are multiplied by relative to the per-item columns
        (100 for results reported in percent)."""
        return 1.0

    def extra(self) -> dict[str, Any]:
        """Numbers of ``as_dict()`` that are not headline numbers (counts and the like)."""
        return {}

    def headline_values(self) -> dict[str, Any]:
        """``{key: value}`` of every declared headline (``None`` where absent)."""
        return {h.key: getattr(self, h.key) for h in self.HEADLINE}

    # ------------------------------------------------------------------ derived

    def headline(self) -> dict[str, float]:
        """The headline numbers present on this result, in declared order."""
        return {k: v for k, v in self.headline_values().items() if v is not None}

    def main_key(self) -> str | None:
        """The headline number that summarises :attr:`scores` (the first present headline
        declared with ``items="score"``), or ``None``."""
        values = self.headline_values()
        return next((h.key for h in self.HEADLINE if h.items == "score" and values[h.key] is not None), None)

    @classmethod
    def headline_info(cls, key: str) -> Headline:
        for h in cls.HEADLINE:
            if h.key == key:
                return h
        raise KeyError(key)

    def columns(self) -> dict[str, Sequence[Any]]:
        """The per-item columns present on this result (``COLUMNS`` order)."""
        out: dict[str, Sequence[Any]] = {}
        for key, attr in self.COLUMNS:
            column = getattr(self, attr)
            if column is not None:
                out[key] = column
        return out

    def column(self, key: str) -> Sequence[Any]:
        """A per-item column by key (``"score"``: :attr:`scores`)."""
        if key == "score":
            return self.scores
        found = self.columns().get(key)
        if found is None:
            raise KeyError(f"{type(self).__name__} has no per-item column {key!r}")
        return found

    def per_item(self) -> list[dict[str, Any]]:
        return item_records(
            self.scores,
            predictions=self.item_predictions(),
            ids=self.item_ids(),
            closest=self.item_closest(),
            extras=self.columns(),
        )

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.headline(), **self.extra(), "scores": list(self.scores)}
        columns = {k: list(v) for k, v in self.columns().items()}
        ids = self.item_ids()
        if ids is not None:
            columns = {"id": list(ids), **columns}
        if columns:
            out["columns"] = columns
        out["signature"] = self.signature
        return out


def item_records(
    scores: Sequence[float],
    *,
    predictions: Sequence[Any] | None,
    ids: Sequence[Any] | None = None,
    closest: Sequence[Any] | None = None,
    extras: Mapping[str, Sequence[Any]] | None = None,
) -> list[dict[str, Any]]:
    """One record per item from equal-length columns (``None``: the column is absent)."""
    n = len(scores)
    columns = {"id": ids, "prediction": predictions, "closest": closest}
    for name, column in (*columns.items(), *(extras or {}).items()):
        if column is not None and len(column) != n:
            raise ValueError(f"result: column {name!r} has {len(column)} entries for {n} scores")
    out = []
    for i in range(n):
        row: dict[str, Any] = {
            "index": i,
            "id": None if ids is None else ids[i],
            "prediction": None if predictions is None else predictions[i],
            "closest": None if closest is None else closest[i],
            "score": scores[i],
        }
        for name, column in (extras or {}).items():
            row[name] = column[i]
        out.append(row)
    return out
