"""Optimal one-to-one matching (the Hungarian step of list-answer ANLS variants).

Two solvers:

* :func:`max_weight_matching` (SciPy) where only the total of an optimal matching matters
  (DUDE lists);
* :func:`munkres_matching`, an independent implementation that returns the very pairs that
  PyPI ``munkres`` 3.0.0 returns for ``Munkres().compute(make_cost_matrix(weights))``, which is
  what PyPI ``anls-star`` 1.0.1 runs on every list. When several matchings are optimal, the
  one picked decides ANLS*'s closest gold (``return_gt``) and, for lists whose elements
  differ in length, the score, so ties must break the way the package breaks them.

How ``munkres`` 3.0.0 solves (read from its ``_core.py``, ``_native.py`` and checked
pair-for-pair against it in ``tests/text/test_matching.py``): it is not the textbook
star/prime Munkres of earlier versions. It transposes a matrix with more rows than columns
(then reports the pairs sorted by row), reduces every row by its minimum, greedily matches
each row to its first still-free zero, and then augments each unmatched row along a
shortest path with dual potentials. Matrices with at least 16 cells go to its C kernel,
which augments like SciPy's ``linear_sum_assignment`` (columns scanned in a swap-remove
order, ties going to a free column); smaller ones to its pure-Python loop (columns scanned
left to right, first minimum wins). Both are mirrored here operation for operation so that
float ties resolve identically.
"""

from __future__ import annotations

import numpy as np

# scipy.optimize (~0.5 s to import) is imported by the function that uses it

__all__ = ["max_weight_matching", "munkres_matching", "munkres_pairs"]

#: ``munkres`` 3.0.0 (``_core._NATIVE_MIN``): from this many cells on, its C kernel solves
_KERNEL_MIN_CELLS = 16
#: from this many columns on, a step of the kernel's search is done with NumPy; below it,
#: NumPy's per-call overhead costs more than a Python loop over the columns (same results)
_VECTOR_MIN_COLS = 256


def max_weight_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a matching of maximum total weight.

    Rectangular matrices are allowed: ``min(rows, cols)`` pairs are returned. Any optimal
    matching has the same total, which is all DUDE's list score uses.
    """
    from scipy.optimize import linear_sum_assignment

    weights = np.asarray(weights, dtype=np.float64)
    if weights.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return rows, cols


def munkres_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns (sorted by row) of :func:`munkres_pairs`, as index arrays."""
    pairs = munkres_pairs(weights)
    rows = np.fromiter((r for r, _ in pairs), dtype=np.intp, count=len(pairs))
    cols = np.fromiter((c for _, c in pairs), dtype=np.intp, count=len(pairs))
    return rows, cols


def munkres_pairs(weights: np.ndarray) -> list[tuple[int, int]]:
    """The ``(row, col)`` pairs of ``munkres.Munkres().compute(make_cost_matrix(weights))``
    (PyPI ``munkres`` 3.0.0): a maximum-weight matching of ``min(rows, cols)`` pairs, sorted
    by row, with ties broken exactly as that package breaks them.

    ``weights`` must be finite (ANLS* means are in ``[0, 1]`` plus one ulp).
    """
    profit = np.asarray(weights, dtype=np.float64)
    if profit.ndim != 2:
        raise ValueError(f"munkres_pairs: expected a 2-D matrix, got {profit.ndim} dimensions")
    n_rows, n_cols = profit.shape
    if n_rows == 0 or n_cols == 0:
        return []
    if not np.isfinite(profit).all():
        # munkres refuses NaN and -inf and forbids +inf pairs; ANLS* means are never such
        raise ValueError("munkres_pairs: weights must be finite")
    # make_cost_matrix: ``max(all cells) - cell``, one float subtraction per cell
    cost = profit.max() - profit
    transposed = n_rows > n_cols
    if transposed:
        cost = np.ascontiguousarray(cost.T)
    n, m = cost.shape
    if n * m < _KERNEL_MIN_CELLS:
        col_of_row = _python_solve(cost.tolist())
    elif m < _VECTOR_MIN_COLS:
        col_of_row = _kernel_solve_lists(cost.tolist())
    else:
        col_of_row = _kernel_solve(cost)
    if transposed:
        return sorted((c, r) for r, c in enumerate(col_of_row))
    return list(enumerate(col_of_row))


def _warm_start(cost: list[list[float]]) -> tuple[list[float], list[int]]:
    """Row potentials (each row's minimum) and, per column, the row greedily matched to it
    (-1: free): each row in turn takes its first still-free cell equal to its minimum."""
    row_min: list[float] = []
    owner = [-1] * len(cost[0])
    for i, row in enumerate(cost):
        low = min(row)
        row_min.append(low)
        for j, c in enumerate(row):
            if c == low and owner[j] == -1:
                owner[j] = i
                break
    return row_min, owner


def _python_solve(cost: list[list[float]]) -> list[int]:
    """``munkres`` 3.0.0's pure-Python path (``_core._solve_raw``, used below 16 cells):
    shortest augmenting paths over a virtual column ``m``; the first column with the least
    reduced distance extends the path. Returns the column of each row (``n <= m``)."""
    n, m = len(cost), len(cost[0])
    u, owner = _warm_start(cost)
    v = [0.0] * (m + 1)
    owner.append(-1)  # owner[m]: the row being augmented
    back = [0] * (m + 1)
    matched = set(owner[:m]) - {-1}
    inf = float("inf")
    for i in range(n):
        if i in matched:
            continue
        owner[m] = i
        j0 = m
        dist = [inf] * (m + 1)
        seen = [False] * (m + 1)
        while True:
            seen[j0] = True
            i0 = owner[j0]
            ui = u[i0]
            row = cost[i0]
            for j in range(m):
                if not seen[j]:
                    reduced = row[j] - ui - v[j]
                    if reduced < dist[j]:
                        dist[j] = reduced
                        back[j] = j0
            delta = inf
            j1 = -1
            for j in range(m):
                if not seen[j] and dist[j] < delta:
                    delta = dist[j]
                    j1 = j
            for j in range(m + 1):
                if seen[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                elif dist[j] != inf:
                    dist[j] -= delta
            j0 = j1
            if owner[j0] == -1:
                break
        while j0 != m:
            j1 = back[j0]
            owner[j0] = owner[j1]
            j0 = j1
    col_of_row = [0] * n
    for j in range(m):
        if owner[j] >= 0:
            col_of_row[owner[j]] = j
    return col_of_row


def _kernel_solve(cost: np.ndarray) -> list[int]:
    """``munkres`` 3.0.0's C kernel (``_lapc``, 16 cells and more): the warm start, then for
    each free row a Dijkstra-like search in SciPy's manner. Columns not yet reached sit in
    ``todo``, initially right to left; the reached one is swap-removed (the last takes its
    place), which sets the scan order of later steps. Among the columns at the least
    distance the first in ``todo`` order wins unless a later one is free (then the last free
    one does). Vectorized over the columns of a step; each element sees the kernel's float
    operations in the kernel's order."""
    n, m = cost.shape
    row_min, owner_list = _warm_start(cost.tolist())
    u = np.array(row_min, dtype=np.float64)
    v = np.zeros(m, dtype=np.float64)
    owner = np.array(owner_list, dtype=np.intp)  # row of each column, -1 free
    col_of_row = np.full(n, -1, dtype=np.intp)
    taken = owner >= 0
    col_of_row[owner[taken]] = np.flatnonzero(taken)
    inf = np.inf
    for start in np.flatnonzero(col_of_row < 0).tolist():
        todo = np.arange(m - 1, -1, -1, dtype=np.intp)
        left = m
        dist = np.full(m, inf)
        via = np.full(m, -1, dtype=np.intp)  # row each column is reached from
        rows_seen = [start]
        cols_seen: list[int] = []
        reached = 0.0
        i = start
        while True:
            cand = todo[:left]
            reduced = reached + cost[i, cand] - u[i] - v[cand]
            better = reduced < dist[cand]
            dist[cand[better]] = reduced[better]
            via[cand[better]] = i
            d = dist[cand]
            lowest = d.min()
            tied = np.flatnonzero(d == lowest)
            free = tied[owner[cand[tied]] < 0]
            pos = int(free[-1]) if free.size else int(tied[0])
            j = int(cand[pos])
            reached = float(lowest)
            cols_seen.append(j)
            left -= 1
            todo[pos] = todo[left]
            if owner[j] < 0:
                sink = j
                break
            i = int(owner[j])
            rows_seen.append(i)
        # dual update, in the kernel's order: u[start] += reached, then the other rows of
        # the tree by ``reached - dist[their column]``, columns by the same amount
        u[start] += reached
        for r in rows_seen[1:]:
            u[r] += reached - dist[col_of_row[r]]
        seen_cols = np.array(sorted(cols_seen), dtype=np.intp)
        v[seen_cols] -= reached - dist[seen_cols]
        j = sink
        while True:
            r = int(via[j])
            owner[j] = r
            j, col_of_row[r] = int(col_of_row[r]), j
            if r == start:
                break
    return col_of_row.tolist()


def _kernel_solve_lists(cost: list[list[float]]) -> list[int]:
    """:func:`_kernel_solve` on Python lists, one column at a time as the C kernel goes:
    faster for narrow matrices, same operations in the same order."""
    n, m = len(cost), len(cost[0])
    u, owner = _warm_start(cost)
    v = [0.0] * m
    col_of_row = [-1] * n
    for j, r in enumerate(owner):
        if r >= 0:
            col_of_row[r] = j
    inf = float("inf")
    via = [-1] * m
    for start in range(n):
        if col_of_row[start] >= 0:
            continue
        todo = list(range(m - 1, -1, -1))
        left = m
        dist = [inf] * m
        rows_seen = [start]
        cols_seen: list[int] = []
        reached = 0.0
        i = start
        while True:
            row = cost[i]
            ui = u[i]
            lowest = inf
            pos = -1
            for k in range(left):
                j = todo[k]
                reduced = reached + row[j] - ui - v[j]
                if reduced < dist[j]:
                    dist[j] = reduced
                    via[j] = i
                d = dist[j]
                if d < lowest or (d == lowest and owner[j] < 0):
                    lowest = d
                    pos = k
            reached = lowest
            j = todo[pos]
            cols_seen.append(j)
            left -= 1
            todo[pos] = todo[left]
            if owner[j] < 0:
                break
            i = owner[j]
            rows_seen.append(i)
        u[start] += reached
        for r in rows_seen[1:]:
            u[r] += reached - dist[col_of_row[r]]
        for c in cols_seen:
            v[c] -= reached - dist[c]
        while True:
            r = via[j]
            owner[j] = r
            j, col_of_row[r] = col_of_row[r], j
            if r == start:
                break
    return col_of_row
