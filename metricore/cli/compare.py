"""``metricore compare``: is one system significantly different from another on the same items?

Usage::

    metricore compare --metric METRIC [--config C] --baseline FILE --system FILE --references FILE
                      [--option NAME=VALUE ...] [--key KEY ...] [--confidence 0.95]
                      [--n-resamples 1000] [--n-trials 10000] [--seed 0] [--format FMT]
                      [--output FILE] [--indent 2]

Both prediction files are scored against the one reference file with the core metric, as
``metricore score`` does (:mod:`metricore.cli.commands`: the same metrics, configs and ``--option``
values; files read by :mod:`metricore.core.records`: JSONL, JSON, CSV, TSV, bare values or
``{"prediction"|"references", "id"}`` records; with ids on every row each system is matched
to the references by id, so item ``i`` is the same in both systems; without ids, rows pair by
position). Every headline number (or the ``--key`` ones) then gets a paired bootstrap
(p-value and the interval of the difference, system minus baseline) and a paired
randomization test (:mod:`metricore.stats.significance`): exact (every swap pattern of the items
that differ enumerated) when ``2^k <= --n-trials`` for ``k`` differing items, approximate
randomization otherwise. Every ``p_value`` is valid (Monte Carlo ``(b + 1) / (m + 1)``, ``b``
counting draws at least as extreme); sacrebleu's numbers are kept as ``p_value_sacrebleu``
for comparison with published results. When the sample is too small for ``--confidence`` (no
p-value could fall below ``1 - confidence``), the report's ``warnings`` say so and each is
printed to stderr. The report is JSON on stdout (or ``--output``); NaN and infinities are
written as ``"nan"``, ``"inf"`` and ``"-inf"`` (one rule on every surface).

Exit codes as ``metricore score``: 0 success, 2 usage error (bad arguments, options, key or
interval settings), 3 bad input data, 4 unreadable or unwritable file, 5 missing resource.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from metricore.cli.commands import (
    EXIT_DATA,
    EXIT_IO,
    EXIT_OK,
    EXIT_RESOURCE,
    EXIT_USAGE,
    UsageError,
    add_metric_arguments,
    add_option_argument,
    bind,
    dumps,
    read_input,
    row_spec,
    score_paired,
)
from metricore.core.files import write_atomic
from metricore.core.records import FORMATS, InputError, Paired, column, pair_columns
from metricore.lexicon.wordnet import WordNetNotFoundError
from metricore.stats.significance import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TRIALS,
    paired_bootstrap,
    paired_randomization,
)

__all__ = ["add_parser", "aligned_inputs", "compare_results", "compare_warnings", "run"]


def aligned_inputs(
    baseline: str | Path,
    system: str | Path,
    references: str | Path,
    *,
    fmt: str | None = None,
    json_cells: bool = False,
) -> tuple[Paired, Paired]:
    """Each system paired with the references, both in the reference order."""
    read = {"fmt": fmt, "json_cells": json_cells}
    refs = column(read_input("--references", references, **read), "references")
    base = pair_columns(column(read_input("--baseline", baseline, **read), "prediction"), refs)
    other = pair_columns(column(read_input("--system", system, **read), "prediction"), refs)
    return base, other


def compare_results(
    baseline: Any,
    system: Any,
    *,
    keys: Sequence[str] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_trials: int = DEFAULT_TRIALS,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, Any]:
    """Paired bootstrap and approximate randomization of every headline number of two core
    results over the same items (``keys`` to choose some)."""
    from metricore.intervals import headline_statistics

    stats_a = headline_statistics(baseline)
    stats_b = headline_statistics(system)
    chosen = list(stats_a) if not keys else list(keys)
    unknown = [k for k in chosen if k not in stats_a]
    if unknown:
        raise ValueError(f"unknown key(s) {unknown}; this metric has: {', '.join(stats_a)}")
    out: dict[str, Any] = {}
    for key in chosen:
        bs = paired_bootstrap(
            stats_a[key], stats_b[key], confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        ar = paired_randomization(
            stats_a[key], stats_b[key], n_trials=n_trials, seed=seed, confidence=confidence
        )
        out[key] = {"paired_bootstrap": bs.as_dict(), "approximate_randomization": ar.as_dict()}
    return out


def compare_warnings(tests: dict[str, Any]) -> list[str]:
    """The distinct small-sample warnings of :func:`compare_results`' tests, prefixed by key."""
    found: dict[str, None] = {}
    for key, pair in tests.items():
        for test in pair.values():
            if test.get("warning"):
                found[f"{key}: {test['warning']}"] = None
    return list(found)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand to ``metricore``'s subparsers."""
    p = subparsers.add_parser(
        "compare",
        help="paired significance of two systems' predictions against one references file (JSON on stdout)",
        description="Is one system significantly different from another on the same items? "
        "Paired bootstrap and approximate randomization of every headline number; JSON on stdout.",
    )
    add_metric_arguments(p)
    p.add_argument("--baseline", required=True, metavar="FILE", help="baseline predictions")
    p.add_argument("--system", required=True, metavar="FILE", help="system predictions (the same items)")
    p.add_argument("--references", required=True, metavar="FILE", help="references")
    p.add_argument("--format", choices=FORMATS, help="file format of the inputs (default: by extension)")
    add_option_argument(p)
    p.add_argument(
        "--key", action="append", default=None, help="headline number to test (default: all; repeatable)"
    )
    p.add_argument(
        "--confidence", type=float, default=DEFAULT_CONFIDENCE, help="interval level (default 0.95)"
    )
    p.add_argument(
        "--n-resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (default 1000)"
    )
    p.add_argument(
        "--n-trials",
        type=int,
        default=DEFAULT_TRIALS,
        help="randomization trials (default 10000); exact when 2^(items that differ) <= this",
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default 0)")
    p.add_argument(
        "--output", type=Path, default=None, metavar="FILE", help="write the report here, not to stdout"
    )
    p.add_argument("--indent", type=int, default=2, help="JSON indent (default 2; -1: one line)")
    p.set_defaults(func=run)
    return p


def _fail(message: str, code: int) -> int:
    print(f"metricore compare: error: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    options = dict(args.option)
    try:
        spec = row_spec(args.metric)
        bound = bind(spec, args.config, options)
        config = bound.config.name
        base, other = aligned_inputs(
            args.baseline,
            args.system,
            args.references,
            fmt=args.format,
            json_cells=bound.config.json_cells,
        )
        results = {
            "baseline": score_paired(bound, base),
            "system": score_paired(bound, other),
        }
        tests = compare_results(
            results["baseline"],
            results["system"],
            keys=args.key,
            confidence=args.confidence,
            n_resamples=args.n_resamples,
            n_trials=args.n_trials,
            seed=args.seed,
        )
    except UsageError as err:
        return _fail(f"{err}", EXIT_USAGE)
    except InputError as err:
        return _fail(f"{err}", EXIT_DATA)
    except (WordNetNotFoundError, ImportError) as err:
        return _fail(f"{err}", EXIT_RESOURCE)
    except OSError as err:
        return _fail(f"{err}", EXIT_IO)
    except (TypeError, ValueError) as err:  # bad --format, --key or interval settings
        return _fail(f"{err}", EXIT_USAGE)
    report = {
        "metric": spec.name,
        "config": config,
        "n": len(base.predictions),
        "matched_by": "id" if base.ids is not None else "position",
        "options": options,
        "files": {
            "baseline": str(args.baseline),
            "system": str(args.system),
            "references": str(args.references),
        },
        "signature": results["baseline"].signature,
        "warnings": compare_warnings(tests),
        "tests": tests,
    }
    for warning in report["warnings"]:
        print(f"metricore compare: warning: {warning}", file=sys.stderr)
    text = dumps(report, indent=None if args.indent < 0 else args.indent)
    if args.output is None:
        print(text)
        return EXIT_OK
    try:
        write_atomic(args.output, [text + "\n"])
    except OSError as err:
        return _fail(f"{err}", EXIT_IO)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``python -m metricore.cli.compare ...`` (the same as ``metricore compare ...``)."""
    parser = argparse.ArgumentParser(prog="metricore")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["compare", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
