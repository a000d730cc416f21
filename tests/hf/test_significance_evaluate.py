"""The opt-in ``confidence=`` keyword of every ``evaluate`` module, and ``metricore compare``."""

from __future__ import annotations

import functools
import json
import math

import evaluate
import pytest

from metricore import (
    compute_anls,
    compute_cider,
    compute_meteor,
    compute_one_minus_ned,
    compute_quac,
    compute_question_level,
    compute_token_f1,
)
from metricore.cli.compare import main as compare_main
from metricore.intervals import headline_statistics, interval_fields

CAPTIONS = (
    ["a cat sits on a mat", "a dog runs", "two birds fly", "a man rides a horse", "a red bus"],
    [
        ["a cat sits on a mat", "a cat on a mat"],
        ["a dog runs in the park"],
        ["birds in the sky"],
        ["a man riding a horse", "a horse and a man"],
        ["a red bus on a street"],
    ],
)
ANSWERS = (
    ["CocaCola", "12/15/89", "Dear dr. Lobo", "", "Thomas More", "blue"],
    [["Coca Cola", "Coca Cola Company"], "12/15/88", ["Dear Dr. Lobo"], [""], ["Thomas Moore"], ["red"]],
)
QUAC_REFS = [
    {"dialog_id": "d1", "answers": ["the cat sat", "a cat sat"]},
    {"dialog_id": "d1", "answers": ["on the mat"]},
    {"dialog_id": "d2", "answers": ["CANNOTANSWER"]},
    {"dialog_id": "d2", "answers": ["blue sky", "the blue sky"]},
]

# (module path, config, predictions, references, metric kwargs, core call giving the same result)
MODULES = [
    ("metrics/anls", None, *ANSWERS, {}, lambda: compute_anls(*ANSWERS)),
    (
        "metrics/one_minus_ned",
        None,
        *ANSWERS,
        {"lowercase": True},
        lambda: compute_one_minus_ned(*ANSWERS, lowercase=True),
    ),
    ("metrics/token_f1", None, *ANSWERS, {}, lambda: compute_token_f1(*ANSWERS)),
    (
        "metrics/token_f1",
        "squad_v2",
        ANSWERS[0],
        [["x"], [], ["Dear Dr. Lobo"], [], ["Thomas"], ["red"]],
        {},
        lambda: compute_token_f1(
            ANSWERS[0], [["x"], [], ["Dear Dr. Lobo"], [], ["Thomas"], ["red"]], variant="squad_v2"
        ),
    ),
    (
        "metrics/token_f1",
        "question_level",
        [["a", "b"], ["c"], []],
        [["a"], ["c", "d"], []],
        {},
        lambda: compute_question_level([["a", "b"], ["c"], []], [["a"], ["c", "d"], []]),
    ),
    (
        "metrics/token_f1",
        "quac",
        ["the cat sat", "mat", "CANNOTANSWER", "sky"],
        QUAC_REFS,
        {},
        lambda: compute_quac(
            ["the cat sat", "mat", "CANNOTANSWER", "sky"],
            [r["answers"] for r in QUAC_REFS],
            [r["dialog_id"] for r in QUAC_REFS],
        ),
    ),
    (
        "metrics/meteor",
        None,
        *CAPTIONS,
        {"synonyms": "none"},
        lambda: compute_meteor(*CAPTIONS, synonyms="none"),
    ),
    ("metrics/cider", None, *CAPTIONS, {}, lambda: compute_cider(*CAPTIONS)),
]


@functools.cache
def _load(path: str, config: str | None = None) -> evaluate.EvaluationModule:
    """One module object per (path, config): loading dominates these tests' time, and a
    module is reusable once a ``compute`` has consumed its rows."""
    return evaluate.load(path, config) if config else evaluate.load(path)


@pytest.mark.parametrize(
    "path,config,preds,refs,kwargs,core",
    MODULES,
    ids=[f"{m[0].split('/')[1]}-{m[1] or 'default'}" for m in MODULES],
)
def test_confidence_keyword_adds_flat_interval_keys(path, config, preds, refs, kwargs, core):
    metric = _load(path, config)
    plain = metric.compute(predictions=preds, references=refs, **kwargs)
    assert not any(k.endswith(("_ci_low", "_ci_high")) for k in plain)
    assert "confidence" not in plain
    got = metric.compute(
        predictions=preds, references=refs, confidence=0.9, n_resamples=150, seed=4, **kwargs
    )
    result = core()
    want = interval_fields(result, confidence=0.9, n_resamples=150, seed=4)
    assert {k: got[k] for k in want} == pytest.approx(want, nan_ok=True)
    assert got["confidence"] == 0.9 and got["n_resamples"] == 150 and got["seed"] == 4
    for key in headline_statistics(result):
        low, high = got[f"{key}_ci_low"], got[f"{key}_ci_high"]
        assert isinstance(low, float) and isinstance(high, float)  # flat numbers: Trainer can log them
        assert math.isnan(low) or low <= high
    # the rest of the result is untouched
    rest = {k: v for k, v in got.items() if k not in want}
    assert json.dumps(rest, sort_keys=True) == json.dumps(plain, sort_keys=True)


def test_defaults_and_streaming():
    metric = _load("metrics/anls")
    metric.add_batch(predictions=ANSWERS[0][:3], references=ANSWERS[1][:3])
    metric.add_batch(predictions=ANSWERS[0][3:], references=ANSWERS[1][3:])
    got = metric.compute(confidence=0.95)
    want = interval_fields(compute_anls(*ANSWERS))  # n_resamples=1000, seed=0
    assert got["anls_ci_low"] == want["anls_ci_low"] and got["anls_ci_high"] == want["anls_ci_high"]
    assert (got["n_resamples"], got["seed"]) == (1000, 0)
    assert got["anls_ci_low"] <= got["anls"] <= got["anls_ci_high"]


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"confidence": 1.0}, ValueError, r"^one_minus_ned: `confidence` must be in \(0, 1\)"),
        ({"confidence": 0}, ValueError, r"`confidence` must be in \(0, 1\)"),
        ({"confidence": "95%"}, TypeError, r"`confidence` must be a number"),
        ({"confidence": 0.95, "n_resamples": 0}, ValueError, r"`n_resamples` must be >= 1"),
        ({"confidence": 0.95, "seed": -2}, ValueError, r"`seed` must be >= 0"),
        ({"n_resamples": 100}, ValueError, r"`n_resamples` applies only with `confidence`"),
        (
            {"n_resamples": 100, "seed": 1},
            ValueError,
            r"`n_resamples` and `seed` apply only with `confidence`",
        ),
        ({"confidance": 0.95}, TypeError, r"unknown option\(s\) 'confidance'"),
    ],
)
def test_bad_interval_keywords_leave_the_rows_cached(kwargs, error, pattern):
    metric = _load("metrics/one_minus_ned")
    metric.add_batch(predictions=["ab", "c"], references=["ab", "d"])
    with pytest.raises(error, match=pattern):
        metric.compute(**kwargs)
    assert metric.compute(confidence=0.5, n_resamples=10)["one_minus_ned"] == 0.5


# ---------------------------------------------------------------------------------------------
# metricore compare
# ---------------------------------------------------------------------------------------------


def _write(path, rows, kind="jsonl"):
    if kind == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    else:
        path.write_text(json.dumps(rows), encoding="utf-8")
    return str(path)


def test_compare_cli_reports_both_tests(tmp_path, capsys):
    refs = [[f"answer {i}"] for i in range(120)]
    base = [r[0] if i % 3 else "wrong" for i, r in enumerate(refs)]
    system = [r[0] if i % 9 else "wrong" for i, r in enumerate(refs)]
    # the system file is in another order, with ids: it is matched to the references by id
    ids = [f"q{i}" for i in range(120)]
    system_rows = [{"id": q, "prediction": p} for q, p in zip(ids, system)][::-1]
    args = [
        "--metric",
        "anls",
        "--baseline",
        _write(
            tmp_path / "a.json", {"data": [{"id": q, "prediction": p} for q, p in zip(ids, base)]}, "json"
        ),
        "--system",
        _write(tmp_path / "b.jsonl", system_rows),
        "--references",
        _write(tmp_path / "refs.jsonl", [{"id": q, "references": r} for q, r in zip(ids, refs)]),
        "--option",
        "threshold=0.5",
        "--n-resamples",
        "300",
        "--n-trials",
        "500",
        "--seed",
        "2",
    ]
    assert compare_main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 120 and report["matched_by"] == "id" and report["config"] == "docvqa"
    assert report["signature"].startswith("anls|variant:docvqa")
    test = report["tests"]["anls"]
    bs, ar = test["paired_bootstrap"], test["approximate_randomization"]
    # "wrong" scores 0 against "answer <i>" (NLS below 0.5): 40 and 14 wrong answers
    assert bs["baseline"]["score"] == pytest.approx(80 / 120) and bs["system"]["score"] == pytest.approx(
        106 / 120
    )
    assert bs["difference"] == pytest.approx(26 / 120, abs=1e-12)
    assert bs["p_value"] < 0.01 and bs["p_value_two_sided"] < 0.01 and ar["p_value"] < 0.01
    assert 0 < bs["difference_low"] <= bs["difference"] <= bs["difference_high"]
    assert (bs["n_resamples"], ar["n_trials"], ar["seed"]) == (300, 500, 2)


def test_compare_cli_keys_output_file_and_quac(tmp_path):
    refs = [{"dialog_id": f"d{i // 4}", "answers": ["the cat sat on the mat", "cat sat"]} for i in range(40)]
    base = ["the cat sat" if i % 2 else "dog" for i in range(40)]
    out = tmp_path / "report.json"
    args = [
        "--metric",
        "token_f1",
        "--config",
        "quac",
        "--baseline",
        _write(tmp_path / "a.jsonl", base),
        "--system",
        _write(tmp_path / "b.jsonl", list(base)),
        "--references",
        _write(tmp_path / "r.jsonl", refs),
        "--key",
        "heq_d",
        "--key",
        "f1",
        "--n-resamples",
        "50",
        "--n-trials",
        "50",
        "--output",
        str(out),
    ]
    assert compare_main(args) == 0
    report = json.loads(out.read_text())
    assert list(report["tests"]) == ["heq_d", "f1"] and report["matched_by"] == "position"
    assert report["tests"]["f1"]["approximate_randomization"]["p_value"] == 1.0  # identical systems


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        ({"--baseline": "missing.jsonl"}, 4, "--baseline: no such file"),
        ({"--system": "short.jsonl"}, 3, "2 predictions but 3 references"),
        ({"--references": "r.txt"}, 2, "cannot tell the format"),
        ({"--key": "nope"}, 2, "unknown key"),
        ({"--confidence": "1.5"}, 2, "`confidence` must be in"),
        ({"--option": "threshold=7"}, 2, "threshold"),
        ({"--option": "colour=red"}, 2, "unknown option(s) 'colour'"),
    ],
)
def test_compare_cli_errors_and_exit_codes(tmp_path, capsys, change, code, message):
    rows = ["a", "b", "c"]
    files = {"--baseline": "a.jsonl", "--system": "b.jsonl", "--references": "r.jsonl"}
    for name in files.values():
        _write(tmp_path / name, rows)
    (tmp_path / "short.jsonl").write_text('"a"\n"b"\n')
    (tmp_path / "r.txt").write_text("a\nb\nc\n")
    settings = {**files, **change}
    args = ["--metric", "anls"]
    for flag, value in settings.items():
        args += [flag, str(tmp_path / value) if flag in files else value]
    assert compare_main(args) == code
    assert message in capsys.readouterr().err


def test_compare_registers_as_a_metricore_subcommand(tmp_path, capsys, monkeypatch):
    import metricore.cli.commands as cli

    monkeypatch.setattr(cli, "SUBCOMMANDS", tuple(dict.fromkeys((*cli.SUBCOMMANDS, "metricore.cli.compare"))))
    rows = ["kitten", "abc", "hello"]
    args = [
        "compare",
        "--metric",
        "one_minus_ned",
        "--baseline",
        _write(tmp_path / "a.jsonl", rows),
        "--system",
        _write(tmp_path / "b.jsonl", ["sitting", "abd", "hello"]),
        "--references",
        _write(tmp_path / "r.jsonl", rows),
        "--n-resamples",
        "20",
        "--n-trials",
        "20",
    ]
    assert cli.main(args) == 0
    assert set(json.loads(capsys.readouterr().out)["tests"]) == {"one_minus_ned", "cer"}
