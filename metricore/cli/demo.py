"""The embedded example: score the bundled sample with every metric and print a table."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

from metricore.core.structured import from_json
from metricore.metrics.anls import ANLS_VARIANTS, compute_anls
from metricore.metrics.cider import compute_cider
from metricore.metrics.meteor import compute_meteor
from metricore.metrics.ned import compute_one_minus_ned
from metricore.metrics.token_f1 import compute_token_f1

__all__ = ["load_sample", "demo_rows", "format_table"]


def load_sample() -> dict[str, Any]:
    """The bundled sample; structured answers are decoded (tuples restored)."""
    text = resources.files("metricore").joinpath("data/demo_sample.json").read_text("utf-8")
    raw = json.loads(text)
    return {k: from_json(json.dumps(v)) for k, v in raw.items() if not k.startswith("_")}


def _row(metric: str, variant: str, n: int, score: float, signature: str) -> dict[str, Any]:
    return {"metric": metric, "variant": variant, "n": n, "score": score, "signature": signature}


def demo_rows(sample: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per (metric, variant) that the bundled sample exercises."""
    s = sample or load_sample()
    # (metric, variant shown, sample part, scorer, headline key)
    jobs: list[tuple[str, str, str, Callable[..., Any], str]] = []
    for variant in ANLS_VARIANTS:
        part = {"anls_star": "anls_star", "dude": "dude"}.get(variant, "docvqa")
        jobs.append(("anls", variant, part, lambda p, r, v=variant: compute_anls(p, r, variant=v), "anls"))
    for variant in ("squad", "squad_v2"):
        jobs.append(
            ("token_f1", variant, "squad", lambda p, r, v=variant: compute_token_f1(p, r, variant=v), "f1")
        )
    jobs.append(("meteor", "nltk", "captions", compute_meteor, "meteor"))
    jobs.append(("cider", "cider_d", "captions", compute_cider, "cider"))
    jobs.append(("one_minus_ned", "icdar2019", "ocr", compute_one_minus_ned, "one_minus_ned"))
    jobs.append(
        (
            "one_minus_ned",
            "icdar2019+nfkc+lower",
            "ocr",
            lambda p, r: compute_one_minus_ned(p, r, nfkc=True, lowercase=True),
            "one_minus_ned",
        )
    )
    rows = []
    for metric, variant, part, fn, key in jobs:
        predictions, references = s[part]["predictions"], s[part]["references"]
        result = fn(predictions, references)
        rows.append(_row(metric, variant, len(predictions), float(result.as_dict()[key]), result.signature))
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("metric", "variant", "n", "score", "signature")
    cells = [
        [str(r["metric"]), str(r["variant"]), str(r["n"]), f"{r['score']:.4f}", r["signature"]] for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(x.rstrip() for x in out)
