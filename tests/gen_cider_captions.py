"""Deterministic image-caption corpora for the CIDEr parity tests and benchmark.

:func:`caption_corpus` makes ``n`` images, each with a candidate caption and ``refs_per_image``
reference captions about one generated scene (subject, action, object, place, colour, count),
so that CIDEr scores spread over their whole range. A share of the captions (``rich``) carries
text that PTB tokenizers disagree on: quotes of every kind, apostrophes, contractions and
possessives, hyphens and dashes, slashes, brackets, numbers with commas, decimals, fractions
and units, ellipses, currency, abbreviations (``Mr.``, ``U.S.``, ``Mass.``, ``a.``), URLs and
e-mail addresses, accented, Greek, Cyrillic and CJK letters, Unicode punctuation, emoji,
no-break and soft hyphens, doubled spaces, tabs, an embedded ``"\\n"``, upper-case captions
and empty candidates. Characters that make the Java tokenizer emit extra lines (``"\\r"``,
U+2028 ...) are left out: that divergence is tested separately.

Every random choice goes through one ``random.Random(seed)``.
"""

from __future__ import annotations

import hashlib
import json
import random

__all__ = ["DEFAULT_SEED", "caption_corpus", "fingerprint", "TRICKY"]

DEFAULT_SEED = 20150206

SUBJECTS = [
    "man",
    "woman",
    "dog",
    "cat",
    "child",
    "boy",
    "girl",
    "person",
    "horse",
    "bird",
    "player",
    "giraffe",
    "elephant",
    "surfer",
    "skateboarder",
    "chef",
    "couple",
    "bear",
    "zebra",
    "cow",
]
ACTIONS = [
    "sitting on",
    "standing next to",
    "riding",
    "holding",
    "looking at",
    "walking past",
    "playing with",
    "eating",
    "lying on",
    "jumping over",
    "carrying",
    "throwing",
]
OBJECTS = [
    "a bench",
    "a frisbee",
    "a skateboard",
    "a surfboard",
    "a pizza",
    "a laptop",
    "a kite",
    "an umbrella",
    "a bicycle",
    "a sandwich",
    "a table",
    "a teddy bear",
    "a ball",
    "a bus",
]
PLACES = [
    "in a park",
    "on the beach",
    "in the kitchen",
    "on a city street",
    "in a field",
    "at the zoo",
    "near the water",
    "in a living room",
    "on a snowy hill",
    "at the airport",
]
COLORS = ["red", "blue", "green", "white", "black", "yellow", "brown", "orange"]
COUNTS = ["two", "three", "four", "several", "many", "a few"]
ADJS = ["small", "large", "young", "old", "happy", "little", "big", "cute"]
TEMPLATES = [
    "A {adj} {subj} {act} {obj} {place}",
    "{Count} {subj}s {act} {obj} {place}",
    "A {color} {obj_bare} with a {subj} {place}",
    "The {subj} is {act} {obj}",
    "There is a {subj} {act} {obj} {place}",
    "{Adj} {subj} {act} a {color} {obj_bare}",
    "A {subj} that is {act} {obj} {place}",
    "An image of a {subj} {act} {obj}",
]

#: Fragments that PTB tokenizers split in different ways, by kind.
TRICKY: dict[str, list[str]] = {
    "quotes": [
        '"{w}"',
        "'{w}'",
        "\u201c{w}\u201d",
        "\u2018{w}\u2019",
        "``{w}''",
        "\u00ab{w}\u00bb",
        "\u201e{w}\u201c",
        '"{w}',
        '{w}"',
        "&quot;{w}&quot;",
        "'{w}",
    ],
    "contractions": [
        "it's",
        "isn't",
        "can't",
        "won't",
        "they're",
        "cannot",
        "gonna",
        "wanna",
        "don\u2019t",
        "I'm",
        "we'll",
        "you've",
        "he'd",
        "y'all",
        "o'clock",
        "'em",
        "rock 'n' roll",
        "ain't",
        "Cannot",
        "GOTTA",
        "'tis",
        "c'mon",
        "dell'arte",
        "O'Brien",
        "d'Artagnan",
        "l'amour",
        "li'l",
        "ol'",
    ],
    "possessives": [
        "the {s}'s",
        "the {s}s'",
        "James' {s}",
        "McDonald's",
        "the {s}\u2019s",
        "everyone's",
        "the children's",
        "Mary's",
        "its",
        "the {s}`s",
    ],
    "hyphens": [
        "well-dressed",
        "x-ray",
        "two-story",
        "-",
        "--",
        "---",
        "\u2014",
        "\u2013",
        "a - b",
        "{w}-{w}",
        "pro-choice",
        "anti-war",
        "e-mail",
        "co-op",
        "U.S.-based",
        "1990-1991",
        "-{w}",
        "{w}-",
        "non-stop",
        "T-shirt",
        "up-to-date",
        "\u2010",
        "x_y",
        "self\u2011driving",
    ],
    "slashes": [
        "and/or",
        "24/7",
        "w/",
        "1/2",
        "km/h",
        "he/she",
        "a/b/c",
        "w/o",
        "/",
        "1/1,000,000",
        "3/4-inch",
        "TCP/IP",
        "10/12/2003",
    ],
    "brackets": [
        "({w})",
        "[{w}]",
        "{{{w}}}",
        "(left)",
        ":)",
        ":-(",
        ";)",
        ":D",
        "(^_^)",
        "<3",
        "((x))",
        "(1)",
        "( {w} )",
        "<b>{w}</b>",
        "a < b",
        "->",
        "(sic)",
    ],
    "numbers": [
        "1,000",
        "3.5",
        "10,000.50",
        "1 1/2",
        "\u00bd",
        "No. 5",
        "no. 5",
        "5:30",
        "1990s",
        "'90s",
        "2nd",
        "15,000-pound",
        "0.75",
        ".5",
        "-3",
        "+4",
        "100%",
        "5pm",
        "12:00",
        "1.2.3",
        "3\u00bd",
        "\u2153",
        "#1",
        "555-123-4567",
        "(555) 123-4567",
        "1.000,50",
        "6'2\"",
        "4x4",
        "2x",
        "10km",
        "\u0663\u0664",
        "\u00b2",
    ],
    "ellipses": [
        "...",
        "\u2026",
        ". . .",
        "....",
        "{w}...",
        "{w}\u2026{w}",
        "......",
        ". .",
        "?!",
        "!!!",
        "??",
        "{w}!",
        "{w}?",
    ],
    "currency": [
        "$5",
        "$5.00",
        "US$10",
        "\u20ac20",
        "\u00a33",
        "\u00a5100",
        "5\u00a2",
        "\u20b91",
        "$ 5",
        "5 dollars",
        "\u20ac",
        "#5",
        "\u00a3{w}",
    ],
    "abbreviations": [
        "Mr. Smith",
        "Dr. Jones",
        "St. Louis",
        "U.S.",
        "U.S. The",
        "a.m.",
        "p.m.",
        "etc.",
        "vs.",
        "Mass.",
        "e.g.",
        "i.e.",
        "Inc.",
        "Co. Ltd",
        "Jan.",
        "Calif.",
        "Ph.D.",
        "Mt. Fuji",
        "a.",
        "I.",
        "Fig. 3",
        "No.",
        "Jr.",
        "Ave.",
        "U.K.",
        "ill.",
        "Wash.",
        "a.k.a.",
        "Bros.",
        "approx.",
    ],
    "web": [
        "www.example.com",
        "http://x.org/a/b",
        "a@b.com",
        "#tag",
        "@user",
        "photo.jpg",
        "index.html",
        "google.com",
        "<john@x.org>",
        "https://www.x.co.uk/p.html",
        "C++",
        "C#",
        "AT&T",
        "R&D",
        "&amp;",
        "S&P-500",
        "&lt;",
        "&",
    ],
    "unicode": [
        "caf\u00e9",
        "na\u00efve",
        "Zo\u00eb",
        "stra\u00dfe",
        "\u0130stanbul",
        "\u039f\u0394\u039f\u03a3",
        "\u041c\u043e\u0441\u043a\u0432\u0430",
        "\u65e5\u672c",
        "\uff21\uff22\uff23",
        "\uff01",
        "\u00bfQu\u00e9?",
        "\u00a1Hola!",
        "\u2022",
        "\u00b7",
        "\u00a9",
        "\u00ae",
        "\u2122",
        "\u00b0C",
        "\u00b1",
        "\u00d7",
        "\u00f7",
        "\U0001f600",
        "\U0001f436 dog",
        "e\u0301t\u00e9",
        "{w}\u00a0{w}",
        "co\u00adop",
        "\u3001",
        "\u3002",
        "\u300c{w}\u300d",
        "\u00c6r\u00f8",
        "\ufb01ne",
        "\u03a3\u039f\u03a6\u0399\u0391",
        "\u0391\u03a3-\u0392\u03a3",
        "\u2160",
        "\u2460",
        "H\u2082O",
        "\u00b5m",
        "\u2116 5",
        "\u00a7 3",
        "\u2020",
        "\u2030",
        "\u05e2\u05d1\u05e8\u05d9\u05ea",
        "\u0639\u0631\u0628\u064a",
        "\ud55c\uad6d",
        "{w}\u3000{w}",
        "{w}\u2009{w}",
        "\u200b{w}",
        "\u00c9COLE",
        "\u0416\u0423\u041a",
    ],
}
_KINDS = list(TRICKY)
_ENDINGS = ["."] * 6 + [""] * 6 + [" .", "!", "?", "...", " ", ". ", "\u2026", ".."]


def _scene(rng: random.Random) -> dict[str, str]:
    return {
        "subj": rng.choice(SUBJECTS),
        "act": rng.choice(ACTIONS),
        "obj": rng.choice(OBJECTS),
        "place": rng.choice(PLACES),
        "color": rng.choice(COLORS),
        "count": rng.choice(COUNTS),
        "adj": rng.choice(ADJS),
    }


def _plain(rng: random.Random, scene: dict[str, str]) -> str:
    s = dict(scene)
    # paraphrase: swap one slot now and then
    if rng.random() < 0.35:
        s["act"] = rng.choice(ACTIONS)
    if rng.random() < 0.25:
        s["place"] = rng.choice(PLACES)
    if rng.random() < 0.2:
        s["adj"] = rng.choice(ADJS)
    text = rng.choice(TEMPLATES).format(
        adj=s["adj"],
        Adj=s["adj"].capitalize(),
        subj=s["subj"],
        act=s["act"],
        obj=s["obj"],
        obj_bare=s["obj"].split(" ", 1)[1],
        place=s["place"],
        color=s["color"],
        Count=s["count"].capitalize(),
    )
    return text


def _fragment(rng: random.Random, scene: dict[str, str]) -> str:
    frag = rng.choice(TRICKY[rng.choice(_KINDS)])
    word = rng.choice([scene["subj"], scene["color"], scene["obj"].split(" ", 1)[1], "dog", "Big"])
    return frag.replace("{w}", word).replace("{s}", scene["subj"])


def _decorate(rng: random.Random, text: str, scene: dict[str, str], rich: float) -> str:
    words = text.split(" ")
    if rng.random() < rich:
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            words.insert(rng.randint(0, len(words)), _fragment(rng, scene))
    text = " ".join(words)
    if rng.random() < rich * 0.3:  # whitespace damage
        text = rng.choice(
            [
                lambda t: t.replace(" ", "  ", 1),
                lambda t: t.replace(" ", "\t", 1),
                lambda t: " " + t,
                lambda t: t + "  ",
                lambda t: t.replace(" ", "\n", 1),
                lambda t: t.replace(" ", "\u00a0", 1),
            ]
        )(text)
    r = rng.random()
    if r < 0.06:
        text = text.upper()
    elif r < 0.5:
        text = text[:1].upper() + text[1:]
    else:
        text = text[:1].lower() + text[1:]
    return text + rng.choice(_ENDINGS)


def caption_corpus(
    n: int, refs_per_image: int = 5, seed: int = DEFAULT_SEED, rich: float = 0.5
) -> tuple[list[str], list[list[str]]]:
    """``n`` candidate captions and, per image, ``refs_per_image`` reference captions.

    ``rich`` is the share of captions given tokenizer-hard fragments (0 gives plain
    COCO-like captions). About 1% of candidates are empty, 3% copy a reference, and 2% of
    images repeat a reference (duplicates are legal in COCO).
    """
    rng = random.Random(seed)
    hyps: list[str] = []
    refs: list[list[str]] = []
    for _ in range(n):
        scene = _scene(rng)
        rs = [_decorate(rng, _plain(rng, scene), scene, rich) for _ in range(refs_per_image)]
        if refs_per_image > 1 and rng.random() < 0.02:
            rs[-1] = rs[0]
        r = rng.random()
        if r < 0.01:
            hyp = ""
        elif r < 0.04:
            hyp = rng.choice(rs)
        elif r < 0.12:  # a caption of another scene
            other = _scene(rng)
            hyp = _decorate(rng, _plain(rng, other), other, rich)
        else:
            hyp = _decorate(rng, _plain(rng, scene), scene, rich)
        hyps.append(hyp)
        refs.append(rs)
    return hyps, refs


def fingerprint(*columns: object) -> str:
    """A short hash of the generated data, to tell which corpus a result measured."""
    h = hashlib.sha256(json.dumps(columns, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()[:12]


def tokenized_corpus(n: int, seed: int, rich: float = 0.5) -> tuple[list[str], list[list[str]]]:
    """:func:`caption_corpus` PTB-tokenized as ``COCOEvalCap`` tokenizes it (references of all
    images in one call, candidates in another)."""
    from metricore.text.ptb_tokenize import coco_tokenize

    hyps, refs = caption_corpus(n, seed=seed, rich=rich)
    flat = coco_tokenize([r for rs in refs for r in rs], where="references")
    out, k = [], 0
    for rs in refs:
        out.append(flat[k : k + len(rs)])
        k += len(rs)
    return coco_tokenize(hyps, where="predictions"), out
