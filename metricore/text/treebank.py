"""NLTK's word tokenizer, ``nltk.word_tokenize(text, preserve_line=True)`` (NLTK 3.10's
``NLTKWordTokenizer``, the improved Treebank rules), exact and fast.

NLTK runs ~25 regular-expression rules over the whole string, each through its ReDoS guard
(the ``regex`` engine with a timeout): ~110 us per caption. Here the same tokens come from
three layers, every one of them exact (tested against NLTK on generated and real strings,
``tests/text/test_meteor_tokenizer.py``):

1. **Whole-text rules with ``re``** (:class:`_ASCIIRules`): NLTK's own patterns and
   replacements, compiled with the standard engine, for ASCII text. On ASCII the two engines
   agree on ``\\w``, ``\\d``, ``\\b`` and on ``\\s`` except for the separators ``\\x1c``-``\\x1f``
   (whitespace for ``re`` and ``str.split``, not for ``regex``), so text with those, and
   non-ASCII text, goes to NLTK itself.

2. **Per-piece decomposition** (:func:`word_tokenize_line`). On a text whose pieces
   (``text.split()``) are separated by single spaces, with no leading or trailing whitespace,
   the tokens are the concatenation of each piece's tokens computed in a canonical context:
   the piece alone between sentinel words (``"x " + piece + " x"``; the first piece without
   the left sentinel, the last without the right one; the sentinels' tokens dropped). Why, by
   NLTK's rule list (``nltk/tokenize/destructive.py``):

   * Before the ``\\s+ -> " "`` rule no rule deletes or rewrites whitespace except the final
     period rule's trailing ``\\s*$``; every match lies inside one piece plus at most the one
     separator character on each side, which the replacement writes back unchanged. The
     only things a rule sees outside a piece are that separator (always a space here) or
     the text's start/end (``^"``, ``([:,])$``, the final-period rules): the context.
   * No two matches of one rule compete for a separator except ``([^'])' ``, whose match can
     start with the space before a piece and end with the space after one: texts with
     ``"' '"`` (a piece ending in ``'`` next to a piece starting with ``'``) take layer 1.
   * The final-period rules (``([^\\.])(\\.)([\\]\\)}>"\\'»”’ ]*+)\\s*$`` and the one without the
     space) can reach back over pieces made only of closing brackets and quotes: texts whose
     last piece has no other character take layer 1. Otherwise their match lies in the last
     piece (earlier rules only insert spaces and turn quotes into backquotes, never create
     closing characters).
   * From ``\\s+ -> " "`` on, the text is ``" " + A1 + " " + A2 + ... + " "`` and every later
     rule (``'s``/``n't``-type splits, MacIntyre contractions) matches within one ``Ai`` and
     the single spaces around it, so the pieces stay independent.
   * Other whitespace (:func:`_irregular`): rules tell a space from other whitespace
     (``([ \\(\\[{<])"``, ``' ``) but never one other whitespace character from another, and
     look no further than the character next to a piece, except the anchors: so a separator
     is given to the canonical string as its character next to the piece (a space, or a tab
     for any other), leading whitespace is a separator like any other (``^`` no longer
     matches), and trailing whitespace is kept as it is (the final-period rule's ``\\s*$``
     and ``$`` before a final newline read it).

   Piece results are cached (captions reuse a few thousand pieces).

3. **Shapes**: on an ASCII piece without the MacIntyre contraction words, a run of word
   characters ``[A-Za-z0-9_]`` matters to the rules only as a run of ``\\w`` (word
   boundaries, look-arounds), by whether it starts with a digit (``([:,])([^\\d])``) and, next
   to an apostrophe, by a few letters (:func:`_shape`). So the piece is tokenized as its
   *shape* (other runs replaced by ``_``, or ``0`` when they start with a digit:
   ``"dog,"`` -> ``"_,"``, ``"dog's"`` -> ``"_'s"``, ``"don't"`` -> ``"_n't"``) and the runs
   are put back in order: one computation per shape.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from itertools import chain
from typing import Any, cast

from metricore.core.bounded import BoundedCache

__all__ = ["word_tokenize_line", "clear_cache"]

# MacIntyre contractions NLTK splits inside plain words ("cannot" -> "can not"). `re` with
# IGNORECASE also matches the few non-ASCII letters that fold to these (İ, ı), a superset of
# what NLTK's `regex` pattern matches, so texts it clears cannot hold a contraction.
_SPLIT_HINT = re.compile("cannot|gimme|gonna|gotta|lemme|wanna", re.I)


def _may_contract(text: str) -> bool:
    """Whether ``text`` holds one of the MacIntyre contraction words, ignoring case (on
    non-ASCII text, possibly: the pattern also accepts ı and İ for i)."""
    if not text.isascii():
        return _SPLIT_HINT.search(text) is not None
    low = text.lower()
    return (
        "cannot" in low
        or "gimme" in low
        or "gonna" in low
        or "gotta" in low
        or "lemme" in low
        or "wanna" in low
    )


# str.split() and `re` treat these as whitespace, NLTK's `regex` \s does not.
_C0_SEPARATORS = re.compile("[\x1c-\x1f]")
# What the final-period rule may skip after the period (besides spaces).
_CLOSERS = "]})>\"'»”’"
_RUN = re.compile("[A-Za-z0-9_]+")
_DIGIT = re.compile("[0-9]")
_LETTER_RUN = re.compile("(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
_DIGIT_RUN = re.compile("[0-9][A-Za-z0-9_]*")
# Word-character runs whose letters the apostrophe rules test (lowercased): right after an
# apostrophe (the look-ahead of (?<!\w)', 's/'m/'d, 'll/'re/'ve, n't, d'ye, more'n, 'tis,
# 'twas), and right before one (d'ye, more'n, a lone n of n't).
_AFTER_APOSTROPHE = frozenset({"re", "ve", "ll", "m", "t", "s", "d", "n", "ye", "tis", "twas"})
_BEFORE_APOSTROPHE = frozenset({"d", "more", "n"})
_PLACEHOLDER = re.compile("[_0]")

_LOCK = threading.Lock()
_CACHE_LIMIT = 200_000


class _ASCIIRules:
    """``NLTKWordTokenizer.tokenize`` on ASCII text with the standard ``re`` engine.

    The rules, their order and replacements are read from NLTK's class. Rules are skipped
    when a character they need is absent (a necessary condition, so only no-ops are skipped).
    """

    # Characters (or substrings) without which a rule cannot match, keyed by NLTK's pattern
    # text; a rule whose pattern is not listed always runs. Checked on the text as it is when
    # the rule runs.
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
                out.append(
                    (
                        re.compile(rx.pattern, rx.flags & mask),
                        sub,
                        None if need is None else frozenset("".join(need)),
                    )
                )
            return out

        self.steps = (
            conv(T.STARTING_QUOTES)
            + conv(T.PUNCTUATION)
            + conv([T.PARENS_BRACKETS])
            + conv([T.DOUBLE_DASHES])
        )
        self.ending = conv(T.ENDING_QUOTES)
        self.contractions = [
            re.compile(rx.pattern, rx.flags & mask) for rx in T.CONTRACTIONS2 + T.CONTRACTIONS3
        ]
        self.contraction_hint = re.compile("|".join(self._CONTRACTION_TRIGGERS), re.I)

    @staticmethod
    def _apply(rules: list[tuple[Any, str, frozenset[str] | None]], text: str) -> str:
        chars = set(text)
        for rx, sub, need in rules:
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


_RULES: list[Any] = []


def _nltk(text: str) -> list[str]:
    from nltk.tokenize import word_tokenize

    return word_tokenize(text, preserve_line=True)


def _whole(text: str) -> list[str]:
    """Layer 1: the rules over the whole text (``re`` on ASCII, else NLTK itself)."""
    if text.isascii() and not _C0_SEPARATORS.search(text):
        if not _RULES:
            try:
                _RULES.append(_ASCIIRules())
            except Exception:  # pragma: no cover - e.g. possessive quantifiers before Python 3.11
                _RULES.append(None)
        if _RULES[0] is not None:
            return _RULES[0].tokenize(text)
    return _nltk(text)


# A piece's context is the canonical text around it: (before, after). Before: "" at the
# text's start, else a sentinel word and the separator character next to the piece (" " or,
# for any other whitespace, "\t"); after: the separator character and a sentinel, or for the
# last piece the text's trailing whitespace itself.
_Context = tuple[str, str]
_FIRST: _Context = ("", " x")
_MID: _Context = ("x ", " x")
_LAST: _Context = ("x ", "")
_ONLY: _Context = ("", "")
_SEPARATED = re.compile(r"(\s+)")

# bounded for long-running processes (metricore.core.bounded): entries, characters of keys
_CACHE_CHARS = 4_000_000
_PIECES: dict[_Context, dict[str, tuple[str, ...]]] = {}
_MID_PIECES: dict[str, tuple[str, ...]] = _PIECES.setdefault(_MID, BoundedCache(_CACHE_LIMIT, _CACHE_CHARS))
_FIRST_PIECES: dict[str, tuple[str, ...]] = _PIECES.setdefault(
    _FIRST, BoundedCache(_CACHE_LIMIT, _CACHE_CHARS)
)
_LAST_PIECES: dict[str, tuple[str, ...]] = _PIECES.setdefault(_LAST, BoundedCache(_CACHE_LIMIT, _CACHE_CHARS))
_SHAPES: dict[tuple[str, _Context], str | None] = BoundedCache(_CACHE_LIMIT, _CACHE_CHARS)


def _in_context(core: str, ctx: _Context, tokenize: Callable[[str], list[str]]) -> list[str] | None:
    before, after = ctx
    toks = tokenize(before + core + after)
    lo = 1 if before else 0
    hi = len(toks) - 1 if after.strip() else len(toks)
    if (lo and toks[:1] != ["x"]) or (hi < len(toks) and toks[-1:] != ["x"]) or hi <= lo:  # pragma: no cover
        return None  # defensive: a sentinel did not come out as its own token
    return toks[lo:hi]


def _shape_template(shape: str, ctx: _Context) -> str | None:
    """The shape's tokens as a format string: tokens joined by spaces, ``{}`` for each
    placeholder (braces of the punctuation doubled); ``.format(*segments).split(" ")``
    gives the piece's tokens."""
    key = (shape, ctx)
    hit = _SHAPES.get(key, _SHAPES)  # (the dict itself: "not cached"; None is a value)
    if hit is not _SHAPES:
        return hit  # type: ignore[return-value]
    toks = _in_context(shape, ctx, _whole)
    out = None
    if toks is not None:
        out = " ".join(
            "{}".join(part.replace("{", "{{").replace("}", "}}") for part in _PLACEHOLDER.split(t))
            for t in toks
        )
    _SHAPES[key] = out
    return out


def _mark(segment: str) -> str:
    return "0" if segment[0] <= "9" else "_"


def _shape(piece: str) -> tuple[str, list[str]] | None:
    """The piece's shape and the segments its placeholders stand for, in order (``None``:
    no shape, the piece is tokenized as it is).

    A run of word characters becomes ``_`` (``0`` if it starts with a digit) unless, next to
    an apostrophe, its letters count: after one, the endings the apostrophe rules test
    (``'s``, ``'ll``, ``'t``, ``'tis`` ...) stay; before one, ``d``/``more``/``n`` stay
    (``d'ye``, ``more'n``, ``n't``) and a final n/N stays after its placeholder
    (``don't`` -> ``_n't``: the n't rule cuts the run there). Kept letters are never ``_`` or
    ``0``. A run between two apostrophes gets no shape: once the n't rule cuts it, what is
    left follows the first apostrophe, where d'ye-type rules read it.
    """
    if "'" not in piece:
        segments = _RUN.findall(piece)
        if not _DIGIT.search(piece):
            return _RUN.sub("_", piece), segments
        return _DIGIT_RUN.sub("0", _LETTER_RUN.sub("_", piece)), segments
    out: list[str] = []
    segments = []
    pos = 0
    for m in _RUN.finditer(piece):
        a, b = m.span()
        run = m.group()
        out.append(piece[pos:a])
        pos = b
        low = run.lower()
        before = b < len(piece) and piece[b] == "'"
        after = a > 0 and piece[a - 1] == "'"
        if before and after:
            return None
        if (after and low in _AFTER_APOSTROPHE) or (before and low in _BEFORE_APOSTROPHE):
            out.append(run)
        elif before and len(run) > 1 and run[-1] in "nN":
            segments.append(run[:-1])
            out.append(_mark(run) + run[-1])
        else:
            segments.append(run)
            out.append(_mark(run))
    out.append(piece[pos:])
    return "".join(out), segments


def _piece(piece: str, ctx: _Context) -> tuple[str, ...]:
    """Tokens of one piece in context ``ctx`` (uncached)."""
    contract = _may_contract(piece)
    if (piece.isalpha() or (piece.isascii() and piece.isalnum())) and not contract:
        # Letters and digits only (and, if not ASCII, letters only: every such character is
        # \w for NLTK's engine, so no word boundary inside): no rule applies.
        return (piece,)
    shaped = _shape(piece) if piece.isascii() and not contract else None
    if shaped is not None:
        template = _shape_template(shaped[0], ctx)
        if template is not None:
            return tuple(template.format(*shaped[1]).split(" "))
    toks = _in_context(piece, ctx, _whole if piece.isascii() else _nltk)
    if toks is None:  # pragma: no cover - defensive
        raise RuntimeError(f"treebank: cannot tokenize piece {piece!r}")
    return tuple(toks)


def _cached(piece: str, ctx: _Context) -> tuple[str, ...]:
    cache = _PIECES.get(ctx)
    if cache is None:
        cache = _PIECES.setdefault(ctx, BoundedCache(_CACHE_LIMIT, _CACHE_CHARS))
    hit = cache.get(piece)
    if hit is None:
        hit = _piece(piece, ctx)
        cache[piece] = hit
    return hit


def _irregular(text: str) -> list[str]:
    """Pieces separated by other whitespace than single spaces (or with leading/trailing
    whitespace): the same decomposition with the separator characters as contexts."""
    parts = _SEPARATED.split(text)
    lead = parts[1] if parts[0] == "" else ""
    trail = parts[-2] if parts[-1] == "" else ""
    if lead:
        parts = parts[2:]
    if trail:
        parts = parts[:-2]
    pieces = parts[0::2]
    seps = parts[1::2]
    out: list[str] = []
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        left = lead if k == 0 else seps[k - 1]
        before = "" if not left else ("x " if left[-1] == " " else "x\t")
        after = trail if k == last else (" x" if seps[k][0] == " " else "\tx")
        out.extend(_cached(piece, (before, after)))
    return out


def word_tokenize_line(text: str) -> list[str]:
    """``nltk.word_tokenize(text, preserve_line=True)``, exactly (see the module docstring).

    >>> word_tokenize_line("A dog's bone, \\"fresh\\" (really).")
    ['A', 'dog', "'s", 'bone', ',', '``', 'fresh', "''", '(', 'really', ')', '.']
    """
    pieces = text.split()
    if not pieces:
        return pieces
    joined = "".join(pieces)
    # Every contraction word has a doubled n, m or t (cheap to rule out); joining the pieces
    # can only add false alarms.
    low = joined.lower()
    contract = ("nn" in low or "mm" in low or "tt" in low) and _may_contract(joined)
    # Plain words (no punctuation): the rules change nothing but the contractions.
    if not contract and joined.isalnum():
        return pieces
    if "' '" in text or not pieces[-1].strip(_CLOSERS):
        return _whole(text)
    if " ".join(pieces) != text:  # other separators; among them \x1c-\x1f, see _whole
        return _whole(text) if _C0_SEPARATORS.search(text) else _irregular(text)
    if len(pieces) == 1:
        return list(_cached(text, _ONLY))
    head = _FIRST_PIECES.get(pieces[0]) or _cached(pieces[0], _FIRST)
    tail = _LAST_PIECES.get(pieces[-1]) or _cached(pieces[-1], _LAST)
    inner = pieces[1:-1]
    if not contract and joined[len(pieces[0]) : len(joined) - len(pieces[-1])].isalnum():
        return [*head, *inner, *tail]
    got = list(map(_MID_PIECES.get, inner))
    if None in got:
        got = [_cached(p, _MID) for p in inner]
    # no None left: every middle piece was cached, or all were tokenized again
    return [*head, *chain.from_iterable(cast("list[tuple[str, ...]]", got)), *tail]


def clear_cache() -> None:
    """Forget cached piece and shape tokenizations."""
    with _LOCK:
        for cache in _PIECES.values():
            cache.clear()
        _SHAPES.clear()
