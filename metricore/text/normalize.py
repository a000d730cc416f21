"""Text normalizers: the one home for every answer-cleaning rule.

A normalizer is a small frozen object with one method, ``__call__(text) -> text``, built from
named steps and exposed under a preset name (the style of rouge_score's tokenizers and
jiwer's transformations). Metrics refer to presets; they never re-write the rules inline.

Presets
-------
``rrc``
    Robust Reading Competition answer cleaning used by DocVQA, ST-VQA (PyPI ``anls``),
    DUDE and ANLS*: ``" ".join(s.strip().lower().split())``: case-insensitive, whitespace
    runs collapsed to one space, nothing else touched.
``identity``
    No change (the ICDAR 2019 / deep-text-recognition-benchmark 1-NED default).
``squad``
    The SQuAD v1.1 / v2.0 official scripts' ``normalize_answer`` (also MRQA, QuAC, HF
    ``evaluate`` ``squad``/``squad_v2``), in their order: lowercase; delete the ASCII
    ``string.punctuation`` characters (a hyphen is deleted, not turned into a space:
    ``"apple-pie"`` -> ``"applepie"``); replace the words ``a``/``an``/``the`` (regex
    ``\b(a|an|the)\b``, Unicode word boundaries) by a space; collapse whitespace.
``mlqa_<lang>`` (``en``, ``es``, ``hi``, ``vi``, ``de``, ``ar``, ``zh``)
    The MLQA official script (facebookresearch/MLQA ``mlqa_evaluation_v1.py``): lowercase;
    delete every character of Unicode category ``P*`` plus ``string.punctuation``; replace
    the language's articles by a space (en: a/an/the; es: un/una/unos/unas/el/la/los/las;
    de: ein/eine/einen/einem/eines/einer/der/die/das/den/dem/des; vi: của/là/cái/chiếc/những;
    ar: every ``"ال"``, also inside words, as the script's regex does; hi, zh: none);
    collapse whitespace, and for ``zh`` first split every CJK ideograph U+4E00-U+9FA5 into
    its own token (the script's "mixed segmentation"). The punctuation set comes from this
    Python's ``unicodedata`` (as the script's does).

For the token metrics, :meth:`Normalizer.tokens` returns ``normalizer(text).split()`` with a
fast path (article removal on whitespace tokens when every token is made of word characters,
where the regex can only match whole tokens); :meth:`Normalizer.keys_many` and
:meth:`Normalizer.tokens_of_keys` split a corpus's normalization into a bulk character stage,
whose output doubles as a deduplication key, and a token stage run once per distinct key.
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

import numpy as np

from metricore.lexicon.morph import normal_form as _normal_form
from metricore.text.numbers import RUSSIAN_NUMBER_WORDS as _RUSSIAN_NUMBER_WORDS

__all__ = [
    "Normalizer",
    "NORMALIZERS",
    "MLQA_LANGUAGES",
    "get_normalizer",
    "rrc_normalize",
    "rrc_normalize_many",
    "rrc_normalize_batch",
    "squad_normalize",
    "unicode_punctuation",
]

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
]

#: languages of the MLQA evaluation script, in its order (whitespace languages, then zh)
MLQA_LANGUAGES = ("en", "es", "hi", "vi", "de", "ar", "zh")


def rrc_normalize(text: str) -> str:
    """``" ".join(text.strip().lower().split())`` as the RRC evaluation scripts write it.

    ``strip()`` is implied by ``split()`` (both use ``str.isspace``), so it is not repeated.
    """
    return " ".join(text.lower().split())


def rrc_normalize_many(texts: list[str]) -> list[str]:
    """:func:`rrc_normalize` over a list: this is the hot loop of ANLS."""
    if len(texts) >= _BATCH_MIN:
        return rrc_normalize_batch(texts)[0]
    return [" ".join(t.lower().split()) for t in texts]


#: below this many strings the per-string loop is as fast as the batched path
_BATCH_MIN = 256
_SEP = "\x00"


#: strings per block of :func:`rrc_normalize_batch`. Whole-column temporaries (a few MB
#: each) were handed back to the OS after every call and faulted in again on the next
#: (~9,000 page faults, 10-15% of an ANLS run on 100,000 questions); blocks of this size
#: stay in malloc's reused memory and in cache (measured: 0 faults, ~15% faster).
_BLOCK = 16384


def rrc_normalize_batch(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """:func:`rrc_normalize` of every text, and ``len(text.upper())`` of every raw text.

    Equal to ``[rrc_normalize(t) for t in texts]`` and ``[len(t.upper()) for t in texts]``
    (a property test pins it), several times faster on large columns. Why: the per-string
    loop pays three method calls and a join per answer, while most answers are plain ASCII
    with single spaces and need only lowercasing. So the column is joined once with NUL
    separators and lowercased as bytes (``bytes.lower`` maps A-Z only, which is the whole of
    ``str.lower`` on ASCII), and NumPy finds the few answers that need more (any byte outside
    printable ASCII, i.e. control characters, whitespace other than the space, or non-ASCII
    text; a leading, trailing or doubled space); only those go through :func:`rrc_normalize`
    one by one (batching them too was tried: ``re.sub`` over their joined text is slower
    than the per-string calls). ASCII lengths are byte lengths; ``upper`` never changes an
    ASCII length.

    The column is worked through in blocks of :data:`_BLOCK` texts. A text containing NUL,
    or a lone surrogate, sends its block down the plain loop.
    ``TypeError`` if an item is not a ``str``.
    """
    if len(texts) <= _BLOCK:
        return _normalize_block(texts)
    parts: list[str] = []
    lengths = []
    for start in range(0, len(texts), _BLOCK):
        block_parts, block_lengths = _normalize_block(texts[start : start + _BLOCK])
        parts.extend(block_parts)
        lengths.append(block_lengths)
    return parts, np.concatenate(lengths)


def _normalize_block(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """:func:`rrc_normalize_batch` of one block."""
    n = len(texts)
    if n < _BATCH_MIN:
        return _normalize_loop(texts)
    try:
        data = _SEP.join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return _normalize_loop(texts)
    b = np.frombuffer(data, dtype=np.uint8)
    seps = np.flatnonzero(b == 0)
    if len(seps) != n - 1:  # some text holds a NUL itself
        return _normalize_loop(texts)
    bounds = np.empty(n + 1, dtype=np.int64)
    bounds[0], bounds[1:-1], bounds[-1] = -1, seps, len(b)
    starts, ends = bounds[:-1] + 1, bounds[1:]
    lengths = ends - starts
    # bytes < 32 or >= 128 in one comparison (uint8 wraps), separators excepted
    odd = (b - np.uint8(32)) >= 96
    odd[seps] = False
    space = b == 32
    odd[1:] |= space[:-1] & space[1:]
    suspect = np.zeros(n, dtype=bool)
    suspect[np.searchsorted(seps, np.flatnonzero(odd))] = True
    last = len(b) - 1
    suspect |= (lengths > 0) & (space[np.minimum(starts, last)] | space[np.maximum(ends - 1, 0)])
    parts = data.lower().decode("utf-8").split(_SEP)
    for i in np.flatnonzero(suspect).tolist():
        t = texts[i]
        parts[i] = " ".join(t.lower().split())
        lengths[i] = len(t) if t.isascii() else len(t.upper())
    return parts, lengths


def _normalize_loop(texts: list[str]) -> tuple[list[str], np.ndarray]:
    pairs = [(" ".join(t.lower().split()), len(t) if t.isascii() else len(t.upper())) for t in texts]
    if not pairs:
        return [], np.zeros(0, dtype=np.int64)
    norm, lengths = zip(*pairs)
    return list(norm), np.array(lengths, dtype=np.int64)


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


_STEPS: dict[str, Callable[[str], str]] = {
    "nfkc": _nfkc,
    "lower": str.lower,
    "collapse_whitespace": _collapse,
    "remove_ascii_punct": _remove_ascii_punct,
    "remove_unicode_punct": _remove_unicode_punct,
    **{f"remove_articles_{lang}": _article_remover(lang) for lang in _ARTICLES},
    "remove_articles_ar": _remove_articles_ar,
    "split_cjk": _split_cjk,
}


def _word_tokens(text: str, words: frozenset[str], pattern: re.Pattern[str]) -> list[str]:
    """``pattern.sub(" ", text).split()`` where ``pattern`` is ``\b(w1|w2|...)\b``.

    When every whitespace token consists of word characters (``str.isalnum`` is the
    character class ``\\w`` of ``re`` for str patterns, minus ``_``), the only word
    boundaries are the token edges, so the regex removes exactly the tokens in ``words``.
    Otherwise (a token holds a non-word character such as ``"·"`` or a combining mark) the
    regex runs.
    """
    toks = text.split()
    joined = "".join(toks)
    if joined.isalnum() or not joined:
        if words.isdisjoint(toks):
            return toks
        return [t for t in toks if t not in words]
    return pattern.sub(" ", text).split()


@cache
def _tokenizer(steps: tuple[str, ...]) -> Callable[[str], list[str]]:
    """A function ``text -> normalizer(text).split()`` specialised for ``steps``."""
    body = list(steps)
    while body and body[-1] == "collapse_whitespace":
        body.pop()  # split() collapses whitespace itself
    words: frozenset[str] | None = None
    pattern: re.Pattern[str] | None = None
    if body and body[-1].startswith("remove_articles_") and body[-1][-2:] in _ARTICLE_WORDS:
        lang = body.pop()[-2:]
        words, pattern = _ARTICLE_WORDS[lang], _ARTICLE_RE[lang]
    fns = tuple(_STEPS[s] for s in body)
    if words is not None and pattern is not None and body == ["lower", "remove_ascii_punct"]:
        table, punct, w, p = _ASCII_PUNCT_TABLE, _ASCII_PUNCT_BYTES, words, pattern

        def squad_tokens(text: str) -> list[str]:
            # _remove_ascii_punct and _word_tokens inlined: this is the hot loop of SQuAD F1
            text = text.lower()
            if text.isascii():
                text = text.encode("ascii").translate(None, punct).decode("ascii")
            else:
                text = text.translate(table)
            toks = text.split()
            joined = "".join(toks)
            if joined.isalnum() or not joined:
                if w.isdisjoint(toks):
                    return toks
                return [t for t in toks if t not in w]
            return p.sub(" ", text).split()

        return squad_tokens
    if words is not None and pattern is not None:
        w, p = words, pattern

        def article_tokens(text: str) -> list[str]:
            for fn in fns:
                text = fn(text)
            return _word_tokens(text, w, p)

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
        return list(map(_tokenizer(self.steps), keys))

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
    "squad": Normalizer(("lower", "remove_ascii_punct", "remove_articles_en", "collapse_whitespace")),
    **{
        f"mlqa_{lang}": Normalizer(
            ("lower", "remove_unicode_punct")
            + ((f"remove_articles_{lang}",) if lang not in ("hi", "zh") else ())  # type: ignore[operator]
            + (("split_cjk",) if lang == "zh" else ())
            + ("collapse_whitespace",)
        )
        for lang in MLQA_LANGUAGES
    },
}


#: ASCII characters that are neither word characters nor whitespace once punctuation is gone
_NON_WORD_ASCII_RE = re.compile("[\x00-\x08\x0e-\x1b\x7f]")


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
    return [_remove_ascii_punct(t.lower()) for t in texts]


def _squad_piece_tokens(pieces: list[str]) -> list[list[str]]:
    """``squad`` tokens from :func:`_squad_pieces` output: whitespace tokens without the
    articles. A piece that is ASCII and holds no control character is ``[a-z0-9]`` and
    whitespace only, and a piece whose tokens are all ``isalnum`` has word boundaries only at
    token edges, so for both the article regex reduces to dropping whole tokens; other
    pieces run the regex."""
    words, pattern = _ARTICLE_WORDS["en"], _ARTICLE_RE["en"]
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


def squad_normalize(text: str) -> str:
    """The SQuAD ``normalize_answer``: ``NORMALIZERS["squad"](text)``, fast path."""
    return " ".join(_tokenizer(_SQUAD_STEPS)(text))


def get_normalizer(name: str) -> Normalizer:
    try:
        return NORMALIZERS[name]
    except KeyError:
        raise ValueError(f"unknown normalizer {name!r}; allowed: {', '.join(sorted(NORMALIZERS))}") from None


_SQUAD_STEPS: tuple[str, ...] = NORMALIZERS["squad"].steps


# --------------------------------------------------------------------------------------------
# FusionBrain Challenge 2.0 (ai-forever/fbc2_aij2022) answer and caption cleaning, used by the
# `fbc2_vqa` and `fbc2_captioning` METEOR variants.
# --------------------------------------------------------------------------------------------

__all__ += ["strip_ascii_punctuation_lower", "fbc2_caption_clean"]

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


# FusionBrain Challenge 2.0 TextQA / MathQA answer normalization (evaluation/textqa/metric/
# calculate_f1.py and evaluation/mathqa/metric/calculate_exact_score.py, ``normalize_answer``),
# used by the `fbc2_textqa` and `fbc2_mathqa` token-F1 variants. The challenge maps the
# pymorphy *lemma* of each token through a 13-word table, so only nominative lemmas count:
# "двух" -> lemma "два" -> "2", but "сто" stays "сто".

__all__ += ["FBC2_NUMBER_LEMMAS", "fbc2_lemma"]

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


_STEPS["remove_ascii_punct_keep_hyphen"] = _remove_ascii_punct_keep_hyphen
_STEPS["fbc2_lemmatize"] = _fbc2_lemmatize
#: lowercase; delete ASCII punctuation (MathQA: all but "-"); lemma of each whitespace token
#: (numbers words -> digits); collapse whitespace. No article removal.
NORMALIZERS["fbc2_textqa"] = Normalizer(
    ("lower", "remove_ascii_punct", "fbc2_lemmatize", "collapse_whitespace")
)
NORMALIZERS["fbc2_mathqa"] = Normalizer(
    ("lower", "remove_ascii_punct_keep_hyphen", "fbc2_lemmatize", "collapse_whitespace")
)
