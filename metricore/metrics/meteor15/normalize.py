"""The jar's ``-norm`` text normalizer for English (``edu.cmu.meteor.util.Normalizer``).

METEOR 1.5's normalizer is the Moses tokenizer (rev. 3612) with quote and dash
normalization and dots dropped in ``U.S.``-like words; pycocoevalcap runs the jar with
``-norm`` (normalize, keep punctuation, then lower-case). Java regex classes are spelled
out: ``\\s`` is ASCII whitespace, ``\\p{Digit}`` is ``0-9`` and ``\\p{Lower}`` is ``a-z``.
"""

from __future__ import annotations

import re

from metricore.metrics.meteor15.data import load_data

__all__ = ["JAVA_TRIM", "java_lower", "java_tokens", "normalize"]

_ALPHA = "A-Za-z\u0160\u017d\u0161\u017e\u0178\xc0-\xd6\xd8-\xf6\xf8-\u017e\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
_ALNUM = "0-9" + _ALPHA
_JS = " \t\n\x0b\f\r"  # Java's \s

_SEP_OTHER = re.compile(f"([^{_ALNUM}{_JS}.'`,\\-\u2018\u2019])")
_MULTI_DOT = re.compile(r"\.([.]+)")
_MULTI_DOT2 = re.compile(r"DOTMULTI\.([^.])")
_COMMA = re.compile(r"([^0-9])[,]([^0-9])")
_COMMA2 = re.compile(r"([0-9])[,]([^0-9])")
_COMMA3 = re.compile(r"([^0-9])[,]([0-9])")
_QUOTE = re.compile("([`\u2018\u2019])")
_QUOTE2 = re.compile("([\u201c\u201d]|'')")
_RM_DASH = re.compile(f"([{_ALNUM}.])[-]([{_ALNUM}])")
_CONT1 = re.compile(f"([^{_ALPHA}])[']([^{_ALPHA}])")
_CONT2 = re.compile(f"([^{_ALPHA}0-9])[']([{_ALPHA}])")
_CONT3 = re.compile(f"([{_ALPHA}])[']([^{_ALPHA}])")
_CONT4 = re.compile(f"([{_ALPHA}])[']([{_ALPHA}])")
_CONT5 = re.compile(r"([0-9])[']([s])")
_NBP_ALPHA = re.compile(f"[{_ALPHA}]")
_WHITE = re.compile(
    "[ \u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\xa0]+"
)
_TOKEN_SPLIT = re.compile("[ \t\n\r\f]+")


# what str.split() also splits on, among ASCII characters, but StringTokenizer does not
_ASCII_SPACE_ONLY_PY = ("\x0b", "\x1c", "\x1d", "\x1e", "\x1f")


def java_tokens(line: str) -> list[str]:
    """``java.util.StringTokenizer`` with its default delimiters."""
    if line.isascii() and not any(c in line for c in _ASCII_SPACE_ONLY_PY):
        return line.split()  # the same delimiters then, and quicker than the pattern
    return [t for t in _TOKEN_SPLIT.split(line) if t]


def java_lower(text: str) -> str:
    """``String.toLowerCase()``: Python's lower() except where Java maps differently."""
    # U+0130 is the one BMP letter both map, but to different strings in some versions
    return text.lower()


def normalize(line: str) -> str:
    """``Normalizer.normalizeLine(line, LANG_EN, keepPunctuation=true)``."""
    s = " " + line + " "
    s = _SEP_OTHER.sub(r" \1 ", s)
    # each rule below needs a character that most captions lack: skipping a rule whose
    # character is absent changes nothing (a pattern cannot match without it)
    if ".." in s:
        s = _MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:  # also the placeholder's own text in the input
        s = _MULTI_DOT2.sub(r"DOTDOTMULTI \1", s)
        s = s.replace("DOTMULTI.", "DOTDOTMULTI")
    if "," in s:
        s = _COMMA.sub(r"\1 , \2", s)
        s = _COMMA2.sub(r"\1 , \2", s)
        s = _COMMA3.sub(r"\1 , \2", s)
    if "`" in s or "\u2018" in s or "\u2019" in s:
        s = _QUOTE.sub("'", s)
    if "''" in s or "\u201c" in s or "\u201d" in s:
        s = _QUOTE2.sub(' " ', s)
    if "-" in s or "\u2013" in s:
        s = s.replace("\u2013", "-").replace("--", "-")
        s = _RM_DASH.sub(r"\1 \2", s)
    if "'" in s:
        s = _CONT1.sub(r"\1 ' \2", s)
        s = _CONT2.sub(r"\1 ' \2", s)
        s = _CONT3.sub(r"\1 ' \2", s)
        s = _CONT4.sub(r"\1 '\2", s)
        s = _CONT5.sub(r"\1 '\2", s)
    words = java_tokens(s)
    if "." not in s:  # no word ends with a dot: the loop below would only join the words
        return _finish(" ".join(words) + " ")
    nbp = load_data().nonbreaking
    out = []
    for i, w in enumerate(words):
        if len(w) > 1 and w.endswith("."):
            pre = w[:-1]
            kind = nbp.get(pre)
            nxt = words[i + 1] if i < len(words) - 1 else ""
            if "." in pre and _NBP_ALPHA.search(pre):
                out.append(w.replace(".", ""))
            elif kind is False or (nxt[:1] >= "a" and nxt[:1] <= "z" and nxt != ""):
                out.append(w)
            elif kind is True and nxt[:1].isascii() and nxt[:1].isdigit():
                out.append(w)
            else:
                out.append(pre + " .")
        else:
            out.append(w)
        out.append(" ")
    return _finish("".join(out))


def _finish(s: str) -> str:
    """The placeholders back to dots, whitespace runs to one space, Java's ``trim``."""
    while "DOTDOTMULTI" in s:
        s = s.replace("DOTDOTMULTI", "DOTMULTI.")
    s = s.replace("DOTMULTI", ".")
    if s.isascii() and "  " not in s:  # the pattern's one ASCII member is the space
        return s.strip(JAVA_TRIM)
    return _WHITE.sub(" ", s).strip(JAVA_TRIM)


# String.trim() strips every char <= U+0020
JAVA_TRIM = "".join(chr(c) for c in range(0x21))
