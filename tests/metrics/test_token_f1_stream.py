"""Token F1 scored in batches (:class:`metricore.core.stream.StreamScorer`) gives the result
of one call on all rows, for every config, at random batch sizes: the corpus numbers, the
SQuAD v2.0 report with its best thresholds, the per-question numbers of each batch, and the
signature.

SQuAD dict rows are held by the spec's stream (the command line pairs them by position);
batches of them whose ids pair within each batch stream exactly all the same (probability
ties across batch boundaries, predictions in another order than the references within each
batch): tested with the spec's stream without its ``accepts``."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore import registry
from metricore.core.spec import BoundMetric
from metricore.core.stream import Stream, StreamScorer
from metricore.metrics.token_f1 import MLQA_LANGUAGES, compute_token_f1
from tests.gen_token_f1 import answer, mlqa_questions, mutate, quac_dialogs, questions

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SPEC = registry.get("token_f1")
#: the spec's stream without ``accepts``: SQuAD dict batches are scored batch by batch
UNHELD = replace(SPEC, stream=Stream(SPEC.stream.items, SPEC.stream.finish))
#: few distinct probabilities: ties inside and across batches
PROBABILITIES = (0.0, 0.0, 0.25, 0.5, 0.5, 0.75, 1.0)


def _same(a, b) -> bool:
    """Equal as JSON (NaN equals NaN: an empty HasAns/NoAns group)."""
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def _equal(got, want) -> bool:
    """``got == want``, with the SQuAD v2.0 dicts compared NaN-aware."""
    if getattr(want, "squad_v2", None) is None:
        return bool(got == want)
    return _same(got.squad_v2, want.squad_v2) and replace(got, squad_v2=None) == replace(want, squad_v2=None)


def _cuts(rnd: random.Random, n: int) -> list[int]:
    """Random batch boundaries: sizes from 1 to all rows."""
    out, i = [], 0
    while i < n:
        i = min(n, i + rnd.choice((1, 2, 3, rnd.randint(1, n))))
        out.append(i)
    return out


def _stream(bound: BoundMetric, batches: list[tuple[list, list]]):
    """The streamed result, its summary (no columns) and the per-question records of the
    batches (indices in the whole input)."""
    scorer, summary = StreamScorer(bound), StreamScorer(bound)
    records, offset = [], 0
    for preds, refs in batches:
        part = scorer.add(preds, refs)
        summary.add(preds, refs)
        assert part is not None, "token_f1 rows were held"
        records += [{**r, "index": r["index"] + offset} for r in part.per_item()]
        offset += len(preds)
    return scorer.finish(), summary.finish(columns=False), records


def _check(bound: BoundMetric, batches: list[tuple[list, list]], want) -> None:
    got, summary, records = _stream(bound, batches)
    assert _equal(got, want)
    assert got.signature == want.signature
    assert _same(got.as_dict(), want.as_dict())
    assert _same(summary.headline(), want.headline()) and summary.signature == want.signature
    assert _same(summary.extra(), want.extra())
    assert _same(records, want.per_item())


def _batches(preds: list, refs: list, cuts: list[int]) -> list[tuple[list, list]]:
    starts = [0, *cuts[:-1]]
    return [(preds[a:b], refs[a:b]) for a, b in zip(starts, cuts)]


@SETTINGS
@given(
    st.sampled_from(["squad", "squad_v2", "fbc2_textqa", "fbc2_mathqa"]),
    st.integers(1, 60),
    st.integers(0, 10**6),
    st.randoms(use_true_random=False),
)
def test_plain_lists_stream_as_one_call(config, n, seed, rnd):
    preds, refs = questions(n, seed)
    if config == "squad_v2":  # questions without an answer
        refs = [[] if rnd.random() < 0.3 else g for g in refs]
    if config.startswith("fbc2"):  # answers with option letters, decided on the letter rule
        preds = [
            rnd.choice(("a) ", "B ", "d", "", "ответ: c ")) + p if rnd.random() < 0.4 else p for p in preds
        ]
    want = compute_token_f1(preds, refs, variant=config)
    _check(SPEC.bind(config), _batches(preds, refs, _cuts(rnd, n)), want)


@SETTINGS
@given(
    st.sampled_from(MLQA_LANGUAGES),
    st.integers(1, 40),
    st.integers(0, 10**6),
    st.randoms(use_true_random=False),
)
def test_mlqa_streams_as_one_call(language, n, seed, rnd):
    preds, refs = mlqa_questions(language, n, seed)
    want = compute_token_f1(preds, refs, variant="mlqa", language=language)
    _check(SPEC.bind("mlqa", language=language), _batches(preds, refs, _cuts(rnd, n)), want)


def _squad_dict_batches(rnd: random.Random, n: int, seed: int, cuts: list[int]):
    """SQuAD dict rows, ids unique, each batch's predictions shuffled (their row order breaks
    the v2.0 walk's probability ties); about a third of the questions without an answer."""
    preds, refs = questions(n, seed)
    pred_rows, ref_rows = [], []
    for i, (p, g) in enumerate(zip(preds, refs)):
        gold = [] if rnd.random() < 0.35 else g
        ref_rows.append({"id": f"q{i}", "answers": {"text": gold, "answer_start": [0] * len(gold)}})
        pred_rows.append(
            {"id": f"q{i}", "prediction_text": p, "no_answer_probability": rnd.choice(PROBABILITIES)}
        )
    batches = []
    for preds_part, refs_part in _batches(pred_rows, ref_rows, cuts):
        preds_part = list(preds_part)
        rnd.shuffle(preds_part)
        batches.append((preds_part, refs_part))
    return batches


@SETTINGS
@given(
    st.integers(1, 60),
    st.integers(0, 10**6),
    st.sampled_from([0.0, 0.5, 0.75, 1.0]),
    st.randoms(use_true_random=False),
)
def test_squad_v2_dicts_stream_with_ties_across_batches(n, seed, threshold, rnd):
    batches = _squad_dict_batches(rnd, n, seed, _cuts(rnd, n))
    preds = [p for ps, _ in batches for p in ps]
    refs = [r for _, rs in batches for r in rs]
    want = compute_token_f1(preds, refs, variant="squad_v2", no_answer_threshold=threshold)
    got, summary, records = _stream(UNHELD.bind("squad_v2", no_answer_threshold=threshold), batches)
    # the stream keeps no ids (texts); every number and the signature are the same
    assert _equal(got, want) and got.ids is None
    assert _same(summary.squad_v2, want.squad_v2)
    assert _same(summary.headline(), want.headline()) and _same(summary.extra(), want.extra())
    assert got.signature == summary.signature == want.signature
    want_dict, got_dict = want.as_dict(), got.as_dict()
    assert want_dict["columns"].pop("id") == [r["id"] for r in refs]
    assert _same(got_dict, want_dict)
    assert _same(records, want.per_item())


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_squad_dicts_stream_as_one_call(n, seed, rnd):
    batches = _squad_dict_batches(rnd, n, seed, _cuts(rnd, n))
    # v1.1 needs an answer per question
    batches = [
        (ps, [{**r, "answers": {"text": r["answers"]["text"] or ["x"], "answer_start": [0]}} for r in rs])
        for ps, rs in batches
    ]
    preds = [p for ps, _ in batches for p in ps]
    refs = [r for _, rs in batches for r in rs]
    want = compute_token_f1(preds, refs)
    got, summary, records = _stream(UNHELD.bind("squad"), batches)
    assert got == want and _same(summary.headline(), want.headline())
    assert _same(records, want.per_item())


def test_ties_across_batches_follow_the_prediction_rows_of_the_whole_input():
    """Four questions of probability 0.5 in two batches, each batch's predictions in another
    order than its references: the v2.0 walk takes them in the prediction rows of the whole
    input (b, a, d, c: best 3 of 4). Rows counted per batch (b, d, a, c: 4 of 4) or the
    reference order (a, b, c, d: 2 of 4, threshold 0.0) give other numbers."""

    def ref(qid, golds):
        return {"id": qid, "answers": {"text": golds, "answer_start": [0] * len(golds)}}

    def pred(qid, text):
        return {"id": qid, "prediction_text": text, "no_answer_probability": 0.5}

    batches = [
        ([pred("b", "cat"), pred("a", "x")], [ref("a", []), ref("b", ["cat"])]),
        ([pred("d", "dog"), pred("c", "y")], [ref("c", []), ref("d", ["dog"])]),
    ]
    preds = [p for ps, _ in batches for p in ps]
    refs = [r for _, rs in batches for r in rs]
    want = compute_token_f1(preds, refs, variant="squad_v2")
    assert (want.squad_v2["best_f1"], want.squad_v2["best_f1_thresh"]) == (75.0, 0.5)
    assert (want.squad_v2["best_exact"], want.squad_v2["best_exact_thresh"]) == (75.0, 0.5)
    got = _stream(UNHELD.bind("squad_v2"), batches)[0]
    assert got.squad_v2 == want.squad_v2 and got == want
    # the command line's stream holds SQuAD dicts and scores them in one call
    scorer = StreamScorer(SPEC.bind("squad_v2"))
    assert all(scorer.add(*batch) is None for batch in batches) and scorer.held
    assert scorer.finish().squad_v2 == want.squad_v2


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_question_level_streams_as_one_call(n, seed, rnd):
    gen = random.Random(seed)
    refs = [[answer(gen) for _ in range(gen.randint(0, 4))] for _ in range(n)]
    preds = [
        [mutate(gen, g) for g in gold if gen.random() < 0.7] + [answer(gen)] * gen.randint(0, 1)
        for gold in refs
    ]
    want = SPEC.bind("question_level").run(preds, refs)
    _check(SPEC.bind("question_level"), _batches(preds, refs, _cuts(rnd, n)), want)


@SETTINGS
@given(st.integers(1, 12), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_quac_streams_as_one_call_with_dialogs_across_batches(n, seed, rnd):
    rows = [
        (pred, {"dialog_id": f"d{k}", "answers": golds})
        for k, dialog in enumerate(quac_dialogs(n, seed))
        for pred, golds in dialog
    ]
    rnd.shuffle(rows)  # a dialog's questions need not be adjacent, nor in one batch
    preds, refs = [p for p, _ in rows], [r for _, r in rows]
    bound = SPEC.bind("quac", min_human_f1=rnd.choice((0.0, 0.4, 0.9)))
    want = bound.run(preds, refs)
    _check(bound, _batches(preds, refs, _cuts(rnd, len(rows))), want)


def test_every_config_streams():
    assert SPEC.stream is not None
    assert all(SPEC.stream.streams(c.name) for c in SPEC.configs)


def test_whole_input_probabilities_are_held_and_scored_at_the_end():
    """``no_answer_probabilities`` (a keyword of :func:`compute_token_f1`, one number per
    question of the whole input) cannot be cut per batch: such rows are held. The spec's
    options do not take it (the CLI cannot give it)."""
    preds, refs = questions(30, 5)
    refs = [[] if i % 3 == 0 else g for i, g in enumerate(refs)]
    probs = [PROBABILITIES[i % len(PROBABILITIES)] for i in range(30)]
    with pytest.raises(TypeError, match="no_answer_probabilities"):
        SPEC.bind("squad_v2", no_answer_probabilities=probs)
    bound = BoundMetric(SPEC, SPEC.config("squad_v2"), {"no_answer_probabilities": probs})
    scorer = StreamScorer(bound)
    for i in range(0, 30, 7):
        assert scorer.add(preds[i : i + 7], refs[i : i + 7]) is None
    assert scorer.held
    want = compute_token_f1(preds, refs, variant="squad_v2", no_answer_probabilities=probs)
    got = scorer.finish()
    assert got == want and got.squad_v2 == want.squad_v2


def test_batches_of_plain_lists_and_squad_dicts_are_refused():
    """One call refuses rows of both formats; so does a stream whose batches differ."""
    plain = (["cat"], [["cat"]])
    dicts = ([{"id": "q", "prediction_text": "cat"}], [{"id": "q", "answers": ["cat"]}])
    with pytest.raises(TypeError):
        compute_token_f1(plain[0] + dicts[0], plain[1] + dicts[1])
    scorer = StreamScorer(SPEC.bind("squad"))
    scorer.add(*plain)
    scorer.add(*dicts)
    with pytest.raises(ValueError, match="rows from 1 on are SQuAD dicts, the first rows plain lists"):
        scorer.finish()


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _score(monkeypatch, capsys, *argv):
    """``metricore score`` with ``argv``: exit code, printed result, the run's scorer."""
    from metricore.cli import commands

    scorers = []

    class Recorded(StreamScorer):
        def __init__(self, bound, **kwargs):
            super().__init__(bound, **kwargs)
            scorers.append(self)

    monkeypatch.setattr(commands, "StreamScorer", Recorded)
    code = commands.main(["score", "--metric", "token_f1", "--no-progress", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), scorers[0]


def test_cli_streams_records_with_ids_in_another_order(tmp_path, monkeypatch, capsys):
    preds, refs = questions(500, 11)
    refs = [[] if i % 4 == 0 else g for i, g in enumerate(refs)]
    pred_rows = [{"id": f"q{i}", "prediction": p} for i, p in enumerate(preds)]
    random.Random(2).shuffle(pred_rows)
    p = _write(tmp_path / "p.jsonl", pred_rows)
    r = _write(tmp_path / "r.jsonl", [{"id": f"q{i}", "references": g} for i, g in enumerate(refs)])
    items = tmp_path / "items.jsonl"
    out, scorer = _score(
        monkeypatch,
        capsys,
        *("--config", "squad_v2", "--predictions", p, "--references", r, "--per-sample", items),
        *("--batch-rows", 37, "--spill-rows", 100),
    )
    assert not scorer.held and out["matched_by"] == "id"
    want = compute_token_f1(preds, refs, variant="squad_v2")
    assert _same({k: out[k] for k in want.headline()}, want.headline())
    assert out["total"] == 500 and out["signature"] == want.signature
    got = [json.loads(line) for line in items.read_text(encoding="utf-8").split("\n") if line]
    assert [g["f1"] for g in got] == want.f1_scores and [g["closest"] for g in got] == want.closest
    assert [g["id"] for g in got] == [f"q{i}" for i in range(500)]


def test_cli_holds_squad_dicts_whose_files_are_in_different_orders(tmp_path, monkeypatch, capsys):
    """SQuAD dict rows pair by position on the command line (their id is inside the value):
    held, and matched by id in one call, whatever the order of the two files."""
    batches = _squad_dict_batches(random.Random(4), 300, 9, [300])
    preds, refs = batches[0]
    p, r = _write(tmp_path / "p.jsonl", preds), _write(tmp_path / "r.jsonl", refs)
    out, scorer = _score(
        monkeypatch,
        capsys,
        *("--config", "squad_v2", "--predictions", p, "--references", r, "--batch-rows", 16),
    )
    assert scorer.held and out["matched_by"] == "position"
    want = compute_token_f1(preds, refs, variant="squad_v2")
    assert _same({k: out[k] for k in want.headline()}, want.headline())


def test_cli_squad_dict_ties_follow_the_prediction_file(tmp_path, monkeypatch, capsys):
    """The v2.0 walk breaks probability ties in the order of the prediction file (the official
    script's dict order), not the reference order: pairing SQuAD dict rows by id before the
    metric (reference order) would give best_f1 50.0 at 0.0 here."""
    pred = [("b", "cat"), ("a", "x"), ("d", "dog"), ("c", "y")]
    gold = [("a", []), ("b", ["cat"]), ("c", []), ("d", ["dog"])]
    p = _write(
        tmp_path / "p.jsonl",
        [{"id": i, "prediction_text": t, "no_answer_probability": 0.5} for i, t in pred],
    )
    r = _write(
        tmp_path / "r.jsonl",
        [{"id": i, "answers": {"text": g, "answer_start": [0] * len(g)}} for i, g in gold],
    )
    out, scorer = _score(
        monkeypatch, capsys, "--config", "squad_v2", "--predictions", p, "--references", r, "--batch-rows", 2
    )
    assert scorer.held
    assert (out["best_f1"], out["best_f1_thresh"], out["best_exact"]) == (75.0, 0.5, 75.0)
