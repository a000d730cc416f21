"""METEOR input checks: typed errors naming argument and index; clear errors for missing data."""

from __future__ import annotations

import pytest

from metricore import compute_meteor
from metricore.lexicon.synonyms import RuWordNetSynonyms, SynonymSourceUnavailable, WordNetSynonyms
from metricore.lexicon.wordnet import WordNetNotFoundError, ensure_wordnet, find_wordnet, load_wordnet


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"predictions": ["a", "b"], "references": ["a"]}, ValueError, "2 predictions but 1 references"),
        ({"predictions": [], "references": []}, ValueError, "empty"),
        ({"predictions": "a cat", "references": ["a cat"]}, TypeError, "`predictions` must be a list"),
        ({"predictions": ["a"], "references": "a"}, TypeError, "`references` must be a list"),
        ({"predictions": ["a", None], "references": ["a", "b"]}, TypeError, r"predictions\[1\]"),
        ({"predictions": ["a"], "references": [["a", 3]]}, TypeError, r"references\[0\]\[1\]"),
        ({"predictions": ["a"], "references": [[]]}, ValueError, r"references\[0\]` has no references"),
        ({"predictions": ["a"], "references": [{"a": 1}]}, TypeError, r"references\[0\]"),
        ({"predictions": ["a"], "references": [[["a"]]]}, TypeError, "pre-tokenized prediction"),
        (
            {"predictions": [["a", "b"]], "references": [["a b"]]},
            TypeError,
            r"references\[0\]\[0\].*list of str tokens",
        ),
        ({"predictions": [["a", 1]], "references": [[["a"]]]}, TypeError, r"predictions\[0\]\[1\]"),
        ({"predictions": [["a"]], "references": ["a"]}, TypeError, r"references\[0\].*list of token lists"),
        ({"predictions": ["a"], "references": ["a"], "alpha": 1.5}, ValueError, "alpha"),
        ({"predictions": ["a"], "references": ["a"], "gamma": -0.1}, ValueError, "gamma"),
        ({"predictions": ["a"], "references": ["a"], "beta": -1}, ValueError, "beta"),
        ({"predictions": ["a"], "references": ["a"], "beta": float("inf")}, ValueError, "beta"),
        ({"predictions": ["a"], "references": ["a"], "alpha": "0.9"}, TypeError, "alpha"),
        ({"predictions": ["a"], "references": ["a"], "gamma": True}, TypeError, "gamma"),
        (
            {"predictions": ["a"], "references": ["a"], "variant": "meteor15"},
            ValueError,
            "allowed: 'nltk', 'fbc2_captioning', 'fbc2_vqa'",
        ),
        ({"predictions": ["a"], "references": ["a"], "tokenizer": "spacy"}, ValueError, "tokenizer"),
        (
            {"predictions": ["a"], "references": ["a"], "synonyms": "thesaurus"},
            ValueError,
            "unknown synonyms",
        ),
        ({"predictions": ["a"], "references": ["a"], "synonyms": 3}, TypeError, "synonyms"),
        ({"predictions": ["a"], "references": ["a"], "synonyms": {"a": "b"}}, TypeError, "list of str"),
        ({"predictions": ["a"], "references": ["a"], "lemmatize": True}, ValueError, "fbc2_vqa variant only"),
        (
            {"predictions": ["a"], "references": ["a"], "variant": "fbc2_vqa", "lemmatize": "yes"},
            TypeError,
            "lemmatize",
        ),
        (
            {"predictions": [["a"]], "references": [[["a"]]], "variant": "fbc2_vqa", "synonyms": "none"},
            TypeError,
            "pass strings",
        ),
    ],
)
def test_bad_input(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        compute_meteor(**kwargs)


def test_inputs_are_not_mutated():
    preds = ["A cat.", ["a", "dog"]]
    refs = [["a cat", "the cat"], [["a", "hound"], ["dog"]]]
    snapshot = (list(preds), [list(r) for r in refs], list(preds[1]))
    compute_meteor(preds, refs)
    assert (preds, refs, preds[1]) == (snapshot[0], snapshot[1], snapshot[2])


def test_wordnet_absent_gives_install_instructions(tmp_path):
    empty = tmp_path / "nltk_data"
    empty.mkdir()
    assert find_wordnet([empty]) is None
    with pytest.raises(WordNetNotFoundError) as info:
        ensure_wordnet(search_paths=[empty], debian_dir=tmp_path / "no-debian")
    message = str(info.value)
    assert "apt-get install -y wordnet-base wordnet-sense-index" in message
    assert "python -m metricore.lexicon.wordnet --install" in message
    assert "nltk.download('wordnet')" in message
    assert str(empty) in message
    with pytest.raises(WordNetNotFoundError, match="wordnet-base"):
        load_wordnet(empty)
    with pytest.raises(WordNetNotFoundError, match="wordnet-base"):
        compute_meteor(["a dog"], ["a hound"], synonyms=WordNetSynonyms(empty))


def test_wordnet_is_provisioned_from_debian_files_into_an_empty_dir(tmp_path):
    from metricore.lexicon.wordnet import DEBIAN_WORDNET_DIR

    if not (DEBIAN_WORDNET_DIR / "data.noun").is_file():
        pytest.skip("Debian wordnet-base not installed")
    loc = ensure_wordnet(search_paths=[tmp_path])
    assert loc.source == "debian" and (loc.corpus_dir / "lexnames").read_text().count("\n") == 45
    assert not (loc.corpus_dir / "data.noun").is_symlink()
    assert (loc.corpus_dir / "data.noun").stat().st_nlink == 1  # copied, not hard-linked
    got = compute_meteor(["a dog"], ["a hound"], synonyms=WordNetSynonyms(loc)).scores
    assert got == compute_meteor(["a dog"], ["a hound"]).scores


def test_ruwordnet_absent_names_the_alternatives(tmp_path):
    with pytest.raises(SynonymSourceUnavailable, match="wiki_ru_wordnet"):
        RuWordNetSynonyms(tmp_path / "missing.db")
    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"nope")
    with pytest.raises(SynonymSourceUnavailable, match="not a RuWordNet database"):
        RuWordNetSynonyms(bad)


def test_punkt_tokenizer_error_is_actionable(monkeypatch):
    import nltk.tokenize

    def missing(*args, **kwargs):
        raise LookupError("Resource punkt_tab not found")

    monkeypatch.setattr(nltk.tokenize, "word_tokenize", missing)
    from metricore.metrics.meteor import clear_caches

    clear_caches()
    with pytest.raises(LookupError, match="nltk_line"):
        compute_meteor(["Hello there. Bye."], ["Hello."], tokenizer="nltk_punkt", synonyms="none")


def test_a_zipped_nltk_wordnet_is_found_and_read(tmp_path):
    """`nltk.download('wordnet')` may leave only corpora/wordnet.zip."""
    import zipfile

    from metricore.lexicon.wordnet import DEBIAN_WORDNET_DIR

    if not (DEBIAN_WORDNET_DIR / "data.noun").is_file():
        pytest.skip("Debian wordnet-base not installed")
    built = ensure_wordnet(search_paths=[tmp_path / "src"])
    data = tmp_path / "nltk_data"
    (data / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(data / "corpora" / "wordnet.zip", "w") as zf:
        for f in sorted(built.corpus_dir.iterdir()):
            if (
                f.name in ("data.noun", "data.verb", "data.adj", "data.adv", "index.sense")
                or f.suffix in (".exc",)
                or f.name.startswith("index.")
                or f.name in ("lexnames", "cntlist.rev")
            ):
                zf.write(f, f"wordnet/{f.name}")
    loc = find_wordnet([data])
    assert loc is not None and loc.corpus_dir.name == "wordnet.zip"
    source = WordNetSynonyms(loc)
    assert "hound" in source.lookup("dog")
    got = compute_meteor(["a dog"], ["a hound"], synonyms=source).scores
    assert got == compute_meteor(["a dog"], ["a hound"]).scores
