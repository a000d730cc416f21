"""CIDEr input checks: typed errors naming the argument and index, and clear errors for
document-frequency tables that do not fit."""

from __future__ import annotations

import json
import math

import pytest

from metricore import DocumentFrequency, compute_cider
from metricore.metrics.cider import check_cider_inputs

OK = {"predictions": ["a dog runs", "a cat"], "references": [["a dog runs"], ["a cat sits"]]}


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"predictions": ["a", "b"], "references": [["a"]]}, ValueError, "2 predictions but 1 references"),
        ({"predictions": [], "references": []}, ValueError, "empty"),
        ({"predictions": "a dog", "references": [["a dog"]]}, TypeError, "`predictions` must be a list"),
        ({"predictions": ["a dog"], "references": "a dog"}, TypeError, "`references` must be a list"),
        ({"predictions": None, "references": [["a"]]}, TypeError, "`predictions` must be a list"),
        ({"predictions": ["a", None], "references": [["a"], ["b"]]}, TypeError, r"predictions\[1\]"),
        ({"predictions": ["a", 3], "references": [["a"], ["b"]]}, TypeError, r"predictions\[1\]"),
        (
            {"predictions": ["a", "b"], "references": [["a"], []]},
            ValueError,
            r"references\[1\]` has no reference caption",
        ),
        ({"predictions": ["a"], "references": [["a", 3]]}, TypeError, r"references\[0\]\[1\]"),
        ({"predictions": ["a"], "references": [{"a": 1}]}, TypeError, r"references\[0\]"),
        ({"predictions": ["a"], "references": [None]}, TypeError, r"references\[0\]"),
        ({**OK, "variant": "cider-d"}, ValueError, "allowed: 'cider_d', 'cider'"),
        ({**OK, "n": 0}, ValueError, "`n` must be >= 1"),
        ({**OK, "n": 2.5}, TypeError, "`n` must be an int"),
        ({**OK, "n": True}, TypeError, "`n` must be an int"),
        ({**OK, "sigma": 0}, ValueError, "sigma"),
        ({**OK, "sigma": -1.0}, ValueError, "sigma"),
        ({**OK, "sigma": math.nan}, ValueError, "sigma"),
        ({**OK, "sigma": math.inf}, ValueError, "sigma"),
        ({**OK, "sigma": "6"}, TypeError, "sigma"),
        ({**OK, "tokenize": "yes"}, TypeError, "`tokenize` must be a bool"),
        ({**OK, "df": "idf"}, ValueError, "`df` must be 'corpus' or a DocumentFrequency"),
        ({**OK, "df": {"a": 1}}, ValueError, "`df` must be 'corpus' or a DocumentFrequency"),
    ],
)
def test_bad_input(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        compute_cider(**kwargs)


def test_batch_check_names_absolute_rows():
    with pytest.raises(TypeError, match=r"predictions\[12\]"):
        check_cider_inputs(["a", 1], [["a"], ["b"]], start=11)
    with pytest.raises(ValueError, match=r"references\[11\]"):
        check_cider_inputs(["a"], [[]], start=11)
    preds, refs = check_cider_inputs(("a",), ["one reference"])
    assert preds == ["a"] and refs == [["one reference"]]


def test_table_must_fit_the_call():
    table = DocumentFrequency.from_references([["a dog runs"], ["a cat"]], n=2)
    with pytest.raises(ValueError, match="n-grams up to 2, not 4"):
        compute_cider(**OK, df=table)
    with pytest.raises(ValueError, match="tokenizer 'ptb' but tokenize=False"):
        compute_cider(**OK, df=table, tokenize=False, n=2)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (({"a": 1}, 0), "num_images"),
        (({"a": 1}, 2, 0), "n must be"),
        (({"a": 1}, 2, 4, "spacy"), "tokenizer"),
    ],
)
def test_bad_tables(args, pattern):
    with pytest.raises(ValueError, match=pattern):
        DocumentFrequency(*args)


def test_from_mapping_checks_keys_and_counts():
    t = DocumentFrequency.from_mapping({("a",): 3.0, ("a", "dog"): 1, "dog": 2}, 40504)
    assert t.counts == {"a": 3, "a dog": 1, "dog": 2} and t.n == 2 and t.num_images == 40504
    with pytest.raises(ValueError, match="not an n-gram"):
        DocumentFrequency.from_mapping({"a  dog": 1}, 5)
    with pytest.raises(ValueError, match="whole number"):
        DocumentFrequency.from_mapping({"a": 1.5}, 5)
    with pytest.raises(ValueError, match="whole number"):
        DocumentFrequency.from_mapping({"a": -1}, 5)


def test_load_refuses_other_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"a": 1}))
    with pytest.raises(ValueError, match="not a document-frequency table"):
        DocumentFrequency.load(path)
    path.write_text(json.dumps({"format": "metricore-cider-document-frequency", "version": 9}))
    with pytest.raises(ValueError, match="version"):
        DocumentFrequency.load(path)


def test_inputs_are_not_mutated():
    preds = ["A dog\nruns.", "a cat"]
    refs = [["a dog runs", "A dog runs!"], "a cat sits"]
    before = ([*preds], [list(refs[0]), refs[1]])
    compute_cider(preds, refs)
    compute_cider(preds, refs, variant="cider", tokenize=False)
    DocumentFrequency.from_references(refs)
    assert (preds, [refs[0], refs[1]]) == before
