"""A Space's three input sources, as two columns: the editable table, pasted JSONL and an
uploaded JSONL/JSON/CSV file.

Files and pasted JSONL go through the project's one reader (:mod:`metricore.core.records`, the
CLI's): every row is a record with a ``prediction`` and a ``references`` field (``reference``
also works), ids are carried (rows of one file pair with themselves), and an error names the
line. A table or CSV row has a ``prediction`` and a ``references`` cell: ``references``
holding a JSON list (``["Coca Cola", "Coca Cola Company"]``) gives several gold answers, any
other text one gold answer (``[""]`` for an empty gold: fully blank table rows are
skipped); a JSON object is a reference record (``{"answers": [...], ...}``). For a config whose canonical input is structured (ANLS*, DUDE) both cells are read
as JSON when they parse (tuples written ``{"__tuple__": [...]}``) and as text otherwise.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from metricore.core.records import (
    FieldNames,
    InputError,
    Record,
    column,
    pair_columns,
    read_records,
    read_text_records,
)
from metricore.core.structured import parse_text_cell, to_json
from metricore_hf.space.limits import MAX_ROWS, MAX_UPLOAD_BYTES, fail

__all__ = ["file_columns", "jsonl_columns", "table_columns", "table_rows", "value_to_cell"]


def _cell_text(cell: Any) -> str:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    return cell if isinstance(cell, str) else str(cell)


def value_to_cell(value: Any, structured: bool, is_reference: bool) -> str:
    """The inverse of :func:`metricore.core.structured.parse_text_cell`, used to load examples
    into the table."""
    if isinstance(value, str):
        if structured:
            try:
                json.loads(value)
            except ValueError:
                return value
            return to_json(value)
        if not is_reference or (value and not value.lstrip().startswith("[")):
            return value
        return json.dumps([value], ensure_ascii=False)
    if structured:
        return to_json(value)
    if isinstance(value, dict):  # a reference record
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(list(value), ensure_ascii=False)


def table_rows(table: Any) -> list[list[Any]]:
    """The rows of a Dataframe value (a DataFrame, ``{"headers", "data"}``, or a list of rows)."""
    if table is None:
        return []
    if isinstance(table, pd.DataFrame):
        return table.values.tolist()
    if isinstance(table, dict):  # {"headers": [...], "data": [[...], ...]}
        return list(table.get("data") or [])
    return [list(r) for r in table]


def _too_many(n: int, what: str) -> None:
    if n > MAX_ROWS:
        raise fail(f"Too many rows in the {what}: {n:,} (limit: {MAX_ROWS:,} rows per request).")


def table_columns(rows: Sequence[Sequence[Any]], structured: bool, what: str = "table") -> tuple[list, list]:
    """The two columns of the table's rows (blank rows skipped)."""
    cells = [(_cell_text(r[0]) if len(r) > 0 else "", _cell_text(r[1]) if len(r) > 1 else "") for r in rows]
    cells = [c for c in cells if c[0] or c[1]]
    _too_many(len(cells), what)
    if not cells:
        raise fail(f"The {what} has no rows: fill in at least one prediction and its references.")
    return (
        [parse_text_cell(p, structured=structured, list_cell=False) for p, _ in cells],
        [parse_text_cell(r, structured=structured, list_cell=True) for _, r in cells],
    )


def _columns(records: list[Record], what: str) -> tuple[list, list]:
    _too_many(len(records), what)
    if not records:
        raise fail(f'The {what} is empty: give one {{"prediction": ..., "references": ...}} per line.')
    fields = FieldNames()
    try:
        paired = pair_columns(
            column(records, "prediction", fields, records_only=True),
            column(records, "references", fields, records_only=True),
        )
    except InputError as err:
        raise fail(str(err)) from None
    return paired.predictions, paired.references


def jsonl_columns(text: str, what: str = "JSONL") -> tuple[list, list]:
    """The two columns of pasted JSONL (one record per line)."""
    try:
        records = read_text_records(text, fmt="jsonl", name=what)
    except InputError as err:
        raise fail(str(err)) from None
    return _columns(records, what)


def file_columns(path: str | None, structured: bool) -> tuple[list, list]:
    """The two columns of an uploaded ``.jsonl``/``.json``/``.csv``/``.tsv`` file."""
    if not path:
        raise fail("No file uploaded: choose a .jsonl, .json or .csv file.")
    if os.path.getsize(path) > MAX_UPLOAD_BYTES:
        raise fail(f"File too large (limit: {MAX_UPLOAD_BYTES // 2**20} MB).")
    what = f"uploaded file {Path(path).name}"
    try:
        records = read_records(path, json_cells=structured)
    except InputError as err:
        raise fail(str(err).replace(str(path), what)) from None
    except ValueError as err:  # an extension the reader does not know
        raise fail(str(err).replace(str(path), what)) from None
    return _columns(records, what)
