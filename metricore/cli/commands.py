"""Command line: ``metricore score``, ``metricore demo`` and ``metricore wordnet``
(also ``python -m metricore.cli ...``).

``metricore score --metric anls [--config docvqa] --predictions p.jsonl --references r.jsonl
[--per-sample out.jsonl] [--option threshold=0.4 ...]`` scores a prediction file against a
reference file with the core metric and prints the result as JSON on stdout: ``metric``,
``config``, ``n``, ``matched_by`` (``"id"`` or ``"position"``), ``options``, the metric's
headline numbers and its ``signature``. ``--per-sample`` writes one JSON line per scored
item (``index``, ``id``, ``prediction``, ``references``, the item's score(s), ``closest``
gold where the metric reports it). File formats, field names and id matching:
:mod:`metricore.core.records`. ``--option`` values are JSON when they parse (``threshold=0.4``,
``lowercase=true``), text otherwise. A progress bar (rows done, rows/s) is shown on stderr
for long runs, only when stderr is a terminal (``--progress``/``--no-progress`` to force).

Streaming: JSONL and CSV files are read, paired and scored ``--batch-rows`` rows at a time
(:class:`_ScoreRun`). Every metric whose spec declares a stream (:mod:`metricore.core.stream`:
all but the challenge score) keeps only a few numbers per row, never its texts (CIDEr-D: each
caption's words as integer ids), so memory stays bounded by the batch and those numbers; the
result is the in-memory result (same code, same statistics). Per-sample rows are written as
each batch is scored or, when a row's numbers depend on the other rows (CIDEr-D's document
frequencies; a caption's PTB tokens also depend on the next caption), once the last batch is
in, from the rows written to a temporary file meanwhile. Rows a stream declines are held and
scored at the end: token F1's SQuAD dict rows (the metric pairs them itself, and SQuAD v2.0
ties follow the prediction file's order; give ``{"id", "prediction"}``/``{"id",
"references"}`` records to stream). Files whose ids
are in the same order pair as they are read; otherwise the pairing is a hash join spilled
to a temporary directory past ``--spill-rows`` rows per file, re-ordered by reference
position, with the same errors for missing, extra and repeated ids (raised after the last
row was read). Past ``--spill-rows`` rows, a per-item metric's statistics (ANLS, 1-NED,
METEOR) go to temporary files too, so 10^7 rows are scored in the memory of 10^6; the
headline is computed from them with NumPy's own summation order, the same number to the
bit (:mod:`metricore.core.columns`). A ``.json`` file is one document, read whole. On any error no per-sample
file is written (an existing one is kept as it was).

Exit codes:

== =====================================================================================
0  success
1  internal error (a bug: please report it with the traceback)
2  usage error: bad arguments, unknown metric, config or option, bad option value
3  bad input data: malformed line, missing field, unmatched ids or row counts, a value the
   metric refuses; the message names the file and line (or JSON item)
4  a file cannot be read or written (an output file is written whole or not at all:
   an existing one is never truncated); standard output closed early
   (``metricore score ... | head -0``, no message)
5  a resource the metric needs is not installed (WordNet for METEOR:
   ``metricore wordnet --install``)
== =====================================================================================

A subcommand lives in its own module with ``add_parser(subparsers)`` (which sets
``func=run`` on its parser) and ``run(args) -> int``; list the module in
:data:`SUBCOMMANDS`. A metric joins ``score`` through its spec in :mod:`metricore.registry`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import pickle
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

from metricore import registry
from metricore.cli import version_text
from metricore.core.files import write_atomic
from metricore.core.pairing import SPILL_ROWS
from metricore.core.records import (
    BATCH_ROWS,
    FORMATS,
    FieldNames,
    InputError,
    Paired,
    Rows,
    pair_rows,
    progress_bar,
    read_records,
    read_rows,
)
from metricore.core.result import MetricResult
from metricore.core.spec import BoundMetric, MetricSpec
from metricore.core.stream import Deferred, StreamScorer, shift_indices
from metricore.core.structured import escape_surrogates, jsonable
from metricore.lexicon.wordnet import WordNetNotFoundError

__all__ = [
    "EXIT_OK",
    "add_metric_arguments",
    "add_option_argument",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXIT_DATA",
    "EXIT_IO",
    "EXIT_RESOURCE",
    "UsageError",
    "SUBCOMMANDS",
    "bind",
    "row_spec",
    "dumps",
    "fail",
    "parse_option",
    "read_input",
    "InputFileError",
    "score_paired",
    "score_paired_error",
    "per_sample_rows",
    "main",
]

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_DATA, EXIT_IO, EXIT_RESOURCE = 0, 1, 2, 3, 4, 5

_fast_dumps: Callable[[Any], bytes] | None
try:  # per-sample rows by the fast encoder (same JSON values; the standard library otherwise)
    from orjson import dumps as _fast_dumps
except ImportError:  # pragma: no cover - orjson is a dependency
    _fast_dumps = None

#: modules that add a subcommand (``add_parser(subparsers)``, ``run(args) -> int``)
SUBCOMMANDS: tuple[str, ...] = (
    "metricore.cli.compare",
    "metricore.cli.challenge",
    "metricore.cli.scaffold",
    "metricore.cli.doctor",
)


class UsageError(ValueError):
    """A bad command-line choice (exit code 2)."""


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


def row_spec(name: str) -> MetricSpec:
    """The spec of a metric ``score`` and ``compare`` can read rows for (:mod:`metricore.registry`);
    the challenge score has its own subcommand (:mod:`metricore.cli.challenge`)."""
    spec = registry.get(name)
    if not spec.rows:
        raise UsageError(f"{name}: not scored row by row; use `metricore challenge`")
    return spec


def bind(spec: MetricSpec, config: str | None, options: Mapping[str, Any]) -> BoundMetric:
    """``spec.bind`` (the one check of configs and options); :class:`UsageError` on a refusal."""
    try:
        return spec.bind_options(config, options)
    except (TypeError, ValueError) as err:
        raise UsageError(str(err)) from None


_ROW = re.compile(r"\b(predictions|references)\[(-?\d+)\]")


def _locate(message: str, paired: Paired, before: tuple[list[str], list[str]] | None = None) -> str:
    """The core names rows by index (``predictions[3]``); add the file and line (a negative
    index: a row of ``before``, the rows read before ``paired``, counted from its end)."""
    m = _ROW.search(message)
    if m is None:
        return message
    index = int(m.group(2))
    side = 0 if m.group(1) == "predictions" else 1
    where = (paired.prediction_where, paired.reference_where)[side]
    if index < 0 and before is not None:
        where, index = before[side], len(before[side]) + index
    return f"{message} [{where[index]}]" if 0 <= index < len(where) else message


def score_paired(bound: BoundMetric, paired: Paired) -> Any:
    """Score aligned rows; a refused value raises :class:`InputError` naming its file and
    line, anything else the metric refuses :class:`UsageError`."""
    try:
        return bound.run(paired.predictions, paired.references)
    except (TypeError, ValueError) as err:
        score_paired_error(err, paired)


def score_paired_error(
    err: Exception, paired: Paired, before: tuple[list[str], list[str]] | None = None
) -> NoReturn:
    """Raise the core's refusal ``err`` of ``paired`` as :func:`score_paired` words it
    (``before``: where the rows read before ``paired`` are, for a negative index)."""
    message = str(err)
    if _ROW.search(message) or re.search(
        r"`(predictions|references)`|\bpredictions\b.*\breferences\b", message
    ):
        raise InputError(_locate(message, paired, before)) from err
    raise UsageError(message) from err


def per_sample_rows(result: MetricResult, paired: Paired, offset: int = 0) -> Iterator[dict[str, Any]]:
    """One dict per scored item from the result's :meth:`per_item` records: ``index``
    (plus ``offset``, for a batch of a stream), ``id`` (the record's, else the one the rows
    were matched by), ``prediction``, the item's ``references``, ``score`` and the metric's
    extras, and the ``closest`` gold where the metric has one."""
    return _sample_rows(result.per_item(), paired.ids, paired.references, offset)


def _sample_rows(
    records: list[dict[str, Any]], ids: list[Any] | None, references: list[Any], offset: int
) -> Iterator[dict[str, Any]]:
    """:func:`per_sample_rows` of ``records`` (``ids``, ``references``: the rows')."""
    for record in records:
        i = record.pop("index")
        row: dict[str, Any] = {"index": i + offset}
        item_id = record.pop("id")
        if item_id is None and ids is not None:
            item_id = ids[i]
        if item_id is not None:
            row["id"] = item_id
        row["prediction"] = record.pop("prediction")
        row["references"] = references[i]
        closest = record.pop("closest")
        row.update(record)
        if closest is not None:
            row["closest"] = closest
        yield row


def dumps(value: Any, **kwargs: Any) -> str:
    """JSON text that can always be written as UTF-8: non-ASCII characters stay as they are,
    but a lone surrogate (which the metrics accept in a str, and UTF-8 cannot encode) is
    written as its escape (:func:`~metricore.core.structured.escape_surrogates`); non-finite
    numbers are ``"nan"``, ``"inf"``, ``"-inf"`` (:func:`~metricore.core.structured.jsonable`).
    Without ``kwargs`` (``indent``), orjson writes it (compact) when it can vouch for the
    same JSON values; anything else goes to the standard library."""
    if not kwargs and _fast_dumps is not None:
        try:
            text = _fast_dumps(value)
        except TypeError:  # a lone surrogate, a number past 64 bits, a numpy value: below
            pass
        else:
            # orjson writes NaN and infinities as null: text without "null" had none
            if b"null" not in text:
                return text.decode("utf-8")
    return escape_surrogates(json.dumps(jsonable(value), ensure_ascii=False, **kwargs))


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


def add_metric_arguments(p: argparse.ArgumentParser) -> None:
    """``--metric`` and ``--config`` (the subcommands that score a registry metric)."""
    p.add_argument("--metric", required=True, choices=registry.names())
    p.add_argument(
        "--config",
        "--variant",
        dest="config",
        default=None,
        help="metric config (variant); default: the metric's first",
    )


def add_option_argument(p: argparse.ArgumentParser) -> None:
    """The repeatable ``--option NAME=VALUE`` (a metric's keyword options)."""
    p.add_argument(
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="NAME=VALUE",
        help="metric option, e.g. threshold=0.4 (repeatable)",
    )


def _add_score(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a predictions file against a references file (JSON result on stdout)",
        description="Score predictions against references; JSON result on stdout. Rows are read, "
        "paired and scored in batches; metrics with per-item statistics (ANLS, 1-NED, METEOR, CIDEr, "
        "COCO caption) keep a few numbers per row, the others hold their rows until the end. On an "
        "error no per-sample file is written. "
        "Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input data, 4 unreadable or "
        "unwritable file, 5 missing resource.",
    )
    add_metric_arguments(p)
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
    add_option_argument(p)
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
    p.add_argument(
        "--batch-rows",
        type=_positive,
        default=BATCH_ROWS,
        metavar="N",
        help=f"rows read and scored at a time (default {BATCH_ROWS:,})",
    )
    p.add_argument(
        "--spill-rows",
        type=_positive,
        default=SPILL_ROWS,
        metavar="N",
        help="rows of each file held in memory while pairing files whose ids are in different orders, "
        "and rows whose per-item statistics are held; past that, both spill to temporary files "
        f"(default {SPILL_ROWS:,})",
    )
    p.set_defaults(func=_score)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _score(args: argparse.Namespace) -> int:
    fields = FieldNames(
        prediction=tuple(args.prediction_field or FieldNames.prediction),
        references=tuple(args.reference_field or FieldNames.references),
        id=tuple(args.id_field or FieldNames.id),
    )
    options = dict(args.option)
    run = _ScoreRun(args, fields)
    try:
        spec = row_spec(args.metric)
        bound = bind(spec, args.config, options)
        with contextlib.ExitStack() as stack:
            run.open(stack, bound)
            if args.per_sample is not None:
                write_atomic(args.per_sample, run.per_sample_chunks())
            else:
                for _ in run.per_sample_chunks():
                    pass
        result = run.result
    except UsageError as err:
        return fail(f"{err}", EXIT_USAGE)
    except InputError as err:
        return fail(f"{err}", EXIT_DATA)
    except (WordNetNotFoundError, ImportError) as err:  # the message says how to install it
        return fail(f"{err}", EXIT_RESOURCE)
    except InputFileError as err:
        return fail(f"{err}", EXIT_IO)
    except OSError as err:
        if args.per_sample is None:
            return fail(f"{err}", EXIT_IO)
        return fail(f"--per-sample: cannot write {str(args.per_sample)!r} ({err.strerror or err})", EXIT_IO)
    except ValueError as err:  # bad --format / extension
        return fail(f"{err}", EXIT_USAGE)

    out = {
        "metric": spec.name,
        "config": bound.config.name,
        "n": run.n,
        "matched_by": "id" if run.by_id else "position",
        "options": options,
    }
    # the per-item numbers go to --per-sample, not into the summary
    out.update((k, v) for k, v in result.as_dict().items() if k not in ("scores", "columns"))
    print(dumps(out, indent=None if args.indent < 0 else args.indent))
    return EXIT_OK


class _ScoreRun:
    """One ``metricore score`` run, as a stream: both files are read in batches
    (:func:`~metricore.core.records.read_rows`), paired by id or position
    (:func:`~metricore.core.records.pair_rows`, spilling to disk past a bound) and scored
    batch by batch (:class:`~metricore.core.stream.StreamScorer`); each batch's per-sample rows
    are written as it is scored, or after the last batch when the metric's per-item numbers
    come at the end (:class:`~metricore.core.stream.Deferred`: the batch's rows wait in a
    temporary file). A metric whose spec declares no stream (or input its stream cannot take
    in batches) has its rows held and scored at the end, as one call."""

    def __init__(self, args: argparse.Namespace, fields: FieldNames) -> None:
        self.args, self.fields = args, fields
        self.n = 0
        self.by_id = False
        self.result: Any = None

    def open(self, stack: contextlib.ExitStack, bound: BoundMetric) -> None:
        self.bound = bound
        self.scorer = StreamScorer(bound, spill_rows=self.args.spill_rows)
        self.paths: dict[str, tuple[str, str | None]] = {}
        folder = None
        for flag, path in (("--predictions", self.args.predictions), ("--references", self.args.references)):
            if path is None:
                continue
            if str(path) == "-":
                # standard input is copied once, so that it can be read again (the exact
                # diagnosis of ids that do not pair reads both sides twice)
                if folder is None:
                    folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="metricore-stdin-"))
                copy = Path(folder) / f"{flag[2:]}.jsonl"
                with open(copy, "wb") as handle:
                    shutil.copyfileobj(sys.stdin.buffer, handle, 1 << 20)
                self.paths[flag] = (str(copy), "<stdin>")
            else:
                self.paths[flag] = (str(path), None)
        if "--references" not in self.paths:
            self.paths["--references"] = self.paths["--predictions"]
        self.bar = progress_bar(self.args.progress, unit=" rows", desc=f"scoring {bound.spec.name}")
        if self.bar is not None:
            stack.callback(self.bar.close)

    def _side(self, flag: str, role: str) -> Iterator[Rows]:
        path, name = self.paths[flag]
        fmt = self.args.format or ("jsonl" if name == "<stdin>" else None)
        rows = read_rows(path, role, self.fields, fmt=fmt, json_cells=self.bound.config.json_cells, name=name)
        try:
            yield from rows
        except FileNotFoundError:
            raise InputFileError(f"{flag}: no such file {str(path)!r}") from None
        except OSError as err:
            raise InputFileError(f"{flag}: cannot read {str(path)!r} ({err.strerror or err})") from None

    def _sides(self) -> tuple[Iterator[Rows], Iterator[Rows]]:
        return self._side("--predictions", "prediction"), self._side("--references", "references")

    def per_sample_chunks(self) -> Iterator[str]:
        """Score every batch; yield its per-sample JSONL text (streaming metrics), or all of it
        at the end (held rows, and metrics whose per-item numbers depend on every row).
        Sets :attr:`result` (without per-item columns when they were written as it went)."""
        held_ids: list[Any] = []
        held_where: tuple[list[str], list[str]] = ([], [])
        # where the rows that wait for the next batch are (Stream.hold), for its errors
        waiting_where: tuple[list[str], list[str]] = ([], [])
        per_sample = self.args.per_sample is not None
        with contextlib.ExitStack() as files:
            # a deferred metric's rows wait on disk for their numbers (texts are not kept)
            rows_file = (
                files.enter_context(tempfile.TemporaryFile(prefix="metricore-rows-")) if per_sample else None
            )
            for paired in pair_rows(*self._sides(), reopen=self._sides, spill_rows=self.args.spill_rows):
                self.by_id = paired.ids is not None
                offset = self.n
                self.n += len(paired.predictions)
                try:
                    batch = self.scorer.add(paired.predictions, paired.references)
                except (TypeError, ValueError) as err:
                    raise _located(err, paired, offset, waiting_where) from err
                waiting_where = _last_rows(waiting_where, paired, self.scorer.waiting)
                if self.bar is not None:
                    self.bar.update(len(paired.predictions))
                if batch is None:
                    held_ids.extend(paired.ids or ())
                    held_where[0].extend(paired.prediction_where)
                    held_where[1].extend(paired.reference_where)
                elif isinstance(batch, Deferred):
                    if rows_file is not None:
                        pickle.dump(
                            (batch, paired.ids, paired.references), rows_file, pickle.HIGHEST_PROTOCOL
                        )
                elif per_sample:
                    yield "".join(dumps(row) + "\n" for row in per_sample_rows(batch, paired, offset))
            if self.scorer.deferred and self.n:
                yield from self._deferred_rows(rows_file, waiting_where)
                return
        if not self.scorer.held and self.n:
            self.result = self.scorer.finish(columns=False)
            return
        predictions, references = self.scorer.held_rows()
        whole = Paired(predictions, references, held_ids if self.by_id else None, *held_where)
        self.result = score_paired(self.bound, whole)
        if per_sample:
            for row in per_sample_rows(self.result, whole):
                yield dumps(row) + "\n"

    def _deferred_rows(
        self, rows_file: IO[bytes] | None, waiting_where: tuple[list[str], list[str]]
    ) -> Iterator[str]:
        """The result of a metric whose per-item numbers came at the end, and (``rows_file``:
        the batches written as they were read) its per-sample rows, batch by batch."""
        try:
            self.result = self.scorer.finish(columns=rows_file is not None)
        except (TypeError, ValueError) as err:  # a row that waited for a batch that never came
            raise _located(err, Paired([], [], None, [], []), self.n, waiting_where) from err
        if rows_file is None:
            return
        rows_file.seek(0)
        while True:
            try:
                batch, ids, references = pickle.load(rows_file)
            except EOFError:
                return
            rows = _sample_rows(batch.per_item(self.result), ids, references, batch.start)
            yield "".join(dumps(row) + "\n" for row in rows)


def _last_rows(
    before: tuple[list[str], list[str]], paired: Paired, count: int
) -> tuple[list[str], list[str]]:
    """Where the last ``count`` rows of ``before`` and then ``paired`` are."""
    if not count:
        return [], []

    def last(earlier: list[str], where: Sequence[str]) -> list[str]:
        return (earlier + list(where[max(0, len(where) - count) :]))[-count:]

    return last(before[0], paired.prediction_where), last(before[1], paired.reference_where)


def _located(
    err: Exception, paired: Paired, offset: int, before: tuple[list[str], list[str]] | None = None
) -> Exception:
    """A core's refusal of a batch row, as :func:`score_paired` words it for the whole input:
    :class:`InputError` naming the file and line (the row's index in the whole input), else
    :class:`UsageError`. ``before``: where the rows that waited for this batch are."""
    try:
        score_paired_error(err, paired, before)
    except InputError as located:
        return InputError(shift_indices(str(located), offset))
    except UsageError as usage:
        return usage
    return err


class InputFileError(OSError):
    """An input file that cannot be read; the message names the argument that gave it."""


def read_input(flag: str, path: str | Path, **read: Any) -> list[Any]:
    """:func:`~metricore.core.records.read_records` of the file given by ``flag`` (e.g.
    ``--predictions``); :class:`InputFileError` naming ``flag`` when it cannot be read."""
    try:
        return read_records(path, **read)
    except FileNotFoundError:
        raise InputFileError(f"{flag}: no such file {str(path)!r}") from None
    except OSError as err:
        raise InputFileError(f"{flag}: cannot read {str(path)!r} ({err.strerror or err})") from None


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
    parser.add_argument("--version", action="version", version=version_text())
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
    try:
        code = int(args.func(args))
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader closed standard output early (``metricore score ... | head -0``): stop
        # quietly. Standard output now goes nowhere, so the interpreter's final flush does
        # not raise again at exit.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_IO
    return code


if __name__ == "__main__":
    sys.exit(main())
