"""``metricore score`` for VQA accuracy (annotation records in a references file) and relaxed
accuracy: the core's numbers, per-sample rows and row-naming errors."""

from __future__ import annotations

import json

from metricore.cli.commands import EXIT_DATA, EXIT_OK, main
from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy
from metricore.metrics.vqa_accuracy import compute_vqa_accuracy


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _score(capsys, *argv):
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_vqa_records_from_files(tmp_path, capsys):
    preds = ["yes", "2", "Red"]
    refs = [
        {
            "question_id": 1,
            "answers": ["yes"] * 9 + ["no"],
            "answer_type": "yes/no",
            "question_type": "is the",
        },
        {
            "question_id": 2,
            "answers": ["2"] * 2 + ["two"] * 2 + ["3"] * 6,
            "answer_type": "number",
            "question_type": "how many",
        },
        {"question_id": 3, "answers": ["red"] * 10, "answer_type": "other", "question_type": "what color"},
    ]
    items = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        "--metric", "vqa_accuracy",
        "--config", "vqav2_2017",
        "--predictions", _jsonl(tmp_path / "p.jsonl", preds),
        "--references", _jsonl(tmp_path / "r.jsonl", refs),
        "--per-sample", str(items),
    )  # fmt: skip
    assert code == EXIT_OK, err
    want = compute_vqa_accuracy(preds, refs, variant="vqav2_2017").as_dict()
    assert out["accuracy"] == want["accuracy"] and out["official"] == want["official"]
    assert (
        out["accuracy_number"] == want["accuracy_number"]
        and out["per_question_type"] == want["per_question_type"]
    )
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
    assert [r["score"] for r in rows] == want["scores"] and [r["matches"] for r in rows] == [9, 2, 10]


def test_vqa_bad_row_names_the_line(tmp_path, capsys):
    code, _, err = _score(
        capsys,
        "--metric", "vqa_accuracy",
        "--predictions", _jsonl(tmp_path / "p.jsonl", ["a", "b"]),
        "--references", _jsonl(tmp_path / "r.jsonl", [["a"] * 10, []]),
    )  # fmt: skip
    assert code == EXIT_DATA and "references[1]" in err and "no human answers" in err


def test_relaxed_with_options(tmp_path, capsys):
    preds, refs = ["105.2", " yes ", "1,000"], ["100", "yes", ["999", "x"]]
    code, out, err = _score(
        capsys,
        "--metric", "relaxed_accuracy",
        "--predictions", _jsonl(tmp_path / "p.jsonl", preds),
        "--references", _jsonl(tmp_path / "r.jsonl", refs),
        "--option", "swapped=true", "--option", "strip=true", "--option", "number_commas=true",
    )  # fmt: skip
    assert code == EXIT_OK, err
    want = compute_relaxed_accuracy(preds, refs, swapped=True, strip=True, number_commas=True)
    assert out["relaxed_accuracy"] == want.relaxed_accuracy == 1.0 and out["signature"] == want.signature
