"""Corpus metrics in batches: CIDEr(-D), the COCO caption table and METEOR 1.5 keep per-item
statistics only (word ids, counts, numbers; no text), and their streamed result equals the
in-memory one for any cut of the rows into batches, per-item records included; the PTB
tokens a stream computes batch by batch are those of one call over every caption; and the
CLI writes a corpus metric's per-sample file, whole or not at all, from those statistics."""

from __future__ import annotations

import dataclasses
import json
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore import registry
from metricore.cli.commands import EXIT_DATA, EXIT_OK, main
from metricore.core.stream import Deferred, ItemStats, StreamScorer, shift_indices
from metricore.core.structured import to_json
from metricore.metrics.caption_text import rows_to_hold
from metricore.text.ptb_tokenize import coco_tokenize
from tests.gen_captions import caption_sets
from tests.gen_cider_captions import caption_corpus

#: captions whose last tokens depend on the caption after them (which often starts "The"),
#: blank captions between them, and SGML tags whose attribute value spans the line break
ENDINGS = ["in the U.S.", "U.S.", "a.", "Mr.", "we'll", "a :D", "No.", "it's Inc.", "x ;)", "a - b."]
OPENINGS = ["The dog", "The", "5 dogs", "A cat", "He runs", "Mr. Smith"]
SPANNING = [('a <a href="x', 'y"> b'), ("<b c='", "' d>"), ('<i j="', "", 'k"> l')]


METEOR_DATA = registry.get("meteor").data
#: (metric, config, options) of every corpus-level config
CONFIGS = [
    ("cider", "cider_d", {}),
    ("cider", "cider", {}),
    ("cider", "cider_d", {"tokenize": False, "n": 3}),
    ("coco_caption", "coco", {"meteor": False}),
    ("coco_caption", "coco", {}),
    ("coco_caption", "bleu", {}),
    ("coco_caption", "rouge_l", {"tokenize": False}),
    ("meteor", "meteor_1_5", {}),
]


def _needs_meteor(name, config, options):
    wants = config == "meteor_1_5" or (config == "coco" and options.get("meteor", True))
    if wants and (METEOR_DATA is None or not METEOR_DATA.prepared()):
        pytest.skip("METEOR 1.5's data is not prepared on this machine")


def _rows(seed, n, kind, boundary):
    """``n`` generated rows, ``boundary`` of them turned into captions that read across the
    boundary to the next row (in the candidates and in the references)."""
    rng = random.Random(seed)
    if kind == "gen_captions":
        preds, refs = caption_sets(n, seed=seed)
    else:
        preds, refs = caption_corpus(n, seed=seed, rich=0.6)
    preds, refs = list(preds), [list(r) for r in refs]
    for _ in range(boundary):
        i = rng.randrange(n)
        if rng.random() < 0.2:
            texts = list(rng.choice(SPANNING))
        else:
            texts = [rng.choice(ENDINGS), *([""] * rng.choice([0, 0, 1, 2])), rng.choice(OPENINGS)]
        for k, text in enumerate(texts[: n - i]):
            preds[i + k] = text
            refs[i + k][-1 if k == 0 else 0] = text
    return preds, refs


def _line_safe(preds, refs):
    """METEOR 1.5 reads lines: give it captions without line breaks (its own check refuses
    them, in batches as at once)."""
    clean = str.maketrans({"\n": " ", "\r": " "})
    return [p.translate(clean) for p in preds], [[r.translate(clean) for r in rs] for rs in refs]


def _cut(n, cuts):
    bounds = sorted({0, n, *(c % (n + 1) for c in cuts)})
    return list(zip(bounds[:-1], bounds[1:]))


def _nan_equal(a, b) -> bool:
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def _streamed(bound, preds, refs, spans):
    scorer = StreamScorer(bound)
    assert scorer.stream is not None and not scorer.held
    per_item, deferred = [], []
    for a, b in spans:
        try:
            part = scorer.add(preds[a:b], refs[a:b])
        except (TypeError, ValueError) as err:  # named by its index in the whole input
            raise type(err)(shift_indices(str(err), a)) from None
        if isinstance(part, Deferred):
            deferred.append(part)
        else:
            per_item += [{**r, "index": r["index"] + a} for r in part.per_item()]
        for kept in scorer._parts:  # what a stream keeps: numbers, no text
            _assert_no_text(kept)
    got = scorer.finish()
    for part in deferred:
        per_item += [{**r, "index": r["index"] + part.start} for r in part.per_item(got)]
    return got, per_item


def _assert_no_text(stats) -> None:
    for f in dataclasses.fields(stats):
        value = getattr(stats, f.name)
        if isinstance(value, ItemStats):
            _assert_no_text(value)
        elif f.name in stats.TEXT:
            assert value is None, f.name
        elif isinstance(value, list):
            assert f.name in stats.SHARED, f"{type(stats).__name__}.{f.name} keeps a list"
        elif dataclasses.is_dataclass(value) and hasattr(value, "vocab"):
            # the words of the captions as ids: strings only for the distinct words
            assert len(value.vocab) == len(set(value.vocab))
            assert all(isinstance(getattr(value, a), np.ndarray) for a in ("cand_ids", "ref_ids", "ref_len"))


@pytest.mark.parametrize(("name", "config", "options"), CONFIGS, ids=lambda x: str(x))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    kind=st.sampled_from(["gen_captions", "gen_cider_captions"]),
    boundary=st.integers(0, 12),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_streamed_corpus_metric_equals_the_in_memory_result(
    name, config, options, seed, n, kind, boundary, cuts
):
    _needs_meteor(name, config, options)
    preds, refs = _rows(seed, n, kind, boundary)
    if (
        name == "meteor"
        or (config == "coco" and options.get("meteor", True))
        or not options.get("tokenize", True)
    ):
        preds, refs = _line_safe(preds, refs)
    bound = registry.get(name).bind(config, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one image: CIDEr-D's idf warning, in both
        try:
            want = bound.run(preds, refs)
        except ValueError as err:  # METEOR 1.5 refuses a token spanning two lines: in batches too
            with pytest.raises(ValueError) as info:
                _streamed(bound, preds, refs, _cut(n, cuts))
            assert str(info.value) == str(err)
            return
        got, per_item = _streamed(bound, preds, refs, _cut(n, cuts))
        summary = StreamScorer(bound)
        for a, b in _cut(n, [c * 7 + 3 for c in cuts]):
            summary.add(preds[a:b], refs[a:b])
        headline = summary.finish(columns=False).headline()
    assert got == want
    assert got.signature == want.signature
    assert _nan_equal(got.as_dict(), want.as_dict())
    assert _nan_equal(per_item, want.per_item())
    assert _nan_equal(headline, want.headline())


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 60),
    boundary=st.integers(0, 30),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_held_rows_make_batch_tokens_those_of_one_call(seed, n, boundary, cuts):
    """Each batch is tokenized with the rows that wait from the previous one; its last
    :func:`rows_to_hold` rows wait in turn. The tokens kept are those of one call."""
    preds, refs = _rows(seed, n, "gen_cider_captions", boundary)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_p = coco_tokenize(preds)
        want_r = coco_tokenize([r for rs in refs for r in rs])
        got_p, got_r = [], []
        wait_p, wait_r = [], []
        for a, b in [*_cut(n, cuts), (n, n)]:
            rows_p, rows_r = wait_p + preds[a:b], wait_r + refs[a:b]
            if not rows_p:
                continue
            keep = len(rows_p) - (rows_to_hold(rows_p, rows_r) if b < n else 0)
            got_p += coco_tokenize(rows_p)[:keep]
            got_r += coco_tokenize([r for rs in rows_r for r in rs])[: sum(map(len, rows_r[:keep]))]
            wait_p, wait_r = rows_p[keep:], rows_r[keep:]
    assert got_p == want_p
    assert got_r == want_r


def test_cutting_at_every_row_would_change_the_tokens():
    """The test above can fail: without held rows, batch boundaries change PTB tokens."""
    preds = ["a man in the U.S.", "The dog", "we'll", "a :D", "two cats"]
    one_call = coco_tokenize(preds)
    assert [coco_tokenize([p])[0] for p in preds] != one_call
    assert rows_to_hold(preds, [[p] for p in preds]) >= 2


# --------------------------------------------------------------------------------------------
# The CLI: a corpus metric's per-sample file
# --------------------------------------------------------------------------------------------


def _write(path, rows):
    path.write_text("".join(to_json(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _files(tmp_path, n, seed=7):
    preds, refs = caption_corpus(n, seed=seed, rich=0.5)
    preds, refs = _line_safe(preds, refs)
    p = _write(tmp_path / "p.jsonl", [{"id": f"img{i}", "prediction": x} for i, x in enumerate(preds)])
    r = _write(tmp_path / "r.jsonl", [{"id": f"img{i}", "references": x} for i, x in enumerate(refs)])
    return p, r, preds, refs


def _score(capsys, *argv):
    code = main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


@pytest.mark.parametrize(
    ("name", "config", "key"),
    [("cider", "cider_d", "cider"), ("coco_caption", "coco", "CIDEr"), ("coco_caption", "bleu", "Bleu_4")],
)
def test_cli_per_sample_of_a_corpus_metric_equals_the_in_memory_per_item(tmp_path, capsys, name, config, key):
    p, r, preds, refs = _files(tmp_path, 700)
    out_file = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        *("--metric", name, "--config", config, "--predictions", p, "--references", r),
        *("--id-field", "id", "--per-sample", out_file, "--batch-rows", 64),
        *(("--option", "meteor=false") if config == "coco" else ()),
    )
    assert code == EXIT_OK, err
    options = {"meteor": False} if config == "coco" else {}
    want = registry.get(name).bind(config, **options).run(preds, refs)
    assert out[key] == want.headline()[key] and out["signature"] == want.signature
    items = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    records = want.per_item()
    assert len(items) == len(records) == 700
    for item, record, ref in zip(items, records, refs):
        assert item["index"] == record["index"] and item["id"] == f"img{record['index']}"
        assert item["prediction"] == record["prediction"] and item["references"] == ref
        assert {k: v for k, v in item.items() if k not in ("index", "id", "prediction", "references")} == {
            k: v for k, v in record.items() if k not in ("index", "id", "prediction", "closest")
        }


@pytest.mark.parametrize("bad", ['{"id": "img650", "prediction": 7}', '{"id": "img650", "prediction": "x"'])
def test_cli_a_bad_row_of_a_corpus_metric_writes_no_per_sample(tmp_path, capsys, bad):
    p, r, _, _ = _files(tmp_path, 700)
    lines = p.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[650] = bad + "\n"
    p.write_text("".join(lines), encoding="utf-8")
    out_file = tmp_path / "items.jsonl"
    code, out, err = _score(
        capsys,
        *("--metric", "cider", "--predictions", p, "--references", r, "--id-field", "id"),
        *("--per-sample", out_file, "--batch-rows", 100),
    )
    assert code == EXIT_DATA and out is None
    assert f"{p} line 651" in err
    if "7" in bad:  # the core names the row by its index in the whole input
        assert "predictions[650]" in err
    assert not out_file.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.jsonl", "r.jsonl"]


def test_cli_names_the_line_of_a_row_that_waited_for_the_next_batch(tmp_path, capsys):
    """Row 99 ends in an SGML tag left open: it waits for row 100 (the next batch), whose
    first words close it; METEOR 1.5 then refuses the token that spans the two lines, as one
    call over all rows does, and the error names row 99's line."""
    if METEOR_DATA is None or not METEOR_DATA.prepared():
        pytest.skip("METEOR 1.5's data is not prepared on this machine")
    p, r, preds, refs = _files(tmp_path, 300)
    preds[99], preds[100] = 'a dog <a href="x', 'y"> runs'
    p = _write(tmp_path / "p.jsonl", [{"id": f"img{i}", "prediction": x} for i, x in enumerate(preds)])
    with pytest.raises(ValueError) as info:
        registry.get("coco_caption").bind("coco").run(preds, refs)
    assert "predictions[99]" in str(info.value)
    code, out, err = _score(
        capsys,
        *("--metric", "coco_caption", "--predictions", p, "--references", r, "--id-field", "id"),
        *("--per-sample", tmp_path / "items.jsonl", "--batch-rows", 100),
    )
    assert code == EXIT_DATA and out is None
    assert str(info.value) in err and f"{p} line 100" in err
    assert not (tmp_path / "items.jsonl").exists()


def test_word_ids_take_two_bytes_until_the_vocabulary_outgrows_them():
    """Each batch keeps its words as 2-byte ids (36,000 words each); joined, the vocabulary
    (72,000 words) needs 4-byte ids; the result is the in-memory one either way."""
    n = 18_000
    preds = [f"w{i} x{i % 7}" for i in range(2 * n)]
    refs = [[f"w{i} y", f"v{i} w{i}"] for i in range(2 * n)]
    bound = registry.get("cider").bind("cider_d", tokenize=False)
    scorer = StreamScorer(bound)
    scorer.add(preds[:n], refs[:n])
    scorer.add(preds[n:], refs[n:])
    assert [p.words.cand_ids.dtype for p in scorer._parts] == [np.uint16, np.uint16]
    joined = type(scorer._parts[0]).concat(scorer._parts)
    assert joined.words.cand_ids.dtype == np.int32 and len(joined.words.vocab) > 1 << 16
    got = scorer.finish()
    want = bound.run(preds, refs)
    assert got == want and got.scores == want.scores
