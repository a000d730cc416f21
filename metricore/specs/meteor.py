"""METEOR (NLTK-exact, FusionBrain Challenge 2.0 variants): :mod:`metricore.metrics.meteor`;
METEOR 1.5 as pycocoevalcap runs its jar (``meteor_1_5``): :mod:`metricore.metrics.meteor15`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.spec import Config, DataNeed, Example, MetricSpec, Option, TaskUse
from metricore.core.stream import Stream
from metricore.lexicon.synonyms import SYNONYM_SOURCES
from metricore.metrics.meteor import (
    METEOR_VARIANTS,
    NUMBER_WORDS,
    TOKENIZERS,
    METEORItems,
    METEORResult,
    compute_meteor,
    explain_meteor,
    meteor_items,
    meteor_result,
)
from metricore.metrics.meteor15 import (
    METEOR15Items,
    METEOR15Result,
    compute_meteor_1_5,
    corpus_statistic,
    data_prepared,
    explain_meteor_1_5,
    meteor15_items,
    meteor15_result,
    prepare_data,
)
from metricore.specs._cost import estimate, meteor15_cost, text_features
from metricore.stats.significance import Statistic, mean_statistic

NLTK_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_REF = "It is a guide to action that ensures that the military will forever heed Party commands"
METEOR_1_5 = "meteor_1_5"


def _options(name: str) -> tuple[Option, ...]:
    v = METEOR_VARIANTS[name]
    options: tuple[Option, ...] = (
        Option(
            "alpha",
            "number",
            v.alpha,
            "weight of precision vs recall in Fmean",
            low=0.0,
            high=1.0,
            label="alpha α",
        ),
        Option(
            "beta",
            "number",
            v.beta,
            "shape of the fragmentation penalty",
            low=0.0,
            label="beta β",
            ui_high=10.0,
            step=0.1,
        ),
        Option(
            "gamma",
            "number",
            v.gamma,
            "maximum fragmentation penalty (0: none)",
            low=0.0,
            high=1.0,
            label="gamma γ",
        ),
        Option(
            "synonyms",
            "choice",
            v.synonyms,
            "synonym stage: WordNet 3.0, a Russian thesaurus (ruwordnet, wiki_ru_wordnet, auto), none, "
            "or a dict {word: [synonyms]}",
            choices=SYNONYM_SOURCES,
            open_choices=True,
            # `ruwordnet` needs a database downloaded separately, which a Space lacks
            ui_choices=tuple(s for s in SYNONYM_SOURCES if s != "ruwordnet"),
        ),
        Option("tokenizer", "choice", v.tokenizer, "how text is split into words", choices=TOKENIZERS),
    )
    if name == "fbc2_vqa":
        options += (Option("lemmatize", "bool", True, "the challenge's pymorphy lemma of the whole answer"),)
    if v.number_words is not None:
        whole = ", whole answers ноль..десять on both" if name == "fbc2_vqa" else ""
        options += (
            Option(
                "number_words",
                "choice",
                v.number_words,
                f"number words as digits: 'prediction' = the challenge's code (wordtodigits on the "
                f"prediction{whole}); 'both' = English and Russian cardinals on both sides",
                choices=NUMBER_WORDS,
            ),
        )
    return options


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> METEORResult | METEOR15Result:
    if config == METEOR_1_5:
        return compute_meteor_1_5(predictions, references)
    return compute_meteor(predictions, references, variant=config, **options)


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> METEORItems | METEOR15Items:
    if config == METEOR_1_5:
        return meteor15_items(predictions, references)
    return meteor_items(predictions, references, variant=config, **options)


def _finish(
    config: str, items: METEORItems | METEOR15Items, options: Mapping[str, Any], columns: bool
) -> METEORResult | METEOR15Result:
    if isinstance(items, METEOR15Items):
        return meteor15_result(items, columns=columns)
    return meteor_result(items, columns=columns)


def _statistics(r: METEORResult | METEOR15Result) -> dict[str, Statistic]:
    if isinstance(r, METEOR15Result):  # a corpus score of summed statistics, not a mean
        return {"meteor": corpus_statistic(r)}
    return {"meteor": mean_statistic(r.scores, name="meteor")}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: METEORResult | METEOR15Result,
) -> list[str]:
    if isinstance(r, METEOR15Result):
        return explain_meteor_1_5(r)
    return [
        explain_meteor(p, refs, variant=config, **options).describe()
        for p, refs in zip(predictions, references)
    ]


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    """METEOR 1.5 on the path that runs; the NLTK variants by config (without the synonym
    stage the work is a little less: the same estimate holds)."""
    if config == METEOR_1_5:
        return meteor15_cost(predictions, references)
    return estimate(f"meteor/{config}", text_features(predictions, references, words=True))


def _data_available() -> bool:
    from metricore.metrics.coco_caption import meteor_1_5_available

    return meteor_1_5_available()


SPEC = MetricSpec(
    name="meteor",
    label="METEOR",
    title="METEOR (NLTK) and the FusionBrain Challenge 2.0 variants",
    summary="Words of the hypothesis are aligned with a reference in three stages (exact, stem, synonym); "
    "score = (1 − γ (chunks/matches)^β) · P R / (α P + (1 − α) R), the best over the references, "
    "averaged over samples (NLTK's METEOR). The meteor_1_5 config is the METEOR 1.5 jar of COCO "
    "caption papers (adds paraphrases; corpus score from summed statistics), without Java.",
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
    )
    + (Config(METEOR_1_5, "pycocoevalcap 1.2 meteor-1.5.jar (-stdio -l en -norm), without Java"),),
    compute=_compute,
    # every config keeps per-sample statistics (METEOR 1.5: the 23 numbers its corpus score
    # sums; an image's own score depends on that image only)
    stream=Stream(_items, _finish),
    result_types=(METEORResult, METEOR15Result),
    closest_label="best reference",
    notes="The `meteor_1_5` variant is the METEOR 1.5 jar of COCO papers (pycocoevalcap), without Java; the "
    "others are not (see the card). The per-sample table shows the reference that scored best and, under "
    "*why*, the alignment with it: the hypothesis words matched at each stage (`hyp→ref` when the words "
    "differ), the unmatched ones and the number of chunks.",
    data=DataNeed(
        "METEOR 1.5's language data (its paraphrase index)",
        (METEOR_1_5,),
        prepare_data,
        data_prepared,
        _data_available,
    ),
    task=TaskUse(tuple(METEOR_VARIANTS) + (METEOR_1_5,), ("meteor",)),
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
        Example(
            "COCO captions, METEOR 1.5 as pycocoevalcap (PTB-tokenized input)",
            ["a man riding a horse on the beach", "two dogs are playing in the grass"],
            [
                ["a man rides a horse along the shore", "a person on a horse at the beach"],
                ["two puppies play on the lawn", "dogs playing in a field of grass"],
            ],
            config=METEOR_1_5,
        ),
    ),
    needs={
        "nltk": "WordNet 3.0 (metricore wordnet --install)",
        METEOR_1_5: "pycocoevalcap 1.2 for its data (pip install 'metricore[coco]'); no Java",
        "fbc2_captioning": "razdel and wiki-ru-wordnet (pip install 'metricore[ru]')",
        "fbc2_vqa": "pymorphy3 and wiki-ru-wordnet (pip install 'metricore[ru]')",
    },
)
