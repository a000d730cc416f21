"""Scoring in batches with the in-memory result: the one streaming mechanism of the metrics.

A metric streams by declaring a :class:`Stream` in its spec (``MetricSpec.stream``): two
functions of its core, ``items`` and ``finish``, such that the metric's own compute function
**is** ``finish(items(all rows))``. ``items`` returns the per-item statistics of a batch (an
:class:`ItemStats`: one entry per item, each item's numbers independent of the other rows of
its batch); ``finish`` turns the statistics of every item, in row order, into the result.
:class:`StreamScorer` calls ``items`` on each batch, keeps only the statistics (the batch's
texts are dropped once its per-sample rows are written), concatenates them in row order and
calls ``finish`` once: the result is equal (``==``, same signature) to
``spec.bind(config, **options).run(all predictions, all references)`` by construction, the
headline being computed by the same code from the same numbers.

What a stream keeps is what the result must hold: a few numbers per item (8 bytes each in a
numpy column), never the texts. A corpus statistic (a CIDEr-D document frequency, BLEU's
summed counts) is computed in ``finish`` from per-item statistics in the same way.

A metric without a stream, or a batch its stream cannot score on its own (``Stream.accepts``
says so, e.g. SQuAD dict rows that the metric itself matches by id), is scored the one way
there is: its rows are held and ``run`` once, at the end (:attr:`StreamScorer.held`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

__all__ = ["ItemStats", "Stream", "StreamScorer", "shift_indices"]

S = TypeVar("S", bound="ItemStats")


@dataclass(frozen=True)
class ItemStats:
    """Per-item statistics of some rows, in row order.

    Subclasses are frozen dataclasses whose fields are per-item columns (numpy arrays or
    lists, ``None`` when absent), batch-wide facts named in ``SHARED`` (the variant and the
    options, equal in every batch), and texts named in ``TEXT`` (the predictions as scored,
    the closest golds), which a batch needs for its per-sample rows and a stream drops.
    """

    TEXT: ClassVar[tuple[str, ...]] = ()
    SHARED: ClassVar[tuple[str, ...]] = ()

    def without_text(self: S) -> S:
        """These statistics with their texts dropped (what a stream keeps)."""
        return dataclasses.replace(self, **dict.fromkeys(self.TEXT))

    @classmethod
    def concat(cls: type[S], parts: Sequence[S]) -> S:
        """The statistics of ``parts`` one after another (row order kept); a text field is
        kept only if every part has it."""
        if not parts:
            raise ValueError("ItemStats.concat: no parts")
        first = parts[0]
        if len(parts) == 1:
            return first
        out: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            values = [getattr(p, f.name) for p in parts]
            if f.name in cls.SHARED:
                out[f.name] = values[0]
            elif any(v is None for v in values):
                out[f.name] = None
            elif isinstance(values[0], np.ndarray):
                out[f.name] = np.concatenate(values)
            elif isinstance(values[0], list):
                out[f.name] = [x for v in values for x in v]
            elif hasattr(type(values[0]), "concat"):
                out[f.name] = type(values[0]).concat(values)
            else:
                raise TypeError(f"{cls.__name__}.{f.name}: cannot concatenate {type(values[0]).__name__}")
        return cls(**out)


#: ``items(config, predictions, references, options) -> ItemStats`` of one batch
Items = Callable[[str, list[Any], list[Any], Mapping[str, Any]], ItemStats]
#: ``finish(config, statistics, options, columns) -> result``; ``columns=False``: the result
#: without its per-item columns (the headline, computed the same way, and the signature)
Finish = Callable[[str, Any, Mapping[str, Any], bool], Any]
#: ``accepts(config, predictions, references, options)``: whether a batch can be scored alone
Accepts = Callable[[str, Sequence[Any], Sequence[Any], Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Stream:
    """How a metric scores in batches (module docstring). ``configs``: the configs that
    stream (``None``: all); the others hold their rows."""

    items: Items
    finish: Finish
    configs: tuple[str, ...] | None = None
    accepts: Accepts | None = None

    def streams(self, config: str) -> bool:
        return self.configs is None or config in self.configs


_ROW = re.compile(r"\b(predictions|references)\[(\d+)\]")


def shift_indices(message: str, offset: int) -> str:
    """A core's message about a batch (``predictions[3]``) with the row's index in the whole
    input (``predictions[offset + 3]``)."""
    if not offset:
        return message
    return _ROW.sub(lambda m: f"{m.group(1)}[{int(m.group(2)) + offset}]", message)


class StreamScorer:
    """Scores a bound metric batch by batch (:meth:`add`), then :meth:`finish`.

    ``add(predictions, references)`` returns the batch's own result when the metric streams
    (for its per-sample rows: the same per-item numbers as the whole input's result), else
    ``None`` (the rows are held, :attr:`held`, and scored in :meth:`finish`). A row the core
    refuses raises the core's error, which names the row by its index in the batch
    (:func:`shift_indices` gives the index in the whole input).
    """

    def __init__(self, bound: Any) -> None:
        self.bound = bound
        self.config: str = bound.config.name
        self.options: dict[str, Any] = dict(bound.options)
        stream: Stream | None = bound.spec.stream
        self.stream = stream if stream is not None and stream.streams(self.config) else None
        self.held = self.stream is None
        self.n = 0
        self._parts: list[ItemStats] = []
        self._preds: list[Any] = []
        self._refs: list[Any] = []

    def add(self, predictions: list[Any], references: list[Any]) -> Any:
        self.n += len(predictions)
        if not self.held and self.stream is not None and self.stream.accepts is not None and not self._parts:
            self.held = not self.stream.accepts(self.config, predictions, references, self.options)
        if self.held or self.stream is None:
            self._preds.extend(predictions)
            self._refs.extend(references)
            return None
        stats = self.stream.items(self.config, predictions, references, self.options)
        result = self.stream.finish(self.config, stats, self.options, True)
        self._parts.append(stats.without_text())
        return result

    def finish(self, *, columns: bool = True) -> Any:
        """The result of every row added (``columns=False``: without per-item columns, for a
        caller that wrote them already). No row at all: the core's own error."""
        if self.held or self.stream is None or not self._parts:
            return self.bound.run(self._preds, self._refs)
        stats = type(self._parts[0]).concat(self._parts)
        self._parts = []
        return self.stream.finish(self.config, stats, self.options, columns)

    def held_rows(self) -> tuple[list[Any], list[Any]]:
        return self._preds, self._refs
