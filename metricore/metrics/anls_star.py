"""ANLS* for structured answers (Peer et al. 2024, arXiv 2402.03848).

Pinned to PyPI ``anls-star`` 1.0.1 (``anls_star.anls_score``): this module is an independent
implementation of the same rules, tested against the package in
``tests/metrics/test_anls_star_compat.py`` (its own test suite, ported, and random nested
structures). What its users see matches: the score, the closest gold (``return_gt``) also
when several matchings tie, the per-key scores (``return_key_scores``), the exception classes
and messages, and the compatibility-mode warning. :func:`anls_score` is a drop-in for the
package's function.

Rules (``G`` gold, ``P`` prediction):

* leaves (``str``, ``int``, ``float``, ``bool``) are ``str()``-ed and RRC-normalized
  (strip, lower, collapse whitespace); ``NLS = 1 - LD / max(len)`` on the normalized strings,
  ``0`` when below the threshold; a leaf against a non-leaf scores ``0``;
* ``None`` in ``G`` matches ``None``, ``""``, ``[]`` and ``{}`` in ``P``;
* a tuple in ``G`` holds alternatives: the best (highest mean, then equal to ``P``) is used;
  tuples are not allowed in ``P``;
* lists are matched element to element on the mean score of each pair (exact matches are
  favoured by one ulp) with the very pairs ``munkres`` 3.0.0 returns, tie order included
  (:func:`metricore.text.matching.munkres_pairs`); unmatched elements on either side add
  their length to the divisor;
* dicts are compared on the union of keys (a missing key is ``None``); a key that only ``P``
  has with a ``None``-like value adds nothing to the numerator **but still one to the
  divisor** (the package's ``pairwise_len`` counts every key of the union);
* the score is ``sum of matched leaf scores / pairwise length`` (``1.0`` when the length is
  0). Leaf scores are added with ``sum()`` in the package's order, so equal-looking means
  are equal to the last bit and ties fall the same way.

A gold list of strings scored against a single string prediction is read as alternatives
(the package's compatibility mode for VQA-style data); a ``UserWarning`` with the package's
text says so (:func:`anls_star_score` per sample; :func:`anls_star_scores` once per call).

Errors name the path of the bad value (``predictions[3][1]``) and carry the package's text:
a tuple in a prediction and an empty tuple in the gold are ``ValueError``; an unsupported type
is :class:`AnswerTypeError`, both a ``TypeError`` (this library's convention) and a
``ValueError`` (what the package raises).

Key scores (``return_key_scores=True``): for every dict key path (keys ``str()``-ed), the
mean NLS of that key's value, collected along the chosen matching (list elements keep the key
path, tuples use the chosen option's, unmatched list elements and prediction-only keys with a
``None``-like value give nothing), averaged per path in first-seen order and nested as
:class:`KeyScore` trees:

>>> anls_score({"a": "x", "b": ["y", "z"]}, {"a": "x", "b": ["y"]}, return_key_scores=True)
(0.6666666666666666, {'a': KeyScore(anls_score=1.0, children={}), \
'b': KeyScore(anls_score=0.5, children={})})
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore.core.structured import check_depth
from metricore.text.levenshtein import distance_matrix, normalized_similarity, pair_similarity
from metricore.text.matching import munkres_pairs
from metricore.text.normalize import rrc_normalize

__all__ = [
    "anls_star_score",
    "anls_star_scores",
    "anls_score",
    "AnswerTypeError",
    "KeyScore",
    "StarNode",
    "build_tree",
    "COMPAT_WARNING",
]

_LEAF, _NONE, _TUPLE, _LIST, _DICT = range(5)

#: the package's threshold (``ANLSTree.THRESHOLD``), used by :func:`anls_score`
PACKAGE_THRESHOLD = 0.5

#: the package's warning text for a gold list of str scored against a str
COMPAT_WARNING = (
    "Treating ground truth as a list of options. This is a compatibility mode for ST-VQA-like datasets."
)

_TUPLE_IN_PREDICTION = "Tuples are reserved for 1-of-n ground truths. Use lists as containers in predictions."
_EMPTY_TUPLE = "Expected at least 1 valid ground truth option"

#: a key-score entry: the key path and the mean NLS of its value
KeyEntry = tuple[tuple[str, ...], float]


class AnswerTypeError(TypeError, ValueError):
    """An answer holds a value of a type ANLS* does not take. A ``TypeError`` by this
    library's convention and a ``ValueError`` as ``anls-star`` raises it, so either
    ``except`` clause catches it."""


@dataclass
class KeyScore:
    """Per-key ANLS* (the package's ``ScoreNode``): ``anls_score`` of this key path (``None``
    for a path that only has deeper keys) and the scores of the keys below it."""

    anls_score: float | None = None
    children: dict[str, KeyScore] = field(default_factory=dict)


class StarNode:
    """A validated answer tree: kind, the original object, children and ANLS* length."""

    __slots__ = ("kind", "obj", "norm", "children", "length")

    def __init__(self, kind: int, obj: Any, norm: str = "", children: Any = None, length: int = 1):
        self.kind = kind
        self.obj = obj
        self.norm = norm
        self.children = children
        self.length = length


_NONE_NODE = StarNode(_NONE, None)


class _Invalid(Exception):
    """A bad node deep in an answer tree; :func:`build_tree` adds the path to the message."""

    def __init__(self, error: type[Exception], detail: str) -> None:
        super().__init__(detail)
        self.error, self.detail = error, detail
        self.steps: list[str] = []

    def within(self, step: str) -> _Invalid:
        self.steps.append(step)
        return self


def build_tree(obj: Any, *, is_gold: bool, where: str) -> StarNode:
    """Validate ``obj`` and build its tree; errors name the path (``references[3]['a'][0]``).
    A tree deeper than :data:`metricore.core.structured.MAX_DEPTH` is a ``ValueError`` (the
    walk is recursive)."""
    check_depth(obj, where, "anls")
    try:
        return _build(obj, is_gold)
    except _Invalid as bad:
        path = where + "".join(reversed(bad.steps))
        raise bad.error(f"anls: `{path}` {bad.detail}") from None


def _describe(obj: Any) -> str:
    try:
        return str(obj)
    except Exception:  # an object whose __str__ fails still gets a message
        return object.__repr__(obj)


def _build(obj: Any, is_gold: bool) -> StarNode:
    # The path of a bad node is only worked out when there is one (see _locate): formatting
    # it for every node on the way down cost a fifth of the run.
    if isinstance(obj, str):
        return StarNode(_LEAF, obj, norm=rrc_normalize(obj))
    if isinstance(obj, list):
        try:
            kids = [_build(x, is_gold) for x in obj]
        except _Invalid:
            raise _locate(enumerate(obj), is_gold) from None
        return StarNode(_LIST, obj, children=kids, length=sum(k.length for k in kids))
    if isinstance(obj, dict):
        try:
            kids_d = {k: _build(v, is_gold) for k, v in obj.items()}
        except _Invalid:
            raise _locate(obj.items(), is_gold, keys=True) from None
        return StarNode(_DICT, obj, children=kids_d, length=sum(k.length for k in kids_d.values()))
    if obj is None:
        return _NONE_NODE
    if isinstance(obj, tuple):
        # the package checks "tuple in a prediction" before "empty tuple"
        if not is_gold:
            raise _Invalid(ValueError, f"is a tuple: {_TUPLE_IN_PREDICTION}")
        if not obj:
            raise _Invalid(ValueError, f"is an empty tuple: {_EMPTY_TUPLE}")
        try:
            kids = [_build(x, True) for x in obj]
        except _Invalid:
            raise _locate(enumerate(obj), is_gold) from None
        return StarNode(_TUPLE, obj, children=kids, length=max(k.length for k in kids))
    if isinstance(obj, (float, int, bool)):
        return StarNode(_LEAF, obj, norm=rrc_normalize(str(obj)))
    raise _Invalid(
        AnswerTypeError,
        f"has unsupported type {type(obj).__name__}; ANLS* takes str, int, float, bool, None, list, "
        f"tuple (gold alternatives) and dict (Found unsupported type {type(obj)} for "
        f"{_describe(obj)} while creating ANLS tree)",
    )


def _locate(items: Any, is_gold: bool, keys: bool = False) -> _Invalid:
    """The error of the first bad child, with that child's key added to its path."""
    for key, value in items:
        try:
            _build(value, is_gold)
        except _Invalid as bad:
            return bad.within(f"[{key!r}]" if keys else f"[{key}]")
    raise AssertionError("a child failed once but not when rebuilt")


def _is_noney(value: Any) -> bool:
    # The package tests ``value in (None, {}, [], "")``: equality with an empty dict, list or str.
    return value is None or (isinstance(value, (dict, list, str)) and not value)


def _leaf_score(a: str, b: str, threshold: float) -> float:
    similarity = pair_similarity(a, b)
    return 0.0 if similarity < threshold else similarity


def _mean(leaves: list[float], length: int) -> float:
    # builtin sum in the package's order: a different summation could move a mean by an ulp
    # and with it a Hungarian tie
    return sum(leaves) / length if length > 0 else 1.0


#: what comparing two nodes gives: the leaf scores in the package's order, the pairwise
#: length, the closest gold, and (when asked for) the key-score entries
_Result = tuple[list[float], int, Any, list[KeyEntry]]
_NO_KEYS: list[KeyEntry] = []  # shared, never appended to: the walk only builds new lists


class _Walk:
    """One comparison: the threshold, whether key scores are collected, and where a dict's
    keys sit (``path``)."""

    __slots__ = ("threshold", "keys")

    def __init__(self, threshold: float, keys: bool) -> None:
        self.threshold = threshold
        self.keys = keys

    def compare(self, g: StarNode, p: StarNode, path: tuple[str, ...]) -> _Result:
        kind = g.kind
        if kind == _LEAF:
            if p.kind != _LEAF:
                return [0.0], max(1, p.length), g.obj, _NO_KEYS
            return [_leaf_score(g.norm, p.norm, self.threshold)], 1, g.obj, _NO_KEYS
        if kind == _NONE:
            if _is_noney(p.obj):
                return [1.0], max(1, p.length), p.obj, _NO_KEYS
            return [0.0], max(1, p.length), None, _NO_KEYS
        if kind == _TUPLE:
            best: _Result | None = None
            best_key = (0.0, 0)
            for option in g.children:
                got = self.compare(option, p, path)
                # max() keeps the first of equal keys: only a strictly better one replaces it
                key = (_mean(got[0], got[1]), 1 if got[2] == p.obj else 0)
                if best is None or key > best_key:
                    best, best_key = got, key
            assert best is not None  # build_tree refuses empty tuples
            return best
        if kind == _LIST:
            if p.kind != _LIST:
                return [0.0], max(g.length, p.length), g.obj, _NO_KEYS
            return self.lists(g, p, path)
        if p.kind != _DICT:
            return [0.0], max(g.length, p.length), g.obj, _NO_KEYS
        return self.dicts(g, p, path)

    def dicts(self, g: StarNode, p: StarNode, path: tuple[str, ...]) -> _Result:
        leaves: list[float] = []
        length = 0
        chosen_d: dict[Any, Any] = {}
        entries: list[KeyEntry] = []
        g_kids, p_kids = g.children, p.children
        keys = list(g_kids) + [k for k in p_kids if k not in g_kids]
        for key in keys:
            gv = g_kids.get(key, _NONE_NODE)
            pv = p_kids.get(key, _NONE_NODE)
            sub = path + (str(key),) if self.keys else path
            v_leaves, v_length, v_chosen, v_entries = self.compare(gv, pv, sub)
            length += v_length
            if key not in g_kids and _is_noney(pv.obj):
                continue
            leaves.extend(v_leaves)
            if not (_is_noney(v_chosen) and key not in p_kids):
                chosen_d[key] = v_chosen
            if self.keys:
                entries.extend(v_entries)
                entries.append((sub, _mean(v_leaves, v_length)))
        return leaves, length, chosen_d, entries

    def lists(self, g: StarNode, p: StarNode, path: tuple[str, ...]) -> _Result:
        gk, pk = g.children, p.children
        n, m = len(gk), len(pk)
        if n == 0 or m == 0:
            return [], g.length + p.length, [c.obj for c in gk], _NO_KEYS
        if all(c.kind == _LEAF for c in gk) and all(c.kind == _LEAF for c in pk):
            return self.flat_lists(gk, pk)
        cells = [[self.compare(gc, pc, path) for pc in pk] for gc in gk]
        means = np.array([[_mean(c[0], c[1]) for c in row] for row in cells], dtype=np.float64).reshape(n, m)
        # The package favours exact matches by one ulp to break Hungarian ties.
        exact = np.array([[pc.obj == c[2] for pc, c in zip(pk, row)] for row in cells], dtype=bool).reshape(
            n, m
        )
        means[exact] = np.nextafter(means[exact], np.inf)
        pairs = munkres_pairs(means)
        leaves: list[float] = []
        length = 0
        for r, c in pairs:  # by row, as the package flattens its values
            leaves.extend(cells[r][c][0])
            length += cells[r][c][1]
        matched_rows = {r for r, _ in pairs}
        matched_cols = {c for _, c in pairs}
        length += sum(gk[i].length for i in range(n) if i not in matched_rows)
        length += sum(pk[j].length for j in range(m) if j not in matched_cols)
        by_col = sorted(pairs, key=lambda rc: rc[1])
        closest = [cells[r][c][2] for r, c in by_col]
        closest.extend(gk[i].obj for i in range(n) if i not in matched_rows)
        entries: list[KeyEntry] = _NO_KEYS
        if self.keys:
            entries = [e for r, c in by_col for e in cells[r][c][3]]
        return leaves, length, closest, entries

    def flat_lists(self, gk: list[StarNode], pk: list[StarNode]) -> _Result:
        """Lists of leaves: every pair has length 1 and one leaf score (its mean), so the
        pairwise length is ``max(n, m)``; the matching decides the closest gold."""
        n, m = len(gk), len(pk)
        totals = self.leaf_matrix(gk, pk)
        # The package favours exact matches by one ulp to break Hungarian ties.
        exact = np.array([[pc.obj == gc.obj for pc in pk] for gc in gk], dtype=bool)
        means = totals.copy()
        means[exact] = np.nextafter(means[exact], np.inf)
        if n == 1:
            # one row: munkres's warm start takes the first column of least cost and stops
            # (cost = max - mean, rounded as munkres_pairs rounds it); the closest gold is
            # the one gold element whichever column it takes
            col = int(np.argmin(means[0].max() - means[0]))
            return [float(totals[0, col])], m, [gk[0].obj], _NO_KEYS
        pairs = munkres_pairs(means)
        matched = {r for r, _ in pairs}
        closest = [gk[r].obj for r, _ in sorted(pairs, key=lambda rc: rc[1])]
        closest.extend(gk[i].obj for i in range(n) if i not in matched)
        return [float(totals[r, c]) for r, c in pairs], max(n, m), closest, _NO_KEYS

    def leaf_matrix(self, gk: list[StarNode], pk: list[StarNode]) -> np.ndarray:
        n, m = len(gk), len(pk)
        if n * m < _MATRIX_MIN_PAIRS:
            return np.array(
                [[_leaf_score(gc.norm, pc.norm, self.threshold) for pc in pk] for gc in gk],
                dtype=np.float64,
            ).reshape(n, m)
        dist = distance_matrix([c.norm for c in gk], [c.norm for c in pk]).astype(np.float64)
        longest = np.maximum.outer(
            np.fromiter((len(c.norm) for c in gk), np.int64, n),
            np.fromiter((len(c.norm) for c in pk), np.int64, m),
        ).astype(np.float64)
        totals = normalized_similarity(dist, longest)
        totals[totals < self.threshold] = 0.0
        return totals


#: above this many pairs a flat list's scores come from one C++ distance matrix; below it,
#: NumPy's per-call overhead costs more than scoring the pairs one by one
_MATRIX_MIN_PAIRS = 64


def _is_compat(gold: Any, prediction: Any) -> bool:
    """The package's compatibility mode: a gold list of str against a str prediction."""
    return isinstance(gold, list) and isinstance(prediction, str) and all(isinstance(x, str) for x in gold)


def _score(
    gold: Any, prediction: Any, threshold: float, gold_where: str, pred_where: str, keys: bool
) -> tuple[float, Any, list[KeyEntry]]:
    if _is_compat(gold, prediction):
        if not gold:
            raise ValueError(
                f"anls: `{gold_where}` is an empty list and `{pred_where}` a string: there is no "
                f"gold alternative to compare with ({_EMPTY_TUPLE})"
            )
        gold = tuple(gold)
    g = build_tree(gold, is_gold=True, where=gold_where)
    p = build_tree(prediction, is_gold=False, where=pred_where)
    leaves, length, closest, entries = _Walk(threshold, keys).compare(g, p, ())
    return _mean(leaves, length), closest, entries


def anls_star_score(
    gold: Any, prediction: Any, *, threshold: float = 0.5, where: str = "0"
) -> tuple[float, Any]:
    """ANLS* of one sample and the closest gold structure.

    ``where`` is the sample index used in error messages. A gold list of str against a str
    prediction is read as alternatives, with the package's ``UserWarning``.
    """
    if _is_compat(gold, prediction):
        warnings.warn(COMPAT_WARNING, UserWarning, stacklevel=2)
    score, closest, _ = _score(
        gold, prediction, threshold, f"references[{where}]", f"predictions[{where}]", False
    )
    return score, closest


def anls_star_scores(
    predictions: Sequence[Any], references: Sequence[Any], *, threshold: float = 0.5
) -> tuple[list[float], list[Any]]:
    """ANLS* per sample and the closest gold structures (the batch behind
    ``compute_anls(..., variant="anls_star")``). Rows read in compatibility mode (a gold list
    of str against a str) give one ``UserWarning`` per call, with their count."""
    scores: list[float] = []
    closest: list[Any] = []
    compat = 0
    for i, (p, r) in enumerate(zip(predictions, references)):
        compat += _is_compat(r, p)
        s, c, _ = _score(r, p, threshold, f"references[{i}]", f"predictions[{i}]", False)
        scores.append(s)
        closest.append(c)
    if compat:
        warnings.warn(
            f"{COMPAT_WARNING} ({compat} of {len(scores)} rows have a list of str as gold and a str "
            "as prediction; their gold strings are read as alternatives)",
            UserWarning,
            stacklevel=2,
        )
    return scores, closest


def _key_score_tree(entries: list[KeyEntry]) -> dict[str, KeyScore]:
    """Mean per key path (first-seen order, summed from 0 as the package does), nested."""
    sums: dict[tuple[str, ...], float] = {}
    counts: dict[tuple[str, ...], int] = {}
    for path, value in entries:
        sums[path] = sums.get(path, 0) + value
        counts[path] = counts.get(path, 0) + 1
    tree: dict[str, KeyScore] = {}
    for path, total in sums.items():
        level = tree
        for key in path[:-1]:
            level = level.setdefault(key, KeyScore()).children
        level.setdefault(path[-1], KeyScore()).anls_score = total / counts[path]
    return tree


def anls_score(gt: Any, pred: Any, return_gt: bool = False, return_key_scores: bool = False) -> Any:
    """Drop-in for ``anls_star.anls_score`` (PyPI ``anls-star`` 1.0.1): same arguments, same
    return shapes (``score``; ``(score, closest_gt)``; ``(score, key_scores)``;
    ``(score, closest_gt, key_scores)``), same warning, same exception classes (messages
    carry the package's text and the path, ``gt[...]`` / ``pred[...]``). Key scores are
    :class:`KeyScore` trees where the package has ``ScoreNode``.

    >>> anls_score({"a": ("hello", "world"), "b": ["this", "is", "a", "test"]},
    ...            {"a": "hello!", "b": ["a", "test", "this", "be"]}, return_gt=True)
    (0.7666666666666667, {'a': 'hello', 'b': ['a', 'test', 'this', 'is']})
    """
    if _is_compat(gt, pred):
        warnings.warn(COMPAT_WARNING, UserWarning, stacklevel=2)
    score, closest, entries = _score(gt, pred, PACKAGE_THRESHOLD, "gt", "pred", return_key_scores)
    if return_gt and return_key_scores:
        return score, closest, _key_score_tree(entries)
    if return_gt:
        return score, closest
    if return_key_scores:
        return score, _key_score_tree(entries)
    return score
