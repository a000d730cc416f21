"""Checks for numeric array inputs (embeddings, features, covariance statistics).

Shared by :mod:`metricore.vision.fid` and :mod:`metricore.vision.clip_score`. Like
:mod:`metricore.core.validation`, every check names the metric, the argument and the offending
index, and never mutates its input: it returns a new float64 array.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

__all__ = ["float_array", "first_bad_index"]


def first_bad_index(mask: np.ndarray) -> str:
    """``[i, j, ...]`` of the first True entry of ``mask`` (for error messages)."""
    where = np.argwhere(mask)[0]
    return "[" + ", ".join(str(int(i)) for i in where) + "]"


def float_array(value: Any, metric: str, name: str, ndims: Collection[int]) -> np.ndarray:
    """``value`` as a new finite float64 array whose number of dimensions is in ``ndims``.

    Anything ``np.asarray`` turns into a real numeric array is accepted (lists, numpy arrays,
    CPU torch tensors); ragged lists, strings, complex numbers and non-finite values are
    refused with the index of the first bad entry.
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{metric}: `{name}` must be a numeric array, got {type(value).__name__}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:  # ragged nested lists
        raise ValueError(f"{metric}: `{name}` is not a rectangular numeric array ({err})") from None
    if raw.dtype == object or not (np.issubdtype(raw.dtype, np.number) or raw.dtype == np.bool_):
        raise TypeError(
            f"{metric}: `{name}` must be a rectangular array of real numbers, got dtype {raw.dtype}"
        )
    if np.iscomplexobj(raw):
        raise TypeError(f"{metric}: `{name}` must hold real numbers, got dtype {raw.dtype}")
    if raw.ndim not in ndims:
        wanted = " or ".join(f"{d}-D" for d in sorted(ndims))
        raise ValueError(f"{metric}: `{name}` must be {wanted}, got shape {raw.shape}")
    arr = np.array(raw, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        bad = ~finite
        raise ValueError(
            f"{metric}: `{name}{first_bad_index(bad)}` is not finite ({arr[tuple(np.argwhere(bad)[0])]})"
        )
    return arr
