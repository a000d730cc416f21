"""Reading prediction and reference files: the one reader of the command line (``metricore
score``, ``compare``) and the Spaces (an uploaded file, pasted JSONL).

Formats, chosen by the file's extension or given explicitly (``fmt``):

``jsonl`` (``.jsonl``, ``.ndjson``; also standard input as ``-``)
    One JSON value per line; blank lines are skipped. A line is either a **bare value** (the
    prediction, or the item's references: a str, a list of gold alternatives, or any
    structure the metric takes) or a **record**: an object with a ``prediction`` and/or
    ``references`` (alias ``reference``) field, and optionally an ``id``. An object with
    neither field is a bare value (so HF SQuAD rows ``{"id", "prediction_text"}``, DUDE
    ``{"answers", "answer_type"}`` golds and QuAC ``{"dialog_id", "answers"}`` golds pass to
    the metric whole). Tuples (ANLS* alternatives) are written ``{"__tuple__": [...]}``
    (:mod:`metricore.core.structured`).
``json`` (``.json``)
    A list (each element read as a JSONL line), an object ``{"data": [...]}``, or an object
    mapping each id to its value or record (the SQuAD submission layout ``{"qid": "answer"}``).
``csv`` (``.csv``; ``.tsv`` is tab-separated)
    A header row naming the ``prediction``/``references``/``id`` columns. A references cell
    holding a JSON list (``["Coca Cola", "Coca Cola Company"]``) gives several gold answers,
    other text one answer. With ``json_cells`` (structured variants) every cell is read as
    JSON when it parses and as text otherwise, as the Spaces do.

The field names can be changed (:class:`FieldNames`), e.g. for DocVQA files
``FieldNames(prediction=("answer",), references=("answers",), id=("questionId",))``.

Ids: when every row of both files has an id, predictions are matched to references by id
(the result follows the reference order; a missing, extra or repeated id is an error);
when no row has one, rows pair by position. Every error is an :class:`InputError` naming the
file and line (JSONL, CSV) or item (JSON).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metricore.core.pairing import IdMismatch, pair_ids
from metricore.core.structured import DuplicateKeyError, from_json, parse_text_cell

__all__ = [
    "FORMATS",
    "InputError",
    "Record",
    "FieldNames",
    "Column",
    "Paired",
    "detect_format",
    "read_records",
    "read_text_records",
    "column",
    "pair_columns",
    "progress_bar",
]

FORMATS = ("jsonl", "json", "csv", "tsv")
_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}
STDIN = "-"


class InputError(ValueError):
    """Malformed or inconsistent input data; the message names the file and line or item."""


@dataclass(frozen=True)
class Record:
    """One parsed row: ``value`` is the JSON value of a JSONL line or JSON item, or the
    ``{column: cell}`` dict of a CSV row; ``key`` is the id of a JSON id -> value mapping."""

    value: Any
    where: str
    key: str | None = None
    csv_row: bool = False


@dataclass(frozen=True)
class FieldNames:
    """The field (or CSV column) names of a record; the first present name is used."""

    prediction: tuple[str, ...] = ("prediction",)
    references: tuple[str, ...] = ("references", "reference")
    id: tuple[str, ...] = ("id",)

    def of(self, role: str) -> tuple[str, ...]:
        return {"prediction": self.prediction, "references": self.references}[role]


@dataclass(frozen=True)
class Column:
    """One side's values, their ids (``None`` when no row has one) and their locations."""

    values: list[Any]
    ids: list[str] | None
    where: list[str]


@dataclass(frozen=True)
class Paired:
    """Aligned predictions and references, with the ids and the source location of each row."""

    predictions: list[Any]
    references: list[Any]
    ids: list[str] | None
    prediction_where: list[str]
    reference_where: list[str]


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------


def progress_bar(enabled: bool | None, **kwargs: Any) -> Any:
    """A ``tqdm`` bar on stderr, or ``None``. ``enabled=None``: only when stderr is a
    terminal. The bar appears only after half a second, so short inputs print nothing."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional: no bar, same result
        return None
    return tqdm(**{"file": sys.stderr, "delay": 0.5, "leave": False, "dynamic_ncols": True, **kwargs})


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def detect_format(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """``fmt`` if given, else the format of the extension; standard input is JSONL."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
        return fmt
    if str(path) == STDIN:
        return "jsonl"
    found = _EXTENSIONS.get(Path(path).suffix.lower())
    if found is None:
        raise ValueError(
            f"{path}: cannot tell the format from the extension {Path(path).suffix!r}; "
            f"use .jsonl, .json, .csv or .tsv, or give --format"
        )
    return found


def _lines(path: str | os.PathLike[str], progress: bool | None) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` pairs, with a byte-count progress bar on long files."""
    if str(path) == STDIN:
        yield from enumerate(sys.stdin.buffer, 1)
        return
    size = os.path.getsize(path)
    bar = progress_bar(progress, total=size, unit="B", unit_scale=True, desc=f"reading {Path(path).name}")
    with open(path, "rb") as handle:
        try:
            for number, raw in enumerate(handle, 1):
                if bar is not None:
                    bar.update(len(raw))
                yield number, raw
        finally:
            if bar is not None:
                bar.close()


def _decode(raw: bytes, where: str, first: bool) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{where}: not UTF-8 text (byte {err.start + 1})") from None
    return text.lstrip("\ufeff") if first else text


def _parse_json(text: str, where: str) -> Any:
    try:
        return from_json(text, where)
    except DuplicateKeyError as err:
        raise InputError(f"{where}: the key {err.key!r} repeats in one object") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None
    except ValueError as err:  # nested deeper than MAX_DEPTH: the message names the limit
        raise InputError(f"{where}: {err}") from None


def _read_jsonl(path: str | os.PathLike[str], name: str, progress: bool | None) -> list[Record]:
    return _jsonl_records(_lines(path, progress), name)


def _jsonl_records(lines: Iterable[tuple[int, bytes]], name: str) -> list[Record]:
    out = []
    for number, raw in lines:
        where = f"{name} line {number}"
        text = _decode(raw, where, number == 1)
        text = text.strip()
        if text:
            out.append(Record(_parse_json(text, where), where))
    return out


def _read_json(path: str | os.PathLike[str], name: str) -> list[Record]:
    text = _decode(_read_bytes(path), name, True)
    try:
        data = from_json(text, name)
    except DuplicateKeyError as err:
        # json.loads would keep the last value: a repeated id would score the wrong answer
        raise InputError(
            f"{name}: the id or key {err.key!r} repeats (each id, and each key of an object, must "
            "appear once)"
        ) from None
    except json.JSONDecodeError as err:
        where = f"{name} line {err.lineno} column {err.colno}"
        raise InputError(f"{where}: not valid JSON ({err.msg})") from None
    except ValueError as err:  # nested deeper than MAX_DEPTH: the message names the limit
        raise InputError(f"{name}: {err}") from None
    if isinstance(data, dict) and set(data) == {"data"} and isinstance(data["data"], list):
        data = data["data"]
    elif (
        isinstance(data, dict)
        and "data" in data
        and isinstance(data["data"], list)
        and all(not isinstance(v, (dict, list)) for k, v in data.items() if k != "data")
    ):
        # a dataset file with metadata beside its rows (DocVQA: dataset_name, dataset_version)
        data = data["data"]
    if isinstance(data, list):
        return [Record(v, f"{name} item {i}") for i, v in enumerate(data)]
    if isinstance(data, dict):
        return [Record(v, f"{name} key {k!r}", key=k) for k, v in data.items()]
    raise InputError(
        f'{name}: a .json file must hold a list, {{"data": [...]}} or an id -> value object, '
        f"got {type(data).__name__}"
    )


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    if str(path) == STDIN:
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _read_csv(
    path: str | os.PathLike[str],
    name: str,
    delimiter: str,
    fields: FieldNames,
    json_cells: bool,
    progress: bool | None,
) -> list[Record]:
    text = _decode(_read_bytes(path), name, True)
    return _csv_lines(text, name, delimiter, fields, json_cells, progress)


def _csv_lines(
    text: str,
    name: str,
    delimiter: str,
    fields: FieldNames,
    json_cells: bool,
    progress: bool | None = False,
) -> list[Record]:
    bar = progress_bar(progress, total=text.count("\n"), unit=" lines", desc=f"reading {Path(name).name}")
    try:
        return _csv_records(text, name, delimiter, fields, json_cells, bar)
    finally:
        if bar is not None:
            bar.close()


def _csv_records(
    text: str, name: str, delimiter: str, fields: FieldNames, json_cells: bool, bar: Any
) -> list[Record]:
    # strict: a quote left open at the end of the file is an error, not a last cell that
    # silently swallows every following row
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as err:
        raise InputError(f"{name} line 1: malformed CSV header ({err})") from None
    if not header:
        raise InputError(f"{name}: empty file (a CSV needs a header row naming its columns)")
    header = [h.strip() for h in header]
    if bar is not None:
        bar.update(reader.line_num)
    list_columns = set(fields.references)
    out: list[Record] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            if "unexpected end of data" in str(err):
                raise InputError(
                    f"{name} line {start}: a quoted cell starting on this line is never closed "
                    "(unterminated '\"')"
                ) from None
            raise InputError(f"{name} line {reader.line_num}: malformed CSV ({err})") from None
        where = f"{name} line {start}"
        if bar is not None:
            bar.update(reader.line_num + 1 - start)
        start = reader.line_num + 1
        if not cells or (len(cells) == 1 < len(header) and not cells[0].strip()):
            continue
        if len(cells) != len(header):
            raise InputError(f"{where}: {len(cells)} cells, but the header has {len(header)} columns")
        try:
            row = {
                h: parse_text_cell(
                    c, structured=json_cells and h not in fields.id, list_cell=h in list_columns
                )
                for h, c in zip(header, cells)
            }
        except DuplicateKeyError as err:
            raise InputError(f"{where}: the key {err.key!r} repeats in one object") from None
        except ValueError as err:  # a cell nested deeper than MAX_DEPTH
            raise InputError(f"{where}: {err}") from None
        out.append(Record(row, where, csv_row=True))
    return out


def read_records(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    fields: FieldNames = FieldNames(),
    json_cells: bool = False,
    progress: bool | None = False,
) -> list[Record]:
    """Every row of a file (see the module docstring); ``progress=None`` shows a bar on
    long files when stderr is a terminal. ``OSError`` when the file cannot be read."""
    kind = detect_format(path, fmt)
    name = "<stdin>" if str(path) == STDIN else str(path)
    if kind == "jsonl":
        return _read_jsonl(path, name, progress)
    if kind == "json":
        return _read_json(path, name)
    return _read_csv(path, name, "\t" if kind == "tsv" else ",", fields, json_cells, progress)


def read_text_records(
    text: str,
    *,
    fmt: str = "jsonl",
    name: str = "text",
    fields: FieldNames = FieldNames(),
    json_cells: bool = False,
) -> list[Record]:
    """The rows of ``text`` in format ``fmt`` (``jsonl``, ``csv``, ``tsv``), as
    :func:`read_records` reads a file of that text (pasted JSONL in a Space)."""
    if fmt not in FORMATS or fmt == "json":
        raise ValueError(f"unknown text format {fmt!r}; allowed: jsonl, csv, tsv")
    if fmt == "jsonl":
        return _jsonl_records(
            enumerate(text.encode("utf-8", "surrogatepass").splitlines(keepends=True), 1), name
        )
    return _csv_lines(text, name, "\t" if fmt == "tsv" else ",", fields, json_cells)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Columns and pairing
# --------------------------------------------------------------------------------------------


def _field(value: dict[str, Any], names: Sequence[str]) -> str | None:
    return next((n for n in names if n in value), None)


def _id_text(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # DocVQA's questionId is a number; the other file may write it as text
    raise InputError(f"{where}: the id must be a str or an int, got {type(value).__name__} ({value!r:.60})")


def column(
    records: Iterable[Record], role: str, fields: FieldNames = FieldNames(), *, records_only: bool = False
) -> Column:
    """The ``role`` side (``"prediction"`` or ``"references"``) of parsed rows.

    A record (an object with a prediction or references field, every CSV row) gives its
    ``role`` field, which it must have; a bare value is used whole (``records_only``: refused,
    for a source that must hold both sides in each row).
    """
    names = fields.of(role)
    record_names = (*fields.prediction, *fields.references)
    values: list[Any] = []
    ids: list[str | None] = []
    where: list[str] = []
    for rec in records:
        value, rid = rec.value, rec.key
        if isinstance(value, dict) and (rec.csv_row or _field(value, record_names) is not None):
            name = _field(value, names)
            if name is None:
                raise InputError(
                    f"{rec.where}: no {' or '.join(repr(n) for n in names)} "
                    f"{'column' if rec.csv_row else 'field'} (it has {', '.join(map(repr, value)) or 'none'})"
                )
            id_name = _field(value, fields.id)
            if id_name is not None and value[id_name] not in ("", None):
                own = _id_text(value[id_name], rec.where)
                if rid is not None and own != rid:
                    raise InputError(
                        f"{rec.where}: its {id_name!r} field {own!r} differs from its key {rid!r}"
                    )
                rid = own
            value = value[name]
        elif records_only:
            raise InputError(
                f"{rec.where}: expected an object {{{', '.join(repr(n) for n in record_names[:2])}: ...}}, "
                f"got {type(value).__name__}"
            )
        values.append(value)
        ids.append(rid)
        where.append(rec.where)
    with_id = [i for i, x in enumerate(ids) if x is not None]
    if with_id and len(with_id) != len(ids):
        missing = next(i for i, x in enumerate(ids) if x is None)
        raise InputError(
            f"{where[missing]}: has no id, but {where[with_id[0]]} has one; give every row an id or none"
        )
    return Column(values, [x for x in ids if x is not None] if with_id else None, where)


def pair_columns(predictions: Column, references: Column) -> Paired:
    """Align the two sides: by id when both have ids, by position when neither has."""
    if predictions.ids is not None and references.ids is not None:
        try:
            order = pair_ids(predictions.ids, references.ids)
        except IdMismatch as err:
            message = err.describe(
                where_left=predictions.where.__getitem__, where_right=references.where.__getitem__
            )
            raise InputError(message) from None
        return Paired(
            [predictions.values[i] for i in order],
            list(references.values),
            list(references.ids),
            [predictions.where[i] for i in order],
            list(references.where),
        )
    if (predictions.ids is None) != (references.ids is None):
        has, lacks = (predictions, references) if predictions.ids is not None else (references, predictions)
        raise InputError(
            f"{has.where[0]} has ids but {lacks.where[0] if lacks.where else 'the other file'} has none; "
            "give ids on both sides (matched by id) or on neither (paired by position)"
        )
    n, m = len(predictions.values), len(references.values)
    if n != m:
        raise InputError(
            f"{n} predictions but {m} references (rows pair by position when there are no ids); "
            f"last prediction: {predictions.where[-1] if n else 'none'}, "
            f"last reference: {references.where[-1] if m else 'none'}"
        )
    return Paired(
        list(predictions.values),
        list(references.values),
        None,
        list(predictions.where),
        list(references.where),
    )
