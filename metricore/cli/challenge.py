"""``metricore challenge``: the integral score of a multi-task challenge (default ``fbc2``).

Usage::

    metricore challenge [--challenge fbc2|SPEC.json|SPEC.yaml]
                        (--predictions predictions.json --references ground_truth.json
                         --task-ids sample_ids.json [--extra extra.json]
                         | --inputs tasks.json)
                        [--missing error|zero] [--confidence 0.95 [--n-resamples N] [--seed S]]
                        [--output FILE] [--indent 2]

Two input forms, as :mod:`metricore.challenge` takes them:

* the challenge's own submission files: ``predictions.json`` and ``ground_truth.json``
  (per sample id, a list of typed answer parts), ``sample_ids.json`` (task number -> ids)
  and optionally ``extra.json`` (per task: hidden scores, image/text embeddings or features,
  precomputed sub-scores; what the answer files cannot carry);
* ``--inputs``: one JSON/YAML object, task name -> a score or that task's inputs.

The JSON report (stdout, or ``--output``) has every task's score, the group sums, the
integral score, eligibility against the thresholds and the signature; with ``--confidence``
also stratified bootstrap intervals (:mod:`metricore.challenge.intervals`).

Exit codes as ``metricore score``: 0 success, 2 usage error (bad spec or options), 3 bad
input data (unknown/missing task, mismatched ids, a score outside [0, 1]), 4 unreadable or
unwritable file, 5 missing resource (WordNet, pymorphy3).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from metricore.cli.commands import EXIT_DATA, EXIT_IO, EXIT_OK, EXIT_RESOURCE, EXIT_USAGE, dumps, fail
from metricore.core.files import write_atomic
from metricore.core.structured import DuplicateKeyError, loads_strict
from metricore.lexicon.wordnet import WordNetNotFoundError
from metricore.stats.significance import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["add_parser", "run"]

_COMMAND = "challenge"


class _SpecError(ValueError):
    pass


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        _COMMAND,
        help="integral score of a multi-task challenge (default: FusionBrain Challenge 2.0)",
        description="The integral score of a multi-task challenge (default: fbc2, the FusionBrain "
        "Challenge 2.0); JSON report on stdout.",
        epilog="Exit codes: 0 ok, 2 usage, 3 bad input data, 4 file I/O, 5 missing resource.",
    )
    p.add_argument(
        "--challenge",
        default="fbc2",
        metavar="NAME|FILE",
        help="built-in challenge name or a JSON/YAML spec file (default: fbc2)",
    )
    p.add_argument("--predictions", type=Path, metavar="FILE", help="the submission's predictions.json")
    p.add_argument("--references", type=Path, metavar="FILE", help="ground_truth.json")
    p.add_argument(
        "--task-ids", type=Path, metavar="FILE", help="sample_ids.json (task number -> sample ids)"
    )
    p.add_argument(
        "--extra",
        type=Path,
        metavar="FILE",
        help="per-task inputs the answer files cannot carry (hidden scores, embeddings, features)",
    )
    p.add_argument(
        "--inputs", type=Path, metavar="FILE", help="task name -> score or inputs (instead of the files)"
    )
    p.add_argument(
        "--missing",
        choices=("error", "zero"),
        default="error",
        help="a task without input: an error (default) or a score of 0",
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=None,
        help=f"add bootstrap intervals at this level (e.g. {DEFAULT_CONFIDENCE})",
    )
    p.add_argument("--n-resamples", type=int, default=DEFAULT_RESAMPLES)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--output", type=Path, metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--indent", type=int, default=2, help="JSON indent (default 2; -1: one line)")
    p.set_defaults(func=run)


def _read(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        from metricore.challenge import parse_spec_text

        return parse_spec_text(text, "yaml")
    try:
        return loads_strict(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    except DuplicateKeyError as err:  # json.loads would keep the last value silently
        raise ValueError(f"{path}: the id or key {err.key!r} repeats (each must appear once)") from None


def _load_spec(source: str) -> Any:
    from metricore.challenge import builtin_challenges, load_challenge

    path = Path(source)
    if source not in builtin_challenges() and not path.exists():
        raise _SpecError(
            f"--challenge: {source!r} is neither a built-in challenge "
            f"({', '.join(builtin_challenges())}) nor an existing spec file"
        )
    try:
        return load_challenge(path if source not in builtin_challenges() else source)
    except (TypeError, ValueError) as err:
        raise _SpecError(f"--challenge {source}: {err}") from err


def run(args: argparse.Namespace) -> int:
    from metricore.challenge import score_challenge, score_submission

    files = {"--predictions": args.predictions, "--references": args.references, "--task-ids": args.task_ids}
    if args.inputs is not None and any(v is not None for v in (*files.values(), args.extra)):
        return fail("give either --inputs or the submission files, not both", EXIT_USAGE, _COMMAND)
    if args.inputs is None:
        absent = [k for k, v in files.items() if v is None]
        if absent:
            return fail(f"missing {', '.join(absent)} (or give --inputs)", EXIT_USAGE, _COMMAND)
    try:
        spec = _load_spec(args.challenge)
        if args.inputs is not None:
            result = score_challenge(_read(args.inputs), spec, missing=args.missing)
        else:
            extra = _read(args.extra) if args.extra is not None else None
            result = score_submission(
                _read(args.predictions),
                _read(args.references),
                _read(args.task_ids),
                extra,
                challenge=spec,
                missing=args.missing,
            )
        out = result.as_dict()
        if args.confidence is not None:
            from metricore.intervals import interval_fields

            out.update(
                interval_fields(
                    result, confidence=args.confidence, n_resamples=args.n_resamples, seed=args.seed
                )
            )
    except _SpecError as err:
        return fail(str(err), EXIT_USAGE, _COMMAND)
    except OSError as err:
        return fail(str(err), EXIT_IO, _COMMAND)
    except (WordNetNotFoundError, ImportError) as err:
        return fail(str(err), EXIT_RESOURCE, _COMMAND)
    except (TypeError, ValueError) as err:
        return fail(str(err), EXIT_DATA, _COMMAND)
    text = dumps(out, indent=None if args.indent < 0 else args.indent)
    if args.output is not None:
        try:
            write_atomic(args.output, [text + "\n"])
        except OSError as err:
            return fail(str(err), EXIT_IO, _COMMAND)
    else:
        print(text)
    return EXIT_OK
