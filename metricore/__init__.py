"""metricore: exact, fast evaluation metrics for document VQA, QA, captioning and OCR.

Pure functions over Python lists; no ``evaluate``, ``datasets`` or ``gradio`` import. Each
metric is pinned to a named reference implementation (see its module docstring).
"""

from ._version import __version__
from .anls import ANLS_VARIANTS, ANLSResult, ANLSVariant, compute_anls
from .meteor import METEOR_VARIANTS, METEORResult, METEORVariant, compute_meteor
from .ned import EMPTY_PAIR_POLICIES, NEDResult, compute_one_minus_ned
from .quac import QuACResult, compute_quac
from .signature import build_signature
from .token_f1 import (
    MLQA_LANGUAGES,
    TOKEN_F1_VARIANTS,
    QuestionLevelResult,
    SquadRecords,
    TokenF1Result,
    TokenF1Variant,
    TokenScores,
    compute_question_level,
    compute_token_f1,
    parse_squad_records,
    token_scores,
)

__all__ = [
    "__version__",
    "ANLS_VARIANTS",
    "ANLSResult",
    "ANLSVariant",
    "compute_anls",
    "EMPTY_PAIR_POLICIES",
    "NEDResult",
    "compute_one_minus_ned",
    "TOKEN_F1_VARIANTS",
    "MLQA_LANGUAGES",
    "TokenF1Variant",
    "TokenF1Result",
    "TokenScores",
    "SquadRecords",
    "QuestionLevelResult",
    "QuACResult",
    "compute_token_f1",
    "token_scores",
    "parse_squad_records",
    "compute_question_level",
    "compute_quac",
    "build_signature",
]

__all__ += ["METEOR_VARIANTS", "METEORResult", "METEORVariant", "compute_meteor"]

from .cider import CIDER_VARIANTS, CIDErResult, CIDErVariant, DocumentFrequency, compute_cider  # noqa: E402
from .ptb_tokenize import PTBTokenizer, coco_tokenize, ptb_tokens  # noqa: E402

__all__ += [
    "CIDER_VARIANTS",
    "CIDErResult",
    "CIDErVariant",
    "DocumentFrequency",
    "compute_cider",
    "PTBTokenizer",
    "coco_tokenize",
    "ptb_tokens",
]
