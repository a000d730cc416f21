"""``metricore challenge``: the whole-submission files give the core's numbers; errors map to
the documented exit codes."""

from __future__ import annotations

import json

import pytest

from metricore.challenge import score_challenge, score_submission, whole_submission_example
from metricore.cli.commands import EXIT_DATA, EXIT_OK, EXIT_USAGE, main


@pytest.fixture
def submission(tmp_path):
    ex = whole_submission_example()
    paths = {}
    for key in ("predictions", "references", "task_ids", "extra"):
        paths[key] = tmp_path / f"{key}.json"
        paths[key].write_text(json.dumps(ex[key], ensure_ascii=False), encoding="utf-8")
    return ex, paths


def _args(paths):
    return [
        "challenge",
        "--predictions",
        str(paths["predictions"]),
        "--references",
        str(paths["references"]),
        "--task-ids",
        str(paths["task_ids"]),
        "--extra",
        str(paths["extra"]),
        "--indent",
        "-1",
    ]


def test_submission_files_give_the_core_result(submission, capsys):
    ex, paths = submission
    assert main(_args(paths)) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    expected = score_submission(**ex)
    assert out["integral"] == pytest.approx(expected.integral, abs=1e-12)
    assert out["signature"] == expected.signature
    assert out["scores"] == pytest.approx(list(expected.task_scores.values()), abs=1e-12)
    assert out["columns"]["id"] == list(expected.task_scores)


def test_inputs_file_and_intervals(tmp_path, capsys):
    inputs = {
        name: 0.5 for name in ("TextQA", "MathQA", "ImageGeneration", "ImageCaptioning", "VisualQA", "TRitW")
    }
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps(inputs))
    assert main(["challenge", "--inputs", str(path), "--missing", "zero", "--indent", "-1"]) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    assert out["integral"] == pytest.approx(score_challenge(inputs, missing="zero").integral)
    assert out["integral"] == pytest.approx(0.2)


def test_confidence_adds_interval_keys(submission, capsys):
    _, paths = submission
    assert main([*_args(paths), "--confidence", "0.9", "--n-resamples", "200"]) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    assert out["integral_ci_low"] <= out["integral"] <= out["integral_ci_high"]


def test_bad_inputs_exit_codes(submission, tmp_path, capsys):
    _, paths = submission
    assert main(["challenge", "--predictions", str(paths["predictions"])]) == EXIT_USAGE
    assert "--references" in capsys.readouterr().err
    assert main([*_args(paths), "--challenge", "nope"]) == EXIT_USAGE
    assert "built-in" in capsys.readouterr().err
    bad = tmp_path / "inputs.json"
    bad.write_text(json.dumps({"TextQA": 1.5}))
    assert main(["challenge", "--inputs", str(bad), "--missing", "zero"]) == EXIT_DATA
    assert "TextQA" in capsys.readouterr().err
    bad.write_text("{not json")
    assert main(["challenge", "--inputs", str(bad)]) == EXIT_DATA
    assert "line 1" in capsys.readouterr().err


def test_custom_spec_file(tmp_path, capsys):
    spec = {
        "name": "mine",
        "tasks": {"a": {"metric": "score", "weight": 0.25}, "b": {"metric": "score", "weight": 0.75}},
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    (tmp_path / "inputs.json").write_text(json.dumps({"a": 1.0, "b": 0.0}))
    code = main(
        ["challenge", "--challenge", str(tmp_path / "spec.json"), "--inputs", str(tmp_path / "inputs.json")]
    )
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    assert json.loads(captured.out)["integral"] == pytest.approx(0.25)
