#!/usr/bin/env python
"""``metricore score`` at scale: the command a user runs against reading the files and calling
the core, in time and peak memory; and the ``evaluate`` path's added cost per 1,000 rows.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_cli.py [--sizes 100000 1000000 10000000] [--json out.json]

``run(n)`` returns the rows for the sizes 10^5 up to ``n`` (``benchmarks/run.py`` calls it).

Corpus: ``n`` generated DocVQA-like ANLS rows, JSONL with ids, two references each (a gold
answer of 1-4 words and a variant), the prediction exact, cut short or another word
(deterministic). Cases, each a separate process whose wall time and peak resident set
(``wait4``) are measured:

* ``plain Python`` (the reference): ``json.loads`` per line of both files, then
  ``compute_anls`` on the two lists (the files are in the same order: no pairing);
* ``metricore score --id-field id --per-sample``: the streamed CLI (ids in the same order);
* ``metricore score`` without ids (paired by position);
* ``metricore score --id-field id`` with the predictions shuffled: the pairing spills to
  disk past ``--spill-rows`` rows (default 2^16; hash join, then re-ordered by reference position).

``evaluate`` rows: ``metricore_hf.load(name).compute`` against the core on the same 100,000
rows (ANLS ``docvqa``, 1-NED), best CPU time of three; the added milliseconds per 1,000 rows.

Caption rows (``--caption-sizes``, CIDEr-D and the COCO caption table, whose corpus statistics
the stream keeps instead of the text): ``n`` generated images with 5 references each
(``tests/gen_cider_captions.py``, half of the captions with tokenizer-hard text), JSONL with
ids in the same order; ``plain Python`` (``json.loads`` per line, then the core on all rows:
what the CLI did before it streamed these metrics) against ``metricore score --id-field id
--per-sample``. The COCO table includes METEOR 1.5 when its data is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_rows import bench_row

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_WORDS = (
    "coca cola company thomas more dear dr. lobo 1998 march total invoice $1,000 itc limited "
    "hello world date amount name Москва 東京 ΑΒΓ"
).split()

PLAIN = """
import json, sys
from metricore import compute_anls
with open(sys.argv[1], "rb") as f:
    preds = [json.loads(line)["prediction"] for line in f]
with open(sys.argv[2], "rb") as f:
    refs = [json.loads(line)["references"] for line in f]
print(compute_anls(preds, refs).anls)
"""


def write_corpus(folder: Path, n: int, *, shuffled: bool = False, seed: int = 0) -> tuple[Path, Path, Path]:
    """``(predictions with ids, references with ids, predictions without ids)``; with
    ``shuffled`` also ``p_shuffled.jsonl`` (the predictions in another order)."""
    rng = random.Random(seed)
    paths = folder / "p.jsonl", folder / "r.jsonl", folder / "p_noid.jsonl"
    r_noid = folder / "r_noid.jsonl"
    with (
        open(paths[0], "w", encoding="utf-8") as p,
        open(paths[1], "w", encoding="utf-8") as r,
        open(paths[2], "w", encoding="utf-8") as pn,
        open(r_noid, "w", encoding="utf-8") as rn,
    ):
        for i in range(n):
            gold = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
            other = gold.upper() if rng.random() < 0.5 else f"{gold} {rng.choice(_WORDS)}"
            x = rng.random()
            pred = gold if x < 0.4 else (gold[:-1] if x < 0.7 else rng.choice(_WORDS))
            rid = f"q{i:08d}"
            p.write(json.dumps({"id": rid, "prediction": pred}, ensure_ascii=False) + "\n")
            r.write(json.dumps({"id": rid, "references": [gold, other]}, ensure_ascii=False) + "\n")
            pn.write(json.dumps({"prediction": pred}, ensure_ascii=False) + "\n")
            rn.write(json.dumps({"references": [gold, other]}, ensure_ascii=False) + "\n")
    if shuffled:
        lines = paths[0].read_text(encoding="utf-8").splitlines(keepends=True)
        rng.shuffle(lines)
        (folder / "p_shuffled.jsonl").write_text("".join(lines), encoding="utf-8")
    return paths


#: Runs the command given after the file descriptor and writes the command's own peak RSS
#: (KiB) to that descriptor. Linux keeps a process's peak RSS across fork and exec, so a command started straight from
#: this process (hundreds of MB inside ``benchmarks/run.py``) would report at least this
#: process's size; started from a small Python process, it starts from that process's size.
_MEASURE = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
os.write(int(sys.argv[1]), str(usage.ru_maxrss).encode())
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _popen_measure(argv: list[str]) -> tuple[float, float, str]:
    """Wall time, the command's peak RSS (MiB) and its standard output."""
    t0 = time.perf_counter()
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _MEASURE, str(write_fd), *argv],
            stdout=out,
            stderr=err,
            cwd=ROOT,
            pass_fds=(write_fd,),
        )
        os.close(write_fd)
        proc.wait()
        seconds = time.perf_counter() - t0
        with os.fdopen(read_fd, "rb") as pipe:
            peak_kib = pipe.read().decode()
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise RuntimeError(f"{argv[:5]} failed: {err.read().decode()[-2000:]}")
        return seconds, int(peak_kib) / 1024, out.read().decode()


def cli_rows(n: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        folder = Path(tmp)
        shuffled = n <= 1_000_000
        p, r, pn = write_corpus(folder, n, shuffled=shuffled)
        rn = folder / "r_noid.jsonl"
        metric = f"ANLS CLI [{n:,} rows]"
        t_plain, m_plain, out = _popen_measure([py, "-c", PLAIN, str(p), str(r)])
        want = float(out.strip())
        rows.append(
            bench_row(
                metric,
                "plain Python: json.loads per line + compute_anls (reference)",
                n,
                t_plain,
                t_plain,
                m_plain,
                0.0,
                f"wall time, peak RSS {m_plain:.0f} MiB",
            )
        )
        score = [py, "-m", "metricore.cli", "score", "--metric", "anls", "--no-progress"]
        cases = [
            (
                "metricore score --id-field id --per-sample",
                [*score, "--predictions", p, "--references", r, "--id-field", "id"],
                True,
            ),
            (
                "metricore score (no ids: by position)",
                [*score, "--predictions", pn, "--references", rn],
                False,
            ),
        ]
        if shuffled:
            cases.append(
                (
                    "metricore score --id-field id, predictions shuffled (spilled join)",
                    [
                        *score,
                        "--predictions",
                        folder / "p_shuffled.jsonl",
                        "--references",
                        r,
                        "--id-field",
                        "id",
                    ],
                    False,
                )
            )
        for name, argv, per_sample in cases:
            argv = [str(a) for a in argv]
            if per_sample:
                argv += ["--per-sample", str(folder / "items.jsonl")]
            seconds, peak, out = _popen_measure(argv)
            got = json.loads(out)["anls"]
            rows.append(
                bench_row(
                    metric,
                    name,
                    n,
                    seconds,
                    t_plain,
                    peak,
                    abs(got - want),
                    f"wall time, peak RSS {peak:.0f} MiB; {seconds / t_plain:.2f}x plain Python",
                )
            )
    return rows


PLAIN_CAPTIONS = """
import json, sys
from metricore import registry
with open(sys.argv[2], "rb") as f:
    preds = [json.loads(line)["prediction"] for line in f]
with open(sys.argv[3], "rb") as f:
    refs = [json.loads(line)["references"] for line in f]
print(json.dumps(registry.get(sys.argv[1]).bind().run(preds, refs).headline()))
"""

#: the metrics of the caption rows, and the headline key compared
CAPTION_METRICS = {"cider": "cider", "coco_caption": "CIDEr"}


def write_caption_corpus(folder: Path, n: int, *, seed: int = 0, block: int = 100_000) -> tuple[Path, Path]:
    """``(predictions, references)``: JSONL files with ids of ``n`` generated images, five
    references each (generated ``block`` images at a time, each block from its own seed)."""
    from tests.gen_cider_captions import caption_corpus

    paths = folder / "captions_p.jsonl", folder / "captions_r.jsonl"
    with open(paths[0], "w", encoding="utf-8") as p, open(paths[1], "w", encoding="utf-8") as r:
        for start in range(0, n, block):
            hyps, refs = caption_corpus(min(block, n - start), seed=seed + start, rich=0.5)
            for i, (hyp, rs) in enumerate(zip(hyps, refs), start):
                p.write(json.dumps({"id": f"img{i:08d}", "prediction": hyp}, ensure_ascii=False) + "\n")
                r.write(json.dumps({"id": f"img{i:08d}", "references": rs}, ensure_ascii=False) + "\n")
    return paths


def caption_rows(n: int, metrics: tuple[str, ...] = tuple(CAPTION_METRICS)) -> list[dict[str, Any]]:
    """Wall time and peak RSS of the in-memory core and of the streamed CLI on ``n`` captions."""
    rows: list[dict[str, Any]] = []
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-cli-captions-") as tmp:
        folder = Path(tmp)
        p, r = write_caption_corpus(folder, n)
        for metric in metrics:
            key = CAPTION_METRICS[metric]
            label = f"{metric} CLI [{n:,} images x 5 refs]"
            t_plain, m_plain, out = _popen_measure([py, "-c", PLAIN_CAPTIONS, metric, str(p), str(r)])
            want = json.loads(out)[key]
            rows.append(
                bench_row(
                    label,
                    "plain Python: json.loads per line + the core on all rows (reference)",
                    n,
                    t_plain,
                    t_plain,
                    m_plain,
                    0.0,
                    f"wall time, peak RSS {m_plain:.0f} MiB",
                )
            )
            argv = [py, "-m", "metricore.cli", "score", "--metric", metric, "--no-progress"]
            argv += ["--predictions", str(p), "--references", str(r), "--id-field", "id"]
            argv += ["--per-sample", str(folder / "items.jsonl")]
            seconds, peak, out = _popen_measure(argv)
            got = json.loads(out)[key]
            rows.append(
                bench_row(
                    label,
                    "metricore score --id-field id --per-sample (streamed statistics)",
                    n,
                    seconds,
                    t_plain,
                    peak,
                    abs(got - want),
                    f"wall time, peak RSS {peak:.0f} MiB; {seconds / t_plain:.2f}x plain Python",
                )
            )
    return rows


def evaluate_rows(n: int = 100_000) -> list[dict[str, Any]]:
    """The evaluate path's added ms per 1,000 rows over the core, per metric."""
    import metricore_hf
    from metricore import compute_anls, compute_one_minus_ned

    rng = random.Random(1)
    golds = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4))) for _ in range(n)]
    preds = [g if rng.random() < 0.5 else g[:-1] for g in golds]
    refs = [[g, g.upper()] for g in golds]
    rows = []
    for name, core, references in (
        ("anls", compute_anls, refs),
        ("one_minus_ned", compute_one_minus_ned, golds),
    ):
        module = metricore_hf.load(name)

        def best(fn: Any) -> float:
            times = []
            for _ in range(3):
                t0 = time.process_time()
                fn()
                times.append(time.process_time() - t0)
            return min(times)

        t_core = best(lambda core=core, refs=references: core(preds, refs))
        t_ev = best(lambda m=module, refs=references: m.compute(predictions=preds, references=refs))
        added = (t_ev - t_core) * 1e3 / (n / 1000)
        rows.append(
            bench_row(
                f"evaluate path [{name}]",
                f"metricore_hf.load({name!r}).compute: {added:.2f} ms added per 1,000 rows",
                n,
                t_ev,
                t_core,
                None,
                None,
                f"core {t_core * 1e3 / (n / 1000):.2f} ms per 1,000 rows; CPU time, best of 3",
            )
        )
    return rows


def run(n: int = 1_000_000) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    size = 100_000
    while size <= n:
        rows += cli_rows(size)
        size *= 10
    return rows + caption_rows(min(n, 100_000)) + evaluate_rows()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--caption-sizes", type=int, nargs="*", default=[100_000])
    ap.add_argument(
        "--caption-metrics", nargs="+", default=list(CAPTION_METRICS), choices=list(CAPTION_METRICS)
    )
    ap.add_argument("--no-evaluate", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    for n in args.sizes:
        for row in cli_rows(n):
            print(json.dumps(row, ensure_ascii=False), flush=True)
            rows.append(row)
    for n in args.caption_sizes:
        for row in caption_rows(n, tuple(args.caption_metrics)):
            print(json.dumps(row, ensure_ascii=False), flush=True)
            rows.append(row)
    if not args.no_evaluate:
        for row in evaluate_rows():
            print(json.dumps(row, ensure_ascii=False), flush=True)
            rows.append(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
