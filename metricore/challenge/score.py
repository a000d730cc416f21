"""Score a whole challenge: each task's score, the per-group sums, the integral score and
the eligibility of each task against its threshold."""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from metricore.challenge.layout import fail
from metricore.challenge.spec import ChallengeSpec, TaskSpec, load_challenge
from metricore.challenge.tasks import TASK_METRICS, TaskOutcome, given_number
from metricore.core.pairing import IdMismatch, pair_ids
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.validation import check_choice

__all__ = [
    "TaskResult",
    "ChallengeResult",
    "MISSING_POLICIES",
    "score_challenge",
    "split_submission",
    "submission_inputs",
    "score_submission",
    "task_rows",
    "inputs_from_rows",
]

_METRIC = "challenge_score"
MISSING_POLICIES = ("error", "zero")


@dataclass(frozen=True)
class TaskResult:
    """One task of a scored challenge.

    ``source``: ``"computed"`` (from raw inputs, possibly with given sub-scores),
    ``"given"`` (a precomputed score) or ``"missing"`` (no input, scored 0 with
    ``missing="zero"``). ``eligible`` is ``score >= threshold`` (``None`` without threshold).
    """

    task: str
    group: str
    metric: str
    config: str | None
    score: float
    weight: float
    contribution: float
    threshold: float | None
    eligible: bool | None
    source: Literal["computed", "given", "missing"]
    components: dict[str, float]
    n: int | None
    ids: list[str] | None
    item_scores: list[float] | None
    signatures: dict[str, str]
    #: the score is the mean of ``item_scores`` (plus a constant), so resampling the items
    #: resamples it (:mod:`metricore.challenge.intervals`)
    mean_of_items: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "group": self.group,
            "metric": self.metric,
            "config": self.config,
            "weight": self.weight,
            "contribution": self.contribution,
            "threshold": self.threshold,
            "eligible": self.eligible,
            "source": self.source,
            "components": dict(self.components),
            "n": self.n,
            "ids": None if self.ids is None else list(self.ids),
            "item_scores": None if self.item_scores is None else list(self.item_scores),
            "signatures": dict(self.signatures),
        }


@dataclass(frozen=True)
class ChallengeResult(MetricResult):
    """The integral score ``sum(weight * score)``, every task's score, the sum of the task
    scores of each group (``fbc2``: ``open`` and ``hidden``) and the eligibility verdicts
    (``eligible``: every task with a threshold reaches it)."""

    challenge: str
    integral: float
    #: task name -> score
    task_scores: dict[str, float]
    group_sums: dict[str, float]
    eligibility: dict[str, bool]
    eligible: bool
    tasks: dict[str, TaskResult]
    signature: str = field(repr=False)

    # the items of this result are the challenge's tasks (in its task order)
    METRIC = "challenge_score"
    HEADLINE = (Headline("integral", higher_is_better=True),)

    @classmethod
    def headline_info(cls, key: str) -> Headline:
        if key.endswith("_sum"):  # one per group of the challenge: a sum of its task scores
            return Headline(key, higher_is_better=True)
        return super().headline_info(key)

    @property
    def scores(self) -> list[float]:  # type: ignore[override]
        """The task scores in the challenge's task order."""
        return list(self.task_scores.values())

    def headline_values(self) -> dict[str, Any]:
        """``integral`` and the sum of each group (``<group>_sum``)."""
        return {"integral": self.integral, **{f"{g}_sum": s for g, s in self.group_sums.items()}}

    def extra(self) -> dict[str, Any]:
        """``eligibility``, ``eligible`` and ``tasks`` (each :meth:`TaskResult.as_dict`)."""
        return {
            "eligibility": dict(self.eligibility),
            "eligible": self.eligible,
            "tasks": {name: t.as_dict() for name, t in self.tasks.items()},
        }

    def item_ids(self) -> list[str]:
        return list(self.task_scores)

    def columns(self) -> dict[str, Sequence[Any]]:
        """Per task: its ``weight``, ``contribution``, ``group``, ``metric``, ``source`` and
        ``eligible``."""
        tasks = list(self.tasks.values())
        return {
            key: [getattr(t, key) for t in tasks]
            for key in ("weight", "contribution", "group", "metric", "source", "eligible")
        }

    @property
    def open_sum(self) -> float:
        return self.group_sums.get("open", 0.0)

    @property
    def hidden_sum(self) -> float:
        return self.group_sums.get("hidden", 0.0)


def _task_input(task: TaskSpec, value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        data = {str(k): v for k, v in value.items()}
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        data = {"score": value}
    else:
        raise fail(
            task.name,
            f"input must be a number (the task's score) or a mapping of inputs, got {type(value).__name__} ({value!r:.60})",
            TypeError,
        )
    metric = TASK_METRICS[task.metric]
    allowed = {"score"} | set(metric.inputs) | set(metric.components)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise fail(
            task.name,
            f"unknown input field(s) {', '.join(map(repr, unknown))} for metric {task.metric!r}; "
            f"allowed: {', '.join(map(repr, sorted(allowed)))}",
        )
    if "score" in data and len(data) > 1:
        others = ", ".join(repr(k) for k in data if k != "score")
        raise fail(task.name, f"give either `score` or the raw inputs ({others}), not both")
    if not data:
        raise fail(task.name, "input is an empty mapping")
    return data


def _score_task(task: TaskSpec, data: dict[str, Any]) -> tuple[TaskOutcome, Literal["computed", "given"]]:
    if "score" in data:
        score = given_number(task.name, "score", data["score"], 0.0, 1.0)
        return TaskOutcome(score, {}), "given"
    metric = TASK_METRICS[task.metric]
    if metric.scorer is None:
        raise fail(
            task.name, f"metric {task.metric!r} takes only a given `score`, got {', '.join(map(repr, data))}"
        )
    if metric.inputs & {"predictions", "references"} and not metric.components:
        missing = [k for k in ("predictions", "references") if k not in data]
        if missing:
            raise fail(
                task.name,
                f"needs `score` or `predictions` + `references` (missing {', '.join(map(repr, missing))})",
            )
    outcome = metric.scorer(task.name, task.config or "", task.options, data)
    if not math.isfinite(outcome.score):
        raise fail(task.name, f"the score is not finite ({outcome.score})")
    return outcome, "computed"


def score_challenge(
    inputs: Mapping[str, Any],
    challenge: Any = "fbc2",
    *,
    missing: Literal["error", "zero"] = "error",
) -> ChallengeResult:
    """Score every task of ``challenge`` and combine them.

    Args:
        inputs: task name -> the task's input: a number (its score), ``{"score": s}``, or
            its raw inputs (see :mod:`metricore.challenge.tasks`), e.g. ``{"predictions":
            ..., "references": ...}`` as plain lists or per-id dicts of typed answer parts.
        challenge: a built-in name (``"fbc2"``), a spec path, JSON/YAML text, a mapping or a
            :class:`~metricore.challenge.ChallengeSpec`.
        missing: a task without input is an error (``"error"``, default) or scores 0
            (``"zero"``, the leaderboard's view of an unsolved task).

    >>> r = score_challenge({t: 1.0 for t in load_challenge("fbc2").task_names})
    >>> round(r.integral, 12), r.open_sum, r.hidden_sum, r.eligible
    (1.0, 6.0, 6.0, True)
    """
    spec = load_challenge(challenge)
    check_choice(missing, MISSING_POLICIES, _METRIC, "missing")
    if not isinstance(inputs, Mapping):
        raise TypeError(
            f"{_METRIC}: `inputs` must be a mapping from task name to input, got {type(inputs).__name__}"
        )
    names = set(spec.task_names)
    unknown = [k for k in inputs if k not in names]
    if unknown:
        raise ValueError(
            f"{_METRIC}: unknown task(s) {', '.join(map(repr, unknown))} for challenge {spec.name!r}; "
            f"tasks: {', '.join(map(repr, spec.task_names))}"
        )
    absent = [t for t in spec.task_names if t not in inputs]
    if absent and missing == "error":
        raise ValueError(
            f"{_METRIC}: challenge {spec.name!r}: missing task(s) {', '.join(map(repr, absent))}; give their "
            "inputs or scores, or pass missing='zero' to score them 0"
        )
    results: dict[str, TaskResult] = {}
    for task in spec.tasks:
        source: Literal["computed", "given", "missing"]
        if task.name in inputs:
            outcome, source = _score_task(task, _task_input(task, inputs[task.name]))
        else:
            outcome, source = TaskOutcome(0.0, {}), "missing"
        score = outcome.score
        eligible = None if task.threshold is None else score >= task.threshold
        results[task.name] = TaskResult(
            task=task.name,
            group=task.group,
            metric=task.metric,
            config=task.config,
            score=score,
            weight=task.weight,
            contribution=task.weight * score,
            threshold=task.threshold,
            eligible=eligible,
            source=source,
            components=dict(outcome.components),
            n=outcome.n,
            ids=outcome.ids,
            item_scores=outcome.item_scores,
            signatures=dict(outcome.signatures),
            mean_of_items=outcome.mean_of_items,
        )
    group_sums = {g: math.fsum(t.score for t in results.values() if t.group == g) for g in spec.groups}
    integral = math.fsum(t.contribution for t in results.values())
    eligibility = {name: bool(t.eligible) for name, t in results.items() if t.eligible is not None}
    return ChallengeResult(
        challenge=spec.name,
        integral=integral,
        task_scores={name: t.score for name, t in results.items()},
        group_sums=group_sums,
        eligibility=eligibility,
        eligible=all(eligibility.values()),
        tasks=results,
        signature=_signature(spec, missing, results),
    )


def _signature(spec: ChallengeSpec, missing: str, results: Mapping[str, TaskResult]) -> str:
    """The challenge, its spec digest, the options, and a digest of the task sources and the
    core metrics' signatures (equal signatures: comparable integral scores)."""
    parts = [
        f"{name}={t.source}:" + ";".join(f"{k}={v}" for k, v in sorted(t.signatures.items()))
        for name, t in results.items()
    ]
    tasks = hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]
    return build_signature(
        _METRIC, spec.name, {"spec": spec.digest, "missing": missing, "tasks": tasks}, {"missing": "error"}
    )


# --------------------------------------------------------------------------------------------
# The challenge's whole-submission files
# --------------------------------------------------------------------------------------------


def _task_by_id(spec: ChallengeSpec) -> dict[str, str]:
    out = {t.task_id: t.name for t in spec.tasks if t.task_id is not None}
    out.update({t.name: t.name for t in spec.tasks})
    return out


def split_submission(
    predictions: Mapping[Any, Any],
    references: Mapping[Any, Any],
    task_ids: Mapping[Any, Any],
    challenge: Any = "fbc2",
) -> dict[str, dict[str, Any]]:
    """Split the challenge's whole-submission files into per-task inputs.

    ``predictions`` (predictions.json) and ``references`` (ground_truth.json) map each sample
    id to its typed answer parts; ``task_ids`` (sample_ids.json) maps each sample id to a task
    (its ``task_id`` in the spec, e.g. ``0`` for TextQA in ``fbc2``, or the task name).
    Returns task name -> ``{"predictions": {id: parts}, "references": {id: parts}}`` for the
    tasks scored from text, and ``{"ids": [id, ...]}`` for the others (``fbc2``
    ImageGeneration, whose answers are image files): give their embeddings (per-id dicts are
    matched with these ids), features or sub-scores as more inputs of that task.
    """
    spec = load_challenge(challenge)
    for name, value in (("predictions", predictions), ("references", references), ("task_ids", task_ids)):
        if not isinstance(value, Mapping):
            raise TypeError(
                f"{_METRIC}: `{name}` must be a dict from sample id to its entry, got {type(value).__name__}"
            )
    by_id = _task_by_id(spec)
    preds = {str(k): v for k, v in predictions.items()}
    refs = {str(k): v for k, v in references.items()}
    tasks: dict[str, TaskSpec] = {}
    for sample, task_id in task_ids.items():
        sid = str(sample)
        key = str(task_id) if not isinstance(task_id, bool) else repr(task_id)
        if key not in by_id:
            known = ", ".join(repr(t) for t in by_id)
            raise ValueError(
                f"{_METRIC}: `task_ids[{sid!r}]` is {task_id!r}, not a task of {spec.name!r} ({known})"
            )
        tasks[sid] = spec.task(by_id[key])
    labelled = list(tasks)
    for name, side in (("references", refs), ("predictions", preds)):
        try:
            pair_ids(list(side), labelled)
        except IdMismatch as err:
            if err.missing:
                sid = labelled[err.missing[0]]
                what = (
                    f"sample {sid!r} has no entry in `references`"
                    if name == "references"
                    else f"no prediction for id {sid!r}"
                )
                raise fail(tasks[sid].name, f"mismatched ids: {what}") from None
            keys = list(side)
            shown = ", ".join(repr(keys[i]) for i in err.extra[:5])
            raise ValueError(
                f"{_METRIC}: mismatched ids: `{name}` has id(s) {shown} without a task in `task_ids`"
            ) from None
    # task name -> {"predictions": {id: parts}, "references": {id: parts}} or {"ids": [id, ...]}
    out: dict[str, dict[str, Any]] = {}
    for sid, task in tasks.items():
        if "predictions" not in TASK_METRICS[task.metric].inputs:
            out.setdefault(task.name, {"ids": []})["ids"].append(sid)
            continue
        entry = out.setdefault(task.name, {"predictions": {}, "references": {}})
        entry["predictions"][sid] = preds[sid]
        entry["references"][sid] = refs[sid]
    return out


def submission_inputs(
    predictions: Mapping[Any, Any],
    references: Mapping[Any, Any],
    task_ids: Mapping[Any, Any],
    extra: Mapping[str, Any] | None = None,
    challenge: Any = "fbc2",
) -> dict[str, Any]:
    """:func:`split_submission` merged with ``extra`` (task name -> more inputs: a hidden
    task's score, embeddings, features or sub-scores); a field given twice is an error."""
    spec = load_challenge(challenge)
    merged: dict[str, Any] = {
        name: dict(v) for name, v in split_submission(predictions, references, task_ids, spec).items()
    }
    for name, value in (extra or {}).items():
        if name not in spec.task_names:
            spec.task(name)  # raises: unknown task
        only_ids = set(merged.get(name, {})) <= {"ids"}
        given = not isinstance(value, Mapping) or "score" in value
        if name not in merged or (only_ids and given):
            merged[name] = value  # a given score needs no sample ids
            continue
        if not isinstance(value, Mapping):
            raise fail(
                name,
                "has answers in the submission files; its `extra` entry must be a mapping of more inputs",
            )
        clash = sorted(set(value) & set(merged[name]))
        if clash:
            raise fail(
                name,
                f"input field(s) {', '.join(map(repr, clash))} given both in the submission and in `extra`",
            )
        merged[name].update(value)
    return merged


def score_submission(
    predictions: Mapping[Any, Any],
    references: Mapping[Any, Any],
    task_ids: Mapping[Any, Any],
    extra: Mapping[str, Any] | None = None,
    *,
    challenge: Any = "fbc2",
    missing: Literal["error", "zero"] = "error",
) -> ChallengeResult:
    """Score the challenge's own whole-submission files (see :func:`split_submission`), with
    ``extra`` inputs per task (hidden scores, image embeddings/features or sub-scores)."""
    spec = load_challenge(challenge)
    return score_challenge(
        submission_inputs(predictions, references, task_ids, extra, spec), spec, missing=missing
    )


# --------------------------------------------------------------------------------------------
# One row per task (the evaluate module's format)
# --------------------------------------------------------------------------------------------


def task_rows(inputs: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Per-task inputs as two aligned columns: ``predictions`` rows ``{"task": name, ...every
    field but references}`` and ``references`` rows (the task's references, or ``None``)."""
    preds: list[dict[str, Any]] = []
    refs: list[Any] = []
    for name, value in inputs.items():
        data = dict(value) if isinstance(value, Mapping) else {"score": value}
        refs.append(data.pop("references", None))
        preds.append({"task": name, **data})
    return preds, refs


def inputs_from_rows(predictions: list[Any], references: list[Any]) -> dict[str, Any]:
    """The inverse of :func:`task_rows`; a task named twice is an error."""
    out: dict[str, Any] = {}
    for k, (row, ref) in enumerate(zip(predictions, references)):
        if not isinstance(row, Mapping) or not isinstance(row.get("task"), str):
            raise TypeError(
                f"{_METRIC}: `predictions[{k}]` must be a dict with a str 'task' and that task's inputs, "
                f"got {row!r:.80}"
            )
        name = row["task"]
        if name in out:
            raise ValueError(f"{_METRIC}: task {name!r} appears twice (predictions[{k}])")
        data = {f: v for f, v in row.items() if f != "task"}
        if ref is not None:
            if "references" in data:
                raise fail(
                    name, f"`predictions[{k}]` has a 'references' field; give references in `references[{k}]`"
                )
            data["references"] = ref
        out[name] = data
    return out
