"""A per-item column kept in a temporary file: what a long stream keeps of its rows.

A stream of 10^7 rows keeps a few numbers per item (:class:`~metricore.core.stream.ItemStats`);
held in memory they would grow with the input. :class:`DiskColumn` appends them to an
anonymous temporary file (removed by the system when it is closed or the process ends) and
reads them back a slice at a time, so what a stream holds stays bounded by its batch.

The headline of the metrics that stream this way is a NumPy mean of such a column, and the
streamed result must equal the in-memory one exactly (``==``). NumPy sums a contiguous float64
array by *pairwise summation* (``pairwise_sum`` in NumPy's ``loops_utils.h.src``: halves cut
at a multiple of 8 down to blocks of at most 128 items, each block summed in 8 lanes), so the
sum of a column on disk is taken along the same halves, each half short enough read from the
file and summed by NumPy itself: the same additions in the same order, hence the same bits
(:meth:`DiskColumn.sum`). That NumPy still sums this way is checked once per process on a
sample (:func:`numpy_sums_pairwise`); if it did not, the column would be read whole instead,
exact but unbounded. Integer and boolean sums are exact in any order.

>>> col = DiskColumn.from_array(np.array([0.1, 0.2, 0.3]))
>>> col.append(np.array([0.4]))
>>> len(col), bool(col.mean() == np.array([0.1, 0.2, 0.3, 0.4]).mean()), col.tolist()
(4, True, [0.1, 0.2, 0.3, 0.4])
>>> col.close()
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["DiskColumn", "numpy_sums_pairwise"]

#: items read at once: a half this short is summed by NumPy from one read (a multiple of 8,
#: far above NumPy's 128-item blocks)
_READ = 1 << 16
#: NumPy's block: a range this short or shorter is summed in one pass, never halved
_BLOCK = 128


class DiskColumn:
    """A 1-D NumPy column appended to a temporary file, read back in slices.

    The array methods a metric's result needs are here with NumPy's semantics and numbers:
    ``len``, iteration (Python scalars, in order), :meth:`tolist`, :meth:`sum`, :meth:`mean`;
    ``np.asarray(column)`` reads it whole.
    """

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self._file = tempfile.TemporaryFile(prefix="metricore-column-")
        self._n = 0

    @classmethod
    def from_array(cls, values: np.ndarray) -> DiskColumn:
        col = cls(values.dtype)
        col.append(values)
        return col

    def append(self, values: np.ndarray) -> None:
        values = np.ascontiguousarray(values, dtype=self.dtype)
        if values.ndim != 1:
            raise ValueError(f"DiskColumn.append: a 1-D array, not {values.ndim}-D")
        self._file.seek(0, os.SEEK_END)
        self._file.write(values.tobytes())
        self._n += len(values)

    def __len__(self) -> int:
        return self._n

    def read(self, start: int, stop: int) -> np.ndarray:
        """Items ``start`` to ``stop`` (a new array)."""
        start, stop = max(0, start), min(stop, self._n)
        if stop <= start:
            return np.empty(0, self.dtype)
        size = self.dtype.itemsize
        self._file.flush()
        data = os.pread(self._file.fileno(), (stop - start) * size, start * size)
        return np.frombuffer(data, self.dtype).copy()

    def chunks(self) -> Iterator[np.ndarray]:
        for start in range(0, self._n, _READ):
            yield self.read(start, start + _READ)

    def __iter__(self) -> Iterator[Any]:
        for chunk in self.chunks():
            yield from chunk.tolist()

    def tolist(self) -> list[Any]:
        return [x for chunk in self.chunks() for x in chunk.tolist()]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        whole = self.read(0, self._n)
        return whole if dtype is None else whole.astype(dtype)

    def sum(self) -> Any:
        """``np.asarray(self).sum()``, bit for bit, reading a slice at a time."""
        if self.dtype.kind in "biu":  # exact in any order
            return np.int64(sum(int(chunk.sum()) for chunk in self.chunks()))
        if self.dtype != np.float64 or not numpy_sums_pairwise():
            return np.asarray(self).sum()
        return np.float64(_pairwise(self.read, 0, self._n, _READ))

    def mean(self) -> Any:
        """``np.asarray(self).mean()``, bit for bit (NumPy's sum over the count; booleans and
        integers summed exactly, as NumPy's float64 sum of them is below 2^53)."""
        if not self._n:
            return np.asarray(self).mean()
        total = self.sum()
        return np.float64(total) / self._n

    def close(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"DiskColumn({self.dtype}, {self._n} items)"


def _pairwise(read: Any, start: int, n: int, leaf: int) -> float:
    """NumPy's pairwise sum of items ``start`` to ``start + n``: halves cut as NumPy cuts them,
    down to a range of at most ``leaf`` items, which NumPy sums from one read."""
    if n <= max(leaf, _BLOCK):
        return float(np.add.reduce(read(start, start + n)))
    half = n // 2
    half -= half % 8
    return _pairwise(read, start, half, leaf) + _pairwise(read, start + half, n - half, leaf)


@functools.cache
def numpy_sums_pairwise() -> bool:
    """Whether this NumPy's float64 sum equals the pairwise sum :func:`_pairwise` restates, on
    sample arrays whose halves are cut down to NumPy's 128-item blocks (a change to NumPy's summation
    would show here; :class:`DiskColumn` then reads a column whole to sum it)."""
    rng = np.random.default_rng(20261127)
    for n in (257, 1000, 4099):
        x = rng.random(n) * 10.0 ** rng.integers(-12, 12, n)
        if float(np.add.reduce(x)) != _pairwise(lambda a, b, x=x: x[a:b], 0, n, _BLOCK):
            return False
    return True
