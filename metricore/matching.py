"""Optimal one-to-one matching (the Hungarian step of list-answer ANLS variants)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["max_weight_matching"]


def max_weight_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a matching of maximum total weight.

    Rectangular matrices are allowed: ``min(rows, cols)`` pairs are returned. The references
    (DUDEeval, anls-star) use ``munkres`` on ``max - w``; any optimal matching has the same
    total, which is all the list scores use for flat lists.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return rows, cols
