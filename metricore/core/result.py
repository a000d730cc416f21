"""The one result protocol every metric's result satisfies.

Every core ``compute_*`` returns a frozen dataclass that has:

* its headline number(s) as attributes (``anls``, ``f1``, ...), and :meth:`headline`, the
  ``{name: number}`` of those;
* ``scores``: a **list attribute** with one number per scored item (the item's main score);
* :meth:`per_item`: one record per item, ``{"index", "id", "prediction", "closest", "score"}``
  plus the metric's extras (``distance``, ``exact_match``, ...); ``id`` is ``None`` when the
  input had none, ``closest`` is the gold the score was taken from (``None`` where a metric
  scores against all references at once, e.g. CIDEr);
* :meth:`as_dict`: the plain dict the ``evaluate`` modules return (headline, ``scores``,
  ``signature`` and the metric's extra keys);
* ``signature``: the reproducibility signature (:mod:`metricore.core.signature`).

Consumers (CLI, Spaces, intervals, challenge) rely on these names only; none probes a result
with ``getattr``. :func:`item_records` builds the records from columns, so each result's
``per_item`` is one call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["MetricResult", "item_records"]


@runtime_checkable
class MetricResult(Protocol):
    """What every core result offers (see the module docstring)."""

    @property
    def scores(self) -> list[float]: ...

    @property
    def signature(self) -> str: ...

    def headline(self) -> dict[str, float]: ...

    def per_item(self) -> list[dict[str, Any]]: ...

    def as_dict(self) -> dict[str, Any]: ...


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
