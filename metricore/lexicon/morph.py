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

__all__ = ["morph_analyzer", "normal_form"]

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


@lru_cache(maxsize=200_000)
def normal_form(word: str) -> str:
    """pymorphy's first-parse normal form of ``word`` (``"секунды"`` -> ``"секунда"``;
    Latin words and numbers come back lower-cased and otherwise unchanged).

    >>> normal_form("секунды"), normal_form("двух"), normal_form("-3")
    ('секунда', 'два', '-3')
    """
    return morph_analyzer("Russian lemmatization (metricore.lexicon.morph)").parse(word)[0].normal_form
