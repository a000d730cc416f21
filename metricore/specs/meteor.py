"""METEOR (NLTK-exact, FusionBrain Challenge 2.0 variants): :mod:`metricore.metrics.meteor`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.spec import Config, Example, MetricSpec, Option
from metricore.lexicon.synonyms import SYNONYM_SOURCES
from metricore.metrics.meteor import METEOR_VARIANTS, TOKENIZERS, METEORResult, compute_meteor, explain_meteor
from metricore.specs._cost import token_cost
from metricore.stats.significance import Statistic, mean_statistic

NLTK_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_REF = "It is a guide to action that ensures that the military will forever heed Party commands"


def _options(name: str) -> tuple[Option, ...]:
    v = METEOR_VARIANTS[name]
    options: tuple[Option, ...] = (
        Option("alpha", "number", v.alpha, "weight of precision vs recall in Fmean", low=0.0, high=1.0),
        Option("beta", "number", v.beta, "shape of the fragmentation penalty", low=0.0),
        Option("gamma", "number", v.gamma, "maximum fragmentation penalty (0: none)", low=0.0, high=1.0),
        Option(
            "synonyms",
            "choice",
            v.synonyms,
            "synonym stage: WordNet 3.0, a Russian thesaurus (ruwordnet, wiki_ru_wordnet, auto), none, "
            "or a dict {word: [synonyms]}",
            choices=SYNONYM_SOURCES,
            open_choices=True,
        ),
        Option("tokenizer", "choice", v.tokenizer, "how text is split into words", choices=TOKENIZERS),
    )
    if name == "fbc2_vqa":
        options += (Option("lemmatize", "bool", True, "the challenge's pymorphy lemma of the whole answer"),)
    return options


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> METEORResult:
    return compute_meteor(predictions, references, variant=config, **options)


def _statistics(r: METEORResult) -> dict[str, Statistic]:
    return {"meteor": mean_statistic(r.scores, name="meteor")}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: METEORResult,
) -> list[str]:
    return [
        explain_meteor(p, refs, variant=config, **options).describe()
        for p, refs in zip(predictions, references)
    ]


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    return token_cost(predictions, references, per_pair=3.0)


SPEC = MetricSpec(
    name="meteor",
    title="METEOR (NLTK) and the FusionBrain Challenge 2.0 variants",
    summary="Words of the hypothesis are aligned with a reference in three stages (exact, stem, synonym); "
    "score = (1 − γ (chunks/matches)^β) · P R / (α P + (1 − α) R), the best over the references, "
    "averaged over samples. NLTK's METEOR, not the METEOR 1.5 jar of COCO papers.",
    configs=tuple(
        Config(
            name,
            v.reference,
            _options(name),
            (("text", "alternatives"), ("tokens", "alternatives"))
            if name == "nltk"
            else (("text", "alternatives"),),
        )
        for name, v in METEOR_VARIANTS.items()
    ),
    compute=_compute,
    result_types=(METEORResult,),
    headline=("meteor",),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example("NLTK docstring pair (0.6944)", [NLTK_HYP], [[NLTK_REF]]),
        Example(
            "Stems and WordNet synonyms",
            ["the cat was sat on the mat", "A dog runs in the park."],
            [["the cat sat on the mat"], ["a hound is running in a park", "dogs run"]],
        ),
        Example(
            "Identical sentences keep a penalty (try γ = 0)",
            ["cat", "the cat sat on the mat"],
            ["cat", "the cat sat on the mat"],
        ),
        Example(
            "Russian captioning (fbc2_captioning)",
            ["Рыжий кот сидит на диване.", "Две собаки бегут по пляжу", "кошки играют"],
            [
                ["Рыжая кошка сидит на диване", "Кот на диване"],
                ["Собаки бегают по песчаному пляжу"],
                ["кошка играет"],
            ],
            config="fbc2_captioning",
        ),
        Example(
            "VQA answers: numbers and Russian (fbc2_vqa)",
            ["3", "три кошки", "three", "красная машина"],
            [["5"], ["3"], ["3", "two"], ["красная машина"]],
            config="fbc2_vqa",
        ),
    ),
    needs={"nltk": "WordNet 3.0 (metricore wordnet --install)"},
)
