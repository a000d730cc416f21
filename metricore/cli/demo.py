"""The embedded example (``metricore demo``): every metric of the registry scores its own worked
examples (those of its metric card and Space), with every config they use, and a table shows
the main headline number and the signature of each.

A config whose resource is not installed (e.g. the FusionBrain METEOR variants' Russian
lemmatizer, or METEOR 1.5's data from ``pycocoevalcap``, which the run-time set leaves out)
shows what it needs instead of a score.
"""

from __future__ import annotations

import warnings
from typing import Any

from metricore import registry
from metricore.core.spec import MetricSpec

__all__ = ["demo_rows", "format_table"]


def _row(spec: MetricSpec, index: int) -> dict[str, Any]:
    example = spec.examples[index]
    bound = spec.bind_options(example.config, example.options)
    row: dict[str, Any] = {
        "metric": spec.name,
        "variant": bound.config.name,
        "n": len(example.predictions),
        "example": example.title,
    }
    try:
        with warnings.catch_warnings():  # e.g. "one image scores 0": the example shows it on purpose
            warnings.simplefilter("ignore")
            result = bound.run(example.predictions, example.references)
    except (ImportError, LookupError, OSError) as err:  # a resource the config needs (a thesaurus, WordNet)
        need = spec.needs.get(bound.config.name) or str(err).splitlines()[0]
        return {**row, "score": None, "key": None, "signature": f"(not run: needs {need})"}
    key = result.main_key() or next(iter(result.headline()))
    return {**row, "score": float(result.headline()[key]), "key": key, "signature": result.signature}


def demo_rows() -> list[dict[str, Any]]:
    """One row per worked example of every row metric of the registry."""
    return [
        _row(spec, i)
        for spec in (registry.get(name) for name in registry.row_metrics())
        for i in range(len(spec.examples))
    ]


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("metric", "variant", "n", "score", "signature", "example")
    cells = [
        [
            str(r["metric"]),
            str(r["variant"]),
            str(r["n"]),
            "-" if r["score"] is None else f"{r['score']:.4f}",
            r["signature"],
            r["example"],
        ]
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(x.rstrip() for x in out)
