"""Long captions (65 to 300 words) for METEOR 1.5's tests and benchmark: lines longer than
a 64-bit position mask.

Each image's hypothesis and each of its references is a run of the PTB-tokenized generated
captions (:func:`tests.gen_cider_captions.tokenized_corpus`) of consecutive images, joined
and cut at a length drawn for that line. The hypothesis and the references of one image
describe the same scenes, so a pair holds many repeated words (``a``, ``the``, ``on``, the
same subjects and objects), stems, synonyms and paraphrases of each other, and the beam
search meets many ties. Every random choice goes through one ``random.Random(seed)``.
"""

from __future__ import annotations

import random

from tests.gen_cider_captions import tokenized_corpus

__all__ = ["long_corpus"]


def long_corpus(
    n: int, seed: int, min_words: int = 65, max_words: int = 300, rich: float = 0.0
) -> tuple[list[str], list[list[str]]]:
    """``n`` images x 5 references, every line of ``min_words`` to ``max_words`` words."""
    rng = random.Random(seed)
    per_line = (min_words + max_words) // 2 // 8 + 2  # generated captions have 8 to 12 words
    hyps, refs = tokenized_corpus(n * per_line, seed, rich=rich)

    def run(texts: list[str], length: int) -> str:
        words: list[str] = []
        for text in texts:
            words += text.split()
            if len(words) >= length:
                break
        while len(words) < length:  # a run of short captions: repeat it
            words += words[: length - len(words)]
        return " ".join(words[:length])

    out_h: list[str] = []
    out_r: list[list[str]] = []
    for i in range(n):
        start = i * per_line
        block = range(start, start + per_line)
        out_h.append(run([hyps[j] for j in block], rng.randint(min_words, max_words)))
        out_r.append(
            [
                run([refs[j][k % len(refs[j])] for j in block], rng.randint(min_words, max_words))
                for k in range(5)
            ]
        )
    return out_h, out_r
