"""Oracle: the FusionBrain Challenge 2.0 VisualQA scorer, restated plainly from
ai-forever/fbc2_aij2022 ``evaluation/vqa/metric/calc_meteor.py`` and ``rumeteor.py``.

Per answer: ``get_lemma(remove_punc(answer))`` on the prediction and on each gold (ASCII
punctuation deleted, lowercased, pymorphy normal form of the *whole* string, the 13-word
``manualMap_ru`` applied to the whole lemma); then ``get_meteor(hyp, [ref])``: the prediction
goes through ``wordtodigits.convert`` (the real PyPI package, 1.0.2) and both are tokenized; a
gold of one token that ``isnumeric()`` is scored by the numeric rule (the first ``CD``-tagged
prediction token ``float()`` reads, ``min/max``, 0 if none or if ``float()`` fails), anything
else by rumeteor's METEOR with gamma 0; the best over the golds, strict ``>`` from 0.

What had to be replaced, because it cannot run offline (and only that):

* ``pymorphy2`` -> ``pymorphy3`` (pymorphy2 does not run on Python 3.11);
* ``nltk.word_tokenize(text)`` -> ``nltk.word_tokenize(text, preserve_line=True)``: Punkt's
  data (``punkt``) cannot be downloaded. Punkt only splits after ``. ? !``; after
  ``remove_punc`` the only such character left is a period ``wordtodigits`` writes for
  ``"point"`` (``"1.5"``, or ``"0. twenty"`` when a tens/scale word follows ``"point"``);
* ``nltk.pos_tag`` -> :func:`pos_tag` below: its averaged-perceptron parameters ship in no
  PyPI or Debian package. The stand-in tags ``CD`` every token that starts with a digit (the
  tagger's ``!DIGITS``/``!YEAR`` feature class) and nothing else;
* ``RuWordNet()`` -> :class:`FakeRuWordNet`, a thesaurus from a dict with the interface the
  scorer uses (``get_senses(word)[k].synset.hypernyms[m].title`` and
  ``.derivations[m].name``): RuWordNet's database is a download.

Deliberately naive: no caches, the original's list-popping alignment and its order of
operations; nothing shared with ``metricore``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

import wordtodigits as w2d
from nltk import word_tokenize
from nltk.stem.porter import PorterStemmer

from tests.oracles.fbc2_text_ref import _MORPH, NUMBER_LEMMAS

_STEMMER = PorterStemmer()


# ---- the thesaurus stand-in ---------------------------------------------------------------


@dataclass
class _Named:
    title: str = ""
    name: str = ""


@dataclass
class _Synset:
    hypernyms: list[_Named] = field(default_factory=list)


@dataclass
class _Sense:
    synset: _Synset
    derivations: list[_Named] = field(default_factory=list)


class FakeRuWordNet:
    """``{word: [related words]}``: one sense per word whose synset's hypernym titles are the
    related words (upper-cased, as RuWordNet stores them; the scorer lowercases)."""

    def __init__(self, table: dict[str, list[str]] | None = None) -> None:
        self.table = table or {}

    def get_senses(self, word: str) -> list[_Sense]:
        if word not in self.table:
            return []
        return [_Sense(_Synset([_Named(title=w.upper()) for w in self.table[word]]))]


# ---- a RuWordNet database with the same relations -----------------------------------------


def ruwordnet_db(
    path: Any, table: dict[str, list[str]], derivations: dict[str, list[str]] | None = None
) -> Any:
    """A RuWordNet-shaped SQLite file (the `ruwordnet` package's schema) holding ``table`` as
    hypernym relations (one sense per key, whose synset's hypernyms are titled by the values)
    and ``derivations`` as derivation relations from a key's sense to senses named by the values:
    what :class:`FakeRuWordNet` holds, for ``metricore.lexicon.synonyms.RuWordNetSynonyms``."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE synset (id TEXT PRIMARY KEY, title TEXT, definition TEXT, part_of_speech TEXT);
        CREATE TABLE sense (id TEXT PRIMARY KEY, name TEXT, lemma TEXT, synset_id TEXT);
        CREATE TABLE hypernym_relation (hyponym_id TEXT, hypernym_id TEXT);
        CREATE TABLE derivation_relation (source_id TEXT, derivative_id TEXT);
        """
    )
    for k, (word, hypernyms) in enumerate(table.items()):
        con.execute("INSERT INTO synset VALUES (?, ?, '', 'N')", (f"{k}-N", word.upper()))
        con.execute(
            "INSERT INTO sense VALUES (?, ?, ?, ?)", (f"{k}-N-1", word.upper(), word.upper(), f"{k}-N")
        )
        for j, title in enumerate(hypernyms):
            con.execute("INSERT INTO synset VALUES (?, ?, '', 'N')", (f"{k}-{j}-H", title.upper()))
            con.execute("INSERT INTO hypernym_relation VALUES (?, ?)", (f"{k}-N", f"{k}-{j}-H"))
    for k, (word, derived) in enumerate((derivations or {}).items()):
        source = f"{word.upper()}-D-{k}"
        con.execute("INSERT INTO sense VALUES (?, ?, ?, ?)", (source, word.upper(), word.upper(), f"D{k}-N"))
        con.execute("INSERT INTO synset VALUES (?, ?, '', 'N')", (f"D{k}-N", word.upper()))
        for m, name in enumerate(derived):
            target = f"{source}-{m}"
            con.execute(
                "INSERT INTO sense VALUES (?, ?, ?, ?)", (target, name.upper(), name.upper(), f"D{k}-{m}-N")
            )
            con.execute("INSERT INTO synset VALUES (?, ?, '', 'N')", (f"D{k}-{m}-N", name.upper()))
            con.execute("INSERT INTO derivation_relation VALUES (?, ?)", (source, target))
    con.commit()
    con.close()
    return path


# ---- rumeteor.py ----------------------------------------------------------------------------


def _match_enums(hyp: list[tuple[int, str]], ref: list[tuple[int, str]]) -> list[tuple[int, int]]:
    word_match = []
    for i in range(len(hyp))[::-1]:
        for j in range(len(ref))[::-1]:
            if hyp[i][1] == ref[j][1]:
                word_match.append((hyp[i][0], ref[j][0]))
                hyp.pop(i)
                ref.pop(j)
                break
    return word_match


def _syn_match(
    hyp: list[tuple[int, str]], ref: list[tuple[int, str]], wordnet: FakeRuWordNet
) -> list[tuple[int, int]]:
    word_match = []
    for i in range(len(hyp))[::-1]:
        senses = wordnet.get_senses(hyp[i][1])
        if senses:
            syns = {h.title.lower() for s in senses for h in s.synset.hypernyms} | {hyp[i][1]}
            syns |= {d.name.lower() for s in senses for d in s.derivations}
            for j in range(len(ref))[::-1]:
                if ref[j][1] in syns:
                    word_match.append((hyp[i][0], ref[j][0]))
                    hyp.pop(i)
                    ref.pop(j)
                    break
    return word_match


def _chunks(matches: list[tuple[int, int]]) -> int:
    i, chunks = 0, 1
    while i < len(matches) - 1:
        if not (matches[i + 1][0] == matches[i][0] + 1 and matches[i + 1][1] == matches[i][1] + 1):
            chunks += 1
        i += 1
    return chunks


def single_meteor(
    reference: list[str],
    hypothesis: list[str],
    wordnet: FakeRuWordNet,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    stemmer: Any = _STEMMER,
) -> float:
    hyp = list(enumerate(w.lower() for w in hypothesis))
    ref = list(enumerate(w.lower() for w in reference))
    n_hyp, n_ref = len(hyp), len(ref)
    exact = _match_enums(hyp, ref)
    hyp = [(k, stemmer.stem(w)) for k, w in hyp]
    ref = [(k, stemmer.stem(w)) for k, w in ref]
    stem = _match_enums(hyp, ref)
    syn = _syn_match(hyp, ref, wordnet)
    matches = sorted(exact + stem + syn, key=lambda pair: pair[0])
    m = len(matches)
    try:
        precision = float(m) / n_hyp
        recall = float(m) / n_ref
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag = float(_chunks(matches)) / m
    except ZeroDivisionError:
        return 0.0
    return (1 - gamma * frag**beta) * fmean


def meteor_score(
    references: list[list[str]],
    hypothesis: list[str],
    wordnet: FakeRuWordNet,
    gamma: float,
    stemmer: Any = _STEMMER,
) -> float:
    return max(single_meteor(r, hypothesis, wordnet, gamma=gamma, stemmer=stemmer) for r in references)


# ---- calc_meteor.py ---------------------------------------------------------------------------


def pos_tag(tokens: list[str]) -> list[tuple[str, str]]:
    """The stand-in for ``nltk.pos_tag`` (see the module docstring)."""
    return [(t, "CD" if t[:1].isdigit() else "NN") for t in tokens]


def distance(x: float, y: float) -> float:
    if x == 0 and y == 0:
        return 1.0
    if x > y:
        x, y = y, x
    return x / y


def get_meteor(pred: str, true: list[str], wordnet: FakeRuWordNet) -> float:
    hypothesis = word_tokenize(w2d.convert(pred), preserve_line=True)
    reference = [word_tokenize(p, preserve_line=True) for p in true]
    if len(reference) == 1 and len(reference[0]) == 1 and reference[0][0].isnumeric():
        for tok, pos in pos_tag(hypothesis):
            if pos == "CD":
                try:
                    return distance(float(tok), float(reference[0][0]))
                except ValueError:
                    continue
        return 0
    return meteor_score(reference, hypothesis, wordnet, gamma=0)


def get_lemma(word: str) -> str:
    lemma = _MORPH.parse(word)[0].normal_form
    return NUMBER_LEMMAS.get(lemma, lemma)


def remove_punc(text: str) -> str:
    exclude = set(string.punctuation)
    return "".join(ch for ch in text if ch not in exclude).lower()


def score_answer(prediction: str, golds: list[str], wordnet: FakeRuWordNet | None = None) -> float:
    """One question of ``calc_meteor``: the best over the golds."""
    wordnet = wordnet or FakeRuWordNet()
    hyp = get_lemma(remove_punc(prediction))
    best = 0.0
    for gold in golds:
        new = get_meteor(hyp, [get_lemma(remove_punc(gold))], wordnet)
        if new > best:
            best = new
    return best


def calc_meteor(true_json: dict, pred_json: dict, wordnet: FakeRuWordNet | None = None) -> float:
    """The whole scorer on the challenge's files: for each id, the first ``text`` part of the
    prediction against the first part of the ground truth (a prediction without a text part
    scores 0); the mean over ids."""
    scores = []
    for key in pred_json:
        meteor = 0.0
        for part in pred_json[key]:
            if part["type"] == "text":
                meteor = score_answer(part["content"], true_json[key][0]["content"], wordnet)
                break
        scores.append(meteor)
    return sum(scores) / len(scores)
