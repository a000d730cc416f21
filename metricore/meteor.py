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
    ``evaluation/captioning``): both captions cleaned (:func:`metricore.normalize.fbc2_caption_clean`),
    tokenized with ``razdel`` and re-joined, lowercased; English number words in the
    *hypothesis only* written as digits (the challenge's ``wordtodigits`` step); then word
    tokens; Snowball Russian stemmer; synonyms from a Russian thesaurus; alpha .9, beta 3,
    gamma .5; best over the references.
``fbc2_vqa``
    The challenge's VQA METEOR (``evaluation/vqa``): both answers lose ASCII punctuation and
    are lowercased, lemmatized as a whole with pymorphy (``parse(answer)[0].normal_form``),
    number words (English and Russian, e.g. "three", "три", "трёх") written as digits;
    Porter stemmer, gamma 0. **Numeric rule**: when a gold answer is a single number, the
    score against it is ``min/max`` of that number and the first number in the prediction
    (0 when the prediction has none). Best over the gold answers.

Divergences from the challenge code, on purpose: NLTK's part-of-speech tagger (which needs
data that cannot be downloaded here) picked "the first number" in the prediction; here it is
the first token that is a decimal number. The challenge wrote English number words as digits
in the prediction only, so a gold "three" could never match; ``fbc2_vqa`` converts both sides
and also Russian number words in any case form (the challenge mapped only nominative 0..10
answers through its lemmatizer). See the metric card for the full list.

Speed: stems, synonym sets and tokenizations are cached per word/string, and an item's
hypothesis is prepared once for all its references; the arithmetic is NLTK's, operation for
operation, so the numbers are identical.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .morph import morph_analyzer
from .normalize import fbc2_caption_clean, strip_ascii_punctuation_lower
from .numbers import first_number, numeric_similarity, parse_number_token, spelled_numbers_to_digits
from .signature import build_signature
from .synonyms import MappingSynonyms, NoSynonyms, get_synonym_source
from .validation import check_bool, check_choice, check_number, check_probability, paired_columns

__all__ = [
    "METEORVariant",
    "METEORResult",
    "METEORAlignment",
    "METEOR_VARIANTS",
    "TOKENIZERS",
    "compute_meteor",
    "meteor_pair",
    "explain_meteor",
    "check_meteor_inputs",
    "tokenize",
    "clear_caches",
]

_METRIC = "meteor"
TOKENIZERS = ("nltk_line", "nltk_punkt", "whitespace")


@dataclass(frozen=True)
class METEORVariant:
    """A named bundle of options over the one METEOR implementation."""

    name: str
    reference: str
    alpha: float
    beta: float
    gamma: float
    stemmer: Literal["porter", "snowball_russian"]
    #: default synonym source name (see :mod:`metricore.synonyms`)
    synonyms: str
    tokenizer: str
    preprocess: Literal["none", "fbc2_captioning", "fbc2_vqa"]
    numeric_rule: bool
    #: pymorphy whole-answer lemmatization (fbc2_vqa)
    lemmatize: bool = False


METEOR_VARIANTS: dict[str, METEORVariant] = {
    v.name: v
    for v in (
        METEORVariant(
            "nltk",
            "nltk.translate.meteor_score.meteor_score, NLTK 3.10.x (tokens: HF evaluate meteor's nltk.word_tokenize)",
            0.9, 3.0, 0.5, "porter", "wordnet", "nltk_line", "none", False,
        ),
        METEORVariant(
            "fbc2_captioning",
            "ai-forever/fbc2_aij2022 evaluation/captioning/metrics/calc_meteor.py + rumeteor.py",
            0.9, 3.0, 0.5, "snowball_russian", "auto", "nltk_line", "fbc2_captioning", False,
        ),
        METEORVariant(
            "fbc2_vqa",
            "ai-forever/fbc2_aij2022 evaluation/vqa/metric/calc_meteor.py + rumeteor.py",
            0.9, 3.0, 0.0, "porter", "auto", "nltk_line", "fbc2_vqa", True, True,
        ),
    )
}


@dataclass(frozen=True)
class METEORResult:
    """Mean METEOR, per-sample scores and which reference gave each score."""

    meteor: float
    scores: list[float]
    best_reference: list[int]
    variant: str
    alpha: float
    beta: float
    gamma: float
    signature: str = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"meteor": self.meteor, "scores": list(self.scores), "signature": self.signature}


# --------------------------------------------------------------------------------------------
# Tokenizers, stemmers (cached)
# --------------------------------------------------------------------------------------------

_LOCK = threading.Lock()
_CACHE_LIMIT = 200_000
_TOKEN_CACHE: dict[tuple[str, str], tuple[str, ...]] = {}
_STEM_CACHES: dict[str, dict[str, str]] = {}
_STEMMERS: dict[str, Any] = {}
_LEMMA_CACHE: dict[str, str] = {}

# Whole tokens the NLTK word tokenizer splits even without punctuation (MacIntyre contractions).
_SPLIT_HINT = re.compile("cannot|gimme|gonna|gotta|lemme|wanna", re.I)


def clear_caches() -> None:
    """Forget cached tokenizations, stems and lemmas (synonym caches live in the sources)."""
    with _LOCK:
        _TOKEN_CACHE.clear()
        for cache in _STEM_CACHES.values():
            cache.clear()
        _LEMMA_CACHE.clear()


class _ASCIITreebank:
    """``NLTKWordTokenizer.tokenize`` on ASCII text with the standard ``re`` engine.

    NLTK 3.10 runs every rule through its ReDoS guard (the ``regex`` engine with a timeout),
    which costs ~250 us per caption. The rules, their order and replacements are read from
    NLTK's class; on ASCII text ``re`` and ``regex`` agree on ``\\w``, ``\\s``, ``\\b`` and
    ``\\d``, so the tokens are the same (tested against NLTK). Other text goes to NLTK.
    """

    # Characters (or substrings) without which a rule cannot match, keyed by NLTK's pattern
    # text; a rule whose pattern is not listed always runs. Checked on the text as it is when
    # the rule runs, so a rule is only skipped when it is a no-op.
    _TRIGGERS: dict[str, tuple[str, ...]] = {
        "([«“‘„]|[`]+)": ("`", "«", "“", "‘", "„"),
        '^\\"': ('"',),
        "(``)": ("``",),
        "([ \\(\\[{<])(\\\"|\\'{2})": ('"', "''"),
        "(?i)(?<!\\w)(\\')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)": ("'",),
        "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$": (".",),
        "([:,])([^\\d])": (":", ","),
        "([:,])$": (":", ","),
        "\\.{2,}": ("..",),
        "[;@#$%&]": (";", "@", "#", "$", "%", "&"),
        "[\\u2012-\\u2015]": ("\u2012", "\u2013", "\u2014", "\u2015"),
        "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$": (".",),
        "[?!]": ("?", "!"),
        "([^'])' ": ("' ",),
        "[*]": ("*",),
        "[\\]\\[\\(\\)\\{\\}\\<\\>]": ("]", "[", "(", ")", "{", "}", "<", ">"),
        "--": ("--",),
        "([»”’])": ("»", "”", "’"),
        "''": ("''",),
        '"': ('"',),
        "\\s+": ("'",),  # only the apostrophe rules below look at single spaces
        "([^' ])('[sS]|'[mM]|'[dD]|') ": ("'",),
        "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": ("'",),
    }
    _CONTRACTION_TRIGGERS = ("can", "gim", "gon", "got", "lem", "wan", "'")

    def __init__(self) -> None:
        from nltk.tokenize.destructive import NLTKWordTokenizer as T

        mask = re.I | re.M | re.S | re.X | re.U

        def conv(rules: Any) -> list[tuple[Any, str, frozenset[str] | None]]:
            out = []
            for rx, sub in rules:
                need = self._TRIGGERS.get(rx.pattern)
                out.append((re.compile(rx.pattern, rx.flags & mask), sub, None if need is None else frozenset("".join(need))))
            return out

        self.steps = (
            conv(T.STARTING_QUOTES) + conv(T.PUNCTUATION) + conv([T.PARENS_BRACKETS]) + conv([T.DOUBLE_DASHES])
        )
        self.ending = conv(T.ENDING_QUOTES)
        self.contractions = [re.compile(rx.pattern, rx.flags & mask) for rx in T.CONTRACTIONS2 + T.CONTRACTIONS3]
        self.contraction_hint = re.compile("|".join(self._CONTRACTION_TRIGGERS), re.I)

    @staticmethod
    def _apply(rules: list[tuple[Any, str, frozenset[str] | None]], text: str) -> str:
        chars = set(text)
        for rx, sub, need in rules:
            # A rule runs unless a character it needs is absent (a necessary condition).
            if need is None or not chars.isdisjoint(need):
                new = rx.sub(sub, text)
                if new != text:
                    text = new
                    chars = set(text)
        return text

    def tokenize(self, text: str) -> list[str]:
        text = " " + self._apply(self.steps, text) + " "
        text = self._apply(self.ending, text)
        if self.contraction_hint.search(text):
            for rx in self.contractions:
                text = rx.sub(r" \1 \2 ", text)
        return text.split()


_ASCII_TB: list[Any] = []


def _nltk_line_tokenize(text: str) -> list[str]:
    tokens = text.split()
    # Fast path: on tokens made only of letters and digits the NLTK (Treebank) rules change
    # nothing except the contractions above, so splitting on whitespace is the same result.
    if ("".join(tokens).isalnum() or not tokens) and not _SPLIT_HINT.search(text):
        return tokens
    # Second fast path, the usual caption: such words and one final period ("A dog runs.").
    last = tokens[-1] if tokens else ""
    rest_plain = len(tokens) == 1 or "".join(tokens[:-1]).isalnum()
    if last.endswith(".") and rest_plain and not _SPLIT_HINT.search(text):
        core = last[:-1]
        if not core:
            return tokens
        if core.isalnum():
            return [*tokens[:-1], core, "."]
    if text.isascii():
        if not _ASCII_TB:
            try:
                _ASCII_TB.append(_ASCIITreebank())
            except Exception:  # pragma: no cover - e.g. possessive quantifiers before Python 3.11
                _ASCII_TB.append(None)
        if _ASCII_TB[0] is not None:
            return _ASCII_TB[0].tokenize(text)
    from nltk.tokenize import word_tokenize

    return word_tokenize(text, preserve_line=True)


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
    "nltk_line": _nltk_line_tokenize,
    "nltk_punkt": _nltk_punkt_tokenize,
    "whitespace": str.split,
}


def tokenize(text: str, tokenizer: str = "nltk_line") -> tuple[str, ...]:
    """Tokens of ``text`` (cached per string); ``nltk_line`` is
    ``nltk.word_tokenize(text, preserve_line=True)``."""
    key = (tokenizer, text)
    hit = _TOKEN_CACHE.get(key)
    if hit is None:
        hit = tuple(_TOKENIZE[tokenizer](text))
        if len(_TOKEN_CACHE) >= _CACHE_LIMIT:
            _TOKEN_CACHE.clear()
        _TOKEN_CACHE[key] = hit
    return hit


def _stemmer(name: str) -> tuple[Any, dict[str, str]]:
    with _LOCK:
        if name not in _STEMMERS:
            if name == "porter":
                from nltk.stem.porter import PorterStemmer

                _STEMMERS[name] = PorterStemmer()
            else:
                from nltk.stem.snowball import SnowballStemmer

                _STEMMERS[name] = SnowballStemmer("russian")
            _STEM_CACHES[name] = {}
        return _STEMMERS[name], _STEM_CACHES[name]


def _lemmatize_whole(text: str) -> str:
    """pymorphy's normal form of the whole answer, parsed as one word (the challenge's
    ``morph.parse(answer)[0].normal_form``; on several words it re-inflects the last one)."""
    hit = _LEMMA_CACHE.get(text)
    if hit is not None:
        return hit
    morph = morph_analyzer("meteor (fbc2_vqa): answer lemmatization", ", or pass lemmatize=False")
    out = morph.parse(text)[0].normal_form if text.strip() else text
    if len(_LEMMA_CACHE) >= _CACHE_LIMIT:
        _LEMMA_CACHE.clear()
    _LEMMA_CACHE[text] = out
    return out


def _razdel_join(text: str) -> str:
    try:
        import razdel
    except ImportError:
        raise ImportError("meteor (fbc2_captioning): needs razdel (`pip install razdel`)") from None
    return " ".join(t.text for t in razdel.tokenize(text))


# --------------------------------------------------------------------------------------------
# Alignment and score (NLTK 3.10 meteor_score, operation for operation)
# --------------------------------------------------------------------------------------------


def _index(items: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for k, w in enumerate(items):
        lst = out.get(w)
        if lst is None:
            out[w] = [k]
        else:
            lst.append(k)
    return out


class _Prepared:
    """One tokenized sentence: lowercased words and stems; for a hypothesis also where each
    word and stem occurs and the union of its stems' synonyms (built on first use)."""

    __slots__ = ("words", "stems", "_word_index", "_stem_index", "syn_union")

    def __init__(self, words: list[str], stems: list[str]) -> None:
        self.words = words
        self.stems = stems
        self._word_index: dict[str, list[int]] | None = None
        self._stem_index: dict[str, list[int]] | None = None
        self.syn_union: frozenset[str] | None = None

    @property
    def word_index(self) -> dict[str, list[int]]:
        if self._word_index is None:
            self._word_index = _index(self.words)
        return self._word_index

    @property
    def stem_index(self) -> dict[str, list[int]]:
        if self._stem_index is None:
            self._stem_index = _index(self.stems)
        return self._stem_index


def _hyp_syn_union(h: _Prepared, syn_get: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """Every word the synonym stage could match for some hypothesis stem (computed once per
    hypothesis; a reference whose leftover stems miss it skips the stage)."""
    if h.syn_union is None:
        union: set[str] = set(h.stems)
        for stem in h.stem_index:
            union.update(syn_get(stem))
        h.syn_union = frozenset(union)
    return h.syn_union


def _align_fast(
    h: _Prepared, r: _Prepared, syn_get: Callable[[str], frozenset[str]], href_out: list[int] | None = None
) -> tuple[int, int]:
    """Matches and chunks of one prepared (hypothesis, reference) pair, as NLTK's three
    stages and ``_count_chunks`` give them (a property test checks it against a literal
    walk of NLTK's stages, ``tests/oracles/meteor_walk.py``). ``href_out``, when given,
    receives the reference position matched by each hypothesis word (-1: unmatched).

    In the exact and stem stages a word only competes with equal words, and walking the
    hypothesis from its end while taking the highest free reference position pairs the
    last occurrences with the last occurrences: ``H[-1]-R[-1], H[-2]-R[-2], ...``. So those
    stages walk the reference from its end against the hypothesis' occurrence lists (built
    once per hypothesis). The synonym stage, where words compete across entries, runs as in
    NLTK, and is skipped when no leftover reference stem is a synonym of any hypothesis stem.
    """
    nh = len(h.words)
    rw = r.words
    nr = len(rw)
    href = [-1] * nh
    rfree = [True] * nr
    m = 0
    hidx = h.word_index
    taken: dict[str, int] = {}
    j = nr
    for w in reversed(rw):
        j -= 1
        hl = hidx.get(w)
        if hl is not None:
            if len(hl) == 1:  # the usual case: the word occurs once in the hypothesis
                i = hl[0]
                if href[i] < 0:
                    href[i] = j
                    rfree[j] = False
                    m += 1
                continue
            c = taken.get(w, 0)
            if c < len(hl):
                href[hl[-1 - c]] = j
                taken[w] = c + 1
                rfree[j] = False
                m += 1
    if m < nh and m < nr:
        rs = r.stems
        hsi = h.stem_index
        free_h: dict[str, list[int]] = {}
        for j in range(nr - 1, -1, -1):
            if rfree[j]:
                stem = rs[j]
                hl = hsi.get(stem)
                if hl is not None:
                    cand = free_h.get(stem)
                    if cand is None:
                        cand = [i for i in hl if href[i] < 0]
                        free_h[stem] = cand
                    if cand:
                        href[cand.pop()] = j
                        rfree[j] = False
                        m += 1
        if m < nh and m < nr:
            union = _hyp_syn_union(h, syn_get)
            positions: dict[str, list[int]] = {}
            for j in range(nr):
                if rfree[j]:
                    stem = rs[j]
                    if stem in union:
                        lst = positions.get(stem)
                        if lst is None:
                            positions[stem] = [j]
                        else:
                            lst.append(j)
            if positions:
                hs = h.stems
                for i in range(nh - 1, -1, -1):
                    if href[i] < 0:
                        stem = hs[i]
                        best_j = -1
                        best_key = None
                        lst = positions.get(stem)
                        if lst:
                            best_j = lst[-1]
                            best_key = stem
                        syns = syn_get(stem)
                        if len(syns) <= len(positions):
                            for syn in syns:
                                lst = positions.get(syn)
                                if lst and lst[-1] > best_j:
                                    best_j = lst[-1]
                                    best_key = syn
                        else:
                            for key, lst in positions.items():
                                if lst and lst[-1] > best_j and key in syns:
                                    best_j = lst[-1]
                                    best_key = key
                        if best_key is not None:
                            positions[best_key].pop()
                            href[i] = best_j
                            m += 1
    if href_out is not None:
        href_out.extend(href)
    if m == 0:
        return 0, 0
    chunks = 0
    prev = -2  # the reference position matched by the previous hypothesis word, if any
    for j in href:
        if j >= 0 and j != prev + 1:
            chunks += 1
        prev = j if j >= 0 else -2
    return m, chunks


def _score(m: int, chunks: int, nh: int, nr: int, alpha: float, beta: float, gamma: float) -> float:
    # NLTK: P, R, Fmean, frag inside `try: ... except ZeroDivisionError: return 0.0`
    if m == 0 or nh == 0 or nr == 0:
        return 0.0
    precision = float(m) / nh
    recall = float(m) / nr
    denominator = alpha * precision + (1 - alpha) * recall
    if denominator == 0:
        return 0.0
    fmean = (precision * recall) / denominator
    frag_frac = float(chunks) / m
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _typename(v: Any) -> str:
    return type(v).__name__


def _tokens(value: Any, where: str) -> list[str]:
    toks = list(value)
    try:
        "".join(toks)  # C-speed check that every token is a str
        return toks
    except TypeError:
        pass
    for k, t in enumerate(toks):
        if not isinstance(t, str):
            raise TypeError(f"{_METRIC}: `{where}[{k}]` must be a str token, got {_typename(t)} ({t!r:.60})")
    return toks


def _is_token_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def check_meteor_inputs(
    predictions: Any, references: Any, *, start: int = 0, allow_tokens: bool = True
) -> tuple[list[str | list[str]], list[list[str] | list[list[str]]]]:
    """Check and canonicalise METEOR inputs (new lists; the caller's are never modified).

    A prediction is a ``str`` or, pre-tokenized, a list of ``str`` tokens. Its reference entry
    is then, respectively, a ``str`` or a list of ``str`` alternatives; or a list of
    token lists (one per reference). ``start`` offsets the reported indices.
    """
    preds, refs = paired_columns(predictions, references, _METRIC)
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
            alts = list(r)
            if not alts:
                raise ValueError(f"{_METRIC}: `references[{i}]` has no references (empty list)")
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
            toks = _tokens(p, f"predictions[{i}]")
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
                ref_toks.append(_tokens(a, f"references[{i}][{j}]"))
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

    def __init__(self, prepare: Callable[[str], str] | None, tokenizer: str, stem_cache: dict[str, str], stemmer: Any):
        self.prepare = prepare
        self.tokenizer = tokenizer
        self.stem_cache = stem_cache
        self.stem = stemmer.stem

    def _make(self, words: list[str]) -> _Prepared:
        cache = self.stem_cache
        stems = list(map(cache.get, words))
        if None in stems:
            stem = self.stem
            for k, s in enumerate(stems):
                if s is None:
                    w = words[k]
                    s = stem(w)
                    cache[w] = s
                    stems[k] = s
        return _Prepared(words, stems)

    def text(self, text: str) -> _Prepared:
        prepared = self.prepare(text) if self.prepare is not None else text
        return self._make(list(map(str.lower, tokenize(prepared, self.tokenizer))))

    def tokens(self, tokens: list[str]) -> _Prepared:
        return self._make(list(map(str.lower, tokens)))


def _caption_prepare(hypothesis: bool) -> Callable[[str], str]:
    def prepare(text: str) -> str:
        text = fbc2_caption_clean(text)
        if hypothesis:
            text = text.replace("@@UNKNOWN@@", "<unk>")
        text = _razdel_join(text).lower()
        if hypothesis:
            text = spelled_numbers_to_digits(text, ("en",))
        return text

    return prepare


def _vqa_prepare(lemmatize: bool) -> Callable[[str], str]:
    def prepare(text: str) -> str:
        text = strip_ascii_punctuation_lower(text)
        if lemmatize:
            text = _lemmatize_whole(text)
        return spelled_numbers_to_digits(text, ("en", "ru"))

    return prepare


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _pipeline(
    spec: METEORVariant, source: Any, tok: str, lem: bool
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

    if spec.preprocess == "fbc2_captioning":
        hyp_side = _Side(_caption_prepare(True), tok, stem_cache, stemmer)
        ref_side = _Side(_caption_prepare(False), tok, stem_cache, stemmer)
    elif spec.preprocess == "fbc2_vqa":
        hyp_side = ref_side = _Side(_vqa_prepare(lem), tok, stem_cache, stemmer)
    else:
        hyp_side = ref_side = _Side(None, tok, stem_cache, stemmer)
    return hyp_side, ref_side, syn_get


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
            :class:`~metricore.synonyms.SynonymSource`. Default: the variant's
            (``nltk``: WordNet; challenge variants: ``"auto"``).
        tokenizer: ``"nltk_line"`` (default), ``"nltk_punkt"`` or ``"whitespace"``.
        lemmatize: ``fbc2_vqa`` only: pymorphy whole-answer lemmatization (default True).

    >>> r = compute_meteor(["the cat was sat on the mat"], [["the cat sat on the mat", "a cat"]],
    ...                    synonyms="none")
    >>> round(r.meteor, 4), r.best_reference
    (0.9654, [0])
    >>> compute_meteor(["cat"], ["cat"], synonyms="none").scores
    [0.5]
    """
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
    syn_spec = spec.synonyms if synonyms is None else synonyms
    source = get_synonym_source(syn_spec)

    preds, refs = check_meteor_inputs(predictions, references, allow_tokens=spec.preprocess == "none")
    if not preds:
        raise ValueError(f"{_METRIC}: `predictions` is empty; the mean over zero samples is undefined")

    hyp_side, ref_side, syn_get = _pipeline(spec, source, tok, lem)

    numeric = spec.numeric_rule
    scores: list[float] = []
    best_ref: list[int] = []
    for p, alts in zip(preds, refs):
        if isinstance(p, str):
            hyp = hyp_side.text(p)
            ref_ps = [ref_side.text(r) for r in alts]
        else:
            hyp = hyp_side.tokens(p)
            ref_ps = [ref_side.tokens(r) for r in alts]
        nh = len(hyp.words)
        best = 0.0
        best_k = 0
        hyp_number: list[float | None] = []
        for k, ref in enumerate(ref_ps):
            rw = ref.words
            if numeric and len(rw) == 1 and parse_number_token(rw[0]) is not None:
                if not hyp_number:
                    hyp_number.append(first_number(hyp.words))
                found = hyp_number[0]
                s = 0.0 if found is None else numeric_similarity(found, parse_number_token(rw[0]))  # type: ignore[arg-type]
            elif nh == 0 or not rw:
                s = 0.0
            else:
                m, chunks = _align_fast(hyp, ref, syn_get)
                s = _score(m, chunks, nh, len(rw), a, b, g)
            if s > best:
                best = s
                best_k = k
        hyp.syn_union = None  # large; only needed for this item's references
        scores.append(best)
        best_ref.append(best_k)

    options = {"alpha": a, "beta": b, "gamma": g, "tokenizer": tok}
    defaults: dict[str, Any] = {"alpha": spec.alpha, "beta": spec.beta, "gamma": spec.gamma, "tokenizer": spec.tokenizer}
    if isinstance(syn_spec, str):
        options["synonyms"] = syn_spec
        defaults["synonyms"] = spec.synonyms
    if spec.preprocess == "fbc2_vqa":
        options["lemmatize"] = lem
        defaults["lemmatize"] = spec.lemmatize
    backends = {"nltk": _version("nltk")}
    if not isinstance(source, NoSynonyms):
        backends[source.name] = source.version()
    if spec.preprocess == "fbc2_captioning":
        backends["razdel"] = _version("razdel")
    if spec.preprocess == "fbc2_vqa" and lem:
        backends["pymorphy3"] = _version("pymorphy3")
    return METEORResult(
        meteor=float(np.mean(scores)),
        scores=scores,
        best_reference=best_ref,
        variant=spec.name,
        alpha=a,
        beta=b,
        gamma=g,
        signature=build_signature(_METRIC, spec.name, options, defaults, backends),
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
    ``(first number of the prediction or None, gold number)``.
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
    options = {"variant": variant, "alpha": alpha, "beta": beta, "gamma": gamma, "synonyms": synonyms,
               "tokenizer": tokenizer, "lemmatize": lemmatize}
    result = compute_meteor([prediction], [references], **options)  # every check happens here
    spec = METEOR_VARIANTS[variant]
    source = get_synonym_source(spec.synonyms if synonyms is None else synonyms)
    tok = spec.tokenizer if tokenizer is None else tokenizer
    lem = spec.lemmatize if lemmatize is None else lemmatize
    hyp_side, ref_side, syn_get = _pipeline(spec, source, tok, lem)
    best = result.best_reference[0]
    gold = ([references] if isinstance(references, str) else list(references))[best]
    if isinstance(prediction, str):
        hyp, ref = hyp_side.text(prediction), ref_side.text(gold)
    else:
        hyp, ref = hyp_side.tokens(list(prediction)), ref_side.tokens(list(gold))
    words = (tuple(hyp.words), tuple(ref.words))
    gold_number = parse_number_token(ref.words[0]) if spec.numeric_rule and len(ref.words) == 1 else None
    if gold_number is not None:
        return METEORAlignment(result.scores[0], best, *words, (), 0, (first_number(hyp.words), gold_number))
    href: list[int] = []
    _, chunks = _align_fast(hyp, ref, syn_get, href) if hyp.words and ref.words else (0, 0)
    matches = tuple(
        (i, j, "exact" if hyp.words[i] == ref.words[j] else "stem" if hyp.stems[i] == ref.stems[j] else "synonym")
        for i, j in enumerate(href)
        if j >= 0
    )
    return METEORAlignment(result.scores[0], best, *words, matches, chunks)
