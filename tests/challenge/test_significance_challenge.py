"""Challenge-score intervals (:mod:`metricore.challenge.intervals`): the stratified resampling
equals :func:`metricore.challenge.score_challenge` re-run on each task's resampled items."""

from __future__ import annotations

import math
import random

import evaluate
import numpy as np
import pytest

from metricore.challenge import score_challenge
from metricore.challenge.intervals import challenge_intervals, task_distributions, task_seed
from metricore.intervals import confidence_intervals, interval_fields
from metricore.stats.significance import resample_indices

SPEC = {
    "name": "toy",
    "tasks": {
        "QA": {"group": "open", "metric": "token_f1", "config": "squad", "weight": 0.5},
        "Doc": {"group": "open", "metric": "anls", "config": "docvqa", "weight": 0.3},
        "Given": {"group": "hidden", "metric": "score", "weight": 0.1},
        "OCR": {"group": "hidden", "metric": "one_minus_ned", "config": "icdar2019", "weight": 0.2},
    },
}
WORDS = "cat dog mat park red blue two sits runs".split()


def _inputs() -> dict:
    rng = random.Random(5)

    def column(n: int, words: int) -> tuple[list[str], list[list[str]]]:
        refs = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, words)))] for _ in range(n)]
        preds = [r[0] if rng.random() < 0.5 else rng.choice(WORDS) for r in refs]
        return preds, refs

    qa, doc, ocr = column(9, 3), column(7, 2), column(11, 1)
    return {
        "QA": {"predictions": qa[0], "references": qa[1]},
        "Doc": {"predictions": doc[0], "references": doc[1]},
        "Given": 0.42,
        "OCR": {"predictions": ocr[0], "references": [r[0] for r in ocr[1]]},
    }


def test_stratified_resampling_equals_the_challenge_rerun_on_resampled_tasks():
    inputs = _inputs()
    result = score_challenge(inputs, SPEC)
    n_resamples, seed = 10, 3
    dists = task_distributions(result, n_resamples=n_resamples, seed=seed)
    rows = {}
    for position, name in enumerate(SPEC["tasks"]):
        if isinstance(inputs[name], dict):
            n = len(inputs[name]["predictions"])
            rows[name] = np.concatenate(list(resample_indices(n, n_resamples, task_seed(seed, position))))
    ci = challenge_intervals(result, n_resamples=n_resamples, seed=seed, confidence=0.8)
    integrals = []
    for b in range(n_resamples):
        resampled = {
            name: {k: [v[i] for i in rows[name][b]] for k, v in value.items()} if name in rows else value
            for name, value in inputs.items()
        }
        again = score_challenge(resampled, SPEC)
        for name in SPEC["tasks"]:
            assert math.isclose(dists[name][b], again.task_scores[name], rel_tol=1e-12, abs_tol=1e-12), (
                name,
                b,
            )
        integrals.append(again.integral)
    integrals = np.sort(integrals)
    assert (ci["integral"].low, ci["integral"].high) == pytest.approx(
        (integrals[1], integrals[-2]), abs=1e-12
    )
    assert ci["integral"].score == result.integral
    assert ci["Given"].low == ci["Given"].high == 0.42  # a given score carries no known uncertainty
    assert ci["open_sum"].low <= result.group_sums["open"] <= ci["open_sum"].high


def test_challenge_interval_fields_are_flat():
    result = score_challenge(_inputs(), SPEC)
    fields = interval_fields(result, n_resamples=100, seed=1)
    for key in ("integral", "open_sum", "hidden_sum", "QA", "Doc", "Given", "OCR"):
        assert fields[f"{key}_ci_low"] <= fields[f"{key}_ci_high"]
    assert confidence_intervals(result, n_resamples=100, seed=1)["integral"].low == fields["integral_ci_low"]
    with pytest.raises(ValueError, match=r"^challenge_score: `confidence` must be in \(0, 1\)"):
        challenge_intervals(result, confidence=1.0)


def test_challenge_evaluate_module_confidence_keyword():
    cs = evaluate.load("metrics/challenge_score", "custom")
    inputs = _inputs()
    rows = [
        {"task": "QA", "predictions": inputs["QA"]["predictions"]},
        {"task": "Doc", "predictions": inputs["Doc"]["predictions"]},
        {"task": "Given", "score": 0.42},
        {"task": "OCR", "predictions": inputs["OCR"]["predictions"]},
    ]
    refs = [inputs["QA"]["references"], inputs["Doc"]["references"], None, inputs["OCR"]["references"]]
    got = cs.compute(predictions=rows, references=refs, spec=SPEC, confidence=0.9, n_resamples=200, seed=7)
    want = interval_fields(score_challenge(inputs, SPEC), confidence=0.9, n_resamples=200, seed=7)
    assert {k: got[k] for k in want} == pytest.approx(want)
    assert got["integral_ci_low"] <= got["integral"] <= got["integral_ci_high"]
