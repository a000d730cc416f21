"""The Snowball (Porter2) English stemmer as the jar's ``org.tartarus.snowball`` class stems.

NLTK's :class:`~nltk.stem.snowball.EnglishStemmer` agrees with the jar's class except in
step 5: NLTK tracks the regions R1/R2 as strings, which fall out of step after step 2/3
rewrite a suffix (``realization`` -> ``realize``), so it keeps a final ``e`` that lies in R2
of the original word, which Snowball (positions fixed once, before the steps) deletes
(``realiz``). :func:`stem` applies that deletion; tests compare it with the jar's class.
"""

from __future__ import annotations

import functools

from nltk.stem.snowball import EnglishStemmer

__all__ = ["stem"]

_NLTK = EnglishStemmer()
_VOWELS = frozenset("aeiouy")


def _r2_start(word: str) -> int:
    # Porter2 prelude: an initial y, and a y after a vowel, are consonants
    chars = list(word)
    for i, c in enumerate(chars):
        if c == "y" and (i == 0 or chars[i - 1] in _VOWELS):
            chars[i] = "Y"

    def region(start: int) -> int:
        for i in range(start + 1, len(chars)):
            if chars[i] not in _VOWELS and chars[i - 1] in _VOWELS:
                return i + 1
        return len(chars)

    for prefix in ("gener", "commun", "arsen"):
        if word.startswith(prefix):
            p1 = len(prefix)
            break
    else:
        p1 = region(0)
    return region(p1)


@functools.lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    out: str = _NLTK.stem(word)
    if len(word) > 2 and word not in _NLTK._EnglishStemmer__special_words and out.endswith("e"):
        # an unchanged word, or one whose final e step 5 already deleted, is right
        if word == out or word.startswith(out + "e"):
            return out
        if len(out) - 1 >= _r2_start(word.lstrip("'")):
            out = out[:-1]
    return out
