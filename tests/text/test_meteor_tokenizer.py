"""The METEOR `nltk_line` tokenizer (metricore.text.treebank) vs `nltk.word_tokenize(text,
preserve_line=True)`: the per-piece decomposition, the shapes and the whole-text rules must
give NLTK's tokens on every string (edge cases of each rule, every piece in every context,
random and caption-like strings, real English text from WordNet's glosses)."""

from __future__ import annotations

import random

import pytest

nltk = pytest.importorskip("nltk")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from nltk.tokenize import word_tokenize  # noqa: E402

from metricore.metrics.meteor import tokenize  # noqa: E402
from metricore.text import treebank as tb  # noqa: E402


def _ref(text: str) -> list[str]:
    return word_tokenize(text, preserve_line=True)


def _same(text: str) -> None:
    assert tb.word_tokenize_line(text) == _ref(text), text


# One or more strings per rule and per condition of the decomposition (module docstring).
EDGE = [
    "",
    " ",
    "\t\n",
    "a",
    "A dog runs.",
    "A dog runs .",
    "dogs",
    "two dogs",
    # start of text: ^" and the final-period rule's [^.] at position 0
    '"Hi" he said.',
    ' "Hi" he said.',
    '\t"Hi"',
    "''Hi''",
    " ''Hi''",
    ".",
    ". .",
    ".a",
    "a .",
    " .",
    # quotes after a space / bracket / other whitespace
    'say "yes" (and "no")',
    'say\t"yes"',
    'say\n"yes"',
    'x ("y")',
    "x ''y''",
    "x\t''y''",
    "``a''",
    "```a",
    # apostrophes: contractions, possessives, leading/trailing, doubled, the ' ' rule
    "it's",
    "dogs' bones",
    "the dogs' ",
    "dogs'\tbones",
    "dogs'",
    "' a",
    "a '",
    "a ' b",
    "dogs' 'bones'",
    "x' 'y",
    "''",
    "'''",
    "a''b",
    "'tis 'Twas",
    "d'ye more'n",
    "I'M they'RE we'LL",
    "don't DON'T DoN't",
    "rock'n'roll",
    "'90s",
    "o'clock",
    "y'all'd've",
    "''a'' b''",
    "'s 's",
    "a 's",
    "I 'm",
    "can't.",
    # commas and colons before digits, letters, whitespace, end
    "1,000 and 3:45",
    "a,b a:b",
    "a, b",
    "a,",
    "a:",
    "a,,",
    "a,,\n",
    "a, ,b",
    ",",
    ",a",
    "a ,1",
    "x,\t",
    "x:\n",
    # periods: final, inside, several, followed by closers and spaces
    "e.g. U.S. etc.",
    "Mr. Smith.",
    "end...",
    "end..",
    "a... b",
    "end.)",
    'end.")',
    "end. )",
    'end. "',
    "end.\t)",
    "end .'",
    "(end.) ",
    "x.\n",
    "x.  ",
    "x. \n ",
    "...",
    "....",
    "a.b.c.",
    ".)",
    ". )",
    ')"',
    "a )",
    'a "',
    # other punctuation, brackets, dashes
    "a;b@c#d$e%f&g",
    "what?!",
    "a*b",
    "a--b",
    "a - b",
    "[a]{b}<c>",
    "a---b",
    "--",
    "a-",
    "-a",
    # MacIntyre contractions and words that only look like them
    "cannot gonna gotta gimme lemme wanna",
    "Cannot.",
    "wanna,",
    "wannabe gonnas",
    "xcannot",
    "can not",
    "x ²cannot y",
    "½gonna",
    "gİmme",
    "gımme",
    "wanna\x1c",
    "wanna\t",
    # separators: tabs, newlines, several spaces, leading/trailing, \x1c-\x1f, non-ASCII spaces
    "a  b",
    "a\tb.",
    "a\nb",
    " a b ",
    "a b\n",
    "\ta,b\t",
    "a\x1cb",
    "dogs.\x1c",
    "it's\x1cok",
    'a \x1c"b',
    "a\xa0b.",
    "a\u2009'b'",
    "a\u3000(b)",
    # non-ASCII letters, quotes, dashes
    "кот сидит на ковре.",
    "«кот»",
    "“quoted” ‘single’ „low“",
    "a—b–c",
    "café's",
    "naïve, really.",
    "日本語のテキスト。",
    "é'",
    "’tis",
    "x»",
    # digits and underscores inside words (shape placeholders)
    "a_b, c_1.",
    "3.5kg, 10x",
    "_,",
    "0,0",
    "a1,2b",
    "x_'s",
    "0's",
    "1990s' best",
]


@pytest.mark.parametrize("text", EDGE)
def test_edge_cases_cold_and_cached(text):
    tb.clear_cache()
    _same(text)
    _same(text)


PIECES = [
    "dog",
    "dog.",
    "dog,",
    "dog:",
    "dog's",
    "dogs'",
    "'dog",
    "'dog'",
    '"dog',
    'dog"',
    '"dog"',
    "(dog",
    "dog)",
    "dog.)",
    'dog."',
    "dog.'",
    "dog...",
    "dog!",
    "dog?",
    "dog;",
    "can't",
    "'s",
    "'",
    "''",
    '"',
    ".",
    ",",
    ")",
    "``",
    "--",
    "a-b",
    "1,000",
    "3.5",
    "x_y",
    "0.",
    "e.g.",
    "U.S.",
    "it's.",
    "'tis",
    "gonna",
    "Cannot",
    "d'ye",
]
SEPARATORS = [" ", "  ", "\t", "\n", " \t"]


def test_every_piece_in_every_context():
    """A piece between other pieces, at the start, at the end, alone; any separator."""
    rng = random.Random(5)
    for piece in PIECES:
        for sep in SEPARATORS:
            for before, after in [
                ("", ""),
                ("x", ""),
                ("", "y"),
                ("x", "y"),
                ("x. ", " y."),
                ("''", "'"),
                ('"', '"'),
            ]:
                left = f"{before}{sep}" if before else ""
                right = f"{sep}{after}" if after else ""
                _same(left + piece + right)
            other = rng.choice(PIECES)
            _same(f"{other}{sep}{piece}{sep}{rng.choice(PIECES)}")
            _same(f"{sep}{piece}{sep}")


ALPHABET = "ab Zc09 '\"`.,:;!?()[]{}<>-*&$%#@\t\n_/~\x0b\x1c"
EXTRA = [
    "can't",
    "cannot",
    "gonna",
    "wanna",
    "d'ye",
    "more'n",
    "'tis",
    "'Twas",
    "It's",
    "''",
    "``",
    "--",
    "...",
    "n't",
    "N'T",
    "I'M",
    "they'RE",
    "'LL",
    "é",
    "«",
    "“",
    "’",
    "—",
    "кот",
    "gİmme",
    "\xa0",
    "1,000",
    'a."',
]


def _random_text(rng: random.Random) -> str:
    parts = [
        rng.choice(EXTRA)
        if rng.random() < 0.35
        else "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6)))
        for _ in range(rng.randint(0, 8))
    ]
    out = rng.choice(["", "", " ", "\t"])
    for k, part in enumerate(parts):
        out += (rng.choice([" ", " ", " ", "", "  ", "\t", "\n"]) if k else "") + part
    return out + rng.choice(["", "", "", " ", "\n"])


WORDS = "a the dog dogs man woman's kid it's don't can't won't I'm they're cannot gonna 1990s 3.5 1,000 U.S. e.g. x-ray".split()
PUNCT = [
    ".",
    ",",
    "!",
    "?",
    ";",
    ":",
    "...",
    "--",
    "'s",
    "n't",
    '"',
    "'",
    "(",
    ")",
    "-",
    "&",
    "$",
    "%",
    "*",
    "''",
    "``",
]


def _caption(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
    for _ in range(rng.randint(0, 4)):
        k = rng.randrange(len(words))
        p = rng.choice(PUNCT)
        r = rng.random()
        words[k] = words[k] + p if r < 0.4 else p + words[k] if r < 0.7 else words[k]
        if r >= 0.7:
            words.insert(k, p)
    text = " ".join(words)
    if rng.random() < 0.3:
        text = rng.choice(['"', "'", "(", ""]) + text + rng.choice(['"', "'", ")", ".", '."', ".')", ""])
    if rng.random() < 0.1:
        text = text.replace(" ", rng.choice(["  ", "\t", "\n"]), 1)
    return text


def test_random_and_caption_like_strings_cold(monkeypatch):
    """Every layer is exercised (counted), caches emptied now and then."""
    calls = {"whole": 0, "irregular": 0, "shape": 0}
    whole, irregular, shape = tb._whole, tb._irregular, tb._shape_template

    def count(name, fn):
        def wrapped(*args):
            calls[name] += 1
            return fn(*args)

        return wrapped

    monkeypatch.setattr(tb, "_whole", count("whole", whole))
    monkeypatch.setattr(tb, "_irregular", count("irregular", irregular))
    monkeypatch.setattr(tb, "_shape_template", count("shape", shape))
    rng = random.Random(17)
    for k in range(12000):
        if k % 3000 == 0:
            tb.clear_cache()
        _same(_random_text(rng))
        _same(_caption(rng))
    assert min(calls.values()) > 100, calls


RUNS = [
    "d",
    "D",
    "more",
    "ye",
    "yen",
    "yeN",
    "tis",
    "tisn",
    "twas",
    "n",
    "N",
    "nn",
    "s",
    "sn",
    "t",
    "T",
    "ll",
    "LL",
    "re",
    "ven",
    "m",
    "M",
    "ab",
    "abn",
    "x",
    "0",
    "_n",
    "0n",
    "can",
    "don",
    "I",
    "it",
    "y",
    "all",
]


def _apostrophe_piece(rng: random.Random) -> str:
    out = rng.choice(["", "", "'", '"', "("])
    k = rng.randint(1, 4)
    for i in range(k):
        out += rng.choice(RUNS)
        if i < k - 1:
            out += rng.choice(["'", "'", "'", "''", "-", "."])
    return out + rng.choice(["", "", "", ".", ",", '"', ")", "!", ":"]) + rng.choice(["", "", "'"])


def test_apostrophe_runs_in_shapes():
    """Runs next to apostrophes (d'ye, more'n, n't splitting a run, 'tis): the shapes keep
    the letters these rules read (a variant that shaped runs between two apostrophes fails
    here: ``"d'yen't"``)."""
    rng = random.Random(2)
    tb.clear_cache()
    for _ in range(12000):
        _same(
            rng.choice([" ", " ", "  ", "\t"]).join(_apostrophe_piece(rng) for _ in range(rng.randint(1, 4)))
        )
    for text in ["d'yen't", "d'yeN'T", "more'nn't", "'tisn't", "x'an'y", "rock'n'roll", "y'all'd've"]:
        _same(text)


def test_real_english_text_wordnet_glosses():
    """Glosses and example sentences of WordNet 3.0 (quotes, semicolons, parentheses)."""
    from metricore.lexicon.wordnet import ensure_wordnet

    corpus = ensure_wordnet().corpus_dir
    lines = []
    for pos in ("noun", "verb", "adj", "adv"):
        with open(corpus / f"data.{pos}", encoding="utf-8") as fh:
            lines.extend(
                line.split("|", 1)[1].strip() for line in fh if "|" in line and not line.startswith("  ")
            )
    tb.clear_cache()
    for text in random.Random(3).sample(lines, 8000):
        _same(text)


_UNITS = list("ab A0 '\"`.,:;!?()-*$\t\n_") + ["n't", "'s", "can", "not", "wan", "na", "«", "’"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_UNITS), max_size=25).map("".join))
def test_hypothesis_strings(text):
    _same(text)


def test_meteor_tokenize_caches_nltk_tokens():
    text = "She said: \"It's the dogs' bone, isn't it?\""
    assert tokenize(text) == tuple(_ref(text))
    assert tokenize(text) is tokenize(text)
