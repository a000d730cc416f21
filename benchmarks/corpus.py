"""Deterministic benchmark corpora built from text that ships with this machine.

Nothing is downloaded. The raw text comes from, in this order:

* the license texts under ``/usr/share/common-licenses`` (Debian ``base-files``);
* Python's own ``this`` module (the Zen of Python, stored ROT13-encoded);
* the docstrings of a fixed list of standard-library modules and of their public members;
* the long descriptions (``METADATA`` payloads) of a few installed distributions;
* for Cyrillic and CJK: the user-interface translations bundled with ``gradio``
  (``templates/frontend/assets/{ru,uk,zh-CN,zh-TW,ja,ko}-*.js``); when gradio is absent,
  pseudo-words drawn from the Cyrillic and CJK code-point ranges (flagged in ``notes``).

Every random choice goes through one ``random.Random(seed)``, so the same seed on the same
installation gives the same pairs; :func:`fingerprint` hashes the generated pairs so a result
file can say which corpus it measured. A different Python patch release or package version
can change the docstrings and so the corpus: compare fingerprints, not seeds.

Three corpora:

``qa_pairs``
    DocVQA-style extractive QA: a gold answer of 1-10 words cut from a sentence (or a number,
    date, amount), 1-3 gold alternatives per question, and a prediction that is exact, re-cased,
    re-spaced, mistyped, too long or too short, verbose, wrong or empty.
``ocr_pairs``
    Scene-text recognition: single words and short lines (Latin, digits, Cyrillic, CJK) with
    OCR-style character errors (confusable glyphs, drops, insertions), plus a few empty
    predictions and empty golds (the ICDAR 2019 rule scores those 0).
``structured_pairs``
    ANLS* document extraction: dicts of strings, numbers, lists and tuples of alternatives,
    lists of line-item dicts, flat lists of strings and a few classic QA items, each with a
    perturbed prediction (typos, missing and hallucinated keys, reordered or incomplete lists).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import io
import json
import os
import random
import re
import string
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "DEFAULT_SEED",
    "SourceText",
    "source_text",
    "qa_pairs",
    "ocr_pairs",
    "structured_pairs",
    "fingerprint",
    "read_back",
]

DEFAULT_SEED = 20240229

LICENSE_DIR = "/usr/share/common-licenses"
STDLIB_MODULES = (
    "argparse",
    "asyncio",
    "collections",
    "csv",
    "datetime",
    "decimal",
    "difflib",
    "email",
    "fractions",
    "functools",
    "heapq",
    "http.client",
    "inspect",
    "itertools",
    "json",
    "logging",
    "os",
    "pathlib",
    "pickle",
    "random",
    "re",
    "shutil",
    "socket",
    "sqlite3",
    "statistics",
    "string",
    "subprocess",
    "tarfile",
    "textwrap",
    "threading",
    "typing",
    "unittest",
    "urllib.request",
    "uuid",
    "zipfile",
)
DISTRIBUTIONS = ("numpy", "scipy", "rapidfuzz", "evaluate", "datasets", "pandas", "requests", "rich")
CYRILLIC_LOCALES = ("ru", "uk")
CJK_LOCALES = ("zh-CN", "zh-TW", "ja", "ko")


# --------------------------------------------------------------------------------------------
# Source text
# --------------------------------------------------------------------------------------------


@dataclass
class SourceText:
    """Cleaned raw material: English sentences (as token lists), a word list, Cyrillic and CJK
    phrases, where they came from and a hash of all of it."""

    sentences: list[list[str]]
    words: list[str]
    cyrillic: list[str]
    cjk: list[str]
    sources: list[str]
    notes: list[str] = field(default_factory=list)
    digest: str = ""


_TOKEN_STRIP = "\"'()[]{}<>*_`#=|~^\\;:,.!?"
_GOOD_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9'&%$/.,:-]*$")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")
_NOISE_LINE = re.compile(r"://|<|>|`|\||\[!|^\s*[-=*#~^]{3,}|^\s*\.\.|^\s*:|^\s*>>>|^\s*\$ ")
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_CJK = re.compile(r"[\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7AF]")
_JS_STRING = re.compile(r"[:=,(]`([^`]{1,400})`")


def _license_texts() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not os.path.isdir(LICENSE_DIR):
        return out
    seen: set[str] = set()
    for name in sorted(os.listdir(LICENSE_DIR)):
        path = os.path.realpath(os.path.join(LICENSE_DIR, name))
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        with open(path, encoding="utf-8", errors="replace") as fh:
            out.append((f"license:{os.path.basename(path)}", fh.read()))
    return out


def _zen_of_python() -> list[tuple[str, str]]:
    import codecs

    with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints the Zen
        import this
    return [("python:this", codecs.decode(this.s, "rot13"))]


def _docstrings() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for modname in STDLIB_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        parts = [inspect.getdoc(mod) or ""]
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            parts.append(inspect.getdoc(obj) or "")
        out.append((f"docstrings:{modname}", "\n\n".join(p for p in parts if p)))
    return out


def _readmes() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for dist in DISTRIBUTIONS:
        try:
            meta = importlib.metadata.metadata(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        body = meta.get_payload() or meta.get("Description") or ""  # type: ignore[attr-defined]
        if body:
            out.append((f"metadata:{dist}", body))
    return out


def _gradio_strings(locales: tuple[str, ...]) -> tuple[list[str], list[str]]:
    spec = importlib.util.find_spec("gradio")
    if spec is None or not spec.submodule_search_locations:
        return [], []
    assets = os.path.join(list(spec.submodule_search_locations)[0], "templates", "frontend", "assets")
    strings: list[str] = []
    used: list[str] = []
    for loc in locales:
        for path in sorted(glob.glob(os.path.join(assets, f"{loc}-*.js"))):
            with open(path, encoding="utf-8", errors="replace") as fh:
                strings.extend(_JS_STRING.findall(fh.read()))
            used.append(f"gradio:{os.path.basename(path)}")
    return strings, used


def _english_sentences(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if not _NOISE_LINE.search(ln)]
    flat = " ".join(" ".join(lines).split())
    out: list[list[str]] = []
    for sentence in _SENTENCE_SPLIT.split(flat):
        tokens = [t.strip(_TOKEN_STRIP) for t in sentence.split()]
        tokens = [t for t in tokens if t]
        if not 4 <= len(tokens) <= 60:
            continue
        if any(not _GOOD_TOKEN.match(t) for t in tokens):
            continue
        if sum(t.isalpha() for t in tokens) < 0.7 * len(tokens):
            continue
        out.append(tokens)
    return out


def _phrases(strings: list[str], script: re.Pattern[str]) -> list[str]:
    """Short phrases (up to 24 characters) and words of one script, split on punctuation."""
    out: list[str] = []
    for s in strings:
        if not script.search(s) or re.search(r"[{}<>=_$\\]", s):
            continue
        for piece in re.split(r"[,.!?:;()（）、。，！？：；「」『』\"'«»…/]+", s):
            piece = " ".join(piece.split())
            if not script.search(piece) or re.search(r"[A-Za-z]", piece):
                continue
            if len(piece) <= 24:
                out.append(piece)
            out.extend(w for w in piece.split() if len(w) >= 2 and script.search(w))
    return sorted(set(out))


def _pseudo_words(rng: random.Random, lo: int, hi: int, count: int, min_len: int, max_len: int) -> list[str]:
    return sorted(
        {
            "".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(min_len, max_len)))
            for _ in range(count)
        }
    )


@lru_cache(maxsize=1)
def source_text() -> SourceText:
    """Collect and clean the raw text (cached: the same object for the whole process)."""
    docs = _license_texts() + _zen_of_python() + _docstrings() + _readmes()
    sentences: list[list[str]] = []
    for _, text in docs:
        sentences.extend(_english_sentences(text))
    words = sorted({t for s in sentences for t in s if t.isalpha() and 2 <= len(t) <= 16})
    sources = [name for name, _ in docs]
    notes: list[str] = []

    cyr_strings, cyr_used = _gradio_strings(CYRILLIC_LOCALES)
    cjk_strings, cjk_used = _gradio_strings(CJK_LOCALES)
    cyrillic = _phrases(cyr_strings, _CYRILLIC)
    cjk = _phrases(cjk_strings, _CJK)
    fallback = random.Random(7)
    if len(cyrillic) < 50:
        cyrillic = _pseudo_words(fallback, 0x0430, 0x044F, 2000, 2, 10)
        notes.append("no gradio locale files: Cyrillic words are random letter strings")
    if len(cjk) < 50:
        cjk = _pseudo_words(fallback, 0x4E00, 0x9FFF, 2000, 1, 6)
        notes.append("no gradio locale files: CJK words are random ideograph strings")
    sources += cyr_used + cjk_used
    if not sentences:
        raise RuntimeError("no English text found (no licenses, docstrings or package metadata)")

    h = hashlib.sha256()
    for s in sentences:
        h.update(" ".join(s).encode())
        h.update(b"\n")
    for s in cyrillic + cjk:
        h.update(s.encode())
        h.update(b"\n")
    return SourceText(sentences, words, cyrillic, cjk, sources, notes, h.hexdigest()[:16])


# --------------------------------------------------------------------------------------------
# Perturbations
# --------------------------------------------------------------------------------------------

_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS: dict[str, str] = {}
for _r, _row in enumerate(_KEYBOARD_ROWS):
    for _c, _ch in enumerate(_row):
        near = []
        for dr in (-1, 0, 1):
            rr = _r + dr
            if 0 <= rr < len(_KEYBOARD_ROWS):
                for dc in (-1, 0, 1):
                    cc = _c + dc
                    if (dr or dc) and 0 <= cc < len(_KEYBOARD_ROWS[rr]):
                        near.append(_KEYBOARD_ROWS[rr][cc])
        _NEIGHBOURS[_ch] = "".join(near)

# OCR glyph confusions (one direction each; both directions are listed where common).
_OCR_CONFUSIONS: dict[str, tuple[str, ...]] = {
    "l": ("1", "I", "i"),
    "I": ("l", "1"),
    "1": ("l", "I", "7"),
    "O": ("0", "D", "Q"),
    "0": ("O", "o"),
    "o": ("0", "a", "c"),
    "m": ("rn", "nn"),
    "n": ("h", "r"),
    "h": ("b", "n"),
    "e": ("c", "o"),
    "c": ("e", "o"),
    "a": ("o", "e"),
    "S": ("5", "$"),
    "5": ("S",),
    "B": ("8", "E"),
    "8": ("B",),
    "g": ("q", "9"),
    "q": ("g",),
    "u": ("v", "n"),
    "v": ("u", "y"),
    "t": ("f", "l"),
    "f": ("t",),
    "Z": ("2",),
    "2": ("Z",),
    "G": ("6", "C"),
    "6": ("G", "b"),
    "E": ("F",),
    "P": ("R", "F"),
    "rn": ("m",),
    "cl": ("d",),
    "vv": ("w",),
    # Cyrillic: Latin homoglyphs and close letters
    "а": ("a", "о"),
    "е": ("e", "ё"),
    "о": ("o", "0"),
    "р": ("p",),
    "с": ("c", "е"),
    "х": ("x", "ж"),
    "у": ("y", "ч"),
    "к": ("k", "н"),
    "и": ("н", "й"),
    "н": ("и", "п"),
    "п": ("л", "н"),
    "ш": ("щ", "w"),
    "т": ("г",),
    "в": ("б", "з"),
    "з": ("э", "3"),
    "Н": ("H",),
    "К": ("K",),
    "М": ("M",),
    "Т": ("T",),
}


def _typo(rng: random.Random, text: str, edits: int) -> str:
    """Keyboard typos: neighbour substitution, deletion, insertion, transposition, doubling."""
    chars = list(text)
    for _ in range(edits):
        if not chars:
            chars.append(rng.choice(string.ascii_lowercase))
            continue
        i = rng.randrange(len(chars))
        op = rng.random()
        ch = chars[i]
        if op < 0.40:
            near = _NEIGHBOURS.get(ch.lower())
            new = rng.choice(near) if near else rng.choice(string.ascii_lowercase)
            chars[i] = new.upper() if ch.isupper() else new
        elif op < 0.62:
            del chars[i]
        elif op < 0.80:
            chars.insert(i, rng.choice(_NEIGHBOURS.get(ch.lower()) or string.ascii_lowercase))
        elif op < 0.92 and i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars.insert(i, ch)
    return "".join(chars)


def _ocr_errors(rng: random.Random, text: str, edits: int, pool: str) -> str:
    """OCR-style errors: confusable glyphs first, else a drop, insertion or random glyph."""
    for _ in range(edits):
        spots = [(i, k) for k in _OCR_CONFUSIONS for i in range(len(text)) if text.startswith(k, i)]
        op = rng.random()
        if spots and op < 0.6:
            i, k = rng.choice(spots)
            text = text[:i] + rng.choice(_OCR_CONFUSIONS[k]) + text[i + len(k) :]
        elif text and op < 0.8:
            i = rng.randrange(len(text))
            text = text[:i] + text[i + 1 :]
        elif op < 0.9:
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(pool) + text[i:]
        elif text:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(pool) + text[i + 1 :]
    return text


def _recase(rng: random.Random, text: str) -> str:
    style = rng.random()
    if style < 0.35:
        return text.lower()
    if style < 0.65:
        return text.upper()
    if style < 0.9:
        return text.title()
    return text.swapcase()


def _respace(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    style = rng.random()
    if style < 0.3:
        return " " * rng.randint(1, 3) + text + " " * rng.randint(0, 3)
    if style < 0.55:
        return text + rng.choice((" ", "  ", "\n", "\t", " \n"))
    if style < 0.8 and len(words) > 1:
        i = rng.randrange(1, len(words))
        return " ".join(words[:i]) + rng.choice(("  ", "   ", "\t", "\n", " \t ")) + " ".join(words[i:])
    return "  ".join(words) + " "


# --------------------------------------------------------------------------------------------
# QA pairs
# --------------------------------------------------------------------------------------------

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_ABBREV = {m: m[:3] for m in _MONTHS}
_ARTICLES = ("the", "a", "an", "The", "A", "An")


def _number_answer(rng: random.Random) -> tuple[str, list[str]]:
    """A numeric gold answer and its accepted alternative spellings."""
    kind = rng.random()
    if kind < 0.3:
        value = rng.randint(1, 999_999) / (100 if rng.random() < 0.6 else 1)
        plain = f"{value:.2f}" if value != int(value) else str(int(value))
        grouped = f"{value:,.2f}" if value != int(value) else f"{int(value):,}"
        cur = rng.choice(("$", "€", "£", "Rs. ", ""))
        return cur + grouped, [grouped, cur + plain, plain]
    if kind < 0.55:
        y, m, d = rng.randint(1950, 2024), rng.randint(1, 12), rng.randint(1, 28)
        long_form = f"{_MONTHS[m - 1]} {d}, {y}"
        return long_form, [
            f"{m:02d}/{d:02d}/{y}",
            f"{d} {_ABBREV[_MONTHS[m - 1]]} {y}",
            f"{_MONTHS[m - 1]} {d} {y}",
        ]
    if kind < 0.7:
        pct = round(rng.uniform(0.1, 99.9), rng.choice((0, 1, 2)))
        return f"{pct}%", [f"{pct} %", f"{pct} percent", str(pct)]
    if kind < 0.85:
        code = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(rng.randint(4, 10)))
        return code, [code.lower(), "-".join((code[:3], code[3:]))]
    n = rng.randint(1, 5000)
    return str(n), [f"{n:,}", f"{n}.00"]


def _span(rng: random.Random, src: SourceText) -> tuple[list[str], list[str], int]:
    """A 1-10 word span of a random sentence: (span, sentence, start)."""
    sentence = rng.choice(src.sentences)
    length = min(len(sentence), rng.choices(range(1, 11), weights=(24, 20, 15, 11, 8, 7, 5, 4, 3, 3))[0])
    start = rng.randrange(len(sentence) - length + 1)
    return sentence[start : start + length], sentence, start


def _text_alternatives(rng: random.Random, span: list[str], sentence: list[str], start: int) -> list[str]:
    """Plausible other phrasings of a text answer (what annotators disagree on)."""
    gold = " ".join(span)
    alts: list[str] = []
    if span and span[0] in _ARTICLES and len(span) > 1:
        alts.append(" ".join(span[1:]))
    if start > 0 and sentence[start - 1] in _ARTICLES:
        alts.append(sentence[start - 1] + " " + gold)
    end = start + len(span)
    if end < len(sentence) and len(span) < 10:
        alts.append(gold + " " + sentence[end])
    if len(span) > 2:
        alts.append(" ".join(span[:-1]))
    alts.append(gold.lower() if gold != gold.lower() else gold.title())
    alts.append(gold + rng.choice((".", ",", ")", " :")))
    return alts


def _pick_golds(rng: random.Random, first: str, alts: list[str]) -> list[str]:
    count = rng.choices((1, 2, 3), weights=(55, 30, 15))[0]
    golds = [first]
    pool = [a for a in dict.fromkeys(alts) if a and a != first]
    rng.shuffle(pool)
    golds.extend(pool[: count - 1])
    return golds


_QA_KINDS = (
    ("exact", 27),
    ("case", 10),
    ("whitespace", 7),
    ("typo", 18),
    ("case+typo", 4),
    ("partial", 10),
    ("verbose", 5),
    ("wrong", 14),
    ("empty", 5),
)
_VERBOSE = ("The answer is {}", "{} (see page 2)", "It is {}.", "Answer: {}", "{}, according to the document")


def _qa_prediction(rng: random.Random, kind: str, golds: list[str], src: SourceText) -> str:
    target = rng.choice(golds)
    if kind == "exact":
        return target
    if kind == "case":
        return _recase(rng, target)
    if kind == "whitespace":
        return _respace(rng, target)
    if kind == "typo":
        return _typo(rng, target, rng.choices((1, 2, 3), weights=(6, 3, 1))[0])
    if kind == "case+typo":
        return _typo(rng, _recase(rng, target), 1)
    if kind == "partial":
        words = target.split()
        if len(words) > 1 and rng.random() < 0.6:
            keep = rng.randint(1, len(words) - 1)
            return " ".join(words[:keep] if rng.random() < 0.5 else words[-keep:])
        extra, _, _ = _span(rng, src)
        return target + " " + " ".join(extra[: rng.randint(1, 3)])
    if kind == "verbose":
        return rng.choice(_VERBOSE).format(target)
    if kind == "wrong":
        if rng.random() < 0.2:
            return _number_answer(rng)[0]
        return " ".join(_span(rng, src)[0])
    return rng.choice(("", "", " ", "\n"))  # empty


def qa_pairs(n: int, seed: int = DEFAULT_SEED) -> tuple[list[str], list[list[str]], list[str]]:
    """``n`` DocVQA-style questions: (predictions, gold alternatives, prediction kind)."""
    src = source_text()
    rng = random.Random(seed)
    kinds_names = [k for k, _ in _QA_KINDS]
    kinds_weights = [w for _, w in _QA_KINDS]
    preds: list[str] = []
    refs: list[list[str]] = []
    kinds: list[str] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.16:
            first, alts = _number_answer(rng)
        elif r < 0.19:
            # a few non-Latin answers (multilingual documents); exercises the upper() length path
            first = rng.choice(src.cyrillic if rng.random() < 0.6 else src.cjk)
            alts = [first.lower(), first.upper()] + ([first.replace("ё", "е")] if "ё" in first else [])
        else:
            span, sentence, start = _span(rng, src)
            first = " ".join(span)
            alts = _text_alternatives(rng, span, sentence, start)
        golds = _pick_golds(rng, first, alts)
        kind = rng.choices(kinds_names, weights=kinds_weights)[0]
        preds.append(_qa_prediction(rng, kind, golds, src))
        refs.append(golds)
        kinds.append(kind)
    return preds, refs, kinds


# --------------------------------------------------------------------------------------------
# OCR pairs
# --------------------------------------------------------------------------------------------

_LATIN_POOL = string.ascii_letters + string.digits + ".-'"


def _ocr_gold(rng: random.Random, src: SourceText) -> tuple[str, str, str]:
    """(gold, script, glyph pool for errors)."""
    r = rng.random()
    if r < 0.55:
        word = rng.choice(src.words)
        style = rng.random()
        word = word.upper() if style < 0.3 else word.title() if style < 0.5 else word
        return word, "latin", _LATIN_POOL
    if r < 0.68:
        words = rng.choice(src.sentences)
        k = rng.randint(2, min(4, len(words)))
        i = rng.randrange(len(words) - k + 1)
        line = " ".join(words[i : i + k])
        return (line.upper() if rng.random() < 0.3 else line), "latin-line", _LATIN_POOL
    if r < 0.78:
        form = rng.random()
        if form < 0.4:
            gold = str(rng.randint(0, 99999))
        elif form < 0.7:
            gold = f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d}"
        else:
            gold = "".join(
                rng.choice(string.ascii_uppercase + string.digits) for _ in range(rng.randint(3, 8))
            )
        return gold, "digits", string.digits + string.ascii_uppercase
    if r < 0.89:
        gold = rng.choice(src.cyrillic)
        if rng.random() < 0.25:
            gold = gold.upper()
        return gold, "cyrillic", "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ"
    phrase = rng.choice(src.cjk)
    if len(phrase) > 8:
        k = rng.randint(2, 8)
        i = rng.randrange(len(phrase) - k + 1)
        phrase = phrase[i : i + k]
    pool = "".join(sorted({c for c in phrase}))
    return phrase, "cjk", pool + rng.choice(src.cjk)


_OCR_KINDS = (
    ("exact", 42),
    ("1-error", 24),
    ("2-3-errors", 14),
    ("case", 5),
    ("truncated", 5),
    ("wrong", 5),
    ("empty-pred", 3),
    ("empty-gold", 1),
    ("both-empty", 1),
)


def ocr_pairs(n: int, seed: int = DEFAULT_SEED) -> tuple[list[str], list[str], list[str]]:
    """``n`` recognition results: (predictions, gold strings, kind as ``script/error``)."""
    src = source_text()
    rng = random.Random(seed + 1)
    names = [k for k, _ in _OCR_KINDS]
    weights = [w for _, w in _OCR_KINDS]
    preds: list[str] = []
    golds: list[str] = []
    kinds: list[str] = []
    for _ in range(n):
        gold, script, pool = _ocr_gold(rng, src)
        kind = rng.choices(names, weights=weights)[0]
        if kind == "exact":
            pred = gold
        elif kind == "1-error":
            pred = _ocr_errors(rng, gold, 1, pool)
        elif kind == "2-3-errors":
            pred = _ocr_errors(rng, gold, rng.randint(2, 3), pool)
        elif kind == "case":
            pred = _recase(rng, gold)
        elif kind == "truncated":
            cut = rng.randint(1, max(1, len(gold) - 1))
            pred = gold[:cut] if rng.random() < 0.6 else gold[-cut:]
        elif kind == "wrong":
            pred = _ocr_gold(rng, src)[0]
        elif kind == "empty-pred":
            pred = ""
        elif kind == "empty-gold":
            pred, gold = gold, ""
        else:
            pred = gold = ""
        preds.append(pred)
        golds.append(gold)
        kinds.append(f"{script}/{kind}")
    return preds, golds, kinds


def ocr_line_pairs(n: int, seed: int = DEFAULT_SEED) -> tuple[list[str], list[str], list[str]]:
    """``n`` line-level recognition results (text lines of 25-60 characters, as in document or
    handwriting line recognition): (predictions, gold lines, error kind)."""
    src = source_text()
    rng = random.Random(seed + 3)
    names = ("exact", "1-error", "2-3-errors", "4-8-errors", "case")
    weights = (25, 30, 25, 15, 5)
    preds: list[str] = []
    golds: list[str] = []
    kinds: list[str] = []
    while len(golds) < n:
        words = rng.choice(src.sentences)
        line = " ".join(words)
        if len(line) < 25:
            continue
        start = rng.randrange(max(1, len(words) // 3))
        line = " ".join(words[start:])[: rng.randint(25, 60)].strip()
        kind = rng.choices(names, weights=weights)[0]
        if kind == "exact":
            pred = line
        elif kind == "case":
            pred = _recase(rng, line)
        else:
            edits = {"1-error": 1, "2-3-errors": rng.randint(2, 3), "4-8-errors": rng.randint(4, 8)}[kind]
            pred = _ocr_errors(rng, line, edits, _LATIN_POOL)
        preds.append(pred)
        golds.append(line)
        kinds.append(kind)
    return preds, golds, kinds


# --------------------------------------------------------------------------------------------
# ANLS* structured pairs
# --------------------------------------------------------------------------------------------

_FIELDS = (
    "invoice_number",
    "invoice_date",
    "due_date",
    "vendor_name",
    "vendor_address",
    "customer_name",
    "customer_address",
    "total_amount",
    "tax_amount",
    "currency",
    "payment_terms",
    "po_number",
    "phone",
    "email",
    "iban",
    "order_id",
    "title",
    "author",
    "department",
    "signature",
)
_LIST_FIELDS = ("items", "tags", "authors", "keywords", "account_numbers", "references")


def _leaf(rng: random.Random, src: SourceText) -> str:
    if rng.random() < 0.35:
        return _number_answer(rng)[0]
    return " ".join(_span(rng, src)[0][: rng.randint(1, 6)])


def _perturb_leaf(rng: random.Random, value: Any, src: SourceText) -> Any:
    if not isinstance(value, str):
        r = rng.random()
        return value if r < 0.7 else str(value) if r < 0.85 else value + 1
    r = rng.random()
    if r < 0.45:
        return value
    if r < 0.6:
        return _recase(rng, value) if rng.random() < 0.5 else _respace(rng, value)
    if r < 0.82:
        return _typo(rng, value, rng.randint(1, 2))
    if r < 0.94:
        return _leaf(rng, src)
    return rng.choice(("", None))


def _perturb_list(rng: random.Random, items: list[Any], perturb) -> list[Any]:
    out = [perturb(x) for x in items]
    r = rng.random()
    if r < 0.35:
        rng.shuffle(out)
    elif r < 0.55 and out:
        del out[rng.randrange(len(out))]
    elif r < 0.7:
        out.insert(rng.randrange(len(out) + 1), perturb(items[0]) if items else "extra")
    return out


def _gold_structure(rng: random.Random, src: SourceText) -> Any:
    r = rng.random()
    if r < 0.2:  # flat list of strings (e.g. all dates in a document)
        return [_leaf(rng, src) for _ in range(rng.randint(1, 7))]
    if r < 0.27:  # classic QA: list of alternatives vs one predicted string
        return [_leaf(rng, src) for _ in range(rng.randint(1, 3))]
    doc: dict[str, Any] = {}
    for key in rng.sample(_FIELDS, rng.randint(3, 9)):
        kind = rng.random()
        if kind < 0.1:
            doc[key] = None
        elif kind < 0.22:
            first, alts = _number_answer(rng)
            doc[key] = (first, rng.choice(alts))
        elif kind < 0.3:
            doc[key] = rng.randint(1, 500)
        else:
            doc[key] = _leaf(rng, src)
    for key in rng.sample(_LIST_FIELDS, rng.choice((0, 1, 1, 2))):
        doc[key] = [_leaf(rng, src) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.3:
        doc["line_items"] = [
            {"description": _leaf(rng, src), "quantity": rng.randint(1, 20), "price": _number_answer(rng)[0]}
            for _ in range(rng.randint(1, 5))
        ]
    return doc


def _predict_structure(rng: random.Random, gold: Any, src: SourceText, classic: bool) -> Any:
    if classic:
        return _perturb_leaf(rng, rng.choice(gold), src) or ""
    if isinstance(gold, tuple):
        return _perturb_leaf(rng, rng.choice(gold), src)
    if isinstance(gold, list):
        return _perturb_list(rng, gold, lambda x: _predict_structure(rng, x, src, False))
    if isinstance(gold, dict):
        out: dict[str, Any] = {}
        for key, value in gold.items():
            if rng.random() < 0.08:
                continue  # missing key
            out[key] = _predict_structure(rng, value, src, False)
        if rng.random() < 0.12:
            out[rng.choice(_FIELDS + ("notes", "comment"))] = rng.choice((None, _leaf(rng, src)))
        return out
    if gold is None:
        return rng.choice((None, None, None, "", _leaf(rng, src)))
    return _perturb_leaf(rng, gold, src)


def structured_pairs(n: int, seed: int = DEFAULT_SEED) -> tuple[list[Any], list[Any], list[str]]:
    """``n`` ANLS* samples: (predictions, gold structures, kind)."""
    src = source_text()
    rng = random.Random(seed + 2)
    preds: list[Any] = []
    golds: list[Any] = []
    kinds: list[str] = []
    for _ in range(n):
        r = rng.random()
        gold = _gold_structure(rng, src) if r >= 0.07 else [_leaf(rng, src) for _ in range(rng.randint(1, 3))]
        classic = r < 0.07
        pred = _predict_structure(rng, gold, src, classic)
        if classic and not isinstance(pred, str):
            pred = ""
        preds.append(pred)
        golds.append(gold)
        kinds.append("classic-qa" if classic else type(gold).__name__)
    return preds, golds, kinds


# --------------------------------------------------------------------------------------------


def fingerprint(*columns: list[Any]) -> str:
    """A short hash of generated columns (``repr`` of each item, in order)."""
    h = hashlib.sha256()
    for column in columns:
        for item in column:
            h.update(repr(item).encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
        h.update(b"\x1e")
    return h.hexdigest()[:16]


def read_back(*columns: list[Any]) -> tuple[list[Any], ...]:
    """The columns as a scorer gets them from a submission file: written to JSON and parsed.

    Why: the generators build each string between many temporary objects, so the strings end
    up scattered over the heap and every read of one is a cache miss; ``json.loads`` allocates
    a column's strings one after another, as reading a predictions file does. Only for
    columns of strings and lists of strings (JSON has no tuples, which ANLS* reads as
    alternatives). The values are unchanged (checked).
    """
    out = tuple(json.loads(json.dumps(list(columns), ensure_ascii=False)))
    if list(out) != list(columns):
        raise ValueError("read_back: the columns do not survive a JSON round trip")
    return out


if __name__ == "__main__":  # a peek at the corpora
    src = source_text()
    print(
        f"sources: {len(src.sources)}; sentences {len(src.sentences)}, words {len(src.words)}, "
        f"cyrillic {len(src.cyrillic)}, cjk {len(src.cjk)}; digest {src.digest}; notes {src.notes}"
    )
    rng_demo = random.Random(0)
    for name, fn in (("qa", qa_pairs), ("ocr", ocr_pairs), ("structured", structured_pairs)):
        p, r, k = fn(2000)
        print(f"\n== {name}: fingerprint {fingerprint(p, r)}")
        for i in rng_demo.sample(range(2000), 12):
            print(f"  [{k[i]}] pred={p[i]!r}\n      gold={r[i]!r}")
