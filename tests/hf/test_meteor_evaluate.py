"""`evaluate.load("metrics/meteor")` and the FusionBrain variants on hand-checked vectors."""

from __future__ import annotations

import copy

import evaluate
import pytest

from metricore import METEOR_VARIANTS, compute_meteor
from metricore.lexicon.synonyms import RuWordNetSynonyms
from tests.oracles.fbc2_vqa_ref import ruwordnet_db

CAPTIONS = (
    ["the cat was sat on the mat", "A dog runs.", "", ["a", "red", "car"], "Two dogs, one ball!"],
    [
        ["the cat sat on the mat"],
        ["a hound is running", "dogs run"],
        ["empty"],
        [["a", "car"], ["red", "cars"]],
        "two dogs and a ball",
    ],
)
RUSSIAN = (
    ["Рыжий кот сидит на диване.", "кошки", "Кот, сидит!", "два кота"],
    [["Рыжая кошка сидит на диване", "Кот на диване"], ["кошка"], ["кот сидит"], ["2 кота", "коты"]],
)
VQA = (
    ["3", "три", "three dogs", "I don't know", "a red car", "5"],
    [["5"], ["3"], ["3"], ["3"], ["red car"], ["3", "five"]],
)


@pytest.mark.parametrize("variant", list(METEOR_VARIANTS))
def test_evaluate_equals_core_and_leaves_inputs_alone(variant):
    preds, refs = CAPTIONS if variant == "nltk" else (RUSSIAN if variant == "fbc2_captioning" else VQA)
    before = copy.deepcopy((preds, refs))
    metric = evaluate.load("metrics/meteor", variant)
    got = metric.compute(predictions=preds, references=refs, gamma=0.3)
    want = compute_meteor(preds, refs, variant=variant, gamma=0.3)
    assert got["scores"] == want.scores
    assert got["meteor"] == pytest.approx(want.meteor, abs=1e-15)
    assert got["signature"] == want.signature
    assert f"variant:{variant}|gamma:0.3|" in got["signature"]
    assert (preds, refs) == before


def test_default_config_is_nltk_and_signature_names_backends():
    got = evaluate.load("metrics/meteor").compute(predictions=["cat"], references=["cat"])
    assert got["scores"] == [0.5]
    sig = got["signature"]
    assert sig.startswith("meteor|variant:nltk|nltk:3.10.") and "|wordnet:3.0+" in sig


def test_streaming_equals_one_shot():
    preds, refs = CAPTIONS
    metric = evaluate.load("metrics/meteor")
    metric.add_batch(predictions=preds[:2], references=refs[:2])
    metric.add(prediction=preds[2], reference=refs[2])
    metric.add_batch(predictions=preds[3:], references=refs[3:])
    assert metric.compute()["scores"] == compute_meteor(preds, refs).scores


def test_errors_name_the_absolute_row_and_unknown_keywords():
    metric = evaluate.load("metrics/meteor")
    metric.add_batch(predictions=["a", "b"], references=["a", "b"])
    with pytest.raises(TypeError, match=r"predictions\[3\]"):
        metric.add_batch(predictions=["c", 7], references=["c", "d"])
    with pytest.raises(ValueError, match=r"references\[2\]"):
        metric.add_batch(predictions=["c"], references=[[]])
    with pytest.raises(TypeError, match=r"unknown option\(s\)"):
        evaluate.load("metrics/meteor").compute(predictions=["a"], references=["a"], delta=0.75)
    with pytest.raises(TypeError, match=r"unknown option\(s\)"):
        evaluate.load("metrics/meteor").compute(predictions=["a"], references=["a"], lemmatize=False)
    with pytest.raises(ValueError, match="allowed: 'nltk', 'fbc2_captioning', 'fbc2_vqa'"):
        evaluate.load("metrics/meteor", "meteor15")
    with pytest.raises(TypeError, match="pass strings"):
        evaluate.load("metrics/meteor", "fbc2_vqa").compute(predictions=[["a"]], references=[[["a"]]])


# ---- fbc2_vqa: numeric rule and hand-checked METEOR (gamma 0) ----------------------------


@pytest.mark.parametrize(
    ("pred", "golds", "want"),
    [
        ("3", ["5"], 0.6),  # SPECS: min/max
        ("5", ["3"], 0.6),
        ("три", ["3"], 1.0),  # Russian number word in the prediction
        ("3", ["три"], 1.0),  # ... and in the gold
        ("трёх", ["5"], 0.6),  # inflected form
        ("three dogs", ["3"], 1.0),  # English word, first number of the prediction
        ("2 or 4", ["4"], 0.5),  # the FIRST number counts
        ("ноль", ["0"], 1.0),  # both 0
        ("1", ["0"], 0.0),
        ("I don't know", ["3"], 0.0),  # no number in the prediction
        ("3.5", ["35"], 1.0),  # the challenge deletes ASCII punctuation first
        ("5", ["3", "five"], 0.6),  # best over golds; the gold "five" stays a word (challenge code)
        ("red car", ["red car"], 1.0),  # gamma 0: no fragmentation penalty
        ("a red car", ["red car"], (2 / 3) / (0.9 * 2 / 3 + 0.1)),
        ("two cats", ["2 cats"], 1.0),  # multi-word gold: METEOR on digits
        ("Кошки", ["кошка"], 1.0),  # pymorphy lemma of the whole answer
    ],
)
def test_fbc2_vqa_vectors(pred, golds, want):
    got = compute_meteor([pred], [golds], variant="fbc2_vqa", synonyms="none").scores[0]
    assert got == pytest.approx(want, abs=1e-12)


def test_fbc2_vqa_without_lemmatization():
    assert compute_meteor(
        ["Кошки"], [["кошка"]], variant="fbc2_vqa", synonyms="none", lemmatize=False
    ).scores == [0.0]


# ---- fbc2_captioning: challenge preprocessing, Snowball Russian, thesaurus ----------------


@pytest.mark.parametrize(
    ("pred", "golds", "synonyms", "want"),
    [
        ("Кот сидит.", ["кот сидит"], "none", 1 - 0.5 / 8),  # punctuation and case removed
        ("Кот (рыжий) сидит!", ["кот рыжий сидит"], "none", 1 - 0.5 / 27),
        ("кошки", ["кошка"], "none", 0.5),  # Snowball stems: кошк = кошк
        ("кот", ["кошка"], "none", 0.0),
        ("кот", ["кошка"], {"кот": ["кошка"]}, 0.5),  # user mapping, plain words
        ("кот", ["хищник"], "wiki_ru_wordnet", 0.5),  # wiki-ru-wordnet: hypernym of кот
        ("кот", ["хищник"], "none", 0.0),
        ("two cats", ["two cats"], "none", 0.25),  # the challenge writes digits in the hypothesis only
    ],
)
def test_fbc2_captioning_vectors(pred, golds, synonyms, want):
    got = compute_meteor([pred], [golds], variant="fbc2_captioning", synonyms=synonyms).scores[0]
    assert got == pytest.approx(want, abs=1e-12)


@pytest.fixture()
def tiny_ruwordnet(tmp_path):
    """A RuWordNet-shaped SQLite file: кот, hypernym хищник, derivation котик."""
    return ruwordnet_db(tmp_path / "ruwordnet.db", {"кот": ["хищник"]}, {"кот": ["котик"]})


def test_ruwordnet_relation_is_the_challenge_one(tiny_ruwordnet):
    source = RuWordNetSynonyms(tiny_ruwordnet)
    assert source.lookup("кот") == {"хищник", "котик", "кот"}
    assert source.lookup("пёс") == frozenset()
    r = compute_meteor(["кот"], [["хищник"]], variant="fbc2_captioning", synonyms=source)
    assert r.scores == [0.5]
    assert "|ruwordnet:ruwordnet.db@" in r.signature
