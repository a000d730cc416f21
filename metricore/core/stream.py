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

A corpus metric streams the same way, with its per-item numbers *deferred*
(``Stream.deferred``): a CIDEr-D score depends on the document frequencies of every image, so a
batch's own result would not hold the final per-item numbers. :meth:`StreamScorer.add` then
returns a :class:`Deferred` (the batch's rows and predictions), and the per-item records come
from the finished result (:meth:`Deferred.per_item`), once every row is in.

A batch's statistics may also depend on the rows that *follow* it: the PTB tokenizer of the
COCO caption toolkit reads all captions as one text, so the last words of a caption can
depend on the next caption. ``Stream.hold`` says how many of the last rows must wait for
the next batch; :class:`StreamScorer` passes them to ``items`` with the batch (as context,
their statistics dropped), then again at the start of the next batch (kept). A stream with
``hold`` defers its per-item numbers.

A long stream does not hold even those numbers: past ``spill_rows`` rows, the per-item
columns go to temporary files (:class:`~metricore.core.columns.DiskColumn`, appended batch by
batch), and ``finish`` computes the headline from them a slice at a time, with NumPy's numbers
bit for bit, so a stream of 10^7 rows holds what one of 10^6 holds. Statistics spill when
every per-item field is a NumPy column and their result reads the columns the way a
:class:`~metricore.core.columns.DiskColumn` can be read (``ItemStats.SPILLS``: ANLS, 1-NED,
METEOR); the others are held as before. The command line asks for such a result without its
per-item columns (it wrote them batch by batch).

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

from metricore.core.columns import DiskColumn
from metricore.core.result import item_records

__all__ = ["Deferred", "ItemStats", "Stream", "StreamScorer", "shift_indices"]

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
    #: the result is computed from the per-item columns with the methods of a
    #: :class:`~metricore.core.columns.DiskColumn` only (``len``, iteration, ``tolist``,
    #: ``sum``, ``mean``), so a long stream may keep them on disk
    SPILLS: ClassVar[bool] = False

    def without_text(self: S) -> S:
        """These statistics with their texts dropped (what a stream keeps), also those of
        nested statistics (a field that is itself an :class:`ItemStats`)."""
        out: dict[str, Any] = dict.fromkeys(self.TEXT)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name not in out and isinstance(value, ItemStats):
                out[f.name] = value.without_text()
        return dataclasses.replace(self, **out)

    def head(self: S, stop: int) -> S:
        """The statistics of the first ``stop`` items (a field type with a ``head`` method is
        cut by it)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in self.SHARED or value is None:
                out[f.name] = value
            elif isinstance(value, (np.ndarray, list)):
                out[f.name] = value[:stop]
            elif hasattr(value, "head"):
                out[f.name] = value.head(stop)
            else:
                raise TypeError(f"{type(self).__name__}.{f.name}: cannot cut {type(value).__name__}")
        return type(self)(**out)

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
#: ``hold(config, predictions, references, options)``: how many of the last rows must wait
#: for the rows that follow (their statistics depend on them)
Hold = Callable[[str, Sequence[Any], Sequence[Any], Mapping[str, Any]], int]


@dataclass(frozen=True)
class Stream:
    """How a metric scores in batches (module docstring). ``configs``: the configs that
    stream (``None``: all); the others hold their rows. ``deferred``: the configs whose
    per-item numbers depend on every row (``None``: all), which come from ``finish`` only.
    ``hold``: how many of a batch's last rows wait for the next batch (a stream with
    ``hold`` defers its per-item numbers)."""

    items: Items
    finish: Finish
    configs: tuple[str, ...] | None = None
    accepts: Accepts | None = None
    deferred: tuple[str, ...] | None = ()
    hold: Hold | None = None

    def streams(self, config: str) -> bool:
        return self.configs is None or config in self.configs

    def defers(self, config: str) -> bool:
        """Whether a batch of ``config`` has no per-item numbers of its own."""
        return self.hold is not None or self.deferred is None or config in self.deferred


@dataclass(frozen=True)
class Deferred:
    """A batch of a stream whose per-item numbers come at the end (:attr:`Stream.deferred`):
    rows ``start`` to ``stop`` of the whole input, and the batch's predictions (the items
    as the metric's result reports them)."""

    start: int
    stop: int
    predictions: list[Any]

    def per_item(self, result: Any) -> list[dict[str, Any]]:
        """The batch's records of the finished ``result`` (which holds every row's numbers,
        not the texts): ``result.per_item()[start:stop]`` with the batch's predictions, each
        ``index`` counted from the batch's first row."""
        a, b = self.start, self.stop
        ids = result.item_ids()
        closest = result.item_closest()
        return item_records(
            result.scores[a:b],
            predictions=self.predictions,
            ids=None if ids is None else ids[a:b],
            closest=None if closest is None else closest[a:b],
            extras={key: column[a:b] for key, column in result.columns().items()},
        )


_ROW = re.compile(r"\b(predictions|references)\[(-?\d+)\]")


def shift_indices(message: str, offset: int) -> str:
    """A core's message about a batch (``predictions[3]``) with the row's index in the whole
    input (``predictions[offset + 3]``; a negative index is a row of an earlier batch)."""
    if not offset:
        return message
    return _ROW.sub(lambda m: f"{m.group(1)}[{int(m.group(2)) + offset}]", message)


class StreamScorer:
    """Scores a bound metric batch by batch (:meth:`add`), then :meth:`finish`.

    ``add(predictions, references)`` returns the batch's own result when the metric streams
    (for its per-sample rows: the same per-item numbers as the whole input's result), a
    :class:`Deferred` when its per-item numbers come at the end (:attr:`deferred`), else
    ``None`` (the rows are held, :attr:`held`, and scored in :meth:`finish`). A row the core
    refuses raises the core's error, which names the row by its index in the batch
    (:func:`shift_indices` gives the index in the whole input; a negative index names one of
    the :attr:`waiting` rows of earlier batches, scored with this one).

    ``spill_rows``: past this many rows, the statistics of a streaming (not deferred) metric
    move to temporary files (:class:`~metricore.core.columns.DiskColumn`) when their fields
    allow it; the result must then be asked for with ``finish(columns=False)``. ``None``: the
    statistics are held in memory.
    """

    def __init__(self, bound: Any, *, spill_rows: int | None = None) -> None:
        self.bound = bound
        self.config: str = bound.config.name
        self.options: dict[str, Any] = dict(bound.options)
        stream: Stream | None = bound.spec.stream
        self.stream = stream if stream is not None and stream.streams(self.config) else None
        self.held = self.stream is None
        #: per-item numbers come from :meth:`finish` (:class:`Deferred` batches)
        self.deferred = self.stream is not None and self.stream.defers(self.config)
        self.n = 0
        self._parts: list[ItemStats] = []
        self._preds: list[Any] = []
        self._refs: list[Any] = []
        #: the last rows of the previous batch, waiting for the rows that follow (``Stream.hold``)
        self._waiting: tuple[list[Any], list[Any]] = ([], [])
        self.spill_rows = None if self.deferred else spill_rows
        #: rows whose statistics are in :attr:`_parts`
        self._part_rows = 0
        #: the statistics of the rows before :attr:`_parts`, their columns on disk
        self._spilled: ItemStats | None = None
        #: how many rows' statistics went to disk (``spill_rows``)
        self.spilled = 0

    def add(self, predictions: list[Any], references: list[Any]) -> Any:
        start = self.n
        self.n += len(predictions)
        if not self.held and self.stream is not None and self.stream.accepts is not None and not self._parts:
            self.held = not self.stream.accepts(self.config, predictions, references, self.options)
        if self.held or self.stream is None:
            self._preds.extend(predictions)
            self._refs.extend(references)
            return None
        if self.deferred:
            self._keep(list(predictions), list(references), last=False)
            return Deferred(start, self.n, list(predictions))
        stats = self.stream.items(self.config, predictions, references, self.options)
        result = self.stream.finish(self.config, stats, self.options, True)
        self._parts.append(stats.without_text())
        self._part_rows += len(predictions)
        if self.spill_rows is not None and self._part_rows >= self.spill_rows:
            self._spill()
        return result

    def _spill(self) -> None:
        """Move the statistics held in :attr:`_parts` to the columns on disk (or, when their
        fields are not all NumPy columns, stop trying: they stay in memory)."""
        if not self._parts:
            return
        stats = type(self._parts[0]).concat(self._parts)
        if self._spilled is None:
            if not _spillable(stats):
                self.spill_rows = None
                self._parts = [stats]
                return
            self._spilled = _on_disk(stats)
        else:
            for f in dataclasses.fields(stats):
                column, value = getattr(self._spilled, f.name), getattr(stats, f.name)
                if isinstance(column, DiskColumn):
                    if value is None:  # absent in some rows: absent in all (ItemStats.concat)
                        column.close()
                        self._spilled = dataclasses.replace(self._spilled, **{f.name: None})
                    else:
                        column.append(value)
        self.spilled += self._part_rows
        self._parts, self._part_rows = [], 0

    @property
    def waiting(self) -> int:
        """How many rows of the batches added so far wait for the next batch (``Stream.hold``)."""
        return len(self._waiting[0])

    def _keep(self, predictions: list[Any], references: list[Any], *, last: bool) -> None:
        """Keep the statistics of the waiting rows and these, but for the last rows that must
        wait for the next batch (none when ``last``)."""
        assert self.stream is not None
        waiting_p, waiting_r = self._waiting
        rows_p, rows_r = waiting_p + predictions, waiting_r + references
        if not rows_p:
            return
        try:
            stats = self.stream.items(self.config, rows_p, rows_r, self.options)
        except (TypeError, ValueError) as err:
            # name the row by its index in this batch (a waiting row: below 0)
            renamed = _renamed(err, -len(waiting_p))
            if renamed is err:
                raise
            raise renamed from err
        wait = 0
        if self.stream.hold is not None and not last:
            wait = self.stream.hold(self.config, rows_p, rows_r, self.options)
        keep = len(rows_p) - wait
        if keep:
            self._parts.append((stats if wait == 0 else stats.head(keep)).without_text())
        self._waiting = (rows_p[keep:], rows_r[keep:])

    def finish(self, *, columns: bool = True) -> Any:
        """The result of every row added (``columns=False``: without per-item columns, for a
        caller that wrote them already). No row at all: the core's own error."""
        if self.held or self.stream is None:
            return self.bound.run(self._preds, self._refs)
        if self.deferred:
            self._keep([], [], last=True)
        if self._spilled is not None:
            self._spill()
            stats = self._spilled
            try:
                return self.stream.finish(self.config, stats, self.options, columns)
            finally:
                self._spilled = None
                for f in dataclasses.fields(stats):
                    column = getattr(stats, f.name)
                    if isinstance(column, DiskColumn):
                        column.close()
        if not self._parts:
            return self.bound.run(self._preds, self._refs)
        stats = type(self._parts[0]).concat(self._parts)
        self._parts = []
        return self.stream.finish(self.config, stats, self.options, columns)

    def held_rows(self) -> tuple[list[Any], list[Any]]:
        return self._preds, self._refs


def _spillable(stats: ItemStats) -> bool:
    """Whether the statistics declare they may spill and every per-item field is a 1-D NumPy
    column (or absent)."""
    return stats.SPILLS and all(
        f.name in stats.SHARED or value is None or (isinstance(value, np.ndarray) and value.ndim == 1)
        for f in dataclasses.fields(stats)
        for value in (getattr(stats, f.name),)
    )


def _on_disk(stats: S) -> S:
    """``stats`` with each per-item column moved to a :class:`DiskColumn`."""
    return dataclasses.replace(
        stats,
        **{
            f.name: DiskColumn.from_array(value)
            for f in dataclasses.fields(stats)
            if f.name not in stats.SHARED and isinstance(value := getattr(stats, f.name), np.ndarray)
        },
    )


def _renamed(err: Exception, offset: int) -> Exception:
    """``err`` with the rows it names shifted by ``offset`` (the same type, when it can be
    built from a message)."""
    message = shift_indices(str(err), offset)
    if message == str(err):
        return err
    try:
        return type(err)(message)
    except Exception:  # an error type that is not built from one message: keep it as it is
        return err
