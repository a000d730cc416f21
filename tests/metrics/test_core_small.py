"""Signatures, the structured-answer codec, the normalizers and the demo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from metricore import build_signature, compute_anls, compute_one_minus_ned
from metricore.cli.demo import demo_rows, format_table
from metricore.core.structured import from_json, to_json
from metricore.registry import get, row_metrics
from metricore.text.normalize import NORMALIZERS, Normalizer, get_normalizer


def test_signature_lists_only_non_default_options_sorted():
    sig = build_signature("m", "v", {"b": 2, "a": 1.5, "c": True}, {"b": 2, "a": 0.5})
    assert sig == "m|variant:v|a:1.5|c:yes|version:0.1.0"
    assert build_signature("m") == "m|version:0.1.0"
    # An int default does not hide a float option (0 vs 0.0 are different settings to print).
    assert "x:0.0" in build_signature("m", None, {"x": 0.0}, {"x": 0})


def test_results_carry_signatures():
    assert compute_anls(["a"], ["a"], variant="dude", threshold=0.6).signature == (
        "anls|variant:dude|threshold:0.6|version:0.1.0"
    )
    assert compute_one_minus_ned(["a"], ["a"], nfkc=True).signature == "one_minus_ned|nfkc:yes|version:0.1.0"


@pytest.mark.parametrize(
    "obj",
    [
        None,
        "x",
        1,
        2.5,
        True,
        [],
        {},
        ("a", "b"),
        {"k": ("a", ["b", {"c": None}])},
        [("x",), {"y": [1, (2, 3)]}],
    ],
)
def test_structured_codec_round_trips(obj):
    assert from_json(to_json(obj)) == obj
    assert type(from_json(to_json(obj))) is type(obj)


def test_structured_codec_errors_name_the_path():
    with pytest.raises(TypeError, match=r"x\['k'\]\[1\]"):
        to_json({"k": [1, {2}]}, "x")
    with pytest.raises(TypeError, match="keys must be str"):
        to_json({1: "a"})
    with pytest.raises(ValueError, match="reserved"):
        to_json({"__tuple__": 1})


def test_normalizers():
    rrc = get_normalizer("rrc")
    assert rrc("  Thomas \u00a0 MOORE\t") == "thomas moore"
    assert NORMALIZERS["identity"]("  A ") == "  A "
    assert Normalizer(("nfkc", "lower"))("ＡＢＣ") == "abc"
    assert rrc.many(["A  B", " c"]) == ["a b", "c"]
    with pytest.raises(ValueError, match="unknown normalization step"):
        Normalizer(("upper",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown normalizer"):
        get_normalizer("squad2")


def test_demo_scores_every_example_of_every_row_metric():
    rows = demo_rows()
    want = [
        (name, get(name).config(ex.config).name, ex.title)
        for name in row_metrics()
        for ex in get(name).examples
    ]
    assert [(r["metric"], r["variant"], r["example"]) for r in rows] == want
    assert {r["metric"] for r in rows} == set(row_metrics())
    for r in rows:
        spec = get(r["metric"])
        ex = next(e for e in spec.examples if e.title == r["example"])
        result = spec.bind(ex.config, **ex.options).run(ex.predictions, ex.references)
        assert r["score"] == result.headline()[r["key"]] and r["signature"] == result.signature
    first = get("anls").examples[0]
    assert rows[0]["score"] == compute_anls(first.predictions, first.references).anls
    assert "anls|variant:docvqa|version:0.1.0" in format_table(rows)


def test_cli_demo_prints_the_table():
    out = subprocess.run(
        [sys.executable, "-m", "metricore.cli", "demo"], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[0].split() == ["metric", "variant", "n", "score", "signature", "example"]
    assert "one_minus_ned" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "metricore.cli", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2


def test_cli_wordnet_finds_the_provisioned_copy():
    out = subprocess.run([sys.executable, "-m", "metricore.cli", "wordnet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("WordNet: ")
    assert "RuntimeWarning" not in out.stderr
