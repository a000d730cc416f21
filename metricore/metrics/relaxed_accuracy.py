"""Relaxed accuracy (ChartQA, PlotQA): numbers within a relative tolerance, text exactly.

Pinned to google-research/pix2struct ``pix2struct/metrics.py``: ``relaxed_correctness(target,
prediction, max_relative_change=0.05)`` for one (gold, prediction) pair, and the best gold of
each question counting, as ``aggregate_metrics`` takes ``max`` over a question's targets (and
as ChartQA harnesses score several golds). Per pair, with ``number(text)`` =
``float(text.rstrip("%")) / 100`` when ``text`` ends with ``%``, else ``float(text)``, and
``None`` when ``float`` refuses it (Python's ``float``: surrounding whitespace, ``"1e3"``,
``"1_000"``, ``"inf"`` and ``"nan"`` are numbers; ``"1,000"`` and ``"$5"`` are not):

* when the prediction is a number and the gold is a number **other than 0**:
  correct iff ``abs(p - g) / abs(g) <= max_relative_change`` (``"10.4"`` for ``"10"``: yes;
  ``"10.6"``: no; a trailing ``%`` reads as a fraction, so ``"12.5%"`` matches ``"0.125"``;
  ``nan`` and ``inf`` golds never match, as the comparisons with NaN are false);
* otherwise (either is not a number, or the gold is ``0``, ``"0.0"``, ``"-0"`` or ``"0%"``,
  whose ``float`` is falsy): correct iff ``prediction.lower() == gold.lower()``, so a gold
  ``"0"`` accepts ``"0"`` only, not ``"0.0"``.

A question scores 1 when any gold is correct, else 0; relaxed accuracy is the mean (a
fraction; pix2struct multiplies by 100). ``closest`` is the first correct gold (else the
first gold).

Options give the variants copies use (the metric card has the table):

``swapped``
    call ``relaxed_correctness(prediction, gold)``, as Qwen-VL's ``eval_mm/evaluate_vqa.py``
    ``evaluate_relaxed_accuracy`` (and InternVL's copy) do: the tolerance is relative to the
    prediction, and a prediction of 0 is compared as text.
``strip``
    ``str.strip()`` the prediction first (Qwen-VL's ``elem['answer'].strip()``).
``lowercase`` (default true)
    false: the text comparison keeps case (``==``).
``number_commas``
    read ``"1,234.5"`` as a number: commas are deleted before ``float`` (the text comparison
    still sees them).

Degenerate cases: an empty prediction list, a question without golds, a non-str value and
a negative or NaN tolerance raise ``ValueError``/``TypeError`` naming the argument and row.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.distinct import distinct
from metricore.core.grouping import BestPick, group_argmax, group_max
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    check_bool,
    check_choice,
    check_number,
    check_pairs,
    check_strings,
    gold_column,
)

__all__ = [
    "DEFAULT_MAX_RELATIVE_CHANGE",
    "RELAXED_VARIANTS",
    "RelaxedAccuracyResult",
    "RelaxedItems",
    "RelaxedVariant",
    "compute_relaxed_accuracy",
    "explain_relaxed_accuracy",
    "relaxed_items",
    "relaxed_number",
    "relaxed_result",
]

_METRIC = "relaxed_accuracy"
DEFAULT_MAX_RELATIVE_CHANGE = 0.05
#: the options and their defaults (the signature leaves defaults out)
DEFAULTS: dict[str, Any] = {
    "max_relative_change": DEFAULT_MAX_RELATIVE_CHANGE,
    "swapped": False,
    "strip": False,
    "lowercase": True,
    "number_commas": False,
}


@dataclass(frozen=True)
class RelaxedVariant:
    """A named reference for relaxed accuracy (the options above change its rules)."""

    name: str
    reference: str


RELAXED_VARIANTS: dict[str, RelaxedVariant] = {
    "pix2struct": RelaxedVariant(
        "pix2struct",
        "google-research/pix2struct pix2struct/metrics.py relaxed_correctness, max over targets "
        "(aggregate_metrics)",
    )
}


@dataclass(frozen=True)
class RelaxedAccuracyResult(MetricResult):
    """Relaxed accuracy (a fraction in [0, 1]) and each question's 0/1 score."""

    relaxed_accuracy: float
    scores: list[float]
    variant: str
    max_relative_change: float
    swapped: bool
    strip: bool
    lowercase: bool
    number_commas: bool
    signature: str = field(repr=False)
    picks: BestPick = field(repr=False, compare=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    METRIC = "relaxed_accuracy"
    HEADLINE = (Headline("relaxed_accuracy", higher_is_better=True, items="score", mean=True),)

    @cached_property
    def closest(self) -> list[str]:
        return self.picks.resolve()

    def item_closest(self) -> list[str]:
        return self.closest


#: what any text that ``float`` reads contains: a (Unicode decimal) digit, ``inf`` or ``nan``;
#: other texts skip the ``float`` call and its exception (most of the cost of a word)
_MAYBE_NUMBER = re.compile(r"\d|inf|nan", re.IGNORECASE)


def relaxed_number(text: str, number_commas: bool = False) -> float | None:
    """``_to_float`` of ``relaxed_correctness`` (module docstring); ``number_commas`` deletes
    commas first."""
    if number_commas:
        text = text.replace(",", "")
    if _MAYBE_NUMBER.search(text) is None:
        return None
    try:
        if text.endswith("%"):
            return float(text.rstrip("%")) / 100.0
        return float(text)
    except ValueError:
        return None


def _read(
    texts: list[str], lowercase: bool, number_commas: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text: its value as a number (NaN when none), whether it is one, and an id of the
    form the text comparison sees (equal ids: equal forms). Each distinct text is read once."""
    codes, unique = distinct(texts)
    numbers = [relaxed_number(t, number_commas) for t in unique]
    values = np.array(numbers, dtype=np.float64)  # None becomes NaN
    is_number = np.fromiter(
        map(operator.is_not, numbers, itertools.repeat(None)), dtype=bool, count=len(numbers)
    )
    text_ids, _ = distinct(list(map(str.lower, unique)) if lowercase else unique)
    return values[codes], is_number[codes], text_ids[codes]


@dataclass(frozen=True)
class RelaxedItems(ItemStats):
    """The per-question statistics relaxed accuracy is computed from
    (:mod:`metricore.core.stream`): each question's 0/1 score and the texts of its rows."""

    scores: np.ndarray
    variant: str
    options: dict[str, Any]
    picks: BestPick | None = None
    predictions: list[str] | None = None

    TEXT = ("picks", "predictions")
    SHARED = ("variant", "options")


@paused_gc()
def relaxed_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "pix2struct",
    max_relative_change: float = DEFAULT_MAX_RELATIVE_CHANGE,
    swapped: bool = False,
    strip: bool = False,
    lowercase: bool = True,
    number_commas: bool = False,
) -> RelaxedItems:
    """Each question's score (arguments as :func:`compute_relaxed_accuracy`, which is
    ``relaxed_result(relaxed_items(...))``); a question's score depends on that question only."""
    spec = RELAXED_VARIANTS[check_choice(variant, RELAXED_VARIANTS, _METRIC, "variant")]
    tolerance = check_number(max_relative_change, _METRIC, "max_relative_change", 0.0, math.inf)
    swapped = check_bool(swapped, _METRIC, "swapped")
    strip = check_bool(strip, _METRIC, "strip")
    lowercase = check_bool(lowercase, _METRIC, "lowercase")
    number_commas = check_bool(number_commas, _METRIC, "number_commas")
    options: dict[str, Any] = {
        "max_relative_change": tolerance,
        "swapped": swapped,
        "strip": strip,
        "lowercase": lowercase,
        "number_commas": number_commas,
    }
    preds, refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    flat, counts = gold_column(refs, _METRIC)
    rows = np.arange(len(preds)) if counts is None else np.repeat(np.arange(len(preds)), counts)

    # one pass over both sides (the prediction stripped first when asked; golds as given)
    shown = [p.strip() for p in preds] if strip else preds
    values, is_number, text_ids = _read(shown + flat, lowercase, number_commas)
    n = len(preds)
    p_val, p_num, p_text = values[:n][rows], is_number[:n][rows], text_ids[:n][rows]
    g_val, g_num, g_text = values[n:], is_number[n:], text_ids[n:]

    # relaxed_correctness(target, prediction): `target` gives the denominator and must be a
    # non-zero number (its float is truthy: NaN is, 0.0 and -0.0 are not)
    t_val, t_num, o_val, o_num = (p_val, p_num, g_val, g_num) if swapped else (g_val, g_num, p_val, p_num)
    numeric = o_num & t_num & (t_val != 0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        within = np.abs(o_val - t_val) / np.abs(t_val) <= tolerance
    correct = np.where(numeric, within, p_text == g_text)

    if counts is None:
        scores_arr = correct.astype(np.float64)
        picks = BestPick(flat)
    else:
        scores_arr = group_max(correct, counts).astype(np.float64)
        # the first correct gold, else the first gold
        picks = BestPick(flat, index=group_argmax(correct, counts))
    return RelaxedItems(scores_arr, spec.name, options, picks, preds)


def relaxed_result(items: RelaxedItems, *, columns: bool = True) -> RelaxedAccuracyResult:
    """The result of every question's statistics: the mean of the 0/1 scores.
    ``columns=False``: without the per-question columns (the same number)."""
    scores = items.scores.tolist()
    return RelaxedAccuracyResult(
        relaxed_accuracy=float(sum(scores)) / len(scores),
        scores=scores if columns else [],
        variant=items.variant,
        **items.options,
        signature=build_signature(_METRIC, items.variant, items.options, DEFAULTS),
        picks=items.picks if columns and items.picks is not None else BestPick([]),
        predictions=(items.predictions or []) if columns else [],
    )


def compute_relaxed_accuracy(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "pix2struct",
    max_relative_change: float = DEFAULT_MAX_RELATIVE_CHANGE,
    swapped: bool = False,
    strip: bool = False,
    lowercase: bool = True,
    number_commas: bool = False,
) -> RelaxedAccuracyResult:
    """Score predictions against gold answers with relaxed accuracy (module docstring).

    Args:
        predictions: one answer (str) per question.
        references: per question, the gold answer or a list of gold answers (the best counts).
        variant: ``"pix2struct"``.
        max_relative_change: the tolerance (>= 0; 0.05 is 5%).
        swapped, strip, lowercase, number_commas: the variants of copies (module docstring).

    >>> compute_relaxed_accuracy(["12.5%", "10.6", "0.0", "Yes"], ["0.125", "10", "0", ["no", "yes"]]).scores
    [1.0, 0.0, 0.0, 1.0]
    """
    return relaxed_result(
        relaxed_items(
            predictions,
            references,
            variant=variant,
            max_relative_change=max_relative_change,
            swapped=swapped,
            strip=strip,
            lowercase=lowercase,
            number_commas=number_commas,
        )
    )


def explain_relaxed_accuracy(predictions: Sequence[Any], result: RelaxedAccuracyResult) -> list[str]:
    """Why each question scored what it did (the Spaces' *why* column): whether its gold (the
    first correct one, else the first) was compared as a number or as text, and why."""
    out = []
    for pred, gold, score in zip(predictions, result.closest, result.scores):
        verdict = "correct" if score else "wrong"
        shown = pred.strip() if result.strip else pred
        target, other = (shown, gold) if result.swapped else (gold, shown)
        t_num = relaxed_number(target, result.number_commas)
        o_num = relaxed_number(other, result.number_commas)
        if t_num and o_num is not None:
            change = abs(o_num - t_num) / abs(t_num)
            out.append(
                f"{verdict}: |{o_num:g} - {t_num:g}| / |{t_num:g}| = {change:.4g} "
                f"(tolerance {result.max_relative_change:g}), gold {gold!r}"
            )
            continue
        if t_num is None and o_num is None:
            why = "neither is a number, so compared as text"
        elif t_num is None or o_num is None:
            why = f"{target if t_num is None else other!r} is not a number, so compared as text"
        else:
            why = f"{'the prediction' if result.swapped else 'the gold'} is 0, so compared as text"
        case = "ignoring case" if result.lowercase else "case counts"
        out.append(f"{verdict}: {why} ({case}), gold {gold!r}")
    return out
