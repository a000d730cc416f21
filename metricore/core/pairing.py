"""Pairing two sides of a data set by id: the one implementation every caller uses.

Predictions are matched to references by id in the CLI's files, the challenge's per-id
submissions, SQuAD dict rows, per-id embedding tables and COCO results. Each caller names its
sides and places its own way (a file and line, a task, an image), so :func:`pair_ids` returns
the order, or raises :class:`IdMismatch`, a ``ValueError`` that carries *what* does not pair
(missing, extra and repeated ids, by position) for the caller to word.

>>> pair_ids(["b", "a"], ["a", "b"])
[1, 0]
>>> try:
...     pair_ids(["a", "a", "x"], ["a", "b"])
... except IdMismatch as err:
...     err.repeated_left, err.missing, err.extra
([(1, 0)], [1], [2])
"""

from __future__ import annotations

import itertools
import os
import pickle
import tempfile
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["IdMismatch", "SPILL_ROWS", "pair_ids", "pair_stream", "ids_text"]


class IdMismatch(ValueError):
    """The ids of two sides do not pair one to one.

    ``repeated_left``/``repeated_right``: ``(position, first position)`` of each id met again
    on that side; ``missing``: positions on the right whose id no left item has; ``extra``:
    positions on the left whose id no right item has. The message is a plain summary;
    callers that know where the rows came from word their own (:meth:`describe`).
    """

    def __init__(
        self,
        left: Sequence[Any],
        right: Sequence[Any],
        *,
        repeated_left: list[tuple[int, int]],
        repeated_right: list[tuple[int, int]],
        missing: list[int],
        extra: list[int],
        totals: Mapping[str, int] | None = None,
    ) -> None:
        self.left, self.right = left, right
        self.repeated_left, self.repeated_right = repeated_left, repeated_right
        self.missing, self.extra = missing, extra
        #: how many of each problem there are, when the lists hold only the first ones (a
        #: stream's diagnosis: ``{"repeated_left": n, ...}``); default: the lists' lengths
        self.totals = dict(totals or {})
        super().__init__(self.describe())

    def total(self, what: str) -> int:
        """How many ``what`` (``"repeated_left"``, ``"missing"``, ...) problems there are."""
        return self.totals.get(what, len(getattr(self, what)))

    def describe(
        self,
        left_name: str = "predictions",
        right_name: str = "references",
        *,
        where_left: Callable[[int], str] | None = None,
        where_right: Callable[[int], str] | None = None,
    ) -> str:
        """The first problem, in words: ``where_*`` name a position (default ``name[i]``)."""
        wl = where_left or (lambda i: f"{left_name}[{i}]")
        wr = where_right or (lambda i: f"{right_name}[{i}]")
        for what, repeated, side, where in (
            ("repeated_left", self.repeated_left, self.left, wl),
            ("repeated_right", self.repeated_right, self.right, wr),
        ):
            if repeated:
                i, first = repeated[0]
                count = self.total(what)
                more = f" ({count} repeated ids)" if count > 1 else ""
                return f"{where(i)}: the id {side[i]!r} repeats (first at {where(first)}){more}"
        if self.missing:
            i = self.missing[0]
            return (
                f"{wr(i)}: no {_singular(left_name)} has the id {self.right[i]!r} "
                f"({self.total('missing')} {_singular(right_name)} id(s) without a {_singular(left_name)})"
            )
        i = self.extra[0]
        return (
            f"{wl(i)}: no {_singular(right_name)} has the id {self.left[i]!r} "
            f"({self.total('extra')} {_singular(left_name)} id(s) without a {_singular(right_name)})"
        )


def _singular(name: str) -> str:
    return {"predictions": "prediction", "references": "reference"}.get(name, name)


def _repeats(ids: Sequence[Hashable]) -> tuple[dict[Hashable, int], list[tuple[int, int]]]:
    first: dict[Hashable, int] = {}
    repeated = []
    for i, x in enumerate(ids):
        at = first.setdefault(x, i)
        if at != i:
            repeated.append((i, at))
    return first, repeated


def pair_ids(left: Sequence[Hashable], right: Sequence[Hashable]) -> list[int]:
    """For each item of ``right`` (whose order the result follows), the position of the item
    of ``left`` with the same id; :class:`IdMismatch` unless every id appears once on each
    side and both sides hold the same ids."""
    at, repeated_left = _repeats(left)
    seen, repeated_right = _repeats(right)
    missing = [i for i, x in enumerate(right) if x not in at]
    extra = [i for i, x in enumerate(left) if x not in seen]
    if repeated_left or repeated_right or missing or extra:
        raise IdMismatch(
            left,
            right,
            repeated_left=repeated_left,
            repeated_right=repeated_right,
            missing=missing,
            extra=extra,
        )
    return [at[x] for x in right]


def ids_text(ids: Sequence[Any], limit: int = 5) -> str:
    """``'a', 'b', 'c' and 4 more`` (at most ``limit`` ids shown)."""
    shown = ", ".join(repr(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


# --------------------------------------------------------------------------------------------
# Pairing two streams of rows by id, in bounded memory
# --------------------------------------------------------------------------------------------

#: rows a stream's pairing holds per side before it spills to disk (and the size of the
#: buckets it re-orders by reference position). 2^16: at 10^6 shuffled ANLS rows the peak
#: is 253 MB against 524 MB at 2^18, in the same time (benchmarks/bench_cli.py)
SPILL_ROWS = 1 << 16
#: records a spill file's buffer holds before it is written (a buffer only saves writes)
_BUFFER = 1 << 15
#: partitions of a spilled side (rows with the same id land in the same one)
_PARTS = 64

#: one batch of a side: ``(values, ids, where)``, ``where[i]`` naming row ``i``
Batch = tuple[list[Any], list[Any], Sequence[str]]
#: one paired batch, in the right side's order: ``(left values, right values, ids, left
#: where, right where)``
PairedBatch = tuple[list[Any], list[Any], list[Any], Sequence[str], Sequence[str]]


def _hashes(ids: Sequence[Any]) -> np.ndarray:
    return np.fromiter(map(hash, ids), np.int64, len(ids))


class _Unique:
    """Whether any id of a side repeats, from 64-bit hashes (8 bytes a row): held in memory up
    to ``bound``, then spilled to partition files by their top bits. A repeated hash means a
    repeated id or (rarely) a collision; :func:`_diagnose` then says which, exactly."""

    def __init__(self, bound: int, folder: Path, tag: str) -> None:
        self.bound, self.folder, self.tag = bound, folder, tag
        self.parts: list[np.ndarray] = []
        self.held = 0
        self.spilled = False

    def add(self, ids: Sequence[Any]) -> None:
        self.parts.append(_hashes(ids))
        self.held += len(ids)
        if self.held >= self.bound:
            self._spill()

    def _spill(self) -> None:
        if not self.parts:
            return
        h = np.sort(np.concatenate(self.parts).view(np.uint64))
        self.parts, self.held, self.spilled = [], 0, True
        cuts = np.searchsorted(h >> np.uint64(58), np.arange(_PARTS + 1, dtype=np.uint64))  # 64 sorted runs
        for k in range(_PARTS):
            if cuts[k] < cuts[k + 1]:
                with open(self.folder / f"{self.tag}{k}", "ab") as handle:
                    handle.write(h[cuts[k] : cuts[k + 1]].tobytes())

    def maybe_repeats(self) -> bool:
        if not self.spilled:
            h = np.sort(np.concatenate(self.parts)) if self.parts else np.empty(0, np.int64)
            return bool(np.any(h[1:] == h[:-1]))
        self._spill()
        for k in range(_PARTS):
            path = self.folder / f"{self.tag}{k}"
            if path.exists():
                h = np.sort(np.fromfile(path, dtype=np.uint64))
                if np.any(h[1:] == h[:-1]):
                    return True
        return False


class _Spill:
    """Records appended to numbered files as pickled lists, ``bound`` records held at most."""

    def __init__(self, bound: int, folder: Path, tag: str) -> None:
        self.bound, self.folder, self.tag = bound, folder, tag
        self.buffers: dict[int, list[Any]] = {}
        self.held = 0
        self.keys: set[int] = set()

    def add(self, keys: np.ndarray, records: list[Any]) -> None:
        """Append ``records[i]`` under ``keys[i]`` (the order of a key's records is kept)."""
        if not records:
            return
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        cuts = [0, *(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist(), len(records)]
        at = order.tolist()
        for a, b in zip(cuts, cuts[1:]):
            self.buffers.setdefault(int(ordered[a]), []).extend([records[i] for i in at[a:b]])
        self.held += len(records)
        if self.held >= min(self.bound, _BUFFER):
            self.flush()

    def flush(self) -> None:
        for key, records in self.buffers.items():
            with open(self.folder / f"{self.tag}{key}", "ab") as handle:
                pickle.dump(records, handle, protocol=pickle.HIGHEST_PROTOCOL)
            self.keys.add(key)
        self.buffers, self.held = {}, 0

    def read(self, key: int) -> Iterator[Any]:
        """The records of ``key`` in the order they were added."""
        if key in self.keys:
            with open(self.folder / f"{self.tag}{key}", "rb") as handle:
                while True:
                    try:
                        chunk = pickle.load(handle)
                    except EOFError:
                        break
                    yield from chunk
        yield from self.buffers.get(key, ())


class _Join:
    """The rows left after the two sides stopped agreeing position by position: both sides
    are spilled by id partition, matched partition by partition (every occurrence of an id
    lands in the same one), and the matches re-ordered by their right position through
    buckets of ``bound`` positions, as a database's hash join and external sort would."""

    def __init__(self, bound: int, folder: Path, start: int) -> None:
        self.bound, self.start = bound, start
        self.left = _Spill(bound, folder, "L")
        self.right = _Spill(bound, folder, "R")
        self.out = _Spill(bound, folder, "O")

    def add(self, spill: _Spill, values: list[Any], ids: list[Any], where: Sequence[str], pos: int) -> None:
        records = list(zip(ids, range(pos, pos + len(ids)), values, [where[k] for k in range(len(ids))]))
        spill.add(_hashes(ids) % _PARTS, records)

    def match(self) -> bool:
        """Match every partition; ``False`` when some id is repeated, missing or extra."""
        ok = True
        for part in range(_PARTS):
            lefts: dict[Any, tuple[Any, Any]] = {}
            for rid, _pos, value, where in self.left.read(part):
                if rid in lefts:
                    ok = False
                lefts[rid] = (value, where)
            matched = []
            for rid, pos, value, where in self.right.read(part):
                found = lefts.pop(rid, None)
                if found is None:
                    ok = False
                    continue
                matched.append((pos, rid, found[0], value, found[1], where))
            if matched:
                positions = np.fromiter((m[0] for m in matched), np.int64, len(matched))
                self.out.add((positions - self.start) // self.bound, matched)
            if lefts:
                ok = False
        return ok

    def ordered(self, batch: int) -> Iterator[PairedBatch]:
        """The matched rows in right order, ``batch`` at a time."""
        self.out.flush()
        for key in sorted(self.out.keys):
            records = sorted(self.out.read(key), key=lambda r: r[0])
            for i in range(0, len(records), batch):
                chunk = records[i : i + batch]
                yield (
                    [r[2] for r in chunk],
                    [r[3] for r in chunk],
                    [r[1] for r in chunk],
                    [r[4] for r in chunk],
                    [r[5] for r in chunk],
                )


class _First:
    """The first (by position) of one kind of problem, and how many there are."""

    def __init__(self) -> None:
        self.count = 0
        self.best: tuple[int, Any, str, int, str] | None = None  # pos, id, where, first pos, first where

    def add(self, pos: int, rid: Any, where: str, first: int = -1, first_where: str = "") -> None:
        self.count += 1
        if self.best is None or pos < self.best[0]:
            self.best = (pos, rid, where, first, first_where)


def _diagnose(left: Iterable[Batch], right: Iterable[Batch], bound: int, folder: Path) -> IdMismatch | None:
    """What :func:`pair_ids` would report for the whole sides (first problems and counts),
    from one more pass over both, spilled by id partition; ``None`` when they pair."""
    spills = []
    for tag, side in (("DL", left), ("DR", right)):
        spill = _Spill(bound, folder, tag)
        pos = 0
        for _values, ids, where in side:
            records = list(zip(ids, range(pos, pos + len(ids)), [where[k] for k in range(len(ids))]))
            spill.add(_hashes(ids) % _PARTS, records)
            pos += len(ids)
        spill.flush()
        spills.append(spill)
    problems = {k: _First() for k in ("repeated_left", "repeated_right", "missing", "extra")}
    for part in range(_PARTS):
        seen: list[dict[Any, list[tuple[int, str]]]] = []
        for spill, kind in zip(spills, ("repeated_left", "repeated_right")):
            at: dict[Any, list[tuple[int, str]]] = {}
            for rid, pos, where in spill.read(part):
                at.setdefault(rid, []).append((pos, where))
            for rid, places in at.items():
                for pos, where in places[1:]:
                    problems[kind].add(pos, rid, where, places[0][0], places[0][1])
            seen.append(at)
        lefts, rights = seen
        for rid, places in rights.items():
            if rid not in lefts:
                for pos, where in places:
                    problems["missing"].add(pos, rid, where)
        for rid, places in lefts.items():
            if rid not in rights:
                for pos, where in places:
                    problems["extra"].add(pos, rid, where)
    if not any(p.count for p in problems.values()):
        return None
    left_ids: dict[int, Any] = {}
    right_ids: dict[int, Any] = {}
    where_left: dict[int, str] = {}
    where_right: dict[int, str] = {}
    lists: dict[str, list[Any]] = {}
    for kind, p in problems.items():
        if p.best is None:
            lists[kind] = []
            continue
        pos, rid, where, first, first_where = p.best
        at, wheres = (
            (left_ids, where_left) if kind in ("repeated_left", "extra") else (right_ids, where_right)
        )
        at[pos], wheres[pos] = rid, where
        if kind.startswith("repeated"):
            at[first], wheres[first] = rid, first_where
            lists[kind] = [(pos, first)]
        else:
            lists[kind] = [pos]
    err = IdMismatch(
        left_ids,  # type: ignore[arg-type]  # read at the reported positions only
        right_ids,  # type: ignore[arg-type]
        repeated_left=lists["repeated_left"],
        repeated_right=lists["repeated_right"],
        missing=lists["missing"],
        extra=lists["extra"],
        totals={k: p.count for k, p in problems.items()},
    )
    err.where_left, err.where_right = where_left, where_right  # type: ignore[attr-defined]
    return err


def pair_stream(
    left: Iterable[Batch],
    right: Iterable[Batch],
    *,
    reopen: Callable[[], tuple[Iterable[Batch], Iterable[Batch]]],
    spill_rows: int = SPILL_ROWS,
    folder: str | os.PathLike[str] | None = None,
) -> Iterator[PairedBatch]:
    """:func:`pair_ids` for two streams of batches, in bounded memory: the paired rows in the
    right side's order, batch by batch.

    While both sides hold the same id at each position (files written in the same order), the
    batches pair as they come. From the first position where they differ, the rest of both
    sides is matched by a hash join spilled to disk and re-ordered by right position
    (:class:`_Join`), holding at most about ``spill_rows`` rows per side. Whether an id repeats
    is checked over all rows from 64-bit hashes (:class:`_Unique`). When the sides do not pair,
    ``reopen()`` gives both sides again and :class:`IdMismatch` is raised after the last
    batch with what :func:`pair_ids` reports for the whole sides (its first problems and their
    counts; ``err.where_left``/``err.where_right`` map the reported positions to the rows'
    ``where``). Spill files live in a temporary directory under ``folder``, removed at the end.
    """
    batch_rows = 0
    with tempfile.TemporaryDirectory(prefix="metricore-pairing-", dir=folder) as tmp:
        path = Path(tmp)
        unique = (_Unique(spill_rows, path, "UL"), _Unique(spill_rows, path, "UR"))
        join: _Join | None = None
        lpos = rpos = 0
        for lb, rb in itertools.zip_longest(left, right):
            if lb is not None:
                unique[0].add(lb[1])
                batch_rows = max(batch_rows, len(lb[1]))
            if rb is not None:
                unique[1].add(rb[1])
                batch_rows = max(batch_rows, len(rb[1]))
            if join is None and lb is not None and rb is not None:
                (lv, lid, lw), (rv, rid, rw) = lb, rb
                if lid == rid:
                    yield lv, rv, rid, lw, rw
                    lpos += len(lid)
                    rpos += len(rid)
                    continue
                k = next((i for i, (a, b) in enumerate(zip(lid, rid)) if a != b), min(len(lid), len(rid)))
                if k:
                    yield lv[:k], rv[:k], rid[:k], lw[:k], rw[:k]
                join = _Join(spill_rows, path, rpos + k)
                join.add(join.left, lv[k:], lid[k:], lw[k:], lpos + k)
                join.add(join.right, rv[k:], rid[k:], rw[k:], rpos + k)
                lpos += len(lid)
                rpos += len(rid)
                continue
            if join is None:
                join = _Join(spill_rows, path, rpos)
            if lb is not None:
                join.add(join.left, lb[0], lb[1], lb[2], lpos)
                lpos += len(lb[1])
            if rb is not None:
                join.add(join.right, rb[0], rb[1], rb[2], rpos)
                rpos += len(rb[1])
        ok = join.match() if join is not None else True
        if not ok or unique[0].maybe_repeats() or unique[1].maybe_repeats():
            err = _diagnose(*reopen(), spill_rows, path)
            if err is not None:
                raise err
        if join is not None:
            yield from join.ordered(max(batch_rows, 1))
