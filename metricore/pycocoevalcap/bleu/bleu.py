"""``pycocoevalcap.bleu.bleu.Bleu`` (1.2) without its Python n-gram loops: BLEU-1..n computed
by :mod:`metricore.metrics.bleu`, bit-identical, per image and for the corpus.

>>> gts = {"img1": ["a cat sits on the mat", "a cat is on a mat"], "img2": ["a dog runs in the park"]}
>>> res = {"img1": ["a cat sits on a mat"], "img2": ["a dog runs"]}
>>> score, scores = Bleu(4).compute_score(gts, res)
{'testlen': 9, 'reflen': 12, 'guess': [9, 7, 5, 3], 'correct': [9, 7, 4, 1]}
ratio: 0.7499999999375001
>>> [round(s, 4) for s in score], [round(s, 4) for s in scores[3]]
([0.7165, 0.7165, 0.6652, 0.5149], [0.7071, 0.0116])
"""

from __future__ import annotations

from typing import Any

from metricore.metrics.bleu import SMALL, TINY, BLEUStatistics, bleu_result, bleu_statistics
from metricore.pycocoevalcap._inputs import Captions, positive_int, scorer_inputs

__all__ = ["Bleu"]


class Bleu:
    """``Bleu(n=4)`` (n from 1 to 4, as in the toolkit): ``compute_score(gts, res, verbose=1)`` returns ``(score, scores)``, the corpus
    BLEU-1..n (a list of n floats: from the counts and closest reference lengths summed over
    the images) and the per-image BLEU-1..n (n lists of floats, in ``gts`` order), as
    ``bleu_scorer.compute_score(option="closest")``.

    ``verbose`` prints what the toolkit prints, on stdout: above 0 the summed counts
    (``{'testlen': ..., 'reflen': ..., 'guess': [...], 'correct': [...]}``) and ``ratio: ...``;
    above 1 first each image's counts and closest reference length.
    """

    def __init__(self, n: int = 4) -> None:
        self._n = positive_int(n, "Bleu", "n")
        if self._n > 4:
            # bleu_scorer cooks n-grams up to 4 whatever n is, then indexes order n
            raise ValueError(
                f"Bleu: n={self._n} fails in pycocoevalcap 1.2 (its BleuScorer counts n-grams up to 4 only: "
                "IndexError); use metricore.metrics.bleu.compute_bleu(..., n=...) for higher orders"
            )
        # the toolkit's (unused) attributes, kept for code that reads them
        self._hypo_for_image: dict[Any, Any] = {}
        self.ref_for_image: dict[Any, Any] = {}

    def compute_score(self, gts: Any, res: Any, verbose: Any = 1) -> tuple[list[float], list[list[float]]]:
        captions = scorer_inputs(gts, res, "Bleu")
        texts = captions.texts()
        result = bleu_result(texts, self._n, tokenize=False)
        stats = result.statistics
        assert stats is not None  # bleu_result always keeps them
        if verbose > 1:
            # the toolkit cooks every image with 4 orders, whatever n is
            print_image_counts(captions, stats if self._n == 4 else bleu_statistics(texts, 4))
        if verbose > 0:
            print_totals(stats)
        return list(result.bleu), [list(s) for s in result.per_order]

    @staticmethod
    def method() -> str:
        return "Bleu"


def print_image_counts(captions: Captions, stats: BLEUStatistics) -> None:
    """``BleuScorer.compute_score`` with ``verbose > 1``: per image, its cooked counts (every
    reference length; the candidate's length, n-grams and clipped matches) and the closest
    reference length."""
    for k, refs in enumerate(captions.references):
        comps = {
            "reflen": [len(r.split()) for r in refs],
            "testlen": int(stats.testlen[k]),
            "guess": [int(g) for g in stats.guess[k]],
            "correct": [int(c) for c in stats.correct[k]],
        }
        print(comps, int(stats.reflen[k]))


def print_totals(stats: BLEUStatistics) -> None:
    """``BleuScorer.compute_score`` with ``verbose > 0``: the summed counts and the length ratio
    (``COCOEvalCap.evaluate`` prints them too)."""
    testlen, reflen = int(stats.testlen.sum()), int(stats.reflen.sum())
    totals = {
        "testlen": testlen,
        "reflen": reflen,
        "guess": [int(g) for g in stats.guess.sum(axis=0)],
        "correct": [int(c) for c in stats.correct.sum(axis=0)],
    }
    print(totals)
    print("ratio:", (testlen + TINY) / (reflen + SMALL))
