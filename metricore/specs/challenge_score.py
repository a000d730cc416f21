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
from metricore.specs._cost import ARRAY_NUMBER, FLOPS_PER_UNIT, array_shape, size, text_cost
from metricore.vision.fid import fid_flops

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


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    """Text work by size (at METEOR's rate per character, the dearest text metric of a
    challenge), reading the arrays, and the FID's floating-point operations (cubic in the
    feature dimension with many samples, see :func:`metricore.vision.fid.fid_flops`)."""
    total = 0.0
    for row, ref in zip(predictions, references):
        fields = dict(row) if isinstance(row, Mapping) else {"value": row}
        shapes = {k: array_shape(fields.pop(k, None)) for k in ARRAYS}
        total += text_cost(size(fields)[0] + size(ref)[0])
        total += ARRAY_NUMBER * sum(n * d for n, d in shapes.values())
        (n_a, d_a), (n_b, d_b) = shapes["generated_features"], shapes["real_features"]
        if n_a and n_b:
            total += fid_flops(n_a, n_b, max(d_a, d_b)) / FLOPS_PER_UNIT
    return total


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
