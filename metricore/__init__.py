"""metricore: exact, fast evaluation metrics for document VQA, QA, captioning and OCR.

Pure functions over Python lists; no ``evaluate``, ``datasets`` or ``gradio`` import. Each
metric is pinned to a named reference implementation (see its module docstring).
"""

from metricore._version import __version__
from metricore.core.signature import build_signature
from metricore.metrics.anls import ANLS_VARIANTS, ANLSResult, ANLSVariant, compute_anls
from metricore.metrics.meteor import METEOR_VARIANTS, METEORResult, METEORVariant, compute_meteor
from metricore.metrics.ned import EMPTY_PAIR_POLICIES, NEDResult, compute_one_minus_ned
from metricore.metrics.quac import QuACResult, compute_quac
from metricore.metrics.token_f1 import (
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

from metricore.metrics.cider import (  # noqa: E402
    CIDER_VARIANTS,
    CIDErResult,
    CIDErVariant,
    DocumentFrequency,
    compute_cider,
)
from metricore.text.ptb_tokenize import PTBTokenizer, coco_tokenize, ptb_tokens  # noqa: E402

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

# metricore.vision.embed (torch/transformers) is deliberately not imported here. The function
# clip_score stays in its module: re-exported, it would shadow the submodule metricore.vision.clip_score.
from metricore.vision.clip_score import clip_cosine, ref_clip_score  # noqa: E402
from metricore.vision.fid import feature_statistics, fid_from_features, frechet_distance  # noqa: E402

__all__ += [
    "clip_cosine",
    "ref_clip_score",
    "feature_statistics",
    "fid_from_features",
    "frechet_distance",
]

from metricore.challenge import (  # noqa: E402
    ChallengeResult,
    ChallengeSpec,
    load_challenge,
    score_challenge,
    score_submission,
)

__all__ += ["ChallengeResult", "ChallengeSpec", "load_challenge", "score_challenge", "score_submission"]

from metricore.intervals import confidence_intervals  # noqa: E402
from metricore.stats.significance import (  # noqa: E402
    ConfidenceInterval,
    PairedBootstrapResult,
    PairedRandomizationResult,
    bootstrap_ci,
    paired_bootstrap,
    paired_randomization,
)

__all__ += [
    "ConfidenceInterval",
    "PairedBootstrapResult",
    "PairedRandomizationResult",
    "bootstrap_ci",
    "confidence_intervals",
    "paired_bootstrap",
    "paired_randomization",
]
