"""Distributed runs that must not be scored (issue 17): two processes with one
``process_id``, out-of-range ids, files left by an earlier failed run with the same
``experiment_id``; and process 0 without rows of its own. Real processes, driven by
tests/distributed_worker.py as in tests/hf/test_distributed.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import evaluate
import pytest

from metricore.core.structured import to_json
from tests.hf.test_distributed import ANLS_DOCVQA, ROOT, WORKER, Plan, jsonable, single_process

FAIL_TIMEOUT = 3
WORKERS = 3
PREDS, REFS = ANLS_DOCVQA


def _barrier(plan: Plan, worker: int, name: str) -> None:
    plan.steps[str(worker)].append({"op": "touch", "path": str(plan.cache_dir.parent / name)})


def _wait(plan: Plan, worker: int, *names: str) -> None:
    for name in names:
        plan.steps[str(worker)].append({"op": "wait_for", "path": str(plan.cache_dir.parent / name)})


def build_plan(cache_dir: Path) -> Plan:
    plan = Plan(cache_dir)
    # 1. ranks 0, 1, 1 of num_process=2: whichever twin comes second must not let process 0
    #    score the first twin's rows alone
    plan.load(0, "dup@0", "anls", "docvqa", 2, 0, "dup", timeout=FAIL_TIMEOUT)
    plan.load(1, "dup@1a", "anls", "docvqa", 2, 1, "dup", timeout=FAIL_TIMEOUT)
    plan.load(2, "dup@1b", "anls", "docvqa", 2, 1, "dup", timeout=FAIL_TIMEOUT)
    plan.add(0, "dup@0", PREDS[:4], REFS[:4], batches=1)
    plan.add(1, "dup@1a", PREDS[4:8], REFS[4:8], batches=1)
    plan.add(2, "dup@1b", PREDS[8:], REFS[8:], batches=1)
    plan.compute(1, "dup@1a")
    plan.compute(2, "dup@1b")
    _barrier(plan, 1, "dup-1a")
    _barrier(plan, 2, "dup-1b")
    _wait(plan, 0, "dup-1a", "dup-1b")
    plan.compute(0, "dup@0")
    # 2. a run that failed (process 0 never computed), then a new run with the same id in
    #    which process 0 adds no rows: the old shard must not be scored
    plan.load(0, "old@0", "anls", "docvqa", 2, 0, "reused", timeout=FAIL_TIMEOUT)
    plan.load(1, "old@1", "anls", "docvqa", 2, 1, "reused", timeout=FAIL_TIMEOUT)
    plan.add(0, "old@0", PREDS[:2], REFS[:2], batches=1)
    plan.add(1, "old@1", PREDS[2:], REFS[2:], batches=1)
    plan.compute(1, "old@1")
    plan.steps["0"].append({"op": "forget", "handle": "old@0"})
    _barrier(plan, 0, "old-done")
    _barrier(plan, 1, "old-done-1")
    _wait(plan, 0, "old-done-1")
    _wait(plan, 1, "old-done")
    plan.load(0, "new@0", "anls", "docvqa", 2, 0, "reused", timeout=FAIL_TIMEOUT)
    plan.load(1, "new@1", "anls", "docvqa", 2, 1, "reused", timeout=FAIL_TIMEOUT)
    plan.compute(0, "new@0")  # no rows of its own
    plan.add(1, "new@1", PREDS[:3], REFS[:3], batches=1)
    plan.compute(1, "new@1")
    # 3. a healthy run in which process 0 adds no rows
    plan.load(2, "empty0@0", "anls", "docvqa", 2, 0, "empty0", timeout=60)
    plan.load(1, "empty0@1", "anls", "docvqa", 2, 1, "empty0", timeout=60)
    plan.add(1, "empty0@1", PREDS, REFS, batches=2)
    plan.compute(1, "empty0@1")
    plan.compute(2, "empty0@0")
    # 4. a completion marker of process 1 that another run wrote (a process of an earlier run
    #    with this experiment_id finishing late) with the right row count: process 0 must not
    #    take it for this run's
    plan.load(0, "late@0", "anls", "docvqa", 2, 0, "late", timeout=FAIL_TIMEOUT)
    plan.load(1, "late@1", "anls", "docvqa", 2, 1, "late", timeout=FAIL_TIMEOUT)
    plan.add(0, "late@0", PREDS[:4], REFS[:4], batches=1)
    plan.add(1, "late@1", PREDS[4:], REFS[4:], batches=1)
    plan.compute(1, "late@1")
    _barrier(plan, 1, "late-1-done")
    _wait(plan, 2, "late-1-done")
    plan.steps["2"].append(
        {
            "op": "rewrite",
            "name": "late-2-1.arrow.done",
            "text": json.dumps({"rows": len(PREDS) - 4, "run": "0" * 32}),
        }
    )
    _barrier(plan, 2, "late-forged")
    _wait(plan, 0, "late-forged")
    plan.compute(0, "late@0")
    # 5. a healthy run in which process 1 adds no rows and only calls compute()
    plan.load(0, "emptyk@0", "anls", "docvqa", 2, 0, "emptyk", timeout=60)
    plan.load(1, "emptyk@1", "anls", "docvqa", 2, 1, "emptyk", timeout=60)
    plan.add(0, "emptyk@0", PREDS, REFS, batches=2)
    plan.compute(1, "emptyk@1")
    plan.compute(0, "emptyk@0")
    return plan


@pytest.fixture(scope="module")
def outcome(tmp_path_factory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("distributed-conflicts")
    plan = build_plan(tmp / "cache")
    plan_file = tmp / "plan.json"
    plan_file.write_text(
        to_json({"cache_dir": str(plan.cache_dir), "steps": dict(plan.steps)}), encoding="utf-8"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(plan_file), str(worker)],
            cwd=ROOT,
            env={**os.environ, "HF_MODULES_CACHE": str(tmp / f"modules-{worker}"), "PYTHONHASHSEED": "0"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(WORKERS)
    ]
    results: dict[str, dict[str, Any]] = {}
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise
        assert proc.returncode == 0, err[-3000:]
        for line in out.splitlines():
            record = json.loads(line)
            results[record["handle"]] = record
    return results


def test_two_processes_with_one_process_id_fail_every_process(outcome):
    twins = [outcome["dup@1a"], outcome["dup@1b"]]
    # the twin that comes second is refused; the first is refused too when it starts after
    # the refusal was written, else it finishes its shard (process 0 refuses the run)
    refused = [t for t in twins if "error" in t]
    assert refused, twins
    assert all(t["error"] == "DistributedConflictError" for t in refused), twins
    assert any("same process_id" in t["message"] for t in refused)
    assert all(t.get("result") is None for t in twins)
    got = outcome["dup@0"]
    assert "result" not in got, "process 0 scored without the second twin's rows"
    assert got["error"] == "DistributedConflictError"
    assert "same process_id" in got["message"]


def test_files_of_an_earlier_failed_run_are_refused_on_every_process(outcome):
    for handle in ("new@0", "new@1"):
        got = outcome[handle]
        assert "result" not in got, f"{handle} scored another run's rows"
        assert got["error"] == "DistributedConflictError", got
        assert (
            "earlier run with this experiment_id" in got["message"] or "a process reported" in got["message"]
        )
        assert "reused-2-" in got["message"]  # says which files to delete


def test_process_zero_without_rows_of_its_own_scores_the_others(outcome):
    got = outcome["empty0@0"]
    assert "error" not in got, got.get("traceback")
    assert got["result"] == jsonable(single_process("anls", "docvqa", (PREDS, REFS), {}))
    assert outcome["empty0@1"]["result"] is None


def test_a_marker_written_by_another_run_is_refused(outcome):
    got = outcome["late@0"]
    assert "result" not in got, "process 0 took another run's completion marker for this run's"
    assert got["error"] == "DistributedConflictError", got
    assert "written in another run" in got["message"]
    assert "result" in outcome["late@1"]  # process 1 itself finished normally


def test_a_process_without_rows_that_calls_compute_joins_the_run(outcome):
    got = outcome["emptyk@0"]
    assert "error" not in got, got.get("traceback")
    assert got["result"] == jsonable(single_process("anls", "docvqa", (PREDS, REFS), {}))
    assert outcome["emptyk@1"] == {
        "handle": "emptyk@1",
        "result": None,
        "seconds": outcome["emptyk@1"]["seconds"],
    }


@pytest.mark.parametrize(("num_process", "process_id"), [(2, 2), (2, -1), (3, 5)])
def test_an_out_of_range_process_id_is_refused_at_load(tmp_path, num_process, process_id):
    with pytest.raises(ValueError, match=rf"`process_id` must be in 0..{num_process - 1}.*got {process_id}"):
        evaluate.load(
            str(ROOT / "metrics" / "anls"),
            num_process=num_process,
            process_id=process_id,
            cache_dir=str(tmp_path),
        )


def test_a_non_int_process_id_is_refused_at_load(tmp_path):
    with pytest.raises(TypeError, match=r"`process_id` must be an int, got str"):
        evaluate.load(str(ROOT / "metrics" / "anls"), num_process=2, process_id="1", cache_dir=str(tmp_path))
