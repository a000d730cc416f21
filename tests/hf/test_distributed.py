"""Every metric in ``evaluate``'s distributed mode, with real processes.

Three worker processes (tests/distributed_worker.py) start once and run every experiment of
one plan, sharing a cache dir: each metric config with 2 and with 3 processes (``num_process``,
``process_id``, one ``experiment_id`` per experiment), every process adding its shard with
``add_batch`` (an empty shard included); two experiments of the same metric overlapping in
time under different ids; a process that never joins; a process that dies after adding its
rows. Process 0's result must equal the single-process result row for row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import evaluate
import pytest

from metricore import compute_cider
from metricore.core.structured import to_json

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tests" / "distributed_worker.py"
WORKERS = 3
SLOW_TIMEOUT = 60  # seconds a healthy experiment may wait for its peers (a bug fails, not hangs)
FAIL_TIMEOUT = 2  # the failure experiments: how long process 0 waits before it gives up

ANLS_DOCVQA = (
    [
        "CocaCola",
        "12/15/89",
        "Dear dr. Lobo",
        "",
        "Thomas More",
        "1989",
        "ITC Limited",
        "$ 4.5",
        "Mr. Smith",
        "page 3",
        "no",
    ],
    [
        ["Coca Cola", "Coca Cola Company"],
        "12/15/88",
        ["Dear Dr. Lobo", "Dr. Lobo"],
        [""],
        ["  Thomas  Moore "],
        ["1989", "89"],
        ["ITC Ltd"],
        ["$4.5"],
        ["Mr. Smyth"],
        ["3"],
        ["yes", "no"],
    ],
)
ANLS_STAR = (
    [{"a": "b", "c": "e"}, {"items": ["b", "c"]}, "Hello Wrld", None, [1, 2.5, True], "x", {"k": "v"}],
    [
        {"a": "b", "c": "d"},
        {"items": ["a", "b", "c"]},
        ("Hello World", "Hi"),
        None,
        ["1", "2.5", "true"],
        ("x", "y"),
        {"k": ("v", "w")},
    ],
)
SQUAD = (
    ["The Cat!", "cat cat cat", "a big dog", "Paris", "in 1990", "blue", "the red car", "nothing"],
    [
        ["cat"],
        ["cat"],
        ["big dog", "dog"],
        ["Paris, France"],
        ["1990"],
        ["dark blue"],
        ["a red car"],
        ["something"],
    ],
)
SQUAD_V2_DICTS = (
    [
        {"id": f"q{i}", "prediction_text": t, "no_answer_probability": p}
        for i, (t, p) in enumerate(
            [("cat", 0.1), ("", 0.9), ("dog", 0.4), ("a b", 0.2), ("", 0.7), ("x y z", 0.3)]
        )
    ],
    [
        {"id": f"q{i}", "answers": {"text": g, "answer_start": [0] * len(g)}}
        for i, g in enumerate([["cat"], [], ["the dog"], ["a b c"], ["n"], []])
    ],
)
QUAC = (
    ["a b", "c", "d e", "f g h", "i", "j k", "l"],
    [
        {"dialog_id": d, "answers": a}
        for d, a in [
            ("d1", ["a b"]),
            ("d1", ["c d"]),
            ("d2", ["d e f"]),
            ("d2", ["f g h"]),
            ("d2", ["i"]),
            ("d3", ["j k", "j"]),
            ("d3", ["m"]),
        ]
    ],
)
METEOR = (
    [
        "the cat was sat on the mat",
        "a dog runs in the park",
        "two birds are singing",
        "it is raining today",
        "the quick brown fox",
        "she reads books",
    ],
    [
        ["the cat sat on the mat"],
        ["the dog is running in a park", "a dog runs"],
        "birds sing",
        ["it rains today"],
        ["a quick brown fox jumps"],
        ["she is reading a book"],
    ],
)
CIDER = (
    [
        "a cat sits on a mat",
        "a dog runs",
        "two birds on a wire",
        "a man rides a horse",
        "a cat on a sofa",
        "a red bus on the street",
        "a dog catches a frisbee",
    ],
    [
        ["a cat sits on a mat", "a cat on a mat"],
        ["a dog runs in the park", "a dog in a park"],
        ["birds sitting on a wire", "two small birds"],
        ["a man riding a horse", "a person on a horse"],
        ["a cat lying on a couch", "a cat on a sofa"],
        ["a red bus drives down the street", "a bus on a road"],
        ["a dog jumping for a frisbee", "a dog catches a disc"],
    ],
)
NED = (
    ["kitten", "abc", "Хор", "", "flaw", "lawn", "sunday", "x", "hello"],
    ["sitting", ["abd", "abc"], "хор", "", "lawn", "flaw", "saturday", "", ["hallo", "help"]],
)

CONFIGS: dict[str, tuple[str, str, tuple[list[Any], list[Any]], dict[str, Any]]] = {
    "anls-docvqa": ("anls", "docvqa", ANLS_DOCVQA, {"threshold": 0.5}),
    "anls-star": ("anls", "anls_star", ANLS_STAR, {}),
    "token_f1-squad": ("token_f1", "squad", SQUAD, {}),
    "token_f1-squad_v2": ("token_f1", "squad_v2", SQUAD_V2_DICTS, {"no_answer_threshold": 0.5}),
    "token_f1-quac": ("token_f1", "quac", QUAC, {}),
    "meteor": ("meteor", "nltk", METEOR, {}),
    "cider": ("cider", "cider_d", CIDER, {}),
    "ned": ("one_minus_ned", "icdar2019", NED, {"lowercase": True}),
}


def shards(n_rows: int, n_proc: int, empty: int | None = None) -> list[tuple[int, int]]:
    """Uneven contiguous shards (the first process gets the most); ``empty``: that process
    gets no row."""
    owners = [k for k in range(n_proc) if k != empty]
    bounds = [0]
    for i, _ in enumerate(owners):
        left = n_rows - bounds[-1]
        bounds.append(
            bounds[-1] + (left if i == len(owners) - 1 else (left + 1) // 2 if i == 0 else left // 2)
        )
    cuts = dict(zip(owners, zip(bounds, bounds[1:])))
    return [cuts.get(k, (bounds[-1], bounds[-1])) for k in range(n_proc)]


class Plan:
    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.steps: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def load(
        self,
        worker: int,
        handle: str,
        metric: str,
        config: str,
        n: int,
        rank: int,
        exp: str,
        timeout: float = SLOW_TIMEOUT,
    ) -> None:
        self.steps[str(worker)].append(
            {
                "op": "load",
                "handle": handle,
                "metric": metric,
                "config": config,
                "num_process": n,
                "process_id": rank,
                "experiment_id": exp,
                "timeout": timeout,
            }
        )

    def add(self, worker: int, handle: str, preds: list[Any], refs: list[Any], batches: int = 2) -> None:
        step = max(1, -(-len(preds) // batches))
        starts = range(0, len(preds), step) if preds else [0]
        for s in starts:
            self.steps[str(worker)].append(
                {
                    "op": "add_batch",
                    "handle": handle,
                    "predictions": preds[s : s + step],
                    "references": refs[s : s + step],
                }
            )

    def compute(self, worker: int, handle: str, kwargs: dict[str, Any] | None = None) -> None:
        self.steps[str(worker)].append({"op": "compute", "handle": handle, "kwargs": kwargs or {}})

    def die(self, worker: int) -> None:
        self.steps[str(worker)].append({"op": "die"})

    def experiment(
        self,
        handle: str,
        metric: str,
        config: str,
        data,
        kwargs,
        workers: list[int],
        empty: int | None = None,
    ) -> None:
        """One experiment: rank k runs on ``workers[k]`` with shard k."""
        preds, refs = data
        for rank, (worker, (a, b)) in enumerate(zip(workers, shards(len(preds), len(workers), empty))):
            self.load(worker, f"{handle}@{rank}", metric, config, len(workers), rank, handle)
            self.add(worker, f"{handle}@{rank}", preds[a:b], refs[a:b])
            self.compute(worker, f"{handle}@{rank}", kwargs)


def build_plan(cache_dir: Path) -> Plan:
    plan = Plan(cache_dir)
    for name, (metric, config, data, kwargs) in CONFIGS.items():
        for n in (2, 3):
            plan.experiment(
                f"{name}-{n}",
                metric,
                config,
                data,
                kwargs,
                list(range(n)),
                empty=1 if (name == "ned" and n == 3) else None,
            )
    # Two experiments of one metric config at the same time, different ids and data:
    # A runs on workers 0 and 1, B on workers 2 (its process 0) and 0.
    a_data, b_data = (NED[0][:6], NED[1][:6]), (NED[0][3:], NED[1][3:])
    plan.load(0, "A@0", "one_minus_ned", "icdar2019", 2, 0, "concurrent-A")
    plan.load(1, "A@1", "one_minus_ned", "icdar2019", 2, 1, "concurrent-A")
    plan.load(2, "B@0", "one_minus_ned", "icdar2019", 2, 0, "concurrent-B")
    plan.load(0, "B@1", "one_minus_ned", "icdar2019", 2, 1, "concurrent-B")
    plan.add(0, "A@0", a_data[0][:3], a_data[1][:3])
    plan.add(1, "A@1", a_data[0][3:], a_data[1][3:])
    plan.add(2, "B@0", b_data[0][:2], b_data[1][:2])
    plan.add(0, "B@1", b_data[0][2:], b_data[1][2:])
    plan.compute(0, "A@0")
    plan.compute(1, "A@1")
    plan.compute(0, "B@1")
    plan.compute(2, "B@0")
    # A process that never joins (worker 1 has no step for it): process 0 times out adding.
    plan.load(0, "absent@0", "anls", "docvqa", 2, 0, "absent", timeout=FAIL_TIMEOUT)
    plan.add(0, "absent@0", ["a"], ["a"])
    plan.compute(0, "absent@0")
    # A process that dies after adding its rows, before compute: process 0 must not score the rest.
    # The rendezvous waits as long as healthy runs do; the wait for the dead process is short.
    for rank in range(3):
        plan.load(rank, f"dead@{rank}", "cider", "cider_d", 3, rank, "dead")
        plan.add(
            rank,
            f"dead@{rank}",
            CIDER[0][2 * rank : 2 * rank + 2],
            CIDER[1][2 * rank : 2 * rank + 2],
            batches=1,
        )
    plan.compute(1, "dead@1")
    barrier = str(cache_dir.parent / "dead-peer-finished")
    plan.steps["1"].append({"op": "touch", "path": barrier})
    plan.steps["0"].append({"op": "wait_for", "path": barrier})  # only process 2's failure is left
    plan.steps["0"].append({"op": "set_timeout", "handle": "dead@0", "timeout": FAIL_TIMEOUT})
    plan.compute(0, "dead@0")
    plan.die(2)
    return plan


@pytest.fixture(scope="module")
def outcome(tmp_path_factory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("distributed")
    plan = build_plan(tmp / "cache")
    plan_file = tmp / "plan.json"
    plan_file.write_text(
        to_json({"cache_dir": str(plan.cache_dir), "steps": dict(plan.steps)}), encoding="utf-8"
    )
    procs = []
    for worker in range(WORKERS):
        env = {**os.environ, "HF_MODULES_CACHE": str(tmp / f"modules-{worker}"), "PYTHONHASHSEED": "0"}
        procs.append(
            subprocess.Popen(
                [sys.executable, str(WORKER), str(plan_file), str(worker)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results: dict[str, dict[str, Any]] = {}
    for worker, proc in enumerate(procs):
        try:
            out, err = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise
        assert proc.returncode == (17 if worker == 2 else 0), err[-3000:]
        for line in out.splitlines():
            record = json.loads(line)
            results[record["handle"]] = record
    results["_files"] = sorted(
        str(p.relative_to(plan.cache_dir)) for p in plan.cache_dir.rglob("*") if p.is_file()
    )
    return results


def single_process(metric: str, config: str, data, kwargs) -> dict[str, Any]:
    return evaluate.load(str(ROOT / "metrics" / metric), config).compute(
        predictions=data[0], references=data[1], **kwargs
    )


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_process_zero_equals_single_process(outcome, name, n):
    metric, config, data, kwargs = CONFIGS[name]
    got = outcome[f"{name}-{n}@0"]
    assert "error" not in got, got.get("traceback")
    want = jsonable(single_process(metric, config, data, kwargs))
    assert got["result"] == want
    # every row exactly once, in process order: the per-row scores are the single-process ones
    scores = got["result"]["scores"]
    lengths = {len(v) for v in scores.values()} if isinstance(scores, dict) else {len(scores)}
    assert lengths == {len(data[0])}
    for rank in range(1, n):
        assert outcome[f"{name}-{n}@{rank}"]["result"] is None


def test_cider_document_frequencies_see_every_shard(outcome):
    """CIDEr's idf comes from all gathered references: scoring shard by shard would differ."""
    preds, refs = CIDER
    got = outcome["cider-3@0"]["result"]
    assert got["cider"] == pytest.approx(compute_cider(preds, refs).cider, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a one-image shard scores 0, which is the point
        per_shard = [compute_cider(preds[a:b], refs[a:b]).scores for a, b in shards(len(preds), 3)]
    assert [s for shard in per_shard for s in shard] != pytest.approx(got["scores"], abs=1e-6)


def test_concurrent_experiments_do_not_mix(outcome):
    a_data, b_data = (NED[0][:6], NED[1][:6]), (NED[0][3:], NED[1][3:])
    assert outcome["A@0"]["result"] == jsonable(single_process("one_minus_ned", "icdar2019", a_data, {}))
    assert outcome["B@0"]["result"] == jsonable(single_process("one_minus_ned", "icdar2019", b_data, {}))
    assert outcome["A@1"]["result"] is None and outcome["B@1"]["result"] is None


def test_a_process_that_never_joins_times_out(outcome):
    got = outcome["absent@0"]
    assert got["op"] == "add_batch" and got["error"] == "DistributedTimeoutError"
    assert "TimeoutError" in got["mro"]
    assert "timed out after 2 s waiting for every process to start adding rows" in got["message"]
    assert got["seconds"] < 30


def test_a_process_that_dies_before_compute_fails_process_zero(outcome):
    got = outcome["dead@0"]
    assert "result" not in got, "process 0 returned a number without process 2's rows"
    assert got.get("op") == "compute", got
    assert got["op"] == "compute" and got["error"] == "DistributedTimeoutError"
    assert "process 2 released its cache file without finishing it" in got["message"]
    assert "timeout" in got["message"]
    assert FAIL_TIMEOUT <= got["seconds"] < 30
    assert outcome["dead@1"]["result"] is None  # the healthy peer finished normally


def test_cache_files_are_cleaned_up(outcome):
    """Successful experiments leave only lock files; no Arrow file or marker of theirs remains."""
    leftovers = [f for f in outcome["_files"] if not f.endswith(".lock")]
    assert all("dead-" in f or "absent-" in f for f in leftovers), leftovers


def test_readme_distributed_example(tmp_path):
    """The README's distributed example, run by two processes, prints the single-process
    result on rank 0 only."""
    from tests.readme_examples import example

    script = tmp_path / "example.py"
    # the same start-up shortcut as the worker (evaluate's optional transformers import)
    script.write_text(
        'import sys\nsys.modules.setdefault("transformers.pipelines", None)\n' + example("distributed"),
        encoding="utf-8",
    )
    procs = [
        subprocess.Popen(
            [sys.executable, str(script)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "RANK": str(rank),
                "WORLD_SIZE": "2",
                "METRIC_CACHE": str(tmp_path / "cache"),
                "HF_MODULES_CACHE": str(tmp_path / f"modules-{rank}"),
            },
        )
        for rank in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    from metricore import compute_anls

    preds = ["CocaCola", "12/15/89", "Dear dr. Lobo", "Thomas More"]
    refs = [["Coca Cola", "Coca Cola Company"], ["12/15/88"], ["Dr. Lobo"], ["Thomas Moore"]]
    # rank 0 holds rows 0 and 2, rank 1 rows 1 and 3: the gathered order is 0, 2, 1, 3
    order = [0, 2, 1, 3]
    want = compute_anls([preds[i] for i in order], [refs[i] for i in order]).anls
    assert outs[0][0].split() == [str(round(want, 4)), "4"]
    assert outs[1][0] == ""
