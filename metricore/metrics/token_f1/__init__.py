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

Each ``compute_*`` is ``*_result(*_items(...))``: the per-question statistics of the rows
(``TokenF1Items``, ``QuestionLevelItems``, ``QuACItems``), then the corpus numbers from them,
so that rows can be scored in batches (:mod:`metricore.core.stream`).

Every public name is importable from this package.
"""

from metricore.metrics.token_f1.overlap import TokenOverlap, TokenScores, token_overlap, token_scores
from metricore.metrics.token_f1.quac import (
    CANNOTANSWER,
    DEFAULT_MIN_HUMAN_F1,
    QuACItems,
    QuACResult,
    compute_quac,
    quac_items,
    quac_references,
    quac_result,
)
from metricore.metrics.token_f1.question_level import (
    QuestionLevelItems,
    QuestionLevelResult,
    compute_question_level,
    question_level_items,
    question_level_result,
)
from metricore.metrics.token_f1.squad import (
    InputRows,
    TokenF1Items,
    TokenF1Result,
    compute_token_f1,
    token_f1_items,
    token_f1_result,
)
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
    "TokenF1Items",
    "InputRows",
    "SquadRecords",
    "QuestionLevelResult",
    "QuestionLevelItems",
    "token_scores",
    "token_overlap",
    "compute_token_f1",
    "token_f1_items",
    "token_f1_result",
    "parse_squad_records",
    "squad_prediction",
    "squad_reference",
    "compute_question_level",
    "question_level_items",
    "question_level_result",
    "DEFAULT_NO_ANSWER_THRESHOLD",
    "CANNOTANSWER",
    "DEFAULT_MIN_HUMAN_F1",
    "QuACResult",
    "QuACItems",
    "compute_quac",
    "quac_items",
    "quac_result",
    "quac_references",
]
