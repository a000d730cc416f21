"""Deterministic generators of FusionBrain Challenge 2.0 TextQA / MathQA questions for the
parity sweep against ``tests/oracles/fbc2_text_ref.py``.

Driven by a seeded :class:`random.Random` only. Golds follow the challenge's ground truth
(``[letter, option text, "letter option text"]`` for multiple choice, one free-text answer
otherwise); predictions are what models write: ``"a) на 0,3 секунды"``, ``"A"``,
``"ответ: d"``, the option text inflected differently, number words in several cases
(``"три"``, ``"двух"``, ``"одной"``, ``"никакого"``, ``"сто"``), digits, signed and decimal numbers
(``"-3"``, ``"0,3"``, ``"2.5"``), every ASCII punctuation character, Unicode dashes and
quotes, English words holding the letters a-e (``"bed"``, ``"cab"``: the fallback finds them
inside words), capital option letters (not found by the case-sensitive fallback), Cyrillic
look-alikes of a/c/e, ``ё``, empty and whitespace-only answers.
"""

from __future__ import annotations

import random
import string

__all__ = ["textqa_questions", "mathqa_questions", "answer_like"]

RU_WORDS = (
    "на в по и не кот кошки кошку улица улицы улице Авиаконструктора Сухого Павла Москва Москвы "
    "году года секунда секунды секунду секунд минуты час часа сборная России команда команды "
    "стали сталь стали победила выиграла эстафету ответ правильный вариант ответа ёлка елка её "
    "зелёный красного синий дом дома домов человек люди людей велосипеде лошади машине самокате"
).split()
EN_WORDS = "the a an cat bed cab deed Abc none answer is option x y apple data Excel BED OK".split()
NUMBER_WORDS = (
    "ноль нуля нисколько никакой никакого никакие один одна одной одного два две двух три трёх "
    "четыре пять пяти шесть семь восемь девять десять десяти одиннадцать сто двадцать "
    "one two three ten"
).split()
NUMBERS = ["0", "1", "3", "-3", "-20", "0,3", "0.5", "2.5", "12", "-4", "100", "1976", "3-й", "5%", "+7"]
LETTERS = "abcde"
LOOKALIKES = ["а", "с", "е", "А", "В", "Е"]  # Cyrillic a, es, ie and capitals
PUNCT_WORDS = ["—", "«", "»", "…", "–", "“", "”", "№"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\u00a0"]


def _token(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.40:
        return rng.choice(RU_WORDS)
    if r < 0.55:
        return rng.choice(NUMBER_WORDS)
    if r < 0.67:
        return rng.choice(NUMBERS)
    if r < 0.80:
        return rng.choice(EN_WORDS)
    if r < 0.85:
        return rng.choice(LOOKALIKES)
    if r < 0.90:
        return rng.choice(PUNCT_WORDS)
    word = rng.choice(RU_WORDS + EN_WORDS)
    return rng.choice(string.punctuation) + word + rng.choice(("", rng.choice(string.punctuation)))


def answer_like(rng: random.Random, max_words: int = 5) -> str:
    """Free text of 1..max_words tokens (sometimes empty or punctuation only)."""
    r = rng.random()
    if r < 0.03:
        return ""
    if r < 0.05:
        return rng.choice(SPACES)
    if r < 0.07:
        return rng.choice(["...", "?!", "-", "--", "()", "—"])
    n = rng.randint(1, max_words)
    text = _token(rng)
    for _ in range(n - 1):
        text += rng.choice(SPACES) + _token(rng)
    return text


def _inflect(rng: random.Random, text: str) -> str:
    """The same words with some replaced by other forms or neighbours."""
    words = text.split()
    for i in range(len(words)):
        if rng.random() < 0.3:
            words[i] = _token(rng)
    return " ".join(words) if words else text


def _prediction(rng: random.Random, letter: str, option: str, options: list[str]) -> str:
    other = rng.choice(options)
    wrong = rng.choice([c for c in LETTERS if c != letter])
    forms = [
        f"{letter}) {option}",
        f"{letter.upper()}) {option}",
        letter,
        letter.upper(),
        f"ответ: {letter}",
        f"Ответ: {letter.upper()}",
        f"правильный ответ {letter}",
        f"{letter}. {_inflect(rng, option)}",
        f"{letter}) {other}",
        f"{wrong}) {option}",
        option,
        _inflect(rng, option),
        other,
        f"{option}{rng.choice(string.punctuation)}",
        f"вариант «{letter}»",
        answer_like(rng),
        answer_like(rng) + f" {letter}",
        f"{rng.choice(EN_WORDS)} {option}",
        "",
    ]
    return rng.choice(forms)


def textqa_questions(n: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, golds) pairs: multiple choice and generative questions mixed."""
    rng = random.Random(seed)
    preds: list[str] = []
    golds: list[list[str]] = []
    for _ in range(n):
        if rng.random() < 0.7:
            options = [answer_like(rng, 4) or "ничего" for _ in range(rng.randint(2, 5))]
            k = rng.randrange(len(options))
            letter, option = LETTERS[k], options[k]
            golds.append([letter, option, f"{letter} {option}"])
            preds.append(_prediction(rng, letter, option, options))
        else:
            gold = answer_like(rng, 4)
            golds.append([gold] + ([answer_like(rng, 3)] if rng.random() < 0.3 else []))
            preds.append(
                rng.choice([gold, _inflect(rng, gold), answer_like(rng), gold.upper(), f"a) {gold}"])
            )
    return preds, golds


def mathqa_questions(n: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, golds) pairs with numeric options ``[letter, number, "letter number"]``."""
    rng = random.Random(seed)
    preds: list[str] = []
    golds: list[list[str]] = []
    for _ in range(n):
        options = [rng.choice(NUMBERS + ["-5", "7", "-72", "0,25"]) for _ in range(rng.randint(2, 5))]
        k = rng.randrange(len(options))
        letter, value = LETTERS[k], options[k]
        golds.append([letter, value, f"{letter} {value}"])
        word = rng.choice(["три", "минус три", "пять", "двух", "ноль", "десять"])
        forms = [
            f"{letter}) {value}",
            value,
            value.lstrip("-+"),
            f"-{value}",
            f"ответ: {letter}",
            f"x = {value}",
            f"y={value}.",
            word,
            f"{letter}) {word}",
            letter.upper(),
            f"{rng.choice(LETTERS)}) {rng.choice(options)}",
            answer_like(rng),
            f"{value} ({letter})",
            "",
        ]
        preds.append(rng.choice(forms))
    return preds, golds
