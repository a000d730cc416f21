"""The relaxed accuracy card's tables, row by row, against the core and the oracles written
from pix2struct's and Qwen-VL's code (the card's doctests run in
``tests/hf/test_metric_cards.py``)."""

from __future__ import annotations

import ast

import pytest

from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy
from tests.conftest import ROOT
from tests.oracles import pix2struct_ref

CARD = (ROOT / "metrics" / "relaxed_accuracy" / "README.md").read_text(encoding="utf-8")


def _consequences() -> list[tuple[str, str, bool]]:
    section = CARD.split("Consequences worth knowing", 1)[1].split("```", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append(
                (
                    ast.literal_eval(cells[0].strip("`")),
                    ast.literal_eval(cells[1].strip("`")),
                    cells[2] == "yes",
                )
            )
    return rows


ROWS = _consequences()


def test_the_table_was_read():
    assert len(ROWS) == 10


@pytest.mark.parametrize(("pred", "gold", "correct"), ROWS, ids=[f"{p}|{g}" for p, g, _ in ROWS])
def test_consequence_row(pred, gold, correct):
    assert pix2struct_ref.relaxed_correctness(gold, pred) is correct
    assert compute_relaxed_accuracy([pred], [gold]).scores == [float(correct)]


def test_copies_table():
    preds, golds = ["105.2", "95.1", "0"], ["100", "100", "0.01"]
    assert [pix2struct_ref.relaxed_correctness(g, p) for p, g in zip(preds, golds)] == [False, True, False]
    qwen, _ = pix2struct_ref.qwen_relaxed_accuracy(
        [{"answer": p, "annotation": g} for p, g in zip(preds, golds)]
    )
    assert qwen == [True, False, False]
    assert compute_relaxed_accuracy(preds, golds, swapped=True, strip=True).scores == [1.0, 0.0, 0.0]
    # the swapped copies compare a prediction of 0 as text
    assert (
        pix2struct_ref.relaxed_correctness("0", "0.0") is False
        and pix2struct_ref.relaxed_correctness("0.0", "0") is False
    )
    assert compute_relaxed_accuracy(["0"], ["0.0"], swapped=True).scores == [0.0]
    # lmms-eval: relaxed_correctness(prediction, target) with the body unchanged = the defaults
    assert compute_relaxed_accuracy(preds, golds).scores == [0.0, 1.0, 0.0]
    assert compute_relaxed_accuracy(["Yes"], ["yes"], lowercase=False).scores == [0.0]
    assert compute_relaxed_accuracy(["1,000"], ["1000"], number_commas=True).scores == [1.0]
    assert compute_relaxed_accuracy(["1,000"], ["1000"]).scores == [0.0]
