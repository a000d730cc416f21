#!/usr/bin/env python
"""METEOR 1.5 as installed: the first use on a machine (empty cache) against the jar's cold run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_meteor15_first_use.py [--n 5000] [--json out.json]

On ``n`` generated COCO-like images x 5 references (``tests/gen_cider_captions.py``, PTB-tokenized,
as ``bench_meteor15.py``), each case in a **new process** (``bench_meteor15._CHILD``):

* ``jar cold``: ``pycocoevalcap.meteor.Meteor()`` + ``compute_score`` (JVM start and its loading
  of the paraphrase table included);
* ``metricore first use``: import + ``compute_meteor_1_5`` with ``XDG_CACHE_HOME`` pointing at
  an empty temporary folder, so the paraphrase index is built from pycocoevalcap's
  ``paraphrase-en.gz`` in that process (compiled parser);
* ``metricore second process``: the same with the index now in that cache (memory-mapped);
* ``metricore first use without a C compiler``: a fresh cache again, with
  ``METRICORE_METEOR15_PURE_PYTHON=1`` (the Python parser and the Python scoring path: what an
  install without a compiler runs).

Peak memory: the process's resident-set high-water mark (``VmHWM``); for the jar, the java
process's maximum resident set. Corpus scores are checked equal to the jar's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from bench_rows import command_line

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _folder_mib(cache: str) -> float:
    sub = os.path.join(cache, "metricore")
    total = 0
    for name in os.listdir(sub):
        path = os.path.join(sub, name)
        if os.path.isdir(path):
            total += sum(e.stat().st_size for e in os.scandir(path) if e.is_file())
    return total / 2**20


def run(n: int = 5000) -> list[dict[str, object]]:
    """Rows in ``bench_rows.bench_row``'s format: the jar's cold run (the reference), then
    metricore's first use, second process and first use without a compiler."""
    sys.path.insert(0, HERE)
    from bench_meteor15 import _child, _corpus
    from bench_rows import bench_row

    hyps, refs = _corpus(n, 1, 0.0, long=False)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"h1": hyps, "r1": refs}, f)
    env = {k: v for k, v in os.environ.items() if k != "METRICORE_METEOR15_PURE_PYTHON"}
    try:
        jar = _child("jar", f.name, env)
        with tempfile.TemporaryDirectory(prefix="metricore-bench-cache-") as cache:
            fresh = {**env, "XDG_CACHE_HOME": cache}
            first = _child("metricore", f.name, fresh)
            index_mib = _folder_mib(cache)
            second = _child("metricore", f.name, fresh)
        with tempfile.TemporaryDirectory(prefix="metricore-bench-cache-") as cache:
            pure = _child(
                "metricore", f.name, {**env, "XDG_CACHE_HOME": cache, "METRICORE_METEOR15_PURE_PYTHON": "1"}
            )
    finally:
        os.remove(f.name)
    for name, out in (("first use", first), ("second process", second), ("no compiler", pure)):
        if out["scores"][0] != jar["scores"][0]:
            raise AssertionError(f"scores differ: metricore {name} {out['scores'][0]} jar {jar['scores'][0]}")
    metric = "meteor 1.5 first use, COCO-like text"
    note = f"{n} images x 5 refs, PTB-tokenized, each case a new process; corpus scores equal"
    return [
        bench_row(metric, "pycocoevalcap Meteor() cold (meteor-1.5.jar: JVM start, paraphrase table loaded)",
                  n, jar["cold"], None, jar["peak_mib"], 0.0, note),
        bench_row(metric, "metricore compute_meteor_1_5, empty cache: paraphrase index built (compiled parser)",
                  n, first["cold"], jar["cold"], first["peak_mib"], 0.0,
                  f"{note}; index {index_mib:.0f} MiB on disk, shared by every environment with this data"),
        bench_row(metric, "metricore compute_meteor_1_5, second process (index memory-mapped)",
                  n, second["cold"], jar["cold"], second["peak_mib"], 0.0, note),
        bench_row(metric, "metricore without a C compiler (METRICORE_METEOR15_PURE_PYTHON=1), empty cache",
                  n, pure["cold"], jar["cold"], pure["peak_mib"], 0.0, note),
    ]  # fmt: skip


def main() -> None:
    command_line(run, __doc__.split("\n")[0], ("impl", "seconds", "ratio_vs_reference", "peak_mib"))


if __name__ == "__main__":
    main()
