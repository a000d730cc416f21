"""Deterministic generators of (prediction, gold answers) for the token-F1 parity sweeps.

Driven by a seeded :class:`random.Random` only (no set iteration, no hash order). What the
answers contain, on purpose:

* empty and whitespace-only strings, punctuation-only answers (``"..."``, ``"?!"``, ``"--"``);
* every ASCII punctuation character, inside words (``"apple-pie"``, ``"U.S."``, ``"don't"``)
  and around them (``"(the)"``); the article words a/an/the alone, capitalised, and *inside*
  words (``"theater"``, ``"another"``, ``"banana"``, ``"a1"``, ``"the_end"``);
* Unicode punctuation that SQuAD keeps but which is a regex word boundary (``"«the»"``,
  ``"a·b"``, ``"—"``, ``"“an”"``, ``"…"``), Unicode letters and case traps (``"Beyoncé"``,
  ``"ΟΔΟΣ"``, ``"İ"``, ``"ß"``, CJK, emoji, combining accents), non-ASCII whitespace
  (``"\\u00a0"``, ``"\\u3000"``, ``"\\x1c"``, ``"\\x85"``) and control characters;
* repeated tokens (``"cat cat cat"``), 1-4 golds per question, duplicate golds, golds that
  normalize to ``""``.
"""

from __future__ import annotations

import random
import string

__all__ = ["WORDS", "answer", "mutate", "questions", "mlqa_questions", "quac_dialogs"]

WORDS = (
    "the a an The A AN THE cat cat sat on mat big red blue house theater another banana atheist "
    "anthem thea an1 a1 the_end them then than and apple pie pie-chart U.S. U.S.A. don't it's "
    "o'clock 1976 3.14 $100 50% 1,000 #1 e-mail C++ x/y (the) [a] {an} a.m. Beyoncé café naïve "
    "Straße ΟΔΟΣ σοφία İstanbul ıi Москва 北京 東京大学 😀 👍🏽 e\u0301te\u0301 ﬁnance ½ Ⅻ"
).split()
UNICODE_PUNCT = [
    "«the»",
    "“an”",
    "a·b",
    "—",
    "…",
    "¿a?",
    "the‐end",
    "‘a’",
    "。",
    "、",
    "·the",
    "a»",
    "«",
    "»",
]
PUNCT_ONLY = ["...", "?!", "--", "''", '"', "()", "!!!", ".", "-", "~", "_", "@#$", ""]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u3000", "\x1c", "\x85", " \u2009 "]
CONTROLS = ["\x01", "\x7f", "\x00", "\x1b"]


def _word(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.08:
        return rng.choice(UNICODE_PUNCT)
    if r < 0.13:
        return (
            rng.choice(string.punctuation)
            + rng.choice(WORDS)
            + rng.choice(("", rng.choice(string.punctuation)))
        )
    if r < 0.15:
        return rng.choice(WORDS) + rng.choice(CONTROLS) + rng.choice(WORDS)
    return rng.choice(WORDS)


def answer(rng: random.Random) -> str:
    """A gold-like answer string (sometimes empty or punctuation only)."""
    r = rng.random()
    if r < 0.04:
        return ""
    if r < 0.08:
        return rng.choice(PUNCT_ONLY)
    if r < 0.10:
        return rng.choice(SPACES)
    n = rng.choices(range(1, 8), weights=(25, 25, 18, 12, 9, 6, 5))[0]
    words = [_word(rng) for _ in range(n)]
    text = words[0]
    for w in words[1:]:
        text += rng.choice(SPACES) + w
    if rng.random() < 0.1:
        text = rng.choice(SPACES) + text + rng.choice(SPACES)
    return text


def mutate(rng: random.Random, text: str) -> str:
    """A prediction derived from a gold answer."""
    r = rng.random()
    words = text.split()
    if r < 0.25:
        return text
    if r < 0.35:
        return rng.choice((text.upper(), text.lower(), text.title(), text.swapcase()))
    if r < 0.45:
        return (
            rng.choice(("The ", "a ", "An ", "the  ", "«the» "))
            + text
            + rng.choice(("", ".", "!", " the", "?"))
        )
    if r < 0.55 and words:
        k = rng.randrange(len(words))
        return " ".join(words[:k] + words[k + 1 :])
    if r < 0.62 and words:
        k = rng.randrange(len(words))
        return " ".join(words[: k + 1] + [words[k]] * rng.randint(1, 3) + words[k + 1 :])
    if r < 0.70:
        return text + " " + answer(rng)
    if r < 0.76:
        return text.replace(" ", rng.choice(("-", "", "_", " - ", ".")))
    if r < 0.80:
        return rng.choice(PUNCT_ONLY)
    if r < 0.84:
        return ""
    return answer(rng)


def questions(n: int, seed: int, *, max_golds: int = 4) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, golds) questions; golds repeat sometimes."""
    rng = random.Random(seed)
    preds: list[str] = []
    refs: list[list[str]] = []
    for _ in range(n):
        golds = [answer(rng) for _ in range(rng.randint(1, max_golds))]
        if rng.random() < 0.2:
            golds.append(rng.choice(golds))
        preds.append(mutate(rng, rng.choice(golds)))
        refs.append(golds)
    return preds, refs


_MLQA_WORDS = {
    "en": "the a an cat sat mat «the» apple-pie U.S. don't".split(),
    "es": "el la los las un una unos unas gato «el» casa ¿dónde? ¡hola! niño año".split(),
    "de": "der die das den dem des ein eine einen einem eines einer Katze „die“ Straße Äpfel".split(),
    "vi": "của là cái chiếc những nhà mèo Việt Nam «của» những‐cái".split(),
    "hi": "यह एक किताब है। भारत की राजधानी नई दिल्ली है, ‘क्या’".split(),
    "ar": "الكتاب على الطاولة، ذهب الولد إلى المدرسة؟ «الله» قال".split(),
    "zh": "我爱北京天安门 北京大学， 《红楼梦》 abc de 123 “你好” 东京、大阪 ＡＢＣ".split(),
}


def mlqa_questions(lang: str, n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    vocab = _MLQA_WORDS[lang] + ["", "...", "—", "«»", "a·b", "x\u00a0y", "Σ"]

    def text() -> str:
        k = rng.randint(0, 6)
        return rng.choice(("", " ", "")).join(
            [rng.choice(vocab) + rng.choice(("", " ", "  ", ",", "\u3000")) for _ in range(k)]
        )

    preds, refs = [], []
    for _ in range(n):
        golds = [text() for _ in range(rng.randint(1, 3))]
        g = rng.choice(golds)
        preds.append(rng.choice((g, g.upper(), g + text(), text(), g[: len(g) // 2])))
        refs.append(golds)
    return preds, refs


def quac_dialogs(n_dialogs: int, seed: int) -> list[list[tuple[str, list[str]]]]:
    """Dialogs of 1-6 turns: (prediction, 1-5 references incl. CANNOTANSWER)."""
    rng = random.Random(seed)
    dialogs = []
    for _ in range(n_dialogs):
        turns = []
        for _ in range(rng.randint(1, 6)):
            base = answer(rng)
            refs = []
            for _ in range(rng.choice((1, 1, 3, 4, 5))):
                r = rng.random()
                refs.append("CANNOTANSWER" if r < 0.2 else (base if r < 0.6 else mutate(rng, base)))
            r = rng.random()
            pred = "CANNOTANSWER" if r < 0.15 else (rng.choice(refs) if r < 0.5 else mutate(rng, base))
            turns.append((pred, refs))
        dialogs.append(turns)
    return dialogs
