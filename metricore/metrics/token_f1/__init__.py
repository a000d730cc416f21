"""Token F1 and exact match for extractive QA: SQuAD v1.1, SQuAD v2.0, MLQA, the FusionBrain
Challenge 2.0 TextQA/MathQA, the question-level (entity) precision/recall/F1 of list answers,
and QuAC's F1 with HEQ-Q/HEQ-D.

Modules, each stating its rules and the reference it is pinned to:

* :mod:`~metricore.metrics.token_f1.variants`: the named variants and their official scripts;
* :mod:`~metricore.metrics.token_f1.overlap`: per-pair token precision/recall/F1/EM, the best
  over a question's golds, :func:`token_scores` and :func:`token_overlap`;
* :mod:`~metricore.metrics.token_f1.squad_format`: Hugging Face's SQuAD dict input, matched by
  ``id``;
* :mod:`~metricore.metrics.token_f1.v2_report`: SQuAD v2.0's no-answer rules and report
  (HasAns/NoAns, best thresholds);
* :mod:`~metricore.metrics.token_f1.squad`: :func:`compute_token_f1` (corpus means, the
  FusionBrain option-letter fallback) and :class:`TokenF1Result`;
* :mod:`~metricore.metrics.token_f1.question_level`: :func:`compute_question_level`;
* :mod:`~metricore.metrics.token_f1.quac`: :func:`compute_quac` (QuAC's official scorer).

Every public name is importable from this package.
"""

from metricore.metrics.token_f1.overlap import TokenOverlap, TokenScores, token_overlap, token_scores
from metricore.metrics.token_f1.quac import (
    CANNOTANSWER,
    DEFAULT_MIN_HUMAN_F1,
    QuACResult,
    compute_quac,
    quac_references,
)
from metricore.metrics.token_f1.question_level import QuestionLevelResult, compute_question_level
from metricore.metrics.token_f1.squad import TokenF1Result, compute_token_f1
from metricore.metrics.token_f1.squad_format import (
    SquadRecords,
    parse_squad_records,
    squad_prediction,
    squad_reference,
)
from metricore.metrics.token_f1.variants import (
    DEFAULT_NO_ANSWER_THRESHOLD,
    MLQA_LANGUAGES,
    TOKEN_F1_VARIANTS,
    TokenF1Variant,
)

__all__ = [
    "TokenF1Variant",
    "TOKEN_F1_VARIANTS",
    "MLQA_LANGUAGES",
    "TokenScores",
    "TokenOverlap",
    "TokenF1Result",
    "SquadRecords",
    "QuestionLevelResult",
    "token_scores",
    "token_overlap",
    "compute_token_f1",
    "parse_squad_records",
    "squad_prediction",
    "squad_reference",
    "compute_question_level",
    "DEFAULT_NO_ANSWER_THRESHOLD",
    "CANNOTANSWER",
    "DEFAULT_MIN_HUMAN_F1",
    "QuACResult",
    "compute_quac",
    "quac_references",
]
