"""PTB tokenization of captions, as the COCO caption evaluation pipeline does it, in pure Python.

``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer`` writes every caption of a call, one per
line (a caption's ``"\\n"`` replaced by a space), into one temporary file and runs the Stanford
CoreNLP 3.4.1 ``edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase`` on it (a JVM
start per call), then drops the tokens in :data:`PUNCTUATION` and joins the rest with spaces.
This module reproduces that output without Java: :func:`coco_tokenize` returns the same
strings, :func:`ptb_tokens` the tokens the Java program prints.

How
---
The Java tokenizer is a JFlex scanner: at each position every rule is tried, the longest match
wins (trailing context counts towards the length), ties go to the rule written first, and a rule
may push characters back. :class:`_Lexer` is a re-implementation of that scanner over Python
regular expressions, one per rule, written from the rules' published description (CoreNLP 3.4.1
``PTBLexer.flex``) and checked against the Java program token by token
(``tests/text/test_ptb_tokenizer.py``). Its character classes ``[:letter:]``, ``[:digit:]`` and
``[:uppercase:]`` are those of Unicode 6.2, the version the scanner's tables were generated
with (Java 8), taken from :mod:`unicodedata` minus the code points assigned later and a few
categories changed since (found by running every BMP character through the Java program); the
scanner reads UTF-16 code units, so a character outside the Basic Multilingual Plane is two
units here too (an emoji is deleted as two "untokenizable" units, or kept inside a URL).
Tokens are lowercased as Java's ``toLowerCase(Locale.ENGLISH)`` does, which differs from
``str.lower`` only for a final capital sigma (:func:`java_lower`).

Speed comes from the shape of caption text: a caption is cut into whitespace-separated
segments, and a segment's tokens depend only on the segment, on whether a space, a line break
or the end of the input follows it and, for the few segments that end in an abbreviation-like
``"."`` (``"U.S."``, ``"Mass."``, ``"a."``), on a handful of yes/no facts about what follows.
So each distinct (segment, context) is scanned once per call and then looked up; words of ASCII
letters skip the scanner. Segments that tokens can span (``"1 1/2"``, ``". . ."``, phone
numbers) are joined first; a token that still crosses a segment end (an SGML tag with
attributes) is followed exactly, without caching.

Reproduced quirks (all tested against Java)
-------------------------------------------
* Tokens are lowercased after tokenization, so ``-LRB-``/``-RRB-`` (parentheses) become
  ``-lrb-``/``-rrb-`` and are **not** in the dropped list; ``[`` ``]`` become ``-lsb-``/``-rsb-``.
* ``"cannot"`` -> ``can not``; ``gonna gotta lemme gimme wanna`` -> ``gon na`` ...; ``'twas``.
* Abbreviation lists, partly case-sensitive (``"Mass."`` keeps its period, ``"mass."`` does
  not); some keep the period only before a digit (``"No. 5"``); a single-letter initial
  (``"a."``) is split when one of a list of words (``The``, ``A``, ``He`` ...) follows.
* Across captions: all captions of a call form one text, so the last word of a caption can
  depend on the first word of the next caption (``"... in the U.S."`` + ``"The ..."``) exactly as
  in the pipeline; references and candidates are tokenized as two separate texts, as
  ``COCOEvalCap`` does.
* Quotes become ````` `` ````/``''``, an apostrophe inside a word often becomes `````
  (``dell'arte`` -> ``dell ` arte``), ``"..."``/``"…"`` become ``...``, ``&amp;`` -> ``&``,
  ``½`` -> ``1/2``, ``€`` -> ``$``, ``£`` -> ``#``, ``"1 1/2"`` and phone numbers keep a
  no-break space inside one token (so CIDEr's ``str.split`` later splits them), characters
  the scanner cannot tokenize (most emoji, control characters) are deleted.

Known divergence
----------------
A caption containing a line-break character other than ``"\\n"`` (``"\\r"``, ``"\\x0b"``,
``"\\x0c"``, U+2028, U+2029) makes the Java program emit an extra output line, and
``pycocoevalcap`` then pairs every later caption of the call with the wrong line. This module
treats those characters as spaces instead (each caption keeps its own tokens) and
:func:`coco_tokenize` warns. An SGML tag whose quoted attribute value contains a line break is
not split across output lines either.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metricore.core._gc import paused_gc

__all__ = [
    "PUNCTUATION",
    "PTBTokenizer",
    "coco_tokenize",
    "ptb_tokens",
    "java_lower",
    "JAVA_REFERENCE",
]

JAVA_REFERENCE = "Stanford CoreNLP 3.4.1 PTBTokenizer -preserveLines -lowerCase (pycocoevalcap 1.2)"

#: Tokens ``pycocoevalcap`` drops after tokenization (compared after lowercasing, so the
#: upper-case bracket names never match).
PUNCTUATION = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)

# Line-break characters other than "\n" that the Java scanner turns into output lines.
_FOREIGN_BREAKS = re.compile("[\r\x0b\x0c\u2028\u2029]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")

# --------------------------------------------------------------------------------------------
# Character classes (Unicode 6.2, Basic Multilingual Plane)
# --------------------------------------------------------------------------------------------

#: BMP code points first assigned after Unicode 6.2 (from the Unicode Character Database's
#: DerivedAge.txt). The scanner's character classes were generated with Unicode 6.2 (Java 8):
#: Python's Unicode 14 table minus these code points gives that repertoire.
_ADDED_AFTER_6_2 = (
    (0x037F, 0x037F),
    (0x0528, 0x052F),
    (0x0560, 0x0560),
    (0x0588, 0x0588),
    (0x058D, 0x058E),
    (0x05EF, 0x05EF),
    (0x0605, 0x0605),
    (0x061C, 0x061D),
    (0x07FD, 0x07FF),
    (0x0860, 0x086A),
    (0x0870, 0x088E),
    (0x0890, 0x0891),
    (0x0898, 0x089F),
    (0x08A1, 0x08A1),
    (0x08AD, 0x08E3),
    (0x08FF, 0x08FF),
    (0x0978, 0x0978),
    (0x0980, 0x0980),
    (0x09FC, 0x09FE),
    (0x0A76, 0x0A76),
    (0x0AF9, 0x0AFF),
    (0x0B55, 0x0B55),
    (0x0C00, 0x0C00),
    (0x0C04, 0x0C04),
    (0x0C34, 0x0C34),
    (0x0C3C, 0x0C3C),
    (0x0C5A, 0x0C5A),
    (0x0C5D, 0x0C5D),
    (0x0C77, 0x0C77),
    (0x0C80, 0x0C81),
    (0x0C84, 0x0C84),
    (0x0CDD, 0x0CDD),
    (0x0D00, 0x0D01),
    (0x0D04, 0x0D04),
    (0x0D3B, 0x0D3C),
    (0x0D4F, 0x0D4F),
    (0x0D54, 0x0D56),
    (0x0D58, 0x0D5F),
    (0x0D76, 0x0D78),
    (0x0D81, 0x0D81),
    (0x0DE6, 0x0DEF),
    (0x0E86, 0x0E86),
    (0x0E89, 0x0E89),
    (0x0E8C, 0x0E8C),
    (0x0E8E, 0x0E93),
    (0x0E98, 0x0E98),
    (0x0EA0, 0x0EA0),
    (0x0EA8, 0x0EA9),
    (0x0EAC, 0x0EAC),
    (0x0EBA, 0x0EBA),
    (0x13F5, 0x13F5),
    (0x13F8, 0x13FD),
    (0x16F1, 0x16F8),
    (0x170D, 0x170D),
    (0x1715, 0x1715),
    (0x171F, 0x171F),
    (0x180F, 0x180F),
    (0x1878, 0x1878),
    (0x191D, 0x191E),
    (0x1AB0, 0x1ACE),
    (0x1B4C, 0x1B4C),
    (0x1B7D, 0x1B7E),
    (0x1C80, 0x1C88),
    (0x1C90, 0x1CBA),
    (0x1CBD, 0x1CBF),
    (0x1CF7, 0x1CFA),
    (0x1DE7, 0x1DFB),
    (0x2066, 0x2069),
    (0x20BB, 0x20C0),
    (0x218A, 0x218B),
    (0x23F4, 0x23FF),
    (0x2700, 0x2700),
    (0x2B4D, 0x2B4F),
    (0x2B5A, 0x2B73),
    (0x2B76, 0x2B95),
    (0x2B97, 0x2BFF),
    (0x2C2F, 0x2C2F),
    (0x2C5F, 0x2C5F),
    (0x2E3C, 0x2E5D),
    (0x312E, 0x312F),
    (0x31BB, 0x31BF),
    (0x32FF, 0x32FF),
    (0x4DB6, 0x4DBF),
    (0x9FCD, 0x9FFF),
    (0xA698, 0xA69E),
    (0xA78F, 0xA78F),
    (0xA794, 0xA79F),
    (0xA7AB, 0xA7CA),
    (0xA7D0, 0xA7D1),
    (0xA7D3, 0xA7D3),
    (0xA7D5, 0xA7D9),
    (0xA7F2, 0xA7F7),
    (0xA82C, 0xA82C),
    (0xA8C5, 0xA8C5),
    (0xA8FC, 0xA8FF),
    (0xA9E0, 0xA9FE),
    (0xAA7C, 0xAA7F),
    (0xAB30, 0xAB6B),
    (0xAB70, 0xABBF),
    (0xFBC2, 0xFBC2),
    (0xFD40, 0xFD4F),
    (0xFDCF, 0xFDCF),
    (0xFDFE, 0xFDFF),
    (0xFE27, 0xFE2F),
)


#: General categories that changed after Unicode 6.2 (for letters, digits, upper case):
#: U+1885-1886 were Lo (Mn since 9.0); New Tai Lue vowel signs and U+1CF2-1CF3 were Mc (Lo
#: since 8.0 and 10.0); Cherokee capitals were Lo (Lu since 8.0).
_LETTERS_IN_6_2 = frozenset([0x1885, 0x1886])
_NOT_LETTERS_IN_6_2 = frozenset([*range(0x19B0, 0x19C1), 0x19C8, 0x19C9, 0x1CF2, 0x1CF3])
_NOT_UPPER_IN_6_2 = frozenset(range(0x13A0, 0x13F5))


def _classify_6_2(cp: int, later: frozenset[int]) -> tuple[bool, bool, bool]:
    """(letter, digit, upper case) as Java 8's ``Character.isLetter/isDigit/isUpperCase``."""
    if cp in later:
        return False, False, False
    ch = chr(cp)
    cat = unicodedata.category(ch)
    letter = (cat[0] == "L" or cp in _LETTERS_IN_6_2) and cp not in _NOT_LETTERS_IN_6_2
    upper = ch.isupper() and cp not in _NOT_UPPER_IN_6_2  # Lu and Other_Uppercase
    return letter, cat == "Nd", upper


def _class_body(codepoints: list[int]) -> str:
    """A regex character-class body (no brackets) for sorted code points, as ranges."""
    parts: list[str] = []
    i = 0
    while i < len(codepoints):
        j = i
        while j + 1 < len(codepoints) and codepoints[j + 1] == codepoints[j] + 1:
            j += 1
        a, b = codepoints[i], codepoints[j]
        parts.append(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}")
        i = j + 1
    return "".join(parts)


_CLASS_TABLE = "data/ptb_unicode_6_2.json"


@functools.lru_cache(maxsize=1)
def _unicode_classes() -> tuple[str, str, str]:
    """Class bodies for JFlex's ``[:letter:]``, ``[:digit:]``, ``[:uppercase:]`` (Unicode 6.2),
    read from ``metricore/data/ptb_unicode_6_2.json`` so that they do not change with the
    Python version's Unicode tables (that file is :func:`_derive_unicode_classes`' output)."""
    from importlib import resources  # here: ~10 ms to import, needed once

    data = json.loads(resources.files("metricore").joinpath(_CLASS_TABLE).read_text("utf-8"))

    def body(items: list) -> str:
        return "".join(f"\\u{x:04x}" if isinstance(x, int) else f"\\u{x[0]:04x}-\\u{x[1]:04x}" for x in items)

    return body(data["letter"]), body(data["digit"]), body(data["upper"])


def _derive_unicode_classes() -> dict[str, list[int]]:
    """Re-derive the code points of the three classes from this Python's :mod:`unicodedata`
    (exact with Unicode 14.0, i.e. Python 3.11; ``tests`` compare it with the stored table)."""
    later = frozenset(cp for a, b in _ADDED_AFTER_6_2 for cp in range(a, b + 1))
    out: dict[str, list[int]] = {"letter": [], "digit": [], "upper": []}
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        is_letter, is_digit, is_upper = _classify_6_2(cp, later)
        if is_letter:
            out["letter"].append(cp)
        if is_digit:
            out["digit"].append(cp)
        if is_upper:
            out["upper"].append(cp)
    return out


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


def _ci(literal: str) -> str:
    """A literal matched case-insensitively the way JFlex's %caseless does (ASCII letters only;
    character classes elsewhere in a pattern stay case-sensitive)."""
    out = []
    for ch in literal:
        if "a" <= ch.lower() <= "z" and ch.isascii():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _alt(*literals: str) -> str:
    return "(?:" + "|".join(_ci(w) for w in literals) + ")"


_MACRO = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def _expand(pattern: str, macros: dict[str, str]) -> str:
    return _MACRO.sub(lambda m: "(?:" + macros[m.group(1)] + ")", pattern)


def _macros() -> dict[str, str]:
    L, D, U = _unicode_classes()
    m: dict[str, str] = {}

    def put(name: str, pattern: str) -> None:
        m[name] = _expand(pattern, m)

    put("SPACE", "[ \\t\\u00a0\\u2000-\\u200a\\u3000]")
    put("NEWLINE", "\\r\\n|[\\r\\n\\u2028\\u2029\\u000b\\u000c\\u0085]")
    put("SPACENL", "[ \\t\\u00a0\\u2000-\\u200a\\u3000]|{NEWLINE}")
    put("SPACENLS", "(?:{SPACENL})+")
    put(
        "SGML",
        r"<(?:[!?][A-Za-z\-][^>\r\n]*|[A-Za-z][A-Za-z0-9_:.\-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.\-]*"
        r"[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")|[A-Za-z][A-Za-z0-9_:.\-]*))*[ ]*/?|/[A-Za-z][A-Za-z0-9_:.\-]*)[ ]*>",
    )
    put("SENTEND", f"{{SPACENL}}(?:{{SPACENL}}|[{U}]|{{SGML}})")
    put("PDIGIT", f"[{D}]")  # [:digit:]
    put("PLETTER", f"[{L}]")  # [:letter:]
    put("LD", f"[{L}{D}]")  # [:letter:]|[:digit:]
    put("DIGIT", f"[{D}\\u07c0-\\u07c9]")
    put("DATE", "{DIGIT}{1,2}[\\-/]{DIGIT}{1,2}[\\-/]{DIGIT}{2,4}")
    # alternatives reordered so that the first match Python finds is the longest
    put("NUM", "{DIGIT}*(?:[.:,\\u00ad\\u066b\\u066c]{DIGIT}+)+|{DIGIT}+")
    put("NUMBER", "[\\-+]?(?:{NUM})")
    put(
        "SUBSUPNUM",
        "[\\u207a\\u207b\\u208a\\u208b]?(?:[\\u2070\\u00b9\\u00b2\\u00b3\\u2074-\\u2079]+|[\\u2080-\\u2089]+)",
    )
    put("FRAC", "(?:{DIGIT}{1,4}[\\- \\u00a0])?{DIGIT}{1,4}(?:\\\\?/|\\u2044){DIGIT}{1,4}")
    put("FRAC2", "[\\u00bc\\u00bd\\u00be\\u2153-\\u215e]")
    put("DOLSIGN", "[A-Z]*\\$|#")
    put(
        "DOLSIGN2",
        "[\\u00a2\\u00a3\\u00a4\\u00a5\\u0080\\u20a0\\u20ac\\u060b\\u0e3f\\u20a4\\uffe0\\uffe1\\uffe5\\uffe6]",
    )
    put("SPLET", "&[aeiouAEIOU]" + _alt("acute", "grave", "uml") + ";")
    extra_letters = (
        "\\u00ad\\u0237-\\u024f\\u02c2-\\u02c5\\u02d2-\\u02df\\u02e5-\\u02ff\\u0300-\\u036f\\u0370-\\u037d"
        "\\u0384\\u0385\\u03cf\\u03f6\\u03fc-\\u03ff\\u0483-\\u0487\\u04cf\\u04f6-\\u04ff\\u0510-\\u0525"
        "\\u055a-\\u055f\\u0591-\\u05bd\\u05bf\\u05c1\\u05c2\\u05c4\\u05c5\\u05c7\\u0615-\\u061a\\u063b-\\u063f"
        "\\u064b-\\u065e\\u0670\\u06d6-\\u06ef\\u06fa-\\u06ff\\u070f\\u0711\\u0730-\\u074f\\u0750-\\u077f"
        "\\u07a6-\\u07b1\\u07ca-\\u07f5\\u07fa\\u0900-\\u0903\\u093c\\u093e-\\u094e\\u0951-\\u0955"
        "\\u0962-\\u0963\\u0981-\\u0983\\u09bc-\\u09c4\\u09c7\\u09c8\\u09cb-\\u09cd\\u09d7\\u09e2\\u09e3"
        "\\u0a01-\\u0a03\\u0a3c\\u0a3e-\\u0a4f\\u0a81-\\u0a83\\u0abc-\\u0acf\\u0b82\\u0bbe-\\u0bc2"
        "\\u0bc6-\\u0bc8\\u0bca-\\u0bcd\\u0c01-\\u0c03\\u0c3e-\\u0c56\\u0d3e-\\u0d44\\u0d46-\\u0d48"
        "\\u0e30-\\u0e3a\\u0e47-\\u0e4e\\u0eb1-\\u0ebc\\u0ec8-\\u0ecd"
    )
    put("LETTER", f"[{L}{extra_letters}]|{{SPLET}}")
    put("WORD", "{LETTER}(?:{LETTER}|{DIGIT})*(?:[.!?]{LETTER}(?:{LETTER}|{DIGIT})*)*")
    put(
        "FILENAME_EXT",
        _alt(
            "bat",
            "bmp",
            "class",
            "cgi",
            "cpp",
            "c",
            "dll",
            "docx",
            "doc",
            "exe",
            "gif",
            "gz",
            "html",
            "htm",
            "h",
            "jar",
            "java",
            "jpeg",
            "jpg",
            "mov",
            "mp3",
            "pdf",
            "php",
            "pl",
            "png",
            "ppt",
            "ps",
            "py",
            "sql",
            "tar",
            "txt",
            "wav",
            "x",
            "xml",
            "zip",
        ),
    )
    put("FILENAME", "(?:{LETTER}|{DIGIT})+(?:[.](?:{LETTER}|{DIGIT})+)*[.]{FILENAME_EXT}")
    put("APOS", "['\\u0092\\u2019]|" + _ci("&apos;"))
    put("APOSETCETERA", "{APOS}|[`\\u0091\\u2018\\u201b]")
    put("HYPHEN", "[\\-_\\u058a\\u2010\\u2011]")
    put("THING", "(?:[dDoOlL]{APOSETCETERA}{LD})?{LD}+(?:{HYPHEN}(?:[dDoOlL]{APOSETCETERA}{LD})?{LD}+)*")
    put("SPAMP", _ci("&amp;"))
    put("THINGA", "[A-Z]+(?:(?:{SPAMP}|[+&])[A-Z]+)+")  # the entity first: the longer match
    put("THING3", "[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}")
    acro_special = (
        _alt("canada", "sino", "korean", "eu", "japan", "non")
        + _ci("-u.s")
        + "|"
        + _ci("u.s.-")
        + _alt("u.s.s.r", "u.k")
    )
    put("ACRO", acro_special + "|[A-Za-z](?:\\.[A-Za-z])*")
    put("ACRO2", acro_special + "|[A-Za-z](?:\\.[A-Za-z])+")
    put("HTHING", "[A-Za-z0-9][A-Za-z0-9.,\\u00ad]*(?:-(?:(?:{ACRO2})\\.|[A-Za-z0-9\\u00ad]+))+")
    put("REDAUX", "(?:{APOS})(?:[msdMSD]|" + _alt("re", "ve", "ll") + ")")
    put("SWORD", "[A-Za-z\\u00ad]*[A-MO-Za-mo-z]\\u00ad*")
    put("SREDAUX", "[nN]{APOSETCETERA}[tT]")
    put("APOWORD2", "[yY]{APOS}")
    put("URLPATH", '(?:/[^ \\t\\n\\f\\r"<>|()]+[^ \\t\\n\\f\\r"<>|.!?(){},\\-])?')
    put("FULLURL", _ci("http") + '[sS]?://[^ \\t\\n\\f\\r"<>|(){}]+[^ \\t\\n\\f\\r"<>|.!?(){},\\-]')
    put(
        "EMAIL",
        "(?:" + _ci("&lt;") + '|<)?[a-zA-Z0-9][^ \\t\\n\\f\\r"<>|()\\u00a0{}]*@'
        '(?:[^ \\t\\n\\f\\r"<>|(){}.\\u00a0]+\\.)*[^ \\t\\n\\f\\r"<>|(){}.\\u00a0]+(?:'
        + _ci("&gt;")
        + "|>)?",
    )
    put("TWITTER", "@[a-zA-Z_][a-zA-Z_0-9]*|#(?:{LETTER})+")
    abmonth = _alt("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep", "oct", "nov", "dec")
    abdays = _alt("mon", "tues", "tue", "wed", "thurs", "thu", "fri")
    abstate = (
        "(?:"
        + _ci("ala")
        + "|"
        + _ci("ariz")
        + "|A"
        + _ci("z")
        + "|A"
        + _ci("rk")
        + "|"
        + _ci("calif")
        + "|"
        + _ci("colo")
        + "|"
        + _ci("conn")
        + "|"
        + _ci("ct")
        + "|"
        + _ci("dak")
        + "|D"
        + _ci("el")
        + "|"
        + _ci("fla")
        + "|"
        + _ci("ga")
        + "|I"
        + _ci("ll")
        + "|"
        + _ci("ind")
        + "|"
        + _ci("kans")
        + "|"
        + _ci("kan")
        + "|"
        + _ci("ky")
        + "|L"
        + _ci("a")
        + "|M"
        + _ci("ass")
        + "|"
        + _ci("md")
        + "|"
        + _ci("mich")
        + "|"
        + _ci("minn")
        + "|M"
        + _ci("iss")
        + "|"
        + _ci("mont")
        + "|"
        + _ci("mo")
        + "|"
        + _ci("neb")
        + "|"
        + _ci("nev")
        + "|"
        + _ci("okla")
        + "|O"
        + _ci("re")
        + "|P"
        + _ci("a")
        + "|"
        + _ci("penn")
        + "|"
        + _ci("tenn")
        + "|T"
        + _ci("ex")
        + "|"
        + _ci("va")
        + "|"
        + _ci("vt")
        + "|W"
        + _ci("ash")
        + "|"
        + _ci("wisc")
        + "|"
        + _ci("wis")
        + "|"
        + _ci("wyo")
        + ")"
    )
    abcomp = (
        "(?:"
        + _ci("inc")
        + "|"
        + _ci("cos")
        + "|"
        + _ci("co")
        + "|"
        + _ci("corp")
        + "|[pP](?:[pP])?[tT][ye](?:[sS])?|"
        + _ci("ltd")
        + "|"
        + _ci("plc")
        + "|"
        + _ci("rt")
        + "|"
        + _ci("bancorp")
        + "|"
        + _ci("bhd")
        + "|"
        + _ci("assn")
        + "|"
        + _ci("univ")
        + "|"
        + _ci("intl")
        + "|"
        + _ci("sys")
        + ")"
    )
    abnum = _alt("tel", "est", "ext", "sq")
    abptit = (
        "(?:"
        + _ci("jr")
        + "|"
        + _ci("sr")
        + "|"
        + _ci("bros")
        + "|"
        + _alt("ed", "ph")
        + "\\.[dD]|"
        + _ci("blvd")
        + "|"
        + _ci("rd")
        + "|"
        + _ci("esq")
        + ")"
    )
    put(
        "ABBREV1",
        f"(?:{abmonth}|{abdays}|{abstate}|{abcomp}|{abnum}|{abptit}|"
        + _alt("etc", "al", "seq", "bldg")
        + ")\\.",
    )
    abtitle = (
        "(?:"
        + "|".join(_ci(w) for w in ("mrs", "mr", "ms"))
        + "|M"
        + _ci("iss")
        + "|"
        + "|".join(_ci(w) + "(?:[sS])?" for w in ("dr", "prof", "sen", "rep", "atty", "gov", "supt"))
        + "|"
        + "|".join(
            _ci(w)
            for w in (
                "lt",
                "col",
                "gen",
                "messrs",
                "adm",
                "rev",
                "maj",
                "sgt",
                "cpl",
                "pvt",
                "capt",
                "ste",
                "st",
                "ave",
                "pres",
                "lieut",
                "hon",
                "brig",
                "comdr",
                "cmdr",
                "pfc",
                "spc",
                "det",
                "mt",
                "ft",
                "adj",
                "adv",
                "asst",
                "assoc",
                "ens",
                "insp",
                "mlle",
                "mme",
                "msgr",
                "sfc",
            )
        )
        + ")"
    )
    abcomp2 = (
        "(?:" + _ci("invt") + "|" + _ci("elec") + "|" + _ci("natl") + "|[mM][ft][gG]|" + _ci("dept") + ")"
    )
    put(
        "ABBREV4",
        f"{abtitle}|"
        + _alt("vs", "alex", "wm", "jos", "cie", "a.k.a", "cf", "treas", "ph")
        + f"|{{ACRO}}|{abcomp2}",
    )
    put("ABBREV2", "(?:{ABBREV4})\\.")
    put("ACRONYM", "(?:{ACRO})\\.")
    put("ABBREV3", _alt("ca", "figs", "fig", "prop", "nos", "no", "art", "bldg", "pp", "op") + "\\.")
    put(
        "PHONE",
        "(?:\\([0-9]{2,3}\\)[ \\u00a0]?|(?:\\+\\+?)?(?:[0-9]{2,4}[\\- \\u00a0])?[0-9]{2,4}[\\- \\u00a0])"
        "[0-9]{3,4}[\\- \\u00a0]?[0-9]{3,5}|(?:(?:\\+\\+?)?[0-9]{2,4}\\.)?[0-9]{2,4}\\.[0-9]{3,4}\\.[0-9]{3,5}",
    )
    put("INSENTP", "[,;:\\u3001]")
    put("DBLQUOT", '"|' + _ci("&quot;"))
    put("SMILEY", "[<>]?[:;=][\\-o*']?[()DPdpO\\\\{@|\\[\\]]")
    put(
        "MISCSYMBOL",
        "[+%&~\\^|\\\\\\u00a6\\u00a7\\u00a8\\u00a9\\u00ac\\u00ae\\u00af\\u00b0-\\u00b3\\u00b4-\\u00ba\\u00d7"
        "\\u00f7\\u0387\\u05be\\u05c0\\u05c3\\u05c6\\u05f3\\u05f4\\u0600-\\u0603\\u0606-\\u060a\\u060c\\u0614"
        "\\u061b\\u061e\\u066a\\u066d\\u0703-\\u070d\\u07f6\\u07f7\\u07f8\\u0964\\u0965\\u0e4f\\u1fbd\\u2016"
        "\\u2017\\u2020-\\u2023\\u2030-\\u2038\\u203b\\u203e-\\u2042\\u2044\\u207a-\\u207f\\u208a-\\u208e"
        "\\u2100-\\u214f\\u2190-\\u21ff\\u2200-\\u2bff\\u3012\\u30fb\\uff01-\\uff0f\\uff1a-\\uff20"
        "\\uff3b-\\uff40\\uff5b-\\uff65]",
    )
    return m


# Actions (what a rule does with the text it matched)
(
    _TOK,
    _SOFT,
    _PUSH,
    _SGML,
    _DASH,
    _AMP,
    _QL,
    _QR,
    _NBSP,
    _FRAC2,
    _CURR,
    _ACRONYM,
    _STRIPWS,
    _ABBR_SPLIT,
    _PHONE,
    _PARENS,
    _CONST,
    _HYPHENS,
    _ELLIPSIS,
    _SKIP,
    _NEWLINE,
    _UNTOK,
) = range(22)


@dataclass(frozen=True)
class _Rule:
    name: str
    main: re.Pattern[str]  # the token (trailing context excluded)
    trail: re.Pattern[str] | None  # trailing context (JFlex ``r1/r2``), or None
    alts: tuple[re.Pattern[str], ...]  # alternatives whose longest is taken (order-sensitive rules)
    action: int
    arg: object = None
    longest: int = 0  # > 0: find the longest match by trying end positions (at most this far)
    in_run: bool = False  # with ``longest``: the match lies inside one run of non-space characters
    long_lookahead: bool = False  # trailing context may read past the next character
    multi_end: bool = False  # the token may end at several places before its trailing context


def _rules() -> tuple[_Rule, ...]:
    m = _macros()

    def rx(p: str) -> re.Pattern[str]:
        return re.compile(_expand(p, m))

    rules: list[_Rule] = []

    def add(
        name,
        main,
        action,
        arg=None,
        trail=None,
        alts=(),
        longest=0,
        in_run=False,
        long_lookahead=False,
        multi_end=False,
    ):
        rules.append(
            _Rule(
                name,
                rx(main) if main else re.compile("(?!)"),
                rx(trail) if trail else None,
                tuple(rx(a) for a in alts),
                action,
                arg,
                longest,
                in_run,
                long_lookahead,
                multi_end,
            )
        )

    add("c++", _ci("c") + "[+][+]", _TOK)
    add("c#", "[cCfF]#", _TOK)
    add("cannot", _ci("cannot"), _PUSH, 3)
    add("'twas", _ci("'twas"), _PUSH, 3)
    add("'tis", _ci("'tis"), _PUSH, 2)
    add("gonna", _alt("gonna", "gotta", "lemme", "gimme", "wanna"), _PUSH, 2)
    add("SGML", "{SGML}", _SGML)
    add("SPMDASH", "&" + _alt("mdash", "ndash", "md") + ";|[\\u0096\\u0097\\u2013\\u2014\\u2015]", _DASH)
    add("SPAMP", "{SPAMP}", _AMP)
    add(
        "SPPUNC",
        "&(?:"
        + "|".join(_ci(w) for w in ("ht", "tl", "ur", "lr", "qc", "ql", "qr", "odq", "cdq"))
        + "|#[0-9]+);",
        _TOK,
    )
    add("WORD/REDAUX", "{WORD}", _SOFT, trail="{REDAUX}")
    add("SWORD/SREDAUX", "{SWORD}", _SOFT, trail="{SREDAUX}")
    add("WORD", "{WORD}", _SOFT)
    add(
        "APOWORD",
        None,
        _TOK,
        alts=(
            "{APOS}[nN](?:{APOS})?",
            "[lLdDjJ]{APOS}",
            _ci("dunkin") + "{APOS}",
            _ci("somethin") + "{APOS}",
            _ci("ol") + "{APOS}",
            "{APOS}" + _ci("em"),
            "[A-HJ-XZn]{APOSETCETERA}{PLETTER}{2}{PLETTER}*",
            "{APOS}[2-9]0[sS]",
            "{APOS}" + _ci("til") + "[lL]?",
            "{PLETTER}{PLETTER}*[aeiouyAEIOUY]{APOSETCETERA}[aeiouA-Z]{PLETTER}*",
            "{APOS}" + _ci("cause"),
            _ci("cont'd") + "\\.?",
            _ci("'twas"),
            _ci("nor'easter"),
            _ci("c'mon"),
            _ci("e'er"),
            _ci("s'mores"),
            _ci("ev'ry"),
            _ci("li'l"),
            _ci("nat'l"),
            "[oO]{APOSETCETERA}[oO]",
        ),
    )
    add("APOWORD2", "{APOWORD2}", _TOK, trail="{PLETTER}")
    add("FULLURL", "{FULLURL}", _TOK, longest=400, in_run=True)
    add(
        "LIKELYURL",
        None,
        _TOK,
        longest=400,
        in_run=True,
        alts=(
            _ci("www") + '\\.(?:[^ \\t\\n\\f\\r"<>|.!?(){},]+\\.)+[a-zA-Z]{2,4}{URLPATH}',
            "(?:[^ \\t\\n\\f\\r\"`'<>|.!?(){},-_$]+\\.)+" + _alt("com", "net", "org", "edu") + "{URLPATH}",
        ),
    )
    add("EMAIL", "{EMAIL}", _TOK, longest=400, in_run=True)
    add("TWITTER", "{TWITTER}", _TOK)
    add("REDAUX/", "{REDAUX}", _QR, trail="[^A-Za-z]")
    add("SREDAUX/", "{SREDAUX}", _QR, trail="[^A-Za-z]")
    add("DATE", "{DATE}", _TOK)
    add("NUMBER", "{NUMBER}", _SOFT)
    add("SUBSUPNUM", "{SUBSUPNUM}", _TOK)
    add("FRAC", "{FRAC}", _NBSP)
    add("FRAC2", "{FRAC2}", _FRAC2)
    add(
        "TBSPEC",
        None,
        _AMP,
        alts=(
            "-" + _alt("rrb", "lrb", "rcb", "lcb", "rsb", "lsb") + "-",
            _ci("c.d.s"),
            _ci("pro-"),
            _ci("anti-"),
            "[sS](?:&|{SPAMP})[pP]-500",
            "[sS](?:&|{SPAMP})" + _ci("ls"),
            _ci("cap") + "{APOS}[nN]",
            "[cC]{APOS}" + _ci("est"),
        ),
    )
    add("THING3", "{THING3}", _TOK)
    add("DOLSIGN", "{DOLSIGN}", _TOK)
    add("DOLSIGN2", "{DOLSIGN2}", _CURR)
    acronym_words = "|".join(
        w[0] + _ci(w[1:])
        for w in (
            "According",
            "Additionally",
            "About",
            "After",
            "An",
            "As",
            "At",
            "A",
            "But",
            "Earlier",
            "Here",
            "Her",
            "He",
            "However",
            "If",
            "In",
            "It",
            "Last",
            "Many",
            "More",
            "Now",
            "Once",
            "One",
            "Other",
            "Our",
            "She",
            "Since",
            "Some",
            "So",
            "Such",
            "Their",
            "Then",
            "There",
            "These",
            "They",
            "That",
            "The",
            "This",
            "We",
            "When",
            "While",
            "What",
            "Yet",
            "You",
        )
    )
    add(
        "ACRONYM",
        "{ACRONYM}",
        _ACRONYM,
        trail="{SPACENLS}(?:" + acronym_words + "|M" + _ci("r.") + "|M" + _ci("s.") + "|{SGML}){SPACENL}",
        long_lookahead=True,
    )
    add("ABBREV3/", "{ABBREV3}", _STRIPWS, trail="(?:{SPACENL})?{PDIGIT}", long_lookahead=True)
    add(
        "pty./ltd",
        "(?:[pP][tT][eyEY]|" + _ci("co") + ")\\.",
        _TOK,
        trail="{SPACE}" + _alt("ltd", "lim"),
        long_lookahead=True,
    )
    add("ABBREV1/SENTEND", "{ABBREV1}", _ABBR_SPLIT, trail="{SENTEND}", long_lookahead=True)
    add("ABBREV1/..", "{ABBREV1}", _TOK, trail="[\\s\\S][\\s\\S]", long_lookahead=True)
    add("ABBREV1", "{ABBREV1}", _ABBR_SPLIT)
    add("ABBREV2", "{ABBREV2}", _TOK)
    add("ABBREV4/", "{ABBREV4}", _TOK, trail="{SPACE}")
    add("ACRO/", "{ACRO}", _TOK, trail="{SPACENL}")
    add("TBSPEC2/", "{APOS}[0-9][0-9]", _TOK, trail="{SPACENL}")
    add("FILENAME/", "{FILENAME}", _TOK, trail="{SPACENL}|[.?!,]", multi_end=True)
    add("WORD./", "{WORD}\\.", _SOFT, trail="{INSENTP}")
    add("PHONE", "{PHONE}", _PHONE, longest=32)
    add("DBLQUOT/", "{DBLQUOT}", _QL, trail="[A-Za-z0-9$]")
    add("DBLQUOT", "{DBLQUOT}", _QR)
    add("DEL", "\\x7f", _SKIP)
    add("LESSTHAN", "<|" + _ci("&lt;"), _CONST, "<")
    add("GREATERTHAN", ">|" + _ci("&gt;"), _CONST, ">")
    add("SMILEY/", "{SMILEY}", _PARENS, trail="[^A-Za-z0-9]")
    add(
        "ASIANSMILEY",
        None,
        _PARENS,
        alts=(
            "[\\^x=~<>]\\.\\[\\^[xX]=~<>\\]",
            "[\\-\\^x=~<>']_[\\-\\^x=~<>']",
            "\\([\\-\\^x=~<>'][_.]?[\\-\\^x=~<>']\\)",
            "\\([\\^x=~<>']-[\\^x=~<>'`]\\)",
        ),
    )
    add("{", "\\{", _CONST, "-LCB-")
    add("}", "\\}", _CONST, "-RCB-")
    add("[", "\\[", _CONST, "-LSB-")
    add("]", "\\]", _CONST, "-RSB-")
    add("(", "\\(", _CONST, "-LRB-")
    add(")", "\\)", _CONST, "-RRB-")
    add("HYPHENS", "-+", _HYPHENS)
    add("LDOTS", None, _ELLIPSIS, alts=("\\.{3,5}", "(?:\\.[ \\u00a0]){2,4}\\.", "[\\u0085\\u2026]"))
    add("FNMARKS", "@+|#+|_+", _TOK)
    add("ASTS", "\\*+|(?:\\\\\\*){1,3}", _TOK)
    add("INSENTP", "{INSENTP}", _TOK)
    add("?!", "[?!]+", _TOK)
    add("PUNCT", "[.\\u00a1\\u00bf\\u037e\\u0589\\u061f\\u06d4\\u0700-\\u0702\\u07fa\\u3002]", _TOK)
    add("=", "=", _TOK)
    add("/", "/", _TOK)
    add("HTHING./", "{HTHING}\\.", _SOFT, trail="{INSENTP}")
    add("HTHING", "{HTHING}", _SOFT)
    add("THING./", "{THING}\\.", _TOK, trail="{INSENTP}")
    add("THING", "{THING}", _TOK)
    add("THINGA./", "{THINGA}\\.", _AMP, trail="{INSENTP}")
    add("THINGA", "{THINGA}", _AMP)
    add("'/", "'", _QL, trail="[A-Za-z][^ \\t\\n\\r\\u00a0]")
    add("REDAUX", "{REDAUX}", _QR)
    add("SREDAUX", "{SREDAUX}", _QR)
    add(
        "QUOTES",
        None,
        _QR,
        alts=(
            "{APOS}",
            "''",
            "[`\\u2018\\u2019\\u201a\\u201b\\u201c\\u201d\\u0091\\u0092\\u0093\\u0094\\u201e\\u201f"
            "\\u2039\\u203a\\u00ab\\u00bb]{1,2}",
        ),
    )
    add("FAKEDUCKFEET", "<<|>>", _TOK)
    add("MISCSYMBOL", "{MISCSYMBOL}", _TOK)
    add("SPACES", "\\x00|(?:{SPACE})+|[\\u200b\\u200e\\u200f\\ufeff]", _SKIP)
    add("NEWLINE", "{NEWLINE}", _NEWLINE)
    add("&nbsp;", _ci("&nbsp;"), _SKIP)
    add("UNTOKENIZABLE", ".", _UNTOK)
    return tuple(rules)


# --------------------------------------------------------------------------------------------
# Token normalizations (the scanner's actions)
# --------------------------------------------------------------------------------------------

_LATEX_LEFT = str.maketrans({"'": "`", '"': "``"})
_LATEX_RIGHT = str.maketrans({'"': "''"})
_LATEX_UNICODE = str.maketrans(
    {
        "\u0091": "`",
        "\u2018": "`",
        "\u201b": "`",
        "\u2039": "`",
        "\u0092": "'",
        "\u2019": "'",
        "\u203a": "'",
        "\u0093": "``",
        "\u201c": "``",
        "\u00ab": "``",
        "\u0094": "''",
        "\u201d": "''",
        "\u00bb": "''",
    }
)
_FRACTIONS = str.maketrans(
    {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}
)
_CURRENCY = str.maketrans(
    {"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$", "\u20ac": "$"}
)
_PARENS_TABLE = str.maketrans({"(": "-LRB-", ")": "-RRB-"})
_AMP_ENTITY = re.compile("&amp;", re.IGNORECASE)


def _quotes(tok: str, left: bool) -> str:
    """LaTeX-style quotes (the scanner's default): ``"`` -> ```` `` ```` or ``''``."""
    if left:
        tok = tok.replace("&apos;", "`").replace("&quot;", "``").translate(_LATEX_LEFT)
    else:
        tok = tok.replace("&apos;", "'").replace("&quot;", "''").translate(_LATEX_RIGHT)
    return tok.translate(_LATEX_UNICODE)


def _remove_soft_hyphens(tok: str) -> str:
    if "\u00ad" not in tok:
        return tok
    out = tok.replace("\u00ad", "")
    return out or "-"


_WS_PUSHBACK = frozenset(" \t\n\x0b\x0c\r\x85")


class _Lexer:
    """The scanner: longest match over all rules, first rule on ties, JFlex trailing context."""

    def __init__(self) -> None:
        self.rules = _rules()
        self._starts = [_StartTest(r.alts or (r.main,)) for r in self.rules]
        #: plain rules (the regex's own match is the longest, no trailing context): their match
        self._simple = [
            None if (r.alts or r.trail or r.longest or r.long_lookahead) else r.main.match for r in self.rules
        ]
        self._by_char: dict[str, tuple[int, ...]] = {}
        #: the trailing contexts that can read past the next character (see _context_signature)
        self.long_trails = tuple(
            r.trail.match
            for r in self.rules
            if r.long_lookahead and r.trail is not None and r.name != "ABBREV1/.."
        )

    def _candidates(self, text: str, pos: int) -> tuple[int, ...]:
        """The rules whose token can begin with the character at ``pos``."""
        ch = text[pos]
        idx = self._by_char.get(ch)
        if idx is None:
            idx = tuple(i for i, test in enumerate(self._starts) if test(ch))
            self._by_char[ch] = idx
        return idx

    def _match(
        self, rule: _Rule, text: str, pos: int, mm: re.Match[str] | None = None
    ) -> tuple[int, int] | None:
        """(end including trailing context, end of the token) of the rule's longest match
        (``mm``: the main pattern's match at ``pos``, when already known)."""
        if rule.alts:
            best_end = -1
            for alt in rule.alts:
                mm = alt.match(text, pos)
                if mm is not None:
                    end = _longest(rule, alt, text, pos, mm.end()) if rule.longest else mm.end()
                    if end > best_end:
                        best_end = end
            return (best_end, best_end) if best_end > pos else None
        if mm is None:
            mm = rule.main.match(text, pos)
            if mm is None:
                return None
        if rule.trail is None:
            end = _longest(rule, rule.main, text, pos, mm.end()) if rule.longest else mm.end()
            return (end, end) if end > pos else None
        # Trailing context: the longest total; among equal totals the longest token.
        best: tuple[int, int] | None = None
        for end in _token_ends(rule, text, pos, mm.end()):
            tm = rule.trail.match(text, end)
            if tm is not None and (best is None or tm.end() > best[0]):
                best = (tm.end(), end)
        return best

    def lex(self, text: str, start: int, end: int) -> tuple[list[str], int, bool]:
        """Tokens from ``start`` until a token ends at or after ``end`` and the scanner stands on
        whitespace (or the end); returns (tokens, stop position, context-dependent?). Line breaks
        appear as ``"\\n"`` entries."""
        rules = self.rules
        out: list[str] = []
        pos = start
        n = len(text)
        dep = False
        simple = self._simple
        while pos < n and (pos < end or text[pos] not in " \t\n"):
            best_total, best_tok, best_rule = -1, -1, -1
            for i in self._candidates(text, pos):
                plain = simple[i]
                if plain is not None:  # a plain rule: its regex's match is the longest
                    mm = plain(text, pos)
                    if mm is not None:
                        e = mm.end()
                        if e > best_total:
                            best_total = best_tok = e
                            best_rule = i
                    continue
                rule = rules[i]
                if rule.alts:
                    got = self._match(rule, text, pos)
                else:
                    mm = rule.main.match(text, pos)
                    if mm is None:
                        continue
                    if rule.long_lookahead and not dep and _reaches_end(text, mm.end(), end):
                        dep = True
                    got = self._match(rule, text, pos, mm)
                if got is not None and got[0] > best_total:
                    best_total, best_tok, best_rule = got[0], got[1], i
            rule = rules[best_rule]
            tok = text[pos:best_tok]
            nxt = best_tok
            act = rule.action
            if act == _TOK:
                out.append(tok)
            elif act == _SOFT:
                out.append(_remove_soft_hyphens(tok))
            elif act == _PUSH:
                nxt = best_tok - rule.arg  # type: ignore[operator]
                out.append(text[pos:nxt])
            elif act == _SGML:
                out.append(tok.replace(" ", "\u00a0"))
            elif act == _DASH:
                out.append("--")
            elif act == _AMP:
                out.append(_AMP_ENTITY.sub("&", tok))
            elif act == _QL:
                out.append(_quotes(tok, True))
            elif act == _QR:
                out.append(_quotes(tok, False))
            elif act == _NBSP:
                out.append(tok.replace(" ", "\u00a0"))
            elif act == _FRAC2:
                out.append(tok.translate(_FRACTIONS))
            elif act == _CURR:
                out.append(tok.translate(_CURRENCY))
            elif act in (_ACRONYM, _STRIPWS):
                while nxt > pos and text[nxt - 1] in _WS_PUSHBACK:
                    nxt -= 1
                tok = text[pos:nxt]
                if act == _ACRONYM:
                    if nxt - pos == 2:  # "I." etc.: the letter now, the period next time
                        nxt -= 1
                        tok = text[pos:nxt]
                    else:  # the word with its period, and the period again next time
                        nxt -= 1
                out.append(tok)
            elif act == _ABBR_SPLIT:  # token with its period, then the period again
                out.append(tok)
                nxt = best_tok - 1
            elif act == _PHONE:
                out.append(tok.replace(" ", "\u00a0").translate(_PARENS_TABLE))
            elif act == _PARENS:
                out.append(tok.translate(_PARENS_TABLE))
            elif act == _CONST:
                out.append(rule.arg)  # type: ignore[arg-type]
            elif act == _HYPHENS:
                out.append("--" if 3 <= len(tok) <= 4 else tok)
            elif act == _ELLIPSIS:
                out.append("...")
            elif act == _NEWLINE:
                out.append("\n")
            # _SKIP, _UNTOK: nothing (untokenizable characters are deleted, as by default)
            if act != _NEWLINE and "\n" in text[pos:nxt]:
                # a line break inside a token (an SGML attribute value): Java would print it
                # and shift the output lines; keep each caption's tokens on its own line
                out.extend("\n" * text.count("\n", pos, nxt))
            pos = nxt
        return out, pos, dep


_RUN = re.compile("[^ \t\n\f\r]*")


def _longest(rule: _Rule, pattern: re.Pattern[str], text: str, pos: int, found: int) -> int:
    """The longest match of ``pattern`` at ``pos`` (JFlex semantics), for patterns where the
    first match Python's backtracking finds can be shorter (``found`` is that match's end)."""
    limit = pos + rule.longest
    if rule.in_run:
        limit = min(limit, _RUN.match(text, pos).end())  # type: ignore[union-attr]
    for e in range(min(len(text), limit), found, -1):
        if pattern.fullmatch(text, pos, e):
            return e
    return found


try:  # the regular-expression parser of the standard library (private, stable for years)
    from re import _constants as _sre_const  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as _sre_const
    import sre_parse as _sre_parse


class _StartTest:
    """Can a match of any of these patterns begin with a given character? Read off the parsed
    patterns (what the first position of each alternative accepts) and kept as a few compiled
    character classes; anything not understood answers yes, so the test can only let through
    more rules than needed, never fewer."""

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        atoms: list[str] = []
        try:
            for p in patterns:
                if _first_atoms(_sre_parse.parse(p.pattern, p.flags), atoms) is not False:
                    atoms.append("[\\s\\S]")  # may match the empty string
        except Exception:  # pragma: no cover - parser changed: try every rule
            atoms = ["[\\s\\S]"]
        self._match = re.compile("|".join(atoms) or "(?!)").match

    def __call__(self, ch: str) -> bool:
        return self._match(ch) is not None


def _first_atoms(seq, atoms: list[str]):  # -> False if seq cannot match '', else None
    """Append to ``atoms`` regexes for the characters ``seq`` can begin with."""
    c = _sre_const
    for op, av in seq:
        if op is c.LITERAL:
            atoms.append(f"\\u{av:04x}" if av < 0x10000 else re.escape(chr(av)))
            return False
        if op is c.IN:
            atoms.append(_class_atom(av))
            return False
        if op is c.BRANCH:
            if any([_first_atoms(alt, atoms) is not False for alt in av[1]]):
                continue
            return False
        if op is c.SUBPATTERN:
            if _first_atoms(av[-1], atoms) is not False:
                continue
            return False
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
            if _first_atoms(av[2], atoms) is not False or av[0] == 0:
                continue
            return False
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero-width
        atoms.append("[\\s\\S]")  # ANY, NOT_LITERAL and anything else: do not exclude
        return False
    return None


def _class_atom(items) -> str:
    c = _sre_const
    body: list[str] = []
    negate = False
    for op, av in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            body.append(f"\\u{av:04x}" if av < 0x10000 else re.escape(chr(av)))
        elif op is c.RANGE:
            lo, hi = av
            body.append(f"{chr(lo)}-{chr(hi)}" if lo > 0xFFFF else f"\\u{lo:04x}-\\u{min(hi, 0xFFFF):04x}")
        else:  # categories (\\s, \\d ...) and anything else: do not exclude
            return "[\\s\\S]"
    if not body:
        return "[\\s\\S]" if negate else "(?!)"
    return "[" + ("^" if negate else "") + "".join(body) + "]"


def _reaches_end(text: str, tok_end: int, seg_end: int) -> bool:
    """Could a trailing context starting at ``tok_end`` read past the character after the
    segment? Only if nothing but whitespace lies between the token and the segment end."""
    if tok_end > seg_end:
        return True
    for ch in text[tok_end:seg_end]:
        if ch not in _SPACE_CHARS:
            return False
    return True


_SPACE_CHARS = frozenset(" \t\u00a0\u3000\x85\n" + "".join(chr(c) for c in range(0x2000, 0x200B)))


def _token_ends(rule: _Rule, text: str, pos: int, greedy_end: int) -> list[int]:
    """Candidate token ends for a trailing-context rule, longest first: the greedy end, and for
    a rule whose token can stop at several places before a valid trailing context (a file name
    such as ``a.txt.txt``) every shorter end too."""
    ends = [greedy_end]
    if not rule.multi_end:
        return ends
    for e in range(greedy_end - 1, pos, -1):
        if rule.main.fullmatch(text, pos, e):
            ends.append(e)
    return ends


# --------------------------------------------------------------------------------------------
# Driver: segments, per-call cache, lines
# --------------------------------------------------------------------------------------------

#: Words of ASCII letters that the scanner splits (``cannot`` -> ``can not``, ``gonna`` ...).
_SPLIT_WORDS = frozenset(["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"])
_DEP = object()  # cache marker: this segment's tokens depend on what follows it


@functools.lru_cache(maxsize=1)
def _lexer() -> _Lexer:
    return _Lexer()


@functools.lru_cache(maxsize=1)
def _segment_re() -> re.Pattern[str]:
    """Segments (group 1) or a line break (``"\\n"``, no group).

    A segment is a run of characters other than space, tab and line feed. Before it, a space or
    tab and every further space-like character (no-break space, U+2000-U+200A, U+3000) form
    one whitespace token, as the scanner's ``{SPACES}`` rule does, so those are skipped too;
    after a line break (or at the start) they are not, and belong to the segment. Segments are
    joined where one token can span the single space between them: a digit (or ``)``) and a
    digit (``1 1/2``, phone numbers), or a period and a period (``. . .``).
    """
    _, digits, _ = _unicode_classes()
    dig = f"[{digits}\\u07c0-\\u07c9]"
    return re.compile(
        "(?:[ \\t][ \\t\\u00a0\\u2000-\\u200a\\u3000]*)?"
        f"([^ \\t\\n]+(?:(?:(?<=[{digits}\\u07c0-\\u07c9)]) (?={dig})|(?<=\\.) (?=\\.))[^ \\t\\n]+)*)|\\n"
    )


_SGML_START = re.compile("<[A-Za-z!?/]")
_SGML_UNFINISHED = re.compile(
    r"<[!?][A-Za-z\-][^>\r\n]*|<[A-Za-z][A-Za-z0-9_:.\-]*/?|</[A-Za-z][A-Za-z0-9_:.\-]*"
)


def _context_signature(lexer: _Lexer, text: str, start: int, end: int) -> tuple[object, ...]:
    """What the long trailing contexts (after a final ``"."``) see beyond the segment."""
    trails = lexer.long_trails
    sig: list[object] = []
    pos = end
    while pos > start:
        if text[pos - 1] == ".":
            sig.append(tuple(t(text, pos) is not None for t in trails) + (pos + 2 <= len(text),))
        if text[pos - 1] not in _SPACE_CHARS:
            break
        pos -= 1
    return tuple(sig)


class _Stream:
    """One call's text: the captions joined by ``"\\n"``, scanned segment by segment with a
    per-call cache (nothing is kept between calls).

    A segment's tokens are looked up by (segment, what follows): ``"C"`` when a space, tab or
    line break follows, ``"E"`` at the end of the text. Space and line break need no separate
    entries: the rules see them alike, but for ``{ABBREV4}/{SPACE}`` ("Mr" before a space),
    which then yields the same token as the rules that take it before a line break. For the
    few segments flagged by the scanner (a final abbreviation-like ``"."``) the key also holds
    the outcome of the long trailing contexts (:func:`_context_signature`).

    In ``coco`` mode the output of a line is built from per-segment strings (lowercased tokens
    without :data:`PUNCTUATION`, joined) wherever possible.
    """

    def __init__(self, lines: list[str], *, lowercase: bool, astral: bool, coco: bool) -> None:
        self.lines = lines
        self.lowercase = lowercase or coco
        self.astral = astral
        self.coco = coco
        self.text = "\n".join(lines)
        #: per line: a token list, or (coco fast path) the finished string
        self.out: list[list[str] | str | None] = [None] * len(lines)
        self.line = 0  # the line scanner tokens go to
        self.lexer = _lexer()
        #: (segment, "C"/"E") -> tokens, or _DEP; ((segment, kind), signature) -> tokens
        self.cache: dict[object, object] = {("", "C"): (), ("", "E"): ()}
        #: segment -> tokens, for segments followed by a character (the per-line fast path)
        self.words: dict[str, tuple[str, ...]] = {"": ()}
        #: coco mode: segment -> its piece of the output line (may be "")
        self.pieces: dict[str, str] = {"": ""}
        self.pending: tuple[list[str], int] = ([], 0)

    def run(self) -> list[list[str] | str | None]:
        lines, out = self.lines, self.out
        blocked = _fast_blocked_re().search
        get = (self.pieces if self.coco else self.words).get
        resume = 0
        pos = 0
        last_line = len(lines) - 1
        for i, line in enumerate(lines):
            end = pos + len(line)
            if resume <= pos and i < last_line and not blocked(line):
                # Fast path: words separated by single spaces, no token can span a space, a
                # line break follows: the line is a few dictionary lookups (misses scanned).
                parts = line.split(" ")
                # per part: its piece of the line (coco: a str) or its tokens (a tuple); None: a miss
                hits: list[Any] = list(map(get, parts))
                got = self._fill(parts, hits, pos) if None in hits else hits
                if got is not None:
                    if self.coco:
                        out[i] = " ".join(filter(None, got))
                    else:
                        out[i] = [t for g in got for t in g]
                    pos = end + 1
                    continue
            if resume <= pos:
                self.line = i
            resume = self._general(max(pos, resume), end, resume)
            pos = end + 1
        return out

    def _fill(self, parts: list[str], got: list[Any], pos: int) -> list[Any] | None:
        """Look up or scan the segments the fast path missed; None if one cannot be cached."""
        off = pos
        for k, part in enumerate(parts):
            if got[k] is None:
                toks = self._segment_tokens(part, off, off + len(part))
                if toks is None:
                    return None
                if self.coco:
                    piece = self.pieces.get(part)
                    if piece is None:  # not storable (context-dependent, or rstrip matters)
                        if toks and toks[-1][-1:].isspace():
                            return None
                        piece = " ".join([t for t in toks if t not in PUNCTUATION])
                    got[k] = piece
                else:
                    got[k] = toks
            off += len(part) + 1
        return got

    def _tokens_of(self, line: int) -> list[str]:
        cur = self.out[line]
        if not isinstance(cur, list):
            cur = self.out[line] = []
        return cur

    def _finish(self, tokens: list[str]) -> tuple[str, ...]:
        """Tokens as printed: surrogate pairs joined, lowercased as Java does."""
        if self.astral:
            tokens = [_join_units(t) if _SURROGATE.search(t) else t for t in tokens]
        if self.lowercase:
            return tuple(java_lower(t) for t in tokens)
        return tuple(tokens)

    def _emit(self, tokens: list[str]) -> None:
        for tok in tokens:
            if tok == "\n":
                self.line += 1
            else:
                self._tokens_of(self.line).extend(self._finish([tok]))

    def _segment_tokens(self, seg: str, start: int, end: int) -> tuple[str, ...] | None:
        """The printed tokens of one segment, from the cache or scanned (and cached); None when
        its tokens cannot be cached (a token crosses its end, or an SGML tag may continue past
        it): the scan is then left in ``self.pending`` as (tokens, stop)."""
        text, cache = self.text, self.cache
        kind = "C" if end < len(text) else "E"
        key: object = (seg, kind)
        got = cache.get(key)
        if got is _DEP:
            key = (key, _context_signature(self.lexer, text, start, end))
            got = cache.get(key)
        if got is None:
            if seg.isalpha() and seg.isascii() and seg.lower() not in _SPLIT_WORDS:
                got = (seg.lower(),) if self.lowercase else (seg,)
                cache[key] = got
            else:
                tokens, stop, dep = self.lexer.lex(text, start, end)
                if stop != end or "\n" in tokens or ("<" in seg and self._sgml_open(start, end)):
                    self.pending = (tokens, stop)
                    return None
                got = self._finish(tokens)
                if dep and not _is_signature_key(key):
                    cache[key] = _DEP
                    key = (key, _context_signature(self.lexer, text, start, end))
                cache[key] = got
            if kind == "C" and not _is_signature_key(key):
                self.words[seg] = got
                if self.coco and not (got and got[-1][-1:].isspace()):
                    self.pieces[seg] = " ".join([t for t in got if t not in PUNCTUATION])
        return got  # type: ignore[return-value]

    def _sgml_open(self, start: int, end: int) -> bool:
        """Could an SGML tag that starts in ``text[start:end]`` continue past its end? (A tag
        can contain spaces: ``<a href="x">``.) Then the tokens depend on text further on
        and are not cached. A segment holds no space, so only an unfinished tag name or a
        ``<!...`` declaration without ``>`` can be continued."""
        unfinished = _SGML_UNFINISHED.fullmatch
        for m in _SGML_START.finditer(self.text, start, end):
            if unfinished(self.text, m.start(), end):
                return True
        return False

    def _general(self, a: int, b: int, resume: int) -> int:
        """Scan the segments of ``text[a:b]`` (within one line); returns the resume position
        (beyond ``b`` when a token crossed into the next line)."""
        text = self.text
        cur = self._tokens_of(self.line)
        for m in _segment_re().finditer(text, a, b):
            seg = m.group(1)
            if seg is None:  # pragma: no cover - no line break inside one line
                continue
            start, end = m.span(1)
            if start < resume:
                if end > resume:
                    tokens, resume, _ = self.lexer.lex(text, resume, end)
                    self._emit(tokens)
                    cur = self._tokens_of(self.line)
                continue
            got = self._segment_tokens(seg, start, end)
            if got is None:
                tokens, resume = self.pending
                self._emit(tokens)
                cur = self._tokens_of(self.line)
                continue
            cur.extend(got)
        return resume


def _is_signature_key(key: object) -> bool:
    """A signature key (the segment's tokens depend on context beyond the next character)."""
    return isinstance(key, tuple) and isinstance(key[0], tuple)


@functools.lru_cache(maxsize=1)
def _fast_blocked_re() -> re.Pattern[str]:
    """Lines the fast path must not split on single spaces: tabs and space-like characters
    (whitespace runs), or a space that a token can span (digit-space-digit, ``. .``)."""
    _, digits, _ = _unicode_classes()
    left = f"[{digits}\\u07c0-\\u07c9)]"
    right = f"[{digits}\\u07c0-\\u07c9]"
    return re.compile(f"[\\t\\u00a0\\u2000-\\u200a\\u3000]|{left} {right}|\\. \\.")


def _lex_lines(lines: list[str], *, lowercase: bool, astral: bool) -> list[list[str]]:
    """The printed tokens of each line, the lines being scanned as one text."""
    out = _Stream(lines, lowercase=lowercase, astral=astral, coco=False).run()
    return [toks if isinstance(toks, list) else [] for toks in out]


def _utf16_units(text: str) -> str:
    """Characters outside the BMP as surrogate pairs: the Java scanner reads UTF-16 units."""

    def pair(mt: re.Match[str]) -> str:
        cp = ord(mt.group()) - 0x10000
        return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))

    return _ASTRAL.sub(pair, text)


def _join_units(tok: str) -> str:
    return tok.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _prepare(captions: Sequence[str], where: str) -> tuple[list[str], bool, list[int]]:
    """The pipeline's temporary file: captions one per line, ``"\\n"`` inside a caption replaced
    by a space; other line breaks also become spaces (the divergence documented above)."""
    lines = list(captions)
    if not all(type(c) is str for c in lines):
        for i, cap in enumerate(lines):
            if not isinstance(cap, str):
                raise TypeError(f"ptb_tokenize: `{where}[{i}]` must be a str, got {type(cap).__name__}")
        lines = [str(c) for c in lines]
    text = "\n".join(lines)
    if text.count("\n") != len(lines) - 1:
        lines = [c.replace("\n", " ") for c in lines]
    foreign: list[int] = []
    if _FOREIGN_BREAKS.search(text):
        foreign = [i for i, c in enumerate(lines) if _FOREIGN_BREAKS.search(c)]
        lines = [_FOREIGN_BREAKS.sub(" ", c) for c in lines]
    astral = not text.isascii() and _ASTRAL.search(text) is not None
    if astral:
        lines = [c if c.isascii() else _utf16_units(c) for c in lines]
    return lines, astral, foreign


@paused_gc()
def ptb_tokens(captions: Sequence[str], *, lowercase: bool = True) -> list[list[str]]:
    """The tokens the Java ``PTBTokenizer -preserveLines [-lowerCase]`` prints for each caption,
    the captions being tokenized as one text, one per line (as ``pycocoevalcap`` does).

    >>> ptb_tokens(["A man (left) cannot go.", "Two dogs' \\"toys\\"..."])
    [['a', 'man', '-lrb-', 'left', '-rrb-', 'can', 'not', 'go', '.'], ['two', 'dogs', "'", '``', 'toys', "''", '...']]
    """
    if not captions:
        return []
    prepared, astral, _ = _prepare(captions, "captions")
    return _lex_lines(prepared, lowercase=lowercase, astral=astral)


@paused_gc()
def coco_tokenize(captions: Sequence[str], *, where: str = "captions") -> list[str]:
    """``pycocoevalcap``'s ``PTBTokenizer().tokenize`` output for these captions, in order:
    lowercased PTB tokens without :data:`PUNCTUATION`, joined by single spaces.

    All captions are tokenized together as one text (a caption's last token can depend on the
    first word of the next caption, as in the pipeline), so pass the references of all images
    in one call and the candidates in another, in image order.

    >>> coco_tokenize(["A dog's toy (red).", "It's 5:30 p.m. in the U.S."])
    ["a dog 's toy -lrb- red -rrb-", "it 's 5:30 p.m. in the u.s."]
    """
    if not captions:
        return []
    prepared, astral, foreign = _prepare(captions, where)
    if foreign:
        warnings.warn(
            f"ptb_tokenize: {len(foreign)} caption(s) (first: {where}[{foreign[0]}]) contain a line "
            "break other than '\\n' (\\r, \\x0b, \\x0c, U+2028, U+2029); they are read as spaces. "
            "pycocoevalcap's Java call would split those lines and misalign every later caption.",
            stacklevel=3,  # the caller of the decorated function
        )
    punct = PUNCTUATION
    out = _Stream(prepared, lowercase=True, astral=astral, coco=True).run()
    for i, toks in enumerate(out):
        if isinstance(toks, str):
            continue
        if not toks:
            out[i] = ""
            continue
        if toks[-1][-1:].isspace():  # the pipeline rstrips each output line
            toks[-1] = toks[-1].rstrip()
        out[i] = " ".join([t for t in toks if t not in punct])
    return out  # type: ignore[return-value]


@dataclass(frozen=True)
class PTBTokenizer:
    """The COCO caption pipeline's tokenizer as a small object: ``PTBTokenizer()(captions)``
    returns :func:`coco_tokenize` strings. ``name`` appears in CIDEr signatures."""

    name: str = "ptb"

    def __call__(self, captions: Sequence[str], *, where: str = "captions") -> list[str]:
        return coco_tokenize(captions, where=where)


# --------------------------------------------------------------------------------------------
# Lowercasing as Java's String.toLowerCase(Locale.ENGLISH) does it
# --------------------------------------------------------------------------------------------
# Only GREEK CAPITAL LETTER SIGMA differs from str.lower(): Java decides "final sigma" within
# the word that java.text.BreakIterator finds around it (ConditionalSpecialCasing.isFinalCased),
# where Python looks only across case-ignorable characters. So "ΑΣ-ΒΣ" lowercases to "ασ-βς"
# in Java (one word: a hyphen is mid-word punctuation there) and to "ας-βς" in Python. The word
# rules below are those of the JDK's rule-based word BreakIterator (longest match of: one
# character; an optional word, then numbers and words alternating; a number prefix; spaces),
# with non-spacing marks, enclosing marks and format characters attached to what precedes.


@functools.lru_cache(maxsize=1)
def _java_word_rules() -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """(a run of ignorable characters, the word-break rules) of the JDK's legacy rule-based
    word BreakIterator, as regular expressions."""

    def cls(pred) -> str:
        cps = [cp for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF and pred(chr(cp))]
        return "[" + _class_body(cps) + "]"

    cat = unicodedata.category
    kanji = "\\u3005\\u4e00-\\u9fa5\\uf900-\\ufa2d"
    kata = "\\u30a1-\\u30fa\\u30fd\\u30fe"
    hira = "\\u3041-\\u3094\\u309d\\u309e"
    diacrit = "\\u3099-\\u309c\\u30fb\\u30fc"
    cjk = re.compile(f"[{kanji}{kata}{hira}{diacrit}]")
    ign = cls(lambda c: cat(c) == "Cf" and c != "\u00ad") + "*"  # format characters: transparent
    enc = cls(lambda c: cat(c) in ("Mn", "Me"))
    marks = f"(?:{enc}|{ign[:-1]})*"  # enclosing marks (and ignorables) after a letter etc.

    def el(c: str) -> str:  # a character; ignorables after it are transparent
        return f"(?:{c}{ign})"

    let = f"(?:{cls(lambda c: (cat(c)[0] == 'L' or cat(c) == 'Mc') and not cjk.match(c))}{marks})"
    dgt = f"(?:{cls(lambda c: cat(c)[0] == 'N')}{marks})"
    mid_word = el("(?:" + cls(lambda c: cat(c) in ("Pd", "Pc")) + "|[\\u00ad\\u2027\"'.])")
    mid_num = el("[\"',\\u066b.]")
    pre_num = el("(?:" + cls(lambda c: cat(c) == "Sc" and c != "\u00a2") + "|[#.])")
    post_num = el("[%&\\u00a2\\u066a\\u2030\\u2031]")
    danda = el("[\\u0964\\u0965]")
    word = f"{let}+(?:{mid_word}{let}+)*{danda}?"
    number = f"{dgt}+(?:{mid_num}{dgt}+)*"
    rest = f"(?:{number}{word})*(?:{number}{post_num}?)?"
    base = cls(lambda c: cat(c) not in ("Mn", "Me", "Cc", "Cf", "Zl", "Zp"))
    rules = (
        f"[\\s\\S]{ign}",
        f"(?:{word})?{rest}",
        f"{pre_num}{rest}",
        "(?:(?:"
        + cls(lambda c: cat(c) == "Zs")
        + "|\\t)"
        + marks
        + ")*\\r?"
        + el("[\\n\\u000c\\u2028\\u2029]")
        + "?",
        el(f"[{kata}{diacrit}]") + "*",
        el(f"[{hira}{diacrit}]") + "*",
        el(f"[{kanji}]") + "*",
        f"{base}{ign}(?:{enc}{ign})+",
    )
    return re.compile(ign), tuple(re.compile(r) for r in rules)


def _java_word_boundaries(s: str) -> set[int]:
    """Boundaries of ``java.text.BreakIterator.getWordInstance()`` over ``s`` (each step: the
    longest match of any rule; format characters never start a piece)."""
    ignorable, rules = _java_word_rules()
    bounds = {0}
    pos = 0
    while pos < len(s):
        start = ignorable.match(s, pos).end()  # type: ignore[union-attr]
        best = start + 1 if start < len(s) else start
        for rule in rules:
            mm = rule.match(s, start)
            if mm is None or mm.end() <= start:
                continue
            end = mm.end()
            for e in range(len(s), end, -1):  # the longest match, not Python's first
                if rule.fullmatch(s, start, e):
                    end = e
                    break
            best = max(best, end)
        pos = best
        bounds.add(pos)
    return bounds


_JAVA_CASED_EXTRA = (
    (0x02B0, 0x02B8),
    (0x02C0, 0x02C1),
    (0x02E0, 0x02E4),
    (0x0345, 0x0345),
    (0x037A, 0x037A),
    (0x1D2C, 0x1D61),
    (0x2160, 0x217F),
    (0x24B6, 0x24E9),
)


def _java_cased(ch: str) -> bool:
    if unicodedata.category(ch) in ("Lu", "Ll", "Lt"):
        return True
    cp = ord(ch)
    return any(a <= cp <= b for a, b in _JAVA_CASED_EXTRA)


def java_lower(tok: str) -> str:
    """``tok.toLowerCase(Locale.ENGLISH)`` as Java 8-17 computes it.

    >>> java_lower("ΑΣ-ΒΣ"), "ΑΣ-ΒΣ".lower()
    ('ασ-βς', 'ας-βς')
    """
    if "\u03a3" not in tok:
        return tok.lower()
    bounds = _java_word_boundaries(tok)
    out = []
    for i, ch in enumerate(tok):
        if ch != "\u03a3":
            out.append(ch.lower())
            continue
        final = False
        j = i
        while j > 0 and j not in bounds:
            if _java_cased(tok[j - 1]):
                k = i + 1
                final = True
                while k < len(tok) and k not in bounds:
                    if _java_cased(tok[k]):
                        final = False
                        break
                    k += 1
                break
            j -= 1
        out.append("\u03c2" if final else "\u03c3")
    return "".join(out)
