"""``metricore score`` (and the other subcommands): file formats, id matching, error locations,
exit codes, per-sample output, and the same numbers as the core for every metric."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore import compute_anls, compute_cider, compute_meteor, compute_one_minus_ned, compute_token_f1
from metricore.cli.commands import EXIT_DATA, EXIT_IO, EXIT_OK, EXIT_RESOURCE, EXIT_USAGE, main
from metricore.core.records import (
    FieldNames,
    InputError,
    column,
    detect_format,
    pair_columns,
    progress_bar,
    read_records,
)
from metricore.core.structured import to_json
from metricore.metrics.token_f1 import compute_question_level
from metricore.metrics.token_f1.quac import compute_quac

ROOT = Path(__file__).resolve().parents[2]

PREDS = ["CocaCola", "12/15/89", "Dear dr. Lobo", "", "Thomas More"]
REFS = [
    ["Coca Cola", "Coca Cola Company"],
    "12/15/88",
    ["Dear Dr. Lobo", "Dr. Lobo"],
    [""],
    ["  Thomas  Moore "],
]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(to_json(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


@pytest.fixture
def docvqa_files(tmp_path):
    return write_jsonl(tmp_path / "p.jsonl", PREDS), write_jsonl(tmp_path / "r.jsonl", REFS)


# --------------------------------------------------------------------------------------------
# Same numbers as the core
# --------------------------------------------------------------------------------------------

CAPTIONS = (
    ["a cat sits on a mat", "a dog runs", "two birds on a wire"],
    [
        ["a cat sits on a mat", "a cat on a mat"],
        ["a dog runs in the park", "a dog in a park"],
        ["birds sitting on a wire", "two small birds"],
    ],
)

CASES = [
    ("anls", "docvqa", PREDS, REFS, {}, lambda p, r: compute_anls(p, r)),
    (
        "anls",
        "stvqa_paper",
        PREDS,
        REFS,
        {"threshold": 0.4},
        lambda p, r: compute_anls(p, r, variant="stvqa_paper", threshold=0.4),
    ),
    (
        "anls",
        "anls_star",
        [{"a": "b"}, ["x", "y"], None],
        [{"a": "c"}, ("x y", ["x", "y"]), None],
        {},
        lambda p, r: compute_anls(p, r, variant="anls_star"),
    ),
    (
        "anls",
        "dude",
        [["one", "to"], "foo"],
        [{"answers": ["one", "two"], "answer_type": "list/extractive"}, []],
        {},
        lambda p, r: compute_anls(p, r, variant="dude"),
    ),
    (
        "token_f1",
        "squad",
        ["The Cat!", "cat cat cat"],
        [["cat"], ["cat"]],
        {},
        lambda p, r: compute_token_f1(p, r),
    ),
    (
        "token_f1",
        "squad_v2",
        ["", "a cat"],
        [[], ["the cat"]],
        {"percent": False},
        lambda p, r: compute_token_f1(p, r, variant="squad_v2", percent=False),
    ),
    (
        "token_f1",
        "squad",
        [{"id": "b", "prediction_text": "cat"}, {"id": "a", "prediction_text": "a dog"}],
        [
            {"id": "a", "answers": {"text": ["dog"], "answer_start": [0]}},
            {"id": "b", "answers": {"text": ["cat"], "answer_start": [0]}},
        ],
        {},
        lambda p, r: compute_token_f1(p, r),
    ),
    (
        "token_f1",
        "question_level",
        [["Paris", "Rome"], []],
        [["paris"], ["x"]],
        {},
        lambda p, r: compute_question_level(p, r),
    ),
    (
        "token_f1",
        "quac",
        ["a b", "c", "d e"],
        [
            {"dialog_id": "d1", "answers": ["a b"]},
            {"dialog_id": "d1", "answers": ["c d"]},
            {"dialog_id": "d2", "answers": ["d e f"]},
        ],
        {},
        lambda p, r: compute_quac(p, [x["answers"] for x in r], [x["dialog_id"] for x in r]),
    ),
    (
        "meteor",
        "nltk",
        ["the cat was sat on the mat", "a dog"],
        [["the cat sat on the mat"], "the dog"],
        {"gamma": 0.4},
        lambda p, r: compute_meteor(p, r, gamma=0.4),
    ),
    ("cider", "cider_d", *CAPTIONS, {}, lambda p, r: compute_cider(p, r)),
    ("cider", "cider", *CAPTIONS, {"n": 3}, lambda p, r: compute_cider(p, r, variant="cider", n=3)),
    (
        "one_minus_ned",
        "icdar2019",
        ["kitten", "abc", "Хор"],
        ["sitting", ["abd", "abc"], "хор"],
        {"lowercase": True},
        lambda p, r: compute_one_minus_ned(p, r, lowercase=True),
    ),
]


@pytest.mark.parametrize(
    ("metric", "config", "preds", "refs", "options", "core"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)],
)
def test_score_equals_core(tmp_path, capsys, metric, config, preds, refs, options, core):
    p, r = write_jsonl(tmp_path / "p.jsonl", preds), write_jsonl(tmp_path / "r.jsonl", refs)
    per_sample = tmp_path / "items.jsonl"
    argv = [
        "--metric",
        metric,
        "--config",
        config,
        "--predictions",
        p,
        "--references",
        r,
        "--per-sample",
        per_sample,
    ]
    for k, v in options.items():
        argv += ["--option", f"{k}={json.dumps(v)}"]
    code, out, err = run(capsys, *argv)
    assert code == EXIT_OK, err
    want = core(preds, refs).as_dict()
    scores = want.pop("scores")
    columns = want.pop("columns", {})
    assert out == {
        "metric": metric,
        "config": config,
        "n": len(preds),
        "matched_by": "position",
        "options": options,
        **json.loads(json.dumps(want)),
    }
    items = [json.loads(line) for line in per_sample.read_text(encoding="utf-8").splitlines()]
    assert [it["index"] for it in items] == list(range(len(items)))
    assert [it["score"] for it in items] == scores
    for key, values in columns.items():
        assert [it[key] for it in items] == values


# --------------------------------------------------------------------------------------------
# Formats and fields
# --------------------------------------------------------------------------------------------


def _csv_text(header, rows, delimiter=","):
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def test_formats_give_the_same_result(tmp_path, capsys, docvqa_files):
    want = compute_anls(PREDS, REFS).anls
    ids = [f"q{i}" for i in range(len(PREDS))]
    combined = tmp_path / "both.jsonl"
    write_jsonl(combined, [{"id": i, "prediction": p, "references": r} for i, p, r in zip(ids, PREDS, REFS)])
    (tmp_path / "p.json").write_text(json.dumps(dict(zip(ids, PREDS))), encoding="utf-8")  # SQuAD layout
    (tmp_path / "r.json").write_text(
        json.dumps({"dataset_name": "x", "data": [{"id": i, "references": r} for i, r in zip(ids, REFS)]}),
        encoding="utf-8",
    )
    (tmp_path / "both.csv").write_text(
        _csv_text(
            ["id", "prediction", "references"],
            [[i, p, json.dumps(r) if isinstance(r, list) else r] for i, p, r in zip(ids, PREDS, REFS)],
        ),
        encoding="utf-8",
    )
    (tmp_path / "both.tsv").write_text(
        _csv_text(
            ["prediction", "reference"],
            [[p, json.dumps(r) if isinstance(r, list) else r] for p, r in zip(PREDS, REFS)],
            "\t",
        ),
        encoding="utf-8",
    )
    (tmp_path / "p.txt").write_text("\n".join(json.dumps(p) for p in PREDS), encoding="utf-8")
    runs = {
        "jsonl": ["--predictions", docvqa_files[0], "--references", docvqa_files[1]],
        "combined": ["--predictions", combined],
        "json": ["--predictions", tmp_path / "p.json", "--references", tmp_path / "r.json"],
        "csv": ["--predictions", tmp_path / "both.csv"],
        "tsv": ["--predictions", tmp_path / "both.tsv"],
        "format": ["--predictions", tmp_path / "p.txt", "--references", docvqa_files[1], "--format", "jsonl"],
        "mixed": ["--predictions", tmp_path / "p.json", "--references", tmp_path / "both.csv"],
    }
    for name, argv in runs.items():
        code, out, err = run(capsys, "--metric", "anls", *argv)
        assert code == EXIT_OK, (name, err)
        assert out["anls"] == want, name
        assert out["matched_by"] == ("position" if name in ("jsonl", "tsv", "format") else "id"), name


def test_ids_match_in_reference_order(tmp_path, capsys):
    p = write_jsonl(
        tmp_path / "p.jsonl",
        [{"id": 3, "prediction": "c"}, {"id": "1", "prediction": "a"}, {"id": "2", "prediction": "x"}],
    )
    r = write_jsonl(
        tmp_path / "r.jsonl",
        [
            {"id": "1", "references": ["a"]},
            {"id": "2", "references": "b"},
            {"id": "3", "references": ["c", "cc"]},
        ],
    )
    out_file = tmp_path / "o.jsonl"
    code, out, _ = run(
        capsys, "--metric", "one_minus_ned", "--predictions", p, "--references", r, "--per-sample", out_file
    )
    assert code == EXIT_OK
    items = [json.loads(x) for x in out_file.read_text().splitlines()]
    assert [(it["id"], it["prediction"], it["score"]) for it in items] == [
        ("1", "a", 1.0),
        ("2", "x", 0.0),
        ("3", "c", 1.0),
    ]
    assert out["matched_by"] == "id" and out["n"] == 3


def test_docvqa_field_names(tmp_path, capsys):
    preds = tmp_path / "results.json"
    preds.write_text(
        json.dumps([{"questionId": 7, "answer": "CocaCola"}, {"questionId": 8, "answer": "1989"}])
    )
    gold = tmp_path / "val_v1.0.json"
    gold.write_text(
        json.dumps(
            {
                "dataset_name": "docvqa",
                "data": [
                    {"questionId": 8, "question": "year?", "answers": ["1989", "89"]},
                    {"questionId": 7, "question": "brand?", "answers": ["Coca Cola"]},
                ],
            }
        )
    )
    code, out, err = run(
        capsys,
        "--metric",
        "anls",
        "--predictions",
        preds,
        "--references",
        gold,
        "--id-field",
        "questionId",
        "--prediction-field",
        "answer",
        "--reference-field",
        "answers",
    )
    assert code == EXIT_OK, err
    assert out["anls"] == compute_anls(["1989", "CocaCola"], [["1989", "89"], ["Coca Cola"]]).anls


def test_structured_csv_cells_are_json(tmp_path, capsys):
    path = tmp_path / "star.csv"
    path.write_text(
        _csv_text(
            ["prediction", "references"],
            [['{"a": "b"}', '{"a": "c"}'], ["plain text", '{"__tuple__": ["plain text", "x"]}']],
        )
    )
    code, out, err = run(capsys, "--metric", "anls", "--config", "anls_star", "--predictions", path)
    assert code == EXIT_OK, err
    assert (
        out["anls"]
        == compute_anls(
            [{"a": "b"}, "plain text"], [{"a": "c"}, ("plain text", "x")], variant="anls_star"
        ).anls
    )


def test_stdin_is_jsonl(tmp_path):
    r = write_jsonl(tmp_path / "r.jsonl", REFS)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "metricore.cli",
            "score",
            "--metric",
            "anls",
            "--predictions",
            "-",
            "--references",
            str(r),
            "--indent",
            "-1",
        ],
        input="".join(json.dumps(p) + "\n" for p in PREDS),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\n" not in proc.stdout.strip()
    assert json.loads(proc.stdout)["anls"] == compute_anls(PREDS, REFS).anls
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal


# --------------------------------------------------------------------------------------------
# Errors: file, line, exit code
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pred_text", "ref_text", "pattern"),
    [
        ('"a"\n\n{"prediction": "b"\n', '"a"\n"b"\n', r"p\.jsonl line 3: not valid JSON"),
        ('"a"\n"b"\n', '"a"\n', r"2 predictions but 1 references"),
        ('"a"\n7\n', '"a"\n"b"\n', r"predictions\[1\]` must be a str.*\[.*p\.jsonl line 2\]"),
        ('"a"\n"b"\n', '"a"\n[]\n', r"references\[1\]` has no answers.*\[.*r\.jsonl line 2\]"),
        (
            '{"id": "1", "prediction": "a"}\n{"prediction": "b"}\n',
            '"a"\n"b"\n',
            r"p\.jsonl line 2: has no id",
        ),
        (
            '{"id": "1", "prediction": "a"}\n{"id": "1", "prediction": "b"}\n',
            '{"id": "1", "references": "a"}\n{"id": "2", "references": "b"}\n',
            r"line 2: the id '1' repeats",
        ),
        (
            '{"id": "1", "prediction": "a"}\n',
            '{"id": "2", "references": "a"}\n',
            r"r\.jsonl line 1: no prediction has the id '2'",
        ),
        ('{"id": "1", "prediction": "a"}\n', '"a"\n', r"has ids but .* has none"),
        (
            '{"id": "1", "references": "a"}\n',
            '{"references": "a"}\n',
            r"p\.jsonl line 1: no 'prediction' field",
        ),
        ('{"id": "1", "answer": "a"}\n', '"a"\n', r"got dict .*\[.*p\.jsonl line 1\]"),
        (
            '{"id": [1], "prediction": "a"}\n',
            '{"id": "1", "references": "a"}\n',
            r"the id must be a str or an int",
        ),
        (b'"\xff"\n', '"a"\n', r"p\.jsonl line 1: not UTF-8"),
        ("", "", r"`predictions` is empty"),
    ],
)
def test_bad_data_exits_3_naming_file_and_line(tmp_path, capsys, pred_text, ref_text, pattern):
    p, r = tmp_path / "p.jsonl", tmp_path / "r.jsonl"
    (p.write_bytes if isinstance(pred_text, bytes) else p.write_text)(pred_text)
    r.write_text(ref_text)
    code, out, err = run(capsys, "--metric", "anls", "--predictions", p, "--references", r)
    assert code == EXIT_DATA, err
    assert out is None
    assert err.startswith("metricore score: error: ")
    assert re.search(pattern, err), err


def test_bad_csv_rows(tmp_path, capsys):
    path = tmp_path / "x.csv"
    path.write_text("prediction,references\na,a\n\nb,b,extra\n")
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path)
    assert code == EXIT_DATA and "x.csv line 4: 3 cells, but the header has 2 columns" in err
    path.write_text("prediction,gold\na,a\n")
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path)
    assert code == EXIT_DATA and "x.csv line 2: no 'references' or 'reference' column" in err


def test_bad_json_file(tmp_path, capsys, docvqa_files):
    path = tmp_path / "p.json"
    path.write_text('[\n"a",\n"b" "c"]')
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path, "--references", docvqa_files[1])
    assert code == EXIT_DATA and "p.json line 3 column 5: not valid JSON" in err
    path.write_text('"a"')
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path, "--references", docvqa_files[1])
    assert code == EXIT_DATA and "must hold a list" in err


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["--config", "nope"], "unknown config 'nope'; allowed: 'docvqa'"),
        (["--option", "tau=0.3"], r"unknown option\(s\) 'tau'; allowed: threshold"),
        (["--option", "threshold=2"], "threshold"),
        (["--format", "json"], "not valid JSON"),
    ],
)
def test_usage_errors_exit_2(capsys, docvqa_files, argv, pattern):
    code, out, err = run(
        capsys, "--metric", "anls", "--predictions", docvqa_files[0], "--references", docvqa_files[1], *argv
    )
    assert out is None
    assert code == (EXIT_DATA if argv[0] == "--format" else EXIT_USAGE), err
    assert re.search(pattern, err), err


def test_argparse_errors_exit_2(capsys, docvqa_files):
    for argv in (["--metric", "bleu"], ["--predictions", str(docvqa_files[0])], ["--option", "novalue"]):
        with pytest.raises(SystemExit) as info:
            main(
                ["score", "--metric", "anls", "--predictions", str(docvqa_files[0]), *argv]
                if argv[0] != "--predictions"
                else ["score", *argv]
            )
        assert info.value.code == EXIT_USAGE
    capsys.readouterr()


def test_unknown_extension_is_usage(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text('"a"\n')
    code, _, err = run(capsys, "--metric", "anls", "--predictions", path)
    assert code == EXIT_USAGE and "--format" in err


def test_io_errors_exit_4(tmp_path, capsys, docvqa_files):
    code, _, err = run(
        capsys,
        "--metric",
        "anls",
        "--predictions",
        tmp_path / "missing.jsonl",
        "--references",
        docvqa_files[1],
    )
    assert code == EXIT_IO and "missing.jsonl" in err
    code, out, err = run(
        capsys,
        "--metric",
        "anls",
        "--predictions",
        docvqa_files[0],
        "--references",
        docvqa_files[1],
        "--per-sample",
        tmp_path / "no" / "dir" / "o.jsonl",
    )
    assert code == EXIT_IO and out is None


def test_missing_wordnet_exits_5(monkeypatch, capsys, tmp_path):
    from metricore.cli import commands as cli
    from metricore.lexicon.wordnet import WordNetNotFoundError

    def missing(*args, **kwargs):
        raise WordNetNotFoundError("WordNet not found; run `metricore wordnet --install`")

    import dataclasses

    real = cli.row_spec

    def without_wordnet(name):
        spec = real(name)  # the streamed CLI calls the stream's items (compute = finish(items))
        return dataclasses.replace(
            spec, compute=missing, stream=dataclasses.replace(spec.stream, items=missing)
        )

    monkeypatch.setattr(cli, "row_spec", without_wordnet)
    p = write_jsonl(tmp_path / "p.jsonl", ["a"])
    code, _, err = run(capsys, "--metric", "meteor", "--predictions", p, "--references", p)
    assert code == EXIT_RESOURCE and "wordnet --install" in err


def test_exit_codes_are_documented():
    from metricore.cli import commands as cli

    doc = cli.__doc__
    for code, word in (
        (0, "success"),
        (1, "internal"),
        (2, "usage"),
        (3, "bad input data"),
        (4, "read or written"),
        (5, "not installed"),
    ):
        assert f"\n{code}  " in doc and word in doc
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| 3 |" in readme and "| 5 |" in readme


# --------------------------------------------------------------------------------------------
# Readers (properties), progress, other subcommands
# --------------------------------------------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=3)), min_size=1, max_size=6))
def test_readers_round_trip(tmp_path_factory, rows):
    d = tmp_path_factory.mktemp("rt")
    preds = [p for p, _ in rows]
    refs = [r for _, r in rows]
    write_jsonl(d / "a.jsonl", [{"prediction": p, "references": r} for p, r in rows])
    (d / "a.json").write_text(
        json.dumps([{"prediction": p, "references": r} for p, r in rows]), encoding="utf-8"
    )
    (d / "a.csv").write_text(
        _csv_text(["prediction", "references"], [[p, json.dumps(r)] for p, r in rows]),
        encoding="utf-8",
        newline="",
    )
    for name in ("a.jsonl", "a.json", "a.csv"):
        recs = read_records(d / name)
        got = pair_columns(column(recs, "prediction"), column(recs, "references"))
        assert got.predictions == preds, name
        assert got.references == refs, name


def test_id_order_property():
    from metricore.core.records import Column

    preds = Column(["c", "a", "b"], ["3", "1", "2"], ["p:1", "p:2", "p:3"])
    refs = Column(["A", "B", "C"], ["1", "2", "3"], ["r:1", "r:2", "r:3"])
    got = pair_columns(preds, refs)
    assert got.predictions == ["a", "b", "c"] and got.prediction_where == ["p:2", "p:3", "p:1"]
    with pytest.raises(InputError, match="p:1 has ids but r:1 has none"):
        pair_columns(preds, Column(["A"], None, ["r:1"]))


def test_detect_format():
    assert detect_format("x.JSONL") == "jsonl" and detect_format("x.ndjson") == "jsonl"
    assert detect_format("-") == "jsonl" and detect_format("x.tsv") == "tsv"
    assert detect_format("x.txt", "csv") == "csv"
    with pytest.raises(ValueError, match="unknown format"):
        detect_format("x.csv", "xml")


def test_progress_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar(None, total=10) is None  # not a TTY
    assert progress_bar(False, total=10) is None
    bar = progress_bar(True, total=10)
    assert bar is not None and bar.total == 10
    bar.close()


def test_forced_progress_bar_on_a_long_file(tmp_path, monkeypatch):
    import metricore.core.records as cli_io

    created = []

    def spy(enabled, **kwargs):
        bar = progress_bar(enabled, **{**kwargs, "delay": 0})
        created.append(bar)
        return bar

    monkeypatch.setattr(cli_io, "progress_bar", spy)
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    path = write_jsonl(tmp_path / "long.jsonl", ["x" * 50] * 2000)
    assert len(read_records(path, progress=True)) == 2000
    assert created and created[0].n == os.path.getsize(path)
    assert "reading long.jsonl" in stream.getvalue()


def test_field_names_and_bare_objects():
    from metricore.core.records import Record

    fields = FieldNames(prediction=("answer",), id=("qid",))
    recs = [Record({"qid": 5, "answer": "x"}, "f line 1"), Record({"qid": 6, "answer": "y"}, "f line 2")]
    got = column(recs, "prediction", fields)
    assert got.values == ["x", "y"] and got.ids == ["5", "6"]
    # an object without a prediction/references field is a value (HF SQuAD rows, DUDE golds)
    squad = Record({"id": "a", "prediction_text": "t"}, "f line 1")
    got = column([squad], "prediction")
    assert got.values == [{"id": "a", "prediction_text": "t"}] and got.ids is None


def test_demo_and_wordnet_still_work(capsys):
    assert main(["demo", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows
    code = main(["wordnet"])
    out, err = capsys.readouterr()
    assert code in (0, 1) and ("WordNet" in out or "WordNet" in err)


def test_console_script_and_module_entry():
    script = Path(sys.executable).with_name("metricore")
    if script.exists():
        proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and "score" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "metricore.cli", "score", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0 and "--per-sample" in proc.stdout and "Exit codes" in proc.stdout


def test_readme_cli_example(tmp_path):
    """The README's command runs as written (from the repository root) and prints what the
    README shows."""
    from tests.readme_examples import example, example_output

    command = example("cli").replace("\\\n", " ").strip()
    assert command.startswith("metricore score ")
    argv = command.split()[1:]
    argv[argv.index("--per-sample") + 1] = str(tmp_path / "anls_items.jsonl")
    proc = subprocess.run(
        [sys.executable, "-m", "metricore.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(example_output("cli"))
    first = json.loads((tmp_path / "anls_items.jsonl").read_text(encoding="utf-8").splitlines()[0])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{json.dumps(first, ensure_ascii=False)}`" in readme


def test_a_subcommand_module_registers_with_one_line(monkeypatch, capsys):
    """A module with ``add_parser(subparsers)`` (setting ``func``) and ``run(args)`` joins
    ``metricore`` by being listed in ``SUBCOMMANDS``."""
    import argparse
    import types

    from metricore.cli import commands as cli

    module = types.ModuleType("fake_subcommand")

    def run(args: argparse.Namespace) -> int:
        print(f"hello {args.name}")
        return 0

    def add_parser(subparsers) -> argparse.ArgumentParser:
        p = subparsers.add_parser("hello")
        p.add_argument("name")
        p.set_defaults(func=run)
        return p

    module.add_parser, module.run = add_parser, run
    monkeypatch.setitem(sys.modules, "fake_subcommand", module)
    monkeypatch.setattr(cli, "SUBCOMMANDS", ("fake_subcommand",))
    assert main(["hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"


def test_forced_progress_bar_on_a_long_csv(tmp_path, monkeypatch):
    import metricore.core.records as cli_io

    created = []

    def spy(enabled, **kwargs):
        bar = progress_bar(enabled, **{**kwargs, "delay": 0})
        created.append(bar)
        return bar

    monkeypatch.setattr(cli_io, "progress_bar", spy)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    path = tmp_path / "long.csv"
    path.write_text(_csv_text(["prediction", "references"], [["a", "b"]] * 500), encoding="utf-8")
    assert len(read_records(path, progress=True)) == 500
    assert created[0].n == created[0].total == 501
