"""The :class:`Normalizer` and its named presets (:data:`NORMALIZERS`).

``rrc``
    Robust Reading Competition answer cleaning used by DocVQA, ST-VQA (PyPI ``anls``),
    DUDE and ANLS*: ``" ".join(s.strip().lower().split())``
    (:mod:`metricore.text.normalize.rrc`).
``identity``
    No change (the ICDAR 2019 / deep-text-recognition-benchmark 1-NED default).
``squad``
    The SQuAD v1.1 / v2.0 official scripts' ``normalize_answer``
    (:mod:`metricore.text.normalize.squad`).
``mlqa_<lang>`` (``en``, ``es``, ``hi``, ``vi``, ``de``, ``ar``, ``zh``)
    The MLQA official script (facebookresearch/MLQA ``mlqa_evaluation_v1.py``): lowercase;
    delete every character of Unicode category ``P*`` plus ``string.punctuation``; replace
    the language's articles by a space (en: a/an/the; es: un/una/unos/unas/el/la/los/las;
    de: ein/eine/einen/einem/eines/einer/der/die/das/den/dem/des; vi: của/là/cái/chiếc/những;
    ar: every ``"ال"``, also inside words, as the script's regex does; hi, zh: none);
    collapse whitespace, and for ``zh`` first split every CJK ideograph U+4E00-U+9FA5 into
    its own token (the script's "mixed segmentation"). The punctuation set comes from this
    Python's ``unicodedata`` (as the script's does).
``fbc2_textqa``, ``fbc2_mathqa``
    FusionBrain Challenge 2.0 TextQA / MathQA (:mod:`metricore.text.normalize.fbc2`):
    lowercase; delete ASCII punctuation (MathQA: all but ``"-"``); lemma of each whitespace
    token (number words -> digits); collapse whitespace. No article removal.

For the token metrics, :meth:`Normalizer.tokens` returns ``normalizer(text).split()`` with a
fast path (article removal on whitespace tokens where the regex can only match whole tokens,
:func:`~metricore.text.normalize.steps._article_free_tokens`); :meth:`Normalizer.keys_many`
and :meth:`Normalizer.tokens_of_keys` split a corpus's normalization into a bulk character
stage, whose output doubles as a deduplication key, and a token stage run once per distinct
key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from metricore.text.normalize.rrc import rrc_normalize_many
from metricore.text.normalize.squad import _SQUAD_STEPS, _squad_piece_tokens, _squad_pieces
from metricore.text.normalize.steps import _ARTICLE_RE, _ARTICLE_WORDS, _STEPS, Step, _article_free_tokens

__all__ = ["Normalizer", "NORMALIZERS", "MLQA_LANGUAGES", "get_normalizer"]

#: languages of the MLQA evaluation script, in its order (whitespace languages, then zh)
MLQA_LANGUAGES = ("en", "es", "hi", "vi", "de", "ar", "zh")

_Articles = tuple[frozenset[str], re.Pattern[str]]


@cache
def _stages(steps: tuple[str, ...]) -> tuple[tuple[Callable[[str], str], ...], _Articles | None]:
    """``steps`` as (character steps, trailing article removal or ``None``) for tokenizing:
    trailing ``collapse_whitespace`` is dropped (``split()`` collapses whitespace itself),
    and a final regex article removal becomes the token-level rule."""
    body = list(steps)
    while body and body[-1] == "collapse_whitespace":
        body.pop()
    articles: _Articles | None = None
    if body and body[-1].startswith("remove_articles_") and body[-1][-2:] in _ARTICLE_WORDS:
        lang = body.pop()[-2:]
        articles = (_ARTICLE_WORDS[lang], _ARTICLE_RE[lang])
    return tuple(_STEPS[s] for s in body), articles


@cache
def _tokenizer(steps: tuple[str, ...]) -> Callable[[str], list[str]]:
    """A function ``text -> normalizer(text).split()`` specialised for ``steps``."""
    fns, articles = _stages(steps)
    if articles is not None:
        words, pattern = articles

        def article_tokens(text: str) -> list[str]:
            for fn in fns:
                text = fn(text)
            return _article_free_tokens([text], words, pattern)[0]

        return article_tokens

    def plain_tokens(text: str) -> list[str]:
        for fn in fns:
            text = fn(text)
        return text.split()

    return plain_tokens


@dataclass(frozen=True)
class Normalizer:
    """Apply ``steps`` in order. ``Normalizer(())`` is the identity."""

    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        for step in self.steps:
            if step not in _STEPS:
                raise ValueError(f"unknown normalization step {step!r}; allowed: {', '.join(sorted(_STEPS))}")

    def __call__(self, text: str) -> str:
        for step in self.steps:
            text = _STEPS[step](text)
        return text

    def many(self, texts: list[str]) -> list[str]:
        """Normalize a list; the identity returns a copy without calling per item."""
        if not self.steps:
            return list(texts)
        if self.steps == ("lower", "collapse_whitespace"):
            return rrc_normalize_many(texts)
        if self.steps and self.steps[-1] == "collapse_whitespace":
            return list(map(" ".join, self.tokens_many(texts)))
        return [self(t) for t in texts]

    def tokens(self, text: str) -> list[str]:
        """``self(text).split()``, through a fast path specialised for the steps."""
        return _tokenizer(self.steps)(text)

    def tokens_many(self, texts: list[str]) -> list[list[str]]:
        """:meth:`tokens` of each text (``squad``: the character steps run in bulk)."""
        return self.tokens_of_keys(self.keys_many(texts))

    def keys_many(self, texts: list[str]) -> list[str]:
        """Deduplication keys: texts with equal keys have equal :meth:`tokens`, which
        :meth:`tokens_of_keys` computes from the keys. ``squad``: each text lower-cased and
        stripped of ASCII punctuation, in bulk (so ``"The Cat!"`` and ``"the cat"`` share a
        key); other normalizers: the texts themselves."""
        if self.steps == _SQUAD_STEPS:
            return _squad_pieces(texts)
        if set(map(type, texts)) - {str} and not all(isinstance(t, str) for t in texts):
            raise TypeError("every text must be a str")
        return list(texts)

    def tokens_of_keys(self, keys: list[str]) -> list[list[str]]:
        """:meth:`tokens` of the texts behind ``keys`` (from :meth:`keys_many`)."""
        if self.steps == _SQUAD_STEPS:
            return _squad_piece_tokens(keys)
        fns, articles = _stages(self.steps)
        if articles is None:
            return list(map(_tokenizer(self.steps), keys))
        pieces = list(keys)
        for fn in fns:
            pieces = list(map(fn, pieces))
        return _article_free_tokens(pieces, *articles)

    @property
    def tokenizer(self) -> Callable[[str], list[str]]:
        """The function behind :meth:`tokens` (hoist it out of loops)."""
        return _tokenizer(self.steps)

    @property
    def name(self) -> str:
        return "+".join(self.steps) or "none"


NORMALIZERS: dict[str, Normalizer] = {
    "rrc": Normalizer(("lower", "collapse_whitespace")),
    "identity": Normalizer(()),
    "squad": Normalizer(_SQUAD_STEPS),
    **{
        f"mlqa_{lang}": Normalizer(
            ("lower", "remove_unicode_punct")
            + ((f"remove_articles_{lang}",) if lang not in ("hi", "zh") else ())
            + (("split_cjk",) if lang == "zh" else ())
            + ("collapse_whitespace",)
        )
        for lang in MLQA_LANGUAGES
    },
    "fbc2_textqa": Normalizer(("lower", "remove_ascii_punct", "fbc2_lemmatize", "collapse_whitespace")),
    "fbc2_mathqa": Normalizer(
        ("lower", "remove_ascii_punct_keep_hyphen", "fbc2_lemmatize", "collapse_whitespace")
    ),
}


def get_normalizer(name: str) -> Normalizer:
    try:
        return NORMALIZERS[name]
    except KeyError:
        raise ValueError(f"unknown normalizer {name!r}; allowed: {', '.join(sorted(NORMALIZERS))}") from None
