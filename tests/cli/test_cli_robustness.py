"""``metricore score`` on hostile or careless input (issue 17): repeated ids in .json files,
unterminated CSV quotes, missing files, lone surrogates, deep structures, atomic outputs,
a closed standard output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from metricore.cli.commands import EXIT_DATA, EXIT_IO, EXIT_OK, main
from metricore.core import records as cli_io
from metricore.core.files import write_atomic
from metricore.core.records import InputError, read_records
from metricore.core.structured import MAX_DEPTH, to_json

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_a_repeated_id_in_a_json_file_is_an_error_naming_file_and_id(tmp_path, capsys):
    preds = tmp_path / "p.json"
    # json.loads keeps the last value: the wrong answer would be scored, rc 0
    preds.write_text('{"q1": "CocaCola", "q2": "x", "q1": "completely wrong"}', encoding="utf-8")
    refs = tmp_path / "r.json"
    refs.write_text('{"q1": ["Coca Cola"], "q2": ["x"]}', encoding="utf-8")
    code, out, err = run(capsys, "--metric", "anls", "--predictions", preds, "--references", refs)
    assert code == EXIT_DATA and out is None
    assert f"{preds}: the id or key 'q1' repeats" in err


def test_a_repeated_key_in_a_jsonl_record_is_an_error_naming_the_line(tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"prediction": "a", "references": ["a"]}\n{"prediction": "a", "prediction": "b", "references": ["a"]}\n'
    )
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path)
    assert code == EXIT_DATA
    assert f"{path} line 2: the key 'prediction' repeats" in err


def test_a_repeated_key_in_a_structured_csv_cell_is_an_error(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text('prediction,references\n"{""a"": ""x"", ""a"": ""y""}","{""a"": ""x""}"\n')
    code, _, err = run(capsys, "--metric", "anls", "--config", "anls_star", "--predictions", path)
    assert code == EXIT_DATA
    assert f"{path} line 2: the key 'a' repeats" in err


def test_an_unterminated_csv_quote_names_its_file_and_line(tmp_path, capsys):
    preds = tmp_path / "p.csv"
    preds.write_text('prediction\na\n"b\nc\nd\n', encoding="utf-8")
    refs = tmp_path / "r.csv"
    refs.write_text("references\na\nb\nc\nd\n", encoding="utf-8")
    code, out, err = run(capsys, "--metric", "anls", "--predictions", preds, "--references", refs)
    assert code == EXIT_DATA and out is None
    # not "4 references but 2 predictions ... last reference: r.csv line 5"
    assert f"{preds} line 3: a quoted cell starting on this line is never closed" in err
    assert str(refs) not in err


@pytest.mark.parametrize("flag", ["--predictions", "--references"])
def test_a_missing_input_file_names_the_argument(tmp_path, capsys, monkeypatch, flag):
    monkeypatch.chdir(tmp_path)
    Path("ok.jsonl").write_text('"a"\n', encoding="utf-8")
    files = {"--predictions": "ok.jsonl", "--references": "ok.jsonl", flag: "nope.jsonl"}
    code, _, err = run(capsys, "--metric", "anls", *[x for kv in files.items() for x in kv])
    assert code == EXIT_IO
    assert f"error: {flag}: no such file 'nope.jsonl'" in err


def test_a_lone_surrogate_is_written_to_per_sample_as_an_escape(tmp_path, capsys):
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"prediction": "a\\ud800b", "references": ["a\\ud800c"]}\n', encoding="ascii")
    out_file = tmp_path / "out.jsonl"
    code, out, err = run(capsys, "--metric", "anls", "--predictions", preds, "--per-sample", out_file)
    assert code == EXIT_OK, err
    row = json.loads(out_file.read_text(encoding="utf-8"))
    assert row["prediction"] == "a\ud800b" and row["references"] == ["a\ud800c"]
    assert "\\ud800" in out_file.read_text(encoding="utf-8")


def test_a_failed_per_sample_write_keeps_the_old_file(tmp_path, capsys, monkeypatch):
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        "".join(json.dumps({"prediction": f"a{i}", "references": ["a"]}) + "\n" for i in range(5))
    )
    out_file = tmp_path / "out.jsonl"
    out_file.write_text("precious\n", encoding="utf-8")
    calls = []

    def broken_dumps(value, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # a failure half-way through the rows
            raise OSError(28, "No space left on device")
        return json.dumps(value)

    monkeypatch.setattr("metricore.cli.commands.dumps", broken_dumps)
    code, _, err = run(capsys, "--metric", "anls", "--predictions", preds, "--per-sample", out_file)
    assert code == EXIT_IO and "--per-sample: cannot write" in err
    assert out_file.read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "p.jsonl"]  # no temp left


def test_write_atomic_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, ["new ", "\ud800"])
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
    write_atomic(target, ["new ", "text"])
    assert target.read_text(encoding="utf-8") == "new text"


def _deep(depth: int):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, 5000])
def test_a_too_deep_structure_is_a_data_error_naming_the_line_and_limit(tmp_path, capsys, depth):
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"prediction": "x", "references": ["x"]})
        + "\n"
        + '{"prediction": '
        + "[" * depth
        + '"x"'
        + "]" * depth
        + ', "references": ["x"]}\n',
        encoding="utf-8",
    )
    code, _, err = run(capsys, "--metric", "anls", "--config", "anls_star", "--predictions", path)
    assert code == EXIT_DATA, err
    assert f"{path} line 2" in err and f"at most {MAX_DEPTH} levels" in err


def test_the_deepest_allowed_structure_scores(tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text(to_json({"prediction": _deep(MAX_DEPTH - 1), "references": _deep(MAX_DEPTH - 1)}) + "\n")
    code, out, err = run(capsys, "--metric", "anls", "--config", "anls_star", "--predictions", path)
    assert code == EXIT_OK, err
    assert out["anls"] == 1.0


def test_read_records_reports_a_repeated_top_level_id(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": 1, "b": 2, "a": 3}', encoding="utf-8")
    with pytest.raises(InputError, match=r"the id or key 'a' repeats"):
        read_records(path)
    assert cli_io.read_records is read_records


def test_a_closed_stdout_exits_quietly(tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"prediction": "a", "references": ["a"]}) + "\n" for _ in range(50)))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "metricore.cli",
            "score",
            "--metric",
            "anls",
            "--predictions",
            str(preds),
            "--indent",
            "4",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    proc.stdout.close()  # as `| head -0` does before metricore writes
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == EXIT_IO
