"""metricore: exact, fast evaluation metrics for document VQA, QA, captioning and OCR.

Pure functions over Python lists; no ``evaluate``, ``datasets`` or ``gradio`` import. Each
metric is pinned to a named reference implementation (see its module docstring).

The public names below are loaded on first access (PEP 562): ``import metricore`` imports
no metric, no numpy and no scipy; ``from metricore import compute_anls`` imports
:mod:`metricore.metrics.anls` (and what it needs) only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from metricore._version import __version__

if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from metricore.challenge import (
        ChallengeResult,
        ChallengeSpec,
        load_challenge,
        score_challenge,
        score_submission,
    )
    from metricore.core.signature import build_signature
    from metricore.intervals import confidence_intervals
    from metricore.metrics.anls import ANLS_VARIANTS, ANLSResult, ANLSVariant, compute_anls
    from metricore.metrics.cider import (
        CIDER_VARIANTS,
        CIDErResult,
        CIDErVariant,
        DocumentFrequency,
        compute_cider,
    )
    from metricore.metrics.meteor import METEOR_VARIANTS, METEORResult, METEORVariant, compute_meteor
    from metricore.metrics.ned import EMPTY_PAIR_POLICIES, NEDResult, compute_one_minus_ned
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
    from metricore.metrics.token_f1.quac import QuACResult, compute_quac
    from metricore.stats.significance import (
        ConfidenceInterval,
        PairedBootstrapResult,
        PairedRandomizationResult,
        bootstrap_ci,
        paired_bootstrap,
        paired_randomization,
    )
    from metricore.text.ptb_tokenize import PTBTokenizer, coco_tokenize, ptb_tokens

    # metricore.vision.embed (torch/transformers) is never imported from here. The function
    # clip_score stays in its module: re-exported, it would shadow the submodule
    # metricore.vision.clip_score.
    from metricore.vision.clip_score import clip_cosine, ref_clip_score
    from metricore.vision.fid import feature_statistics, fid_from_features, frechet_distance

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
    "METEOR_VARIANTS",
    "METEORResult",
    "METEORVariant",
    "compute_meteor",
    "CIDER_VARIANTS",
    "CIDErResult",
    "CIDErVariant",
    "DocumentFrequency",
    "compute_cider",
    "PTBTokenizer",
    "coco_tokenize",
    "ptb_tokens",
    "clip_cosine",
    "ref_clip_score",
    "feature_statistics",
    "fid_from_features",
    "frechet_distance",
    "ChallengeResult",
    "ChallengeSpec",
    "load_challenge",
    "score_challenge",
    "score_submission",
    "ConfidenceInterval",
    "PairedBootstrapResult",
    "PairedRandomizationResult",
    "bootstrap_ci",
    "confidence_intervals",
    "paired_bootstrap",
    "paired_randomization",
]

#: public name -> the module it is loaded from on first access
_LAZY: dict[str, str] = {
    **dict.fromkeys(("ANLS_VARIANTS", "ANLSResult", "ANLSVariant", "compute_anls"), "metricore.metrics.anls"),
    **dict.fromkeys(("EMPTY_PAIR_POLICIES", "NEDResult", "compute_one_minus_ned"), "metricore.metrics.ned"),
    **dict.fromkeys(
        (
            "TOKEN_F1_VARIANTS",
            "MLQA_LANGUAGES",
            "TokenF1Variant",
            "TokenF1Result",
            "TokenScores",
            "SquadRecords",
            "QuestionLevelResult",
            "compute_token_f1",
            "token_scores",
            "parse_squad_records",
            "compute_question_level",
        ),
        "metricore.metrics.token_f1",
    ),
    **dict.fromkeys(("QuACResult", "compute_quac"), "metricore.metrics.token_f1.quac"),
    "build_signature": "metricore.core.signature",
    **dict.fromkeys(
        ("METEOR_VARIANTS", "METEORResult", "METEORVariant", "compute_meteor"), "metricore.metrics.meteor"
    ),
    **dict.fromkeys(
        ("CIDER_VARIANTS", "CIDErResult", "CIDErVariant", "DocumentFrequency", "compute_cider"),
        "metricore.metrics.cider",
    ),
    **dict.fromkeys(("PTBTokenizer", "coco_tokenize", "ptb_tokens"), "metricore.text.ptb_tokenize"),
    **dict.fromkeys(("clip_cosine", "ref_clip_score"), "metricore.vision.clip_score"),
    **dict.fromkeys(("feature_statistics", "fid_from_features", "frechet_distance"), "metricore.vision.fid"),
    **dict.fromkeys(
        ("ChallengeResult", "ChallengeSpec", "load_challenge", "score_challenge", "score_submission"),
        "metricore.challenge",
    ),
    **dict.fromkeys(
        (
            "ConfidenceInterval",
            "PairedBootstrapResult",
            "PairedRandomizationResult",
            "bootstrap_ci",
            "paired_bootstrap",
            "paired_randomization",
        ),
        "metricore.stats.significance",
    ),
    "confidence_intervals": "metricore.intervals",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
