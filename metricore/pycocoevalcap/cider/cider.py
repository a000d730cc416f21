"""``pycocoevalcap.cider.cider.Cider`` (1.2, which is CIDEr-D) without its Python n-gram
dictionaries: computed by :func:`metricore.metrics.cider.compute_cider` (within ~1e-15 of the
toolkit; only the order of floating-point additions differs).

>>> gts = {1: ["a cat sits on a mat", "a cat on a mat"], 2: ["a dog runs in the park", "a dog in a park"]}
>>> res = {1: ["a cat sits on a mat"], 2: ["a dog runs"]}
>>> score, scores = Cider().compute_score(gts, res)
>>> round(float(score), 4), scores.round(4).tolist(), type(score).__name__, scores.dtype.name
(5.0491, [7.2504, 2.8477], 'float64', 'float64')
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from metricore.metrics.cider import DEFAULT_N, DEFAULT_SIGMA, compute_cider
from metricore.pycocoevalcap._inputs import positive_int, positive_number, scorer_inputs

__all__ = ["Cider"]


class Cider:
    """``Cider(test=None, refs=None, n=4, sigma=6.0)`` (``test`` and ``refs`` are ignored, as in
    the toolkit): ``compute_score(gts, res)`` returns the mean CIDEr-D over the images (a NumPy
    float64) and the per-image scores (a float64 NumPy array, ``gts`` order). Document
    frequencies come from the references of the call, so one image alone scores 0, silently
    as in the toolkit (:func:`~metricore.metrics.cider.compute_cider` would warn)."""

    def __init__(
        self, test: Any = None, refs: Any = None, n: int = DEFAULT_N, sigma: float = DEFAULT_SIGMA
    ) -> None:
        self._n = positive_int(n, "CIDEr", "n")
        self._sigma = positive_number(sigma, "CIDEr", "sigma")

    def compute_score(self, gts: Any, res: Any) -> tuple[np.floating[Any], np.ndarray]:
        captions = scorer_inputs(gts, res, "CIDEr")
        if not captions.image_ids:
            raise ValueError(
                "CIDEr: `gts` and `res` hold no image, there is nothing to score (the toolkit fails too: "
                "'max() arg is an empty sequence')"
            )
        if not any(r.split() for refs in captions.references for r in refs):
            # the toolkit's document frequencies are empty and its max() over them fails
            raise ValueError(
                f"CIDEr: no reference caption of these {len(captions.image_ids)} images has a word (every one "
                "is empty after tokenization), so there are no document frequencies; the toolkit fails here "
                "too ('max() arg is an empty sequence')"
            )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="cider: one image", category=UserWarning)
            result = compute_cider(
                captions.candidates, captions.references, n=self._n, sigma=self._sigma, tokenize=False
            )
        scores = np.array(result.scores, dtype=np.float64)
        return np.mean(scores), scores

    @staticmethod
    def method() -> str:
        return "CIDEr"
