"""A slow, literal CIDEr / CIDEr-D oracle over Python dicts (the authors' algorithm).

Written from the description in Vedantam et al. 2015 and the authors' code
(github.com/vrama91/cider, ``pyciderevalcap/cider`` and ``ciderD``), independent of
``metricore.metrics.cider``'s numpy pipeline, for the cases ``pycocoevalcap`` cannot check: plain
CIDEr and document frequencies from a saved table (the authors' ``coco-val-df`` mode:
``log(number of images in the table)`` replaces ``log(number of scored images)``).
Captions are already tokenized (whitespace-separated words).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence


def ngram_counts(words: list[str], n: int) -> Counter:
    out: Counter = Counter()
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            out[tuple(words[i : i + k])] += 1
    return out


def document_frequency(references: Sequence[Sequence[str]], n: int = 4) -> Counter:
    df: Counter = Counter()
    for refs in references:
        seen = set()
        for r in refs:
            seen.update(ngram_counts(r.split(), n))
        df.update(seen)
    return df


def cider_scores(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    clipped: bool,
    penalty: bool,
    n: int = 4,
    sigma: float = 6.0,
    table: Mapping[tuple[str, ...], int] | None = None,
    table_images: int | None = None,
) -> list[float]:
    if table is None:
        df: Mapping[tuple[str, ...], int] = document_frequency(references, n)
        log_images = math.log(len(references))
    else:
        df = table
        log_images = math.log(table_images)  # type: ignore[arg-type]

    def vectors(words: list[str]):
        vec = [dict() for _ in range(n)]
        for gram, tf in ngram_counts(words, n).items():
            vec[len(gram) - 1][gram] = tf * (log_images - math.log(max(1.0, df.get(gram, 0))))
        norms = [math.sqrt(sum(v * v for v in d.values())) for d in vec]
        return vec, norms, max(len(words) - 1, 0)

    scores = []
    for cand, refs in zip(candidates, references):
        vc, nc, lc = vectors(cand.split())
        total = [0.0] * n
        for ref in refs:
            vr, nr, lr = vectors(ref.split())
            for k in range(n):
                dot = 0.0
                for gram, w in vc[k].items():
                    r = vr[k].get(gram, 0.0)
                    dot += (min(w, r) if clipped else w) * r
                if nc[k] != 0 and nr[k] != 0:
                    dot /= nc[k] * nr[k]
                if penalty:
                    dot *= math.exp(-((lc - lr) ** 2) / (2 * sigma**2))
                total[k] += dot
        scores.append(sum(total) / n / len(refs) * 10.0)
    return scores
