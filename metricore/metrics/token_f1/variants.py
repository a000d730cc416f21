"""The token-F1 variants: frozen :class:`TokenF1Variant` data over the one implementation
(:mod:`metricore.metrics.token_f1.squad`), each pinned to an official script.

``squad`` (default)
    SQuAD v1.1 official ``evaluate-v1.1.py`` (= HF ``evaluate`` ``squad``): normalizer
    ``squad`` (lowercase, delete ASCII punctuation, drop a/an/the, collapse whitespace).
    When nothing overlaps F1 is 0, **also when both sides are empty** (the script's
    ``num_same == 0`` branch returns first); EM of two empty strings is 1.
``squad_v2``
    SQuAD v2.0 official ``evaluate-v2.0.py`` (= HF ``evaluate`` ``squad_v2``): the ``squad``
    normalizer with the no-answer rules of :mod:`metricore.metrics.token_f1.v2_report`; when
    either side has no tokens, P = R = F1 = 1 if both are empty, else 0.
``mlqa``
    MLQA official ``mlqa_evaluation_v1.py`` (facebookresearch/MLQA): the ``squad`` rules with
    the per-language normalizer ``mlqa_<language>`` (Unicode punctuation, the language's
    articles, CJK ideographs one token each for ``zh``); ``language`` is required.
``fbc2_textqa``
    AIJ 2022 FusionBrain Challenge 2.0 TextQA (ai-forever/fbc2_aij2022,
    ``evaluation/textqa/metric/calculate_f1.py``): normalizer ``fbc2_textqa`` (lowercase,
    delete ASCII punctuation, pymorphy lemma of each token with the Russian number words
    0..10 as digits, collapse whitespace; no article removal); either side empty: 1 if both
    are, else 0 (SQuAD v2's pair rule; no gold is dropped); best over golds; the option-letter
    fallback decided on F1 (:func:`metricore.metrics.token_f1.squad._letter_fallback`).
``fbc2_mathqa``
    The challenge's MathQA (``evaluation/mathqa/metric/calculate_exact_score.py``): the same
    with normalizer ``fbc2_mathqa`` (``-`` kept: ``"-3"`` is not ``"3"``); the headline score
    is exact match, which also decides the letter fallback (EM 0 -> fallback).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from metricore.core.validation import check_choice
from metricore.text.normalize import MLQA_LANGUAGES, Normalizer, get_normalizer

__all__ = ["TokenF1Variant", "TOKEN_F1_VARIANTS", "MLQA_LANGUAGES", "DEFAULT_NO_ANSWER_THRESHOLD"]

_METRIC = "token_f1"
DEFAULT_NO_ANSWER_THRESHOLD = 1.0


@dataclass(frozen=True)
class TokenF1Variant:
    """A named bundle of options over the one token-F1 implementation."""

    name: str
    reference: str
    #: normalizer preset; ``None``: ``mlqa_<language>``
    normalizer: str | None
    #: ``v1``: F1 = 0 whenever nothing overlaps (empty vs empty too); ``v2``: the no-answer
    #: rules (empty golds dropped, empty vs empty = 1, thresholds, HasAns/NoAns);
    #: ``empty_match``: only v2's pair rule (either side empty: 1 if both are, else 0)
    rules: Literal["v1", "v2", "empty_match"]
    #: FBC2 letter fallback, decided on this per-question score (``None``: no fallback)
    letter_fallback: Literal["f1", "exact_match"] | None = None


TOKEN_F1_VARIANTS: dict[str, TokenF1Variant] = {
    v.name: v
    for v in (
        TokenF1Variant(
            "squad",
            "SQuAD v1.1 official evaluate-v1.1.py (Rajpurkar et al. 2016); HF evaluate `squad`",
            "squad",
            "v1",
        ),
        TokenF1Variant(
            "squad_v2",
            "SQuAD v2.0 official evaluate-v2.0.py (Rajpurkar et al. 2018); HF evaluate `squad_v2`",
            "squad",
            "v2",
        ),
        TokenF1Variant(
            "mlqa",
            "MLQA official mlqa_evaluation_v1.py, github.com/facebookresearch/MLQA (Lewis et al. 2020)",
            None,
            "v1",
        ),
        TokenF1Variant(
            "fbc2_textqa",
            "AIJ 2022 FusionBrain Challenge 2.0 TextQA, ai-forever/fbc2_aij2022 evaluation/textqa/metric/calculate_f1.py",
            "fbc2_textqa",
            "empty_match",
            "f1",
        ),
        TokenF1Variant(
            "fbc2_mathqa",
            "AIJ 2022 FusionBrain Challenge 2.0 MathQA (exact match), ai-forever/fbc2_aij2022 "
            "evaluation/mathqa/metric/calculate_exact_score.py",
            "fbc2_mathqa",
            "empty_match",
            "exact_match",
        ),
    )
}


def _variant_spec(variant: Any) -> TokenF1Variant:
    return TOKEN_F1_VARIANTS[check_choice(variant, TOKEN_F1_VARIANTS, _METRIC, "variant")]


def _variant_normalizer(spec: TokenF1Variant, language: str | None) -> Normalizer:
    return get_normalizer(spec.normalizer if spec.normalizer is not None else f"mlqa_{language}")


def _check_language(spec: TokenF1Variant, language: Any) -> str | None:
    if spec.normalizer is None:
        if language is None:
            raise ValueError(
                f"{_METRIC}: variant {spec.name!r} needs `language`; allowed: "
                f"{', '.join(repr(lang) for lang in MLQA_LANGUAGES)}"
            )
        return check_choice(language, MLQA_LANGUAGES, _METRIC, "language")
    if language is not None:
        raise ValueError(f"{_METRIC}: `language` is only used by the 'mlqa' variant, not {spec.name!r}")
    return None
