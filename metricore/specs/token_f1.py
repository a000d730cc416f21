"""Token F1 / exact match (SQuAD v1.1, SQuAD v2.0, MLQA, FusionBrain TextQA/MathQA,
question-level entity sets, QuAC): :mod:`metricore.metrics.token_f1`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore.core.spec import Config, Example, InputKind, MetricSpec, Option, TaskUse
from metricore.core.stream import ItemStats, Stream
from metricore.metrics.token_f1 import (
    DEFAULT_NO_ANSWER_THRESHOLD,
    MLQA_LANGUAGES,
    TOKEN_F1_VARIANTS,
    QuACResult,
    QuestionLevelResult,
    TokenF1Result,
    parse_squad_records,
    quac_items,
    quac_result,
    question_level_items,
    question_level_result,
    token_f1_items,
    token_f1_result,
    token_overlap,
)
from metricore.specs._cost import estimate, text_features
from metricore.stats.significance import (
    Statistic,
    SumStatistic,
    mean_statistic,
    ratio_statistic,
    resample_weights,
)
from metricore.text.normalize import NORMALIZERS, get_normalizer

_PERCENT = Option(
    "percent",
    "bool",
    True,
    "corpus numbers x100 (as the official scripts) or in [0, 1]; the Space always shows 0-100",
    interactive=False,
)
_SQUAD_INPUTS: tuple[tuple[InputKind, InputKind], ...] = (
    ("text", "alternatives"),
    ("squad_record", "squad_record"),
)


def _squad_options(name: str) -> tuple[Option, ...]:
    v = TOKEN_F1_VARIANTS[name]
    options: tuple[Option, ...] = (_PERCENT,)
    if v.rules == "v2":
        options += (
            Option(
                "no_answer_threshold",
                "number",
                DEFAULT_NO_ANSWER_THRESHOLD,
                "a question whose no_answer_probability (SQuAD dict input) is above it counts as predicted "
                "'no answer'",
                low=0.0,
                high=1.0,
                label="no-answer threshold",
            ),
        )
    if v.normalizer is None:  # MLQA: the normalizer is the language's
        options += (
            Option(
                "language",
                "choice",
                None,
                "MLQA language: its punctuation and articles; zh: one token per ideograph",
                choices=MLQA_LANGUAGES,
                required=True,
            ),
        )
    return options


CONFIGS = (
    *(
        Config(name, v.reference, _squad_options(name), _SQUAD_INPUTS)
        for name, v in TOKEN_F1_VARIANTS.items()
    ),
    Config(
        "question_level",
        "entity-level precision/recall/F1 of list answers (sets of normalized entities per question)",
        (
            _PERCENT,
            Option(
                "normalizer",
                "choice",
                "squad",
                "how each entity is normalized before the sets are compared",
                choices=tuple(NORMALIZERS),
            ),
        ),
        (("entities", "entities"),),
    ),
    Config(
        "quac",
        "QuAC official scorer (F1 with human-F1 filtering, HEQ-Q, HEQ-D)",
        (
            _PERCENT,
            Option(
                "min_human_f1",
                "number",
                0.4,
                "questions whose human F1 is lower are not counted",
                low=0.0,
                high=1.0,
            ),
        ),
        (("text", "dialog_turn"),),
    ),
)


def _dialog_turns(references: list[Any]) -> tuple[list[Any], list[Any]]:
    """The gold answers and dialog ids of QuAC references ``{"dialog_id", "answers"}``."""
    for i, ref in enumerate(references):
        if not isinstance(ref, Mapping) or "dialog_id" not in ref or "answers" not in ref:
            raise TypeError(
                f"token_f1: `references[{i}]` must be {{'dialog_id': str, 'answers': [str, ...]}} "
                f"for the quac config, got {ref!r:.80}"
            )
    return [r["answers"] for r in references], [r["dialog_id"] for r in references]


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> ItemStats:
    if config == "question_level":
        return question_level_items(predictions, references, **options)
    if config == "quac":
        return quac_items(predictions, *_dialog_turns(references), **options)
    return token_f1_items(predictions, references, variant=config, **options)


def _finish(config: str, items: Any, options: Mapping[str, Any], columns: bool) -> Any:
    if config == "question_level":
        return question_level_result(items, columns=columns)
    if config == "quac":
        return quac_result(items, columns=columns)
    return token_f1_result(items, columns=columns)


def _accepts(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> bool:
    """Whether rows can be scored batch by batch; the others are held and scored in one call.

    Held: Hugging Face SQuAD dict rows, which the metric pairs by id itself: the command line
    pairs such rows by position (their ``id`` is inside the value), so a batch's predictions
    need not have the ids of its references (pairing them by id before the metric would lose
    the prediction file's order, in which SQuAD v2.0 breaks probability ties); and a
    whole-input ``no_answer_probabilities`` list (``compute_token_f1``'s keyword, which the
    spec's options do not take), which cannot be cut into batches. (Batches of SQuAD dicts
    whose ids pair within each batch do stream exactly:
    :class:`~metricore.metrics.token_f1.InputRows`.)"""
    if config in ("question_level", "quac"):
        return True
    if options.get("no_answer_probabilities") is not None:
        return False
    return not (predictions and isinstance(predictions[0], Mapping)) and not (
        references and isinstance(references[0], Mapping)
    )


def _compute(config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]) -> Any:
    return _finish(config, _items(config, predictions, references, options), options, True)


# --------------------------------------------------------------------------------------------
# Per-item statistics (bootstrap intervals and paired tests re-use them, never re-scoring)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DialogPassStatistic(Statistic):
    """QuAC HEQ-D: ``scale`` x the share of dialogs present in the multiset whose counted
    questions all pass (a dialog without counted questions passes).

    ``dialogs``: dialog id per question; ``fails``: counted and below human F1.
    """

    dialogs: Any
    fails: Any
    scale: float = 1.0
    _groups: Any = field(init=False, repr=False)
    _fail_groups: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from scipy import sparse

        codes = {d: i for i, d in enumerate(dict.fromkeys(self.dialogs))}
        rows = np.fromiter((codes[d] for d in self.dialogs), np.int64, len(self.dialogs))
        fails = np.asarray(self.fails, dtype=bool)
        if fails.shape != rows.shape or rows.size == 0:
            raise ValueError(
                "significance: DialogPassStatistic needs one dialog id and one fail flag per question"
            )
        cols = np.arange(rows.size)
        shape = (len(codes), rows.size)
        object.__setattr__(self, "fails", fails)
        object.__setattr__(
            self, "_groups", sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=shape)
        )
        object.__setattr__(
            self, "_fail_groups", sparse.csr_matrix((fails.astype(np.float64), (rows, cols)), shape=shape)
        )

    @property
    def size(self) -> int:
        return int(self.fails.size)

    def value(self) -> float:
        failed = (self._fail_groups @ np.ones(self.size)) > 0
        return self.scale * float(np.count_nonzero(~failed)) / failed.size

    def resampled(self, indices: np.ndarray) -> np.ndarray:
        wt = resample_weights(indices, self.size).T
        present = (self._groups @ wt) > 0
        failed = (self._fail_groups @ wt) > 0
        return self.scale * np.count_nonzero(present & ~failed, axis=0) / np.count_nonzero(present, axis=0)

    def swapped(self, other: Statistic, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(other, DialogPassStatistic) or other.size != self.size:
            raise TypeError("significance: both systems need a HEQ-D statistic over the same questions")
        n_dialogs = self._groups.shape[0]
        out = []
        for mine, theirs in ((self.fails, other.fails), (other.fails, self.fails)):
            mixed = np.where(swap, theirs, mine).T.astype(np.float64)
            failed = (self._groups @ mixed) > 0
            out.append(self.scale * (n_dialogs - np.count_nonzero(failed, axis=0)) / n_dialogs)
        return out[0], out[1]


def _micro(which: int, scale: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """Micro P/R/F1 of summed (TP, FP, FN), as :func:`compute_question_level` computes them:
    nothing predicted and nothing to find = 1, one side empty = 0."""

    def score(sums: np.ndarray, n: int) -> np.ndarray:
        tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
        npred, ngold = tp + fp, tp + fn
        both_empty = ((npred == 0) & (ngold == 0)).astype(np.float64)
        p = np.divide(tp, npred, out=both_empty.copy(), where=npred > 0)
        r = np.divide(tp, ngold, out=both_empty.copy(), where=ngold > 0)
        f1 = np.divide(2.0 * p * r, p + r, out=np.zeros(len(tp)), where=(p + r) > 0)
        return scale * (p, r, f1)[which]

    return score


def _squad_statistics(r: TokenF1Result) -> dict[str, Statistic]:
    scale = 100.0 if r.percent else 1.0
    cols = {
        "exact_match": r.exact_match_scores,
        "f1": r.f1_scores,
        "precision": r.precision_scores,
        "recall": r.recall_scores,
    }
    out: dict[str, Statistic] = {
        k: mean_statistic(v, scale=scale, name=f"token_f1 {k}") for k, v in cols.items()
    }
    if r.squad_v2 is None:
        return out
    out["exact"] = out.pop("exact_match")
    has = np.asarray(r.has_answer, dtype=np.float64)
    for prefix, member in (("HasAns", has), ("NoAns", 1.0 - has)):
        for key, scores in (("exact", r.exact_match_scores), ("f1", r.f1_scores)):
            out[f"{prefix}_{key}"] = ratio_statistic(
                np.asarray(scores) * member, member, scale=scale, name=f"token_f1 {prefix}_{key}"
            )
    return out


def _question_level_statistics(r: QuestionLevelResult) -> dict[str, Statistic]:
    scale = 100.0 if r.percent else 1.0
    out: dict[str, Statistic] = {
        "precision": mean_statistic(r.precision_scores, scale=scale),
        "recall": mean_statistic(r.recall_scores, scale=scale),
        "f1": mean_statistic(r.f1_scores, scale=scale),
        "exact_match": mean_statistic(r.exact_match_scores, scale=scale),
    }
    counts = (r.true_positives, r.false_positives, r.false_negatives)
    for which, key in enumerate(("micro_precision", "micro_recall", "micro_f1")):
        out[key] = SumStatistic(counts, _micro(which, scale), f"token_f1 {key}")
    return out


def _quac_statistics(r: QuACResult) -> dict[str, Statistic]:
    if r.dialog_ids is None:
        raise ValueError("token_f1: this QuACResult has no dialog ids (build it with compute_quac)")
    scale = 100.0 if r.percent else 1.0
    counted = np.asarray(r.counted, dtype=np.float64)
    heq = np.asarray(r.heq_scores)
    return {
        "f1": ratio_statistic(np.asarray(r.f1_scores) * counted, counted, scale=scale, empty=0.0),
        "heq_q": ratio_statistic(heq, counted, scale=scale, empty=0.0),
        "heq_d": DialogPassStatistic(r.dialog_ids, (counted > 0) & (heq == 0), scale),
        "human_f1": ratio_statistic(np.asarray(r.human_f1_scores) * counted, counted, scale=scale, empty=0.0),
    }


def _statistics(r: Any) -> Mapping[str, Statistic]:
    if isinstance(r, QuestionLevelResult):
        return _question_level_statistics(r)
    if isinstance(r, QuACResult):
        return _quac_statistics(r)
    return _squad_statistics(r)


# --------------------------------------------------------------------------------------------
# Why each question scored what it did (the Spaces' *why* column)
# --------------------------------------------------------------------------------------------


def _token_why(pred: str, gold: str, norm: Any, rules: str, has_answer: bool, forced: float | None) -> str:
    if forced is not None:
        outcome = "the question has an answer → 0" if has_answer else "none expected → 1"
        return f"no_answer_probability {forced:g} > threshold: predicted 'no answer'; {outcome}"
    p, g = norm.tokens(pred), norm.tokens(gold)
    if p or g:
        text = token_overlap(p, g).describe()
        if rules == "v2" and not g and not has_answer:
            return f"no answer expected, answer given → 0 | {text}"
        if rules != "v1" and not g:
            return f"gold answers empty after normalization → 0 | {text}"
        return text
    if rules != "v1":
        return "both empty after normalization → 1" + (
            "" if has_answer else " (no answer expected, none given)"
        )
    return "both empty after normalization → F1 0 (v1.1: no overlap), EM 1"


def _squad_why(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: TokenF1Result,
) -> list[str]:
    spec = TOKEN_F1_VARIANTS[config]
    v2 = spec.rules == "v2"
    threshold = options.get("no_answer_threshold", DEFAULT_NO_ANSWER_THRESHOLD)
    if r.ids is not None:  # Hugging Face SQuAD dicts, scored in reference order
        records = parse_squad_records(predictions, references, use_no_answer_probability=v2)
        probs = records.no_answer_probabilities
    else:
        probs = [0.0] * len(predictions)
    norm = get_normalizer(spec.normalizer or f"mlqa_{options.get('language')}")
    has_answer = r.has_answer or [True] * len(r.predictions)
    out = []
    for k, (pred, scored, gold) in enumerate(zip(r.predictions, r.scored_predictions, r.closest)):
        forced = probs[k] if v2 and probs[k] > threshold else None
        why = _token_why(scored, gold, norm, spec.rules, has_answer[k], forced)
        if scored != pred:
            why = f"best {spec.letter_fallback} of the answer ≤ 0.5, so its first option letter '{scored}' is scored | {why}"
        out.append(why)
    return out


def _entity_why(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any], r: Any
) -> list[str]:
    norm = get_normalizer(options.get("normalizer", "squad"))

    def entities(value: Any) -> list[str]:
        items = [value] if isinstance(value, str) else list(value)
        return list(dict.fromkeys(e for e in norm.many(items) if e))

    out = []
    for pred, gold in zip(predictions, references):
        p, g = entities(pred), entities(gold)
        out.append("both sets empty → 1" if not p and not g else token_overlap(p, g).describe())
    return out


def _quac_why(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: QuACResult,
) -> list[str]:
    out = []
    for f1, human, heq, counted in zip(r.f1_scores, r.human_f1_scores, r.heq_scores, r.counted):
        if not counted:
            out.append(f"not counted: human F1 {human:.3f} < min_human_f1")
        else:
            verdict = "reaches" if heq else "is below"
            out.append(
                f"F1 {f1:.3f} (best over the gold answers, leave-one-out) {verdict} human F1 {human:.3f}"
            )
    return out


def _explain(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any], r: Any
) -> list[str]:
    if config == "question_level":
        return _entity_why(config, predictions, references, options, r)
    if config == "quac":
        return _quac_why(config, predictions, references, options, r)
    return _squad_why(config, predictions, references, options, r)


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    if config == "quac":
        references = [r.get("answers", []) if isinstance(r, Mapping) else r for r in references]
    return estimate(f"token_f1/{config}", text_features(predictions, references, words=True))


def _task_score(config: str) -> str:
    """Exact match for a variant whose letter fallback is decided on it (``fbc2_mathqa``)."""
    return "exact_match" if TOKEN_F1_VARIANTS[config].letter_fallback == "exact_match" else "f1"


SPEC = MetricSpec(
    name="token_f1",
    label="Token F1",
    title="Token F1 and exact match (SQuAD, SQuAD v2, MLQA, question level, QuAC)",
    summary="Extractive-QA scoring: per question, the token-overlap F1 and the exact match of the "
    "normalized answer against the best gold answer, averaged (x100 as the official scripts).",
    configs=CONFIGS,
    compute=_compute,
    stream=Stream(_items, _finish, accepts=_accepts),
    result_types=(TokenF1Result, QuestionLevelResult, QuACResult),
    closest_label="best gold",
    notes="Headline numbers are on the official scripts' 0-100 scale (as Hugging Face `squad`/`squad_v2`), "
    "per-question scores in [0, 1]. `squad_v2` takes Hugging Face SQuAD dicts (`id`, `prediction_text`, "
    "`no_answer_probability`) for the no-answer threshold. The *why* column lists the tokens (or entities) "
    "after normalization that both sides share and those only one side has.",
    task=TaskUse(
        tuple(TOKEN_F1_VARIANTS), ("f1", "exact_match"), fixed={"percent": False}, default_score=_task_score
    ),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example(
            "SQuAD: articles, punctuation, partial overlap",
            ["the big cat sat", "Denver Broncos", "in 1998.", "Saint Bernadette", "cat cat cat"],
            [
                ["a cat sat down"],
                ["Denver Broncos", "The Denver Broncos"],
                ["1998"],
                ["Saint Bernadette Soubirous"],
                ["cat"],
            ],
        ),
        Example(
            "SQuAD v2: unanswerable questions",
            ["", "Normans", "France", "", "in the 10th century"],
            [[], ["The Normans", "Normans"], [], ["10th and 11th centuries"], ["10th century", "the 10th"]],
            config="squad_v2",
        ),
        Example(
            "MLQA German (der/die/das are articles)",
            ["der Hund bellt", "die Katze", "Berlin, Deutschland"],
            [["ein Hund bellt laut"], ["Katze"], ["Berlin"]],
            config="mlqa",
            options={"language": "de"},
        ),
        Example(
            "MLQA Chinese (one token per character)",
            ["北京大学", "长城。", "上海"],
            [["北京"], ["长城"], ["上海市", "在上海"]],
            config="mlqa",
            options={"language": "zh"},
        ),
        Example(
            "FusionBrain TextQA: lemmas, numbers, option letters",
            ["a) на 0,3 секунды", "A", "b) на секунду", "Авиаконструктора Сухого"],
            [["a", "на 0,3 секунды", "a на 0,3 секунды"]] * 4,
            config="fbc2_textqa",
        ),
        Example(
            "FusionBrain MathQA: exact match with the letter rule",
            ["d) -3", "3", "ответ: d"],
            [["d", "-3", "d -3"]] * 3,
            config="fbc2_mathqa",
        ),
        Example(
            "Question level: list answers as entity sets",
            [["Paris", "the Lyon"], ["Nice"], [], ["Rome", "Milan"]],
            [["paris", "Nice", "Lyon"], ["Nice"], [], ["Turin"]],
            config="question_level",
        ),
        Example(
            "QuAC: dialogs, HEQ-Q and HEQ-D",
            ["in 1990", "CANNOTANSWER", "he moved to Paris"],
            [
                {"dialog_id": "d1", "answers": ["in 1990", "1990"]},
                {"dialog_id": "d1", "answers": ["CANNOTANSWER", "CANNOTANSWER"]},
                {"dialog_id": "d2", "answers": ["he moved to Paris in 1991", "moved to Paris"]},
            ],
            config="quac",
        ),
    ),
)
