"""The named normalization steps a :class:`~metricore.text.normalize.presets.Normalizer` is
built from, each a ``text -> text`` function, and the token-level form of article removal.

``lower``, ``nfkc``, ``collapse_whitespace``; ``remove_ascii_punct`` (delete
``string.punctuation``); ``remove_unicode_punct`` (delete every character of Unicode category
``P*`` plus ``string.punctuation``, the MLQA script's ``PUNCT``); ``remove_articles_<lang>``
(replace the language's article words, regex ``\\b(w1|w2|...)\\b``, by a space; ``ar``: every
``"ال"``, also inside words, as the MLQA script's regex does); ``split_cjk`` (spaces around each
CJK ideograph U+4E00-U+9FA5); ``keep_lower_alnum`` (delete every character but ``0-9a-z``); and the FusionBrain steps of
:mod:`metricore.text.normalize.fbc2`.

Article removal followed by whitespace splitting has a token-level fast path,
:func:`_article_free_tokens`, shared by every normalizer that ends with it (SQuAD's bulk path
in :mod:`metricore.text.normalize.squad` included).
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from metricore.text.normalize.fbc2 import _fbc2_lemmatize, _remove_ascii_punct_keep_hyphen

Step = Literal[
    "lower",
    "nfkc",
    "collapse_whitespace",
    "remove_ascii_punct",
    "remove_unicode_punct",
    "remove_articles_en",
    "remove_articles_es",
    "remove_articles_de",
    "remove_articles_vi",
    "remove_articles_ar",
    "split_cjk",
    "remove_ascii_punct_keep_hyphen",
    "fbc2_lemmatize",
    "keep_lower_alnum",
]


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _collapse(text: str) -> str:
    return " ".join(text.split())


_ASCII_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
_ASCII_PUNCT_BYTES = string.punctuation.encode("ascii")


def _remove_ascii_punct(text: str) -> str:
    if text.isascii():  # bytes.translate deletes in C, ~6x faster than str.translate
        return text.encode("ascii").translate(None, _ASCII_PUNCT_BYTES).decode("ascii")
    return text.translate(_ASCII_PUNCT_TABLE)


@lru_cache(maxsize=1)
def unicode_punctuation() -> frozenset[str]:
    """Every character of Unicode category ``P*`` (this Python's ``unicodedata``) plus
    ``string.punctuation``: the MLQA script's ``PUNCT`` (it scans ``range(sys.maxunicode)``)."""
    cats = unicodedata.category
    return frozenset([chr(i) for i in range(sys.maxunicode) if cats(chr(i)).startswith("P")]).union(
        string.punctuation
    )


@lru_cache(maxsize=1)
def _unicode_punct_table() -> dict[int, None]:
    return dict.fromkeys(map(ord, unicode_punctuation()))


def _remove_unicode_punct(text: str) -> str:
    if text.isascii():  # the ASCII characters of category P* are all in string.punctuation
        return text.encode("ascii").translate(None, _ASCII_PUNCT_BYTES).decode("ascii")
    return text.translate(_unicode_punct_table())


#: article words per language (whole words, matched with ``\b...\b`` on lower-cased text)
_ARTICLES: dict[str, tuple[str, ...]] = {
    "en": ("a", "an", "the"),
    "es": ("un", "una", "unos", "unas", "el", "la", "los", "las"),
    "de": ("ein", "eine", "einen", "einem", "eines", "einer", "der", "die", "das", "den", "dem", "des"),
    "vi": ("của", "là", "cái", "chiếc", "những"),
}
_ARTICLE_WORDS = {lang: frozenset(words) for lang, words in _ARTICLES.items()}
_ARTICLE_RE = {lang: re.compile(r"\b(" + "|".join(words) + r")\b") for lang, words in _ARTICLES.items()}


def _article_remover(lang: str) -> Callable[[str], str]:
    pattern = _ARTICLE_RE[lang]

    def remove(text: str) -> str:
        return pattern.sub(" ", text)

    remove.__name__ = f"remove_articles_{lang}"
    return remove


def _remove_articles_ar(text: str) -> str:
    # The MLQA script writes re.sub('\\sال^|ال', ' ', text); the first alternative can never
    # match (``^`` after two characters), so every "ال" is replaced, inside words too.
    return text.replace("\u0627\u0644", " ")


_CJK_RE = re.compile("([\u4e00-\u9fa5])")


def _split_cjk(text: str) -> str:
    """Put spaces around each CJK ideograph U+4E00-U+9FA5: after whitespace splitting this
    gives the MLQA script's ``mixed_segmentation`` tokens (ideographs one by one, other runs
    split on whitespace; punctuation is already gone when the script segments)."""
    return _CJK_RE.sub(r" \1 ", text)


#: every character but 0-9 and a-z (deep-text-recognition-benchmark's case-insensitive
#: alphanumeric evaluation deletes them after ``lower()``)
_NOT_LOWER_ALNUM_RE = re.compile("[^0123456789abcdefghijklmnopqrstuvwxyz]")
_NOT_LOWER_ALNUM_BYTES = bytes(b for b in range(128) if not (48 <= b <= 57 or 97 <= b <= 122))


def _keep_lower_alnum(text: str) -> str:
    if text.isascii():  # bytes.translate deletes in C
        return text.encode("ascii").translate(None, _NOT_LOWER_ALNUM_BYTES).decode("ascii")
    return _NOT_LOWER_ALNUM_RE.sub("", text)


_STEPS: dict[str, Callable[[str], str]] = {
    "nfkc": _nfkc,
    "lower": str.lower,
    "collapse_whitespace": _collapse,
    "remove_ascii_punct": _remove_ascii_punct,
    "remove_unicode_punct": _remove_unicode_punct,
    **{f"remove_articles_{lang}": _article_remover(lang) for lang in _ARTICLES},
    "remove_articles_ar": _remove_articles_ar,
    "split_cjk": _split_cjk,
    "remove_ascii_punct_keep_hyphen": _remove_ascii_punct_keep_hyphen,
    "fbc2_lemmatize": _fbc2_lemmatize,
    "keep_lower_alnum": _keep_lower_alnum,
}


#: an ASCII character that is neither a word character (``\w``: letters, digits, ``_``) nor
#: whitespace (``str.isspace``, what ``split()`` splits on)
_NON_WORD_ASCII = "".join(c for c in map(chr, range(128)) if not (c.isalnum() or c == "_" or c.isspace()))
_NON_WORD_ASCII_RE = re.compile(f"[{re.escape(_NON_WORD_ASCII)}]")


def _article_free_tokens(
    pieces: list[str], words: frozenset[str], pattern: re.Pattern[str]
) -> list[list[str]]:
    """``pattern.sub(" ", piece).split()`` of each piece, where ``pattern`` is
    ``\\b(w1|w2|...)\\b`` for the article ``words``.

    Where the word boundaries can only be the edges of whitespace tokens, the regex removes
    exactly the tokens in ``words``, so dropping whole tokens is enough. That holds for a
    piece whose tokens are all ``isalnum`` (``str.isalnum`` is the character class ``\\w`` of
    ``re`` for str patterns, minus ``_``), and for an ASCII piece made of word characters and
    whitespace only (checked once for all the pieces: SQuAD's pieces, punctuation deleted, are
    ``[a-z0-9]`` and whitespace unless a control character slipped in). Other pieces (a
    token holding a non-word character such as ``"·"`` or a combining mark) run the regex.
    """
    isdisjoint = words.isdisjoint
    clean_ascii = _NON_WORD_ASCII_RE.search("".join(pieces)) is None
    out: list[list[str]] = []
    append = out.append
    for piece in pieces:
        toks = piece.split()
        if not ((clean_ascii and piece.isascii()) or "".join(toks).isalnum() or not toks):
            append(pattern.sub(" ", piece).split())
        elif isdisjoint(toks):
            append(toks)
        else:
            append([t for t in toks if t not in words])
    return out
