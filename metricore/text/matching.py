"""Optimal one-to-one matching (the Hungarian step of list-answer ANLS variants)."""

from __future__ import annotations

import numpy as np

# scipy.optimize (~0.5 s to import) and munkres are imported by the functions that use them

__all__ = ["max_weight_matching", "munkres_matching"]


def max_weight_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a matching of maximum total weight.

    Rectangular matrices are allowed: ``min(rows, cols)`` pairs are returned. The references
    (DUDEeval, anls-star) use ``munkres`` on ``max - w``; any optimal matching has the same
    total, which is all the list scores use for flat lists.
    """
    from scipy.optimize import linear_sum_assignment

    weights = np.asarray(weights, dtype=np.float64)
    if weights.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return rows, cols


def munkres_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The matching the ``munkres`` package picks on ``make_cost_matrix(weights)``.

    Slower than :func:`max_weight_matching` (pure Python); used only where a reference
    implementation's score depends on which of several optimal matchings is picked
    (ANLS* lists whose elements differ in length), so that ties break the same way.
    """
    from munkres import Munkres, make_cost_matrix

    weights = np.asarray(weights, dtype=np.float64)
    if weights.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    pairs = Munkres().compute(make_cost_matrix(weights.tolist()))
    rows = np.fromiter((r for r, _ in pairs), dtype=np.intp, count=len(pairs))
    cols = np.fromiter((c for _, c in pairs), dtype=np.intp, count=len(pairs))
    return rows, cols
