"""The Snowball (Porter2) English stemmer as METEOR 1.5's jar runs it.

Reference: ``org.tartarus.snowball.ext.englishStemmer`` inside ``meteor-1.5.jar`` (as shipped
with pycocoevalcap 1.2), the Java class that Snowball generates from ``english.sbl``; the
algorithm is the one described at https://snowballstem.org/algorithms/english/stemmer.html
(the version of the jar: exceptional forms, ``gener``/``commun``/``arsen``, the apostrophe
suffixes inside step 1a).

Points where a straightforward reading of the description and the generated class differ,
and where this module follows the class:

* the marks ``p1``/``p2`` (starts of R1/R2) are set once, on the word after the prelude, and
  never moved; later steps that shorten or lengthen the word test their suffix against the
  original positions (``realization`` -> ``realiz``; NLTK's stemmer, which recomputes the
  regions as strings, keeps ``realize``);
* the word is a Java ``String``: lengths and positions count UTF-16 code units, so a
  character outside the BMP counts twice (``stem`` works on the surrogate pair);
* only ``aeiouy`` are vowels; an upper-case ``Y`` already in the word is a consonant that
  the postlude lowers when the prelude marked some ``y``.

No NLTK: importing it cost ~1.5 s of METEOR 1.5's import.
"""

from __future__ import annotations

import functools

__all__ = ["stem"]

_V = frozenset("aeiouy")
# short-syllable final consonant may not be w, x or (consonant) Y
_V_WXY = frozenset("aeiouywxY")
_VALID_LI = frozenset("cdeghkmnrt")

# exception1: whole words, tested before anything else (no prelude, no postlude)
_EXCEPTION1 = {
    "skis": "ski",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}
# exception2: whole words after step 1a; they stop the remaining steps
_EXCEPTION2 = frozenset({"inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"})
_R1_PREFIXES = ("gener", "commun", "arsen")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")

# Steps 2-4: suffix -> replacement; the longest suffix present is the only candidate (Snowball's
# ``among``), and its region test decides alone, with no fallback to a shorter suffix.
# ``None`` marks suffixes with an extra condition, handled in code.
_STEP2: dict[str, str | None] = {
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "abli": "able",
    "entli": "ent",
    "izer": "ize",
    "ization": "ize",
    "ational": "ate",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "aliti": "al",
    "alli": "al",
    "fulness": "ful",
    "ousli": "ous",
    "ousness": "ous",
    "iveness": "ive",
    "iviti": "ive",
    "biliti": "ble",
    "bli": "ble",
    "ogi": None,
    "fulli": "ful",
    "lessli": "less",
    "li": None,
}
_STEP3: dict[str, str | None] = {
    "tional": "tion",
    "ational": "ate",
    "alize": "al",
    "icate": "ic",
    "iciti": "ic",
    "ical": "ic",
    "ful": "",
    "ness": "",
    "ative": None,
}
_STEP4: dict[str, str | None] = {
    s: "" for s in "al ance ence er ic able ible ant ement ment ent ism ate iti ous ive ize".split()
}
_STEP4["ion"] = None


def _longest(word: str, table: dict[str, str | None], max_len: int) -> str | None:
    for k in range(min(max_len, len(word)), 0, -1):
        suffix = word[-k:]
        if suffix in table:
            return suffix
    return None


def _region_suffix(
    word: str, table: dict[str, str | None], max_len: int, region: int
) -> tuple[str, str] | None:
    """``(suffix, stem before it)`` for the longest suffix of ``word`` in ``table`` when it lies in
    the region starting at ``region``; ``None`` when there is none or it lies outside (Snowball
    tries no shorter suffix then)."""
    suffix = _longest(word, table, max_len)
    if suffix is None:
        return None
    base = word[: -len(suffix)]
    return (suffix, base) if region <= len(base) else None


_MAX2 = max(map(len, _STEP2))
_MAX3 = max(map(len, _STEP3))
_MAX4 = max(map(len, _STEP4))


def _shortv(w: str, k: int) -> bool:
    """Snowball's ``shortv`` looking back from position ``k``: a short syllable ends there."""
    if k >= 3 and w[k - 1] not in _V_WXY and w[k - 2] in _V and w[k - 3] not in _V:
        return True
    return k == 2 and w[1] not in _V and w[0] in _V


def _regions(w: str) -> tuple[int, int]:
    n = len(w)

    def after_vc(start: int) -> int:
        # Snowball ``gopast v gopast non-v``: just past the first consonant after a vowel
        i = start
        while i < n and w[i] not in _V:
            i += 1
        i += 1
        while i < n and w[i] in _V:
            i += 1
        return i + 1 if i < n else n

    for prefix in _R1_PREFIXES:
        if w.startswith(prefix):
            p1 = len(prefix)
            break
    else:
        p1 = after_vc(0)
    return p1, after_vc(p1) if p1 < n else n


def _step1a(w: str) -> str:
    for suffix in ("'s'", "'s", "'"):
        if w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("ied", "ies")):
        # "hop 2": at least two letters precede the suffix
        return w[:-3] + ("i" if len(w) >= 5 else "ie")
    if w.endswith(("us", "ss")):
        return w
    if w.endswith("s") and any(c in _V for c in w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, p1: int) -> str:
    for suffix in ("eedly", "ingly", "edly", "eed", "ing", "ed"):
        if w.endswith(suffix):
            break
    else:
        return w
    base = w[: -len(suffix)]
    if suffix[0] == "e" and suffix[1] == "e":
        return base + "ee" if p1 <= len(base) else w
    if not any(c in _V for c in base):
        return w
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if base.endswith(_DOUBLES):
        return base[:-1]
    if len(base) == p1 and _shortv(base, len(base)):
        return base + "e"
    return base


def _step1c(w: str) -> str:
    if len(w) >= 3 and w[-1] in "yY" and w[-2] not in _V:
        return w[:-1] + "i"
    return w


def _step2(w: str, p1: int) -> str:
    found = _region_suffix(w, _STEP2, _MAX2, p1)
    if found is None:
        return w
    suffix, base = found
    repl = _STEP2[suffix]
    if repl is not None:
        return base + repl
    if suffix == "ogi":
        return base + "og" if base.endswith("l") else w
    return base if base and base[-1] in _VALID_LI else w


def _step3(w: str, p1: int, p2: int) -> str:
    found = _region_suffix(w, _STEP3, _MAX3, p1)
    if found is None:
        return w
    suffix, base = found
    repl = _STEP3[suffix]
    if repl is not None:
        return base + repl
    return base if p2 <= len(base) else w


def _step4(w: str, p2: int) -> str:
    found = _region_suffix(w, _STEP4, _MAX4, p2)
    if found is None:
        return w
    suffix, base = found
    if _STEP4[suffix] is not None or base.endswith(("s", "t")):
        return base
    return w


def _step5(w: str, p1: int, p2: int) -> str:
    k = len(w) - 1
    if w.endswith("e"):
        if p2 <= k or (p1 <= k and not _shortv(w, k)):
            return w[:k]
    elif w.endswith("l") and p2 <= k and k >= 1 and w[k - 1] == "l":
        return w[:k]
    return w


def _stem_units(word: str) -> str:
    """The class's ``stem()`` on ``word`` given as UTF-16 code units."""
    if word in _EXCEPTION1:
        return _EXCEPTION1[word]
    if len(word) < 3:
        return word
    # prelude: an initial apostrophe goes; initial y and y after a vowel become consonants (Y)
    if word[0] == "'":
        word = word[1:]
    chars = list(word)
    y_found = False
    for i, c in enumerate(chars):
        if c == "y" and (i == 0 or chars[i - 1] in _V):
            chars[i] = "Y"
            y_found = True
    w = "".join(chars) if y_found else word
    p1, p2 = _regions(w)
    w = _step1a(w)
    if w not in _EXCEPTION2:
        w = _step1b(w, p1)
        w = _step1c(w)
        w = _step2(w, p1)
        w = _step3(w, p1, p2)
        w = _step4(w, p2)
        w = _step5(w, p1, p2)
    return w.replace("Y", "y") if y_found else w


def _utf16_units(word: str) -> str:
    out = []
    for c in word:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            out.append(chr(0xD800 + (o >> 10)) + chr(0xDC00 + (o & 0x3FF)))
        else:
            out.append(c)
    return "".join(out)


@functools.lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """Stem of ``word`` exactly as ``org.tartarus.snowball.ext.englishStemmer`` (meteor-1.5.jar)
    returns it (``setCurrent(word); stem(); getCurrent()``)."""
    if not isinstance(word, str):
        raise TypeError(f"stem: word must be str, got {type(word).__name__}")
    if word.isascii() or max(word) <= "\uffff":
        return _stem_units(word)
    out = _stem_units(_utf16_units(word))
    return out.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
