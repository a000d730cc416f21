"""METEOR as NLTK computes it, and the two FusionBrain Challenge 2.0 variants.

Per (hypothesis, reference) pair, on lowercased tokens, words are aligned in three stages,
each over the words the previous stages left unmatched, walking the hypothesis from its end
and taking the **highest** still-unmatched reference position:

1. exact: equal words;
2. stem: equal stems (the leftover lists hold stems from here on);
3. synonym: the reference stem is among the synonyms of the hypothesis *stem* (for WordNet:
   the lemma names of ``wordnet.synsets(stem)`` without multi-word names).

With ``m`` matches, ``P = m/|hyp|``, ``R = m/|ref|``, ``Fmean = P R / (alpha P + (1-alpha) R)``,
``chunks`` = runs of matches adjacent in both sentences, ``penalty = gamma (chunks/m)^beta``
and ``score = (1 - penalty) Fmean``. No match, or an empty side, scores 0. Several
references: the maximum. The penalty is never 0 when ``gamma > 0``: identical ``n``-token
sentences score ``1 - gamma / n^beta`` (``"cat"`` vs ``"cat"`` = 0.5).

Variants (:data:`METEOR_VARIANTS`, each a frozen :class:`METEORVariant`):

``nltk`` (default)
    ``nltk.translate.meteor_score.meteor_score`` of NLTK 3.10.x (Porter stemmer, WordNet 3.0,
    alpha 0.9, beta 3, gamma 0.5), with Hugging Face ``evaluate``'s ``meteor`` tokenization
    (``nltk.word_tokenize``) made to work offline: ``word_tokenize(text, preserve_line=True)``
    (tokenizer ``"nltk_line"``) needs no Punkt data and differs from HF only on strings
    with several sentences (a period inside the string stays on its word). ``"nltk_punkt"``
    is HF's exact call when NLTK's ``punkt_tab`` data is installed; ``"whitespace"`` is
    ``str.split``. Pre-tokenized input (lists of tokens) skips tokenization. Per-sample
    scores are equal to NLTK's (parity-tested to 1e-12; in practice bit-identical).
``fbc2_captioning``
    The AIJ 2022 FusionBrain Challenge 2.0 captioning METEOR (ai-forever/fbc2_aij2022,
    ``evaluation/captioning``): both captions cleaned (:func:`metricore.text.normalize.fbc2_caption_clean`),
    tokenized with ``razdel`` and re-joined, lowercased; the *hypothesis only* then goes
    through PyPI ``wordtodigits`` 1.0.2's English conversion (adjacent number words summed:
    "a hundred and five" -> "a 5"), as the challenge's ``get_meteor`` does
    (``number_words="prediction"``, the default; ``"both"``: English and Russian cardinals on
    both sides, as for ``fbc2_vqa``); then word tokens; Snowball Russian stemmer; synonyms
    from a Russian thesaurus; alpha .9, beta 3, gamma .5; best over the references.
``fbc2_vqa``
    The challenge's VQA METEOR (``evaluation/vqa/metric/calc_meteor.py``): both answers lose
    ASCII punctuation and are lowercased, lemmatized as a whole with pymorphy
    (``parse(answer)[0].normal_form``), and a whole lemma among ноль..десять (also
    нисколько, никакой) becomes its digits (the challenge's ``manualMap_ru``); then the
    *prediction only* goes through PyPI ``wordtodigits`` 1.0.2's English conversion
    (:func:`metricore.text.numbers.wordtodigits`, which sums adjacent number words), as the
    challenge's ``get_meteor`` does (``number_words="prediction"``, the default).
    ``number_words="both"`` is the corrected reading: English and Russian number words in
    any case form, parsed as cardinals, on both sides. Porter stemmer, gamma 0. **Numeric
    rule**: when a gold answer is one token that ``str.isnumeric()``, the score against it
    is ``min/max`` of its ``float()`` and the prediction's first number (0 when there is
    none, or when ``float()`` cannot read the gold, e.g. "²"). Best over the gold answers.

The one divergence left from the challenge code: it took the prediction's first number from
NLTK's part-of-speech tagger (tag ``CD``), whose data no PyPI or Debian package ships; here it
is the first token that begins with a digit and that ``float()`` reads
(:func:`metricore.text.numbers.first_number`). See the metric card for which inputs can differ.

Speed: NLTK's tokenizer rules run once per distinct whitespace-separated piece
(:mod:`metricore.text.treebank`); stems and synonym sets are cached per word; the alignment of
every pair of a call runs at once on integer ids (:func:`metricore.metrics.meteor_align.score_batch`;
``fbc2_vqa``, whose numeric rule is per pair, aligns pair by pair). The arithmetic is
NLTK's, operation for operation, so the numbers are identical.
"""

from __future__ import annotations

import importlib.metadata
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, Literal, cast

import numpy as np

from metricore.core.bounded import BoundedCache
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import (
    check_bool,
    check_choice,
    check_number,
    check_probability,
    paired_columns,
)
from metricore.lexicon.morph import first_normal_form, morph_analyzer
from metricore.lexicon.synonyms import MappingSynonyms, NoSynonyms, get_synonym_source
from metricore.metrics.meteor_align import _align_fast, _Prepared, _score, _syn_others, score_batch
from metricore.text.normalize import fbc2_caption_clean, strip_ascii_punctuation_lower
from metricore.text.normalize.fbc2 import FBC2_NUMBER_LEMMAS
from metricore.text.numbers import (
    first_number,
    numeric_gold,
    numeric_similarity,
    spelled_numbers_to_digits,
    wordtodigits,
)
from metricore.text.treebank import clear_cache as clear_treebank_cache
from metricore.text.treebank import word_tokenize_line

__all__ = [
    "METEORVariant",
    "METEORItems",
    "METEORResult",
    "METEORAlignment",
    "METEOR_VARIANTS",
    "TOKENIZERS",
    "NUMBER_WORDS",
    "compute_meteor",
    "meteor_items",
    "meteor_result",
    "meteor_pair",
    "explain_meteor",
    "check_meteor_inputs",
    "tokenize",
    "clear_caches",
]

_METRIC = "meteor"
TOKENIZERS = ("nltk_line", "nltk_punkt", "whitespace")
#: fbc2_vqa: which side's number words become digits ("prediction": the challenge's code)
NUMBER_WORDS = ("prediction", "both")


@dataclass(frozen=True)
class METEORVariant:
    """A named bundle of options over the one METEOR implementation."""

    name: str
    reference: str
    alpha: float
    beta: float
    gamma: float
    stemmer: Literal["porter", "snowball_russian"]
    #: default synonym source name (see :mod:`metricore.lexicon.synonyms`)
    synonyms: str
    tokenizer: str
    preprocess: Literal["none", "fbc2_captioning", "fbc2_vqa"]
    numeric_rule: bool
    #: pymorphy whole-answer lemmatization (fbc2_vqa)
    lemmatize: bool = False
    #: fbc2_vqa, fbc2_captioning: one of :data:`NUMBER_WORDS`
    number_words: str | None = None


METEOR_VARIANTS: dict[str, METEORVariant] = {
    v.name: v
    for v in (
        METEORVariant(
            "nltk",
            "nltk.translate.meteor_score.meteor_score, NLTK 3.10.x (tokens: nltk.word_tokenize(preserve_line=True), "
            "= HF evaluate meteor's word_tokenize except on multi-sentence strings)",
            0.9,
            3.0,
            0.5,
            "porter",
            "wordnet",
            "nltk_line",
            "none",
            False,
        ),
        METEORVariant(
            "fbc2_captioning",
            "ai-forever/fbc2_aij2022 evaluation/captioning/metrics/calc_meteor.py + rumeteor.py",
            0.9,
            3.0,
            0.5,
            "snowball_russian",
            "auto",
            "nltk_line",
            "fbc2_captioning",
            False,
            number_words="prediction",
        ),
        METEORVariant(
            "fbc2_vqa",
            "ai-forever/fbc2_aij2022 evaluation/vqa/metric/calc_meteor.py + rumeteor.py",
            0.9,
            3.0,
            0.0,
            "porter",
            "auto",
            "nltk_line",
            "fbc2_vqa",
            True,
            True,
            "prediction",
        ),
    )
}


@dataclass(frozen=True)
class METEORResult(MetricResult):
    """Mean METEOR, per-sample scores and which reference gave each score."""

    meteor: float
    scores: list[float]
    best_reference: list[int]
    variant: str
    alpha: float
    beta: float
    gamma: float
    signature: str = field(repr=False)
    #: the inputs as scored (for :meth:`per_item`)
    predictions: list[Any] = field(default_factory=list, repr=False, compare=False)
    references: list[Any] = field(default_factory=list, repr=False, compare=False)

    METRIC = "meteor"
    HEADLINE = (Headline("meteor", higher_is_better=True, items="score", mean=True),)
    COLUMNS = (("best_reference", "best_reference"),)

    @property
    def closest(self) -> list[Any]:
        """Per sample, the reference that gave the score (references are lists of alternatives
        once checked)."""
        return [refs[k] for refs, k in zip(self.references, self.best_reference)]

    def item_closest(self) -> list[Any]:
        return self.closest


# --------------------------------------------------------------------------------------------
# Tokenizers, stemmers (cached)
# --------------------------------------------------------------------------------------------

_LOCK = threading.Lock()
# Bounded for long-running processes (a Space): cleared past either bound, see
# metricore.core.bounded. Measured worst case (texts of 2,000 characters, words of 2,000
# letters) about 60 MB per cache; the numbers are in the Space cards.
_CACHE_LIMIT = 100_000  # entries
_TOKEN_CACHE_CHARS = 4_000_000  # characters of cached texts, per tokenizer
_WORD_CACHE_CHARS = 2_000_000  # characters of cached words or answers
_TOKEN_CACHE: dict[str, BoundedCache[str, tuple[str, ...]]] = {}  # tokenizer -> text -> tokens
_STEM_CACHES: dict[str, BoundedCache[str, str]] = {}
_STEMMERS: dict[str, Any] = {}
_LEMMA_CACHE: BoundedCache[str, str] = BoundedCache(_CACHE_LIMIT, _WORD_CACHE_CHARS)


def clear_caches() -> None:
    """Forget cached tokenizations, stems and lemmas (synonym caches live in the sources)."""
    with _LOCK:
        _TOKEN_CACHE.clear()
        clear_treebank_cache()
        for cache in _STEM_CACHES.values():
            cache.clear()
        _LEMMA_CACHE.clear()


def _nltk_line_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize(text, preserve_line=True)`` (exact and cached per piece, see
    :mod:`metricore.text.treebank`)."""
    return word_tokenize_line(text)


def _nltk_punkt_tokenize(text: str) -> list[str]:
    from nltk.tokenize import word_tokenize

    try:
        return word_tokenize(text)
    except LookupError as err:
        raise LookupError(
            "meteor: tokenizer='nltk_punkt' needs NLTK's punkt_tab data "
            "(python -c \"import nltk; nltk.download('punkt_tab')\"); offline, use the default "
            "tokenizer='nltk_line', which differs only on strings with several sentences"
        ) from err


_TOKENIZE: dict[str, Callable[[str], list[str]]] = {
    "nltk_line": word_tokenize_line,
    "nltk_punkt": _nltk_punkt_tokenize,
    "whitespace": str.split,
}


def _token_cache(tokenizer: str) -> BoundedCache[str, tuple[str, ...]]:
    cache = _TOKEN_CACHE.get(tokenizer)
    if cache is None:
        cache = _TOKEN_CACHE.setdefault(tokenizer, BoundedCache(_CACHE_LIMIT, _TOKEN_CACHE_CHARS))
    return cache


def tokenize(text: str, tokenizer: str = "nltk_line") -> tuple[str, ...]:
    """Tokens of ``text`` (cached per string); ``nltk_line`` is
    ``nltk.word_tokenize(text, preserve_line=True)``."""
    cache = _token_cache(tokenizer)
    hit = cache.get(text)
    if hit is None:
        hit = tuple(_TOKENIZE[tokenizer](text))
        cache[text] = hit
    return hit


def _tokenize_many(texts: list[str], tokenizer: str) -> list[tuple[str, ...]]:
    """:func:`tokenize` of every text (one cache lookup for all, the tokenizer on misses)."""
    cache = _token_cache(tokenizer)
    out: list[tuple[str, ...] | None] = list(map(cache.get, texts))
    if None in out:
        fn = _TOKENIZE[tokenizer]
        for k in [k for k, hit in enumerate(out) if hit is None]:
            text = texts[k]
            hit = cache.get(text)
            if hit is None:
                hit = tuple(fn(text))
                cache[text] = hit
            out[k] = hit
    return cast("list[tuple[str, ...]]", out)  # every None was replaced above


def _stemmer(name: str) -> tuple[Any, BoundedCache[str, str]]:
    with _LOCK:
        if name not in _STEMMERS:
            if name == "porter":
                from nltk.stem.porter import PorterStemmer

                _STEMMERS[name] = PorterStemmer()
            else:
                from nltk.stem.snowball import SnowballStemmer

                _STEMMERS[name] = SnowballStemmer("russian")
            _STEM_CACHES[name] = BoundedCache(_CACHE_LIMIT, _WORD_CACHE_CHARS)
        return _STEMMERS[name], _STEM_CACHES[name]


def _lemmatize_whole(text: str) -> str:
    """pymorphy's normal form of the whole answer, parsed as one word (the challenge's
    ``morph.parse(answer)[0].normal_form``; on several words it re-inflects the last one)."""
    hit = _LEMMA_CACHE.get(text)
    if hit is not None:
        return hit
    morph = morph_analyzer("meteor (fbc2_vqa): answer lemmatization", ", or pass lemmatize=False")
    out = first_normal_form(morph, text) if text.strip() else text
    _LEMMA_CACHE[text] = out
    return out


def _razdel_join(text: str) -> str:
    try:
        import razdel
    except ImportError:
        raise ImportError("meteor (fbc2_captioning): needs razdel (`pip install razdel`)") from None
    return " ".join(t.text for t in razdel.tokenize(text))


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _typename(v: Any) -> str:
    return type(v).__name__


def _tokens(value: list[str] | tuple[str, ...], i: int, j: int | None = None) -> list[str] | tuple[str, ...]:
    """``value`` itself once every token is checked to be a str (never modified later)."""
    try:
        "".join(value)  # C-speed check that every token is a str
        return value
    except TypeError:
        pass
    where = f"predictions[{i}]" if j is None else f"references[{i}][{j}]"
    for k, t in enumerate(value):
        if not isinstance(t, str):
            raise TypeError(f"{_METRIC}: `{where}[{k}]` must be a str token, got {_typename(t)} ({t!r:.60})")
    return value  # pragma: no cover - join only fails on a non-str


def _is_token_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _check_bulk(preds: list[Any], refs: list[Any], allow_tokens: bool) -> tuple[list[Any], list[Any]] | None:
    """The usual shapes (all texts, or all token lists) checked in bulk at C speed, with the
    same results as the item-by-item checks; ``None`` lets those find and report anything
    else."""
    if all(map(isinstance, preds, repeat(str))):
        if all(map(isinstance, refs, repeat(str))):
            return preds, [[r] for r in refs]
        if not (all(map(isinstance, refs, repeat(list))) and all(refs)):
            return None
        try:
            "".join(chain.from_iterable(refs))  # every reference a str
        except TypeError:
            return None
        return preds, [list(r) for r in refs]
    token_list = (list, tuple)
    if not (allow_tokens and all(map(isinstance, preds, repeat(token_list)))):
        return None
    if not (all(map(isinstance, refs, repeat(token_list))) and all(refs)):
        return None
    alts = list(chain.from_iterable(refs))
    if not all(map(isinstance, alts, repeat(token_list))):
        return None
    try:
        "".join(chain.from_iterable(preds))  # every token a str
        "".join(chain.from_iterable(alts))
    except TypeError:
        return None
    return preds, [list(r) for r in refs]


def check_meteor_inputs(
    predictions: Any, references: Any, *, start: int = 0, allow_tokens: bool = True
) -> tuple[list[str | list[str]], list[list[str] | list[list[str]]]]:
    """Check and canonicalise METEOR inputs (new lists; the caller's are never modified,
    token lists are checked and shared, not copied).

    A prediction is a ``str`` or, pre-tokenized, a list of ``str`` tokens. Its reference entry
    is then, respectively, a ``str`` or a list of ``str`` alternatives; or a list of
    token lists (one per reference). ``start`` offsets the reported indices.
    """
    preds, refs = paired_columns(predictions, references, _METRIC)
    bulk = _check_bulk(preds, refs, allow_tokens)
    if bulk is not None:
        return bulk
    out_p: list[Any] = []
    out_r: list[Any] = []
    for k, (p, r) in enumerate(zip(preds, refs)):
        i = start + k
        if isinstance(p, str):
            if isinstance(r, str):
                out_p.append(p)
                out_r.append([r])
                continue
            if isinstance(r, (bytes, Mapping)) or not isinstance(r, Iterable):
                raise TypeError(
                    f"{_METRIC}: `references[{i}]` must be a str or a list of str, got {_typename(r)} ({r!r:.60})"
                )
            # a set has no order, and the order decides `best_reference` on ties (as in
            # metricore.core.validation.string_alternatives)
            alts = sorted(r, key=str) if isinstance(r, Set) else list(r)
            if not alts:
                raise ValueError(f"{_METRIC}: `references[{i}]` has no references (empty list)")
            try:
                "".join(alts)  # C-speed check that every reference is a str
            except TypeError:
                pass
            else:
                out_p.append(p)
                out_r.append(alts)
                continue
            for j, a in enumerate(alts):
                if not isinstance(a, str):
                    hint = (
                        " (a list of tokens as a reference needs a pre-tokenized prediction too)"
                        if _is_token_list(a)
                        else ""
                    )
                    raise TypeError(
                        f"{_METRIC}: `references[{i}][{j}]` must be a str, got {_typename(a)} ({a!r:.60}){hint}"
                    )
            out_p.append(p)
            out_r.append(alts)
        elif _is_token_list(p):
            if not allow_tokens:
                raise TypeError(
                    f"{_METRIC}: `predictions[{i}]` is a token list; this variant's preprocessing "
                    "works on text, so pass strings"
                )
            toks = _tokens(p, i)
            if not _is_token_list(r):
                raise TypeError(
                    f"{_METRIC}: `references[{i}]` must be a list of token lists because "
                    f"`predictions[{i}]` is pre-tokenized, got {_typename(r)} ({r!r:.60})"
                )
            alts = list(r)
            if not alts:
                raise ValueError(f"{_METRIC}: `references[{i}]` has no references (empty list)")
            ref_toks = []
            for j, a in enumerate(alts):
                if not _is_token_list(a):
                    raise TypeError(
                        f"{_METRIC}: `references[{i}][{j}]` must be a list of str tokens because "
                        f"`predictions[{i}]` is pre-tokenized, got {_typename(a)} ({a!r:.60})"
                    )
                ref_toks.append(_tokens(a, i, j))
            out_p.append(toks)
            out_r.append(ref_toks)
        else:
            raise TypeError(
                f"{_METRIC}: `predictions[{i}]` must be a str or a list of str tokens, got {_typename(p)} ({p!r:.60})"
            )
    return out_p, out_r


# --------------------------------------------------------------------------------------------
# Pipelines
# --------------------------------------------------------------------------------------------


class _Side:
    """Text (or tokens) -> :class:`_Prepared` (tokenizations and stems come from caches)."""

    def __init__(
        self, prepare: Callable[[str], str] | None, tokenizer: str, stem_cache: dict[str, str], stemmer: Any
    ):
        self.prepare = prepare
        self.tokenizer = tokenizer
        self.stem_cache = stem_cache
        self.stem = stemmer.stem

    def _make(self, words: list[str]) -> _Prepared:
        cache = self.stem_cache
        stems: list[str | None] = list(map(cache.get, words))
        if None in stems:
            stem = self.stem
            for k, s in enumerate(stems):
                if s is None:
                    w = words[k]
                    s = stem(w)
                    cache[w] = s
                    stems[k] = s
        return _Prepared(words, cast("list[str]", stems))  # every None was replaced above

    def seq(self, text: str) -> tuple[str, ...]:
        """The tokens of ``text`` (not lowercased)."""
        return tokenize(self.prepare(text) if self.prepare is not None else text, self.tokenizer)

    def seqs(self, items: list[Any]) -> list[Any]:
        """:meth:`seq` of every text among ``items``; token lists pass through."""
        if self.prepare is None and all(map(isinstance, items, repeat(str))):
            return _tokenize_many(items, self.tokenizer)
        return [self.seq(x) if isinstance(x, str) else x for x in items]

    def text(self, text: str) -> _Prepared:
        return self._make(list(map(str.lower, self.seq(text))))

    def tokens(self, tokens: list[str]) -> _Prepared:
        return self._make(list(map(str.lower, tokens)))


def _caption_prepare(number_words: str, hypothesis: bool) -> Callable[[str], str]:
    """The challenge's ``postprocess`` (cleaned, razdel tokens re-joined, lowercased), then,
    for the hypothesis only, ``wordtodigits.convert`` (``number_words="prediction"``); or the
    cardinal reading of English and Russian number words on both sides (``"both"``)."""

    def prepare(text: str) -> str:
        text = fbc2_caption_clean(text)
        if hypothesis:
            text = text.replace("@@UNKNOWN@@", "<unk>")
        text = _razdel_join(text).lower()
        if number_words == "both":
            return spelled_numbers_to_digits(text, ("en", "ru"))
        return wordtodigits(text) if hypothesis else text

    return prepare


def _vqa_prepare(lemmatize: bool, number_words: str, hypothesis: bool) -> Callable[[str], str]:
    """The challenge's ``get_lemma(remove_punc(answer))``, then, for the prediction only,
    ``wordtodigits.convert`` (``number_words="prediction"``); or the cardinal reading of
    English and Russian number words on both sides (``"both"``)."""

    def prepare(text: str) -> str:
        text = strip_ascii_punctuation_lower(text)
        if lemmatize:
            text = _lemmatize_whole(text)
        if number_words == "both":
            return spelled_numbers_to_digits(text, ("en", "ru"))
        text = FBC2_NUMBER_LEMMAS.get(text, text)  # whole answers only, as manualMap_ru
        return wordtodigits(text) if hypothesis else text

    return prepare


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _pipeline(
    spec: METEORVariant, source: Any, tok: str, lem: bool, number_words: str | None = None
) -> tuple[_Side, _Side, Callable[[str], frozenset[str]]]:
    """The hypothesis side, the reference side and the synonym lookup of one configuration."""
    stemmer, stem_cache = _stemmer(spec.stemmer)
    if isinstance(source, MappingSynonyms):
        table = source.bind(lambda w: stem_cache.get(w) or stemmer.stem(w))
        empty: frozenset[str] = frozenset()

        def syn_get(word: str) -> frozenset[str]:
            return table.get(word, empty)
    elif isinstance(source, NoSynonyms):

        def syn_get(word: str) -> frozenset[str]:
            return frozenset()
    else:
        syn_cache_get = source.lookup_table().get if hasattr(source, "lookup_table") else None
        slow = source.lookup

        if syn_cache_get is not None:

            def syn_get(word: str) -> frozenset[str]:
                hit = syn_cache_get(word)
                return hit if hit is not None else slow(word)
        else:
            syn_get = slow

    words = number_words or spec.number_words or "prediction"
    if spec.preprocess == "fbc2_captioning":
        hyp_side = _Side(_caption_prepare(words, True), tok, stem_cache, stemmer)
        ref_side = _Side(_caption_prepare(words, False), tok, stem_cache, stemmer)
    elif spec.preprocess == "fbc2_vqa":
        hyp_side = _Side(_vqa_prepare(lem, words, True), tok, stem_cache, stemmer)
        ref_side = _Side(_vqa_prepare(lem, words, False), tok, stem_cache, stemmer)
    else:
        hyp_side = ref_side = _Side(None, tok, stem_cache, stemmer)
    return hyp_side, ref_side, syn_get


def _score_items(
    preds: list[Any],
    refs: list[Any],
    hyp_side: _Side,
    ref_side: _Side,
    syn_get: Callable[[str], frozenset[str]],
    alpha: float,
    beta: float,
    gamma: float,
    numeric: bool,
) -> tuple[list[float], list[int]]:
    """Per-sample best score over the references and the index of the best reference."""
    if not numeric:
        per_item = list(map(len, refs))
        ref_seqs = ref_side.seqs(list(chain.from_iterable(refs)))
        hyp_seqs = hyp_side.seqs(preds)
        try:
            return score_batch(
                hyp_seqs, ref_seqs, per_item, hyp_side.stem_cache, hyp_side.stem, syn_get, alpha, beta, gamma
            )
        except OverflowError:  # keys beyond ~2**62 (astronomical corpora): score item by item
            pass
    others = _syn_others(syn_get)
    scores: list[float] = []
    best_ref: list[int] = []
    for p, alts in zip(preds, refs):
        if isinstance(p, str):
            hyp = hyp_side.text(p)
            ref_ps = list(map(ref_side.text, alts))
        else:
            hyp = hyp_side.tokens(p)
            ref_ps = list(map(ref_side.tokens, alts))
        nh = len(hyp.words)
        best = 0.0
        best_k = 0
        hyp_number: list[float | None] = []
        for k, ref in enumerate(ref_ps):
            rw = ref.words
            if numeric and len(rw) == 1 and (gold := numeric_gold(rw[0]))[0]:
                if not hyp_number:
                    hyp_number.append(first_number(hyp.words))
                found, ref_number = hyp_number[0], gold[1]
                # a gold float() cannot read scores 0 (the challenge's try/except)
                s = 0.0 if found is None or ref_number is None else numeric_similarity(found, ref_number)
            elif nh == 0 or not rw:
                s = 0.0
            else:
                m, chunks = _align_fast(hyp, ref, syn_get, None, others)
                s = _score(m, chunks, nh, len(rw), alpha, beta, gamma)
            if s > best:
                best = s
                best_k = k
        scores.append(best)
        best_ref.append(best_k)
    return scores, best_ref


@dataclass(frozen=True)
class METEORItems(ItemStats):
    """The per-sample statistics METEOR's mean is computed from (:mod:`metricore.core.stream`):
    each sample's score and best reference, and the texts of its per-sample rows."""

    scores: np.ndarray
    best_reference: np.ndarray
    variant: str
    alpha: float
    beta: float
    gamma: float
    signature: str
    predictions: list[Any] | None = None
    references: list[Any] | None = None

    TEXT = ("predictions", "references")
    SHARED = ("variant", "alpha", "beta", "gamma", "signature")
    SPILLS = True


def meteor_items(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "nltk",
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    synonyms: Any = None,
    tokenizer: str | None = None,
    lemmatize: bool | None = None,
    number_words: str | None = None,
) -> METEORItems:
    """Each sample's score and best reference (arguments as :func:`compute_meteor`, which is
    ``meteor_result(meteor_items(...))``); a sample's score depends on that sample only."""
    spec = METEOR_VARIANTS[check_choice(variant, METEOR_VARIANTS, _METRIC, "variant")]
    a = spec.alpha if alpha is None else check_probability(alpha, _METRIC, "alpha")
    b = spec.beta if beta is None else check_number(beta, _METRIC, "beta", 0.0, sys.float_info.max)
    g = spec.gamma if gamma is None else check_probability(gamma, _METRIC, "gamma")
    tok = spec.tokenizer if tokenizer is None else check_choice(tokenizer, TOKENIZERS, _METRIC, "tokenizer")
    if lemmatize is not None:
        check_bool(lemmatize, _METRIC, "lemmatize")
    if lemmatize is not None and spec.preprocess != "fbc2_vqa":
        raise ValueError(f"{_METRIC}: `lemmatize` applies to the fbc2_vqa variant only")
    lem = spec.lemmatize if lemmatize is None else lemmatize
    if number_words is not None:
        if spec.number_words is None:
            raise ValueError(
                f"{_METRIC}: `number_words` applies to the fbc2_vqa and fbc2_captioning variants only"
            )
        check_choice(number_words, NUMBER_WORDS, _METRIC, "number_words")
    words = spec.number_words if number_words is None else number_words
    syn_spec = spec.synonyms if synonyms is None else synonyms
    source = get_synonym_source(syn_spec)

    preds, refs = check_meteor_inputs(predictions, references, allow_tokens=spec.preprocess == "none")
    if not preds:
        raise ValueError(f"{_METRIC}: `predictions` is empty; the mean over zero samples is undefined")

    hyp_side, ref_side, syn_get = _pipeline(spec, source, tok, lem, words)

    scores, best_ref = _score_items(preds, refs, hyp_side, ref_side, syn_get, a, b, g, spec.numeric_rule)

    options = {"alpha": a, "beta": b, "gamma": g, "tokenizer": tok}
    defaults: dict[str, Any] = {
        "alpha": spec.alpha,
        "beta": spec.beta,
        "gamma": spec.gamma,
        "tokenizer": spec.tokenizer,
    }
    if isinstance(syn_spec, str):
        options["synonyms"] = syn_spec
        defaults["synonyms"] = spec.synonyms
    if spec.preprocess == "fbc2_vqa":
        options["lemmatize"] = lem
        defaults["lemmatize"] = spec.lemmatize
    if spec.number_words is not None:
        options["number_words"] = words
        defaults["number_words"] = spec.number_words
    backends = {"nltk": _version("nltk")}
    if not isinstance(source, NoSynonyms):
        backends[source.name] = source.version()
    if spec.preprocess == "fbc2_captioning":
        backends["razdel"] = _version("razdel")
    if spec.preprocess == "fbc2_vqa" and lem:
        backends["pymorphy3"] = _version("pymorphy3")
    return METEORItems(
        scores=np.asarray(scores, dtype=np.float64),
        best_reference=np.asarray(best_ref, dtype=np.int64),
        variant=spec.name,
        alpha=a,
        beta=b,
        gamma=g,
        signature=build_signature(_METRIC, spec.name, options, defaults, backends),
        predictions=preds,
        references=refs,
    )


def meteor_result(items: METEORItems, *, columns: bool = True) -> METEORResult:
    """The result of every sample's statistics: ``meteor`` is the mean of the scores.
    ``columns=False``: without the per-sample columns (the same ``meteor``)."""
    return METEORResult(
        meteor=float(items.scores.mean()),
        scores=items.scores.tolist() if columns else [],
        best_reference=items.best_reference.tolist() if columns else [],
        variant=items.variant,
        alpha=items.alpha,
        beta=items.beta,
        gamma=items.gamma,
        signature=items.signature,
        predictions=(items.predictions or []) if columns else [],
        references=(items.references or []) if columns else [],
    )


def compute_meteor(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    variant: str = "nltk",
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    synonyms: Any = None,
    tokenizer: str | None = None,
    lemmatize: bool | None = None,
    number_words: str | None = None,
) -> METEORResult:
    """Score predictions against references with METEOR.

    Args:
        predictions: one hypothesis per sample: a string, or a list of tokens (``nltk`` only).
        references: per sample, a reference string or a list of reference strings (the best
            counts); for a pre-tokenized prediction, a list of token lists.
        variant: ``"nltk"`` (default), ``"fbc2_captioning"`` or ``"fbc2_vqa"``.
        alpha, beta, gamma: METEOR parameters; ``None`` keeps the variant's (0.9, 3, 0.5;
            ``fbc2_vqa``: gamma 0). alpha and gamma in [0, 1], beta >= 0.
        synonyms: ``"wordnet"``, ``"ruwordnet"``, ``"wiki_ru_wordnet"``, ``"auto"`` (RuWordNet
            if found, else wiki-ru-wordnet), ``"none"``, a dict ``{word: [synonyms]}`` or a
            :class:`~metricore.lexicon.synonyms.SynonymSource`. Default: the variant's
            (``nltk``: WordNet; challenge variants: ``"auto"``).
        tokenizer: ``"nltk_line"`` (default), ``"nltk_punkt"`` or ``"whitespace"``.
        lemmatize: ``fbc2_vqa`` only: pymorphy whole-answer lemmatization (default True).
        number_words: ``fbc2_vqa`` and ``fbc2_captioning``: ``"prediction"`` (default: the
            challenge's code, ``wordtodigits`` on the prediction; ``fbc2_vqa`` also maps
            whole-answer ноль..десять on both) or ``"both"`` (English and Russian number words
            as cardinals on both sides).

    >>> r = compute_meteor(["the cat was sat on the mat"], [["the cat sat on the mat", "a cat"]],
    ...                    synonyms="none")
    >>> round(r.meteor, 4), r.best_reference
    (0.9654, [0])
    >>> compute_meteor(["cat"], ["cat"], synonyms="none").scores
    [0.5]
    """
    return meteor_result(
        meteor_items(
            predictions,
            references,
            variant=variant,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
            synonyms=synonyms,
            tokenizer=tokenizer,
            lemmatize=lemmatize,
            number_words=number_words,
        )
    )


def meteor_pair(
    hypothesis: Sequence[str],
    reference: Sequence[str],
    *,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    stemmer: Literal["porter", "snowball_russian"] = "porter",
    synonyms: Any = "wordnet",
) -> float:
    """METEOR of one pre-tokenized pair, as ``nltk...single_meteor_score(reference, hypothesis)``.

    >>> meteor_pair(["the", "cat"], ["the", "cat"], synonyms="none")
    0.9375
    """
    st, cache = _stemmer(stemmer)
    source = get_synonym_source(synonyms)
    side = _Side(None, "whitespace", cache, st)
    h = side.tokens(list(hypothesis))
    r = side.tokens(list(reference))
    if isinstance(source, MappingSynonyms):
        table = source.bind(st.stem)
        m, c = _align_fast(h, r, lambda w: table.get(w, frozenset()))
    else:
        m, c = _align_fast(h, r, source.lookup)
    return _score(m, c, len(h.words), len(r.words), float(alpha), float(beta), float(gamma))


@dataclass(frozen=True)
class METEORAlignment:
    """How one prediction scored against its best reference (:func:`explain_meteor`).

    ``hypothesis`` and ``reference`` are the words after the variant's preprocessing
    (lowercased); ``matches`` holds ``(hypothesis position, reference position, stage)`` in
    hypothesis order, ``stage`` being ``"exact"``, ``"stem"`` or ``"synonym"``. ``numeric``
    is set when ``fbc2_vqa``'s numeric rule scored the pair instead of an alignment:
    ``(first number of the prediction or None, gold number)``; the gold number is NaN when
    ``float()`` cannot read the numeric gold (``"²"``), which scores 0.
    """

    score: float
    reference_index: int
    hypothesis: tuple[str, ...]
    reference: tuple[str, ...]
    matches: tuple[tuple[int, int, str], ...]
    chunks: int
    numeric: tuple[float | None, float] | None = None

    def describe(self, max_words: int = 12) -> str:
        """One line: ``"exact: the, cat | stem: runs→running | unmatched: big | 2 chunks"``."""
        if self.numeric is not None:
            found, gold = self.numeric
            if gold != gold:  # NaN
                return f"numeric rule: gold {self.reference[0]!r} is numeric but not a float() → 0"
            if found is None:
                return f"numeric rule: gold {gold:g}, no number in the prediction → 0"
            return f"numeric rule: min/max({found:g}, {gold:g}) = {self.score:.4g}"
        if not self.hypothesis or not self.reference:
            return "empty side → 0"
        groups: dict[str, list[str]] = {"exact": [], "stem": [], "synonym": []}
        for i, j, stage in self.matches:
            h, r = self.hypothesis[i], self.reference[j]
            groups[stage].append(h if h == r else f"{h}→{r}")
        matched = {i for i, _, _ in self.matches}
        groups["unmatched"] = [w for i, w in enumerate(self.hypothesis) if i not in matched]

        def listing(words: list[str]) -> str:
            more = f" … (+{len(words) - max_words})" if len(words) > max_words else ""
            return ", ".join(words[:max_words]) + more

        parts = [f"{stage}: {listing(words)}" for stage, words in groups.items() if words]
        if self.matches:
            parts.append(f"{self.chunks} chunk{'s' if self.chunks != 1 else ''}")
        return " | ".join(parts)


def explain_meteor(
    prediction: Any,
    references: Any,
    *,
    variant: str = "nltk",
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    synonyms: Any = None,
    tokenizer: str | None = None,
    lemmatize: bool | None = None,
    number_words: str | None = None,
) -> METEORAlignment:
    """The alignment behind one sample's METEOR score: which words matched at which stage,
    against the reference that scored best (the arguments are those of
    :func:`compute_meteor`, for a single sample; the score is that sample's score).

    The stage of a match is read off the one alignment: the exact stage pairs every equal
    word it can, so a later match between words that differ is a stem match when their stems
    are equal and a synonym match otherwise.

    >>> a = explain_meteor("the cat was sat on the mat", ["a cat", "the cat sat on the mat"], synonyms="none")
    >>> a.reference_index, a.describe()
    (1, 'exact: the, cat, sat, on, the, mat | unmatched: was | 2 chunks')
    """
    options = {
        "variant": variant,
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "synonyms": synonyms,
        "tokenizer": tokenizer,
        "lemmatize": lemmatize,
        "number_words": number_words,
    }
    result = compute_meteor([prediction], [references], **options)  # every check happens here
    spec = METEOR_VARIANTS[variant]
    source = get_synonym_source(spec.synonyms if synonyms is None else synonyms)
    tok = spec.tokenizer if tokenizer is None else tokenizer
    lem = spec.lemmatize if lemmatize is None else lemmatize
    hyp_side, ref_side, syn_get = _pipeline(spec, source, tok, lem, number_words)
    best = result.best_reference[0]
    gold = ([references] if isinstance(references, str) else list(references))[best]
    if isinstance(prediction, str):
        hyp, ref = hyp_side.text(prediction), ref_side.text(gold)
    else:
        hyp, ref = hyp_side.tokens(list(prediction)), ref_side.tokens(list(gold))
    words = (tuple(hyp.words), tuple(ref.words))
    gold = numeric_gold(ref.words[0]) if spec.numeric_rule and len(ref.words) == 1 else (False, None)
    if gold[0]:
        gold_number = float("nan") if gold[1] is None else gold[1]
        return METEORAlignment(result.scores[0], best, *words, (), 0, (first_number(hyp.words), gold_number))
    href: list[int] = []
    _, chunks = _align_fast(hyp, ref, syn_get, href) if hyp.words and ref.words else (0, 0)
    matches = tuple(
        (
            i,
            j,
            "exact"
            if hyp.words[i] == ref.words[j]
            else "stem"
            if hyp.stems[i] == ref.stems[j]
            else "synonym",
        )
        for i, j in enumerate(href)
        if j >= 0
    )
    return METEORAlignment(result.scores[0], best, *words, matches, chunks)
