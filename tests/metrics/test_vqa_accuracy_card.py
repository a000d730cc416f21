"""Every row of the VQA accuracy card's "Which copy gives which number" table, and its other
statements, checked against the three configs and the three oracles written from the
scripts (the card's doctests run in ``tests/hf/test_metric_cards.py``)."""

from __future__ import annotations

import ast
import re

import pytest

from metricore.metrics.vqa_accuracy import compute_vqa_accuracy
from tests.conftest import ROOT
from tests.oracles import mmf_textvqa_ref, vqa_eval_ref

CARD = (ROOT / "metrics" / "vqa_accuracy" / "README.md").read_text(encoding="utf-8")
_STRING = r'"(?:[^"\\]|\\.)*"'


def _table_rows() -> list[tuple[str, list[str], list[float]]]:
    section = CARD.split("### Which copy gives which number", 1)[1].split("\nWhy:", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        pred = ast.literal_eval(cells[0].strip("`"))
        answers: list[str] = []
        for count, text in re.findall(rf"(\d+) × `({_STRING})`", cells[1]):
            answers += [ast.literal_eval(text)] * int(count)
        rows.append((pred, answers, [float(c) for c in cells[2:]]))
    return rows


ROWS = _table_rows()


def test_the_table_was_read():
    assert len(ROWS) == 12 and all(len(answers) == 10 for _, answers, _ in ROWS)


@pytest.mark.parametrize(("pred", "answers", "want"), ROWS, ids=[r[0] for r in ROWS])
def test_table_row(pred, answers, want):
    master, release, textvqa = want
    for variant, number in (("vqav2", master), ("vqav2_2017", release), ("textvqa", textvqa)):
        assert compute_vqa_accuracy([pred], [answers], variant=variant).scores == [number], variant
    questions = vqa_eval_ref.questions_from_lists([answers])
    assert vqa_eval_ref.evaluate(questions, [pred], release="master")["per_question"] == [master]
    assert vqa_eval_ref.evaluate(questions, [pred], release="v2.0")["per_question"] == [release]
    assert mmf_textvqa_ref.evaluate([{"pred_answer": pred, "gt_answers": answers}])[0] == [textvqa]


def test_quirk_statements():
    proc = vqa_eval_ref.process_punctuation
    assert proc("2.") == "2" and proc("3.5") == "3.5" and proc(".5") == ".5"
    # the rule as intended (a lookbehind) would keep "2."
    assert re.sub(r"(?<!\d)(\.)(?!\d)", "", "2.") == "2."
    assert len(proc("." * 40)) == 8 and len(proc("." * 32)) == 0
    assert proc("black/white") == "black white" and proc("black/white 1,5") == "blackwhite 15"
    # mmf's comma pattern never fires after its own comma deletion
    processor = mmf_textvqa_ref.EvalAIAnswerProcessor()
    assert processor("black/white 1,5") == processor("black/white 15") == "black white 15"
    assert vqa_eval_ref.process_digit_article("Im somebody'd") == "im somebodyd"


def test_k_of_ten_statement():
    for k, want in ((4, 1.0), (3, 0.9), (2, 0.6), (1, 0.3), (0, 0.0)):
        assert compute_vqa_accuracy(["x"], [["x"] * k + ["y"] * (10 - k)]).scores[0] == pytest.approx(
            want, abs=1e-15
        )
