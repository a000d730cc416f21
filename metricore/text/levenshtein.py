"""The Levenshtein family: distances, normalized similarity, edit operations.

Everything that measures edits lives here (RapidFuzz's C++ kernels do the work); ANLS and
1-NED build on it the way RapidFuzz's Indel builds on LCSseq.

Definitions (unit costs, Unicode code points):

* ``LD(a, b)``: the Levenshtein distance.
* ``nls(a, b, length) = 1 - LD / length`` where ``length`` is a divisor chosen by the caller
  (``max(len(a), len(b))`` in the textbook form; the RRC scripts use the lengths of other
  strings, see :mod:`metricore.metrics.anls`). ``length == 0`` means both strings are empty: the
  similarity is ``1.0`` (RapidFuzz: ``norm_dist = dist / maximum if maximum else 0``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

__all__ = [
    "pair_similarity",
    "explain_edits",
    "pair_distances",
    "distance_matrix",
    "normalized_similarity",
    "upper_lengths",
    "edit_operations",
]


def pair_distances(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """``LD(a[i], b[i])`` for every i, as an int64 array (vectorised in C++)."""
    if len(a) != len(b):
        raise ValueError(f"pair_distances: {len(a)} left strings but {len(b)} right strings")
    if not a:
        return np.zeros(0, dtype=np.int64)
    return process.cpdist(a, b, scorer=Levenshtein.distance, dtype=np.int64, workers=1)


def distance_matrix(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """``LD(a[i], b[j])`` for every i, j, as an int64 matrix."""
    if not a or not b:
        return np.zeros((len(a), len(b)), dtype=np.int64)
    return process.cdist(a, b, scorer=Levenshtein.distance, dtype=np.int64, workers=1)


def pair_similarity(a: str, b: str) -> float:
    """``1 - LD(a, b) / max(|a|, |b|)`` of one pair, ``1.0`` for two empty strings (the scalar
    form of :func:`normalized_similarity`, same operations)."""
    longest = max(len(a), len(b))
    return 1.0 - (Levenshtein.distance(a, b) / longest if longest else 0.0)


def normalized_similarity(distances: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``1 - d / length`` element-wise; ``1.0`` where ``length == 0``.

    The division and subtraction are done in float64 exactly as the reference scripts write
    ``1 - float(d) / float(length)``, so thresholds at 0.5 fall on the same side.
    """
    distances = np.asarray(distances, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.float64)
    ratio = np.divide(distances, lengths, out=np.zeros_like(distances), where=lengths != 0)
    return 1.0 - ratio


def upper_lengths(texts: Sequence[str]) -> np.ndarray:
    """``len(t.upper())`` per text: the divisor the RRC scripts use.

    Upper-casing changes the length of a few characters (``"ß" -> "SS"``, ligatures such as
    ``"ﬁ"``), so this is not ``len(t)``; only non-ASCII texts are upper-cased to find out.
    """
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ascii_ = np.fromiter(map(str.isascii, texts), dtype=bool, count=len(texts))
    for i in np.flatnonzero(~ascii_).tolist():
        lengths[i] = len(texts[i].upper())
    return lengths


def edit_operations(source: str, target: str) -> list[tuple[str, int, int]]:
    """The edit script from ``source`` to ``target`` as ``(op, source_pos, target_pos)``.

    ``op`` is one of ``replace``, ``insert``, ``delete``; used to explain a score.
    """
    return [(op.tag, op.src_pos, op.dest_pos) for op in Levenshtein.editops(source, target)]


def explain_edits(prediction: str, gold: str, *, max_ops: int = 4) -> str:
    """The edits that turn ``prediction`` into ``gold``, shortly: ``"2 edits: insert ' ' @4, ..."``."""
    if prediction == gold:
        return "exact match"
    ops = edit_operations(prediction, gold)
    words = []
    for op, src, dst in ops[:max_ops]:
        if op == "replace":
            words.append(f"replace {prediction[src]!r}→{gold[dst]!r} @{src}")
        elif op == "insert":
            words.append(f"insert {gold[dst]!r} @{src}")
        else:
            words.append(f"delete {prediction[src]!r} @{src}")
    more = f", +{len(ops) - max_ops} more" if len(ops) > max_ops else ""
    return f"{len(ops)} edit{'s' if len(ops) != 1 else ''}: {', '.join(words)}{more}"
