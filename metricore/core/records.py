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
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metricore.core.pairing import SPILL_ROWS, Batch, IdMismatch, pair_ids, pair_stream
from metricore.core.structured import MAX_DEPTH, TUPLE_TAG, DuplicateKeyError, from_json, parse_text_cell

try:  # the fast JSON parser; every line it cannot vouch for goes to the standard library's
    import orjson

    _fast_loads: Callable[[bytes], Any] | None = orjson.loads
    _FAST_ERROR: type[Exception] = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - orjson is a dependency; the pure path is tested
    _fast_loads = None
    _FAST_ERROR = ValueError

__all__ = [
    "FORMATS",
    "InputError",
    "Record",
    "FieldNames",
    "Column",
    "Paired",
    "detect_format",
    "Rows",
    "read_records",
    "read_text_records",
    "read_rows",
    "column",
    "pair_columns",
    "pair_rows",
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
    with open(path, "rb", buffering=1 << 20) as handle:
        try:
            if bar is None:
                yield from enumerate(handle, 1)
                return
            for number, raw in enumerate(handle, 1):
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


#: a blank line (no value)
_SKIP: Any = object()
_BOM = b"\xef\xbb\xbf"
_KEY_COLON = re.compile(rb'"\s*:')


def _fast_keys(value: Any) -> int:
    """How many object keys a value the fast parser decoded holds, or -1 when the standard
    library must decode the line instead: a float (orjson reads an integer past 64 bits as a
    float, the standard library as an int), a tagged tuple (``{"__tuple__": ...}``), or nesting
    deeper than :data:`MAX_DEPTH` (whose message the standard path words)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return 0
    if kind is float:
        return -1
    if kind is dict and TUPLE_TAG not in value:
        # the common record: values that are str or lists of str, read without the walk
        for child in value.values():
            if type(child) is str:
                continue
            if type(child) is list:
                for x in child:
                    if type(x) is not str:
                        break
                else:
                    continue
            break
        else:
            return len(value)
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return -1
        if type(node) is dict:
            if TUPLE_TAG in node:
                return -1
            keys += len(node)
            children: Iterable[Any] = node.values()
        else:
            children = node
        for child in children:
            kind = type(child)
            if kind is str or kind is int or kind is bool or child is None:
                continue
            if kind is float:
                return -1
            stack.append((child, depth + 1))
    return keys


def _parse_line(raw: bytes, number: int, name: str) -> Any:
    """The value of JSONL line ``number`` (``_SKIP`` for a blank line); :class:`InputError`
    naming the file and line.

    orjson decodes the line when it can vouch for the result being the standard library's:
    the value holds no float and no tagged tuple, and no object key can repeat, which holds
    when the line has as many ``"<spaces>:`` as the decoded objects have keys (each key in the
    text is followed by one, so a dropped repeated key leaves one too many). Every other line,
    and every line when orjson is not installed, goes to the standard library's strict decoder
    (:func:`~metricore.core.structured.from_json`), whose messages the errors keep."""
    if _fast_loads is not None:
        text = raw.strip()
        if number == 1 and text.startswith(_BOM):
            text = text[3:]
        if not text:
            return _SKIP
        try:
            value = _fast_loads(text)
        except _FAST_ERROR:
            pass
        else:
            keys = _fast_keys(value)
            if keys == 0 or (
                keys > 0 and (text.count(b":") == keys or len(_KEY_COLON.findall(text)) == keys)
            ):
                return value
    where = f"{name} line {number}"
    decoded = _decode(raw, where, number == 1).strip()
    if not decoded:
        return _SKIP
    return _parse_json(decoded, where)


def _jsonl_values(lines: Iterable[tuple[int, bytes]], name: str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of every non-blank line."""
    parse = _parse_line
    for number, raw in lines:
        value = parse(raw, number, name)
        if value is not _SKIP:
            yield number, value


def _read_jsonl(path: str | os.PathLike[str], name: str, progress: bool | None) -> list[Record]:
    return _jsonl_records(_lines(path, progress), name)


def _jsonl_records(lines: Iterable[tuple[int, bytes]], name: str) -> list[Record]:
    return [Record(value, f"{name} line {number}") for number, value in _jsonl_values(lines, name)]


def _json_data(path: str | os.PathLike[str], name: str) -> list[Record]:
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


_read_json = _json_data


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    if str(path) == STDIN:
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _bar_enabled(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


def _csv_file_records(
    path: str | os.PathLike[str],
    name: str,
    delimiter: str,
    fields: FieldNames,
    json_cells: bool,
    progress: bool | None,
) -> Iterator[Record]:
    """The rows of a CSV file, read as a stream (universal newlines, as ``newline=""``)."""
    total = None
    if str(path) != STDIN and _bar_enabled(progress):
        with open(path, "rb") as handle:
            total = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    binary = sys.stdin.buffer if str(path) == STDIN else open(path, "rb")  # noqa: SIM115
    text = io.TextIOWrapper(binary, encoding="utf-8", newline="")
    bar = progress_bar(progress, total=total, unit=" lines", desc=f"reading {Path(name).name}")

    def lines() -> Iterator[str]:
        first = True
        for line in text:
            if first:
                line, first = line.lstrip("\ufeff"), False
            yield line

    try:
        yield from _csv_records(lines(), name, delimiter, fields, json_cells, bar)
    except UnicodeDecodeError:
        # the decoder's offset is within its buffer: the whole file's gives the byte
        if str(path) != STDIN:
            _decode(Path(path).read_bytes(), name, True)
        raise InputError(f"{name}: not UTF-8 text") from None
    finally:
        if bar is not None:
            bar.close()
        text.detach()
        if binary is not sys.stdin.buffer:
            binary.close()


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
        return list(_csv_records(io.StringIO(text, newline=""), name, delimiter, fields, json_cells, bar))
    finally:
        if bar is not None:
            bar.close()


def _csv_records(
    lines: Iterable[str], name: str, delimiter: str, fields: FieldNames, json_cells: bool, bar: Any
) -> Iterator[Record]:
    # strict: a quote left open at the end of the file is an error, not a last cell that
    # silently swallows every following row
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
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
        yield Record(row, where, csv_row=True)


def read_records(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    fields: FieldNames = FieldNames(),
    json_cells: bool = False,
    progress: bool | None = False,
) -> list[Record]:
    """Every row of a file (see the module docstring); ``progress=None`` shows a bar on
    long files when stderr is a terminal. ``OSError`` when the file cannot be read.
    (:func:`read_rows` reads one side of a file as a stream of batches.)"""
    kind = detect_format(path, fmt)
    name = "<stdin>" if str(path) == STDIN else str(path)
    if kind == "jsonl":
        return _read_jsonl(path, name, progress)
    if kind == "json":
        return _read_json(path, name)
    return list(_csv_file_records(path, name, "\t" if kind == "tsv" else ",", fields, json_cells, progress))


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


class _Side:
    """Takes the ``role`` side of rows one at a time, as :func:`column` and :func:`read_rows`
    do: a record (an object with a prediction or references field, every CSV row) gives its
    ``role`` field, which it must have; a bare value is used whole (``records_only``: refused).
    Remembers the first row with an id and the first without, which may not both exist."""

    def __init__(self, role: str, fields: FieldNames, records_only: bool) -> None:
        self.names = fields.of(role)
        self.record_names = (*fields.prediction, *fields.references)
        self.id_names = fields.id
        self.records_only = records_only
        self.with_id: str | None = None
        self.without_id: str | None = None

    def take(self, value: Any, key: str | None, csv_row: bool, where: Callable[[], str]) -> tuple[Any, Any]:
        """``(value, id or None)`` of one row; ``where()`` names the row in errors."""
        rid = key
        if isinstance(value, dict) and (csv_row or _field(value, self.record_names) is not None):
            name = _field(value, self.names)
            if name is None:
                raise InputError(
                    f"{where()}: no {' or '.join(repr(n) for n in self.names)} "
                    f"{'column' if csv_row else 'field'} (it has {', '.join(map(repr, value)) or 'none'})"
                )
            id_name = _field(value, self.id_names)
            if id_name is not None and value[id_name] not in ("", None):
                own = value[id_name]
                if type(own) is not str:
                    own = _id_text(own, where())
                if rid is not None and own != rid:
                    raise InputError(f"{where()}: its {id_name!r} field {own!r} differs from its key {rid!r}")
                rid = own
            value = value[name]
        elif self.records_only:
            raise InputError(
                f"{where()}: expected an object {{{', '.join(repr(n) for n in self.record_names[:2])}: ...}}, "
                f"got {type(value).__name__}"
            )
        if rid is None:
            if self.without_id is None:
                self.without_id = where()
                self._check_ids()
        elif self.with_id is None:
            self.with_id = where()
            self._check_ids()
        return value, rid

    def _check_ids(self) -> None:
        if self.with_id is not None and self.without_id is not None:
            raise InputError(
                f"{self.without_id}: has no id, but {self.with_id} has one; give every row an id or none"
            )


def column(
    records: Iterable[Record], role: str, fields: FieldNames = FieldNames(), *, records_only: bool = False
) -> Column:
    """The ``role`` side (``"prediction"`` or ``"references"``) of parsed rows.

    A record (an object with a prediction or references field, every CSV row) gives its
    ``role`` field, which it must have; a bare value is used whole (``records_only``: refused,
    for a source that must hold both sides in each row).
    """
    side = _Side(role, fields, records_only)
    values: list[Any] = []
    ids: list[Any] = []
    where: list[str] = []
    for rec in records:
        value, rid = side.take(rec.value, rec.key, rec.csv_row, lambda rec=rec: rec.where)  # type: ignore[misc]
        values.append(value)
        ids.append(rid)
        where.append(rec.where)
    return Column(values, ids if side.with_id is not None else None, where)


# --------------------------------------------------------------------------------------------
# Streaming one side
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """A batch of one side of a file, as :func:`read_rows` streams it: the values, their ids
    (``None`` when the rows have none) and where each row is (``where[i]``, e.g.
    ``"p.jsonl line 7"``)."""

    values: list[Any]
    ids: list[str] | None
    where: Sequence[str]


class LineNames(Sequence[str]):
    """``where[i]`` of rows read from lines: ``f"{name} line {numbers[i]}"``, made on request."""

    def __init__(self, name: str, numbers: Sequence[int]) -> None:
        self.name, self.numbers = name, numbers

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return LineNames(self.name, self.numbers[i])
        return f"{self.name} line {self.numbers[i]}"

    def line(self, i: int) -> int:
        return self.numbers[i]


#: rows per batch of :func:`read_rows`
BATCH_ROWS = 50_000


def read_rows(
    path: str | os.PathLike[str],
    role: str,
    fields: FieldNames = FieldNames(),
    *,
    fmt: str | None = None,
    json_cells: bool = False,
    records_only: bool = False,
    batch_rows: int = BATCH_ROWS,
    progress: bool | None = False,
    name: str | None = None,
) -> Iterator[Rows]:
    """The ``role`` side of a file (as :func:`column` takes it from :func:`read_records`), in
    batches of ``batch_rows`` rows, read as a stream: JSONL and CSV hold one batch in memory
    at a time; a ``.json`` file is one document, read whole. Errors as :func:`read_records`
    and :func:`column` raise them, for the first bad row met. ``name``: how messages name the
    file (default: its path)."""
    kind = detect_format(path, fmt)
    if name is None:
        name = "<stdin>" if str(path) == STDIN else str(path)
    side = _Side(role, fields, records_only)
    values: list[Any] = []
    ids: list[Any] = []
    if kind == "jsonl":
        numbers: list[int] = []
        take = side.take
        names, id_names = side.names, side.id_names
        for number, value in _jsonl_values(_lines(path, progress), name):
            if type(value) is dict and not records_only and side.with_id is not None:
                # the common record {"id": ..., "<role>": ...} of a file with ids, taken
                # without a call (the same as take() for it)
                for pick in names:
                    if pick in value:
                        break
                else:
                    pick = None
                for id_name in id_names:
                    if id_name in value:
                        rid = value[id_name]
                        break
                else:
                    rid = None
                if pick is not None and type(rid) is str and rid:
                    values.append(value[pick])
                    ids.append(rid)
                    numbers.append(number)
                    if len(values) >= batch_rows:
                        yield Rows(values, ids, LineNames(name, numbers))
                        values, ids, numbers = [], [], []
                    continue
            value, rid = take(value, None, False, lambda n=number: f"{name} line {n}")  # type: ignore[misc]
            values.append(value)
            ids.append(rid)
            numbers.append(number)
            if len(values) >= batch_rows:
                yield Rows(values, ids if side.with_id is not None else None, LineNames(name, numbers))
                values, ids, numbers = [], [], []
        if values:
            yield Rows(values, ids if side.with_id is not None else None, LineNames(name, numbers))
        return
    if kind == "json":
        records: Iterable[Record] = _read_json(path, name)
    else:
        records = _csv_file_records(path, name, "\t" if kind == "tsv" else ",", fields, json_cells, progress)
    where: list[str] = []
    for rec in records:
        value, rid = side.take(rec.value, rec.key, rec.csv_row, lambda rec=rec: rec.where)  # type: ignore[misc]
        values.append(value)
        ids.append(rid)
        where.append(rec.where)
        if len(values) >= batch_rows:
            yield Rows(values, ids if side.with_id is not None else None, where)
            values, ids, where = [], [], []
    if values:
        yield Rows(values, ids if side.with_id is not None else None, where)


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


def pair_rows(
    predictions: Iterable[Rows],
    references: Iterable[Rows],
    *,
    reopen: Callable[[], tuple[Iterable[Rows], Iterable[Rows]]] | None = None,
    spill_rows: int = SPILL_ROWS,
    folder: str | os.PathLike[str] | None = None,
) -> Iterator[Paired]:
    """:func:`pair_columns` for two streams of batches (:func:`read_rows`): the paired rows
    batch by batch, in the reference order, with the same errors. By id when both sides have
    ids (:func:`~metricore.core.pairing.pair_stream`, which spills to disk past ``spill_rows``
    rows and needs ``reopen()`` to give both streams again when the ids do not pair), by
    position when neither has. An error that needs every row (unmatched ids, row counts) is
    raised after the last paired batch."""
    preds, refs = iter(predictions), iter(references)
    first_pred, first_ref = next(preds, None), next(refs, None)
    pred_ids = first_pred is not None and first_pred.ids is not None
    ref_ids = first_ref is not None and first_ref.ids is not None
    if pred_ids != ref_ids:
        has, lacks = (first_pred, first_ref) if pred_ids else (first_ref, first_pred)
        assert has is not None
        raise InputError(
            f"{has.where[0]} has ids but {lacks.where[0] if lacks is not None else 'the other file'} has none; "
            "give ids on both sides (matched by id) or on neither (paired by position)"
        )
    pred_stream = preds if first_pred is None else itertools.chain([first_pred], preds)
    ref_stream = refs if first_ref is None else itertools.chain([first_ref], refs)
    if pred_ids:

        def batches(rows: Iterable[Rows]) -> Iterator[Batch]:
            return ((r.values, r.ids or [], r.where) for r in rows)

        def again() -> tuple[Iterable[Batch], Iterable[Batch]]:
            if reopen is None:
                raise ValueError("pair_rows: the ids do not pair, and the streams cannot be read again")
            p, r = reopen()
            return batches(p), batches(r)

        try:
            for pv, rv, ids, pw, rw in pair_stream(
                batches(pred_stream), batches(ref_stream), reopen=again, spill_rows=spill_rows, folder=folder
            ):
                yield Paired(pv, rv, ids, pw, rw)  # type: ignore[arg-type]
        except IdMismatch as err:
            raise InputError(
                err.describe(
                    where_left=err.where_left.__getitem__,  # type: ignore[attr-defined]
                    where_right=err.where_right.__getitem__,  # type: ignore[attr-defined]
                )
            ) from None
        return
    n = m = 0
    last_pred = last_ref = None
    for pb, rb in itertools.zip_longest(pred_stream, ref_stream):
        if pb is not None:
            n += len(pb.values)
            last_pred = pb.where[-1]
        if rb is not None:
            m += len(rb.values)
            last_ref = rb.where[-1]
        if n == m and pb is not None and rb is not None:
            yield Paired(pb.values, rb.values, None, pb.where, rb.where)  # type: ignore[arg-type]
    if n != m:
        raise InputError(
            f"{n} predictions but {m} references (rows pair by position when there are no ids); "
            f"last prediction: {last_pred or 'none'}, last reference: {last_ref or 'none'}"
        )
