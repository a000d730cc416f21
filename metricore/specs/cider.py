"""CIDEr-D and CIDEr (COCO caption evaluation): :mod:`metricore.metrics.cider`."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from typing import Any, cast

from metricore.core.spec import Config, Example, MetricSpec, Option
from metricore.core.stream import Stream
from metricore.core.validation import check_choice
from metricore.metrics.caption_text import rows_to_hold
from metricore.metrics.cider import (
    CIDER_VARIANTS,
    DEFAULT_N,
    DEFAULT_SIGMA,
    CIDErItems,
    CIDErResult,
    CIDErVariantName,
    DocumentFrequency,
    cider_items,
    cider_result,
    compute_cider,
    explain_cider,
)
from metricore.specs._cost import estimate, text_features
from metricore.stats.significance import Statistic


def _options(name: str) -> tuple[Option, ...]:
    options: tuple[Option, ...] = (
        Option(
            "n",
            "integer",
            DEFAULT_N,
            "longest n-gram order (4 in both reference implementations)",
            low=1,
            label="n (longest n-gram)",
            ui_high=8,
        ),
        Option(
            "tokenize",
            "bool",
            True,
            "PTB-tokenize raw captions as pycocoevalcap does; off: split on spaces",
            label="PTB tokenization",
        ),
        Option(
            "df",
            "table",
            "corpus",
            "document frequencies: 'corpus' (these references) or a saved DocumentFrequency table "
            "(a file path on the CLI)",
            interactive=False,
        ),
    )
    if CIDER_VARIANTS[name].length_penalty:
        options += (
            Option(
                "sigma",
                "number",
                DEFAULT_SIGMA,
                "width of the Gaussian length penalty",
                low=0.0,
                label="sigma σ",
                ui_low=0.5,
                ui_high=20.0,
                step=0.5,
            ),
        )
    return options


def _arguments(config: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The core's keyword arguments: the variant, and the table a ``df`` path names."""
    opts = dict(options)
    df = opts.pop("df", "corpus")
    if isinstance(df, os.PathLike) or (isinstance(df, str) and df != "corpus"):
        df = _load_table(os.fspath(df))  # a table saved with DocumentFrequency.save
    # the check compute_cider makes first, here so that the name narrows to its Literal
    variant = cast(CIDErVariantName, check_choice(config, CIDER_VARIANTS, "cider", "variant"))
    return {"variant": variant, "df": df, **opts}


def _load_table(path: str) -> DocumentFrequency:
    """The table saved at ``path``, read once per version of the file (a stream asks for it
    with every batch)."""
    st = os.stat(path)
    return _read_table(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4)
def _read_table(path: str, mtime_ns: int, size: int) -> DocumentFrequency:
    return DocumentFrequency.load(path)


def _compute(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> CIDErResult:
    return compute_cider(predictions, references, **_arguments(config, options))


def _items(
    config: str, predictions: list[Any], references: list[Any], options: Mapping[str, Any]
) -> CIDErItems:
    return cider_items(predictions, references, **_arguments(config, options))


def _finish(config: str, items: CIDErItems, options: Mapping[str, Any], columns: bool) -> CIDErResult:
    return cider_result(items, columns=columns)


def _hold(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> int:
    return rows_to_hold(predictions, references) if options.get("tokenize", True) else 0


def _statistics(r: CIDErResult) -> dict[str, Statistic]:
    from metricore.metrics.cider_bootstrap import cider_statistic

    return {"cider": cider_statistic(r)}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: CIDErResult,
) -> list[str]:
    note = (
        "one image: every idf is log(1) − log(1) = 0 → 0; score several images | "
        if len(predictions) == 1
        else ""
    )
    n = options.get("n", DEFAULT_N)
    tokenize = options.get("tokenize", True)
    return [note + e.describe() for e in explain_cider(predictions, references, n=n, tokenize=tokenize)]


def _cost(
    config: str, predictions: Sequence[Any], references: Sequence[Any], options: Mapping[str, Any]
) -> float:
    # without the PTB tokenizer the work is a little less: the same estimate holds
    return estimate(f"cider/{config}", text_features(predictions, references, words=True))


SPEC = MetricSpec(
    name="cider",
    label="CIDEr",
    title="CIDEr-D and CIDEr: consensus-based caption evaluation",
    summary="Each caption becomes tf-idf weighted n-gram vectors (n = 1..4; document frequencies over the "
    "references of the images scored together); per image, 10 × the mean over n and over the references "
    "of their cosine similarity, averaged over images (0-10 scale).",
    configs=tuple(
        Config(name, v.reference, _options(name), (("text", "alternatives"),))
        for name, v in CIDER_VARIANTS.items()
    ),
    compute=_compute,
    # the scores need every image's n-grams (document frequencies): the per-image numbers
    # come at the end, from the words of every caption kept as ids
    stream=Stream(_items, _finish, deferred=None, hold=_hold),
    result_types=(CIDErResult,),
    score_range=(0.0, 10.0),
    notes="Scores depend on which images are scored together: score the whole test set at once. The *why* "
    "column counts the candidate's n-grams (after PTB tokenization) that some reference of the image "
    "contains, before tf-idf weighting, clipping and the length penalty.",
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example(
            "COCO-style captions (3 images)",
            ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
            [
                ["a cat sits on a mat", "a cat on a mat"],
                ["a dog runs in the park", "a dog in a park"],
                [
                    "A surfer riding a wave.",
                    "a man surfing on a big wave",
                    "Surfer on a surfboard riding a wave",
                ],
            ],
        ),
        Example(
            "Plain CIDEr on the same captions",
            ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
            [
                ["a cat sits on a mat", "a cat on a mat"],
                ["a dog runs in the park", "a dog in a park"],
                [
                    "A surfer riding a wave.",
                    "a man surfing on a big wave",
                    "Surfer on a surfboard riding a wave",
                ],
            ],
            config="cider",
        ),
        Example(
            "Length penalty (CIDEr-D) and repeated words",
            [
                "a dog",
                "a cat sleeps on a sofa in the living room next to a big window on a sunny afternoon",
                "a bird a bird a bird",
                "a man rides a bike",
            ],
            [
                ["a brown dog plays with a ball", "a dog playing on grass"],
                ["a cat sleeping on a sofa", "a cat asleep on the couch"],
                ["a small bird on a branch", "a bird perched on a tree"],
                ["a man riding a bike down the street", "a cyclist on a road"],
            ],
        ),
        Example("One image alone scores 0 (idf)", ["a cat sits on a mat"], [["a cat sits on a mat"]]),
    ),
)
