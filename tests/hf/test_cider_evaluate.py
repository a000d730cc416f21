"""``evaluate.load("metrics/cider")`` offline: the same numbers as the core, the document
frequencies computed over all rows (streaming and distributed runs equal one-shot), errors
naming absolute rows, keyword checks, tables by path, and the caller's data left alone."""

from __future__ import annotations

import copy
import threading

import evaluate
import pytest

from metricore import CIDER_VARIANTS, DocumentFrequency, compute_cider
from tests.gen_cider_captions import caption_corpus

CANDS, REFS = caption_corpus(60, seed=21)


@pytest.mark.parametrize("variant", list(CIDER_VARIANTS))
def test_evaluate_equals_core(variant):
    before = copy.deepcopy((CANDS, REFS))
    metric = evaluate.load("metrics/cider", variant)
    got = metric.compute(predictions=CANDS, references=REFS)
    want = compute_cider(CANDS, REFS, variant=variant)
    assert got == want.as_dict()
    assert (CANDS, REFS) == before, "the caller's inputs were modified"


def test_default_config_is_cider_d_and_signature_names_the_options():
    got = evaluate.load("metrics/cider").compute(
        predictions=["a cat sits on a mat", "a dog runs"],
        references=[["a cat sits on a mat", "a cat on a mat"], ["a dog runs in the park", "a dog in a park"]],
    )
    assert round(got["cider"], 4) == 5.0491
    assert (
        got["signature"]
        == "cider|variant:cider_d|df:corpus|n:4|sigma:6.0|tok:ptb-corenlp-3.4.1|version:0.1.0"
    )
    assert set(got) == {"cider", "scores", "signature"}


def test_streaming_equals_one_shot():
    metric = evaluate.load("metrics/cider")
    metric.add_batch(predictions=CANDS[:17], references=REFS[:17])
    metric.add(prediction=CANDS[17], reference=REFS[17])
    metric.add_batch(predictions=CANDS[18:], references=REFS[18:])
    streamed = metric.compute()
    # the idf needs every image: a per-batch computation would give other numbers
    assert streamed["scores"] == compute_cider(CANDS, REFS).scores
    first = compute_cider(CANDS[:17], REFS[:17]).scores
    assert first != streamed["scores"][:17]


def test_distributed_processes_gather_every_row(tmp_path):
    out: dict[int, dict | None] = {}
    errors: list[BaseException] = []

    def worker(pid: int, rows: slice) -> None:
        try:
            m = evaluate.load(
                "metrics/cider",
                num_process=2,
                process_id=pid,
                experiment_id="cider-test",
                cache_dir=str(tmp_path),
            )
            m.add_batch(predictions=CANDS[rows], references=REFS[rows])
            out[pid] = m.compute()
        except BaseException as err:  # pragma: no cover - surfaced below
            errors.append(err)

    threads = [
        threading.Thread(target=worker, args=(0, slice(0, 30))),
        threading.Thread(target=worker, args=(1, slice(30, 60))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert out[1] is None
    assert out[0]["scores"] == compute_cider(CANDS, REFS).scores


def test_errors_name_the_absolute_row():
    metric = evaluate.load("metrics/cider")
    metric.add_batch(predictions=["a", "b"], references=[["a"], ["b"]])
    with pytest.raises(TypeError, match=r"predictions\[3\]"):
        metric.add_batch(predictions=["c", 7], references=[["c"], ["d"]])
    with pytest.raises(ValueError, match=r"references\[2\]` has no reference caption"):
        metric.add_batch(predictions=["c"], references=[[]])


@pytest.mark.parametrize(
    ("config", "kwargs", "error", "pattern"),
    [
        (
            "cider_d",
            {"predictions": ["a", "b"], "references": [["a"]]},
            ValueError,
            "2 predictions but 1 references",
        ),
        ("cider_d", {"predictions": [], "references": []}, ValueError, "empty"),
        ("cider_d", {"predictions": "abc", "references": [["a"]]}, TypeError, "`predictions` must be a list"),
        ("cider_d", {"predictions": ["a"], "references": [["a", None]]}, TypeError, r"references\[0\]\[1\]"),
        (
            "cider_d",
            {"predictions": ["a"], "references": [["a"]], "sigmaa": 6},
            TypeError,
            r"unknown option\(s\)",
        ),
        (
            "cider",
            {"predictions": ["a"], "references": [["a"]], "sigma": 6},
            TypeError,
            r"unknown option\(s\)",
        ),
        (
            "cider_d",
            {"predictions": ["a", "b"], "references": [["a"], ["b"]], "n": 0},
            ValueError,
            r"`n`+ must be in \[1, inf\], got 0",  # checked before the rows are consumed
        ),
    ],
)
def test_bad_input(config, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        evaluate.load("metrics/cider", config).compute(**kwargs)


def test_unknown_config_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: 'cider_d', 'cider'"):
        evaluate.load("metrics/cider", "ciderD")


def test_document_frequency_table_by_object_or_path(tmp_path):
    table = DocumentFrequency.from_references(REFS)
    path = tmp_path / "coco-df.json.gz"
    table.save(path)
    metric = evaluate.load("metrics/cider")
    want = compute_cider(CANDS[:5], REFS[:5], df=table).as_dict()
    assert metric.compute(predictions=CANDS[:5], references=REFS[:5], df=table) == want
    assert metric.compute(predictions=CANDS[:5], references=REFS[:5], df=str(path)) == want
    assert metric.compute(predictions=CANDS[:5], references=REFS[:5], df=path) == want
