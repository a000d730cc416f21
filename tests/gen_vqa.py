"""Deterministic generators of VQA questions (10 human answers) and ChartQA-like answers for
the parity sweeps. Driven by a seeded :class:`random.Random` only.

VQA answers come in families of spellings of one answer, so that the answer rules decide
whether they match: case (``"Yes"``/``"YES"``), trailing and inner punctuation (``"yes."``,
``"st. louis"``, ``"e-mail"``, ``"black/white"``, ``"(left)"``, ``"a - b"``), digits with commas
and periods (``"1,000"``, ``"1.000"``, ``"3.5"``, ``".5"``, ``"2."``, ``"12,5 %"``), number
words (``"two"``, ``"Ten"``, ``"none"``), articles (``"the red car"``, ``"a apple"``, ``"theater"``),
contractions with and without apostrophe (``"dont know"``, ``"Im"``, ``"somebody'd"``),
possessives (``"dog's"``), whitespace (tabs, newlines, doubled and surrounding spaces),
non-ASCII letters and punctuation, and texts with more than 32 periods (the script's
``count`` quirk). A question's ten answers are unanimous (a quarter), a majority with a few
variants, or a mix; the prediction is a family member, a re-spelled member (case,
whitespace, punctuation), another family's answer or an empty string. Answer and question
types come with every question.
"""

from __future__ import annotations

import random
import string

__all__ = ["FAMILIES", "ANSWER_TYPES", "QUESTION_TYPES", "vqa_questions", "respell", "chart_answers"]

FAMILIES: tuple[tuple[str, ...], ...] = (
    ("yes", "Yes", "YES", "yes.", "Yes!", " yes", "yes\t", "yes\n", "yes ?", "yes!!"),
    ("no", "No", "no.", "NO", "no!", "nope", "no, no"),
    ("2", "two", "Two", "2.", "two.", "2 ", "TWO", "2.0", "02"),
    ("10", "ten", "Ten", "10.", "10.0"),
    ("0", "zero", "none", "None", "0.", "nothing", "0.0"),
    ("1000", "1,000", "1.000", "1 000", "1000.", "one thousand", "1,000.00"),
    ("3.5", "3,5", "3.50", "3.5.", "3 .5", ".5", "0.5", "1/2", "half"),
    ("12,5%", "12.5%", "12,5 %", "12.5 percent", "12 %"),
    (
        "red car",
        "the red car",
        "a red car",
        "The Red Car",
        "red  car",
        "red\tcar",
        "the  red car.",
        "red car!",
    ),
    ("apple", "an apple", "a apple", "the apple", "Apple.", "apples", "the apples"),
    ("theater", "the theater", "theatre", "an theater"),
    ("don't know", "dont know", "Dont know", "do not know", "don't know.", "dont  know", "DONT KNOW"),
    ("i'm", "im", "Im", "I'm", "i am"),
    ("can't tell", "cant tell", "cannot tell", "can't tell!"),
    ("somebody'd", "somebodyd", "somebody'd've", "somebodyd've", "yall", "y'all"),
    ("st. louis", "st louis", "St. Louis", "st.louis", "saint louis", "st. louis."),
    ("e-mail", "email", "e mail", "E-Mail", "e - mail", "e_mail"),
    ("black/white", "black and white", "black / white", "black white", "Black/White", "black&white"),
    ("left", "(left)", "left?", "[left]", "{left}", "left;", "'left'", '"left"', "<left>"),
    ("hot dog", "hot-dog", "hotdog", "hot dog's", "hot dogs", "Hot Dog"),
    ("dog's bowl", "dogs bowl", "dog 's bowl", "Dog's bowl", "dog's bowl?"),
    ("red, white", "red white", "red,white", "red , white", "red, white, 1,2", "red and white"),
    ("5 o'clock", "5 oclock", "5:00", "five oclock", "5:00 pm"),
    ("a - b", "a-b", "a -b", "a- b", "ab", "a b"),
    ("c++", "c + +", "c", "#1", "@home", "home", "x=y", "x = y", "`code`", "code"),
    ("café", "Café", "cafe", "CAFÉ", "naïve", "straße", "STRASSE", "İstanbul", "istanbul"),
    ("北京", "北京。", "«a»", "a", "…", "...", "—", "a…"),
    ("u.s.a.", "usa", "U.S.A", "u.s.a", "u. s. a.", "us"),
    ("mr. smith", "mr smith", "Mr. Smith", "mr.smith", "smith"),
    ("3 dogs", "three dogs", "3 dogs.", "the 3 dogs", "three  dogs", "3dogs"),
    ("." * 40, "." * 33, "a." * 35, "." * 31, ". " * 34, ""),
    ("", " ", "\t", "\n", "none of the above"),
)
ANSWER_TYPES = ("yes/no", "number", "other")
QUESTION_TYPES = (
    "is the",
    "how many",
    "what color is the",
    "what is",
    "none of the above",
    "where is the",
    "what time",
    "what kind of",
    "is this a",
    "why",
)


def respell(text: str, rng: random.Random) -> str:
    """The same answer written differently: case, surrounding or doubled whitespace, a
    trailing or inner punctuation mark, an article in front, a number word."""
    r = rng.random()
    if r < 0.15:
        return text.upper()
    if r < 0.3:
        return text.capitalize()
    if r < 0.42:
        return rng.choice((" ", "\t", "\n", "  ")) + text + rng.choice(("", " ", "\n", "\t "))
    if r < 0.55:
        return text + rng.choice(".!?,;")
    if r < 0.65:
        return rng.choice(("the ", "a ", "an ", "The ")) + text
    if r < 0.75:
        words = text.split(" ")
        k = rng.randrange(len(words))
        words[k] = words[k] + rng.choice(("-", ",", ".", "/", " ", "'s"))
        return " ".join(words)
    if r < 0.85:
        return text.replace(" ", rng.choice(("  ", "\t", " - ", "-")))
    if r < 0.92:
        return rng.choice(string.punctuation) + text + rng.choice(string.punctuation)
    return text.lower()


def _answers(rng: random.Random, family: tuple[str, ...], other: tuple[str, ...]) -> list[str]:
    shape = rng.random()
    main = rng.choice(family)
    if shape < 0.25:  # unanimous
        return [main] * 10
    if shape < 0.6:  # a majority and a few variants of the same answer
        k = rng.randint(4, 9)
        answers = [main] * k + [rng.choice(family) for _ in range(10 - k)]
    elif shape < 0.85:  # a mix of two answers, with spellings
        k = rng.randint(1, 9)
        answers = [rng.choice(family) for _ in range(k)] + [rng.choice(other) for _ in range(10 - k)]
    else:  # anything, re-spelled
        pool = family + other
        answers = [
            respell(rng.choice(pool), rng) if rng.random() < 0.4 else rng.choice(pool) for _ in range(10)
        ]
    rng.shuffle(answers)
    return answers


def vqa_questions(n: int, seed: int = 0) -> tuple[list[str], list[list[str]], list[str], list[str]]:
    """``n`` questions: (predictions, ten human answers each, answer types, question types)."""
    rng = random.Random(seed)
    preds: list[str] = []
    refs: list[list[str]] = []
    a_types: list[str] = []
    q_types: list[str] = []
    for _ in range(n):
        family = rng.choice(FAMILIES)
        other = rng.choice(FAMILIES)
        answers = _answers(rng, family, other)
        r = rng.random()
        if r < 0.35:
            pred = rng.choice(answers)
        elif r < 0.6:
            pred = rng.choice(family)
        elif r < 0.8:
            pred = respell(rng.choice(answers), rng)
        elif r < 0.95:
            pred = rng.choice(other)
        else:
            pred = ""
        preds.append(pred)
        refs.append(answers)
        a_types.append(rng.choice(ANSWER_TYPES))
        q_types.append(rng.choice(QUESTION_TYPES))
    return preds, refs, a_types, q_types


_CHART_TEXT = ("Yes", "no", "Brazil", "brazil", "BRAZIL", "2019", "Q3", "1,000", "N/A", "", " ", "zero")


def _number_text(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.2:
        return str(rng.randint(-20, 2000))
    if r < 0.4:
        return f"{rng.uniform(-100, 100):.{rng.randint(0, 4)}f}"
    if r < 0.5:
        return f"{rng.uniform(0, 100):.{rng.randint(0, 2)}f}%"
    if r < 0.58:
        return rng.choice(("0", "0.0", "-0", "0%", "0.00", "00", "-0.0%", ".0"))
    if r < 0.66:
        return f"{rng.randint(1000, 9_999_999):,}"
    if r < 0.72:
        return rng.choice(("1e3", "1E-2", "inf", "-inf", "nan", "NaN", "1_000", " 12 ", "12 %", "5%%", "%"))
    if r < 0.8:
        return f"{rng.uniform(0, 1):.3f}"
    return f"{rng.randint(1, 500) / 8}"


def _near(text: str, rng: random.Random) -> str:
    """A number close to ``text`` (within a few percent), or ``text`` re-written."""
    try:
        value = float(text.rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
    except ValueError:
        return text.swapcase() if rng.random() < 0.5 else text
    r = rng.random()
    if r < 0.5:
        factor = 1 + rng.choice((-1, 1)) * rng.choice((0.0, 0.01, 0.04, 0.049, 0.05, 0.051, 0.06, 0.2))
        return repr(value * factor)
    if r < 0.7:
        return f"{value * 100:g}%"
    if r < 0.85:
        return f"{value:,}"
    return f" {text} "


def chart_answers(n: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """``n`` ChartQA-like questions: (predictions, 1-3 golds each). Numbers (integers,
    decimals, percentages, zeros in every spelling, thousands separators, exponents, inf
    and nan, whitespace) and words; predictions near the gold, at the 5% edges, as percent
    or with commas, re-cased, or unrelated."""
    rng = random.Random(seed)
    preds: list[str] = []
    refs: list[list[str]] = []
    for _ in range(n):
        golds = [
            _number_text(rng) if rng.random() < 0.75 else rng.choice(_CHART_TEXT)
            for _ in range(rng.choice((1, 1, 2, 3)))
        ]
        r = rng.random()
        if r < 0.6:
            pred = _near(rng.choice(golds), rng)
        elif r < 0.75:
            pred = rng.choice(golds)
        elif r < 0.9:
            pred = _number_text(rng)
        else:
            pred = rng.choice(_CHART_TEXT)
        preds.append(pred)
        refs.append(golds)
    return preds, refs
