"""The COCO caption evaluation table (BLEU-1..4, METEOR 1.5, ROUGE-L, CIDEr-D):
:mod:`metricore.metrics.coco_caption`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from metricore.core.spec import Config, DataNeed, Example, MetricSpec, Option
from metricore.core.stream import Stream
from metricore.metrics.bleu import bleu_statistics_of
from metricore.metrics.caption_text import rows_to_hold
from metricore.metrics.coco_caption import (
    SCORERS,
    COCOCaptionItems,
    COCOCaptionResult,
    coco_caption_items,
    coco_caption_result,
    compute_coco_caption,
    meteor_1_5_available,
)
from metricore.specs._cost import estimate, meteor15_cost, text_features

if TYPE_CHECKING:
    from metricore.stats.significance import Statistic

_TOKENIZE = Option(
    "tokenize",
    "bool",
    True,
    "PTB-tokenize raw captions as pycocoevalcap does; off: text already tokenized",
    label="PTB tokenization",
)
_METEOR = Option(
    "meteor",
    "bool",
    True,
    "include METEOR 1.5 (when metricore.metrics.meteor15 is installed; otherwise the key is left out)",
    label="METEOR 1.5 (when installed)",
)

#: config -> the scorers it runs
_SCORERS: dict[str, tuple[str, ...]] = {"coco": SCORERS, "bleu": ("bleu",), "rouge_l": ("rouge_l",)}


def _arguments(config: str, options: Mapping[str, Any]) -> dict[str, Any]:
    opts = dict(options)
    scorers = _SCORERS[config]
    if not opts.pop("meteor", True):
        scorers = tuple(s for s in scorers if s != "meteor")
    return {"scorers": scorers, **opts}


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> COCOCaptionResult:
    return compute_coco_caption(predictions, references, **_arguments(config, options))


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> COCOCaptionItems:
    return coco_caption_items(predictions, references, **_arguments(config, options))


def _finish(
    config: str, items: COCOCaptionItems, options: Mapping[str, Any], columns: bool
) -> COCOCaptionResult:
    return coco_caption_result(items, columns=columns)


def _hold(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> int:
    return rows_to_hold(predictions, references) if options.get("tokenize", True) else 0


def _statistics(r: COCOCaptionResult) -> dict[str, Statistic]:
    """Every key of the table as a statistic of per-image columns, resampled together: BLEU-k
    and METEOR 1.5 from summed counts (corpus scores, not means), ROUGE-L the mean, CIDEr-D
    with the document frequencies of :func:`metricore.metrics.cider_bootstrap.cider_statistic`."""
    from metricore.metrics.cider_bootstrap import cider_statistic
    from metricore.stats.significance import mean_statistic

    out: dict[str, Statistic] = {}
    if "bleu" in r.parts:
        out.update(bleu_statistics_of(r.parts["bleu"].statistics))
    if "meteor" in r.parts:
        from metricore.metrics.meteor15 import corpus_statistic

        out["METEOR"] = corpus_statistic(r.parts["meteor"])
    if "rouge_l" in r.parts:
        out["ROUGE_L"] = mean_statistic(r.per_image["ROUGE_L"], name="ROUGE_L")
    if "cider" in r.parts:
        out["CIDEr"] = cider_statistic(r.parts["cider"])
    return {key: out[key] for key in r.table}


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    """The tokenizer's and the n-gram scorers' work (``coco_caption/<config>``), plus METEOR
    1.5's on the path that runs when it is asked for."""
    total = estimate(f"coco_caption/{config}", text_features(predictions, references, words=True))
    if "meteor" in _SCORERS[config] and options.get("meteor", True):
        total += meteor15_cost(predictions, references)
    return total


_CAPTIONS = (
    ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
    [
        ["a cat sits on a mat", "a cat on a mat"],
        ["a dog runs in the park", "a dog in a park"],
        ["A surfer riding a wave.", "a man surfing on a big wave", "Surfer on a surfboard riding a wave"],
    ],
)


def _prepare_meteor() -> None:
    from metricore.metrics.meteor15 import prepare_data

    prepare_data()


def _meteor_prepared() -> bool:
    from metricore.metrics.meteor15 import data_prepared

    return data_prepared()


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: COCOCaptionResult,
) -> list[str]:
    """The per-image score's key and the tokens every scorer compared."""
    from metricore.text.ptb_tokenize import coco_tokenize

    tokens = coco_tokenize(predictions, where="predictions") if options.get("tokenize", True) else predictions
    return [
        f"score = {r.main}; scored tokens: “{t}”" if t else f"score = {r.main}; no tokens (empty)"
        for t in tokens
    ]


SPEC = MetricSpec(
    name="coco_caption",
    label="COCO caption",
    title="COCO caption evaluation: BLEU-1..4, METEOR, ROUGE-L, CIDEr-D",
    summary="The table of the COCO caption toolkit (pycocoevalcap 1.2 COCOEvalCap) in one call, on the same PTB "
    "tokens, without Java: Bleu_1..Bleu_4 (corpus BLEU from summed n-gram statistics, closest reference "
    "length), METEOR (METEOR 1.5, when installed), ROUGE_L (LCS F-measure, beta 1.2, mean over images) and "
    "CIDEr (CIDEr-D); per-image scores of every key. SPICE is not computed.",
    configs=(
        Config(
            "coco",
            "pycocoevalcap==1.2 COCOEvalCap.evaluate(): PTBTokenizer + Bleu(4), Meteor(), Rouge(), Cider() "
            "(without Spice)",
            (_TOKENIZE, _METEOR),
        ),
        Config(
            "bleu", "pycocoevalcap==1.2 PTBTokenizer + Bleu(4).compute_score (option 'closest')", (_TOKENIZE,)
        ),
        Config("rouge_l", "pycocoevalcap==1.2 PTBTokenizer + Rouge().compute_score (beta 1.2)", (_TOKENIZE,)),
    ),
    compute=_compute,
    # CIDEr-D's scores need every image (document frequencies): the table's per-image numbers
    # come at the end, from each scorer's per-image statistics
    stream=Stream(_items, _finish, deferred=("coco",), hold=_hold),
    result_types=(COCOCaptionResult,),
    explain=_explain,
    score_range=(0.0, 10.0),
    notes="CIDEr-D depends on which images are scored together, and BLEU is a corpus number (not a mean of "
    "the per-image BLEU): score the whole test set at once. The per-sample *score* column is CIDEr "
    "(config coco), Bleu_4 (bleu) or ROUGE_L (rouge_l).",
    data=DataNeed(
        "METEOR 1.5's language data (its paraphrase index)",
        ("coco",),
        _prepare_meteor,
        _meteor_prepared,
        meteor_1_5_available,
        fallback={"coco": {"meteor": False}},
    ),
    statistics=_statistics,
    cost=_cost,
    examples=(
        Example("COCO-style captions (3 images)", *_CAPTIONS),
        Example("BLEU-1..4 alone", *_CAPTIONS, config="bleu"),
        Example("ROUGE-L alone", *_CAPTIONS, config="rouge_l"),
        Example(
            "Empty caption, repeated words, tokenizer-hostile text",
            ["", "a bird a bird a bird", 'A man (left) can\'t ride "Big Red"...'],
            [
                ["a small bird on a branch", "a bird perched on a tree"],
                ["a small bird on a branch", "a bird perched on a tree"],
                ["A man riding a red horse.", "a man on a big red horse"],
            ],
        ),
    ),
)
