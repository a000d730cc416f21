"""Deterministic generators of realistic answer pairs for the parity sweeps.

Everything is driven by a seeded :class:`random.Random`; nothing iterates a ``set`` or
depends on hash order, so a seed always gives the same data.

* :func:`gold_answer` / :func:`mutate` / :func:`string_questions`: gold answers (words,
  numbers, dates, names, amounts, mixed Unicode: accents, Cyrillic, Greek, CJK, emoji,
  combining marks, ``"ß"``, ligatures, Turkish ``"İ"``, full-width forms, non-ASCII
  whitespace) and predictions derived from them (typos, case changes, whitespace damage,
  truncation, empty, unrelated, exact copies), 1-5 gold alternatives per question.
* :func:`star_pairs`: ANLS* (gold, prediction) structures: nested dicts, lists, tuples
  (gold alternatives), None, numbers and bools, with partial matches, missing keys,
  hallucinated keys (some with None-like values) and empty containers.
* :func:`dude_questions`: DUDE questions with answer types extractive, abstractive,
  not-answerable, list/extractive, list/abstractive.
* :func:`ned_items`: text-recognition (prediction, golds) pairs.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = [
    "WORDS",
    "UNICODE_WORDS",
    "TRICKY_CHARS",
    "WHITESPACE",
    "gold_answer",
    "mutate",
    "string_questions",
    "star_pairs",
    "dude_questions",
    "ned_items",
]

WORDS = (
    "the total amount due invoice date number page report annual revenue million company "
    "coca cola hello world thomas moore table figure chart percent year quarter name address "
    "street city state phone email account balance payment tax rate net gross profit loss "
    "chapter section appendix manager director board meeting minutes approved signed by on of "
    "and for to in a an is was at with from yes no none n/a see above below"
).split()

NAMES = [
    "John Smith",
    "Mary O'Neil",
    "Dr. A. B. Jones",
    "McDonald's",
    "AT&T",
    "Jean-Luc Picard",
    "José Martínez",
    "Zoë Saldaña",
    "Søren Kierkegaard",
    "Nguyễn Văn An",
    "Łukasz Żółw",
    "Ólafur Arnalds",
    "İlkay Gündoğan",
    "Françoise Sagan",
    "Дмитрий Шостакович",
    "Σωκράτης",
    "王小明",
    "山田太郎",
    "김민준",
    "Björk Guðmundsdóttir",
]

UNICODE_WORDS = [
    "café",
    "naïve",
    "résumé",
    "Straße",
    "Fuß",
    "GROẞ",
    "ﬁnance",
    "ﬂour",
    "eﬀort",
    "oﬃce",
    "İzmir",
    "ISTANBUL",
    "ıi",
    "Москва",
    "хор",
    "Хор",
    "ЁЛКА",
    "ΣΟΦΙΑ",
    "σοφίας",
    "ΐ",
    "東京",
    "北京大学",
    "株式会社",
    "合計",
    "ｔｏｔａｌ",
    "ＡＢＣ",
    "１２３４",
    "😀",
    "👍🏽",
    "🇩🇪",
    "e\u0301te\u0301",
    "n\u0303o",
    "ǅemal",
    "ŉ",
    "ǰ",
    "ℌilbert",
    "Ⅻ",
    "№5",
    "½",
    "°C",
    "µm",
    "Å",
    "Ω",
    "ﬆ",
    "ǲ",
]

#: single characters that change length or identity under upper()/lower()/NFKC, or look alike
TRICKY_CHARS = list("ßﬁﬂﬃİıΐǰŉǅℌⅫ½ＡａＢ１ΣσςЁёé") + [
    "e\u0301",
    "\u0301",
    "\u0303",
    "\u200b",
    "\u00ad",
    "😀",
    "👍",
    "\U0001f3fd",
]

#: str.split() separators, ASCII and not
WHITESPACE = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u2003", "\u2009", "\u202f", "\x1c", "\x85"]

MONTHS = [
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
]
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-/'$%()"


def _number(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return str(rng.randrange(0, 100))
    if kind == 1:
        return str(rng.randrange(100, 10**7))
    if kind == 2:
        return f"{rng.randrange(0, 10000)}.{rng.randrange(0, 100):02d}"
    if kind == 3:
        return f"${rng.randrange(1, 10**6):,}.{rng.randrange(0, 100):02d}"
    if kind == 4:
        return f"{rng.randrange(0, 101)}%"
    if kind == 5:
        return f"{rng.randrange(1, 10**4):,}"
    return f"-{rng.randrange(1, 1000)}"


def _date(rng: random.Random) -> str:
    d, m, y = rng.randrange(1, 29), rng.randrange(1, 13), rng.randrange(1950, 2030)
    kind = rng.randrange(5)
    if kind == 0:
        return f"{d:02d}/{m:02d}/{y}"
    if kind == 1:
        return f"{y}-{m:02d}-{d:02d}"
    if kind == 2:
        return f"{MONTHS[m - 1]} {d}, {y}"
    if kind == 3:
        return f"{d} {MONTHS[m - 1][:3]} {y}"
    return str(y)


def _token(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(WORDS)
    if r < 0.6:
        return _number(rng)
    if r < 0.85:
        return rng.choice(UNICODE_WORDS)
    return "".join(rng.choice(ALPHABET.strip()) for _ in range(rng.randrange(1, 6)))


def gold_answer(rng: random.Random, max_len: int = 40) -> str:
    """One realistic gold answer."""
    r = rng.random()
    if r < 0.12:
        text = _date(rng)
    elif r < 0.24:
        text = rng.choice(NAMES)
    elif r < 0.36:
        text = _number(rng)
    else:
        n = rng.choice((1, 1, 1, 2, 2, 3, 4))
        parts = [_token(rng) for _ in range(n)]
        text = parts[0]
        for p in parts[1:]:
            sep = " " if rng.random() < 0.85 else rng.choice(WHITESPACE)
            text += sep + p
    if rng.random() < 0.05:
        text = rng.choice(WHITESPACE) + text
    if rng.random() < 0.05:
        text = text + rng.choice(WHITESPACE)
    if rng.random() < 0.01:
        text = ""
    return text[:max_len]


def _random_char(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        return rng.choice(ALPHABET)
    if r < 0.9:
        return rng.choice(TRICKY_CHARS)
    return rng.choice(WHITESPACE)


def _typo(rng: random.Random, s: str) -> str:
    if not s:
        return _random_char(rng)
    i = rng.randrange(len(s))
    op = rng.randrange(4)
    if op == 0:  # insert
        return s[:i] + _random_char(rng) + s[i:]
    if op == 1:  # delete
        return s[:i] + s[i + 1 :]
    if op == 2:  # substitute
        return s[:i] + _random_char(rng) + s[i + 1 :]
    if len(s) > 1:  # transpose
        i = min(i, len(s) - 2)
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    return s + s


def _case(rng: random.Random, s: str) -> str:
    return rng.choice((str.upper, str.lower, str.title, str.swapcase, str.capitalize))(s)


def _whitespace(rng: random.Random, s: str) -> str:
    op = rng.randrange(4)
    if op == 0:
        return rng.choice(WHITESPACE) + s + rng.choice(WHITESPACE)
    if op == 1:
        return s.replace(" ", rng.choice(WHITESPACE))
    if op == 2:
        return s.replace(" ", "")
    i = rng.randrange(len(s) + 1)
    return s[:i] + rng.choice(WHITESPACE) + s[i:]


def _truncate(rng: random.Random, s: str) -> str:
    if len(s) < 2:
        return s
    k = rng.randrange(1, len(s))
    return s[:k] if rng.random() < 0.5 else s[k:]


def mutate(rng: random.Random, gold: str, max_len: int = 40) -> str:
    """A prediction derived from ``gold``."""
    r = rng.random()
    if r < 0.15:
        out = gold  # exact copy
    elif r < 0.2:
        out = ""
    elif r < 0.28:
        out = gold_answer(rng, max_len)  # unrelated
    elif r < 0.33:
        out = gold + " " + _token(rng)  # extra word
    else:
        out = gold
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            op = rng.random()
            if op < 0.55:
                out = _typo(rng, out)
            elif op < 0.7:
                out = _case(rng, out)
            elif op < 0.85:
                out = _whitespace(rng, out)
            else:
                out = _truncate(rng, out)
    return out[:max_len]


def _alternatives(rng: random.Random, max_len: int) -> list[str]:
    first = gold_answer(rng, max_len)
    golds = [first]
    for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3, 4))):
        r = rng.random()
        if r < 0.4:
            golds.append(mutate(rng, first, max_len))
        elif r < 0.55:
            golds.append(_case(rng, first))
        elif r < 0.6:
            golds.append(first)  # duplicate alternative
        else:
            golds.append(gold_answer(rng, max_len))
    return golds


def string_questions(seed: int, n: int, max_len: int = 40) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, gold alternatives) questions."""
    rng = random.Random(seed)
    preds: list[str] = []
    golds: list[list[str]] = []
    for _ in range(n):
        alts = _alternatives(rng, max_len)
        preds.append(mutate(rng, rng.choice(alts), max_len))
        golds.append(alts)
    return preds, golds


# ---------------------------------------------------------------------------------------
# ANLS* structures

KEYS = ["name", "date", "total", "items", "address", "tax", "id", "a", "b", "c", "Total", "line"]
NONE_LIKE: list[Any] = [None, "", [], {}]


def _star_leaf(rng: random.Random, max_len: int) -> Any:
    r = rng.random()
    if r < 0.7:
        return gold_answer(rng, max_len)
    if r < 0.8:
        return rng.randrange(-50, 2000)
    if r < 0.9:
        return rng.choice((0.5, 1.0, 3.14, 12.75, -2.0, 1e-3, 100.0))
    return rng.choice((True, False))


def _star_gold(rng: random.Random, depth: int, max_len: int) -> Any:
    r = rng.random()
    if depth <= 0 or r < 0.35:
        return None if rng.random() < 0.08 else _star_leaf(rng, max_len)
    if r < 0.55:
        n = rng.choice((0, 1, 2, 2, 3, 3, 4))
        if rng.random() < 0.6:  # flat list of leaves, sometimes with duplicates
            items = [_star_leaf(rng, max_len) for _ in range(n)]
            if items and rng.random() < 0.2:
                items.append(rng.choice(items))
            return items
        return [_star_gold(rng, depth - 1, max_len) for _ in range(min(n, 3))]
    if r < 0.85:
        keys = rng.sample(KEYS, rng.choice((0, 1, 2, 2, 3, 4)))
        return {k: _star_gold(rng, depth - 1, max_len) for k in keys}
    n = rng.choice((1, 2, 2, 3))
    if rng.random() < 0.6:
        base = _star_leaf(rng, max_len)
        alts = [base] + [
            mutate(rng, base, max_len) if isinstance(base, str) else _star_leaf(rng, max_len)
            for _ in range(n - 1)
        ]
    else:
        alts = [_star_gold(rng, depth - 1, max_len) for _ in range(n)]
    return tuple(alts)


def _star_pred(rng: random.Random, gold: Any, depth: int, max_len: int) -> Any:
    """A prediction derived from ``gold`` (no tuples: they are gold-only)."""
    r = rng.random()
    if r < 0.04:
        return rng.choice(NONE_LIKE)
    if r < 0.08:
        return _strip_tuples(rng, _star_gold(rng, max(depth, 1), max_len))  # unrelated
    if isinstance(gold, tuple):
        return _star_pred(rng, rng.choice(gold), depth, max_len)
    if gold is None:
        return rng.choice(NONE_LIKE + [None, None, "n/a", 0])
    if isinstance(gold, bool):
        return gold if rng.random() < 0.7 else (not gold)
    if isinstance(gold, (int, float)):
        s = rng.random()
        if s < 0.5:
            return gold
        if s < 0.7:
            return str(gold)
        if s < 0.85:
            return gold + 1
        return mutate(rng, str(gold), max_len)
    if isinstance(gold, str):
        return mutate(rng, gold, max_len)
    if isinstance(gold, list):
        items = [_star_pred(rng, x, depth - 1, max_len) for x in gold]
        s = rng.random()
        if items and s < 0.2:
            del items[rng.randrange(len(items))]
        elif s < 0.35:
            items.insert(rng.randrange(len(items) + 1), _strip_tuples(rng, _star_gold(rng, 0, max_len)))
        elif items and s < 0.4:
            items.append(items[0])
        if rng.random() < 0.6:
            rng.shuffle(items)
        if rng.random() < 0.03:
            return items[0] if items else "x"  # wrong container type
        return items
    # dict
    out: dict[Any, Any] = {}
    for k, v in gold.items():
        s = rng.random()
        if s < 0.12:
            continue  # missing key
        if s < 0.17:
            out[k] = rng.choice(NONE_LIKE)
            continue
        if s < 0.2:  # renamed key
            out[k + "_"] = _star_pred(rng, v, depth - 1, max_len)
            continue
        out[k] = _star_pred(rng, v, depth - 1, max_len)
    if rng.random() < 0.25:  # hallucinated key, often None-like
        k = rng.choice(KEYS) + rng.choice(("", "2", "x"))
        if k not in out:
            out[k] = rng.choice(NONE_LIKE) if rng.random() < 0.6 else _star_leaf(rng, max_len)
    if rng.random() < 0.03:
        return list(out.values())  # wrong container type
    return out


def _strip_tuples(rng: random.Random, obj: Any) -> Any:
    if isinstance(obj, tuple):
        return _strip_tuples(rng, rng.choice(obj))
    if isinstance(obj, list):
        return [_strip_tuples(rng, x) for x in obj]
    if isinstance(obj, dict):
        return {k: _strip_tuples(rng, v) for k, v in obj.items()}
    return obj


def star_pairs(seed: int, n: int, depth: int = 3, max_len: int = 16) -> list[tuple[Any, Any]]:
    """``n`` (gold, prediction) ANLS* structure pairs."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        gold = _star_gold(rng, rng.choice((1, 2, 2, depth)), max_len)
        pred = _star_pred(rng, gold, depth, max_len)
        if gold == [] and isinstance(pred, str):
            pred = []  # [] vs a string has no gold alternative: both scorers refuse it
        pairs.append((gold, pred))
    return pairs


# ---------------------------------------------------------------------------------------
# DUDE questions

DUDE_TYPES = ["extractive", "abstractive", "not-answerable", "list/extractive", "list/abstractive"]


def dude_questions(seed: int, n: int, max_len: int = 30) -> tuple[list[Any], list[list[str]], list[str]]:
    """``n`` DUDE questions: (predictions, gold answer lists, answer types)."""
    rng = random.Random(seed)
    preds: list[Any] = []
    golds: list[list[str]] = []
    types: list[str] = []
    for _ in range(n):
        t = rng.choices(DUDE_TYPES, weights=(4, 3, 1.5, 2, 1))[0]
        if t == "not-answerable":
            gold: list[str] = []
            r = rng.random()
            pred: Any = (
                []
                if r < 0.4
                else (
                    ""
                    if r < 0.55
                    else ([gold_answer(rng, max_len)] if r < 0.7 else gold_answer(rng, max_len))
                )
            )
        elif t.startswith("list"):
            gold = [gold_answer(rng, max_len) for _ in range(rng.choice((1, 2, 2, 3, 3, 4, 5)))]
            if rng.random() < 0.15:
                gold.append(rng.choice(gold))  # duplicate gold item
            items = [mutate(rng, g, max_len) for g in gold]
            r = rng.random()
            if r < 0.25 and items:
                del items[rng.randrange(len(items))]
            elif r < 0.45:
                items.append(gold_answer(rng, max_len))
            elif r < 0.5:
                items = []
            elif r < 0.55 and items:
                items.append(items[0])
            rng.shuffle(items)
            pred = items
        else:
            gold = _alternatives(rng, max_len)
            base = mutate(rng, rng.choice(gold), max_len)
            r = rng.random()
            if r < 0.7:
                pred = base
            elif r < 0.85:
                pred = [base] + [gold_answer(rng, max_len) for _ in range(rng.randrange(0, 3))]
            elif r < 0.9:
                pred = []
            else:
                pred = [gold_answer(rng, max_len), base]  # the wrong one comes first
        preds.append(pred)
        golds.append(gold)
        types.append(t)
    return preds, golds, types


# ---------------------------------------------------------------------------------------
# 1-NED items


def ned_items(seed: int, n: int, max_golds: int = 1, max_len: int = 30) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, golds) recognition items; 1..max_golds golds, some empty strings."""
    rng = random.Random(seed)
    preds: list[str] = []
    golds: list[list[str]] = []
    for _ in range(n):
        k = rng.randint(1, max_golds)
        gs = []
        for _ in range(k):
            g = gold_answer(rng, max_len) if rng.random() < 0.8 else rng.choice(UNICODE_WORDS + NAMES)
            if rng.random() < 0.03:
                g = ""
            gs.append(g)
        if k > 1 and rng.random() < 0.3:
            gs[rng.randrange(k)] = mutate(rng, gs[0], max_len)
        pred = mutate(rng, rng.choice(gs), max_len)
        if rng.random() < 0.02:
            pred = ""
        preds.append(pred)
        golds.append(gs)
    return preds, golds
