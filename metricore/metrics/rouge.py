"""ROUGE-L exactly as the COCO caption toolkit computes it (``pycocoevalcap`` 1.2
``rouge/rouge.py``, ``Rouge().compute_score``; Lin 2004, with the toolkit's ``beta = 1.2``).

Captions are PTB-tokenized as in ``COCOEvalCap`` (:mod:`metricore.metrics.caption_text`) and
split on single spaces (``str.split(" ")``, not ``str.split()``: the toolkit's choice). Per
image with candidate ``c`` and references ``r_1..r_m``::

    P = max_j LCS(c, r_j) / |c|        R = max_j LCS(c, r_j) / |r_j|     (each maximum taken separately)
    ROUGE-L = (1 + beta^2) P R / (R + beta^2 P)   if P != 0 and R != 0, else 0

``LCS`` is the length of the longest common subsequence of the two token lists; the corpus
score is the mean over images. Degenerate cases follow from the single-space split: an empty
caption is the one-token list ``[""]``, so an empty candidate scores 0 against non-empty
references but 1 against an empty reference, and a no-break space inside a PTB token
(``"1 1/2"``) does not split it (where BLEU's and CIDEr's ``str.split`` do).

Implementation: the LCS lengths of all (candidate, reference) pairs come from RapidFuzz's
bit-parallel ``LCSseq`` over the token lists in one ``process.cpdist`` call (an exact integer,
whatever the algorithm), the maxima and the F-measure are numpy reductions in the reference's
floating-point order, so the numbers equal ``pycocoevalcap`` bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from metricore.core._gc import paused_gc
from metricore.core.result import MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.metrics.caption_text import CaptionTexts, tokenized_captions

__all__ = [
    "ROUGELItems",
    "ROUGELResult",
    "compute_rouge_l",
    "rouge_l_result",
    "rouge_l_result_of",
    "DEFAULT_BETA",
]

_METRIC = "rouge_l"
#: the toolkit's beta ("updated ... based on discussion with Hovey")
DEFAULT_BETA = 1.2


@dataclass(frozen=True)
class ROUGELResult(MetricResult):
    """Corpus ROUGE-L (mean over images) and per-image scores."""

    rouge_l: float
    scores: list[float]
    signature: str = field(repr=False)
    #: per image: LCS precision and recall (each the maximum over the references)
    precision: list[float] = field(default_factory=list, repr=False, compare=False)
    recall: list[float] = field(default_factory=list, repr=False, compare=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    # a part of the COCO caption table (metricore.metrics.coco_caption), not a registry metric
    COLUMNS = (("precision", "precision"), ("recall", "recall"))

    def headline_values(self) -> dict[str, Any]:
        return {"ROUGE_L": self.rouge_l}


def _check_beta(beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)):
        raise TypeError(f"rouge_l: `beta` must be a positive number, got {type(beta).__name__}")
    beta = float(beta)
    if not (beta > 0 and math.isfinite(beta)):
        raise ValueError(f"rouge_l: `beta` must be a positive finite number, got {beta}")
    return beta


@dataclass(frozen=True, eq=False)
class ROUGELItems(ItemStats):
    """Per image: ROUGE-L and the LCS precision and recall it comes from (an image's numbers
    depend on its own captions only: a stream keeps them, :mod:`metricore.core.stream`)."""

    score: np.ndarray
    precision: np.ndarray
    recall: np.ndarray


def rouge_l_scores(
    texts: CaptionTexts, beta: float = DEFAULT_BETA
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per image (score, precision, recall) of ``Rouge.calc_score``."""
    num = texts.num_images
    cands = [c.split(" ") for c in texts.candidates]
    refs = [r.split(" ") for r in texts.references]
    image_of_ref = np.repeat(np.arange(num, dtype=np.int64), texts.ref_counts)
    paired = [cands[i] for i in image_of_ref.tolist()]
    lcs = process.cpdist(paired, refs, scorer=LCSseq.similarity, workers=1, dtype=np.int64)
    c_len = np.fromiter(map(len, cands), np.float64, num)
    r_len = np.fromiter(map(len, refs), np.float64, len(refs))
    starts = np.zeros(num, np.int64)
    np.cumsum(texts.ref_counts[:-1], out=starts[1:])
    prec = np.maximum.reduceat(lcs / c_len[image_of_ref], starts)
    rec = np.maximum.reduceat(lcs / r_len, starts)
    b2 = beta**2
    ok = (prec != 0) & (rec != 0)
    den = np.where(ok, rec + b2 * prec, 1.0)
    score = np.where(ok, ((1 + b2) * prec * rec) / den, 0.0)
    return score, prec, rec


@paused_gc()
def compute_rouge_l(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    beta: float = DEFAULT_BETA,
    tokenize: bool = True,
) -> ROUGELResult:
    """ROUGE-L of one candidate caption per image against the image's references, as the COCO
    caption toolkit computes it (module docstring).

    Args:
        predictions: one candidate caption per image.
        references: per image, a list of reference captions (a bare str is one reference).
        beta: weight of recall in the F-measure (the toolkit: 1.2).
        tokenize: PTB-tokenize raw captions as ``pycocoevalcap`` does (default); ``False`` for
            already tokenized text (split on single spaces, as the toolkit does).

    >>> r = compute_rouge_l(["a cat sits on the mat"], [["the cat sat on the mat", "a cat is on a mat"]])
    >>> round(r.rouge_l, 4), round(r.precision[0], 4), round(r.recall[0], 4)
    (0.6667, 0.6667, 0.6667)
    """
    beta = _check_beta(beta)
    texts = tokenized_captions(predictions, references, _METRIC, tokenize)
    return rouge_l_result(texts, beta, tokenize)


def rouge_l_result(texts: CaptionTexts, beta: float, tokenize: bool) -> ROUGELResult:
    """:func:`compute_rouge_l` on captions already checked and tokenized."""
    return rouge_l_result_of(ROUGELItems(*rouge_l_scores(texts, beta)), beta, tokenize, texts.raw)


def rouge_l_result_of(
    items: ROUGELItems, beta: float, tokenize: bool, predictions: list[str] | None, *, columns: bool = True
) -> ROUGELResult:
    """The result of every image's scores (``beta``, ``tokenize``: what the signature
    reports; ``columns=False``: without the per-image columns, the same mean)."""
    options = {"beta": beta, "tok": "ptb-corenlp-3.4.1" if tokenize else "none"}
    return ROUGELResult(
        rouge_l=float(np.mean(items.score)),
        scores=items.score.tolist() if columns else [],
        signature=build_signature(_METRIC, None, options, defaults={"beta": DEFAULT_BETA}),
        precision=items.precision.tolist() if columns else [],
        recall=items.recall.tolist() if columns else [],
        predictions=(predictions or []) if columns else [],
    )
