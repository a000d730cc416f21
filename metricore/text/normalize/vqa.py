"""VQA answer processing: the rules of the official VQA evaluation script and of EvalAI.

Restated from GT-Vision-Lab/VQA ``PythonEvaluationTools/vqaEvaluation/vqaEval.py``
(``processPunctuation``, ``processDigitArticle``; identical at the v2.0 release a4f1afd and at
master a013f00) and facebookresearch/mmf ``mmf/utils/m4c_evaluators.py``
(``EvalAIAnswerProcessor``, the TextVQA/EvalAI processor), with every quirk kept:

:func:`vqa_punctuation` (``processPunctuation``)
    For each of the 21 characters ``; / [ ] " { } ( ) = + \\ _ - > < @ ` , ? !`` in turn: it is
    deleted when the **original** text has it next to a space (``"p "`` or ``" p"``) or when
    the original text has a digit, a comma and a digit in a row anywhere (``\\d,\\d``: then
    every one of the 21 is deleted), and replaced by a space otherwise. Then periods are
    deleted by ``re.compile("(?!<=\\d)(\\.)(?!\\d)").sub("", text, re.UNICODE)``: the
    intended lookbehind "not after a digit" is written as a lookahead ``(?!<=\\d)`` (it asks
    that the text at the period not start with ``<=`` and a digit, which a period never does),
    so the rule is "delete every period not followed by a digit" (``"2."`` -> ``"2"``, ``"3.5"``
    and ``".5"`` kept, ``"st. louis"`` -> ``"st louis"``); and ``re.UNICODE`` (32) lands in the
    ``count`` argument of ``sub``, so at most the first 32 such periods are deleted.
    Apostrophes, colons, ``#``, ``$``, ``%``, ``&``, ``*``, ``~``, ``|`` and all non-ASCII
    punctuation are kept.
:func:`vqa_digit_article` (``processDigitArticle``)
    ``lower()``, split on whitespace, map the number words ``none``/``zero``..``ten`` to digits
    (``none`` -> ``"0"``), drop the words ``a``/``an``/``the``, map contractions written
    without apostrophe (``dont`` -> ``don't``; the table :data:`CONTRACTIONS` is the script's,
    including its entries that can never fire, such as ``Im`` after lower-casing, and its
    reversed ``somebody'd`` -> ``somebodyd``), join with single spaces.
:func:`evalai_process` (``EvalAIAnswerProcessor.__call__``)
    ``lower()``; delete every ``,`` and ``?``; ``'s`` -> ``" 's"``; strip; newlines and tabs to
    spaces; strip; then :func:`vqa_punctuation` with mmf's comma test
    ``(?<=\\d)(\\,)+(?=\\d)`` (never true there: the commas are gone already) and
    :func:`vqa_digit_article`.

Every function maps one str to one str and is pure; metrics call them once per distinct
string (:mod:`metricore.metrics.vqa_accuracy` caches them per call).
"""

from __future__ import annotations

import re

__all__ = [
    "ARTICLES",
    "CONTRACTIONS",
    "NUMBER_WORDS",
    "PUNCTUATION",
    "evalai_process",
    "vqa_digit_article",
    "vqa_process",
    "vqa_punctuation",
    "vqa_strip",
]

#: the characters ``processPunctuation`` deletes or turns into a space, in the script's order
PUNCTUATION: tuple[str, ...] = tuple(';/[]"{}()=+\\_-><@`,?!')
_PUNCTUATION_SET = frozenset(PUNCTUATION)

#: the period rule as written in the script (see the module docstring: a lookahead where a
#: lookbehind was meant, so only "not followed by a digit" is tested)
_PERIOD = re.compile(r"(?!<=\d)(\.)(?!\d)")
#: ``sub(repl, text, re.UNICODE)``: the flag is the positional ``count`` argument
_PERIOD_COUNT = int(re.UNICODE)
#: the VQA script's comma test (``commaStrip``), run on the text before any replacement
_VQA_DIGIT_COMMA = re.compile(r"(\d)(\,)(\d)")
#: mmf's ``COMMA_STRIP`` (``EvalAIAnswerProcessor``)
_EVALAI_DIGIT_COMMA = re.compile(r"(?<=\d)(\,)+(?=\d)")

#: ``manualMap``: number words to digits
NUMBER_WORDS: dict[str, str] = {
    "none": "0",
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
ARTICLES = frozenset({"a", "an", "the"})

#: ``contractions`` of the VQA script (the same 120 entries as mmf's ``CONTRACTIONS``); kept
#: verbatim, dead and odd entries included, because any change moves some answer's score
CONTRACTIONS: dict[str, str] = {
    "aint": "ain't",
    "arent": "aren't",
    "cant": "can't",
    "couldve": "could've",
    "couldnt": "couldn't",
    "couldn'tve": "couldn't've",
    "couldnt've": "couldn't've",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "dont": "don't",
    "hadnt": "hadn't",
    "hadnt've": "hadn't've",
    "hadn'tve": "hadn't've",
    "hasnt": "hasn't",
    "havent": "haven't",
    "hed": "he'd",
    "hed've": "he'd've",
    "he'dve": "he'd've",
    "hes": "he's",
    "howd": "how'd",
    "howll": "how'll",
    "hows": "how's",
    "Id've": "I'd've",
    "I'dve": "I'd've",
    "Im": "I'm",
    "Ive": "I've",
    "isnt": "isn't",
    "itd": "it'd",
    "itd've": "it'd've",
    "it'dve": "it'd've",
    "itll": "it'll",
    "let's": "let's",
    "maam": "ma'am",
    "mightnt": "mightn't",
    "mightnt've": "mightn't've",
    "mightn'tve": "mightn't've",
    "mightve": "might've",
    "mustnt": "mustn't",
    "mustve": "must've",
    "neednt": "needn't",
    "notve": "not've",
    "oclock": "o'clock",
    "oughtnt": "oughtn't",
    "ow's'at": "'ow's'at",
    "'ows'at": "'ow's'at",
    "'ow'sat": "'ow's'at",
    "shant": "shan't",
    "shed've": "she'd've",
    "she'dve": "she'd've",
    "she's": "she's",
    "shouldve": "should've",
    "shouldnt": "shouldn't",
    "shouldnt've": "shouldn't've",
    "shouldn'tve": "shouldn't've",
    "somebody'd": "somebodyd",
    "somebodyd've": "somebody'd've",
    "somebody'dve": "somebody'd've",
    "somebodyll": "somebody'll",
    "somebodys": "somebody's",
    "someoned": "someone'd",
    "someoned've": "someone'd've",
    "someone'dve": "someone'd've",
    "someonell": "someone'll",
    "someones": "someone's",
    "somethingd": "something'd",
    "somethingd've": "something'd've",
    "something'dve": "something'd've",
    "somethingll": "something'll",
    "thats": "that's",
    "thered": "there'd",
    "thered've": "there'd've",
    "there'dve": "there'd've",
    "therere": "there're",
    "theres": "there's",
    "theyd": "they'd",
    "theyd've": "they'd've",
    "they'dve": "they'd've",
    "theyll": "they'll",
    "theyre": "they're",
    "theyve": "they've",
    "twas": "'twas",
    "wasnt": "wasn't",
    "wed've": "we'd've",
    "we'dve": "we'd've",
    "weve": "we've",
    "werent": "weren't",
    "whatll": "what'll",
    "whatre": "what're",
    "whats": "what's",
    "whatve": "what've",
    "whens": "when's",
    "whered": "where'd",
    "wheres": "where's",
    "whereve": "where've",
    "whod": "who'd",
    "whod've": "who'd've",
    "who'dve": "who'd've",
    "wholl": "who'll",
    "whos": "who's",
    "whove": "who've",
    "whyll": "why'll",
    "whyre": "why're",
    "whys": "why's",
    "wont": "won't",
    "wouldve": "would've",
    "wouldnt": "wouldn't",
    "wouldnt've": "wouldn't've",
    "wouldn'tve": "wouldn't've",
    "yall": "y'all",
    "yall'll": "y'all'll",
    "y'allll": "y'all'll",
    "yall'd've": "y'all'd've",
    "y'alld've": "y'all'd've",
    "y'all'dve": "y'all'd've",
    "youd": "you'd",
    "youd've": "you'd've",
    "you'dve": "you'd've",
    "youll": "you'll",
    "youre": "you're",
    "youve": "you've",
}


def vqa_strip(text: str) -> str:
    """Newlines and tabs to spaces, then ``strip()`` (what the script does to every answer
    before anything else)."""
    return text.replace("\n", " ").replace("\t", " ").strip()


def vqa_punctuation(text: str, digit_comma: re.Pattern[str] = _VQA_DIGIT_COMMA) -> str:
    """``processPunctuation`` (module docstring); ``digit_comma`` is the comma test."""
    out = text
    if not _PUNCTUATION_SET.isdisjoint(text):
        delete_all = digit_comma.search(text) is not None
        for p in PUNCTUATION:
            # replacing only inserts spaces, so a character absent now stays absent
            if p not in out:
                continue
            if delete_all or p + " " in text or " " + p in text:
                out = out.replace(p, "")
            else:
                out = out.replace(p, " ")
    if "." in out:
        out = _PERIOD.sub("", out, _PERIOD_COUNT)
    return out


#: each word's replacement in ``processDigitArticle`` ("" = dropped): the number words, the
#: articles and the contractions in one table. The script maps number words, then drops
#: articles, then maps contractions; one lookup does the same because no number word maps to
#: an article or a contraction key, and the three key sets are disjoint.
_WORDS: dict[str, str] = {**CONTRACTIONS, **NUMBER_WORDS, **dict.fromkeys(ARTICLES, "")}


def vqa_digit_article(text: str) -> str:
    """``processDigitArticle`` (module docstring)."""
    words = text.lower().split()
    if _WORDS.keys().isdisjoint(words):
        return " ".join(words)
    return " ".join(w for w in (_WORDS.get(w, w) for w in words) if w)


def vqa_process(text: str) -> str:
    """Both rules, as the script applies them to a stripped answer: punctuation, then digits,
    articles and contractions."""
    return vqa_digit_article(vqa_punctuation(text))


def evalai_process(text: str) -> str:
    """``EvalAIAnswerProcessor()(text)`` (module docstring)."""
    text = text.lower().replace(",", "").replace("?", "").replace("'s", " 's").strip()
    text = vqa_strip(text)
    return vqa_digit_article(vqa_punctuation(text, _EVALAI_DIGIT_COMMA))
