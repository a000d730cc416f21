"""metricore.text.matching.munkres_pairs against PyPI munkres 3.0.0.

ANLS* (PyPI anls-star 1.0.1) runs ``Munkres().compute(make_cost_matrix(means))`` on every list;
when several matchings are optimal, the pairs it returns decide the closest gold (and, for
lists whose elements differ in length, the score). ``munkres_pairs`` must return exactly the
same pairs, so these tests draw matrices with many ties (few distinct values, zeros, ANLS-like
means ``k / l`` and the one-ulp bumps anls-star gives exact matches) on both sides of the
16-cell line where munkres switches from its pure-Python loop to its C kernel.
"""

from __future__ import annotations

import math

import munkres
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.text import matching
from metricore.text.matching import max_weight_matching, munkres_matching, munkres_pairs


def both_ways(weights: np.ndarray) -> list[tuple[int, int]]:
    """munkres_pairs with the kernel's search step done in Python and with NumPy (the width
    that switches between them is lowered for the second call): both must agree."""
    saved = matching._VECTOR_MIN_COLS
    try:
        by_lists = munkres_pairs(weights)
        matching._VECTOR_MIN_COLS = 1
        by_numpy = munkres_pairs(weights)
    finally:
        matching._VECTOR_MIN_COLS = saved
    assert by_lists == by_numpy
    return by_lists


def reference(weights: list[list[float]]) -> list[tuple[int, int]]:
    if not weights or not weights[0]:
        return []  # anls-star never calls munkres on an empty matrix
    return [tuple(p) for p in munkres.Munkres().compute(munkres.make_cost_matrix(weights))]


def test_reference_uses_its_c_kernel():
    # the pairs mirrored for 16 cells and more are the C kernel's; without it munkres would
    # fall back to its Python loop, which breaks ties differently
    assert munkres.native_status()["available"], munkres.native_status()


def _anls_means() -> st.SearchStrategy[float]:
    plain = st.builds(lambda k, n: k / n, st.integers(0, 6), st.integers(1, 6)).filter(lambda x: x <= 1)
    bumped = plain.map(lambda x: math.nextafter(x, math.inf))
    return st.one_of(plain, bumped, st.sampled_from([0.0, 1.0, 0.5]))


def _matrix(values: st.SearchStrategy[float]) -> st.SearchStrategy[list[list[float]]]:
    return st.integers(1, 12).flatmap(
        lambda n: st.integers(1, 12).flatmap(
            lambda m: st.lists(st.lists(values, min_size=m, max_size=m), min_size=n, max_size=n)
        )
    )


def _few_values() -> st.SearchStrategy[list[list[float]]]:
    # draw a small palette first, then the cells from it: ties everywhere
    palette = st.lists(_anls_means(), min_size=1, max_size=4)
    return palette.flatmap(lambda pal: _matrix(st.sampled_from(pal)))


@settings(max_examples=600, deadline=None)
@given(_few_values())
def test_pairs_equal_munkres_on_tied_anls_means(weights):
    assert both_ways(np.array(weights)) == reference(weights)


@settings(max_examples=400, deadline=None)
@given(_matrix(st.integers(0, 3)))
def test_pairs_equal_munkres_on_small_integers(weights):
    floats = [[float(x) for x in row] for row in weights]
    assert both_ways(np.array(floats)) == reference(floats)
    # integer profits go through munkres's integer kernel: the same pairs
    assert both_ways(np.array(weights)) == reference(weights)


@settings(max_examples=200, deadline=None)
@given(_matrix(st.floats(0, 1, allow_subnormal=False)))
def test_pairs_equal_munkres_on_arbitrary_floats(weights):
    assert both_ways(np.array(weights)) == reference(weights)


@pytest.mark.parametrize(
    "shape", [(1, 1), (1, 15), (15, 1), (3, 5), (5, 3), (4, 4), (2, 8), (8, 2), (40, 30)]
)
def test_all_equal_and_degenerate_shapes(shape):
    for fill in (0.0, 1.0, math.nextafter(1.0, 2.0)):
        weights = np.full(shape, fill)
        assert both_ways(weights) == reference(weights.tolist())


def test_larger_tied_matrices():
    rng = np.random.default_rng(0)
    for n, m in [(60, 60), (50, 80), (80, 50), (120, 120), (280, 300)]:
        weights = rng.integers(0, 4, (n, m)) / 3.0
        assert both_ways(weights) == reference(weights.tolist())


def test_matching_arrays_and_totals():
    rng = np.random.default_rng(1)
    for _ in range(50):
        w = rng.integers(0, 5, (rng.integers(1, 9), rng.integers(1, 9))) / 4.0
        rows, cols = munkres_matching(w)
        assert list(zip(rows.tolist(), cols.tolist())) == reference(w.tolist())
        r2, c2 = max_weight_matching(w)
        # both optimal: same total
        assert w[rows, cols].sum() == pytest.approx(w[r2, c2].sum(), abs=1e-12)


def test_empty_and_bad_shapes():
    assert munkres_pairs(np.zeros((0, 3))) == []
    assert munkres_pairs(np.zeros((3, 0))) == []
    with pytest.raises(ValueError, match="2-D"):
        munkres_pairs(np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        munkres_pairs(np.array([[0.0, math.nan]]))
