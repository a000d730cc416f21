"""Command line: ``metricore score``, ``metricore demo`` and ``metricore wordnet``
(also ``python -m metricore.cli ...``).

``metricore score --metric anls [--config docvqa] --predictions p.jsonl --references r.jsonl
[--per-sample out.jsonl] [--option threshold=0.4 ...]`` scores a prediction file against a
reference file with the core metric and prints the result as JSON on stdout: ``metric``,
``config``, ``n``, ``matched_by`` (``"id"`` or ``"position"``), ``options``, the metric's
headline numbers and its ``signature``. ``--per-sample`` writes one JSON line per scored
item (``index``, ``id``, ``prediction``, ``references``, the item's score(s), ``closest``
gold where the metric reports it). File formats, field names and id matching:
:mod:`metricore.cli.io`. ``--option`` values are JSON when they parse (``threshold=0.4``,
``lowercase=true``), text otherwise. A progress bar is shown on stderr while long files are
read, only when stderr is a terminal (``--progress``/``--no-progress`` to force).

Exit codes:

== =====================================================================================
0  success
1  internal error (a bug: please report it with the traceback)
2  usage error: bad arguments, unknown metric, config or option, bad option value
3  bad input data: malformed line, missing field, unmatched ids or row counts, a value the
   metric refuses; the message names the file and line (or JSON item)
4  a file cannot be read or written
5  a resource the metric needs is not installed (WordNet for METEOR:
   ``metricore wordnet --install``)
== =====================================================================================

A subcommand lives in its own module with ``add_parser(subparsers)`` (which sets
``func=run`` on its parser) and ``run(args) -> int``; list the module in
:data:`SUBCOMMANDS`. A metric joins ``score`` with :func:`register_metric`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metricore._version import __version__
from metricore.cli.io import FORMATS, FieldNames, InputError, Paired, column, pair_columns, read_records
from metricore.lexicon.wordnet import WordNetNotFoundError

__all__ = [
    "EXIT_OK",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXIT_DATA",
    "EXIT_IO",
    "EXIT_RESOURCE",
    "UsageError",
    "MetricSpec",
    "METRICS",
    "SUBCOMMANDS",
    "check_choices",
    "dumps",
    "fail",
    "parse_option",
    "register_metric",
    "score_paired",
    "per_sample_rows",
    "main",
]

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_DATA, EXIT_IO, EXIT_RESOURCE = 0, 1, 2, 3, 4, 5

#: modules that add a subcommand (``add_parser(subparsers)``, ``run(args) -> int``)
SUBCOMMANDS: tuple[str, ...] = ("metricore.cli.compare", "metricore.cli.challenge")


class UsageError(ValueError):
    """A bad command-line choice (exit code 2)."""


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------

Scorer = Callable[[str, list[Any], list[Any], dict[str, Any]], Any]


@dataclass(frozen=True)
class MetricSpec:
    """A metric of ``metricore score``: its configs (the first is the default), the option
    names each config accepts, and ``score(config, predictions, references, options)``
    returning a core result (with ``as_dict()``). ``json_cells``: configs whose CSV cells
    are read as JSON (structured answers)."""

    name: str
    configs: tuple[str, ...]
    options: Mapping[str, frozenset[str]]
    score: Scorer
    json_cells: frozenset[str] = frozenset()


METRICS: dict[str, MetricSpec] = {}


def register_metric(spec: MetricSpec) -> MetricSpec:
    METRICS[spec.name] = spec
    return spec


def _anls(config: str, preds: list[Any], refs: list[Any], options: dict[str, Any]) -> Any:
    from metricore.metrics.anls import compute_anls

    return compute_anls(preds, refs, variant=config, **options)


def _token_f1(config: str, preds: list[Any], refs: list[Any], options: dict[str, Any]) -> Any:
    from metricore.metrics.quac import compute_quac
    from metricore.metrics.token_f1 import compute_question_level, compute_token_f1

    if config == "question_level":
        return compute_question_level(preds, refs, **options)
    if config == "quac":
        for i, ref in enumerate(refs):
            if not isinstance(ref, Mapping) or "dialog_id" not in ref or "answers" not in ref:
                raise TypeError(
                    f"token_f1: `references[{i}]` must be {{'dialog_id': str, 'answers': [str, ...]}} "
                    f"for the quac config, got {ref!r:.80}"
                )
        return compute_quac(preds, [r["answers"] for r in refs], [r["dialog_id"] for r in refs], **options)
    return compute_token_f1(preds, refs, variant=config, **options)


def _meteor(config: str, preds: list[Any], refs: list[Any], options: dict[str, Any]) -> Any:
    from metricore.metrics.meteor import compute_meteor

    return compute_meteor(preds, refs, variant=config, **options)


def _cider(config: str, preds: list[Any], refs: list[Any], options: dict[str, Any]) -> Any:
    from metricore.metrics.cider import DocumentFrequency, compute_cider

    df = options.pop("df", "corpus")
    if isinstance(df, str) and df != "corpus":
        df = DocumentFrequency.load(df)  # a table saved with DocumentFrequency.save
    return compute_cider(preds, refs, variant=config, df=df, **options)


def _one_minus_ned(config: str, preds: list[Any], refs: list[Any], options: dict[str, Any]) -> Any:
    from metricore.metrics.ned import compute_one_minus_ned

    return compute_one_minus_ned(preds, refs, **options)


def _register_builtin() -> None:
    from metricore.metrics.anls import ANLS_VARIANTS
    from metricore.metrics.cider import CIDER_VARIANTS
    from metricore.metrics.meteor import METEOR_VARIANTS
    from metricore.metrics.token_f1 import TOKEN_F1_VARIANTS

    meteor = frozenset({"alpha", "beta", "gamma", "synonyms", "tokenizer"})
    cider = frozenset({"n", "tokenize", "df"})
    register_metric(
        MetricSpec(
            "anls",
            tuple(ANLS_VARIANTS),
            {v: frozenset({"threshold"}) for v in ANLS_VARIANTS},
            _anls,
            json_cells=frozenset({"anls_star", "dude"}),
        )
    )
    token_f1 = {
        name: frozenset({"percent"})
        | ({"no_answer_threshold"} if spec.rules == "v2" else set())
        | ({"language"} if spec.normalizer is None else set())  # MLQA: per-language normalizer
        for name, spec in TOKEN_F1_VARIANTS.items()
    }
    token_f1["question_level"] = frozenset({"percent", "normalizer"})
    token_f1["quac"] = frozenset({"percent", "min_human_f1"})
    register_metric(
        MetricSpec(
            "token_f1",
            tuple(token_f1),
            token_f1,
            _token_f1,
            json_cells=frozenset({"question_level", "quac"}),
        )
    )
    register_metric(
        MetricSpec(
            "meteor",
            tuple(METEOR_VARIANTS),
            {v: meteor | ({"lemmatize"} if v == "fbc2_vqa" else set()) for v in METEOR_VARIANTS},
            _meteor,
        )
    )
    register_metric(
        MetricSpec(
            "cider",
            tuple(CIDER_VARIANTS),
            {v: cider | ({"sigma"} if v == "cider_d" else set()) for v in CIDER_VARIANTS},
            _cider,
        )
    )
    register_metric(
        MetricSpec(
            "one_minus_ned",
            ("icdar2019",),
            {"icdar2019": frozenset({"empty_pair", "lowercase", "nfkc"})},
            _one_minus_ned,
        )
    )
    # challenge_score is not a row metric: it has its own subcommand (metricore.cli.challenge)


_register_builtin()


def check_choices(spec: MetricSpec, config: str | None, options: Mapping[str, Any]) -> str:
    config = spec.configs[0] if config in (None, "default") else config
    if config not in spec.configs:
        raise UsageError(f"{spec.name}: unknown config {config!r}; allowed: {', '.join(spec.configs)}")
    allowed = spec.options.get(config, frozenset())
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise UsageError(
            f"{spec.name} ({config}): unknown option(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(allowed)) or 'none'}"
        )
    return config


_ROW = re.compile(r"\b(predictions|references)\[(\d+)\]")


def _locate(message: str, paired: Paired) -> str:
    """The core names rows by index (``predictions[3]``); add the file and line."""
    m = _ROW.search(message)
    if m is None:
        return message
    index = int(m.group(2))
    where = paired.prediction_where if m.group(1) == "predictions" else paired.reference_where
    return f"{message} [{where[index]}]" if index < len(where) else message


def score_paired(spec: MetricSpec, config: str | None, paired: Paired, options: Mapping[str, Any]) -> Any:
    """Score aligned rows; a refused value raises :class:`InputError` naming its file and
    line, a bad option :class:`UsageError`."""
    config = check_choices(spec, config, options)
    try:
        return spec.score(config, list(paired.predictions), list(paired.references), dict(options))
    except (TypeError, ValueError) as err:
        message = str(err)
        if _ROW.search(message) or re.search(
            r"`(predictions|references)`|\bpredictions\b.*\breferences\b", message
        ):
            raise InputError(_locate(message, paired)) from err
        raise UsageError(message) from err


def per_sample_rows(result: Any, paired: Paired) -> Iterator[dict[str, Any]]:
    """One dict per scored item: ``index``, ``id``, the inputs, the item's score(s) and the
    ``closest`` gold when the result has one."""
    scores = result.as_dict().get("scores")
    if isinstance(scores, list):
        columns = {"score": scores}
    elif isinstance(scores, Mapping) and all(isinstance(v, list) for v in scores.values()):
        columns = dict(scores)
    else:
        raise UsageError("this metric has no per-sample scores")
    n = len(next(iter(columns.values()), []))
    closest = getattr(result, "closest", None)
    # HF SQuAD dict rows are matched by id inside the core, in reference order
    reordered = getattr(result, "ids", None) is not None
    for i in range(n):
        row: dict[str, Any] = {"index": i}
        if paired.ids is not None:
            row["id"] = paired.ids[i]
        if not reordered:
            row["prediction"] = paired.predictions[i]
        row["references"] = paired.references[i]
        row.update((k, v[i]) for k, v in columns.items())
        if isinstance(closest, list) and len(closest) == n:
            row["closest"] = closest[i]
        yield row


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item())
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    return json.dumps(_jsonable(value), ensure_ascii=False, **kwargs)


# --------------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------------


def parse_option(text: str) -> tuple[str, Any]:
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name.strip(), json.loads(raw)
    except ValueError:
        return name.strip(), raw


def _add_score(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a predictions file against a references file (JSON result on stdout)",
        description="Score predictions against references; JSON result on stdout. "
        "Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input data, 4 unreadable or "
        "unwritable file, 5 missing resource.",
    )
    p.add_argument("--metric", required=True, choices=sorted(METRICS))
    p.add_argument(
        "--config",
        "--variant",
        dest="config",
        default=None,
        help="metric config (variant); default: the metric's first",
    )
    p.add_argument(
        "--predictions",
        required=True,
        metavar="FILE",
        help="predictions: .jsonl, .json, .csv or .tsv ('-': JSONL on stdin)",
    )
    p.add_argument(
        "--references",
        metavar="FILE",
        help="references (default: the 'references' field of the predictions file)",
    )
    p.add_argument("--per-sample", type=Path, metavar="FILE", help="write per-item scores here as JSONL")
    p.add_argument("--format", choices=FORMATS, help="file format of both inputs (default: by extension)")
    p.add_argument(
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="NAME=VALUE",
        help="metric option, e.g. threshold=0.4 (repeatable)",
    )
    p.add_argument(
        "--prediction-field",
        action="append",
        metavar="NAME",
        help="field/column of the prediction (default: prediction)",
    )
    p.add_argument(
        "--reference-field",
        action="append",
        metavar="NAME",
        help="field/column of the references (default: references, reference)",
    )
    p.add_argument("--id-field", action="append", metavar="NAME", help="field/column of the id (default: id)")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only when stderr is a terminal)",
    )
    p.add_argument(
        "--indent", type=int, default=2, help="JSON indent of the result (default 2; -1: one line)"
    )
    p.set_defaults(func=_score)


def _score(args: argparse.Namespace) -> int:
    spec = METRICS[args.metric]
    fields = FieldNames(
        prediction=tuple(args.prediction_field or FieldNames.prediction),
        references=tuple(args.reference_field or FieldNames.references),
        id=tuple(args.id_field or FieldNames.id),
    )
    options = dict(args.option)
    try:
        config = check_choices(spec, args.config, options)
        json_cells = config in spec.json_cells
        read = {"fmt": args.format, "fields": fields, "json_cells": json_cells, "progress": args.progress}
        pred_records = read_records(args.predictions, **read)
        ref_records = pred_records if args.references is None else read_records(args.references, **read)
        paired = pair_columns(
            column(pred_records, "prediction", fields), column(ref_records, "references", fields)
        )
        if args.progress or (
            args.progress is None and sys.stderr.isatty() and len(paired.predictions) >= 20_000
        ):
            print(
                f"metricore: scoring {len(paired.predictions):,} rows with {spec.name} ({config})...",
                file=sys.stderr,
                flush=True,
            )
        result = score_paired(spec, config, paired, options)
        rows = list(per_sample_rows(result, paired)) if args.per_sample is not None else None
    except UsageError as err:
        return fail(f"{err}", EXIT_USAGE)
    except InputError as err:
        return fail(f"{err}", EXIT_DATA)
    except (WordNetNotFoundError, ImportError) as err:  # the message says how to install it
        return fail(f"{err}", EXIT_RESOURCE)
    except OSError as err:
        return fail(f"{err}", EXIT_IO)
    except ValueError as err:  # bad --format / extension
        return fail(f"{err}", EXIT_USAGE)

    out = {
        "metric": spec.name,
        "config": config,
        "n": len(paired.predictions),
        "matched_by": "id" if paired.ids is not None else "position",
        "options": options,
    }
    out.update((k, v) for k, v in result.as_dict().items() if k != "scores")
    if rows is not None:
        try:
            with open(args.per_sample, "w", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(dumps(row) + "\n")
        except OSError as err:
            return fail(f"{err}", EXIT_IO)
    print(dumps(out, indent=None if args.indent < 0 else args.indent))
    return EXIT_OK


def fail(message: str, code: int, command: str = "score") -> int:
    print(f"metricore {command}: error: {message}", file=sys.stderr)
    return code


def _demo(args: argparse.Namespace) -> int:
    from metricore.cli.demo import demo_rows, format_table

    rows = demo_rows()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        print(format_table(rows))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metricore",
        description="Exact, fast evaluation metrics: score files, run the demo, provision WordNet.",
        epilog="Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input data, 4 file I/O, 5 missing resource.",
    )
    parser.add_argument("--version", action="version", version=f"metricore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_score(sub)
    demo = sub.add_parser("demo", help="score the bundled sample with every metric and print a table")
    demo.add_argument("--json", action="store_true", help="print the rows as JSON")
    demo.set_defaults(func=_demo)
    sub.add_parser("wordnet", help="find or provision WordNet offline (metricore wordnet --help)")
    for module in SUBCOMMANDS:
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["wordnet"]:
        # its own options (--install, --target, --check) belong to metricore.lexicon.wordnet
        from metricore.lexicon.wordnet import main as wordnet_main

        return wordnet_main(argv[1:])
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
