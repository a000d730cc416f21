"""Deterministic image-caption sets for the METEOR parity sweeps and benchmark.

:func:`caption_sets` returns ``n`` (hypothesis, 5 references) items built from templates
("a man riding a horse on the beach") with the perturbations that exercise every METEOR
stage and tokenizer rule: WordNet synonyms whose stems are themselves lemma names (so the
synonym stage fires: dog/hound, car/auto, couch/sofa, kid/child ...), inflections (stem
stage), reordering and swaps (chunks), repeated words, dropped and inserted words,
punctuation and quotes, contractions, capitalisation, numbers, several sentences, and
empty strings. Everything is driven by one ``random.Random(seed)``.
"""

from __future__ import annotations

import random

__all__ = ["caption_sets", "russian_caption_sets"]

SUBJECTS = [
    "man",
    "woman",
    "dog",
    "cat",
    "boy",
    "girl",
    "kid",
    "child",
    "person",
    "player",
    "horse",
    "bird",
    "car",
    "bus",
    "train",
    "elephant",
    "giraffe",
    "couple",
    "group of people",
    "baby",
]
VERBS = [
    "riding",
    "sitting on",
    "standing next to",
    "walking along",
    "running across",
    "holding",
    "eating",
    "playing with",
    "looking at",
    "lying on",
    "jumping over",
    "parked near",
    "flying over",
    "crossing",
    "carrying",
]
OBJECTS = [
    "a horse",
    "a couch",
    "the beach",
    "a street",
    "a road",
    "a frisbee",
    "a pizza",
    "a table",
    "a bench",
    "the grass",
    "a field",
    "a kite",
    "an umbrella",
    "a surfboard",
    "a skateboard",
    "a plate of food",
    "a cake",
    "the snow",
    "a river",
    "a fence",
    "a building",
    "a bike",
    "a phone",
    "a laptop",
    "a clock tower",
]
PLACES = [
    "",
    "",
    "on the beach",
    "in a park",
    "in the city",
    "at night",
    "near the water",
    "in front of a building",
    "on a sunny day",
    "in the kitchen",
    "down the street",
]
ADJECTIVES = ["big", "small", "large", "little", "red", "white", "black", "young", "old", "happy", "tall"]

# Pairs whose Porter stems equal a WordNet lemma name of the other word's stem.
SYNONYMS = {
    "dog": ["hound"],
    "car": ["auto", "machine"],
    "couch": ["sofa", "lounge"],
    "kid": ["child"],
    "child": ["kid", "youngster"],
    "man": ["human", "homo"],
    "road": ["route"],
    "bike": ["bicycle", "cycle"],
    "plate": ["dish", "home"],
    "street": ["street"],
    "big": ["large", "great", "bad"],
    "small": ["little", "minor"],
    "picture": ["image", "pic"],
    "phone": ["telephone", "earphone"],
    "field": ["area", "plain"],
    "cake": ["bar", "patty"],
    "holding": ["keeping", "having"],
    "eating": ["feeding", "dining"],
    "jumping": ["leaping", "bound"],
    "looking": ["face", "search", "look"],
    "sitting": ["sit", "model"],
    "cat": ["guy", "kat", "true"],
    "baby": ["babe", "infant"],
    "bus": ["coach", "jalopy"],
    "woman": ["adult", "char"],
    "boy": ["son", "male"],
    "girl": ["female", "miss", "lass"],
    "happy": ["glad", "well"],
    "old": ["former", "erstwhile"],
    "young": ["new", "youth"],
    "tall": ["high", "grandiloquent"],
    "running": ["run", "track", "range"],
    "walking": ["walk", "pass", "paseo"],
    "building": ["edifice", "construct"],
    "river": ["river"],
    "train": ["string", "caravan"],
}
INFLECT = ["s", "es", "ing", "ed", "er", "ly", "'s", "ness"]
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
    "(",
    ")",
    "-",
    "&",
    "$",
    "%",
    "@",
    "#",
    "*",
]
FILLERS = ["the", "a", "an", "of", "with", "and", "very", "some", "two", "three", "is", "are"]
CONTRACTIONS = [
    "can't",
    "cannot",
    "it's",
    "they're",
    "gonna",
    "don't",
    "won't",
    "I'm",
    "wanna",
    "d'ye",
    "'tis",
]
NUMBERS = ["2", "3.5", "1,000", "10", "one", "two", "three", "42", "1990s"]


def _base(rng: random.Random) -> list[str]:
    words: list[str] = []
    if rng.random() < 0.8:
        words.append(rng.choice(["a", "the", "an", "two", "some"]))
    if rng.random() < 0.4:
        words.append(rng.choice(ADJECTIVES))
    words.extend(rng.choice(SUBJECTS).split())
    if rng.random() < 0.3:
        words.extend(rng.choice(["is", "are"]).split())
    words.extend(rng.choice(VERBS).split())
    words.extend(rng.choice(OBJECTS).split())
    words.extend(rng.choice(PLACES).split())
    return words


def _perturb(rng: random.Random, words: list[str], strength: float) -> list[str]:
    out = list(words)
    for k in range(len(out)):
        r = rng.random()
        w = out[k]
        if r < 0.25 * strength and w in SYNONYMS:
            out[k] = rng.choice(SYNONYMS[w])
        elif r < 0.40 * strength:
            out[k] = w + rng.choice(INFLECT)
        elif r < 0.45 * strength and len(w) > 3:
            out[k] = w[:-1] if rng.random() < 0.5 else w[:-2]
    if rng.random() < 0.3 * strength and len(out) > 2:  # swap two words
        i, j = rng.sample(range(len(out)), 2)
        out[i], out[j] = out[j], out[i]
    if rng.random() < 0.2 * strength and len(out) > 3:  # move a chunk
        i = rng.randrange(len(out) - 1)
        chunk = out[i : i + rng.randint(1, 3)]
        del out[i : i + len(chunk)]
        at = rng.randrange(len(out) + 1)
        out[at:at] = chunk
    if rng.random() < 0.25 * strength and out:  # drop words
        for _ in range(rng.randint(1, 2)):
            if out:
                del out[rng.randrange(len(out))]
    if rng.random() < 0.25 * strength:  # insert words
        for _ in range(rng.randint(1, 2)):
            out.insert(rng.randrange(len(out) + 1), rng.choice(FILLERS + ADJECTIVES + NUMBERS))
    if rng.random() < 0.2 and out:  # repeated words
        k = rng.randrange(len(out))
        out[k:k] = [out[k]] * rng.randint(1, 3)
    if rng.random() < 0.35:  # punctuation inside and at the end
        for _ in range(rng.randint(1, 3)):
            p = rng.choice(PUNCT)
            k = rng.randrange(len(out) + 1)
            if rng.random() < 0.5 and out and k < len(out):
                out[k] = out[k] + p
            else:
                out.insert(k, p)
    if rng.random() < 0.15:
        out.insert(rng.randrange(len(out) + 1), rng.choice(CONTRACTIONS))
    if rng.random() < 0.3 and out:
        out[0] = out[0].capitalize()
    if rng.random() < 0.05:
        out = [w.upper() for w in out]
    return out


def _text(rng: random.Random, words: list[str]) -> str:
    text = " ".join(words)
    r = rng.random()
    if r < 0.3:
        text += "."
    elif r < 0.35:
        text += " ."
    elif r < 0.38:
        text = f'"{text}"'
    if rng.random() < 0.05:  # two sentences
        text += " " + rng.choice(["It is sunny.", "The sky is blue!", "Nobody's there."])
    if rng.random() < 0.03:
        text = "  " + text.replace(" ", "  ", 1) + "\t"
    return text


def caption_sets(n: int, seed: int = 4, refs: int = 5) -> tuple[list[str], list[list[str]]]:
    """``n`` hypotheses and, for each, ``refs`` reference captions."""
    rng = random.Random(seed)
    hyps: list[str] = []
    references: list[list[str]] = []
    for _ in range(n):
        base = _base(rng)
        group = []
        for _ in range(refs):
            if rng.random() < 0.02:
                group.append("")
            else:
                group.append(_text(rng, _perturb(rng, base, rng.uniform(0.2, 1.0))))
        r = rng.random()
        if r < 0.03:
            hyp = ""
        elif r < 0.10:
            hyp = _text(rng, _base(rng))  # unrelated caption
        elif r < 0.13:
            hyp = " ".join(base)  # exact copy of the underlying caption
        else:
            hyp = _text(rng, _perturb(rng, base, rng.uniform(0.3, 1.2)))
        hyps.append(hyp)
        references.append(group)
    return hyps, references


RU_SUBJECTS = [
    "кот",
    "кошка",
    "собака",
    "мужчина",
    "женщина",
    "мальчик",
    "девочка",
    "ребёнок",
    "машина",
    "птица",
]
RU_VERBS = ["сидит на", "лежит на", "стоит возле", "бежит по", "играет с", "смотрит на", "держит", "ест"]
RU_OBJECTS = ["диване", "траве", "улице", "столе", "мяч", "пицца", "дороге", "снегу", "окне", "зонт"]
RU_INFLECT = {
    "кот": ["кота", "коты", "котом"],
    "кошка": ["кошки", "кошку", "кошкой"],
    "собака": ["собаки", "собаку"],
    "мужчина": ["мужчины", "мужчину"],
    "сидит": ["сидят", "сидел"],
    "лежит": ["лежат", "лежала"],
    "диване": ["диван", "диваны"],
    "траве": ["трава", "травой"],
    "улице": ["улица", "улицу"],
}
RU_NUMBERS = ["два", "три", "двое", "пять", "2", "3"]


def russian_caption_sets(n: int, seed: int = 7, refs: int = 5) -> tuple[list[str], list[list[str]]]:
    """Russian captions with inflections, numbers, punctuation and reordering."""
    rng = random.Random(seed)
    hyps, references = [], []
    for _ in range(n):
        base = [*rng.choice(RU_SUBJECTS).split(), *rng.choice(RU_VERBS).split(), rng.choice(RU_OBJECTS)]
        if rng.random() < 0.3:
            base.insert(0, rng.choice(RU_NUMBERS))

        def variant(strength: float, base: list[str] = base) -> str:
            out = [
                rng.choice(RU_INFLECT[w]) if w in RU_INFLECT and rng.random() < strength else w for w in base
            ]
            if rng.random() < 0.3 * strength and len(out) > 2:
                i, j = rng.sample(range(len(out)), 2)
                out[i], out[j] = out[j], out[i]
            if rng.random() < 0.3:
                out[rng.randrange(len(out))] += rng.choice([",", ".", "!", " (на фото)", ":"])
            text = " ".join(out)
            return text.capitalize() if rng.random() < 0.5 else text

        references.append([variant(rng.uniform(0, 1)) for _ in range(refs)])
        hyps.append("" if rng.random() < 0.03 else variant(rng.uniform(0, 1)))
    return hyps, references
