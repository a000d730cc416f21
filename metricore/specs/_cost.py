"""Request costs for the Spaces' work budget, in microseconds of CPU of a scoring worker.

An estimate covers the whole job a Space runs for a request: scoring, the headline and the
per-sample table with its *why* texts (:func:`bootstrap_cost` adds an interval). It is a sum
of features of the request that follow the shape of the algorithm (rows, gold alternatives,
characters, words, words never seen in the request before, prediction x gold products of
characters or words, repeated words a METEOR 1.5 alignment must choose between, the node
pairs of an ANLS* comparison, ...) times coefficients kept per metric, config and path in
:data:`COEFFICIENTS`. The coefficients are fitted by ``benchmarks/bench_space_cost.py --fit``
(the smallest largest ratio over a sweep of every config at small, medium and limit sizes,
with the requests that broke the previous constants) and published with the measurements in
``benchmarks/space_cost_calibration.md``, where estimate / measured CPU is within [0.5, 2] on
every point; ``tests/spaces/test_space_cost_model.py`` holds the model to that table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = [
    "COEFFICIENTS",
    "WORD_CACHE",
    "calibrated",
    "array_shape",
    "bootstrap_cost",
    "describe",
    "estimate",
    "meteor15_backend",
    "meteor15_cost",
    "meteor15_path",
    "recording",
    "size",
    "structure_features",
    "text_features",
    "token_cost",
]

_ITEM_OVERHEAD = 2.0
#: words the word caches of a process keep (stems, synonym sets, lemmas:
#: :class:`metricore.core.bounded.BoundedCache` of 100,000 entries, cleared when full); past
#: it, a word met again (the explanations meet every word a second time) is looked up again
WORD_CACHE = 100_000


def array_shape(value: Any) -> tuple[int, int]:
    """(rows, longest row) of a list of lists or a per-id dict of lists (0, 0 for anything
    else), without walking the numbers."""
    rows = list(value.values()) if isinstance(value, Mapping) else value
    if not isinstance(rows, (list, tuple)) or not rows:
        return 0, 0
    return len(rows), max((len(r) for r in rows if isinstance(r, (list, tuple))), default=0)


def size(value: Any) -> tuple[int, int, int]:
    """(characters, leaves, longest list) of a JSON-like value, iteratively (no recursion limit)."""
    chars = leaves = longest = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            chars += len(v)
            leaves += 1
        elif isinstance(v, Mapping):
            stack.extend(v.values())
            chars += sum(len(str(k)) for k in v)
        elif isinstance(v, (list, tuple)):
            longest = max(longest, len(v))
            stack.extend(v)
        else:
            chars += 8
            leaves += 1
    return chars, leaves, longest


def describe(predictions: Sequence[Any], references: Sequence[Any]) -> str:
    """The size of a request in words (rows, characters, references per row, longest list),
    for a refusal message."""
    chars = longest = most_refs = 0
    for p, r in zip(predictions, references):
        pc, _, plong = size(p)
        rc, _, rlong = size(r)
        chars += pc + rc
        longest = max(longest, plong, rlong if not isinstance(r, (list, tuple)) else 0)
        if isinstance(r, (list, tuple)):
            most_refs = max(most_refs, len(r))
            longest = max(longest, max((size(x)[2] for x in r), default=0))
    text = f"{max(len(predictions), len(references)):,} rows, {chars:,} characters"
    if most_refs > 1:
        text += f", up to {most_refs:,} references per row"
    if longest > 1:
        text += f", lists of up to {longest:,} items"
    return text


# ----------------------------------------------------------------------------- text features


def _strings(value: Any) -> list[str]:
    """The strings of a JSON-like value (a SQuAD record's, a dialog turn's), iteratively."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Mapping):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
    return out


def _text(value: Any) -> str:
    """One text of a prediction or of one gold: a string, or the strings of a token list or a
    record joined by spaces."""
    return value if isinstance(value, str) else " ".join(_strings(value))


def _golds(reference: Any) -> list[str]:
    """The gold texts of a reference: a string, each item of a list (a token list of a gold
    counts as one text), or the strings of a record."""
    if isinstance(reference, str):
        return [reference]
    if isinstance(reference, (list, tuple)):
        return [_text(g) for g in reference] or [""]
    return [_text(reference)]


def text_features(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    words: bool = False,
    repeats: bool = False,
) -> dict[str, float]:
    """Counts of a request of texts: ``rows``, ``golds`` (gold alternatives), ``chars``
    (prediction and golds), ``char_pairs`` (sum over golds of (prediction chars + 1) x (gold
    chars + 1), an edit distance's cells), ``row_char_pairs`` (the same with the longest gold
    of each row only: an explanation of the best gold); with ``words``: ``words`` (split on
    white space), ``word_pairs`` and ``row_word_pairs`` (the same products of words: an
    alignment's pairs), ``unique`` (distinct lower-cased words of the request: stems,
    synonyms and lemmas are looked up once each) and ``unique_past_cache`` (those beyond
    :data:`WORD_CACHE`: looked up again);
    with ``repeats``: ``repeats``, over prediction-gold pairs, each shared word's count in the
    prediction times its count in the gold less the smaller count (the candidate matches a
    METEOR 1.5 alignment search chooses between, beyond the pairs a one-to-one match fixes)."""
    f = dict.fromkeys(("request", "rows", "golds", "chars", "char_pairs", "row_char_pairs"), 0.0)
    f["request"] = 1.0
    if words:
        f.update(words=0.0, word_pairs=0.0, row_word_pairs=0.0, unique=0.0, unique_past_cache=0.0)
    if repeats:
        f["repeats"] = 0.0
    seen: set[str] = set()
    for p, r in zip(predictions, references):
        pred, golds = _text(p), _golds(r)
        f["rows"] += 1
        f["golds"] += len(golds)
        pc = len(pred)
        f["chars"] += pc + sum(map(len, golds))
        f["char_pairs"] += (pc + 1) * sum(len(g) + 1 for g in golds)
        f["row_char_pairs"] += (pc + 1) * (max(map(len, golds)) + 1)
        if not words:
            continue
        pw = pred.casefold().split()
        seen.update(pw)
        gws = [g.casefold().split() for g in golds]
        f["words"] += len(pw) + sum(map(len, gws))
        f["word_pairs"] += (len(pw) + 1) * sum(len(g) + 1 for g in gws)
        f["row_word_pairs"] += (len(pw) + 1) * (max(map(len, gws)) + 1)
        for g in gws:
            seen.update(g)
        if repeats and pw:
            counts = Counter(pw)
            for g in gws:
                gold = Counter(g)
                small, large = (counts, gold) if len(counts) <= len(gold) else (gold, counts)
                # a word once on each side is no choice: only the surplus widens the search
                f["repeats"] += sum(n * large[w] - min(n, large[w]) for w, n in small.items() if w in large)
    if words:
        f["unique"] = float(len(seen))
        f["unique_past_cache"] = float(max(0, len(seen) - WORD_CACHE))
    return f


# ----------------------------------------------------------------------------- structure features

#: list pairs compared in full by :func:`structure_features`; larger products are sampled
_SAMPLE = 12


def _leaf_text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _is_container(value: Any) -> bool:
    return isinstance(value, (list, tuple, Mapping))


def _spread(n: int) -> list[int]:
    """At most :data:`_SAMPLE` indices spread evenly over ``range(n)``."""
    if n <= _SAMPLE:
        return list(range(n))
    return sorted({round(i * (n - 1) / (_SAMPLE - 1)) for i in range(_SAMPLE)})


def _compare(g: Any, p: Any, f: dict[str, float], weight: float, depth: int) -> None:
    """Add ``weight`` times the work of an ANLS* comparison of gold ``g`` with prediction
    ``p`` to ``f`` (it follows :class:`metricore.metrics.anls_star._Walk`)."""
    f["nodes"] += weight
    if depth > 200:
        return
    if isinstance(g, tuple):  # alternatives: each compared with the prediction
        for option in g:
            _compare(option, p, f, weight, depth + 1)
    elif isinstance(g, list):
        if not isinstance(p, (list, tuple)) or not g or not p:
            return
        n, m = len(g), len(p)
        f["lists"] += weight
        f["assign"] += weight * n * m * min(n, m)
        if not any(map(_is_container, g)) and not any(map(_is_container, p)):
            f["leaf_pairs"] += weight * n * m
            f["leaf_chars"] += (
                weight * sum(len(_leaf_text(x)) for x in g) * sum(len(_leaf_text(x)) for x in p)
            )
            return
        rows, cols = _spread(n), _spread(m)
        scale = weight * n * m / (len(rows) * len(cols))
        for i in rows:
            for j in cols:
                _compare(g[i], p[j], f, scale, depth + 1)
    elif isinstance(g, Mapping):
        if not isinstance(p, Mapping):
            return
        for key in {**g, **p}:
            _compare(g.get(key), p.get(key), f, weight, depth + 1)
    else:
        f["leaf_pairs"] += weight
        if not _is_container(p):
            f["leaf_chars"] += weight * len(_leaf_text(g)) * len(_leaf_text(p))


def structure_features(predictions: Sequence[Any], references: Sequence[Any]) -> dict[str, float]:
    """Counts of an ANLS*/DUDE request: ``rows``, ``chars`` (all strings, read and normalised
    once), ``nodes`` (comparisons of two values: the tree walk), ``lists`` (comparisons of two
    lists: a score matrix and an assignment each), ``leaf_pairs`` (string pairs scored),
    ``leaf_chars`` (their character products: the edit distances) and ``assign``
    (n x m x min(n, m) of every list pair: the assignment's steps). Products of lists holding
    containers are estimated from at most 12 x 12 of their element pairs, so the estimate
    stays cheap whatever the request."""
    f = dict.fromkeys(
        ("request", "rows", "chars", "nodes", "lists", "leaf_pairs", "leaf_chars", "assign"), 0.0
    )
    f["request"] = 1.0
    for p, r in zip(predictions, references):
        f["rows"] += 1
        f["chars"] += size(p)[0] + size(r)[0]
        if isinstance(r, Mapping) and "answers" in r:  # a DUDE gold
            r = r["answers"]
        _compare(r, p, f, 1.0, 0)
    return f


# ----------------------------------------------------------------------------- the model

#: ``{key: {feature: microseconds per unit}}``: ``key`` is ``metric/config`` (and a path or
#: an option value that changes the work, see each spec's ``_cost``); fitted by
#: ``benchmarks/bench_space_cost.py --fit``
COEFFICIENTS: dict[str, dict[str, float]] = {
    "anls/anls_star": {
        "assign": 7.16e-05,
        "chars": 0.0771,
        "leaf_chars": 3.44e-07,
        "leaf_pairs": 0.09,
        "lists": 18.4,
        "nodes": 1.02,
        "request": 11200.0,
    },
    "anls/docvqa": {
        "char_pairs": 2.64e-05,
        "chars": 0.0173,
        "golds": 0.493,
        "request": 2120.0,
        "row_char_pairs": 0.000122,
        "rows": 8.54,
    },
    "anls/dude": {
        "assign": 7.29e-05,
        "leaf_pairs": 0.0636,
        "lists": 47.6,
        "nodes": 15.4,
    },
    "anls/stvqa_paper": {
        "char_pairs": 2.68e-05,
        "chars": 0.0365,
        "request": 2200.0,
        "row_char_pairs": 9.25e-05,
        "rows": 5.25,
    },
    "bootstrap": {
        "golds": 4.1,
        "rows": 7.35,
    },
    "bootstrap/cider": {
        "char_pairs": 0.000707,
        "request": 67800.0,
    },
    "challenge_score": {
        "fid_covariance_eig": 3.94e-05,
        "fid_gram_product": 1.98e-05,
        "fid_gram_svd": 5.11e-05,
        "numbers": 0.0383,
        "request": 4810.0,
    },
    "challenge_score/meteor/fbc2_captioning": {
        "char_pairs": 0.00113,
        "request": 7610.0,
        "unique": 35.2,
    },
    "challenge_score/meteor/fbc2_vqa": {
        "golds": 123.0,
        "unique": 15.6,
    },
    "challenge_score/one_minus_ned/icdar2019": {
        "char_pairs": 3.5e-05,
        "unique": 0.0588,
    },
    "challenge_score/token_f1/fbc2_mathqa": {
        "row_word_pairs": 0.809,
        "rows": 521.0,
    },
    "challenge_score/token_f1/fbc2_textqa": {
        "unique": 21.7,
    },
    "cider/cider": {
        "chars": 1.38,
        "request": 6230.0,
        "unique": 0.175,
        "word_pairs": 0.00199,
    },
    "cider/cider_d": {
        "chars": 1.26,
        "request": 6170.0,
        "unique": 5.29,
        "unique_past_cache": 2.32,
        "word_pairs": 0.00143,
    },
    "coco_caption/bleu": {
        "request": 3430.0,
        "row_word_pairs": 0.137,
        "rows": 101.0,
        "unique": 2.68,
    },
    "coco_caption/coco": {
        "golds": 34.2,
        "request": 2830.0,
        "row_char_pairs": 0.00896,
        "unique": 0.557,
    },
    "coco_caption/rouge_l": {
        "request": 2680.0,
        "row_word_pairs": 0.0507,
        "rows": 55.6,
        "unique": 2.27,
    },
    "meteor/fbc2_captioning": {
        "request": 4780.0,
        "row_word_pairs": 0.559,
        "rows": 1970.0,
        "words": 14.2,
    },
    "meteor/fbc2_vqa": {
        "golds": 552.0,
        "request": 11300.0,
        "row_char_pairs": 0.0601,
        "rows": 32.3,
    },
    "meteor/meteor_1_5/compiled": {
        "char_pairs": 0.00198,
        "repeats": 0.214,
        "request": 8250.0,
        "rows": 51.5,
        "unique": 17.2,
        "unique_past_cache": 17.5,
        "words": 2.55,
    },
    "meteor/meteor_1_5/python": {
        "char_pairs": 0.0207,
        "golds": 7.85,
        "repeats": 28.1,
        "request": 8180.0,
        "unique": 11.7,
        "unique_past_cache": 6.05,
        "words": 5.1,
    },
    "meteor/nltk": {
        "chars": 0.227,
        "request": 10200.0,
        "row_word_pairs": 0.039,
        "rows": 795.0,
        "unique": 13.3,
        "unique_past_cache": 28.3,
    },
    "one_minus_ned/clovaai": {
        "char_pairs": 5.74e-05,
        "chars": 0.0264,
        "request": 2110.0,
        "row_char_pairs": 7.38e-05,
        "rows": 7.26,
    },
    "one_minus_ned/icdar2019": {
        "char_pairs": 2.23e-05,
        "chars": 0.0272,
        "golds": 0.117,
        "request": 1920.0,
        "row_char_pairs": 0.000103,
        "rows": 4.8,
    },
    "token_f1/fbc2_mathqa": {
        "chars": 0.126,
        "golds": 17.2,
        "request": 2040.0,
        "row_word_pairs": 0.011,
        "unique": 22.7,
    },
    "token_f1/fbc2_textqa": {
        "chars": 0.0725,
        "golds": 15.1,
        "request": 1910.0,
        "row_word_pairs": 0.0117,
        "unique": 24.1,
    },
    "token_f1/mlqa": {
        "golds": 2.23,
        "request": 1680.0,
        "row_word_pairs": 0.00838,
        "rows": 9.63,
        "words": 0.261,
    },
    "token_f1/quac": {
        "char_pairs": 0.000245,
        "request": 128.0,
        "row_word_pairs": 0.00255,
        "rows": 50.8,
    },
    "token_f1/question_level": {
        "golds": 5.05,
        "request": 2460.0,
        "rows": 19.8,
    },
    "token_f1/squad": {
        "golds": 1.02,
        "request": 1800.0,
        "row_word_pairs": 0.00839,
        "rows": 12.7,
        "words": 0.292,
    },
    "token_f1/squad_v2": {
        "golds": 4.9,
        "request": 2870.0,
        "row_word_pairs": 0.00917,
        "rows": 10.4,
        "words": 0.242,
    },
}


_RECORD: ContextVar[list[tuple[str, dict[str, float]]] | None] = ContextVar("cost_record", default=None)


def estimate(key: str, features: Mapping[str, float]) -> float:
    """The work of a request of ``features`` under the coefficients of ``key`` (inside
    :func:`recording`, the call is also recorded, and a key without coefficients counts 0)."""
    record = _RECORD.get()
    if record is not None:
        record.append((key, dict(features)))
    coefficients = COEFFICIENTS.get(key)
    if coefficients is None:
        if record is not None:
            return 0.0
        # not a LookupError: the Spaces take those for a malformed request, which the metric names
        raise RuntimeError(f"no cost coefficients for {key!r}: calibrate with benchmarks/bench_space_cost.py")
    return sum(c * features.get(name, 0.0) for name, c in coefficients.items())


@contextmanager
def recording() -> Iterator[list[tuple[str, dict[str, float]]]]:
    """Collect the ``(key, features)`` of every :func:`estimate` made inside the block: the
    terms an estimate is made of, for fitting the coefficients."""
    calls: list[tuple[str, dict[str, float]]] = []
    token = _RECORD.set(calls)
    try:
        yield calls
    finally:
        _RECORD.reset(token)


def calibrated(key: str) -> bool:
    """Whether ``key`` has coefficients (inside :func:`recording`: always, to be fitted)."""
    return key in COEFFICIENTS or _RECORD.get() is not None


def meteor15_backend() -> tuple[str, str]:
    """``("compiled" | "python", why)``: the METEOR 1.5 path the next call runs
    (:func:`metricore.metrics.meteor15.backend` where it exists)."""
    from metricore.metrics.meteor15 import backend

    name, why = backend()
    return str(name), str(why)


def meteor15_path() -> str:
    """``"compiled"`` or ``"python"``: the METEOR 1.5 path the next call runs."""
    return meteor15_backend()[0]


def meteor15_cost(predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """METEOR 1.5's work on the path that runs (``meteor/meteor_1_5/compiled`` or
    ``/python``)."""
    return estimate(
        f"meteor/meteor_1_5/{meteor15_path()}",
        text_features(predictions, references, words=True, repeats=True),
    )


# ----------------------------------------------------------------------------- shared helpers


def token_cost(
    predictions: Sequence[Any],
    references: Sequence[Any],
    per_pair: float = 0.0,
    *,
    per_word: float = 0.0,
    per_char: float = 0.0,
) -> float:
    """A generic estimate for a new metric of tokenized texts (``metricore new-metric``): per
    row, per word and character of the prediction and of each gold, and ``per_pair`` for each
    prediction-word x gold-word pair."""
    f = text_features(predictions, references, words=True)
    return (
        5 * _ITEM_OVERHEAD * f["rows"]
        + per_word * f["words"]
        + per_char * f["chars"]
        + per_pair * f["word_pairs"]
    )


def bootstrap_cost(name: str, config: str, predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """Extra work of a 1,000-resample bootstrap interval: a vectorised pass over per-item
    statistics for most metrics (``bootstrap``); CIDEr (alone or in the COCO table) recomputes
    its document frequencies per resample (``bootstrap/cider``)."""
    cider = name == "cider" or (name == "coco_caption" and config == "coco")
    features = text_features(predictions, references, words=cider)
    return estimate("bootstrap/cider" if cider else "bootstrap", features)
