"""Every metric card's examples run as doctests, offline, from a directory that is not the
repository (the scripts come from the installed package: ``metricore_hf.load``)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARDS = sorted(ROOT.glob("metrics/*/README.md"))


def test_cards_exist():
    assert CARDS, "no metric cards found"


@pytest.mark.parametrize("card", CARDS, ids=lambda p: p.parent.name)
def test_card_examples_run(card: Path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failures, attempted = doctest.testfile(
        str(card),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
        report=True,
    )
    assert attempted > 0, f"{card} has no doctested example"
    assert failures == 0, f"{failures} failing example(s) in {card}"


@pytest.mark.parametrize("card", CARDS, ids=lambda p: p.parent.name)
def test_card_has_hub_yaml_header(card: Path):
    text = card.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, flags=re.S)
    assert match, f"{card} lacks a YAML header"
    header = match.group(1)
    for key in ("title:", "sdk: gradio", "app_file:", "tags:", "- evaluate", "- metric", "description:"):
        assert key in header, f"{card} YAML header lacks {key!r}"
    name = card.parent.name
    assert (card.parent / f"{name}.py").is_file()
    assert (card.parent / "requirements.txt").is_file()
