"""The combined challenge score (FusionBrain Challenge 2.0 and user-defined challenges):
:mod:`metricore.challenge`. One item per task: the prediction is ``{"task": name, ...inputs}``
and the reference is that task's references (or ``None``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.challenge import builtin_challenges, inputs_from_rows, score_challenge
from metricore.challenge.intervals import challenge_intervals
from metricore.challenge.score import MISSING_POLICIES, ChallengeResult
from metricore.core.spec import Config, MetricSpec, Option
from metricore.specs._cost import array_shape, calibrated, estimate, size, text_features
from metricore.vision.fid import _route_flops

_MISSING = Option(
    "missing", "choice", "error", "a task without input: an error, or scored 0", choices=MISSING_POLICIES
)


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> ChallengeResult:
    opts = dict(options)
    challenge = opts.pop("spec", None) if config == "custom" else config
    if challenge is None:
        raise ValueError("challenge_score (custom): pass the challenge spec as `spec=`")
    return score_challenge(inputs_from_rows(predictions, references), challenge, **opts)


def _intervals(
    result: ChallengeResult, confidence: float, n_resamples: int, seed: int | None
) -> dict[str, Any]:
    return challenge_intervals(result, confidence=confidence, n_resamples=n_resamples, seed=seed)


#: array inputs of a task (FID features, CLIP embeddings): sized by shape, not walked
ARRAYS = ("generated_features", "real_features", "image_embeddings", "text_embeddings")


def _column(value: Any) -> list[Any] | None:
    """A task's predictions or references as a list (a per-id dict's values), else ``None``."""
    if isinstance(value, Mapping):
        return list(value.values())
    return list(value) if isinstance(value, (list, tuple)) else None


def _task_cost(challenge: Any, name: Any, fields: Mapping[str, Any], ref: Any) -> float | None:
    """A text task's work: ``challenge_score/<metric>/<config>`` of its texts when calibrated
    (a task scored inside the challenge makes no per-sample table), else its metric's Space
    estimate (which counts that table too: more than the task's work); ``None`` when the task
    or its metric is unknown (``meteor_clip`` is METEOR and a CLIP number)."""
    from metricore import registry

    task = next((t for t in challenge.tasks if t.name == name), None)
    metric = None if task is None else ("meteor" if task.metric == "meteor_clip" else task.metric)
    preds, refs = _column(fields.get("predictions")), _column(ref)
    if (
        task is None
        or metric not in registry.names()
        or preds is None
        or refs is None
        or len(preds) != len(refs)
    ):
        return None
    key = f"challenge_score/{metric}/{task.config}"
    if calibrated(key):
        return estimate(key, text_features(preds, refs, words=True))
    try:
        return float(registry.get(metric).bind_options(task.config, task.options).cost(preds, refs))
    except (TypeError, ValueError, LookupError):
        return None


#: the FID's work on the route it takes (:mod:`metricore.vision.fid`): the Gram form's product
#: and singular values, or the covariances' products and eigensolvers (LAPACK's counts; the
#: decompositions run at a fraction of a product's rate, so each has its coefficient)
_FID = ("fid_gram_product", "fid_gram_svd", "fid_covariance_product", "fid_covariance_eig")


def _fid_work(n_a: int, n_b: int, dims: int) -> dict[str, float]:
    small, large = sorted((n_a, n_b))
    gram, covariance = _route_flops(n_a, n_b, dims)
    if gram < covariance:  # the route fid_from_features takes
        return {"fid_gram_product": 2.0 * n_a * n_b * dims, "fid_gram_svd": 4.0 * large * small**2}
    return {"fid_covariance_product": (n_a + n_b) * dims**2, "fid_covariance_eig": 14.0 * dims**3}


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    """Each text task's work (:func:`_task_cost`), then the challenge's own
    (``challenge_score``): the tasks, the numbers of the arrays read, the FID's floating-point operations on its route
    (:func:`_fid_work`; cubic in the feature dimension with many samples) and the characters of
    tasks of unknown metric."""
    from metricore.challenge import load_challenge

    challenge = load_challenge(options.get("spec") if config == "custom" else config)
    total = 0.0
    own = dict.fromkeys(("tasks", "numbers", "unknown_chars", *_FID), 0.0)
    own["request"] = 1.0
    for row, ref in zip(predictions, references):
        fields = dict(row) if isinstance(row, Mapping) else {"value": row}
        name = fields.pop("task", None)
        shapes = {k: array_shape(fields.pop(k, None)) for k in ARRAYS}
        own["tasks"] += 1
        task = _task_cost(challenge, name, fields, ref)
        if task is None:
            own["unknown_chars"] += size(fields)[0] + size(ref)[0]
        else:
            total += task
        own["numbers"] += sum(n * d for n, d in shapes.values())
        (n_a, d_a), (n_b, d_b) = shapes["generated_features"], shapes["real_features"]
        if n_a and n_b:
            for name, flops in _fid_work(n_a, n_b, max(d_a, d_b)).items():
                own[name] += flops
    return total + estimate("challenge_score", own)


SPEC = MetricSpec(
    name="challenge_score",
    label="Challenge",
    rows=False,
    title="Combined challenge score (FusionBrain Challenge 2.0)",
    summary="Each task scored with its metric (token F1, exact match, METEOR, 1-NED, ANLS, CLIP + FID, "
    "METEOR + CLIP) or given as a score, weighted and summed, with per-group sums and eligibility.",
    configs=(
        *(
            Config(
                name,
                f"built-in challenge spec metricore/data/challenges/{name}.json",
                (_MISSING,),
                (("task_inputs", "structured"),),
            )
            for name in builtin_challenges()
        ),
        Config(
            "custom",
            "a challenge spec given at compute time (JSON/YAML text, a path or a mapping)",
            (_MISSING, Option("spec", "table", None, "the challenge spec", required=True, interactive=False)),
            (("task_inputs", "structured"),),
        ),
    ),
    compute=_compute,
    result_types=(ChallengeResult,),
    cost=_cost,
    intervals=_intervals,
)
