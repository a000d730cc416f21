"""One process of a distributed ``evaluate`` run, driven by a plan (used by
tests/hf/test_distributed.py; not collected by pytest).

    python tests/distributed_worker.py PLAN.json WORKER

The plan is ``{"cache_dir": str, "steps": {"<worker>": [step, ...]}}`` written with
:func:`metricore.core.structured.to_json` (tuples survive). Steps run in order:

* ``{"op": "load", "handle": h, "metric": m, "config": c, "num_process": n,
  "process_id": k, "experiment_id": e, "timeout": s}``: ``evaluate.load("metrics/<m>", c, ...)``
* ``{"op": "add_batch", "handle": h, "predictions": [...], "references": [...]}``
* ``{"op": "compute", "handle": h, "kwargs": {...}}``
* ``{"op": "forget", "handle": h}``: drop the metric object without computing (its locks
  are released; its files stay, as after a crash)
* ``{"op": "set_timeout", "handle": h, "timeout": s}``: a shorter wait for the failure
  cases once the rendezvous (which must wait for slow starters) is behind
* ``{"op": "touch", "path": p}`` / ``{"op": "wait_for", "path": p}``: a file as a barrier
  between workers (test sequencing only)
* ``{"op": "rewrite", "name": n, "text": t}``: overwrite the one file named ``n`` under the
  cache directory (a process of another run writing there)
* ``{"op": "die"}``: exit at once, without computing or cleaning up (a crashed process).

Each ``compute`` prints one JSON line ``{"handle", "result"}`` (``result`` is ``null`` on
processes > 0); an exception in any step of a handle prints ``{"handle", "error",
"message"}`` and skips that handle's later steps. One process runs many experiments so that
the interpreter and ``evaluate`` start once.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(plan_path: str, worker: str) -> int:
    from metricore.core.structured import from_json

    plan = from_json(Path(plan_path).read_text(encoding="utf-8"))
    # evaluate imports transformers.pipelines (and with it torch) only for its Evaluator
    # classes, which the metrics never use: blocking it cuts the start-up from ~10 s to ~2 s.
    sys.modules.setdefault("transformers.pipelines", None)  # type: ignore[arg-type]
    import evaluate

    evaluate.logging.set_verbosity_error()
    metrics: dict[str, object] = {}
    failed: set[str] = set()

    def emit(obj: dict) -> None:
        print(json.dumps(obj), flush=True)

    for step in plan["steps"].get(worker, []):
        op, handle = step["op"], step.get("handle")
        if op == "die":
            sys.stdout.flush()
            os._exit(17)
        if op == "touch":
            Path(step["path"]).touch()
            continue
        if op == "rewrite":  # another party overwrites a file of the run (its one match under the cache)
            (match,) = Path(plan["cache_dir"]).rglob(step["name"])
            match.write_text(step["text"], encoding="utf-8")
            continue
        if op == "wait_for":
            deadline = time.monotonic() + 120
            while not os.path.exists(step["path"]) and time.monotonic() < deadline:
                time.sleep(0.02)
            continue
        if handle in failed:
            continue
        started = time.perf_counter()
        try:
            if op == "load":
                metrics[handle] = evaluate.load(
                    str(ROOT / "metrics" / step["metric"]),
                    step["config"],
                    num_process=step["num_process"],
                    process_id=step["process_id"],
                    experiment_id=step["experiment_id"],
                    cache_dir=plan["cache_dir"],
                    timeout=step["timeout"],
                )
            elif op == "add_batch":
                metrics[handle].add_batch(predictions=step["predictions"], references=step["references"])
            elif op == "forget":  # drop the object (its locks go with it), as a crashed run would
                del metrics[handle]
                gc.collect()
            elif op == "set_timeout":
                metrics[handle].timeout = step["timeout"]
            elif op == "compute":
                result = metrics[handle].compute(**step.get("kwargs", {}))
                emit({"handle": handle, "result": result, "seconds": time.perf_counter() - started})
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as err:  # reported to the test, which asserts on it
            failed.add(handle)
            emit(
                {
                    "handle": handle,
                    "op": op,
                    "error": type(err).__name__,
                    "message": str(err),
                    "mro": [c.__name__ for c in type(err).__mro__],
                    "seconds": time.perf_counter() - started,
                    "traceback": traceback.format_exc(limit=4),
                }
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
