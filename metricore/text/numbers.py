"""Numbers written as words, and the VQA numeric-answer rule.

:func:`spelled_numbers_to_digits` rewrites runs of English or Russian number words as digits
(``"twenty one dogs"`` -> ``"21 dogs"``, ``"три кота"`` -> ``"3 кота"``, ``"двадцать пятого"``
is left as is because ordinals are not cardinals). Russian cardinals are recognised in all
their case forms (``"трёх"``, ``"пятью"``, ``"двумястами"``), with ``ё``/``е`` both
accepted. Like the FusionBrain challenge's Russian map, ``"нисколько"`` and the forms of
``"никакой"`` mean 0.

Composition follows ordinary cardinal grammar: units after tens add (``"forty two"``), a
count before ``hundred``/``thousand``/``million`` multiplies (``"two hundred and five"`` ->
205; a bare ``"hundred"`` is 100), and words that cannot continue the current number start
a new one (``"one two"`` -> ``"1 2"``, not 3). English ``"and"`` is kept unless it sits
between two number words.

:func:`wordtodigits` is the other converter: PyPI ``wordtodigits`` 1.0.2's ``convert``, which
the FusionBrain Challenge 2.0 applied to predictions, rule for rule (it *sums* adjacent number
words: ``"one two"`` -> ``"3"``; a bare ``"hundred"`` is 0; ``"and"`` before a number word is
dropped wherever it stands).

The FusionBrain VQA numeric rule (``evaluation/vqa/metric/calc_meteor.py``): a gold answer
that is one token for which ``str.isnumeric()`` holds is a number (:func:`numeric_gold`); the
prediction's number is the first token NLTK's part-of-speech tagger tags ``CD`` and ``float()``
reads (:func:`first_number`, which cannot run the tagger: see there); the score is
:func:`numeric_similarity`, ``min(a, b) / max(a, b)``, 1 when both are 0.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ENGLISH_NUMBER_WORDS",
    "RUSSIAN_NUMBER_WORDS",
    "spelled_numbers_to_digits",
    "wordtodigits",
    "numeric_gold",
    "first_number",
    "numeric_similarity",
]

_EN_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_EN_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()

ENGLISH_NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_EN_SMALL)}
ENGLISH_NUMBER_WORDS.update({w: 10 * (i + 2) for i, w in enumerate(_EN_TENS)})
ENGLISH_NUMBER_WORDS.update({"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9})


def _forms(value: int, words: str) -> dict[str, int]:
    out = {}
    for w in words.split():
        out[w] = value
        if "ё" in w:
            out[w.replace("ё", "е")] = value
    return out


def _soft(value: int, stem: str) -> dict[str, int]:
    """Numerals declined like ``пять``: nominative -ь, oblique -и, instrumental -ью."""
    return _forms(value, f"{stem}ь {stem}и {stem}ью")


RUSSIAN_NUMBER_WORDS: dict[str, int] = {}
for _value, _words in (
    (
        0,
        "ноль нуль ноля нуля нолю нулю нолём нулём ноле нуле нисколько никакой никакая никакое "
        "никакие никакого никакому никаким никаком никакую никакою никаких никакими",
    ),
    (1, "один одна одно одни одного одной одному одним одном одну одною одних одними"),
    (2, "два две двух двум двумя"),
    (3, "три трёх трём тремя"),
    (4, "четыре четырёх четырём четырьмя"),
    (8, "восемь восьми восемью восьмью"),
    (40, "сорок сорока"),
    (90, "девяносто девяноста"),
    (100, "сто ста сотня сотни сотню сотней"),
    (200, "двести двухсот двумстам двумястами двухстах"),
    (300, "триста трёхсот трёмстам тремястами трёхстах"),
    (400, "четыреста четырёхсот четырёмстам четырьмястами четырёхстах"),
    (1000, "тысяча тысячи тысяче тысячу тысячей тысячью тысяч тысячам тысячами тысячах"),
    (10**6, "миллион миллиона миллиону миллионом миллионе миллионы миллионов миллионам миллионами миллионах"),
    (
        10**9,
        "миллиард миллиарда миллиарду миллиардом миллиарде миллиарды миллиардов миллиардам миллиардами миллиардах",
    ),
):
    RUSSIAN_NUMBER_WORDS.update(_forms(_value, _words))
for _value, _stem in (
    (5, "пят"),
    (6, "шест"),
    (7, "сем"),
    (9, "девят"),
    (10, "десят"),
    (11, "одиннадцат"),
    (12, "двенадцат"),
    (13, "тринадцат"),
    (14, "четырнадцат"),
    (15, "пятнадцат"),
    (16, "шестнадцат"),
    (17, "семнадцат"),
    (18, "восемнадцат"),
    (19, "девятнадцат"),
    (20, "двадцат"),
    (30, "тридцат"),
):
    RUSSIAN_NUMBER_WORDS.update(_soft(_value, _stem))
for _value, _first, _oblique in (
    (50, "пятьдесят", "пятидесяти пятьюдесятью"),
    (60, "шестьдесят", "шестидесяти шестьюдесятью"),
    (70, "семьдесят", "семидесяти семьюдесятью"),
    (80, "восемьдесят", "восьмидесяти восемьюдесятью восьмьюдесятью"),
):
    RUSSIAN_NUMBER_WORDS.update(_forms(_value, f"{_first} {_oblique}"))
for _value, _stem in ((500, "пят"), (600, "шест"), (700, "сем"), (800, "восем"), (900, "девят")):
    _obl = "восьм" if _value == 800 else _stem
    RUSSIAN_NUMBER_WORDS.update(
        _forms(_value, f"{_stem}ьсот {_obl}исот {_obl}истам {_stem}ьюстами {_obl}истах")
    )
RUSSIAN_NUMBER_WORDS["восьмьюстами"] = 800

_SCALES = {100, 1000, 10**6, 10**9}
_CONNECTORS = {"and"}


def _lookup(word: str, languages: tuple[str, ...]) -> int | None:
    w = word.lower()
    if "en" in languages and w in ENGLISH_NUMBER_WORDS:
        return ENGLISH_NUMBER_WORDS[w]
    if "ru" in languages:
        return RUSSIAN_NUMBER_WORDS.get(w)
    return None


class _Run:
    """One cardinal being read left to right."""

    def __init__(self) -> None:
        self.total = 0  # completed thousands/millions
        self.current = 0  # below the last scale word
        self.empty = True
        self.zero = False

    def accepts(self, value: int) -> bool:
        if self.empty:
            return True
        if self.zero or value == 0:
            return False
        if value == 100:  # "two hundred"; a bare "hundred" starts a run (handled above)
            return 0 < self.current < 100
        if value in _SCALES:  # "two million three thousand", not "two thousand three thousand"
            return self.current > 0 and self.total % (value * 1000) == 0
        if value >= 100:  # Russian hundreds (двести, триста, ...)
            return self.current == 0
        below_hundred = self.current % 100
        if value < 10:
            return below_hundred == 0 or (below_hundred >= 20 and below_hundred % 10 == 0)
        if value < 20:
            return below_hundred == 0
        return below_hundred == 0  # tens

    def add(self, value: int) -> None:
        if value == 0:
            self.zero = True
        elif value == 100:
            self.current = (self.current or 1) * 100
        elif value in _SCALES:
            self.total += (self.current or 1) * value
            self.current = 0
        else:
            self.current += value
        self.empty = False

    @property
    def value(self) -> int:
        return self.total + self.current


def spelled_numbers_to_digits(text: str, languages: tuple[str, ...] = ("en", "ru")) -> str:
    """Replace runs of number words with digits; tokens are whitespace-separated and the
    result is re-joined with single spaces (as the challenge's ``wordtodigits`` step did).

    >>> spelled_numbers_to_digits("Two hundred and five dogs and three cats")
    '205 dogs and 3 cats'
    >>> spelled_numbers_to_digits("на столе три кота и двадцать одна мышь")
    'на столе 3 кота и 21 мышь'
    >>> spelled_numbers_to_digits("one two", ("en",))
    '1 2'
    """
    tokens = text.split()
    out: list[str] = []
    run: _Run | None = None
    pending_and: str | None = None
    for i, tok in enumerate(tokens):
        value = _lookup(tok, languages)
        if value is None:
            if (
                run is not None
                and tok.lower() in _CONNECTORS
                and "en" in languages
                and i + 1 < len(tokens)
                and _lookup(tokens[i + 1], ("en",)) is not None
                and pending_and is None
            ):
                pending_and = tok
                continue
            if run is not None:
                out.append(str(run.value))
                run = None
            if pending_and is not None:
                out.append(pending_and)
                pending_and = None
            out.append(tok)
            continue
        if run is not None and not run.accepts(value):
            out.append(str(run.value))
            if pending_and is not None:
                out.append(pending_and)
            run = None
        pending_and = None
        if run is None:
            run = _Run()
        run.add(value)
    if run is not None:
        out.append(str(run.value))
    if pending_and is not None:
        out.append(pending_and)
    return " ".join(out)


# PyPI wordtodigits 1.0.2 (wordtodigits/__init__.py, ``convert``): its three word tables
_W2D_UNITS = {w: i for i, w in enumerate(_EN_SMALL)}
_W2D_TENS = {w: 10 * (i + 2) for i, w in enumerate(_EN_TENS)}
_W2D_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6}
_W2D_VALUES = {**_W2D_UNITS, **_W2D_TENS, **_W2D_SCALES}
_W2D_TERMINATORS = (".", "?", "!")


def wordtodigits(text: str) -> str:
    """PyPI ``wordtodigits`` 1.0.2 ``convert(text)``, rule for rule (pinned by a test against
    the package on generated phrases).

    ``. ? !`` are split off their words; tokens are ``str.split()`` pieces, re-joined with
    single spaces, the three marks glued to the word before them. Number words (matched
    lowercased: zero..nineteen, twenty..ninety, hundred, thousand, million) are read
    left to right into a running value: units and tens **add** (``"twenty one"`` -> 21, but
    also ``"one two"`` -> 3), ``hundred`` multiplies the value so far by 100 (a bare
    ``"hundred"`` is 0), ``thousand``/``million`` move the value so far times the scale
    into the total. ``"and"`` (exactly, lowercase) is deleted when the next token is a
    number word, *even outside a number* (``"cats and two dogs"`` -> ``"cats 2 dogs"``);
    ``"point"`` before a number word ends the integer part (``"one point five"`` ->
    ``"1.5"``; unit words after it are appended as digits, and the total is not reset, so a
    second ``"point"`` adds the last run again). The look-ahead for ``and``/``point``
    compares the next token case-sensitively, as the package does.

    >>> wordtodigits("twenty one dogs and three cats")
    '21 dogs 3 cats'
    >>> wordtodigits("one two"), wordtodigits("hundred"), wordtodigits("one point five")
    ('3', '0', '1.5')
    """
    for mark in _W2D_TERMINATORS:
        text = text.replace(mark, f" {mark} ")
    tokens = text.split()
    tokens.append("")  # the sentinel the package adds: it flushes a number at the end
    parts: list[str] = []
    total = running = 0
    in_number = after_point = False
    for i, word in enumerate(tokens):
        low = word.lower()
        if not after_point and low in _W2D_VALUES:
            in_number = True
            if low == "hundred":
                running *= 100
            elif low in _W2D_SCALES:
                total += running * _W2D_SCALES[low]
                running = 0
            else:
                running += _W2D_VALUES[low]
        elif after_point and low in _W2D_UNITS:
            parts.append(str(_W2D_UNITS[low]))
        elif word == "and" and tokens[i + 1] in _W2D_VALUES:  # never the sentinel: i + 1 exists
            continue
        elif low == "point" and tokens[i + 1] in _W2D_VALUES:
            total += running
            after_point, in_number = True, False
            parts.append(f" {total}.")
        else:
            after_point = False
            glued = word in _W2D_TERMINATORS
            if in_number:
                parts.append(f" {total + running}" + ("" if glued else " ") + word)
                in_number = False
            else:
                parts.append(word if glued else f" {word}")
            total = running = 0
    # the package drops the first and the last character of what it built: the leading space
    # of the first word (or, if the text starts with a mark, the mark) and the sentinel's space
    return "".join(parts)[1:-1]


def numeric_gold(token: str) -> tuple[bool, float | None]:
    """Whether the FusionBrain VQA numeric rule applies to a one-token gold answer
    (``token.isnumeric()``, which also holds for ``"²"``, ``"½"``, ``"五"``), and its
    ``float()`` value (``None`` when ``float()`` cannot read it: the challenge then scores
    every prediction 0 against that gold, its ``try`` swallowing the error).

    >>> numeric_gold("12"), numeric_gold("²"), numeric_gold("12a")
    ((True, 12.0), (True, None), (False, None))
    """
    if not token.isnumeric():
        return False, None
    try:
        return True, float(token)
    except ValueError:
        return True, None


def first_number(tokens: Sequence[str]) -> float | None:
    """The prediction's number for the VQA numeric rule: the first token that begins with a
    digit and that ``float()`` reads (``"3"``, ``"1.5"``, ``"0."``, ``"1e5"``, ``"٣"``), or None.

    The challenge took the first token that NLTK's averaged-perceptron tagger tags ``CD`` and
    that ``float()`` reads. The tagger's parameters (``averaged_perceptron_tagger``) ship in no
    PyPI or Debian package and cannot be downloaded here, so this assumes the tagger's
    behaviour on such tokens: it files every token that begins with a digit under one
    feature (``!DIGITS``, or ``!YEAR`` for four digits) and tags it ``CD``; the words
    ``float()`` also reads (``"nan"``, ``"inf"``, ``"infinity"``) it is taken not to tag
    ``CD``. Where the real tagger decides otherwise, the scores differ (see the METEOR card).
    """
    for tok in tokens:
        if tok[:1].isdigit():
            try:
                return float(tok)
            except ValueError:  # "²", "3d", "1st": the challenge's try skips them too
                continue
    return None


def numeric_similarity(a: float, b: float) -> float:
    """``min / max`` of two non-negative numbers; 1.0 when both are 0.

    >>> numeric_similarity(3, 5)
    0.6
    """
    if a == 0 and b == 0:
        return 1.0
    lo, hi = (a, b) if a <= b else (b, a)
    return lo / hi
