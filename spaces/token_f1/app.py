"""Hugging Face Space for token F1 / exact match (SQuAD v1.1, SQuAD v2.0, MLQA, question-level
list answers); the UI is metricore_hf.space."""

import re

from metricore import (
    MLQA_LANGUAGES,
    TOKEN_F1_VARIANTS,
    compute_question_level,
    compute_token_f1,
    parse_squad_records,
    token_scores,
)
from metricore.metrics.token_f1 import token_overlap
from metricore.text.normalize import NORMALIZERS, get_normalizer
from metricore_hf.space import (
    Example,
    Param,
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    launch,
    metric_card,
)

OPTION_LETTER = re.compile("[abcde]")  # the FusionBrain Challenge 2.0 letter rule
SCALE = 100.0  # headline and per-sample numbers on the scripts' (and HF squad's) 0-100 scale


def token_why(pred, gold, norm, rules, has_answer, forced):
    if forced is not None:
        outcome = "the question has an answer → 0" if has_answer else "none expected → 1"
        return f"no_answer_probability {forced:g} > threshold: predicted 'no answer'; {outcome}"
    p, g = norm.tokens(pred), norm.tokens(gold)
    if p or g:
        text = token_overlap(p, g).describe()
        if rules == "v2" and not g and not has_answer:
            return f"no answer expected, answer given → 0 | {text}"
        if rules != "v1" and not g:
            return f"gold answers empty after normalization → 0 | {text}"
        return text
    if rules != "v1":
        return "both empty after normalization → 1" + (
            "" if has_answer else " (no answer expected, none given)"
        )
    return "both empty after normalization → F1 0 (v1.1: no overlap), EM 1"


def letter_fallback(pred, golds, variant, language):
    """The FusionBrain option letter that replaced ``pred`` (its best decisive score <= 0.5 and
    it holds one of a-e, see metricore.metrics.token_f1), or None."""
    spec = TOKEN_F1_VARIANTS[variant]
    found = OPTION_LETTER.search(pred) if spec.letter_fallback and golds else None
    if found is None:
        return None
    best = max(
        getattr(token_scores(pred, g, variant=variant, language=language), spec.letter_fallback)
        for g in golds
    )
    return found.group() if best <= 0.5 else None


def squad_family(predictions, references, variant, language, no_answer_threshold, confidence):
    spec = TOKEN_F1_VARIANTS[variant]
    v2 = spec.rules == "v2"
    r = compute_token_f1(
        predictions,
        references,
        variant=variant,
        language=language,
        **({"no_answer_threshold": no_answer_threshold} if v2 else {}),
    )
    if r.ids is not None:  # Hugging Face SQuAD dicts, scored in reference order
        records = parse_squad_records(predictions, references, use_no_answer_probability=v2)
        texts, probs = records.predictions, records.no_answer_probabilities
    else:
        texts, probs = predictions, [0.0] * len(predictions)
    norm = get_normalizer(spec.normalizer or f"mlqa_{language}")
    has_answer = r.has_answer or [True] * len(texts)
    rows = []
    for k, (pred, gold, f1, em) in enumerate(zip(texts, r.closest, r.f1_scores, r.exact_match_scores)):
        forced = probs[k] if v2 and probs[k] > no_answer_threshold else None
        refs = references[k] if r.ids is None else []
        letter = letter_fallback(pred, [refs] if isinstance(refs, str) else list(refs), variant, language)
        why = token_why(letter or pred, gold, norm, spec.rules, has_answer[k], forced)
        if letter is not None:
            why = f"best {spec.letter_fallback} of the answer ≤ 0.5, so its first option letter '{letter}' is scored | {why}"
        row = {"id": r.ids[k]} if r.ids is not None else {}
        row.update(
            {
                "prediction": pred,
                "best gold": "(no answer)"
                if v2 and gold == "" and (forced is not None or not has_answer[k])
                else gold,
                "F1": SCALE * f1,
                "EM": SCALE * em,
                "why": why,
            }
        )
        rows.append(row)
    if v2:
        headline = {k: v for k, v in r.squad_v2.items() if not k.endswith("total")}
    else:
        headline = {"exact_match": r.exact_match, "f1": r.f1}
    return add_intervals(headline, r, {k: k for k in headline}, confidence), rows, r.signature


def entity_why(pred, gold, norm):
    def entities(value):
        items = [value] if isinstance(value, str) else list(value)
        return list(dict.fromkeys(e for e in norm.many(items) if e))

    p, g = entities(pred), entities(gold)
    if not p and not g:
        return "both sets empty → 1"
    return token_overlap(p, g).describe()


def question_level(predictions, references, normalizer, confidence):
    r = compute_question_level(predictions, references, normalizer=normalizer)
    norm = get_normalizer(normalizer)
    rows = [
        {
            "prediction": display(p),
            "gold": display(g),
            "F1": SCALE * f1,
            "EM": SCALE * em,
            "why": entity_why(p, g, norm),
        }
        for p, g, f1, em in zip(predictions, references, r.f1_scores, r.exact_match_scores)
    ]
    headline = {
        "f1": r.f1,
        "precision": r.precision,
        "recall": r.recall,
        "exact_match": r.exact_match,
        "micro_f1": r.micro_f1,
    }
    return add_intervals(headline, r, {k: k for k in headline}, confidence), rows, r.signature


def score(
    predictions,
    references,
    variant,
    language=None,
    no_answer_threshold=None,
    normalizer=None,
    confidence=None,
):
    if variant == "question_level":
        return question_level(predictions, references, normalizer, confidence)
    return squad_family(predictions, references, variant, language, no_answer_threshold, confidence)


SPEC = SpaceSpec(
    name="token_f1",
    label="Token F1",
    title="Token F1 and exact match (SQuAD, SQuAD v2, MLQA)",
    description="Extractive-QA scoring: per question, the token-overlap F1 and the exact match of the "
    "normalized answer against the best gold answer, averaged and shown on the official scripts' "
    "0-100 scale (as Hugging Face `squad`/`squad_v2`). Variants: "
    + "; ".join(f"`{v.name}`: {v.reference}" for v in TOKEN_F1_VARIANTS.values())
    + "; `question_level`: list answers as entity sets (precision, recall, F1 per question). "
    "`squad_v2` takes Hugging Face SQuAD dicts (`id`, `prediction_text`, `no_answer_probability`) "
    "through the API or JSONL for the no-answer threshold. The *why* column lists the tokens (or "
    "entities) after normalization that both sides share and those only one side has.",
    variants=(*TOKEN_F1_VARIANTS, "question_level"),
    structured_variants=("question_level",),
    params=(
        Param(
            "language",
            "dropdown",
            "en",
            choices=MLQA_LANGUAGES,
            variants=("mlqa",),
            info="MLQA normalizer: the language's punctuation and articles; zh: one token per ideograph",
        ),
        Param(
            "no_answer_threshold",
            "slider",
            1.0,
            label="no-answer threshold",
            variants=("squad_v2",),
            info="questions whose no_answer_probability (SQuAD dict input) is above it count as 'no answer'",
        ),
        Param(
            "normalizer",
            "dropdown",
            "squad",
            choices=tuple(NORMALIZERS),
            variants=("question_level",),
            info="how each entity is normalized before the sets are compared",
        ),
    ),
    examples=(
        Example(
            "SQuAD: articles, punctuation, partial overlap",
            ["the big cat sat", "Denver Broncos", "in 1998.", "Saint Bernadette", "cat cat cat"],
            [
                ["a cat sat down"],
                ["Denver Broncos", "The Denver Broncos"],
                ["1998"],
                ["Saint Bernadette Soubirous"],
                ["cat"],
            ],
        ),
        Example(
            "SQuAD v2: unanswerable questions",
            ["", "Normans", "France", "", "in the 10th century"],
            [[], ["The Normans", "Normans"], [], ["10th and 11th centuries"], ["10th century", "the 10th"]],
            variant="squad_v2",
        ),
        Example(
            "MLQA German (der/die/das are articles)",
            ["der Hund bellt", "die Katze", "Berlin, Deutschland"],
            [["ein Hund bellt laut"], ["Katze"], ["Berlin"]],
            variant="mlqa",
            params={"language": "de"},
        ),
        Example(
            "MLQA Chinese (one token per character)",
            ["北京大学", "长城。", "上海"],
            [["北京"], ["长城"], ["上海市", "在上海"]],
            variant="mlqa",
            params={"language": "zh"},
        ),
        Example(
            "FusionBrain TextQA: lemmas, numbers, option letters",
            ["a) на 0,3 секунды", "A", "b) на секунду", "Авиаконструктора Сухого"],
            [["a", "на 0,3 секунды", "a на 0,3 секунды"]] * 4,
            variant="fbc2_textqa",
        ),
        Example(
            "FusionBrain MathQA: exact match with the letter rule",
            ["d) -3", "3", "ответ: d"],
            [["d", "-3", "d -3"]] * 3,
            variant="fbc2_mathqa",
        ),
        Example(
            "Question level: list answers as entity sets",
            [["Paris", "the Lyon"], ["Nice"], [], ["Rome", "Milan"]],
            [["paris", "Nice", "Lyon"], ["Nice"], [], ["Turin"]],
            variant="question_level",
        ),
    ),
    score_fn=score,
    confidence=True,
    score_range=(0.0, 100.0),
    score_column="F1",
    plotted=("f1",),
    card_path=metric_card(__file__, "token_f1"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
