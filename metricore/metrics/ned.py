"""1-NED: one minus the normalized edit distance, the scene-text recognition score.

``1-NED = (1/N) sum_i (1 - D(s_i, g_i) / max(|s_i|, |g_i|))`` with ``D`` the Levenshtein
distance, pinned to the ICDAR 2019 ReCTS / ArT rule as coded in clovaai
deep-text-recognition-benchmark ``test.py`` (also the FusionBrain TRitW scorer): an item
where **either** string is empty scores 0 (even when both are), and nothing is normalized.

Options (all off by default, so the default equals the reference):

* ``empty_pair="one"``: both empty scores 1 instead of 0 (one empty still scores 0);
* ``lowercase``: compare ``str.lower()`` forms;
* ``nfkc``: Unicode NFKC first (full-width = half-width, as ReCTS requires);
* several gold strings per item: the best similarity counts.

Variants (frozen :class:`NEDVariant` data over the one implementation):

``icdar2019`` (default)
    The rule above with nothing normalized (case-sensitive, every character counts).
``clovaai``
    deep-text-recognition-benchmark's case-insensitive alphanumeric evaluation (the setting
    its published accuracies use: ``test.py`` ``validation`` lowercases both sides and deletes
    every character outside ``0-9a-z``, as its data loader does for a case-insensitive
    model): ``str.lower()``, then only ``0-9a-z`` kept, then the ICDAR 2019 1-NED; and its
    **word accuracy** beside it, ``accuracy`` = 100 x the share of items whose compared forms
    are equal (any gold; two empty strings are equal, as ``pred == gt`` is in the script).

CER is reported alongside: ``sum_i D(s_i, g_i*) / sum_i |g_i*|`` over the chosen (best) gold
``g_i*``; ``0.0`` when every gold is empty and every prediction too, ``inf`` when every gold
is empty but some prediction is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.grouping import BestPick, group_argmax, group_max
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import check_bool, check_choice, check_pairs, checked_lengths, gold_column
from metricore.text.levenshtein import explain_edits, pair_distances
from metricore.text.normalize import Normalizer, Step

__all__ = [
    "NEDItems",
    "NEDResult",
    "ned_items",
    "ned_result",
    "NEDVariant",
    "NED_VARIANTS",
    "compute_one_minus_ned",
    "explain_ned",
    "EMPTY_PAIR_POLICIES",
]

_METRIC = "one_minus_ned"
EMPTY_PAIR_POLICIES = ("zero", "one")
_DEFAULTS: dict[str, Any] = {"empty_pair": "zero", "lowercase": False, "nfkc": False}


@dataclass(frozen=True)
class NEDVariant:
    """A named bundle of options over the one 1-NED implementation."""

    name: str
    reference: str
    #: normalization applied to both sides before the distance (after the NFKC option)
    steps: tuple[Step, ...]
    #: also report word accuracy (exact match of the compared forms)
    accuracy: bool


NED_VARIANTS: dict[str, NEDVariant] = {
    v.name: v
    for v in (
        NEDVariant(
            "icdar2019",
            "ICDAR 2019 ReCTS/ArT 1-NED as in clovaai/deep-text-recognition-benchmark test.py",
            (),
            False,
        ),
        NEDVariant(
            "clovaai",
            "clovaai/deep-text-recognition-benchmark test.py case-insensitive alphanumeric evaluation "
            "(lower(), only 0-9a-z kept): 1-NED and word accuracy",
            ("lower", "keep_lower_alnum"),
            True,
        ),
    )
}


@dataclass(frozen=True)
class NEDResult(MetricResult):
    """Mean 1-NED, corpus CER, and the per-item statistics they come from."""

    one_minus_ned: float
    cer: float
    scores: list[float]
    distances: list[int]
    reference_lengths: list[int]
    signature: str = field(repr=False)
    #: ``None`` on a result built without its texts (a stream's summary)
    picks: BestPick | None = field(repr=False, compare=False)
    #: the predictions as scored (for :meth:`per_item`)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)
    variant: str = "icdar2019"
    #: ``clovaai``: 100 x the share of exact matches, and 1.0/0.0 per item; else ``None``
    accuracy: float | None = None
    correct: list[float] | None = field(default=None, repr=False)

    METRIC = "one_minus_ned"
    HEADLINE = (
        Headline("one_minus_ned", higher_is_better=True, items="score", mean=True),
        Headline("cer", higher_is_better=False),
        Headline("accuracy", higher_is_better=True, items="correct", mean=True),
    )
    COLUMNS = (("distance", "distances"), ("reference_length", "reference_lengths"), ("correct", "correct"))

    @cached_property
    def closest(self) -> list[str]:
        """Per item, the gold string the score came from (built on first request)."""
        return [] if self.picks is None else self.picks.resolve()

    def item_closest(self) -> list[str] | None:
        return None if self.picks is None else self.closest


@dataclass(frozen=True)
class NEDItems(ItemStats):
    """The per-item statistics 1-NED, CER and word accuracy are computed from
    (:mod:`metricore.core.stream`): each item's 1-NED, the distance to its chosen gold and
    that gold's length, its exact match (``clovaai``), and the texts of its per-item rows."""

    scores: np.ndarray
    distances: np.ndarray
    reference_lengths: np.ndarray
    correct: np.ndarray | None
    variant: str
    options: dict[str, Any]
    picks: BestPick | None = None
    predictions: list[str] | None = None

    TEXT = ("picks", "predictions")
    SHARED = ("variant", "options")
    SPILLS = True


@paused_gc()
def ned_items(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    variant: str = "icdar2019",
    empty_pair: Literal["zero", "one"] = "zero",
    lowercase: bool = False,
    nfkc: bool = False,
) -> NEDItems:
    """Each item's statistics (arguments as :func:`compute_one_minus_ned`, which is
    ``ned_result(ned_items(...))``); an item's numbers depend on that item only."""
    spec = NED_VARIANTS[check_choice(variant, NED_VARIANTS, _METRIC, "variant")]
    check_choice(empty_pair, EMPTY_PAIR_POLICIES, _METRIC, "empty_pair")
    check_bool(lowercase, _METRIC, "lowercase")
    check_bool(nfkc, _METRIC, "nfkc")
    preds, refs = check_pairs(predictions, references, _METRIC)
    pred_len = checked_lengths(preds, _METRIC, "predictions")
    try:  # one gold string per item (the common case): checked and measured in one pass
        gold_len = np.fromiter(map(str.__len__, refs), np.int64, len(refs))
        raw_flat, counts = refs, None
    except TypeError:
        raw_flat, counts = gold_column(refs, _METRIC)
        gold_len = np.fromiter(map(len, raw_flat), np.int64, len(raw_flat))

    steps = _steps(lowercase, nfkc) + spec.steps
    if steps:
        norm = Normalizer(steps)
        flat, npreds = norm.many(raw_flat), norm.many(preds)
        # NFKC and lower() can change lengths
        gold_len = np.fromiter(map(len, flat), np.int64, len(flat))
        pred_len = np.fromiter(map(len, npreds), np.int64, len(npreds))
    else:
        flat, npreds = raw_flat, preds  # read only: no copy needed
    single = counts is None
    rep = npreds if counts is None else np.repeat(np.array(npreds, dtype=object), counts).tolist()

    dist = pair_distances(rep, flat)
    if counts is not None:
        pred_len = np.repeat(pred_len, counts)
    longest = np.maximum(gold_len, pred_len)
    sim = np.divide(dist, longest, out=np.zeros(len(flat)), where=longest != 0)
    sim = 1.0 - sim
    either_empty = (gold_len == 0) | (pred_len == 0)
    sim[either_empty] = 0.0
    if empty_pair == "one":
        sim[longest == 0] = 1.0

    if counts is None:
        best = None
        scores = sim
    else:
        scores = group_max(sim, counts)
        # Among equally good golds, the one with the smallest distance feeds CER.
        best = group_argmax(sim, counts, tiebreak=dist)

    best_dist = dist if best is None else dist[best]
    best_len = gold_len if best is None else gold_len[best]
    correct = None
    if spec.accuracy:
        equal = np.fromiter(map(str.__eq__, rep, flat), dtype=bool, count=len(flat))
        correct = (equal if counts is None else np.maximum.reduceat(equal, _starts(counts))).astype(
            np.float64
        )
    options = {"empty_pair": empty_pair, "lowercase": lowercase, "nfkc": nfkc}
    return NEDItems(
        scores=scores,
        distances=best_dist,
        reference_lengths=best_len,
        correct=correct,
        variant=spec.name,
        options=options,
        picks=BestPick(raw_flat, None if single else best),
        predictions=preds,
    )


def ned_result(items: NEDItems, *, columns: bool = True) -> NEDResult:
    """The result of every item's statistics: the mean 1-NED, the corpus CER of the summed
    distances and gold lengths, the word accuracy. ``columns=False``: without the per-item
    columns (the same headline numbers)."""
    total_len = int(items.reference_lengths.sum())
    total_dist = int(items.distances.sum())
    if total_len:
        cer = total_dist / total_len
    else:
        cer = 0.0 if total_dist == 0 else float("inf")
    correct = items.correct
    return NEDResult(
        one_minus_ned=float(items.scores.mean()),
        cer=cer,
        scores=items.scores.tolist() if columns else [],
        distances=items.distances.tolist() if columns else [],
        reference_lengths=items.reference_lengths.tolist() if columns else [],
        signature=build_signature(
            "one_minus_ned", None if items.variant == "icdar2019" else items.variant, items.options, _DEFAULTS
        ),
        picks=items.picks if columns else None,
        predictions=(items.predictions or []) if columns else [],
        variant=items.variant,
        accuracy=None if correct is None else 100.0 * float(correct.mean()),
        correct=None if correct is None else (correct.tolist() if columns else []),
    )


def compute_one_minus_ned(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    variant: str = "icdar2019",
    empty_pair: Literal["zero", "one"] = "zero",
    lowercase: bool = False,
    nfkc: bool = False,
) -> NEDResult:
    """Score recognised text against gold text.

    Args:
        predictions: one recognised string per item.
        references: per item, the gold string or a list of acceptable gold strings.
        variant: ``"icdar2019"`` (default) or ``"clovaai"`` (case-insensitive alphanumeric,
            with word accuracy); see :data:`NED_VARIANTS`.
        empty_pair: score of an item whose prediction and gold are both empty: ``"zero"``
            (ICDAR 2019, default) or ``"one"``.
        lowercase: compare case-insensitively.
        nfkc: apply Unicode NFKC before comparing.

    >>> r = compute_one_minus_ned(["kitten", "abc"], ["sitting", "abd"])
    >>> round(r.one_minus_ned, 4), round(r.cer, 4)
    (0.619, 0.4)
    >>> r = compute_one_minus_ned(["Hello!", "w0rld"], ["HELLO", "world"], variant="clovaai")
    >>> r.accuracy, r.correct, round(r.one_minus_ned, 4)
    (50.0, [1.0, 0.0], 0.9)
    """
    return ned_result(
        ned_items(
            predictions, references, variant=variant, empty_pair=empty_pair, lowercase=lowercase, nfkc=nfkc
        )
    )


def _starts(counts: np.ndarray) -> np.ndarray:
    """Start offset of each item's golds in the flat column (every count is >= 1)."""
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp)


def _steps(lowercase: bool, nfkc: bool) -> tuple[Step, ...]:
    """The normalization steps of the options: NFKC first, then lowercasing."""
    nfkc_step: tuple[Step, ...] = ("nfkc",) if nfkc else ()
    lower_step: tuple[Step, ...] = ("lower",) if lowercase else ()
    return nfkc_step + lower_step


def explain_ned(
    predictions: Sequence[str],
    result: NEDResult,
    *,
    empty_pair: str = "zero",
    lowercase: bool = False,
    nfkc: bool = False,
) -> list[str]:
    """Why each item scored what it did (the Spaces' *why* column): the edits between the
    compared forms of the prediction and its closest gold, or the empty-string rule."""
    norm = Normalizer(_steps(lowercase, nfkc) + NED_VARIANTS[result.variant].steps)
    out = []
    for raw_p, raw_g, s in zip(predictions, result.closest, result.scores):
        p, g = norm(raw_p), norm(raw_g)
        if p and g:
            out.append(explain_edits(p, g))
        elif p == g:
            out.append(f"both empty → {s:g} (empty_pair={empty_pair})")
        else:
            out.append("one side empty → 0 (ICDAR 2019)")
    return out
