"""``pycocoevalcap.rouge.rouge.Rouge`` (1.2) without its Python LCS table: ROUGE-L computed by
:mod:`metricore.metrics.rouge`, bit-identical, per image and for the corpus.

>>> gts = {1: ["a cat sits on the mat", "a cat is on a mat"], 2: ["a dog runs in the park"]}
>>> res = {1: ["a cat sits on a mat"], 2: ["a dog runs"]}
>>> score, scores = Rouge().compute_score(gts, res)
>>> round(float(score), 4), scores.round(4).tolist(), type(score).__name__, scores.shape
(0.7311, [0.8333, 0.6289], 'float64', (2,))
>>> round(Rouge().calc_score(["a cat sits on a mat"], ["a cat is on a mat"]), 4)
0.8333
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metricore.metrics.rouge import DEFAULT_BETA, rouge_l_scores
from metricore.pycocoevalcap._inputs import scorer_inputs

__all__ = ["Rouge"]


class Rouge:
    """``Rouge()``: ``compute_score(gts, res)`` returns the mean ROUGE-L over the images (a NumPy
    float64) and the per-image scores (a float64 NumPy array, ``gts`` order); ``calc_score
    (candidate, refs)`` scores one image (a float). ``beta`` (1.2) is read at each call, as the
    toolkit reads ``self.beta``."""

    def __init__(self) -> None:
        self.beta = DEFAULT_BETA

    def calc_score(self, candidate: Any, refs: Any) -> float:
        """ROUGE-L of ``candidate`` (a list holding one tokenized caption) against ``refs`` (a
        non-empty list of tokenized captions)."""
        if not isinstance(candidate, list) or len(candidate) != 1:
            raise ValueError(
                f"Rouge: `candidate` must be a list holding one caption, got {type(candidate).__name__} "
                f"({candidate!r:.60})"
            )
        if not isinstance(refs, list) or not refs:
            raise ValueError(
                f"Rouge: `refs` must be a non-empty list of captions, got {type(refs).__name__} ({refs!r:.60})"
            )
        _, scores = self.compute_score({0: refs}, {0: candidate})
        return float(scores[0])

    def compute_score(self, gts: Any, res: Any) -> tuple[np.floating[Any], np.ndarray]:
        captions = scorer_inputs(gts, res, "Rouge")
        scores = rouge_l_scores(captions.texts(), self.beta)[0]
        # the toolkit's np.mean: NaN, with NumPy's warning, when there is no image
        return np.mean(scores), scores

    @staticmethod
    def method() -> str:
        return "Rouge"
