"""Signatures, the structured-answer codec, the normalizers and the demo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from metricore import build_signature, compute_anls, compute_one_minus_ned
from metricore.cli.demo import demo_rows, format_table, load_sample
from metricore.core.structured import from_json, to_json
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


def test_demo_covers_every_metric_and_variant():
    rows = demo_rows()
    assert {(r["metric"], r["variant"]) for r in rows} >= {
        ("anls", "docvqa"),
        ("anls", "stvqa_paper"),
        ("anls", "anls_star"),
        ("anls", "dude"),
        ("one_minus_ned", "icdar2019"),
        ("token_f1", "squad"),
        ("meteor", "nltk"),
        ("cider", "cider_d"),
    }
    sample = load_sample()
    for r in rows:
        top = 100.0 if r["metric"] == "token_f1" else 10.0 if r["metric"] == "cider" else 1.0
        assert 0.0 <= r["score"] <= top, r
    want = compute_anls(sample["docvqa"]["predictions"], sample["docvqa"]["references"]).anls
    assert rows[0]["score"] == want
    table = format_table(rows)
    assert "anls|variant:docvqa|version:0.1.0" in table


def test_cli_demo_prints_the_table():
    out = subprocess.run(
        [sys.executable, "-m", "metricore.cli", "demo"], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[0].split() == ["metric", "variant", "n", "score", "signature"]
    assert "one_minus_ned" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "metricore.cli", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2


def test_cli_wordnet_finds_the_provisioned_copy():
    out = subprocess.run([sys.executable, "-m", "metricore.cli", "wordnet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("WordNet: ")
    assert "RuntimeWarning" not in out.stderr
