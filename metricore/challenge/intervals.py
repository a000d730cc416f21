"""Bootstrap intervals of a challenge score, propagated from the intervals of its tasks.

A challenge's tasks are scored on separate item sets of fixed sizes, so the resampling is
**stratified**: in resample ``b`` every task's items are resampled on their own (``n_t`` of
them, with replacement, from the task's own index stream: :func:`task_seed`), each task
score ``s_t(b)`` is recomputed from its per-item scores, and the combined numbers follow
from their definitions::

    integral(b) = sum_t weight_t * s_t(b)        <group>_sum(b) = sum_{t in group} s_t(b)

Percentile intervals of these (and of each task) use the rule of
:func:`metricore.stats.significance.percentile_interval`. What a task contributes:

* ``token_f1``, ``meteor``, ``one_minus_ned``, ``anls`` and ``meteor_clip`` with both
  sub-scores computed: the mean of the per-item scores (the task score is that mean);
* ``image_generation`` with computed CLIP: ``(mean CLIP + FID term) / 2`` with the FID term
  held fixed (FID compares two feature distributions as a whole; it is not resampled);
* a given score, a missing task, or a composite with a given sub-score: a constant (no
  uncertainty is known for it, so the interval is narrower than the truth).

``tests/challenge/test_significance_challenge.py`` checks the resampled integral against
:func:`metricore.challenge.score_challenge` re-run on each task's resampled items.
"""

from __future__ import annotations

import math

import numpy as np

from metricore.challenge import ChallengeResult, TaskResult
from metricore.stats.significance import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ConfidenceInterval,
    bootstrap_distribution,
    check_interval_options,
    mean_statistic,
    percentile_interval,
)

__all__ = ["challenge_intervals", "task_distributions", "task_seed"]


def task_seed(seed: int | None, position: int) -> int | None:
    """The seed of the index stream of the task at ``position`` in the challenge spec."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, position]).generate_state(1)[0])


def _affine(task: TaskResult) -> tuple[float, float] | None:
    """``(offset, slope)`` with ``score = offset + slope * mean(item_scores)``, or ``None``
    when the task score does not move with its items."""
    if task.source != "computed" or not task.item_scores:
        return None
    mean = float(np.mean(task.item_scores))
    if task.mean_of_items:
        return task.score - mean, 1.0
    if task.metric == "image_generation" and "clip" in task.components:
        return task.score - mean / 2.0, 0.5
    return None


def task_distributions(
    result: ChallengeResult, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED
) -> dict[str, np.ndarray]:
    """Each task's score over ``n_resamples`` stratified resamples (constant for a task
    without per-item scores)."""
    out: dict[str, np.ndarray] = {}
    for position, (name, task) in enumerate(result.tasks.items()):
        line = _affine(task)
        if line is None:
            out[name] = np.full(n_resamples, task.score)
            continue
        offset, slope = line
        dist = bootstrap_distribution(
            [mean_statistic(task.item_scores)], n_resamples=n_resamples, seed=task_seed(seed, position)
        )[0]
        out[name] = offset + slope * dist
    return out


def _interval(
    score: float, values: np.ndarray, confidence: float, n_resamples: int, seed: int | None
) -> ConfidenceInterval:
    low, high = percentile_interval(values, confidence)
    return ConfidenceInterval(
        score, low, high, confidence, n_resamples, seed, float(values.mean()), float(values.std())
    )


def challenge_intervals(
    result: ChallengeResult,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, ConfidenceInterval]:
    """Intervals of ``integral``, of each ``<group>_sum`` and of each task score (keyed by
    task name, unless the name collides with the combined keys)."""
    confidence, n_resamples, seed = check_interval_options(confidence, n_resamples, seed, "challenge_score")
    dists = task_distributions(result, n_resamples=n_resamples, seed=seed)
    integral = np.zeros(n_resamples)
    groups: dict[str, np.ndarray] = {g: np.zeros(n_resamples) for g in result.group_sums}
    for name, task in result.tasks.items():
        integral += task.weight * dists[name]
        groups.setdefault(task.group, np.zeros(n_resamples))
        groups[task.group] += dists[name]
    out = {"integral": _interval(result.integral, integral, confidence, n_resamples, seed)}
    for group, values in groups.items():
        out[f"{group}_sum"] = _interval(
            result.group_sums.get(group, math.nan), values, confidence, n_resamples, seed
        )
    for name, task in result.tasks.items():
        if name not in out:
            out[name] = _interval(task.score, dists[name], confidence, n_resamples, seed)
    return out
