"""Comparing what the toolkit returned with what ``metricore.pycocoevalcap`` returned: the same
types (``float`` vs ``np.float64`` included), shapes, dict key orders and numbers."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

#: CIDEr-D differs from the toolkit only in the order of floating-point additions
CIDER_TOL = 1e-12
#: the lines pycocotools prints with a wall time in them
_TIMING = re.compile(r"^(DONE|Done) \(t=\d+\.\d+s\)$", re.M)


def tolerance(key: Any, inherited: float) -> float:
    """The tolerance below a dict key: CIDEr's for ``"CIDEr"``, else what the parent had."""
    return CIDER_TOL if key == "CIDEr" else inherited


def assert_same(theirs: Any, ours: Any, where: str = "result", tol: float = 0.0) -> float:
    """Recursively: the same type, the same dict keys in the same order, the same lengths, NumPy
    arrays of the same dtype and shape, numbers equal (within ``tol``; NaN equals NaN).
    Returns the largest difference seen."""
    assert type(ours) is type(theirs), (
        f"{where}: {type(ours).__name__} here, {type(theirs).__name__} in the toolkit"
    )
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), (
            f"{where}: keys {list(ours)[:8]} vs the toolkit's {list(theirs)[:8]}"
        )
        return max(
            (assert_same(theirs[k], ours[k], f"{where}[{k!r}]", tolerance(k, tol)) for k in theirs),
            default=0.0,
        )
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{where}: length {len(ours)} vs the toolkit's {len(theirs)}"
        return max(
            (assert_same(a, b, f"{where}[{i}]", tol) for i, (a, b) in enumerate(zip(theirs, ours))),
            default=0.0,
        )
    if isinstance(theirs, np.ndarray):
        assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape), f"{where}: {ours.dtype}{ours.shape}"
        if theirs.size == 0:
            return 0.0
        if theirs.dtype.kind == "f":
            same_nan = np.isnan(theirs) == np.isnan(ours)
            assert same_nan.all(), where
            d = float(np.max(np.abs(np.nan_to_num(theirs) - np.nan_to_num(ours))))
            assert d <= tol, f"{where}: differs by {d}"
            return d
        assert np.array_equal(theirs, ours), where
        return 0.0
    if isinstance(theirs, (float, np.floating)):
        if math.isnan(theirs):
            assert math.isnan(ours), where
            return 0.0
        d = abs(float(ours) - float(theirs))
        assert d <= tol, f"{where}: {ours!r} here, {theirs!r} in the toolkit (difference {d})"
        return d
    assert ours == theirs, f"{where}: {ours!r} here, {theirs!r} in the toolkit"
    return 0.0


def printed(text: str) -> str:
    """Captured stdout without the lines that hold a wall time."""
    return _TIMING.sub("", text)
