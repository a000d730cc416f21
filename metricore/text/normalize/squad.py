"""SQuAD's ``normalize_answer``, the rule of the SQuAD v1.1 / v2.0 official scripts (also MRQA,
QuAC, HF ``evaluate`` ``squad``/``squad_v2``), in their order: lowercase; delete the ASCII
``string.punctuation`` characters (a hyphen is deleted, not turned into a space:
``"apple-pie"`` -> ``"applepie"``); replace the words ``a``/``an``/``the`` (regex
``\\b(a|an|the)\\b``, Unicode word boundaries) by a space; collapse whitespace.

The fast path, for one text or a corpus, is written once here: a character stage
(:func:`_squad_pieces`: ``lower()`` then delete ASCII punctuation, in bulk over the texts
joined by NUL), whose output doubles as a deduplication key, and a token stage run once per
distinct key (:func:`_squad_piece_tokens`: whitespace tokens without the articles, by
:func:`~metricore.text.normalize.steps._article_free_tokens`).
"""

from __future__ import annotations

from metricore.text.normalize.steps import (
    _ARTICLE_RE,
    _ARTICLE_WORDS,
    _ASCII_PUNCT_BYTES,
    Step,
    _article_free_tokens,
    _remove_ascii_punct,
)

#: the steps of the ``squad`` preset
_SQUAD_STEPS: tuple[Step, ...] = ("lower", "remove_ascii_punct", "remove_articles_en", "collapse_whitespace")


def _squad_piece(text: str) -> str:
    return _remove_ascii_punct(text.lower())


def _squad_pieces(texts: list[str]) -> list[str]:
    """The character-level steps of ``squad`` (``lower()``, then delete ASCII punctuation) of
    each text, done once on the texts joined by NUL separators: NUL is neither cased nor
    case-ignorable, so the context-dependent final-sigma rule of ``lower()`` sees the same
    boundaries, and the punctuation is deleted from the UTF-8 bytes (multi-byte sequences
    hold no ASCII bytes). Texts containing NUL themselves are done one by one."""
    n = len(texts)
    if n >= 16:
        big = "\x00".join(texts)  # TypeError for a non-str
        if big.count("\x00") == n - 1:
            if big.isascii():
                data = big.encode("ascii").lower().translate(None, _ASCII_PUNCT_BYTES).decode("ascii")
            else:
                data = (
                    big.lower()
                    .encode("utf-8", "surrogatepass")
                    .translate(None, _ASCII_PUNCT_BYTES)
                    .decode("utf-8", "surrogatepass")
                )
            return data.split("\x00")
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("every text must be a str")
    return list(map(_squad_piece, texts))


def _squad_piece_tokens(pieces: list[str]) -> list[list[str]]:
    """``squad`` tokens from :func:`_squad_pieces` output: whitespace tokens without the
    English articles."""
    return _article_free_tokens(pieces, _ARTICLE_WORDS["en"], _ARTICLE_RE["en"])


def squad_normalize(text: str) -> str:
    """The SQuAD ``normalize_answer``: ``NORMALIZERS["squad"](text)``, fast path."""
    return " ".join(_squad_piece_tokens([_squad_piece(text)])[0])
