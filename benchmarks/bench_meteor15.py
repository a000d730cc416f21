#!/usr/bin/env python
"""METEOR 1.5 speed and memory: ``metricore.metrics.meteor15`` vs pycocoevalcap's jar.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_meteor15.py [--n 5000] [--json out.json]

On ``n`` generated images x 5 references (``tests/gen_cider_captions.py``, PTB-tokenized
with ``coco_tokenize`` as ``COCOEvalCap`` does), twice: COCO-like captions, and the parity
tests' mix where half of the captions carry tokenizer-hard fragments; then on ``3n/5``
images whose captions all have 65 to 300 words (``tests/gen_long_captions.py``: runs of
those captions, longer than a 64-bit position mask; 3,000 images for the README run). Each
case runs in a **new process**:

* ``jar cold``: ``pycocoevalcap.meteor.Meteor()`` + ``compute_score`` (JVM start and its
  loading of the paraphrase table included); ``jar warm``: a second ``compute_score`` on
  another corpus of the same size in that process;
* ``metricore cold``: import + data loading (the paraphrase index must already be in the
  cache: it is built once per machine, timed separately as ``index build`` when missing) +
  ``compute_meteor_1_5``; ``metricore warm``: a second call on the other corpus.

Peak memory: metricore's process's resident-set high-water mark (``VmHWM``, reset at its
start: a child forked from a large parent inherits the parent's mark); for the jar, the java
process's maximum resident set. Scores of the two are checked to be equal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from bench_rows import command_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, resource, sys, time
# a child forked from a large parent (benchmarks/run.py) inherits its high-water mark: reset
# it (Linux), then read VmHWM at the end
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
def peak_mib():
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
kind, path = sys.argv[1], sys.argv[2]
data = json.load(open(path))
out = {}
if kind == "jar":
    from pycocoevalcap.meteor.meteor import Meteor
    def run(h, r, m):
        gts = {i: rs for i, rs in enumerate(r)}
        res = {i: [x] for i, x in enumerate(h)}
        return m.compute_score(gts, res)
    m = Meteor()
    s1, _ = run(data["h1"], data["r1"], m)
    out["cold"] = time.perf_counter() - t0
    s2 = None
    if "h2" in data:
        t1 = time.perf_counter()
        s2, _ = run(data["h2"], data["r2"], m)
        out["warm"] = time.perf_counter() - t1
    m.meteor_p.stdin.close(); m.meteor_p.wait()
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
else:
    from metricore.metrics.meteor15 import compute_meteor_1_5
    s1 = compute_meteor_1_5(data["h1"], data["r1"]).meteor
    out["cold"] = time.perf_counter() - t0
    s2 = None
    if "h2" in data:  # (bench_meteor15_first_use.py times the first call only)
        t1 = time.perf_counter()
        s2 = compute_meteor_1_5(data["h2"], data["r2"]).meteor
        out["warm"] = time.perf_counter() - t1
    out["peak_mib"] = peak_mib()
out["scores"] = [s1, s2]
print(json.dumps(out))
"""


#: the kinds of text: COCO-like captions (what captioning models write), the parity tests'
#: stress mix, half of whose captions carry tokenizer-hard fragments (quotes, dots,
#: non-ASCII, symbols), which send every such line through the jar's full normalizer, and
#: captions of 65 to 300 words (label, share of tokenizer-hard captions, long, images per n)
TEXTS = (
    ("COCO-like text", 0.0, False, 1.0),
    ("half tokenizer-hard text", 0.5, False, 1.0),
    ("captions of 65-300 words", 0.0, True, 0.6),
)


def _corpus(n: int, seed: int, rich: float, long: bool) -> tuple[list[str], list[list[str]]]:
    sys.path.insert(0, ROOT)
    from tests.gen_cider_captions import tokenized_corpus
    from tests.gen_long_captions import long_corpus

    return long_corpus(n, seed, rich=rich) if long else tokenized_corpus(n, seed, rich=rich)


def _child(kind: str, path: str, env: dict[str, str] | None = None) -> dict[str, float]:
    """One case in a new process (``env``: its environment, default this one's)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, path],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(n: int = 5000) -> list[dict[str, object]]:
    """Rows in ``bench_rows.bench_row``'s format (what ``benchmarks/run.py`` expects): the jar
    cold and warm, metricore cold and warm (ratios against the jar's same case), and the
    one-time index build when this machine's cache lacked it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_rows import bench_row

    from metricore.metrics.meteor15.paraphrase import index_ready, load_paraphrases

    rows: list[dict[str, object]] = []
    if not index_ready():
        t = time.perf_counter()
        load_paraphrases()
        rows.append(
            bench_row("meteor 1.5", "metricore paraphrase index build (once per machine)", 1,
                      time.perf_counter() - t, None, None, None, "from pycocoevalcap's paraphrase-en.gz")
        )  # fmt: skip
    for label, rich, long, share in TEXTS:
        images = max(1, round(n * share))
        h1, r1 = _corpus(images, 1, rich, long)
        h2, r2 = _corpus(images, 2, rich, long)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"h1": h1, "r1": r1, "h2": h2, "r2": r2}, f)
        try:
            ours = _child("metricore", f.name)
            jar = _child("jar", f.name)
        finally:
            os.remove(f.name)
        if ours["scores"] != jar["scores"]:
            raise AssertionError(f"scores differ: metricore {ours['scores']} jar {jar['scores']}")
        note = f"{images} images x 5 refs, {label}, PTB-tokenized; corpus scores equal"
        for case, what in (
            ("cold", "new process: import, data loading, scoring"),
            ("warm", "second call, other corpus"),
        ):
            metric = f"meteor 1.5 {case}, {label}"
            rows.append(
                bench_row(metric, "pycocoevalcap Meteor() (meteor-1.5.jar, JVM start included)"
                          if case == "cold" else "pycocoevalcap Meteor().compute_score (JVM running)", images,
                          jar[case], None, jar["peak_mib"] if case == "cold" else None, 0.0, note)
            )  # fmt: skip
            rows.append(
                bench_row(metric, f"metricore compute_meteor_1_5 ({what})", images, ours[case], jar[case],
                          ours["peak_mib"] if case == "cold" else None, 0.0, note)
            )  # fmt: skip
    return rows


def main() -> None:
    command_line(run, __doc__.split("\n")[0], ("metric", "impl", "seconds", "ratio_vs_reference", "peak_mib"))


if __name__ == "__main__":
    main()
