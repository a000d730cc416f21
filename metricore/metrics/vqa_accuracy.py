"""VQA accuracy, in the three versions that model cards report as "VQA accuracy".

Per question, with ``n`` human answers (normally 10) of which ``k`` equal the prediction *as
compared* (the rules below), the score is the mean over the ``n`` leave-one-out subsets of
``min(1, matches in the subset / 3)``: each answer left out in turn (the scripts compare the
answer records, which differ by ``answer_id``), ``k - 1`` matches remain when it matched and
``k`` otherwise. So the score depends only on ``(n, k)``: ``k >= 4`` gives 1, ``k = 3`` gives
0.9, ``k = 2`` 0.6, ``k = 1`` 0.3 with ten answers. Accuracy is the mean over questions; with
answer and question types, the mean over each type's questions as well.

``vqav2`` (default)
    GT-Vision-Lab/VQA ``PythonEvaluationTools/vqaEvaluation/vqaEval.py`` at master a013f00
    (2021, "Fixed processing answers bug"): the prediction and every human answer get
    newlines and tabs as spaces and are stripped; **only when the stripped human answers are
    not all equal** are both sides processed (:func:`~metricore.text.normalize.vqa.vqa_process`:
    punctuation, then lower case, number words, articles, contractions). A question whose ten
    answers are equal compares the stripped prediction as it is: ``"Yes"`` against ten
    ``"yes"`` scores 0.
``vqav2_2017``
    The same file at the v2.0 release a4f1afd (2017), which the Python 3 ports copy: the
    prediction is always stripped and processed; the human answers are neither stripped nor
    lower-cased, and get only the punctuation rule, and only when they are not all equal
    (as given). ``"Two dogs."`` against 3 x ``"2 dogs"``, 2 x ``"two dogs"``, 5 x ``"dogs"``:
    0.9 (the ``"two dogs"`` answers stay words), where ``vqav2`` gives 1.0.
``textvqa``
    facebookresearch/mmf ``mmf/utils/m4c_evaluators.py`` ``TextVQAAccuracyEvaluator`` with
    ``EvalAIAnswerProcessor`` (:func:`~metricore.text.normalize.vqa.evalai_process`) on both
    sides, always; its per-unique-answer table gives the same ``(n, k)`` formula. mmf asserts
    exactly 10 answers; here any number is scored by the same formula.

The answer-processing rules and their regular-expression quirks are in
:mod:`metricore.text.normalize.vqa`.

Numbers are computed as the scripts compute them: each question's score is the script's
expression ``float(sum(accs)) / len(accs)`` over the same list of terms in the same order
(evaluated once per distinct pattern of matching answers and reused), the accuracy and every
type's mean are Python's ``sum`` over the question scores in input order divided by the
count, and the printed figures of ``vqav2``/``vqav2_2017`` (``official``) are the script's
``round(100 * sum / count, 2)``. So the numbers equal a run of the script in the same Python.

Input: per question, the human answers as a list of str, or the VQA annotation record
``{"answers": [...], "answer_type": str, "question_type": str}`` (answers as str or as the
annotation's ``{"answer": str, ...}`` records; other keys are ignored). ``answer_types`` and
``question_types`` may also be given as lists (one per question; they override the records).
Types are given for every question or for none.

Degenerate cases: an empty prediction list, a question without human answers, a non-str
answer, a type list of the wrong length raise ``ValueError``/``TypeError`` naming the argument
and row. A question with fewer than 4 human answers cannot reach 1 (with one answer it always
scores 0, as the formula has no other subset to count in); such questions are scored and a
``UserWarning`` says how many there were.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Literal

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.distinct import distinct
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import as_list, check_choice, check_pairs, check_strings
from metricore.text.normalize.vqa import (
    evalai_process,
    vqa_process,
    vqa_punctuation,
    vqa_strip,
)

__all__ = [
    "VQA_VARIANTS",
    "VQAAccuracyResult",
    "VQAItems",
    "VQAVariant",
    "compute_vqa_accuracy",
    "explain_vqa_accuracy",
    "leave_one_out_score",
    "vqa_items",
    "vqa_reference",
    "vqa_result",
]

_METRIC = "vqa_accuracy"
#: the scripts' rounding of printed figures (``VQAEval(..., n=2)``)
OFFICIAL_DECIMALS = 2
#: fewer human answers than this and a question cannot score 1 (the formula needs 3 matches
#: in every leave-one-out subset)
_FULL_CREDIT_ANSWERS = 4


@dataclass(frozen=True)
class VQAVariant:
    """A named bundle of answer-comparison rules over the one VQA accuracy implementation."""

    name: str
    reference: str
    #: ``master``: strip; process both sides unless the stripped answers are unanimous.
    #: ``release_2017``: prediction always processed; answers punctuation-only, unless unanimous.
    #: ``evalai``: the EvalAI processor on both sides.
    rule: Literal["master", "release_2017", "evalai"]
    #: whether the script prints rounded percent figures (``VQAEval.accuracy``)
    prints_figures: bool


VQA_VARIANTS: dict[str, VQAVariant] = {
    v.name: v
    for v in (
        VQAVariant(
            "vqav2",
            "GT-Vision-Lab/VQA PythonEvaluationTools/vqaEvaluation/vqaEval.py at master a013f00 "
            "(2021, 'Fixed processing answers bug')",
            "master",
            True,
        ),
        VQAVariant(
            "vqav2_2017",
            "GT-Vision-Lab/VQA PythonEvaluationTools/vqaEvaluation/vqaEval.py at the v2.0 release "
            "a4f1afd (2017), as the Python 3 ports copy it",
            "release_2017",
            True,
        ),
        VQAVariant(
            "textvqa",
            "facebookresearch/mmf mmf/utils/m4c_evaluators.py TextVQAAccuracyEvaluator with "
            "EvalAIAnswerProcessor",
            "evalai",
            False,
        ),
    )
}


@dataclass(frozen=True)
class VQAAccuracyResult(MetricResult):
    """Mean VQA accuracy (a fraction in [0, 1]), per-question scores and breakdowns.

    ``matches``: per question, how many human answers equal the prediction as compared.
    ``accuracy_per_answer_type`` / ``accuracy_per_question_type``: the mean score of each
    type's questions (first-appearance order), when types were given; each answer type is
    also a headline number ``accuracy_<type>``. ``official``: the figures the VQA script
    prints (``VQAEval.accuracy``: percent, rounded to 2 decimals) for ``vqav2`` and
    ``vqav2_2017``.
    """

    accuracy: float
    scores: list[float]
    matches: list[int]
    variant: str
    accuracy_per_answer_type: dict[str, float] | None
    accuracy_per_question_type: dict[str, float] | None
    official: dict[str, Any] | None
    signature: str = field(repr=False)
    #: the types as given (``None``: not given), for the statistics of each type's mean
    answer_types: list[str] | None = field(default=None, repr=False, compare=False)
    question_types: list[str] | None = field(default=None, repr=False, compare=False)
    #: the predictions as scored (for :meth:`per_item`)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    METRIC = "vqa_accuracy"
    HEADLINE = (Headline("accuracy", higher_is_better=True, items="score", mean=True),)
    COLUMNS = (("matches", "matches"),)

    def headline_values(self) -> dict[str, Any]:
        """``accuracy``, then ``accuracy_<answer type>`` for each answer type given."""
        values: dict[str, Any] = {"accuracy": self.accuracy}
        for answer_type, value in (self.accuracy_per_answer_type or {}).items():
            values[f"accuracy_{answer_type}"] = value
        return values

    @classmethod
    def headline_info(cls, key: str) -> Headline:
        if key.startswith("accuracy_"):  # one per answer type: a mean of that type's scores
            return Headline(key, higher_is_better=True, items=None)
        return super().headline_info(key)

    def extra(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.accuracy_per_question_type is not None:
            out["per_question_type"] = dict(self.accuracy_per_question_type)
        if self.official is not None:
            out["official"] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.official.items()}
        return out


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


def _answer(value: Any, index: int, j: int, in_record: bool) -> str:
    if isinstance(value, str):
        return value
    where = f"references[{index}]['answers'][{j}]" if in_record else f"references[{index}][{j}]"
    if isinstance(value, Mapping) and in_record:
        if "answer" not in value:
            raise ValueError(f"{_METRIC}: `{where}` is a dict without an 'answer' key")
        if not isinstance(value["answer"], str):
            raise TypeError(
                f"{_METRIC}: `{where}['answer']` must be a str, got {type(value['answer']).__name__}"
            )
        return value["answer"]
    raise TypeError(
        f"{_METRIC}: `{where}` must be a str (a human answer), got {type(value).__name__} ({value!r:.60})"
    )


def _type_field(record: Mapping[str, Any], key: str, index: int) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(
            f"{_METRIC}: `references[{index}]['{key}']` must be a str, got {type(value).__name__} ({value!r:.60})"
        )
    return value


def vqa_reference(reference: Any, index: int) -> tuple[list[str], str | None, str | None]:
    """One question's ``(human answers, answer type, question type)`` from a list of str, a
    bare str (one answer) or an annotation record (module docstring); errors name the row."""
    answer_type = question_type = None
    in_record = isinstance(reference, Mapping)
    if in_record:
        if "answers" not in reference:
            raise ValueError(
                f"{_METRIC}: `references[{index}]` is a dict without an 'answers' key "
                "(expected {'answers': [...], 'answer_type': ..., 'question_type': ...})"
            )
        answer_type = _type_field(reference, "answer_type", index)
        question_type = _type_field(reference, "question_type", index)
        answers = reference["answers"]
    else:
        answers = reference
    if isinstance(answers, str):
        return [answers], answer_type, question_type
    if not isinstance(answers, (list, tuple)):
        where = f"references[{index}]['answers']" if in_record else f"references[{index}]"
        raise TypeError(
            f"{_METRIC}: `{where}` must be a list of human answers (str), got "
            f"{type(answers).__name__} ({answers!r:.60})"
        )
    if not answers:
        raise ValueError(f"{_METRIC}: `references[{index}]` has no human answers (empty list)")
    return [_answer(a, index, j, in_record) for j, a in enumerate(answers)], answer_type, question_type


def _check_types(values: Any, name: str, n: int) -> list[str]:
    types = as_list(values, _METRIC, name)
    if len(types) != n:
        raise ValueError(f"{_METRIC}: got {len(types)} {name} for {n} predictions")
    check_strings(types, _METRIC, name)
    return types


def _all_or_none(found: list[str | None], key: str) -> list[str] | None:
    missing = [i for i, t in enumerate(found) if t is None]
    if len(missing) == len(found):
        return None
    if missing:
        given = next(i for i, t in enumerate(found) if t is not None)
        raise ValueError(
            f"{_METRIC}: `references[{missing[0]}]` has no {key} but `references[{given}]` has one; "
            f"give every question a {key}, or none"
        )
    return found  # type: ignore[return-value]


def _read_references(
    refs: list[Any],
) -> tuple[list[str], np.ndarray, list[str] | None, list[str] | None]:
    """Flat human answers, answers per question, and the types the records carry."""
    if set(map(type, refs)) <= {list}:
        counts = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
        flat = list(chain.from_iterable(refs))
        if counts.min() > 0 and set(map(type, flat)) <= {str}:
            return flat, counts, None, None
    parsed = [vqa_reference(r, i) for i, r in enumerate(refs)]
    flat = [a for answers, _, _ in parsed for a in answers]
    counts = np.fromiter((len(p[0]) for p in parsed), dtype=np.int64, count=len(parsed))
    answer_types = _all_or_none([p[1] for p in parsed], "answer_type")
    question_types = _all_or_none([p[2] for p in parsed], "question_type")
    return flat, counts, answer_types, question_types


# --------------------------------------------------------------------------------------------
# Comparison: each distinct string processed once
# --------------------------------------------------------------------------------------------


def _identity(text: str) -> str:
    return text


def _stripped_processed(text: str) -> str:
    return vqa_process(vqa_strip(text))


#: per rule: (answer form when the answers are unanimous, answer form otherwise,
#: prediction form when unanimous, prediction form otherwise); the answers' unanimous form is
#: also what the unanimity test compares (the EvalAI rule has one form for everything)
_FORMS: dict[str, tuple[Callable[[str], str], ...]] = {
    "master": (vqa_strip, _stripped_processed, vqa_strip, _stripped_processed),
    "release_2017": (_identity, vqa_punctuation, _stripped_processed, _stripped_processed),
    "evalai": (evalai_process, evalai_process, evalai_process, evalai_process),
}


def _intern(forms: list[str], ids: dict[str, int]) -> np.ndarray:
    """The id of each form in ``ids`` (equal ids <=> equal strings; new forms get new ids), in
    C-level passes: the ids' order does not matter, only their equality."""
    new = dict.fromkeys(forms).keys() - ids.keys()
    ids.update(zip(new, range(len(ids), len(ids) + len(new))))
    return np.fromiter(map(ids.__getitem__, forms), dtype=np.int64, count=len(forms))


def _form_ids(
    texts: list[str], sides: Sequence[tuple[slice, Sequence[Callable[[str], str]]]]
) -> list[np.ndarray]:
    """For each side (a slice of ``texts``) and each of its forms, the id of every text's form.

    Each distinct text is processed once per form, and only by the forms its side needs (the
    prediction's processing is not run on strings that only occur as human answers)."""
    codes, unique = distinct(texts)
    needed: dict[Callable[[str], str], np.ndarray] = {}
    for where, forms in sides:
        for form in forms:
            mask = needed.setdefault(form, np.zeros(len(unique), dtype=bool))
            mask[codes[where]] = True
    ids: dict[str, int] = {}
    table: dict[Callable[[str], str], np.ndarray] = {}
    for form, mask in needed.items():
        chosen = np.flatnonzero(mask)
        column = np.full(len(unique), -1, dtype=np.int64)
        column[chosen] = _intern([form(unique[i]) for i in chosen.tolist()], ids)
        table[form] = column
    return [table[form][codes[where]] for where, forms in sides for form in forms]


def _matches(rule: str, preds: list[str], flat: list[str], counts: np.ndarray) -> np.ndarray:
    """Per flat answer, whether it equals its question's prediction as the rule compares them."""
    answer_u, answer_p, pred_u, pred_p = _FORMS[rule]
    n = len(flat)
    a_u, a_p, p_u, p_p = _form_ids(
        flat + preds, ((slice(0, n), (answer_u, answer_p)), (slice(n, None), (pred_u, pred_p)))
    )
    question = np.repeat(np.arange(len(counts)), counts)
    if rule == "evalai":
        return a_p == p_p[question]
    # unanimous: every answer equal to its question's first one (in the unanimous form)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    unanimous = ~np.logical_or.reduceat(a_u != a_u[starts][question], starts)
    return np.where(unanimous[question], a_u == p_u[question], a_p == p_p[question])


def leave_one_out_score(hits: Sequence[bool]) -> float:
    """One question's score from which of its human answers match, in their order: the
    script's ``float(sum(accs)) / len(accs)`` with ``accs[j] = min(1, float(matches among
    the others) / 3)`` (module docstring)."""
    k = sum(map(bool, hits))
    accs = [min(1, float(k - bool(h)) / 3) for h in hits]
    return float(sum(accs)) / len(accs)


#: rows of at most this many answers are keyed by a bit mask of their hits
_MASK_BITS = 62


def _question_scores(hit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per question, :func:`leave_one_out_score` of its hits, evaluated once per distinct
    (count, hit pattern) and looked up for the rest."""
    scores = np.empty(len(counts))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    for n in np.unique(counts).tolist():
        rows = np.flatnonzero(counts == n)
        block = hit[starts[rows, None] + np.arange(n)]
        if n <= _MASK_BITS:
            masks = block.astype(np.int64) @ (np.int64(1) << np.arange(n, dtype=np.int64))
            keys, inverse = np.unique(masks, return_inverse=True)
            table = np.array([leave_one_out_score([(m >> j) & 1 for j in range(n)]) for m in keys.tolist()])
        else:  # more answers than bits: key by the rows themselves
            keys, inverse = np.unique(block, axis=0, return_inverse=True)
            table = np.array([leave_one_out_score(row) for row in keys.tolist()])
        scores[rows] = table[inverse.reshape(-1)]
    return scores


# --------------------------------------------------------------------------------------------
# Aggregation, as the scripts do it
# --------------------------------------------------------------------------------------------


def _python_mean(values: list[float]) -> float:
    # the scripts' `float(sum(xs)) / len(xs)`: Python's own sum, in input order
    return float(sum(values)) / len(values)


def _percent(values: list[float]) -> float:
    # `round(100 * float(sum(xs)) / len(xs), n)`
    return round(100 * float(sum(values)) / len(values), OFFICIAL_DECIMALS)


def _groups(types: list[str], scores: np.ndarray) -> dict[str, list[float]]:
    """Each type's scores in question order, types in order of first appearance."""
    codes, uniques = distinct(types)
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes, minlength=len(uniques))).tolist()
    ordered = scores[order].tolist()
    out, start = {}, 0
    for t, end in zip(uniques, ends):
        out[t] = ordered[start:end]
        start = end
    return out


@dataclass(frozen=True)
class VQAItems(ItemStats):
    """The per-question statistics VQA accuracy is computed from (:mod:`metricore.core.stream`):
    each question's score, its matching human answers and its answer count, and its types as
    given (``None`` entries where a record has none: :func:`vqa_result` checks, over all the
    questions, that every question has a type or none has)."""

    scores: np.ndarray
    matches: np.ndarray
    answer_counts: np.ndarray
    answer_types: list[str | None]
    question_types: list[str | None]
    variant: str
    predictions: list[str] | None = None

    TEXT = ("predictions",)
    SHARED = ("variant",)


@paused_gc()
def vqa_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "vqav2",
    answer_types: Sequence[str] | None = None,
    question_types: Sequence[str] | None = None,
) -> VQAItems:
    """Each question's statistics (arguments as :func:`compute_vqa_accuracy`, which is
    ``vqa_result(vqa_items(...))``); a question's score depends on that question only."""
    spec = VQA_VARIANTS[check_choice(variant, VQA_VARIANTS, _METRIC, "variant")]
    preds, refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    flat, counts, record_answer_types, record_question_types = _read_references(refs)
    n = len(preds)
    a_types = (
        _check_types(answer_types, "answer_types", n) if answer_types is not None else record_answer_types
    )
    q_types = (
        _check_types(question_types, "question_types", n)
        if question_types is not None
        else record_question_types
    )
    hit = _matches(spec.rule, preds, flat, counts)
    matches = np.add.reduceat(hit.astype(np.int64), np.concatenate(([0], np.cumsum(counts)[:-1])))
    return VQAItems(
        _question_scores(hit, counts),
        matches,
        counts,
        list(a_types) if a_types is not None else [None] * n,
        list(q_types) if q_types is not None else [None] * n,
        spec.name,
        preds,
    )


def vqa_result(items: VQAItems, *, columns: bool = True) -> VQAAccuracyResult:
    """The result of every question's statistics: the overall and per-type means (and the
    official printed figures), from the scores in question order.
    ``columns=False``: without the per-question columns (the same numbers)."""
    spec = VQA_VARIANTS[items.variant]
    a_types = _all_or_none(items.answer_types, "answer_type")
    q_types = _all_or_none(items.question_types, "question_type")
    few = int(np.count_nonzero(items.answer_counts < _FULL_CREDIT_ANSWERS))
    if few:
        warnings.warn(
            f"{_METRIC}: {few} question(s) have fewer than {_FULL_CREDIT_ANSWERS} human answers; "
            "min(1, matches/3) over the leave-one-out subsets cannot reach 1 there (one answer always "
            "scores 0). VQA accuracy expects the 10 human answers of each question",
            UserWarning,
            stacklevel=3,
        )
    scores_arr = items.scores
    scores = scores_arr.tolist()
    per_answer_type = per_question_type = None
    official: dict[str, Any] | None = None
    if spec.prints_figures:
        official = {"overall": _percent(scores)}
    if a_types is not None:
        groups = _groups(a_types, scores_arr)
        per_answer_type = {t: _python_mean(v) for t, v in groups.items()}
        if official is not None:
            official["perAnswerType"] = {t: _percent(v) for t, v in groups.items()}
    if q_types is not None:
        groups = _groups(q_types, scores_arr)
        per_question_type = {t: _python_mean(v) for t, v in groups.items()}
        if official is not None:
            official["perQuestionType"] = {t: _percent(v) for t, v in groups.items()}
    return VQAAccuracyResult(
        accuracy=_python_mean(scores),
        scores=scores if columns else [],
        matches=items.matches.tolist() if columns else [],
        variant=spec.name,
        accuracy_per_answer_type=per_answer_type,
        accuracy_per_question_type=per_question_type,
        official=official,
        signature=build_signature(_METRIC, spec.name),
        answer_types=a_types,
        question_types=q_types,
        predictions=(items.predictions or []) if columns else [],
    )


def compute_vqa_accuracy(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "vqav2",
    answer_types: Sequence[str] | None = None,
    question_types: Sequence[str] | None = None,
) -> VQAAccuracyResult:
    """Score predictions against the human answers with VQA accuracy.

    Args:
        predictions: one answer (str) per question.
        references: per question, the human answers (a list of str, normally 10), or the
            annotation record ``{"answers": [...], "answer_type": ..., "question_type": ...}``.
        variant: one of :data:`VQA_VARIANTS` (module docstring).
        answer_types, question_types: one str per question (override the records' fields).

    Returns:
        :class:`VQAAccuracyResult`; ``accuracy`` is the mean of ``scores`` (a fraction).

    >>> r = compute_vqa_accuracy(["Two dogs.", "yes"], [["2 dogs"] * 3 + ["two dogs"] * 2 + ["dogs"] * 5, ["yes"] * 10])
    >>> r.scores, r.accuracy, r.official["overall"]
    ([1.0, 1.0], 1.0, 100.0)
    >>> compute_vqa_accuracy(["Yes"], [["yes"] * 10]).scores  # unanimous: compared as written
    [0.0]
    """
    return vqa_result(
        vqa_items(
            predictions, references, variant=variant, answer_types=answer_types, question_types=question_types
        )
    )


def explain_vqa_accuracy(
    predictions: Sequence[Any], references: Sequence[Any], result: VQAAccuracyResult
) -> list[str]:
    """Why each question scored what it did (the Spaces' *why* column): the prediction as
    compared, whether the answers were processed, and how many human answers match."""
    rule = VQA_VARIANTS[result.variant].rule
    answer_u, answer_p, pred_u, pred_p = _FORMS[rule]
    out = []
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        answers = vqa_reference(ref, i)[0]
        n, k = len(answers), result.matches[i]
        unanimous = rule != "evalai" and len({answer_u(a) for a in answers}) == 1
        compared = (pred_u if unanimous else pred_p)(pred)
        if rule == "evalai":
            how = "both sides through the EvalAI processor"
        elif unanimous:
            how = (
                "all human answers equal: compared as written, nothing processed (case and punctuation count)"
                if rule == "master"
                else "all human answers equal: answers compared as written, the prediction processed"
            )
        elif rule == "master":
            how = "human answers differ: both sides processed"
        else:
            how = "human answers differ: answers get the punctuation rule only, the prediction is processed"
        out.append(
            f"compared as {compared!r}; {k} of {n} human answers match; {how}; "
            f"score = mean over the {n} leave-one-out sets of min(1, matches/3) = {result.scores[i]:.4g}"
        )
    return out
