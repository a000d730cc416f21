"""Per-sample reductions over flat arrays: "best over the gold alternatives".

Metrics score every (prediction, gold) pair in one vectorised call, over a flat array that
holds each sample's alternatives one after another (``counts[i]`` of them for sample ``i``);
these helpers reduce it back to one value per sample.
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_max", "group_argmax"]


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp)


def group_max(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The maximum of each sample's run of ``values`` (every count must be >= 1)."""
    return np.maximum.reduceat(values, _starts(counts))


def group_argmax(values: np.ndarray, counts: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Flat index of each sample's best value: the first maximum, or, with ``tiebreak``, the
    maximum with the smallest ``tiebreak`` (then the first)."""
    group = np.repeat(np.arange(len(counts)), counts)
    if tiebreak is None:
        best = group_max(values, counts)
        hits = np.flatnonzero(values == best[group])
        _, first = np.unique(group[hits], return_index=True)
        return hits[first]
    order = np.lexsort((tiebreak, -values, group))
    _, first = np.unique(group[order], return_index=True)
    return order[first]
