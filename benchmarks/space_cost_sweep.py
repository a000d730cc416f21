"""The points of the Spaces' cost calibration (``bench_space_cost.py``): every metric and
config of the registry at small, medium and limit sizes, the options and paths that change
the work, and the requests that broke the previous constants (issue 26):

* METEOR 1.5, one prediction of 1,000 one-letter words against two references of the same
  length (estimated 6.5 s, took 40 s: the alignment search among repeated words);
* METEOR (NLTK), 5,000 one-word rows with their explanations (estimated 1.6 s, took 21.7 s);
* 200 rows x 10 references of one repeated sentence (estimated 46 s, took 0.5 s);
* ANLS*, lists of 250 two-string lists (estimated 14 s, took 0.6 s).

Every point is built from a fixed seed, so the benchmark and the test that holds the model to
the published table (``tests/spaces/test_space_cost_model.py``) build the same requests.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: common English words (real words: stems, WordNet synonyms and paraphrases are found)
ENGLISH = (
    "a the man woman dog cat bird horse car bus train boat bike street road field park beach "
    "water grass tree house room table chair bed window door kitchen plate food pizza cake "
    "sandwich ball game player team child girl boy people group small large big red blue green "
    "white black brown young old tall sitting standing walking running riding playing eating "
    "holding looking flying jumping lying on in at with near next to of and under over front "
    "top side two three several many some is are sits stands walks runs rides plays eats holds "
    "looks flies jumps lies shows has its their his her an this that wave surfboard snow ski "
    "skateboard tennis racket frisbee kite umbrella phone computer laptop desk book clock sign "
    "light pole fence wall building city sky cloud sun mountain hill river lake sea ocean sand"
).split()
#: Russian words (pymorphy3 lemmas and the wiki-ru-wordnet thesaurus find them)
RUSSIAN = (
    "кот кошка собака человек мужчина женщина ребёнок дом улица машина дерево трава небо река "
    "море пляж стол стул окно дверь комната еда хлеб вода красный синий зелёный белый чёрный "
    "большой маленький сидит стоит идёт бежит едет играет ест держит смотрит лежит на в с под "
    "над у около два три много несколько город парк поле гора лес солнце облако снег мяч"
).split()
CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"


def letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(string.ascii_letters + " ", k=n))


def new_words(rng: random.Random, n: int, length: int = 7, alphabet: str = string.ascii_lowercase) -> str:
    """``n`` random words: words nobody looked up before (stems and synonyms looked up cold)."""
    return " ".join("".join(rng.choices(alphabet, k=length)) for _ in range(n))


def vocab_words(rng: random.Random, n: int, vocab: tuple[str, ...] | list[str]) -> str:
    return " ".join(rng.choices(vocab, k=n))


@dataclass(frozen=True)
class Point:
    """One calibration point: a request to a metric's Space (``path="python"``: METEOR 1.5
    forced onto its Python path). ``build`` makes ``(predictions, references)``, or for the
    challenge score ``(per-task inputs, None)``."""

    id: str
    metric: str
    config: str
    label: str
    build: Callable[[], tuple[Any, Any]] = field(repr=False, compare=False)
    options: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None
    path: str | None = None


def _rows(
    n: int, pred: Callable[[random.Random], Any], ref: Callable[[random.Random], Any], seed: int
) -> Callable[[], tuple[list[Any], list[Any]]]:
    def build() -> tuple[list[Any], list[Any]]:
        rng = random.Random(seed)
        return [pred(rng) for _ in range(n)], [ref(rng) for _ in range(n)]

    return build


def _golds(k: int, make: Callable[[random.Random], Any]) -> Callable[[random.Random], list[Any]]:
    return lambda rng: [make(rng) for _ in range(k)]


def _text_pair_points(metric: str, config: str) -> Iterator[Point]:
    shapes = ((5, 12, 1), (200, 50, 3), (2000, 200, 5), (200, 2000, 1), (1000, 2000, 2), (5000, 5, 1))
    for i, (n, chars, k) in enumerate(shapes):
        yield Point(
            f"{metric}/{config}/{n}x{chars}c/{k}g",
            metric,
            config,
            f"{n:,} rows x {chars:,} chars, {k} golds",
            _rows(n, lambda r, c=chars: letters(r, c), _golds(k, lambda r, c=chars: letters(r, c)), i),
        )
    yield Point(
        f"{metric}/{config}/5000x150c/20g",
        metric,
        config,
        "5,000 rows x 150 chars, 20 golds",
        _rows(5000, lambda r: letters(r, 150), _golds(20, lambda r: letters(r, 150)), 9),
    )


def _flat_lists(m: int, length: int) -> Callable[[random.Random], list[str]]:
    return lambda rng: [letters(rng, length) for _ in range(m)]


def _pair_lists(m: int) -> Callable[[random.Random], list[list[str]]]:
    return lambda rng: [[letters(rng, 5), letters(rng, 9)] for _ in range(m)]


def _record(rng: random.Random, keys: int) -> dict[str, Any]:
    return {f"k{j}": letters(rng, 8) for j in range(keys)}


def _anls_star_points() -> Iterator[Point]:
    c = ("anls", "anls_star")
    yield Point(
        "anls/anls_star/2000x40c/3alt",
        *c,
        "2,000 strings of 40 chars, tuples of 3 alternatives",
        _rows(2000, lambda r: letters(r, 40), lambda r: tuple(letters(r, 40) for _ in range(3)), 20),
    )
    for i, (rows, m, length) in enumerate(
        ((100, 20, 7), (20, 100, 7), (1, 400, 7), (1, 800, 30), (5, 200, 60))
    ):
        yield Point(
            f"anls/anls_star/{rows}r/list{m}x{length}c",
            *c,
            f"{rows:,} rows, lists of {m} strings of {length} chars",
            _rows(rows, _flat_lists(m, length), _flat_lists(m, length), 21 + i),
        )
    for i, (rows, m) in enumerate(((4, 50), (1, 100), (1, 250), (1, 400), (1, 800))):
        yield Point(
            f"anls/anls_star/{rows}r/pairs{m}",
            *c,
            f"{rows:,} rows, lists of {m} two-string lists" + (" (issue 26)" if m == 250 else ""),
            _rows(rows, _pair_lists(m), _pair_lists(m), 30 + i),
        )
    yield Point(
        "anls/anls_star/500r/dict10",
        *c,
        "500 dicts of 10 keys",
        _rows(500, lambda r: _record(r, 10), lambda r: _record(r, 10), 40),
    )
    yield Point(
        "anls/anls_star/50r/items30x6",
        *c,
        "50 dicts holding lists of 30 line-item dicts of 6 keys",
        _rows(
            50,
            lambda r: {"total": letters(r, 6), "items": [_record(r, 6) for _ in range(30)]},
            lambda r: {"total": letters(r, 6), "items": [_record(r, 6) for _ in range(30)]},
            41,
        ),
    )


def _dude_points() -> Iterator[Point]:
    c = ("anls", "dude")

    def gold(m: int, length: int) -> Callable[[random.Random], dict[str, Any]]:
        return lambda rng: {
            "answers": [letters(rng, length) for _ in range(m)],
            "answer_type": "list/extractive",
        }

    for i, (rows, m, length) in enumerate(((200, 5, 10), (20, 100, 7), (1, 400, 7))):
        yield Point(
            f"anls/dude/{rows}r/list{m}x{length}c",
            *c,
            f"{rows:,} list questions of {m} answers of {length} chars",
            _rows(rows, _flat_lists(m, length), gold(m, length), 50 + i),
        )
    yield Point(
        "anls/dude/1000r/mixed",
        *c,
        "1,000 questions, list and single answers alternating",
        _rows(
            1000,
            lambda r: [letters(r, 8) for _ in range(3)] if r.random() < 0.5 else letters(r, 20),
            lambda r: {
                "answers": [letters(r, 8) for _ in range(3)],
                "answer_type": r.choice(["list/extractive", "extractive"]),
            },
            56,
        ),
    )
    yield Point(
        "anls/dude/2000x50c/3g",
        *c,
        "2,000 single answers of 50 chars, 3 golds",
        _rows(2000, lambda r: letters(r, 50), _golds(3, lambda r: letters(r, 50)), 55),
    )


def _token_f1_points(config: str, options: dict[str, Any] | None = None) -> Iterator[Point]:
    shapes = ((5, 3, 1), (1000, 12, 3), (5000, 12, 5), (500, 250, 5), (2000, 50, 20), (5000, 2, 1))
    for i, (n, w, k) in enumerate(shapes):
        make = (lambda r, w=w: vocab_words(r, w, ENGLISH)) if i % 2 else (lambda r, w=w: new_words(r, w))
        yield Point(
            f"token_f1/{config}/{n}x{w}w/{k}g",
            "token_f1",
            config,
            f"{n:,} rows x {w} words, {k} golds",
            _rows(n, make, _golds(k, make), 60 + i),
            dict(options or {}),
        )


def _entity_points() -> Iterator[Point]:
    for i, (n, e, w) in enumerate(((100, 5, 2), (2000, 10, 2), (500, 50, 3), (5000, 3, 1))):
        ents = _golds(e, lambda r, w=w: new_words(r, w))
        yield Point(
            f"token_f1/question_level/{n}x{e}e",
            "token_f1",
            "question_level",
            f"{n:,} rows of {e} entities of {w} words",
            _rows(n, ents, ents, 70 + i),
        )


def _quac_points() -> Iterator[Point]:
    for i, (n, w, k) in enumerate(((300, 12, 4), (3000, 12, 4), (500, 100, 4), (1000, 30, 2))):
        yield Point(
            f"token_f1/quac/{n}x{w}w/{k}g",
            "token_f1",
            "quac",
            f"{n:,} dialog turns x {w} words, {k} answers",
            _rows(
                n,
                lambda r, w=w: vocab_words(r, w, ENGLISH),
                lambda r, w=w, k=k, n=n: {
                    "dialog_id": f"d{r.randrange(n // 5 + 1)}",
                    "answers": [vocab_words(r, w, ENGLISH) for _ in range(k)],
                },
                75 + i,
            ),
        )


def _caption_shapes(
    metric: str, config: str, shapes: tuple[tuple[int, int, int, str], ...], seed: int, **extra: Any
) -> Iterator[Point]:
    suffix = "".join(f"/{k}={v}" for k, v in extra.get("options", {}).items())
    if extra.get("path"):
        suffix += f"/{extra['path']}"
    for i, (n, w, k, kind) in enumerate(shapes):
        if kind == "new":

            def make(r: random.Random, w: int = w) -> str:
                return new_words(r, w)
        elif kind == "ru":

            def make(r: random.Random, w: int = w) -> str:
                return vocab_words(r, w, RUSSIAN) if r.random() < 0.7 else new_words(r, w, 6, CYRILLIC)
        else:

            def make(r: random.Random, w: int = w) -> str:
                return vocab_words(r, w, ENGLISH)

        yield Point(
            f"{metric}/{config}/{n}x{w}w/{k}g/{kind}{suffix}",
            metric,
            config,
            f"{n:,} rows x {w} {'new ' if kind == 'new' else ''}{'Russian ' if kind == 'ru' else ''}words, {k} golds",
            _rows(n, make, _golds(k, make), seed + i),
            dict(extra.get("options", {})),
            path=extra.get("path"),
        )


_CAPTIONS = (
    (5, 10, 2, "en"),
    (1000, 12, 5, "en"),
    (300, 12, 5, "new"),
    (100, 60, 5, "en"),
    (2000, 12, 5, "en"),
)


def _sixty() -> tuple[list[str], list[list[str]]]:
    """60 texts of 250 new words cut to 2,000 characters; every row has all 60 as references."""
    rng = random.Random(119)
    texts = [new_words(rng, 250, 8)[:2000] for _ in range(60)]
    return texts, [texts[::-1]] * 60


def _meteor_points() -> Iterator[Point]:
    m = "meteor"
    yield from _caption_shapes(
        m,
        "nltk",
        _CAPTIONS[:4]
        + (
            (500, 250, 5, "en"),
            (2000, 30, 3, "en"),
            (1000, 12, 5, "new"),
            (2500, 12, 5, "new"),
            (4000, 12, 5, "new"),
        ),
        100,
    )
    yield from _caption_shapes(
        m, "nltk", ((1000, 12, 5, "en"), (300, 12, 5, "new")), 110, options={"synonyms": "none"}
    )
    yield Point(
        "meteor/nltk/60x250w/60g/new",
        m,
        "nltk",
        "60 rows of 250 new words (2,000 chars), 60 references each",
        lambda: _sixty(),
    )
    yield Point(
        "meteor/nltk/5000x1w/a",
        m,
        "nltk",
        "5,000 rows of the word 'a' (issue 26)",
        lambda: (["a"] * 5000, [["a"]] * 5000),
    )
    yield Point(
        "meteor/nltk/5000x1w/new",
        m,
        "nltk",
        "5,000 rows of one new word",
        _rows(5000, lambda r: new_words(r, 1), _golds(1, lambda r: new_words(r, 1)), 115),
    )
    sentence = (
        "It is a guide to action which ensures that the military always obeys the commands of the party"
    )
    yield Point(
        "meteor/nltk/200x10g/same",
        m,
        "nltk",
        "200 rows x 10 references of one sentence (issue 26)",
        lambda: ([sentence] * 200, [[sentence] * 10] * 200),
    )
    yield Point(
        "meteor/nltk/200x10g/same/ci",
        m,
        "nltk",
        "the same with a 95% interval",
        lambda: ([sentence] * 200, [[sentence] * 10] * 200),
        confidence=0.95,
    )
    ru = ((5, 6, 1, "ru"), (300, 10, 3, "ru"), (1000, 10, 5, "ru"), (200, 60, 3, "ru"), (2000, 10, 5, "new"))
    yield from _caption_shapes(m, "fbc2_captioning", ru, 120)
    yield from _caption_shapes(
        m, "fbc2_vqa", ((5, 2, 1, "ru"), (2000, 2, 3, "ru"), (500, 8, 3, "ru"), (1000, 4, 5, "ru")), 130
    )
    for path in ("compiled", "python"):
        extra = {"path": path} if path == "python" else {}
        yield from _caption_shapes(m, "meteor_1_5", _CAPTIONS + ((3000, 12, 5, "new"),), 140, **extra)
        suffix = "/python" if path == "python" else ""
        for i, (n, w, k, vocab) in enumerate(
            ((1, 200, 2, 1), (20, 100, 2, 5), (200, 30, 5, 10), (1, 1000, 2, 1))
        ):
            words = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")[:vocab]
            issue = " (issue 26)" if w == 1000 else ""
            yield Point(
                f"meteor/meteor_1_5/{n}x{w}w/{k}g/vocab{vocab}{suffix}",
                m,
                "meteor_1_5",
                f"{n:,} rows x {w} words of {vocab} letter(s), {k} golds{issue}",
                _rows(
                    n,
                    lambda r, w=w, v=words: vocab_words(r, w, v),
                    _golds(k, lambda r, w=w, v=words: vocab_words(r, w, v)),
                    150 + i,
                ),
                path=path if path == "python" else None,
            )


def _cider_points() -> Iterator[Point]:
    shapes = _CAPTIONS + ((200, 250, 5, "en"), (5000, 12, 20, "en"))
    for config in ("cider_d", "cider"):
        yield from _caption_shapes("cider", config, shapes, 200)
    yield from _caption_shapes(
        "cider", "cider_d", ((1000, 12, 5, "en"), (200, 250, 5, "en")), 210, options={"tokenize": False}
    )
    yield from _caption_shapes("cider", "cider_d", ((5000, 20, 20, "en"), (3000, 12, 5, "new")), 220)
    yield Point(
        "cider/cider_d/1000x12w/5g/ci",
        "cider",
        "cider_d",
        "1,000 rows x 12 words, 5 golds, 95% interval",
        _rows(
            1000, lambda r: vocab_words(r, 12, ENGLISH), _golds(5, lambda r: vocab_words(r, 12, ENGLISH)), 215
        ),
        confidence=0.95,
    )


def _coco_points() -> Iterator[Point]:
    for config in ("coco", "bleu", "rouge_l"):
        yield from _caption_shapes("coco_caption", config, _CAPTIONS, 300)
    yield from _caption_shapes("coco_caption", "coco", _CAPTIONS[1:4], 310, options={"meteor": False})


def _interval_points() -> Iterator[Point]:
    """Requests with a 95% bootstrap interval (the metrics whose intervals differ in work)."""
    shapes = (
        ("anls", "docvqa", 2000, lambda r: letters(r, 200), _golds(5, lambda r: letters(r, 200))),
        ("one_minus_ned", "icdar2019", 5000, lambda r: letters(r, 5), _golds(1, lambda r: letters(r, 5))),
        (
            "token_f1",
            "squad",
            5000,
            lambda r: vocab_words(r, 12, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 12, ENGLISH)),
        ),
        (
            "meteor",
            "meteor_1_5",
            1000,
            lambda r: vocab_words(r, 12, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 12, ENGLISH)),
        ),
        (
            "cider",
            "cider_d",
            2000,
            lambda r: vocab_words(r, 12, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 12, ENGLISH)),
        ),
        (
            "cider",
            "cider_d",
            200,
            lambda r: vocab_words(r, 60, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 60, ENGLISH)),
        ),
        (
            "coco_caption",
            "coco",
            1000,
            lambda r: vocab_words(r, 12, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 12, ENGLISH)),
        ),
        (
            "coco_caption",
            "bleu",
            2000,
            lambda r: vocab_words(r, 12, ENGLISH),
            _golds(5, lambda r: vocab_words(r, 12, ENGLISH)),
        ),
    )
    for i, (metric, config, n, pred, ref) in enumerate(shapes):
        yield Point(
            f"{metric}/{config}/{n}r/ci",
            metric,
            config,
            f"{n:,} rows, 95% interval",
            _rows(n, pred, ref, 500 + i),
            confidence=0.95,
        )


def _challenge_points() -> Iterator[Point]:
    def fid(n: int, d: int, seed: int) -> Callable[[], tuple[Any, Any]]:
        def build() -> tuple[Any, Any]:
            rng = random.Random(seed)
            feats = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
            other = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
            return {
                "ImageGeneration": {"clip": 0.3, "generated_features": feats, "real_features": other}
            }, None

        return build

    shapes = (
        (3, 4096),
        (500, 2048),
        (2000, 512),
        (1000, 1024),
        (50, 64),
        (1500, 1500),
        (3000, 2048),
        (800, 4096),
        (5000, 2048),
        (4000, 1024),
    )
    for i, (n, d) in enumerate(shapes):
        yield Point(
            f"challenge_score/fbc2/fid{n}x{d}",
            "challenge_score",
            "fbc2",
            f"FID {n:,} x {d:,}",
            fid(n, d, 400 + i),
            {"missing": "zero"},
        )

    def texts(n: int, seed: int, new: bool) -> Callable[[], tuple[Any, Any]]:
        def build() -> tuple[Any, Any]:
            rng = random.Random(seed)
            if new:
                qa = [new_words(rng, 4) for _ in range(n)]
                caps = [new_words(rng, 8, 6, CYRILLIC) for _ in range(n)]
            else:
                qa = [vocab_words(rng, 4, ENGLISH) for _ in range(n)]
                caps = [vocab_words(rng, 8, RUSSIAN) for _ in range(n)]
            return {
                "TextQA": {"predictions": qa, "references": [[q] for q in qa[::-1]]},
                "ImageCaptioning": {
                    "predictions": caps,
                    "references": [[c] for c in caps[::-1]],
                    "clip": 0.3,
                },
                "VisualQA": {"predictions": qa, "references": [[q] for q in qa]},
                "TRitW": {"predictions": qa, "references": qa[::-1]},
            }, None

        return build

    for i, (n, new) in enumerate(
        ((20, False), (1000, False), (3000, False), (20, True), (1000, True), (3000, True))
    ):
        yield Point(
            f"challenge_score/fbc2/texts{n}" + ("/new" if new else ""),
            "challenge_score",
            "fbc2",
            f"four text tasks of {n:,} rows" + (" of new words" if new else ""),
            texts(n, 410 + i, new),
            {"missing": "zero"},
        )


def _challenge_task_points() -> Iterator[Point]:
    """One text task alone, of many rows of new words or of fewer long texts (each task's
    metric has its own coefficients inside the challenge)."""
    tasks = (
        ("TextQA", False),
        ("MathQA", False),
        ("ImageCaptioning", True),
        ("VisualQA", True),
        ("TRitW", False),
    )
    for t, (task, russian) in enumerate(tasks):
        for j, (n, w, k) in enumerate(((3000, 6, 3), (300, 60, 2))):

            def build(
                task: str = task,
                russian: bool = russian,
                n: int = n,
                w: int = w,
                k: int = k,
                seed: int = 430 + 2 * t + j,
            ) -> tuple[Any, Any]:
                rng = random.Random(seed)
                alphabet = CYRILLIC if russian else string.ascii_lowercase
                preds = [new_words(rng, w, 6, alphabet) for _ in range(n)]
                refs = [[new_words(rng, w, 6, alphabet) for _ in range(k)] for _ in range(n)]
                data: dict[str, Any] = {
                    "predictions": preds,
                    "references": refs if task != "TRitW" else [r[0] for r in refs],
                }
                if task == "ImageCaptioning":
                    data["clip"] = 0.3
                return {task: data}, None

            yield Point(
                f"challenge_score/fbc2/{task}/{n}x{w}w/{k}g",
                "challenge_score",
                "fbc2",
                f"{task} alone: {n:,} rows of {w} new words, {k if task != 'TRitW' else 1} gold(s)",
                build,
                {"missing": "zero"},
            )


def points() -> list[Point]:
    """Every calibration point, in a fixed order."""
    out: list[Point] = []
    for metric, config in (
        ("anls", "docvqa"),
        ("anls", "stvqa_paper"),
        ("one_minus_ned", "icdar2019"),
        ("one_minus_ned", "clovaai"),
    ):
        out += _text_pair_points(metric, config)
    out += _anls_star_points()
    out += _dude_points()
    for config in ("squad", "squad_v2", "fbc2_textqa", "fbc2_mathqa"):
        out += _token_f1_points(config)
    out += _token_f1_points("mlqa", {"language": "en"})
    out += _entity_points()
    out += _quac_points()
    out += _meteor_points()
    out += _cider_points()
    out += _coco_points()
    out += _interval_points()
    out += _challenge_points()
    out += _challenge_task_points()
    ids = [p.id for p in out]
    if len(ids) != len(set(ids)):
        raise RuntimeError(f"duplicate point ids: {sorted(i for i in ids if ids.count(i) > 1)}")
    return out
