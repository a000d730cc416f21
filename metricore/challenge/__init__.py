"""Combined challenge scores from a declarative spec; ``fbc2`` is the AIJ 2022 FusionBrain
Challenge 2.0 integral score (github.com/ai-forever/fbc2_aij2022).

A challenge is data (:mod:`metricore.challenge.spec`): tasks -> metric + config (+ options)
-> weight -> threshold, in JSON or YAML. Each task composes a core metric
(:mod:`metricore.challenge.tasks`): nothing is re-implemented here. Inputs are per task:
raw predictions/references (plain lists, or the challenge's per-id dicts of typed answer
parts, :mod:`metricore.challenge.layout`), embeddings/features for CLIP and FID, or
precomputed (sub-)scores; or the challenge's own whole-submission files
(:func:`score_submission`).

>>> from metricore.challenge import score_submission, WHOLE_SUBMISSION_EXAMPLE
>>> r = score_submission(**WHOLE_SUBMISSION_EXAMPLE)
>>> r.task_scores["TextQA"], r.task_scores["MathQA"], round(r.task_scores["VisualQA"], 4)
(0.9, 0.5, 0.8)
"""

from metricore.challenge.example import WHOLE_SUBMISSION_EXAMPLE, whole_submission_example
from metricore.challenge.layout import answer_text, gold_answers
from metricore.challenge.score import (
    MISSING_POLICIES,
    ChallengeResult,
    TaskResult,
    inputs_from_rows,
    score_challenge,
    score_submission,
    split_submission,
    submission_inputs,
    task_rows,
)
from metricore.challenge.spec import (
    ChallengeSpec,
    TaskSpec,
    builtin_challenges,
    load_challenge,
    parse_spec_text,
)
from metricore.challenge.tasks import TASK_METRICS, TaskMetric

__all__ = [
    "ChallengeSpec",
    "TaskSpec",
    "load_challenge",
    "builtin_challenges",
    "parse_spec_text",
    "TASK_METRICS",
    "TaskMetric",
    "ChallengeResult",
    "TaskResult",
    "MISSING_POLICIES",
    "score_challenge",
    "score_submission",
    "split_submission",
    "submission_inputs",
    "task_rows",
    "inputs_from_rows",
    "answer_text",
    "gold_answers",
    "WHOLE_SUBMISSION_EXAMPLE",
    "whole_submission_example",
]
