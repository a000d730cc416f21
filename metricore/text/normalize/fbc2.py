"""FusionBrain Challenge 2.0 (AIJ 2022, ai-forever/fbc2_aij2022) answer and caption cleaning.

* VQA and captioning (the ``fbc2_vqa`` and ``fbc2_captioning`` METEOR variants):
  :func:`strip_ascii_punctuation_lower` (the VQA scorer's ``remove_punc``) and
  :func:`fbc2_caption_clean` (the captioning scorer's ``punct_detokenize``).
* TextQA / MathQA (``evaluation/textqa/metric/calculate_f1.py`` and
  ``evaluation/mathqa/metric/calculate_exact_score.py``, ``normalize_answer``; the
  ``fbc2_textqa`` and ``fbc2_mathqa`` token-F1 variants): the normalizer steps
  ``fbc2_lemmatize`` and ``remove_ascii_punct_keep_hyphen``. The challenge maps the pymorphy
  *lemma* of each token through a 13-word table, so only nominative lemmas count: "двух" ->
  lemma "два" -> "2", but "сто" stays "сто".
"""

from __future__ import annotations

import re
import string

from metricore.lexicon.morph import normal_form as _normal_form
from metricore.text.numbers import RUSSIAN_NUMBER_WORDS as _RUSSIAN_NUMBER_WORDS

__all__ = ["strip_ascii_punctuation_lower", "fbc2_caption_clean", "FBC2_NUMBER_LEMMAS", "fbc2_lemma"]

_FBC2_PUNCT = str.maketrans("", "", string.punctuation)


def strip_ascii_punctuation_lower(text: str) -> str:
    """Delete every ASCII punctuation character (``string.punctuation``), then lowercase.

    The VQA scorer's ``remove_punc``: ``"3.5"`` becomes ``"35"`` and ``"well-known"``
    becomes ``"wellknown"``, as in the challenge.
    """
    return text.translate(_FBC2_PUNCT).lower()


_CAPTION_DROP = str.maketrans("", "", ",.!?:;%)]}([")
_QUOTED_PADDED = (re.compile(r'"\s[^"]+\s"'), re.compile(r"'\s[^']+\s'"))


def fbc2_caption_clean(text: str) -> str:
    """The captioning scorer's ``punct_detokenize``: strip; delete ``, . ! ? : ; % ( ) [ ] }``
    (not ``{``, as in the challenge); remove the inner padding of quoted spans
    (``'" a b "'`` -> ``'"a b"'``); glue ``"' s"`` and ``" 's"`` to ``"'s"``; strip.

    >>> fbc2_caption_clean(' Кот (рыжий) сидит на "  окне ", а пёс - нет. ')
    'Кот рыжий сидит на " окне" а пёс - нет'
    """
    text = text.strip().translate(_CAPTION_DROP)
    for pattern in _QUOTED_PADDED:
        for found in pattern.findall(text):
            text = text.replace(found, found[0] + found[2:-2] + found[-1])
    return text.replace("' s", "'s").replace(" 's", "'s").strip()


#: the challenge's ``manualMap_ru``: lemma -> digits (values from :mod:`metricore.text.numbers`)
FBC2_NUMBER_LEMMAS: dict[str, str] = {
    word: str(_RUSSIAN_NUMBER_WORDS[word])
    for word in (
        "ноль",
        "нисколько",
        "никакой",
        "один",
        "два",
        "три",
        "четыре",
        "пять",
        "шесть",
        "семь",
        "восемь",
        "девять",
        "десять",
    )
}


def fbc2_lemma(word: str) -> str:
    """The challenge's ``get_lemma``: pymorphy's normal form of ``word``, written as digits
    when it is one of :data:`FBC2_NUMBER_LEMMAS`.

    >>> [fbc2_lemma(w) for w in ("секунды", "двух", "сто", "d")]
    ['секунда', '2', 'сто', 'd']
    """
    lemma = _normal_form(word)
    return FBC2_NUMBER_LEMMAS.get(lemma, lemma)


def _fbc2_lemmatize(text: str) -> str:
    return " ".join(map(fbc2_lemma, text.split()))


_ASCII_PUNCT_BUT_HYPHEN_TABLE = str.maketrans("", "", string.punctuation.replace("-", ""))


def _remove_ascii_punct_keep_hyphen(text: str) -> str:
    # MathQA keeps "-" so that "-3" and "3" differ
    return text.translate(_ASCII_PUNCT_BUT_HYPHEN_TABLE)
