"""The pure-Python PTB tokenizer against the Java ``PTBTokenizer`` that ``pycocoevalcap`` runs.

Token-by-token comparisons with Java (skipped with the reason when ``java`` or
``pycocoevalcap`` is absent; ``scripts/setup`` installs both):

* every Basic Multilingual Plane character in three contexts (letter/digit/upper-case classes);
* pairs of ASCII and common non-ASCII characters in six contexts;
* the tokenizer-hard fragments of the caption generator (quotes, apostrophes, contractions,
  possessives, hyphens, slashes, brackets, numbers, ellipses, currency, abbreviations, URLs,
  Unicode) in twenty contexts, and each at the end of a line followed by another line;
* random mixtures of all of the above (fuzz);
* the 5,000-image caption corpus of the CIDEr parity test.

Without Java: outputs recorded from Java for the known quirks, the documented divergence
(line breaks other than ``"\\n"``), the stored Unicode table, and the scanner's longest-match
rule checked against brute force.
"""

from __future__ import annotations

import random
import string
import unicodedata
import warnings

import pytest

from metricore import coco_tokenize, ptb_tokens
from metricore.text.ptb_tokenize import PUNCTUATION, java_lower
from tests.gen_cider_captions import TRICKY, caption_corpus
from tests.oracles import java_ptb

JAVA = pytest.mark.skipif(
    java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())
)
BREAKS = set("\n\r\x0b\x0c\u2028\u2029")

# Outputs of the Java tokenizer (-preserveLines -lowerCase, one call per group), recorded.
KNOWN = [
    (
        [
            "A man cannot go.",
            "gonna Mass. Ave",
            "U.S. The",
            "a.",
            'The dog (big) "ran" ... \'s',
            "1/2 1 1/2 $5 5,000.50 dell'arte",
            "Mass. ",
            "x",
        ],
        [
            "a man can not go .",
            "gon na mass. . ave",
            "u.s. . the",
            "a .",
            "the dog -lrb- big -rrb- `` ran '' ... 's",
            "1/2 1\xa01/2 $ 5 5,000.50 dell ` arte",
            "mass. .",
            "x",
        ],
    ),
    (
        ["Wanna see? Gotta go!", "Lemme try, gimme that", "'Twas the night", "CANNOT stop"],
        ["wan na see ? got ta go !", "lem me try , gim me that", "'t was the night", "can not stop"],
    ),
    (
        ["mass. Ave", "Mass. Ave", "Wash. x", "wash. x", "Calif. 90210"],
        ["mass . ave", "mass. . ave", "wash. x", "wash . x", "calif. 90210"],
    ),
    (
        ["Room No. 5 here", "No. dogs here", "see fig. 3", "pp. 12-14", "ca. 1900"],
        ["room no. 5 here", "no . dogs here", "see fig. 3", "pp. 12-14", "ca. 1900"],
    ),
    (["in the U.S.", "The dog ran"], ["in the u.s. .", "the dog ran"]),
    (["in the U.S.", "the dog ran"], ["in the u.s.", "the dog ran"]),
    (["plan a.", "A dog"], ["plan a .", "a dog"]),
    (["plan a.", "a dog"], ["plan a.", "a dog"]),
    (["see fig.", "5 dogs"], ["see fig.", "5 dogs"]),
    (["see fig.", "dogs"], ["see fig .", "dogs"]),
    (
        ["“hi” ‘there’ \"you\" 'all' ``x'' «y» „z“"],
        ["`` hi '' ` there ' `` you '' ` all ' `` x '' `` y '' „ z ``"],
    ),
    (["AT&T R&D &amp; &lt;tag&gt; S&P-500 AT&amp;T"], ["at&t r&d & < tag > s&p-500 at&t"]),
    (
        ["½ cup of ¼ and 3½ €5 £3 ¥1 5¢ $ 5 US$10"],
        ["1/2 cup of 1/4 and 3 1/2 $ 5 # 3 ¥ 1 5 cents $ 5 us$ 10"],
    ),
    (
        ["http://x.org/a. www.google.com/maps a@b.com <john@x.org> #tag @user"],
        ["http://x.org/a . www.google.com/maps a@b.com <john@x.org> #tag @user"],
    ),
    (
        ["C++ and C# or F# x-ray well-known -- --- ---- — – pro-choice"],
        ["c++ and c# or f# x-ray well-known -- -- -- -- -- pro-choice"],
    ),
    (
        ["1 1/2 cups (555) 123-4567 10/12/2003 1,000,000 3.14 -5 +5 5:30pm"],
        ["1\xa01/2 cups -lrb-555-rrb-\xa0123-4567 10/12/2003 1,000,000 3.14 -5 +5 5:30 pm"],
    ),
    (
        ["Hello!World what?no e.g. i.e. etc. a.m. p.m. Ph.D. Mr. Smith"],
        ["hello!world what?no e.g. i.e. etc. a.m. p.m. ph.d. . mr. smith"],
    ),
    (["... …  . . . .... wait...what ?! !!! ??"], ["... ... ... ... wait ... what ?! !!! ??"]),
    (
        ["ΑΣ-ΒΣ ΟΔΟΣ café naïve Zoë straße İstanbul Москва 日本語 ＡＢＣ！"],
        ["ασ-βς οδος café naïve zoë straße i̇stanbul москва 日本語 ａｂｃ ！"],
    ),
    (["a 😀 dog 🐶 www.x.com/😀 x\u200by co\xadop ﬁne"], ["a dog www.x.com/😀 x y coop ﬁne"]),
    (["x \xa0a.com", "\xa0a.com"], ["x a.com", "\xa0a.com"]),
    ([":) :-( ;) :D (^_^) ^_^ x_x <3 </3"], [":-rrb- :--lrb- ;-rrb- :d -lrb-^_^-rrb- ^_^ x_x < 3 < / 3"]),
    (
        ["I'm y'all o'clock rock 'n' roll '90s 'em ol' 'til it's IT'S don’t dogs' James' McDonald's"],
        ["i 'm y' all o'clock rock 'n' roll '90s 'em ol' 'til it 's it 's do n't dogs ' james ' mcdonald 's"],
    ),
    (
        ['<b>bold</b> <a href="x y">link</a> <br/> a < b > c <<x>>'],
        ['<b> bold </b> <a\xa0href="x\xa0y"> link </a> <br/> a < b > c << x >>'],
    ),
    (["photo.jpg file.txt. index.html a.txt.txt x.c"], ["photo.jpg file.txt . index.html a.txt.txt x.c"]),
    (
        ["and/or 24/7 w/ w/o km/h TCP/IP 1/1,000,000 3/4-inch"],
        ["and/or 24/7 w / w/o km/h tcp/ip 1/1 ,000,000 3/4-inch"],
    ),
    (["", "   ", "\t", "a  b\tc"], ["", "", "", "a b c"]),
]


def _compare(lines: list[str]) -> list[tuple[str, str, str]]:
    """Lines whose tokens differ from Java's: (line, java, ours)."""
    java = java_ptb.java_lines(lines)
    assert len(java) == len(lines)
    ours = ptb_tokens(lines)
    return [(line, j, " ".join(o)) for line, j, o in zip(lines, java, ours) if j != " ".join(o)]


# ---------------------------------------------------------------------------------- no Java


@pytest.mark.parametrize(("captions", "expected"), KNOWN)
def test_recorded_java_outputs(captions, expected):
    assert [" ".join(t) for t in ptb_tokens(captions)] == expected


def test_coco_tokenize_drops_the_pipeline_punctuation():
    caps = ["A dog's toy (red).", "It's 5:30 p.m. in the U.S.", 'Quotes: "hi" -- and ... ; ok?!', ""]
    assert coco_tokenize(caps) == [
        "a dog 's toy -lrb- red -rrb-",
        "it 's 5:30 p.m. in the u.s.",
        "quotes hi and ok ?!",
        "",
    ]
    assert coco_tokenize([]) == []
    for line in coco_tokenize(["( [ { } ] ) ' ` -- - : ; , . ? ! ..."]):
        assert not set(line.split()) & PUNCTUATION
        assert line.split() == [
            "-lrb-",
            "-lsb-",
            "-lcb-",
            "-rcb-",
            "-rsb-",
            "-rrb-",
        ]  # kept: lowercased names


def test_context_of_the_next_caption():
    # the last word of a caption can depend on the first word of the next one (one text)
    assert coco_tokenize(["in the U.S.", "The dog"])[0] == "in the u.s."  # "U.S." "." (dropped)
    assert ptb_tokens(["plan a.", "A dog"])[0] == ["plan", "a", "."]
    assert ptb_tokens(["plan a.", "a dog"])[0] == ["plan", "a."]
    assert ptb_tokens(["see fig.", "5 dogs"])[0] == ["see", "fig."]
    assert ptb_tokens(["see fig.", "dogs"])[0] == ["see", "fig", "."]


def test_final_sigma_follows_java():
    assert java_lower("ΑΣ-ΒΣ") == "ασ-βς" != "ΑΣ-ΒΣ".lower()
    assert java_lower("ΟΔΟΣ0FTP") == "οδοσ0ftp"
    assert java_lower("ΟΔΟΣ") == "οδος" == "ΟΔΟΣ".lower()
    assert ptb_tokens(["ΟΔΟΣ ΣΤΑΔΙΟΥ"]) == [["οδος", "σταδιου"]]


def test_foreign_line_breaks_are_spaces_with_a_warning():
    with pytest.warns(UserWarning, match=r"captions\[1\].*line break"):
        out = coco_tokenize(["a dog", "a cat\rsits", "a bird"])
    assert out == ["a dog", "a cat sits", "a bird"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coco_tokenize(["no break here", "nor\nhere (a plain newline is a space)"])


def test_bad_input():
    with pytest.raises(TypeError, match=r"captions\[1\]"):
        coco_tokenize(["ok", None])
    with pytest.raises(TypeError, match=r"references\[0\]"):
        coco_tokenize([3], where="references")


def test_inputs_not_mutated():
    caps = ["A dog\nruns.", "x"]
    before = list(caps)
    coco_tokenize(caps)
    ptb_tokens(caps)
    assert caps == before


def test_stored_unicode_table_matches_its_derivation():
    from metricore.text import ptb_tokenize as ptb

    if unicodedata.unidata_version != "14.0.0":
        pytest.skip(
            f"the derivation is exact with Unicode 14.0 (Python 3.11), here {unicodedata.unidata_version}"
        )
    import json
    from importlib import resources

    table = json.loads(resources.files("metricore").joinpath(ptb._CLASS_TABLE).read_text("utf-8"))
    derived = ptb._derive_unicode_classes()
    for name, cps in derived.items():
        stored = []
        for x in table[name]:
            stored.extend([x] if isinstance(x, int) else range(x[0], x[1] + 1))
        assert stored == cps, name


def test_rule_matches_are_the_longest():
    """JFlex takes each rule's longest match (trailing context included, then the longest token);
    Python's regex engine returns its first match. Check the scanner's answer against brute
    force over every end position, on random strings of the characters the rules care about."""
    from metricore.text.ptb_tokenize import _lexer, _longest

    lexer = _lexer()
    rng = random.Random(7)
    alphabet = list("aAbnNtTsSdDlLoOxyM0129.,-'/@&;:()<>_#$!?\" ") + [
        "\u00a0",
        "\u00ad",
        "\u2019",
        "&amp;",
        "&apos;",
        "www.",
        ".com",
        "http://",
        "U.S.",
        "Mr.",
        "Inc.",
        ".txt",
        "n't",
        "'s",
        "The ",
        "Co.",
        "no.",
        "Mass.",
        "<b>",
        "a.",
        "U.S.-U.K.",
        "\n",
    ]
    for _ in range(1500):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        for rule in lexer.rules:
            if rule.trail is None:
                for pat in rule.alts or (rule.main,):
                    m = pat.match(s)
                    if m:
                        got = _longest(rule, pat, s, 0, m.end()) if rule.longest else m.end()
                        assert got == max(
                            e for e in range(len(s) + 1) if e == m.end() or pat.fullmatch(s, 0, e)
                        ), (rule.name, s)
            else:
                best = None
                for e1 in range(1, len(s) + 1):
                    if rule.main.fullmatch(s, 0, e1):
                        for e2 in range(e1, len(s) + 1):
                            if rule.trail.fullmatch(s, e1, e2) and (best is None or (e2, e1) > best):
                                best = (e2, e1)
                assert lexer._match(rule, s, 0) == best, (rule.name, s)


# ------------------------------------------------------------------------------- with Java


@JAVA
def test_every_bmp_character_in_context():
    lines = []
    for cp in range(0x10000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or ch in BREAKS:
            continue
        lines += [f"x{ch}x", f"{ch}.5 z", f"Mass. {ch}"]
    assert _compare(lines) == []


@JAVA
def test_character_pairs():
    chars = sorted(
        set(string.printable.strip())
        | set(
            " \t\u00a0\u00ad\u2019\u2018\u201c\u201d\u2026\u2013\u2014\u00bd"
            "\u00a3\u20ac\u00e9\u00c9\u0436\u4e2d\u3000\u3001\u00ab\u00bb\u0085\u00b0\u2044\u0092"
        )
    )
    lines = []
    for a in chars:
        for b in chars:
            lines += [f"{a}{b}", f"x{a}{b}x", f"{a}x{b}", f"1{a}{b}1", f"A{a}{b}.", f"{a}{b} The x"]
    assert _compare(lines) == []


def _pieces() -> list[str]:
    out = []
    for frags in TRICKY.values():
        for f in frags:
            out.append(f.replace("{w}", "dog").replace("{s}", "man"))
    return out


@JAVA
def test_tokenizer_hard_fragments_in_context():
    pieces = _pieces()
    contexts = [
        "{p}",
        "a {p} b",
        "A {p}",
        "{p}.",
        "{p} The dog",
        "{p} the dog",
        "{p}  x",
        "{p} 5",
        "{p}, x",
        "({p})",
        '"{p}"',
        "{p}'s",
        "x{p}",
        "{p}x",
        "{p} ltd",
        "{p} <b>",
        "{p}\tx",
        "{p}\u00a0x",
        "{p} .",
        "{p} . . .",
    ]
    lines = [c.replace("{p}", p) for p in pieces for c in contexts]
    rng = random.Random(3)
    for p in pieces:  # a caption's end followed by another caption
        for q in rng.sample(pieces, 10):
            lines += [f"x {p}", q]
    assert _compare(lines) == []


@JAVA
def test_fuzz():
    rng = random.Random(11)
    pieces = _pieces()
    words = "a an the man dog cat on top of table with red shirt two people in park A The Two Man".split()
    seps = [" "] * 10 + [
        "",
        "  ",
        "\t",
        "\u00a0",
        ".",
        ",",
        "-",
        "'",
        '"',
        "/",
        "(",
        ")",
        ". ",
        " .",
        "&",
        "@",
        ":",
        ";",
        "!",
        "?",
        "\u2019",
        "_",
        "0",
        "1 ",
        " 2",
        "\u3000",
        "\u2009",
        "\x85",
        "\u2026",
        "<",
        ">",
        "=",
    ]
    pool = [
        chr(c)
        for c in [
            *range(32, 127),
            0xA0,
            0xAD,
            0xE9,
            0x436,
            0x4E2D,
            0x2019,
            0x201C,
            0x2013,
            0xBD,
            0x20AC,
            0x3001,
            0xFF01,
            0x1F600,
            0x200B,
            0xFEFF,
            0x7F,
            0x0,
            0x1C,
            0x85,
            0x3A3,
        ]
    ]
    lines = []
    for _ in range(30000):
        parts = []
        for _ in range(rng.randint(1, 8)):
            r = rng.random()
            if r < 0.45:
                parts.append(rng.choice(pieces))
            elif r < 0.85:
                parts.append(rng.choice(words))
            else:
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 4))))
            parts.append(rng.choice(seps))
        s = "".join(parts)
        lines.append(s.upper() if rng.random() < 0.3 else s)
    assert _compare(lines) == []


@JAVA
def test_caption_corpus_token_by_token():
    hyps, refs = caption_corpus(5000)
    flat = [c for rs in refs for c in rs]
    assert _compare(flat) == []
    assert _compare(hyps) == []


@JAVA
@pytest.mark.xfail(
    strict=True,
    reason=(
        "documented divergence: a '\\r' (or \\x0b, \\x0c, U+2028, U+2029) inside a caption makes the Java "
        "tokenizer print an extra line, so pycocoevalcap pairs every later caption with the wrong "
        "line; metricore reads the character as a space and keeps each caption's own tokens"
    ),
)
def test_divergence_foreign_line_break():
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    caps = ["a dog\rsits", "a cat", "a bird"]
    java = PTBTokenizer().tokenize({i: [{"caption": c}] for i, c in enumerate(caps)})
    with pytest.warns(UserWarning):
        ours = coco_tokenize(caps)
    assert [java[i][0] for i in range(3)] == ours
