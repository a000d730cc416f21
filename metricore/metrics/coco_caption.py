"""The COCO caption evaluation table in one call, and a drop-in for the toolkit's
``COCOEvalCap`` (``pycocoevalcap`` 1.2 ``eval.py``), without Java.

``COCOEvalCap.evaluate()`` tokenizes the references of all images in one Stanford
``PTBTokenizer`` call and the candidates in another, then runs ``Bleu(4)``, ``Meteor()``,
``Rouge()``, ``Cider()`` and ``Spice()`` on those tokens and reports ``Bleu_1`` ..
``Bleu_4``, ``METEOR``, ``ROUGE_L``, ``CIDEr`` and ``SPICE`` for the corpus (``.eval``) and per
image (``.imgToEval``). Here:

* tokenization: :func:`metricore.text.ptb_tokenize.coco_tokenize` (pure Python, the same
  strings as the Java tokenizer), once per call, shared by every scorer;
* ``Bleu_1..4``: :mod:`metricore.metrics.bleu`; ``ROUGE_L``: :mod:`metricore.metrics.rouge`;
  ``CIDEr``: :func:`metricore.metrics.cider.compute_cider` (CIDEr-D), all equal to the toolkit's
  numbers (to the bit for BLEU and ROUGE-L, to ~1e-15 for CIDEr-D);
* ``METEOR``: METEOR 1.5 as the toolkit's jar computes it, from
  ``metricore.metrics.meteor15`` when that module and the language data it reads (the files
  the ``pycocoevalcap`` package ships: ``pip install 'metricore[coco]'``, no Java) are
  installed; otherwise the key is left out, and :func:`meteor_1_5_available` says so;
* ``SPICE`` is not computed: it needs the Stanford CoreNLP models that ``pycocoevalcap``
  downloads at run time (and Java); run ``pycocoevalcap.spice.spice.Spice`` for it.

:func:`compute_coco_caption` is ``coco_caption_result(coco_caption_items(...))``: the items are
each image's statistics for every scorer (BLEU's counts, METEOR 1.5's statistics, ROUGE-L's
scores, the captions' words as ids for CIDEr-D), which a stream of batches keeps in place of
the text (:mod:`metricore.core.stream`); the table is computed from all of them at once.

Degenerate cases are the scorers' own (see their modules): an empty candidate scores ~0 on
BLEU, 0 on ROUGE-L (1 against an empty reference) and 0 on CIDEr-D; one image alone scores 0
on CIDEr-D (every idf is 0; a warning says so). Every image needs at least one reference, as
the toolkit asserts.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import check_bool
from metricore.metrics.bleu import BLEUStatistics, bleu_counts, bleu_keys, bleu_result_of
from metricore.metrics.caption_text import tokenized_captions
from metricore.metrics.cider import CIDErItems, cider_items_of_words, cider_result
from metricore.metrics.cider_corpus import CaptionWords
from metricore.metrics.rouge import DEFAULT_BETA, ROUGELItems, rouge_l_result_of, rouge_l_scores

__all__ = [
    "COCO_KEYS",
    "SCORERS",
    "COCOCaptionItems",
    "COCOCaptionResult",
    "COCOEvalCap",
    "CaptionAnnotations",
    "coco_caption_items",
    "coco_caption_result",
    "compute_coco_caption",
    "meteor_1_5_available",
]

_METRIC = "coco_caption"
#: the table's keys in the toolkit's order (``COCOEvalCap.evaluate``), SPICE left out
COCO_KEYS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
ScorerName = Literal["bleu", "meteor", "rouge_l", "cider"]
#: the scorers in the toolkit's order
SCORERS: tuple[ScorerName, ...] = ("bleu", "meteor", "rouge_l", "cider")
#: the per-image score that ``scores`` holds: the first of these the table has
_MAIN_KEYS = ("CIDEr", "Bleu_4", "ROUGE_L", "METEOR")
_METEOR_MODULE = "metricore.metrics.meteor15"


def _meteor_1_5() -> ModuleType | None:
    """The METEOR 1.5 module, or ``None`` when it is not installed or its language data (the
    files of the ``pycocoevalcap`` package, extra ``metricore[coco]``) is not: the ``coco``
    table then leaves ``METEOR`` out instead of failing."""
    if importlib.util.find_spec("pycocoevalcap") is None:
        return None
    try:
        module = importlib.import_module(_METEOR_MODULE)
    except ImportError:
        return None
    return module if callable(getattr(module, "meteor15_items", None)) else None


def meteor_1_5_available() -> bool:
    """Whether ``METEOR`` can be part of the table (``metricore.metrics.meteor15`` imports and
    ``pycocoevalcap``, whose files hold its language data, is installed)."""
    return _meteor_1_5() is not None


@dataclass(frozen=True)
class COCOCaptionResult(MetricResult):
    """The table (``table``: key -> corpus score, in the toolkit's order), every key's
    per-image scores (``per_image``), and ``scores``: the per-image scores of ``main``
    (``CIDEr`` when it was computed, else ``Bleu_4``, else ``ROUGE_L``)."""

    table: dict[str, float]
    per_image: dict[str, list[float]]
    scores: list[float]
    main: str
    signature: str = field(repr=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)
    #: each scorer's own result (``"bleu"``: BLEUResult, ``"meteor"``: METEOR15Result,
    #: ``"rouge_l"``, ``"cider"``: CIDErResult), whose statistics the intervals resample
    parts: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # no ``closest``: every scorer compares a caption with all references of its image
    METRIC = "coco_caption"
    # BLEU and METEOR 1.5 are corpus formulas over summed counts; ROUGE-L and CIDEr-D are means
    HEADLINE = tuple(Headline(key, items=key, mean=key in ("ROUGE_L", "CIDEr")) for key in COCO_KEYS)

    def headline_values(self) -> dict[str, Any]:
        return {key: self.table.get(key) for key in COCO_KEYS}

    def main_key(self) -> str:
        return self.main

    def columns(self) -> dict[str, Sequence[Any]]:
        """Every key's per-image scores (as ``imgToEval`` holds them)."""
        return dict(self.per_image)


def _check_scorers(scorers: Any) -> tuple[ScorerName, ...]:
    if isinstance(scorers, str) or not isinstance(scorers, Iterable):
        raise TypeError(
            f"coco_caption: `scorers` must be a list of names from {list(SCORERS)}, got {type(scorers).__name__}"
        )
    chosen = list(scorers)
    for i, name in enumerate(chosen):
        if name not in SCORERS:
            raise ValueError(f"coco_caption: `scorers[{i}]` is {name!r}; allowed: {', '.join(SCORERS)}")
    if not chosen:
        raise ValueError(f"coco_caption: `scorers` is empty; allowed: {', '.join(SCORERS)}")
    return tuple(s for s in SCORERS if s in chosen)


@paused_gc()
def compute_coco_caption(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    scorers: Iterable[str] = SCORERS,
    tokenize: bool = True,
) -> COCOCaptionResult:
    """The COCO caption table of one candidate caption per image (module docstring).

    Args:
        predictions: one candidate caption per image.
        references: per image, a list of reference captions (a bare str is one reference).
        scorers: which of ``"bleu"``, ``"meteor"``, ``"rouge_l"``, ``"cider"`` to run (default:
            all; ``"meteor"`` is skipped when METEOR 1.5 is not installed, see
            :func:`meteor_1_5_available`).
        tokenize: PTB-tokenize the raw captions as ``COCOEvalCap`` does (default); ``False``
            for already tokenized text.

    >>> r = compute_coco_caption(
    ...     ["a cat sits on a mat", "a dog runs"],
    ...     [["a cat sits on a mat", "a cat on a mat"], ["a dog runs in the park", "a dog in a park"]],
    ...     scorers=["bleu", "rouge_l", "cider"])
    >>> {k: round(v, 4) for k, v in r.table.items()}
    {'Bleu_1': 0.8007, 'Bleu_2': 0.8007, 'Bleu_3': 0.8007, 'Bleu_4': 0.8007, 'ROUGE_L': 0.8144, 'CIDEr': 5.0491}
    >>> r.main, [round(s, 4) for s in r.scores]
    ('CIDEr', [7.2504, 2.8477])
    """
    return coco_caption_result(
        coco_caption_items(predictions, references, scorers=scorers, tokenize=tokenize)
    )


@dataclass(frozen=True)
class COCOCaptionItems(ItemStats):
    """What the table keeps of the rows (:mod:`metricore.core.stream`): each scorer's
    statistics (BLEU's counts, METEOR 1.5's statistics and scores, ROUGE-L's scores, the
    captions' words for CIDEr-D; ``None``: not run), the scorers and the tokenizer, and the
    candidates as given (the per-item texts, which a stream drops)."""

    bleu: BLEUStatistics | None
    meteor: Any  # METEOR15Items (an optional module)
    rouge_l: ROUGELItems | None
    cider: CIDErItems | None
    scorers: tuple[ScorerName, ...]
    tokenize: bool
    predictions: list[str] | None = None

    TEXT = ("predictions",)
    SHARED = ("scorers", "tokenize")


@paused_gc()
def coco_caption_items(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    scorers: Iterable[str] = SCORERS,
    tokenize: bool = True,
) -> COCOCaptionItems:
    """Each image's statistics for every scorer (arguments as :func:`compute_coco_caption`,
    which is ``coco_caption_result(coco_caption_items(...))``): one tokenization shared by
    the scorers, as ``COCOEvalCap`` does."""
    chosen = _check_scorers(scorers)
    texts = tokenized_captions(predictions, references, _METRIC, tokenize)
    meteor = _meteor_1_5() if "meteor" in chosen else None
    # the words of the captions as ids, for BLEU and CIDEr-D
    words = CaptionWords.of(texts.candidates, texts.references, texts.ref_counts)
    return COCOCaptionItems(
        bleu=bleu_counts(words, 4) if "bleu" in chosen else None,
        meteor=(
            meteor.meteor15_items(texts.candidates, texts.grouped_references())
            if meteor is not None
            else None
        ),
        rouge_l=ROUGELItems(*rouge_l_scores(texts, DEFAULT_BETA)) if "rouge_l" in chosen else None,
        cider=cider_items_of_words(words, tokenize=tokenize) if "cider" in chosen else None,
        scorers=chosen,
        tokenize=tokenize,
        predictions=texts.raw,
    )


def coco_caption_result(items: COCOCaptionItems, *, columns: bool = True) -> COCOCaptionResult:
    """The table of every image's statistics. ``columns=False``: without the per-image
    columns (the same table)."""
    table: dict[str, float] = {}
    per_image: dict[str, list[float]] = {}
    parts: dict[str, Any] = {}
    tokenize = items.tokenize
    for name in items.scorers:
        if name == "bleu" and items.bleu is not None:
            b = parts[name] = bleu_result_of(items.bleu, tokenize, items.predictions, columns=columns)
            each_order = b.per_order if columns else [[] for _ in b.bleu]
            for key, corpus, each in zip(bleu_keys(4), b.bleu, each_order):
                table[key], per_image[key] = corpus, each
        elif name == "meteor" and items.meteor is not None:
            meteor = _meteor_1_5()
            assert meteor is not None  # it made the statistics
            m = parts[name] = meteor.meteor15_result(items.meteor, columns=columns)
            table["METEOR"], per_image["METEOR"] = float(m.meteor), [float(s) for s in m.scores]
        elif name == "rouge_l" and items.rouge_l is not None:
            r = parts[name] = rouge_l_result_of(
                items.rouge_l, DEFAULT_BETA, tokenize, items.predictions, columns=columns
            )
            table["ROUGE_L"], per_image["ROUGE_L"] = r.rouge_l, r.scores
        elif name == "cider" and items.cider is not None:
            c = parts[name] = cider_result(items.cider, columns=columns)
            table["CIDEr"], per_image["CIDEr"] = c.cider, c.scores
    main = next(k for k in _MAIN_KEYS if k in table) if table else "METEOR"
    if not table:  # only METEOR was asked for and it is not installed
        raise ValueError(
            "coco_caption: METEOR 1.5 is not installed (metricore.metrics.meteor15 is missing) and no "
            "other scorer was asked for"
        )
    options = {"tok": "ptb-corenlp-3.4.1" if tokenize else "none", "keys": "+".join(table)}
    if "Bleu_1" in table:
        options["bleu"] = "closest"
    if "METEOR" in table:
        options["meteor"] = "1.5-en-norm"
    if "ROUGE_L" in table:
        options["rouge"] = "beta1.2"
    if "CIDEr" in table:
        options["cider"] = "d-sigma6-df-corpus"
    return COCOCaptionResult(
        table=table,
        per_image=per_image if columns else {},
        scores=list(per_image[main]) if columns else [],
        main=main,
        signature=build_signature(_METRIC, None, options),
        predictions=(items.predictions or []) if columns else [],
        parts=parts,
    )


# --------------------------------------------------------------------------------------------
# The toolkit's API: COCOEvalCap over COCO-shaped objects or files
# --------------------------------------------------------------------------------------------


def _hashable_id(value: Any, where: str) -> Any:
    """``value`` when it can be a dict key (an image id); a ``TypeError`` naming ``where`` (the
    annotation, result or image) otherwise, where Python would only say "unhashable type"."""
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"coco_caption: {where} has an image id of type {type(value).__name__} ({value!r:.60}); "
            "an image id must be hashable, such as an int or a str"
        ) from None
    return value


class CaptionAnnotations:
    """The part of ``pycocotools.coco.COCO`` that ``COCOEvalCap`` reads: ``getImgIds()`` and
    ``imgToAnns`` (image id -> annotation dicts with a ``"caption"``), built from a COCO
    captions dataset dict (``{"images": [...], "annotations": [...]}``) or a results list
    (``[{"image_id": ..., "caption": ...}, ...]``)."""

    def __init__(self, image_ids: Iterable[Any], annotations: Iterable[Mapping[str, Any]]) -> None:
        self.imgToAnns: dict[Any, list[Mapping[str, Any]]] = {i: [] for i in image_ids}
        for k, ann in enumerate(annotations):
            if not isinstance(ann, Mapping) or "image_id" not in ann:
                raise ValueError(f"coco_caption: annotation {k} must be an object with an `image_id`")
            img = _hashable_id(ann["image_id"], f"annotation {k}")
            self.imgToAnns.setdefault(img, []).append(ann)

    def getImgIds(self) -> list[Any]:  # noqa: N802 (the COCO API's name)
        return list(self.imgToAnns)

    @classmethod
    def from_dataset(cls, dataset: Any) -> CaptionAnnotations:
        """From a COCO captions dataset dict; without ``"images"``, the images are those the
        annotations name, in order of first appearance."""
        if not isinstance(dataset, Mapping) or not isinstance(dataset.get("annotations"), list):
            raise ValueError('coco_caption: a COCO annotation file must hold {"annotations": [...], ...}')
        images = dataset.get("images")
        if images is None:
            return cls((), dataset["annotations"])
        if not isinstance(images, list):
            raise ValueError(
                f'coco_caption: "images" must be a list of {{"id": ...}} objects, got {type(images).__name__}'
            )
        ids: list[Any] = []
        for k, img in enumerate(images):
            if not isinstance(img, Mapping):
                raise TypeError(
                    f"coco_caption: images[{k}] must be an object with an `id`, got {type(img).__name__} ({img!r:.60})"
                )
            if "id" not in img:
                raise ValueError(
                    f"coco_caption: images[{k}] has no `id` (its keys: {', '.join(map(repr, img)) or 'none'}); "
                    "every image of a COCO annotation file needs one"
                )
            ids.append(_hashable_id(img["id"], f"images[{k}]"))
        return cls(ids, dataset["annotations"])

    def load_results(self, results: Any) -> CaptionAnnotations:
        """A results list (or the path of a JSON file holding one) as ``COCO.loadRes`` reads it:
        every result's image must be in this set; the images are this set's images that have
        a result, in this set's order."""
        if isinstance(results, (str, os.PathLike)):
            results = _read_json(results)
        if not isinstance(results, list) or not results:
            raise ValueError("coco_caption: results must be a non-empty list of {image_id, caption} objects")
        known = self.imgToAnns
        for k, ann in enumerate(results):
            if not isinstance(ann, Mapping) or "image_id" not in ann or "caption" not in ann:
                raise ValueError(f"coco_caption: result {k} must be an object with `image_id` and `caption`")
            if _hashable_id(ann["image_id"], f"result {k}") not in known:
                raise ValueError(
                    f"coco_caption: result {k} names image {ann['image_id']!r}, which the annotations do not "
                    "have (pycocotools: 'Results do not correspond to current coco set')"
                )
        have = {ann["image_id"] for ann in results}
        return CaptionAnnotations([i for i in self.imgToAnns if i in have], results)


def _read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


class COCOEvalCap:
    """A drop-in for ``pycocoevalcap.eval.COCOEvalCap`` (without SPICE, without Java).

    ``COCOEvalCap(coco, cocoRes)`` takes ``pycocotools`` ``COCO`` objects (or any objects with
    ``getImgIds()`` and ``imgToAnns``, such as :class:`CaptionAnnotations`);
    :meth:`from_files` takes an annotation file and a results file. ``params["image_id"]``
    chooses the images (default: every image of ``coco``), :meth:`evaluate` fills ``eval``
    (key -> corpus score), ``imgToEval`` (image id -> ``{"image_id", key: score, ...}``) and
    ``evalImgs`` with the toolkit's keys: ``Bleu_1``..``Bleu_4``, ``METEOR`` (when METEOR 1.5
    is installed), ``ROUGE_L``, ``CIDEr``. (``metricore.pycocoevalcap.eval.COCOEvalCap`` is
    this class with the toolkit's printed progress and value types.)

    >>> coco = CaptionAnnotations.from_dataset({"images": [{"id": 1}, {"id": 2}], "annotations": [
    ...     {"image_id": 1, "caption": "A cat sits on a mat."}, {"image_id": 1, "caption": "A cat on a mat"},
    ...     {"image_id": 2, "caption": "A dog runs in the park."}, {"image_id": 2, "caption": "A dog in a park"}]})
    >>> res = coco.load_results([{"image_id": 1, "caption": "a cat sits on a mat"},
    ...                          {"image_id": 2, "caption": "a dog runs"}])
    >>> e = COCOEvalCap(coco, res, meteor=False)
    >>> e.evaluate()
    >>> round(e.eval["CIDEr"], 4), round(e.imgToEval[2]["ROUGE_L"], 4)
    (5.0491, 0.6289)
    """

    def __init__(self, coco: Any, cocoRes: Any, *, meteor: bool = True) -> None:  # noqa: N803 (the toolkit's name)
        self.evalImgs: list[dict[str, Any]] = []
        self.eval: dict[str, float] = {}
        self.imgToEval: dict[Any, dict[str, Any]] = {}
        self.coco = coco
        self.cocoRes = cocoRes
        self.params: dict[str, Any] = {"image_id": coco.getImgIds()}
        self.meteor = check_bool(meteor, _METRIC, "meteor")
        #: the :class:`COCOCaptionResult` of the last :meth:`evaluate`
        self.result: COCOCaptionResult | None = None

    @classmethod
    def from_files(
        cls,
        annotation_file: str | os.PathLike[str],
        results_file: str | os.PathLike[str],
        *,
        meteor: bool = True,
    ) -> COCOEvalCap:
        """An evaluator over a COCO captions annotation file and a results file, restricted to
        the images that have a result (as the toolkit's example does with
        ``params["image_id"] = coco_result.getImgIds()``)."""
        coco = CaptionAnnotations.from_dataset(_read_json(annotation_file))
        res = coco.load_results(results_file)
        out = cls(coco, res, meteor=meteor)
        out.params["image_id"] = res.getImgIds()
        return out

    def evaluate(self) -> None:
        """Score the images of ``params["image_id"]`` and fill ``eval``, ``imgToEval`` and
        ``evalImgs`` (their previous content is replaced)."""
        img_ids, result = self._score()
        self._record(img_ids, result.table, result.per_image)
        self.result = result

    def _score(self) -> tuple[list[Any], COCOCaptionResult]:
        """The images of ``params["image_id"]`` (each once, in order: the toolkit's ``gts``
        keys) and their table; what the toolkit asserts is a ``ValueError`` naming the image."""
        img_ids: list[Any] = []
        for k, img in enumerate(self.params["image_id"]):
            img_ids.append(_hashable_id(img, f"params['image_id'][{k}]"))
        img_ids = list(dict.fromkeys(img_ids))
        if not img_ids:
            raise ValueError("coco_caption: params['image_id'] is empty; there is nothing to evaluate")
        gts, res = self.coco.imgToAnns, self.cocoRes.imgToAnns
        predictions: list[str] = []
        references: list[list[str]] = []
        for img in img_ids:
            hyp = res.get(img, []) if isinstance(res, Mapping) else res[img]
            if len(hyp) != 1:
                raise ValueError(
                    f"coco_caption: image {img!r} has {len(hyp)} result captions; the toolkit needs exactly one"
                )
            predictions.append(_caption(hyp[0], img, "result"))
            refs = gts.get(img, []) if isinstance(gts, Mapping) else gts[img]
            if not refs:
                raise ValueError(
                    f"coco_caption: image {img!r} has no reference caption; the toolkit needs at least one "
                    "(its tokenizer drops the image, then Bleu asserts that gts and res hold the same images)"
                )
            references.append([_caption(a, img, "annotation") for a in refs])
        scorers = SCORERS if self.meteor else tuple(s for s in SCORERS if s != "meteor")
        return img_ids, compute_coco_caption(predictions, references, scorers=scorers)

    def _record(
        self, img_ids: list[Any], table: Mapping[str, Any], per_image: Mapping[str, Sequence[Any]]
    ) -> None:
        """``eval``, ``imgToEval`` and ``evalImgs`` from a table and its per-image scores, in the
        toolkit's layout (``imgToEval`` in image order, each row ``image_id`` then the keys)."""
        self.eval = dict(table)
        self.imgToEval = {}
        for i, img in enumerate(img_ids):
            self.imgToEval[img] = {"image_id": img, **{k: v[i] for k, v in per_image.items()}}
        self.evalImgs = list(self.imgToEval.values())


def _caption(ann: Any, img: Any, what: str) -> str:
    caption = ann.get("caption") if isinstance(ann, Mapping) else None
    if not isinstance(caption, str):
        raise TypeError(
            f"coco_caption: a {what} of image {img!r} has no str `caption` (got {type(caption).__name__})"
        )
    return caption
