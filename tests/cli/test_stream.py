"""The streaming path: batches give the in-memory result for every metric and config of the
registry, the id pairing of a stream equals :func:`pair_columns` across spill boundaries (the
same order, the same errors), the fast JSON path reads what the standard library reads, and a
bad row deep in a file fails the run without writing per-sample output."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from metricore import registry
from metricore.cli.commands import EXIT_DATA, EXIT_OK, main
from metricore.core import records
from metricore.core.pairing import IdMismatch, pair_ids, pair_stream
from metricore.core.records import (
    FieldNames,
    InputError,
    column,
    pair_columns,
    pair_rows,
    read_records,
    read_rows,
)
from metricore.core.stream import Deferred, StreamScorer
from metricore.core.structured import to_json


def _cases():
    """``(metric, config, predictions, references, options)`` for every config of every row
    metric, from the spec's examples (a config without its own example borrows one of a
    config that reads the same input kinds)."""
    for name in registry.row_metrics():
        spec = registry.METRICS[name]
        for config in spec.configs:
            own = [e for e in spec.examples if (e.config or spec.default_config) == config.name]
            if not own:
                own = [
                    e
                    for e in spec.examples
                    if spec.config(e.config).inputs[0] == config.inputs[0]
                    and set(e.options) <= config.option_names
                ][:1]
            for k, example in enumerate(own):
                yield pytest.param(
                    name,
                    config.name,
                    list(example.predictions),
                    list(example.references),
                    dict(example.options),
                    id=f"{name}-{config.name}-{k}",
                )


def _needs(name, config):
    """A config whose one-time data is missing gets it built (idempotent, once per machine),
    as a service would at start-up: the stream is tested on every config."""
    spec = registry.METRICS[name]
    if spec.data is not None and config in spec.data.configs and not spec.data.prepared():
        if not spec.data.available():
            pytest.skip(f"{spec.data.what} cannot be built here (its source is not installed)")
        spec.data.prepare()


@pytest.mark.parametrize(("name", "config", "preds", "refs", "options"), list(_cases()))
@pytest.mark.parametrize("batch", [1, 2, 1000])
def test_streamed_result_equals_the_in_memory_result(name, config, preds, refs, options, batch):
    _needs(name, config)
    bound = registry.METRICS[name].bind(config, **options)
    # repeated rows: several batches, and batches that split the example differently
    preds, refs = preds * 3, refs * 3
    want = bound.run(preds, refs)
    scorer = StreamScorer(bound)
    per_item = []
    deferred = []
    for i in range(0, len(preds), batch):
        part = scorer.add(preds[i : i + batch], refs[i : i + batch])
        if isinstance(part, Deferred):  # per-item numbers of every row, once all are in
            deferred.append(part)
        elif part is not None:  # a batch's own per-item numbers are the whole input's
            per_item += [{**r, "index": r["index"] + i} for r in part.per_item()]
    got = scorer.finish()
    for part in deferred:
        per_item += [{**r, "index": r["index"] + part.start} for r in part.per_item(got)]
    assert got == want
    assert got.signature == want.signature
    assert got.as_dict() == want.as_dict() or _nan_equal(got.as_dict(), want.as_dict())
    summary = StreamScorer(bound)
    for i in range(0, len(preds), batch):
        summary.add(preds[i : i + batch], refs[i : i + batch])
    in_memory = summary.finish(columns=False)
    assert _nan_equal(in_memory.headline(), want.headline())
    # statistics moved to disk every 2 rows, where the metric's statistics allow it: the same
    # result (the columns on disk summed in NumPy's order)
    spilling = StreamScorer(bound, spill_rows=2)
    for i in range(0, len(preds), batch):
        spilling.add(preds[i : i + batch], refs[i : i + batch])
    assert _nan_equal(spilling.finish(columns=False).as_dict(), in_memory.as_dict())
    if not scorer.held:
        assert _nan_equal(per_item, want.per_item())


@pytest.mark.parametrize(
    ("name", "config", "gold"),
    [
        ("anls", "docvqa", lambda g: [g, g.upper()]),
        ("one_minus_ned", "clovaai", str),
        ("meteor", "nltk", lambda g: [g]),
    ],
)
def test_a_long_stream_keeps_its_statistics_on_disk_with_the_same_result(name, config, gold):
    """Past ``spill_rows`` rows the per-item columns of ANLS, 1-NED and METEOR go to disk,
    and the result is the in-memory one, every number equal: 70,000 rows, more than one
    slice of the column on disk, so the pairwise halving of NumPy's sum is taken from disk."""
    rng = random.Random(7)
    words = "coca cola company thomas 1998 total invoice hello world Москва 東京".split()
    golds = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(70_000)]
    preds = [g if rng.random() < 0.4 else g[: rng.randint(0, len(g))] for g in golds]
    refs = [gold(g) for g in golds]
    bound = registry.get(name).bind(config)
    want = bound.run(preds, refs)
    scorer, held = StreamScorer(bound, spill_rows=5_000), StreamScorer(bound)
    for i in range(0, len(preds), 4_096):
        scorer.add(preds[i : i + 4_096], refs[i : i + 4_096])
        held.add(preds[i : i + 4_096], refs[i : i + 4_096])
    assert scorer.spilled >= 65_000 and held.spilled == 0
    got = scorer.finish(columns=False)
    assert got.headline() == want.headline()
    assert got.as_dict() == held.finish(columns=False).as_dict()


def _nan_equal(a, b) -> bool:
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def test_every_metric_the_cli_scores_row_by_row_streams_every_config():
    """Every metric but the challenge score (a combination of whole task files) declares a
    stream for each of its configs: the CLI's memory stays bounded by the batch for all of them."""
    held = []
    for name in registry.names():
        spec = registry.get(name)
        if spec.stream is None:
            held.append(name)
            continue
        for config in spec.configs:
            assert spec.stream.streams(config.name), (name, config.name)
    assert held == ["challenge_score"]


# --------------------------------------------------------------------------------------------
# Pairing a stream by id
# --------------------------------------------------------------------------------------------


def _batches(values, ids, size, name):
    for i in range(0, len(values), size):
        yield values[i : i + size], ids[i : i + size], [f"{name}:{j + 1}" for j in range(i, i + size)]


def _paired_stream(left_ids, right_ids, size, spill):
    left = [f"v{x}" for x in left_ids]
    right = [f"r{x}" for x in right_ids]

    def sides():
        return _batches(left, left_ids, size, "L"), _batches(right, right_ids, size, "R")

    out = []
    for lv, rv, ids, lw, rw in pair_stream(*sides(), reopen=sides, spill_rows=spill):
        out += list(zip(lv, rv, ids, lw, rw))
    return out


@pytest.mark.parametrize(("size", "spill"), [(7, 10), (64, 100), (1000, 1 << 20)])
def test_out_of_order_ids_across_spill_boundaries(size, spill):
    rng = random.Random(size)
    ids = [f"id{i}" for i in range(3_000)]
    right = list(ids)
    left = list(ids)
    # the first rows agree (paired as they come), the rest is shuffled (spilled hash join)
    tail = left[500:]
    rng.shuffle(tail)
    left[500:] = tail
    got = _paired_stream(left, right, size, spill)
    order = pair_ids(left, right)
    assert [g[2] for g in got] == right
    assert [g[0] for g in got] == [f"v{left[i]}" for i in order]
    assert [g[3] for g in got] == [f"L:{i + 1}" for i in order]
    assert [g[4] for g in got] == [f"R:{i + 1}" for i in range(len(right))]


def _message(left_ids, right_ids, size, spill):
    with pytest.raises(IdMismatch) as info:
        _paired_stream(left_ids, right_ids, size, spill)
    err = info.value
    return err.describe(where_left=err.where_left.__getitem__, where_right=err.where_right.__getitem__)


def _want(left_ids, right_ids):
    with pytest.raises(IdMismatch) as info:
        pair_ids(left_ids, right_ids)
    return info.value.describe(where_left=lambda i: f"L:{i + 1}", where_right=lambda i: f"R:{i + 1}")


@pytest.mark.parametrize(("size", "spill"), [(50, 100), (1000, 1 << 20)])
def test_repeated_missing_and_extra_ids_at_scale(size, spill):
    rng = random.Random(1)
    ids = [f"q{i}" for i in range(5_000)]
    cases = []
    # a repeat far from its first occurrence, in files in the same order
    left = list(ids)
    left[4_321] = left[17]
    cases.append((left, list(left)))
    # repeats on the right side only, several of them
    right = list(ids)
    right[4_000], right[4_500] = right[3], right[9]
    cases.append((list(ids), right))
    # missing and extra ids in shuffled files
    left = [x for x in ids if x not in ("q4999", "q2500")] + ["zz1", "zz2", "zz3"]
    rng.shuffle(left)
    cases.append((left, list(ids)))
    # one side ends early
    cases.append((ids[:4_000], list(ids)))
    for left_ids, right_ids in cases:
        assert _message(left_ids, right_ids, size, spill) == _want(left_ids, right_ids)


def test_a_hash_collision_is_ruled_out_by_the_diagnosis(monkeypatch):
    """Repeated hashes whose ids differ pair as usual (the diagnosis finds no problem)."""
    import metricore.core.pairing as pairing

    real = pairing._hashes
    monkeypatch.setattr(pairing, "_hashes", lambda ids: real(ids) & 0xFF)  # collisions galore
    ids = [f"k{i}" for i in range(2_000)]
    left = list(reversed(ids))
    got = _paired_stream(left, ids, 100, 300)
    assert [g[0] for g in got] == [f"v{x}" for x in ids]


# --------------------------------------------------------------------------------------------
# The CLI on files
# --------------------------------------------------------------------------------------------


def _write(path: Path, rows) -> Path:
    path.write_text("".join(to_json(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _anls_files(tmp_path, n, shuffle=True):
    rng = random.Random(n)
    words = ["coca", "cola", "total", "1998", "Dr.", "lobo", "ΑΒΓ", "東京"]
    refs, preds = [], []
    for i in range(n):
        gold = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        refs.append({"id": f"q{i}", "references": [gold, gold.upper()]})
        preds.append({"id": f"q{i}", "prediction": gold if rng.random() < 0.5 else gold[:-1]})
    if shuffle:
        rng.shuffle(preds)
    return _write(tmp_path / "p.jsonl", preds), _write(tmp_path / "r.jsonl", refs)


def _score(capsys, *argv):
    code = main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_cli_streams_shuffled_ids_across_spills_as_in_memory(tmp_path, capsys):
    p, r = _anls_files(tmp_path, 3_000)
    out_file = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        *("--metric", "anls", "--predictions", p, "--references", r, "--per-sample", out_file),
        *("--batch-rows", 128, "--spill-rows", 500),
    )
    assert code == EXIT_OK, err
    paired = pair_columns(column(read_records(p), "prediction"), column(read_records(r), "references"))
    want = registry.get("anls").bind("docvqa").run(paired.predictions, paired.references)
    assert out["anls"] == want.anls and out["n"] == 3_000 and out["matched_by"] == "id"
    items = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert [it["index"] for it in items] == list(range(3_000))
    assert [it["id"] for it in items] == paired.ids
    assert [it["prediction"] for it in items] == paired.predictions
    assert [it["score"] for it in items] == want.scores
    assert [it["closest"] for it in items] == want.closest


def test_cli_repeated_id_at_scale_writes_no_per_sample(tmp_path, capsys):
    p, r = _anls_files(tmp_path, 4_000, shuffle=False)
    lines = r.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3_999] = lines[3_999].replace('"q3999"', '"q12"')
    r.write_text("".join(lines), encoding="utf-8")
    out_file = tmp_path / "items.jsonl"
    out_file.write_text("old\n", encoding="utf-8")
    code, out, err = _score(
        capsys,
        *("--metric", "anls", "--predictions", p, "--references", r, "--per-sample", out_file),
        *("--batch-rows", 100, "--spill-rows", 300),
    )
    assert code == EXIT_DATA and out is None
    with pytest.raises(InputError) as info:
        pair_columns(column(read_records(p), "prediction"), column(read_records(r), "references"))
    assert str(info.value) in err
    assert f"{r} line 4000: the id 'q12' repeats (first at {r} line 13)" in err
    assert out_file.read_text(encoding="utf-8") == "old\n"  # none written: the old file is kept
    assert sorted(x.name for x in tmp_path.iterdir()) == ["items.jsonl", "p.jsonl", "r.jsonl"]


@pytest.mark.parametrize("bad", ['{"id": "q2990", "prediction": "x"', '{"id": "q2990", "prediction": 7}'])
def test_a_bad_row_deep_in_a_file_names_its_line_and_writes_no_per_sample(tmp_path, capsys, bad):
    p, r = _anls_files(tmp_path, 3_000, shuffle=False)
    lines = p.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2_990] = bad + "\n"
    p.write_text("".join(lines), encoding="utf-8")
    out_file = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        *("--metric", "anls", "--predictions", p, "--references", r, "--per-sample", out_file),
        *("--batch-rows", 100),
    )
    assert code == EXIT_DATA and out is None
    assert f"{p} line 2991" in err
    if "7" in bad:  # the core names the row by its index in the whole input
        assert "predictions[2990]" in err
    assert not out_file.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.jsonl", "r.jsonl"]


def test_cli_counts_rows_by_position_across_batches(tmp_path, capsys):
    p = _write(tmp_path / "p.jsonl", ["a"] * 250)
    r = _write(tmp_path / "r.jsonl", [["a"]] * 249)
    code, _, err = _score(
        capsys, "--metric", "anls", "--predictions", p, "--references", r, "--batch-rows", 100
    )
    assert code == EXIT_DATA
    assert "250 predictions but 249 references" in err and f"last prediction: {p} line 250" in err


def test_held_metric_scores_all_rows_at_once(tmp_path, capsys):
    """CIDEr-D's document frequencies need every image: its rows are held, the result is the
    core's on all rows whatever the batch size."""
    preds = ["a cat sits on a mat", "a dog runs", "two birds on a wire"] * 5
    refs = [["a cat on a mat", "a cat sits"], ["a dog runs in a park"], ["birds on a wire"]] * 5
    p, r = _write(tmp_path / "p.jsonl", preds), _write(tmp_path / "r.jsonl", refs)
    out_file = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        "--metric",
        "cider",
        "--predictions",
        p,
        "--references",
        r,
        "--per-sample",
        out_file,
        "--batch-rows",
        2,
    )
    assert code == EXIT_OK, err
    want = registry.get("cider").bind().run(preds, refs)
    assert out["cider"] == want.cider
    assert [json.loads(x)["score"] for x in out_file.read_text().splitlines()] == want.scores


# --------------------------------------------------------------------------------------------
# The fast JSON path reads what the standard library reads
# --------------------------------------------------------------------------------------------

TRICKY = [
    '{"id": "a", "prediction": "x"}',
    '{"id" : "a", "prediction" :"x", "id":"b"}',  # a repeated key, spaced colons
    '{"a" :1, "a" :2, "b":"\\":"}',  # a repeat hidden by a quoted colon
    '{"prediction": 123456789012345678901234567890}',  # an int past 64 bits
    '{"prediction": 0.1, "references": [1e400]}',
    '{"prediction": NaN}',
    '{"prediction": "a\\ud800b"}',  # a lone surrogate
    '{"prediction": {"__tuple__": ["x", "y"]}}',
    '"\\u00e9t\\u00e9"',
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "[" * 101 + "]" * 101,
    "\u00a0",
    '{"prediction": "x"} ',
    "{'prediction': 1}",
    '{"prediction": "\u2028"}',
]


@pytest.mark.parametrize("line", TRICKY)
def test_the_fast_parser_reads_what_the_standard_library_reads(line, monkeypatch):
    def read():
        try:
            return [(r.value, r.where) for r in records.read_text_records(line + "\n", name="f")]
        except InputError as err:
            return str(err)

    fast = read()
    monkeypatch.setattr(records, "_fast_loads", None)
    pure = read()
    assert repr(fast) == repr(pure)


def test_read_rows_equals_read_records_and_column(tmp_path):
    rows = [{"id": i, "prediction": f"p{i}", "references": [f"r{i}"]} for i in range(1, 230)]
    rows[7] = {"id": "8", "prediction": ["list", "value"]}
    path = _write(tmp_path / "x.jsonl", rows)
    for role in ("prediction",):
        want = column(read_records(path), role)
        batches = list(read_rows(path, role, FieldNames(), batch_rows=50))
        assert [len(b.values) for b in batches] == [50, 50, 50, 50, 29]
        assert [v for b in batches for v in b.values] == want.values
        assert [i for b in batches for i in b.ids] == want.ids
        assert [w for b in batches for w in b.where] == want.where


def test_pair_rows_by_position_equals_pair_columns(tmp_path):
    p = _write(tmp_path / "p.jsonl", [f"p{i}" for i in range(120)])
    r = _write(tmp_path / "r.jsonl", [[f"r{i}"] for i in range(120)])
    want = pair_columns(column(read_records(p), "prediction"), column(read_records(r), "references"))
    got = list(
        pair_rows(read_rows(p, "prediction", batch_rows=40), read_rows(r, "references", batch_rows=40))
    )
    assert [x for g in got for x in g.predictions] == want.predictions
    assert [x for g in got for x in g.references] == want.references
    assert [x for g in got for x in g.reference_where] == want.reference_where


@pytest.mark.parametrize(
    "row",
    [
        {"index": 0, "prediction": "a", "score": float("nan")},
        {"index": 1, "prediction": "a\ud800b", "score": 1.0},
        {"index": 2, "prediction": None, "references": [1, [2]], "score": float("inf")},
        {"index": 3, "prediction": "é", "references": ["x"], "score": 0.5, "big": 2**70},
    ],
)
def test_dumps_fast_path_writes_the_standard_librarys_values(row, monkeypatch):
    from metricore.cli import commands

    fast = commands.dumps(row)
    monkeypatch.setattr(commands, "_fast_dumps", None)
    assert json.loads(fast) == json.loads(commands.dumps(row))
