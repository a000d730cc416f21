"""Input checks and tokenization shared by the COCO caption scorers (BLEU, ROUGE-L, the table).

The COCO caption toolkit (``pycocoevalcap`` 1.2 ``COCOEvalCap.evaluate``) tokenizes the
references of every image in one ``PTBTokenizer`` call and the candidates in a second one, then
hands the same tokenized strings to every scorer. :func:`tokenized_captions` does the same
with :func:`metricore.text.ptb_tokenize.coco_tokenize` (pure Python, no Java), so a table
computed from one call shares one tokenization.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metricore.core.validation import (
    check_bool,
    check_pairs,
    check_strings,
    paired_columns,
    string_alternatives_column,
)
from metricore.text.ptb_tokenize import coco_tokenize

__all__ = ["CaptionTexts", "check_caption_inputs", "tokenized_captions"]


def check_caption_inputs(
    predictions: Any, references: Any, metric: str, start: int = 0
) -> tuple[list[str], list[list[str]]]:
    """New lists: one candidate str per image, and per image a non-empty list of reference
    strs (a bare str is one reference). Errors name ``metric``, the argument and the row
    (``start``: the index of the first row, for streamed batches, which may be empty)."""
    preds, refs = paired_columns(predictions, references, metric)
    cands = check_strings(preds, metric, "predictions", start)
    golds = string_alternatives_column(refs, metric, start=start, allow_empty=True)
    for i, r in enumerate(golds):
        if not r:
            raise ValueError(
                f"{metric}: `references[{start + i}]` has no reference caption; every image needs at "
                "least one (pycocoevalcap asserts it)"
            )
    return cands, golds


class CaptionTexts:
    """Checked, optionally tokenized captions: ``candidates`` (one per image), ``references``
    (all references in image order), ``ref_counts`` (references per image), ``raw`` (the
    candidates as given, for per-item records)."""

    __slots__ = ("candidates", "references", "ref_counts", "raw")

    def __init__(self, candidates: list[str], references: list[str], ref_counts: np.ndarray, raw: list[str]):
        self.candidates = candidates
        self.references = references
        self.ref_counts = ref_counts
        self.raw = raw

    @property
    def num_images(self) -> int:
        return len(self.candidates)

    def grouped_references(self) -> list[list[str]]:
        """The references split back per image."""
        out: list[list[str]] = []
        at = 0
        for c in self.ref_counts.tolist():
            out.append(self.references[at : at + c])
            at += c
        return out


def tokenized_captions(predictions: Any, references: Any, metric: str, tokenize: Any) -> CaptionTexts:
    """Check the inputs, then PTB-tokenize them as ``COCOEvalCap`` does (references in one
    call, candidates in another) or, with ``tokenize=False``, keep them as given."""
    tokenize = check_bool(tokenize, metric, "tokenize")
    preds, refs = check_pairs(predictions, references, metric)
    cands, golds = check_caption_inputs(preds, refs, metric)
    counts = np.fromiter(map(len, golds), np.int64, len(golds))
    flat = [r for rs in golds for r in rs]
    if tokenize:
        return CaptionTexts(
            coco_tokenize(cands, where="predictions"), coco_tokenize(flat, where="references"), counts, cands
        )
    return CaptionTexts(cands, flat, counts, cands)
