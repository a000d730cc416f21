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

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from metricore.metrics.cider import DEFAULT_N, DEFAULT_SIGMA, compute_cider
from metricore.pycocoevalcap._inputs import positive_int, positive_number, scorer_inputs

__all__ = ["Cider", "one_image_silently"]


@contextlib.contextmanager
def one_image_silently() -> Iterator[None]:
    """Without :func:`~metricore.metrics.cider.compute_cider`'s warning that one image scores 0
    (every idf is 0): the toolkit returns that 0 without a word, and a harness that runs with
    warnings as errors must not fail on the switch."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="cider: one image", category=UserWarning)
        yield


class Cider:
    """``Cider(test=None, refs=None, n=4, sigma=6.0)`` (``test`` and ``refs`` are ignored, as in
    the toolkit; ``n`` must be 4, the only order the toolkit computes): ``compute_score(gts, res)`` returns the mean CIDEr-D over the images (a NumPy
    float64) and the per-image scores (a float64 NumPy array, ``gts`` order). Document
    frequencies come from the references of the call, so one image alone scores 0, silently
    as in the toolkit (:func:`~metricore.metrics.cider.compute_cider` would warn)."""

    def __init__(
        self, test: Any = None, refs: Any = None, n: int = DEFAULT_N, sigma: float = DEFAULT_SIGMA
    ) -> None:
        self._n = positive_int(n, "CIDEr", "n")
        if self._n != DEFAULT_N:
            # cider_scorer cooks n-grams up to 4 whatever n is
            raise ValueError(
                f"CIDEr: n={self._n} is not what it says in pycocoevalcap 1.2: its CiderScorer counts n-grams "
                "up to 4 whatever n is, so n < 4 fails (IndexError) and n > 4 averages the four orders over n "
                "(every score times 4/n); only n=4 is reproduced here. For CIDEr-D of other orders use "
                "metricore.metrics.cider.compute_cider(..., n=...)"
            )
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
        with one_image_silently():
            result = compute_cider(
                captions.candidates, captions.references, n=self._n, sigma=self._sigma, tokenize=False
            )
        scores = np.array(result.scores, dtype=np.float64)
        return np.mean(scores), scores

    @staticmethod
    def method() -> str:
        return "CIDEr"
