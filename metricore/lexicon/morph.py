"""The one pymorphy3 (Russian morphology) analyzer, shared by every metric that lemmatizes.

The FusionBrain Challenge 2.0 scorers (ai-forever/fbc2_aij2022) lemmatize with pymorphy2's
``MorphAnalyzer().parse(word)[0].normal_form``; pymorphy2 does not run on Python 3.11+, and
pymorphy3 is its maintained continuation with the same API (its dictionary release can give
another normal form for rare words). Building an analyzer loads the dictionaries (~0.3 s,
~15 MB), so it is built once, on first use, and only when a metric needs it.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

__all__ = ["morph_analyzer", "normal_form", "first_normal_form"]

_LOCK = threading.Lock()
_ANALYZER: list[Any] = []


def morph_analyzer(purpose: str = "lemmatization", hint: str = "") -> Any:
    """The shared ``pymorphy3.MorphAnalyzer``; ``purpose`` (and ``hint``, e.g. an option
    that avoids lemmatization) name the caller in the ``ImportError`` when pymorphy3 is
    missing."""
    if _ANALYZER:
        return _ANALYZER[0]
    try:
        import pymorphy3
    except ImportError:
        raise ImportError(
            f"{purpose} needs pymorphy3 (`pip install pymorphy3 pymorphy3-dicts-ru`){hint}"
        ) from None
    with _LOCK:
        if not _ANALYZER:
            _ANALYZER.append(pymorphy3.MorphAnalyzer())
    return _ANALYZER[0]


def first_normal_form(analyzer: Any, text: str) -> str:
    """``analyzer.parse(text)[0].normal_form``, or ``text.lower()`` when pymorphy cannot
    analyze ``text``.

    pymorphy3 raises on a letter without a Unicode name (``ValueError: no such name`` from
    ``unicodedata.name``, e.g. ``"\U00017000"``, a Tangut ideograph) and on a lone surrogate
    (``UnicodeEncodeError``), so the challenge's own code would crash on such an answer. Here
    the token is its own lemma, lower-cased as pymorphy lower-cases every word it does not
    know: a divergence from the challenge only where the challenge has no result at all.
    """
    try:
        return str(analyzer.parse(text)[0].normal_form)
    except ValueError:  # UnicodeEncodeError is a ValueError too
        return text.lower()


# bounded for long-running processes: 20,000 words of up to 2,000 characters stay under ~80 MB
@lru_cache(maxsize=20_000)
def normal_form(word: str) -> str:
    """pymorphy's first-parse normal form of ``word`` (``"секунды"`` -> ``"секунда"``;
    Latin words and numbers come back lower-cased and otherwise unchanged; a word pymorphy
    cannot analyze is its own lemma, lower-cased: :func:`first_normal_form`).

    >>> normal_form("секунды"), normal_form("двух"), normal_form("-3"), normal_form("\U00017000X")
    ('секунда', 'два', '-3', '\U00017000x')
    """
    return first_normal_form(morph_analyzer("Russian lemmatization (metricore.lexicon.morph)"), word)
