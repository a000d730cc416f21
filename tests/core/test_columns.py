"""A column kept on disk gives NumPy's own numbers: its sum and mean equal, bit for bit, those
NumPy computes on the same values held in memory (the reference here is NumPy itself, on the
array), for any values, lengths and ways of appending them; integer and boolean columns sum
exactly; reading back returns the values as appended."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.core import columns
from metricore.core.columns import DiskColumn, numpy_sums_pairwise

_FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e12, max_value=1e12)


def _column(values: np.ndarray, cuts: list[int]) -> DiskColumn:
    col = DiskColumn(values.dtype)
    start = 0
    for cut in sorted(c % (len(values) + 1) for c in cuts) + [len(values)]:
        col.append(values[start:cut])
        start = max(start, cut)
    return col


def _same(a, b) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and type(a) is type(b))


def test_this_numpy_sums_pairwise():
    # the bounded path is the one taken on the NumPy the suite runs with
    assert numpy_sums_pairwise()


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(_FLOATS, max_size=3000),
    cuts=st.lists(st.integers(0, 3000), max_size=6),
    scale=st.sampled_from([1.0, 1e-9, 1e9]),
)
def test_float_sum_and_mean_equal_numpys(values, cuts, scale):
    arr = np.array(values, dtype=np.float64) * scale
    col = _column(arr, cuts)
    assert len(col) == len(arr)
    assert col.tolist() == arr.tolist() and list(col) == arr.tolist()
    # slices of 128 items: the halving of the pairwise sum is exercised from 129 items on
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_READ", 128)
        assert _same(col.sum(), arr.sum())
        if len(arr):
            assert _same(col.mean(), arr.mean())


@pytest.mark.parametrize("n", [65_536, 65_537, 300_001, 2_000_003])
def test_long_columns_sum_as_numpy_does(n):
    rng = np.random.default_rng(n)
    arr = rng.random(n) * 10.0 ** rng.integers(-8, 8, n)
    col = _column(arr, [n // 3, n // 2 + 5])
    assert col.sum() == arr.sum()
    assert col.mean() == arr.mean()
    # a naive left-to-right sum differs: the test can tell the orders apart
    assert float(np.cumsum(arr)[-1]) != float(arr.sum()) or n < 100_000


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, 10**6), max_size=2000),
    cuts=st.lists(st.integers(0, 2000), max_size=4),
)
def test_integer_and_boolean_columns(values, cuts):
    ints = np.array(values, dtype=np.int64)
    bools = ints % 3 == 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_READ", 64)
        for arr in (ints, bools):
            col = _column(arr, cuts)
            assert col.sum() == arr.sum()
            if len(arr):
                assert col.mean() == arr.mean()
            assert np.array_equal(np.asarray(col), arr)


def test_a_column_is_one_dimensional():
    col = DiskColumn(np.float64)
    with pytest.raises(ValueError, match="1-D"):
        col.append(np.zeros((2, 2)))
    col.close()
