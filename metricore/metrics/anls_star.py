"""ANLS* for structured answers (Peer et al. 2024, arXiv 2402.03848).

Pinned to PyPI ``anls-star`` 1.0.1 (``anls_star.anls_score(gt, pred)``): this module is an
independent, faster implementation of the same rules, tested for parity against the package.

Rules (``G`` gold, ``P`` prediction):

* leaves (``str``, ``int``, ``float``, ``bool``) are ``str()``-ed and RRC-normalized
  (strip, lower, collapse whitespace); ``NLS = 1 - LD / max(len)`` on the normalized strings,
  ``0`` when below the threshold; a leaf against a non-leaf scores ``0``;
* ``None`` in ``G`` matches ``None``, ``""``, ``[]`` and ``{}`` in ``P``;
* a tuple in ``G`` holds alternatives: the best (highest mean, then equal to ``P``) is used;
  tuples are not allowed in ``P``;
* lists are matched element to element with the Hungarian method on the mean score of each
  pair (exact matches win ties); unmatched elements on either side add their length to the
  divisor. When elements differ in length (nested lists, dicts, empty containers), matchings
  that tie on the means can give different scores, so such lists are matched with the
  package's own solver (``munkres`` on ``max - mean``) to pick the same matching; flat lists,
  where every optimal matching gives the same score, use SciPy;
* dicts are compared on the union of keys (a missing key is ``None``); a key that only ``P``
  has with a ``None``-like value adds nothing to the numerator **but still one to the
  divisor** (the package's ``pairwise_len`` counts every key of the union);
* the score is ``sum of matched leaf scores / pairwise length`` (``1.0`` when the length is 0).

A gold list of strings scored against a single string prediction is read as alternatives
(the package's compatibility mode for VQA-style data).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metricore.core.structured import check_depth
from metricore.text.levenshtein import distance_matrix, normalized_similarity, pair_similarity
from metricore.text.matching import max_weight_matching, munkres_matching
from metricore.text.normalize import rrc_normalize

__all__ = ["anls_star_score", "StarNode", "build_tree"]

_LEAF, _NONE, _TUPLE, _LIST, _DICT = range(5)


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

    def __init__(self, error: type[Exception], message: str) -> None:
        super().__init__(message)
        self.error, self.message = error, message
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
        raise bad.error(bad.message.format(where=path)) from None


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
        if not is_gold:
            raise _Invalid(
                TypeError,
                "anls: `{where}` is a tuple; tuples mark alternative gold answers and are not "
                "allowed in predictions (use a list)",
            )
        if not obj:
            raise _Invalid(ValueError, "anls: `{where}` is an empty tuple: no alternative to compare with")
        try:
            kids = [_build(x, True) for x in obj]
        except _Invalid:
            raise _locate(enumerate(obj), is_gold) from None
        return StarNode(_TUPLE, obj, children=kids, length=max(k.length for k in kids))
    if isinstance(obj, (float, int, bool)):
        return StarNode(_LEAF, obj, norm=rrc_normalize(str(obj)))
    raise _Invalid(
        TypeError,
        f"anls: `{{where}}` has unsupported type {type(obj).__name__}; ANLS* takes str, int, "
        "float, bool, None, list, tuple (gold alternatives) and dict",
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


def _compare(g: StarNode, p: StarNode, threshold: float) -> tuple[float, int, Any]:
    """(sum of leaf scores, pairwise length, closest gold) of gold node ``g`` vs ``p``."""
    kind = g.kind
    if kind == _LEAF:
        if p.kind != _LEAF:
            return 0.0, max(1, p.length), g.obj
        return _leaf_score(g.norm, p.norm, threshold), 1, g.obj
    if kind == _NONE:
        if _is_noney(p.obj):
            return 1.0, max(1, p.length), p.obj
        return 0.0, max(1, p.length), None
    if kind == _TUPLE:
        best: tuple[float, int, Any] | None = None
        best_key: tuple[float, int] = (0.0, 0)
        for option in g.children:
            total, length, chosen = _compare(option, p, threshold)
            key = (total / length if length > 0 else 1.0, 1 if chosen == p.obj else 0)
            if best is None or key > best_key:
                best, best_key = (total, length, chosen), key
        assert best is not None  # build_tree refuses empty tuples
        return best
    if kind == _LIST:
        if p.kind != _LIST:
            return 0.0, max(g.length, p.length), g.obj
        return _compare_lists(g, p, threshold)
    # dict
    if p.kind != _DICT:
        return 0.0, max(g.length, p.length), g.obj
    total = 0.0
    length = 0
    chosen_d: dict[Any, Any] = {}
    g_kids, p_kids = g.children, p.children
    keys = list(g_kids) + [k for k in p_kids if k not in g_kids]
    for key in keys:
        gv = g_kids.get(key, _NONE_NODE)
        pv = p_kids.get(key, _NONE_NODE)
        v_total, v_length, v_chosen = _compare(gv, pv, threshold)
        length += v_length
        if key not in g_kids and _is_noney(pv.obj):
            continue
        total += v_total
        if not (_is_noney(v_chosen) and key not in p_kids):
            chosen_d[key] = v_chosen
    return total, length, chosen_d


def _compare_lists(g: StarNode, p: StarNode, threshold: float) -> tuple[float, int, Any]:
    gk, pk = g.children, p.children
    n, m = len(gk), len(pk)
    if n == 0 or m == 0:
        return 0.0, g.length + p.length, [c.obj for c in gk]
    if all(c.kind == _LEAF for c in gk) and all(c.kind == _LEAF for c in pk):
        return _compare_flat_lists(gk, pk, threshold)
    totals = np.empty((n, m), dtype=np.float64)
    lengths = np.empty((n, m), dtype=np.int64)
    chosen: list[list[Any]] = [[None] * m for _ in range(n)]
    for i, gc in enumerate(gk):
        for j, pc in enumerate(pk):
            totals[i, j], lengths[i, j], chosen[i][j] = _compare(gc, pc, threshold)
    means = np.divide(totals, lengths, out=np.ones_like(totals), where=lengths > 0)
    # The package favours exact matches by one ulp to break Hungarian ties.
    p_objs = [c.obj for c in pk]
    exact = np.array([[po == co for po, co in zip(p_objs, row)] for row in chosen], dtype=bool)
    means[exact] = np.nextafter(means[exact], np.inf)
    flat = bool((lengths == 1).all()) and all(c.length == 1 for c in gk) and all(c.length == 1 for c in pk)
    if n == 1 and m == 1:  # what either solver returns, without the call
        rows = cols = np.zeros(1, dtype=np.intp)
    else:
        rows, cols = max_weight_matching(means) if flat else munkres_matching(means)
    total = float(totals[rows, cols].sum())
    length = int(lengths[rows, cols].sum())
    matched_rows = set(rows.tolist())
    matched_cols = set(cols.tolist())
    length += sum(gk[i].length for i in range(n) if i not in matched_rows)
    length += sum(pk[j].length for j in range(m) if j not in matched_cols)
    order = np.argsort(cols, kind="stable")
    closest = [chosen[int(rows[k])][int(cols[k])] for k in order]
    closest.extend(gk[i].obj for i in range(n) if i not in matched_rows)
    return total, length, closest


#: above this many pairs a flat list's scores come from one C++ distance matrix; below it,
#: NumPy's per-call overhead costs more than scoring the pairs one by one
_MATRIX_MIN_PAIRS = 64


def _compare_flat_lists(gk: list[StarNode], pk: list[StarNode], threshold: float) -> tuple[float, int, Any]:
    """Lists of leaves: every pair has length 1, so any optimal matching gives the same total
    (SciPy's solver is used) and the pairwise length is ``max(n, m)``."""
    n, m = len(gk), len(pk)
    if n * m >= _MATRIX_MIN_PAIRS:
        dist = distance_matrix([c.norm for c in gk], [c.norm for c in pk]).astype(np.float64)
        longest = np.maximum.outer(
            np.fromiter((len(c.norm) for c in gk), np.int64, n),
            np.fromiter((len(c.norm) for c in pk), np.int64, m),
        ).astype(np.float64)
        totals = normalized_similarity(dist, longest)
        totals[totals < threshold] = 0.0
    else:
        totals = np.array([[_leaf_score(gc.norm, pc.norm, threshold) for pc in pk] for gc in gk])
    # The package favours exact matches by one ulp to break Hungarian ties.
    exact = np.array([[pc.obj == gc.obj for pc in pk] for gc in gk], dtype=bool)
    means = totals.copy()
    means[exact] = np.nextafter(means[exact], np.inf)
    if n == 1:
        # one gold element: it matches the best prediction element; the closest gold is
        # that element whichever prediction it matched
        return float(totals[0, int(np.argmax(means[0]))]), m, [gk[0].obj]
    rows, cols = max_weight_matching(means)
    matched = set(rows.tolist())
    closest = [gk[r].obj for r in rows[np.argsort(cols, kind="stable")].tolist()]
    closest.extend(gk[i].obj for i in range(n) if i not in matched)
    return float(totals[rows, cols].sum()), max(n, m), closest


def anls_star_score(
    gold: Any, prediction: Any, *, threshold: float = 0.5, where: str = "0"
) -> tuple[float, Any]:
    """ANLS* of one sample and the closest gold structure.

    ``where`` is the sample index used in error messages.
    """
    if isinstance(gold, list) and isinstance(prediction, str) and all(isinstance(x, str) for x in gold):
        if not gold:
            raise ValueError(
                f"anls: `references[{where}]` is an empty list and `predictions[{where}]` a "
                "string: there is no gold alternative to compare with"
            )
        gold = tuple(gold)
    g = build_tree(gold, is_gold=True, where=f"references[{where}]")
    p = build_tree(prediction, is_gold=False, where=f"predictions[{where}]")
    total, length, closest = _compare(g, p, threshold)
    return (total / length if length > 0 else 1.0), closest
