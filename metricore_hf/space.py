"""The one Gradio UI builder behind every ``spaces/<name>/app.py``.

A Space declares *what* its metric needs in a :class:`SpaceSpec` (variants, keyword controls,
worked examples, a scoring function, the metric card) and gets the same app as every other
metric: variant selector, parameter controls, input as an editable table, pasted JSONL or an
uploaded JSONL/CSV file, one-click examples, headline numbers, a per-sample table, a score
histogram, the reproducibility signature and the metric card. The scoring is also exposed as
the API endpoint ``/compute`` for ``gradio_client``::

    Client(url).predict(predictions=[...], references=[...], variant="docvqa",
                        params={"threshold": 0.5}, api_name="/compute")
    -> {"headline": {...}, "rows": [{...}, ...], "signature": "..."}

Inputs are limited to :data:`MAX_ROWS` rows and :data:`MAX_CHARS` characters per string;
breaking a limit, or any ``TypeError``/``ValueError`` from the core, is shown as a
``gr.Error`` carrying the message (never a stack trace).

Cell and JSONL formats. A table or CSV row has a ``prediction`` and a ``references`` cell.
``references`` holding a JSON list (``["Coca Cola", "Coca Cola Company"]``) gives several gold
answers; any other text is one gold answer (write ``[""]`` for an empty gold: fully blank rows
are skipped). For the variants listed in ``SpaceSpec.structured_variants`` both cells are read
as JSON when they parse (tuples written ``{"__tuple__": [...]}``, see
:mod:`metricore.structured`) and as plain text otherwise. A JSONL line is an object
``{"prediction": ..., "references": ...}`` whose values are used as they are.

This is the only module of the project that imports ``gradio``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from metricore.levenshtein import edit_operations  # noqa: E402
from metricore.structured import TUPLE_TAG, from_json, to_json  # noqa: E402

__all__ = [
    "MAX_ROWS",
    "MAX_CHARS",
    "Param",
    "Example",
    "SpaceSpec",
    "ScoreFn",
    "build_app",
    "launch",
    "score",
    "display",
    "explain_edits",
]

MAX_ROWS = 5_000
MAX_CHARS = 2_000
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
_HIST_BINS = 10
_SOURCES = ("table", "JSONL", "file")
_YAML_HEADER = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)

#: ``score_fn(predictions, references, variant, **params) -> (headline, rows, signature)``.
#: ``headline`` maps a label to a number; ``rows`` has one dict per sample whose keys are the
#: table columns (the ``SpaceSpec.score_column`` key, default ``"score"``, feeds the
#: histogram); ``variant`` is ``None`` when the spec has no variants.
ScoreFn = Callable[..., tuple[Mapping[str, float], list[dict[str, Any]], str]]


@dataclass(frozen=True)
class Param:
    """A keyword argument of ``score_fn`` and the control that sets it.

    ``kind`` is ``"slider"`` (uses ``minimum``/``maximum``/``step``), ``"checkbox"`` or
    ``"dropdown"`` (uses ``choices``). ``variants`` restricts the parameter to some variants
    (empty: all); for the others it is hidden and not passed. ``variant_defaults`` gives
    some variants another default (``(("fbc2_vqa", 0.0),)``): it is passed when a request
    leaves the parameter out, and the control is reset to it when the user picks the variant.
    """

    name: str
    kind: Literal["slider", "checkbox", "dropdown"]
    default: Any
    label: str | None = None
    info: str | None = None
    minimum: float = 0.0
    maximum: float = 1.0
    step: float = 0.01
    choices: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    variant_defaults: tuple[tuple[str, Any], ...] = ()

    def default_for(self, variant: str | None) -> Any:
        """The default under ``variant`` (``variant_defaults``, else ``default``)."""
        return dict(self.variant_defaults).get(variant, self.default)

    def check(self, value: Any) -> Any:
        """``value`` if it fits the control, else ``ValueError``/``TypeError`` naming it."""
        if self.kind == "checkbox":
            if not isinstance(value, bool):
                raise TypeError(f"parameter `{self.name}` must be true or false, got {value!r:.60}")
        elif self.kind == "slider":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"parameter `{self.name}` must be a number, got {value!r:.60}")
            if not self.minimum <= value <= self.maximum:
                raise ValueError(
                    f"parameter `{self.name}` must be in [{self.minimum}, {self.maximum}], got {value}"
                )
        elif value not in self.choices:
            raise ValueError(
                f"parameter `{self.name}` must be one of {', '.join(map(repr, self.choices))}, got {value!r:.60}"
            )
        return value

    def applies_to(self, variant: str | None) -> bool:
        return not self.variants or variant in self.variants

    def component(self, value: Any = None, *, visible: bool = True) -> gr.components.Component:
        """The Gradio control, set to ``value`` (default: ``self.default``)."""
        value = self.default if value is None else value
        common = {"label": self.label or self.name, "info": self.info, "visible": visible}
        if self.kind == "slider":
            return gr.Slider(self.minimum, self.maximum, value=value, step=self.step, **common)
        if self.kind == "checkbox":
            return gr.Checkbox(value=value, **common)
        return gr.Dropdown(list(self.choices), value=value, **common)


@dataclass(frozen=True)
class Example:
    """A worked example loaded into the table in one click (then scored)."""

    label: str
    predictions: Sequence[Any]
    references: Sequence[Any]
    variant: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SpaceSpec:
    """Everything one metric's Space needs; see the module docstring."""

    name: str
    title: str
    description: str
    score_fn: ScoreFn
    variants: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    examples: tuple[Example, ...] = ()
    card_path: str | Path | None = None
    structured_variants: tuple[str, ...] = ()
    #: the range of the per-sample scores (the histogram's bins)
    score_range: tuple[float, float] = (0.0, 1.0)
    #: the row key whose numbers feed the histogram
    score_column: str = "score"

    def __post_init__(self) -> None:
        if not self.score_range[0] < self.score_range[1]:
            raise ValueError(f"{self.name}: score_range must be (low, high) with low < high")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate parameter names in {names}")
        for p in self.params:
            p.check(p.default)
            for _, value in p.variant_defaults:
                p.check(value)
            unknown = (set(p.variants) | {v for v, _ in p.variant_defaults}) - set(self.variants)
            if unknown:
                raise ValueError(f"{self.name}: parameter {p.name!r} names unknown variants {sorted(unknown)}")
        unknown = set(self.structured_variants) - set(self.variants)
        if unknown:
            raise ValueError(f"{self.name}: structured_variants names unknown variants {sorted(unknown)}")
        for ex in self.examples:
            if len(ex.predictions) != len(ex.references):
                raise ValueError(f"{self.name}: example {ex.label!r} has unequal columns")
            if self.variants and ex.variant is not None and ex.variant not in self.variants:
                raise ValueError(f"{self.name}: example {ex.label!r} uses unknown variant {ex.variant!r}")
            if set(ex.params) - set(names):
                raise ValueError(f"{self.name}: example {ex.label!r} sets unknown parameters")

    @property
    def default_variant(self) -> str | None:
        return self.variants[0] if self.variants else None

    def card(self) -> str:
        """The metric card without its YAML header (a note when the file is missing)."""
        if self.card_path is None or not Path(self.card_path).is_file():
            return f"*The metric card of `{self.name}` is not available in this deployment.*"
        text = Path(self.card_path).read_text(encoding="utf-8")
        return _YAML_HEADER.sub("", text, count=1).strip()


# ----------------------------------------------------------------------------- helpers for score_fn


def display(value: Any) -> str:
    """A table cell for any answer: strings as they are, structures as tagged JSON."""
    return value if isinstance(value, str) else to_json(value)


def explain_edits(prediction: str, gold: str, *, max_ops: int = 4) -> str:
    """The edits that turn ``prediction`` into ``gold``, shortly: ``"2 edits: insert ' ' @4, ..."``."""
    if prediction == gold:
        return "exact match"
    ops = edit_operations(prediction, gold)
    words = []
    for op, src, dst in ops[:max_ops]:
        if op == "replace":
            words.append(f"replace {prediction[src]!r}→{gold[dst]!r} @{src}")
        elif op == "insert":
            words.append(f"insert {gold[dst]!r} @{src}")
        else:
            words.append(f"delete {prediction[src]!r} @{src}")
    more = f", +{len(ops) - max_ops} more" if len(ops) > max_ops else ""
    return f"{len(ops)} edit{'s' if len(ops) != 1 else ''}: {', '.join(words)}{more}"


# ----------------------------------------------------------------------------- input parsing


def _fail(message: str) -> gr.Error:
    # gr.Error renders HTML; escape user text but keep quotes readable for API clients.
    return gr.Error(html.escape(message, quote=False), print_exception=False)


def _untag(value: Any) -> Any:
    if isinstance(value, list):
        return [_untag(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and TUPLE_TAG in value:
            return tuple(_untag(v) for v in value[TUPLE_TAG])
        return {k: _untag(v) for k, v in value.items()}
    return value


def _check_limits(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    n = max(len(predictions), len(references))
    if n > MAX_ROWS:
        raise _fail(f"Too many rows: {n:,} (limit: {MAX_ROWS:,} rows per request).")

    def walk(value: Any, where: str) -> None:
        if isinstance(value, str):
            if len(value) > MAX_CHARS:
                raise _fail(
                    f"String too long at {where}: {len(value):,} characters "
                    f"(limit: {MAX_CHARS:,} characters per string)."
                )
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(v, f"{where}[{i}]")
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k, f"{where} (key)")
                walk(v, f"{where}[{k!r:.30}]")

    for name, column in (("predictions", predictions), ("references", references)):
        for i, value in enumerate(column):
            walk(value, f"{name}[{i}]")


def _cell_text(cell: Any) -> str:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    return cell if isinstance(cell, str) else str(cell)


def _parse_cell(text: str, structured: bool, is_reference: bool) -> Any:
    if structured:
        try:
            return from_json(text)
        except (ValueError, RecursionError):
            return text
    if is_reference and text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if isinstance(value, list):
            return value
    return text


def _value_to_cell(value: Any, structured: bool, is_reference: bool) -> str:
    """The inverse of :func:`_parse_cell`, used to load examples into the table."""
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
    return json.dumps(list(value), ensure_ascii=False)


def _rows_to_columns(rows: Sequence[Sequence[Any]], structured: bool, what: str) -> tuple[list, list]:
    cells = [(_cell_text(r[0]) if len(r) > 0 else "", _cell_text(r[1]) if len(r) > 1 else "") for r in rows]
    cells = [c for c in cells if c[0] or c[1]]
    if len(cells) > MAX_ROWS:
        raise _fail(f"Too many rows in the {what}: {len(cells):,} (limit: {MAX_ROWS:,} rows per request).")
    if not cells:
        raise _fail(f"The {what} has no rows: fill in at least one prediction and its references.")
    return (
        [_parse_cell(p, structured, False) for p, _ in cells],
        [_parse_cell(r, structured, True) for _, r in cells],
    )


def _table_rows(table: Any) -> list[list[Any]]:
    if table is None:
        return []
    if isinstance(table, pd.DataFrame):
        return table.values.tolist()
    if isinstance(table, dict):  # {"headers": [...], "data": [[...], ...]}
        return list(table.get("data") or [])
    return [list(r) for r in table]


def _jsonl_columns(text: str, what: str) -> tuple[list, list]:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) > MAX_ROWS:
        raise _fail(f"Too many rows in the {what}: {len(lines):,} (limit: {MAX_ROWS:,} rows per request).")
    if not lines:
        raise _fail(f"The {what} is empty: give one JSON object per line.")
    preds, refs = [], []
    for n, line in lines:
        try:
            obj = json.loads(line)
        except ValueError as err:
            raise _fail(f"{what}, line {n}: not valid JSON ({err.msg}).") from None
        except RecursionError:
            raise _fail(f"{what}, line {n}: JSON nested too deeply.") from None
        if not isinstance(obj, dict):
            raise _fail(f'{what}, line {n}: expected an object {{"prediction": ..., "references": ...}}.')
        ref_key = "references" if "references" in obj else "reference"
        if "prediction" not in obj or ref_key not in obj:
            raise _fail(f'{what}, line {n}: needs the keys "prediction" and "references".')
        preds.append(_untag(obj["prediction"]))
        refs.append(_untag(obj[ref_key]))
    return preds, refs


def _file_columns(path: str | None, structured: bool) -> tuple[list, list]:
    if not path:
        raise _fail("No file uploaded: choose a .jsonl or .csv file.")
    if os.path.getsize(path) > MAX_UPLOAD_BYTES:
        raise _fail(f"File too large (limit: {MAX_UPLOAD_BYTES // 2**20} MB).")
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise _fail("The file is not UTF-8 text.") from None
    if Path(path).suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return _jsonl_columns(text, "uploaded file")
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    ref_key = "references" if "references" in header else "reference"
    if "prediction" not in header or ref_key not in header:
        raise _fail(f"The CSV needs the columns 'prediction' and 'references'; it has {header}.")
    reader.fieldnames = header
    rows = [[r.get("prediction"), r.get(ref_key)] for r in reader]
    return _rows_to_columns(rows, structured, "uploaded file")


# ----------------------------------------------------------------------------- scoring


def _finite(value: float) -> float | str:
    value = float(value)
    return value if math.isfinite(value) else str(value)


def score(
    spec: SpaceSpec,
    predictions: Sequence[Any],
    references: Sequence[Any],
    variant: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> tuple[dict[str, float | str], list[dict[str, Any]], str]:
    """Check the limits, the variant and the parameters, then call ``spec.score_fn``.

    Every problem with the input is raised as ``gr.Error``; non-finite headline numbers are
    returned as strings (``"inf"``) so that the result stays valid JSON.
    """
    if isinstance(predictions, (str, bytes, Mapping)) or isinstance(references, (str, bytes, Mapping)):
        raise _fail("`predictions` and `references` must be lists (one entry per sample).")
    predictions, references = list(predictions), list(references)
    _check_limits(predictions, references)
    if spec.variants:
        variant = variant or spec.default_variant
        if variant not in spec.variants:
            raise _fail(f"Unknown variant {variant!r:.60}; choose one of {', '.join(spec.variants)}.")
    else:
        variant = None
    given = dict(params or {})
    unknown = sorted(set(given) - {p.name for p in spec.params})
    if unknown:
        raise _fail(f"Unknown parameter(s) {unknown}; allowed: {[p.name for p in spec.params]}.")
    kwargs = {}
    try:
        for p in spec.params:
            if p.applies_to(variant):
                kwargs[p.name] = p.check(given.get(p.name, p.default_for(variant)))
        headline, rows, signature = spec.score_fn(predictions, references, variant, **kwargs)
    except (TypeError, ValueError) as err:
        raise _fail(str(err)) from None
    return {k: _finite(v) for k, v in headline.items()}, list(rows), signature


def _headline_markdown(headline: Mapping[str, Any], n: int) -> str:
    cells = [f"**{k}**: {v:.4f}" if isinstance(v, float) else f"**{k}**: {v}" for k, v in headline.items()]
    return "### " + " · ".join(cells) + f"\n\n{n:,} sample{'s' if n != 1 else ''}"


def _bin_labels(score_range: tuple[float, float]) -> list[str]:
    lo, hi = score_range
    width = (hi - lo) / _HIST_BINS
    return [f"{lo + i * width:.4g}–{lo + (i + 1) * width:.4g}" for i in range(_HIST_BINS)]


def _histogram(scores: list[float], score_range: tuple[float, float]) -> pd.DataFrame:
    """Counts in ten equal bins over ``score_range``; scores outside go to the end bins."""
    lo, hi = score_range
    counts = [0] * _HIST_BINS
    for s in scores:
        counts[min(max(int((s - lo) / (hi - lo) * _HIST_BINS), 0), _HIST_BINS - 1)] += 1
    return pd.DataFrame({"score": _bin_labels(score_range), "samples": counts})


def _table_value(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.insert(0, "#", range(len(rows)))
    return frame.round(4)


# ----------------------------------------------------------------------------- the app


def _input_help(spec: SpaceSpec) -> str:
    text = (
        f"**Input.** One row per sample: `prediction` and `references`. References as a JSON "
        f'list (`["a", "b"]`) give several gold answers; other text is one answer (`[""]` is an '
        f"empty gold). JSONL: one `{{\"prediction\": ..., \"references\": ...}}` per line. "
        f"Limits: {MAX_ROWS:,} rows, {MAX_CHARS:,} characters per string."
    )
    if spec.structured_variants:
        text += (
            f" For {', '.join(f'`{v}`' for v in spec.structured_variants)} every cell is read as "
            'JSON when it parses (tuples of alternatives as `{"__tuple__": [...]}`).'
        )
    return text


def _example_inputs(spec: SpaceSpec, ex: Example) -> list[Any]:
    """``[variant, source, table cells, *param values]`` for one worked example."""
    v = ex.variant or spec.default_variant
    structured = v in spec.structured_variants
    cells = [
        [_value_to_cell(p, structured, False), _value_to_cell(r, structured, True)]
        for p, r in zip(ex.predictions, ex.references)
    ]
    return [v or "", "table", cells, *(ex.params.get(p.name, p.default_for(v)) for p in spec.params)]


def build_app(spec: SpaceSpec) -> gr.Blocks:
    """The Space for ``spec``: UI plus the ``/compute`` API endpoint.

    The page opens with the first worked example loaded and scored.
    """
    examples = [_example_inputs(spec, ex) for ex in spec.examples]
    first_variant, _, first_cells, *first_params = examples[0] if examples else (
        spec.default_variant or "", "table", [["", ""]] * 3,
        *(p.default_for(spec.default_variant) for p in spec.params),
    )
    with gr.Blocks(title=spec.title, analytics_enabled=False) as demo:
        gr.Markdown(f"# {spec.title}\n\n{spec.description}")
        with gr.Row():
            variant = gr.Dropdown(
                list(spec.variants) or [""],
                value=first_variant,
                label="Variant",
                visible=bool(spec.variants),
            )
            controls = [
                p.component(val, visible=p.applies_to(first_variant or None))
                for p, val in zip(spec.params, first_params)
            ]

        gr.Markdown(_input_help(spec))
        source = gr.Radio(list(_SOURCES), value="table", label="Input from")
        table = gr.Dataframe(
            value=first_cells,
            headers=["prediction", "references"],
            datatype=["str", "str"],
            column_count=2,
            type="array",
            interactive=True,
            wrap=True,
            label="Samples (editable; add rows at the bottom)",
        )
        jsonl = gr.Code(
            value='{"prediction": "...", "references": ["...", "..."]}\n',
            language="json",
            label="JSONL (one object per line)",
            visible=False,
        )
        upload = gr.File(file_types=[".jsonl", ".json", ".csv"], label="JSONL or CSV file", visible=False)
        source.change(
            lambda s: [gr.update(visible=s == name) for name in _SOURCES],
            source,
            [table, jsonl, upload],
            api_visibility="private",
        )
        if spec.variants and any(p.variants for p in spec.params):
            variant.change(
                lambda v: [gr.update(visible=p.applies_to(v)) for p in spec.params],
                variant,
                controls,
                api_visibility="private",
            )
        reset = [(p, c) for p, c in zip(spec.params, controls) if p.variant_defaults]
        if spec.variants and reset:
            # `.input`, not `.change`: loading an example sets the variant and its own values
            variant.input(
                lambda v: [gr.update(value=p.default_for(v)) for p, _ in reset],
                variant,
                [c for _, c in reset],
                api_visibility="private",
            )
        examples_slot = gr.Column()
        button = gr.Button("Compute", variant="primary")
        headline = gr.Markdown()
        per_sample = gr.Dataframe(label="Per sample", interactive=False, wrap=True, max_height=420)
        # The bin order is fixed here: a `sort` sent with each update stops the plot redrawing.
        histogram = gr.BarPlot(
            x="score", y="samples", title="Score histogram", height=260, x_label_angle=-30,
            sort=_bin_labels(spec.score_range),
        )
        signature = gr.Textbox(label="Signature", interactive=False, buttons=["copy"])

        def run_ui(variant_value, source_value, table_value, jsonl_value, file_value, *values):
            v = variant_value if spec.variants else None
            structured = v in spec.structured_variants
            if source_value == "JSONL":
                preds, refs = _jsonl_columns(jsonl_value or "", "JSONL")
            elif source_value == "file":
                preds, refs = _file_columns(file_value, structured)
            else:
                preds, refs = _rows_to_columns(_table_rows(table_value), structured, "table")
            params = {p.name: val for p, val in zip(spec.params, values) if p.applies_to(v)}
            head, rows, sig = score(spec, preds, refs, v, params)
            key = spec.score_column
            scores = [float(r[key]) for r in rows if isinstance(r.get(key), (int, float))]
            return _headline_markdown(head, len(rows)), _table_value(rows), _histogram(scores, spec.score_range), sig

        def run_example(variant_value, source_value, table_value, *values):
            return run_ui(variant_value, "table", table_value, "", None, *values)

        ui_inputs = [variant, source, table, jsonl, upload, *controls]
        ui_outputs = [headline, per_sample, histogram, signature]
        button.click(run_ui, ui_inputs, ui_outputs, api_name="compute_ui", api_visibility="undocumented")
        if examples:
            with examples_slot:
                gr.Examples(
                    examples,
                    inputs=[variant, source, table, *controls],
                    outputs=ui_outputs,
                    fn=run_example,
                    run_on_click=True,
                    cache_examples=False,
                    example_labels=[ex.label for ex in spec.examples],
                    label="Worked examples (one click loads and scores)",
                    examples_per_page=20,
                )
            demo.load(run_ui, ui_inputs, ui_outputs, api_visibility="private")

        def compute(
            predictions: list, references: list, variant: str = "", params: dict | None = None
        ) -> dict:
            """Score `predictions` against `references` (one entry each per sample).

            Tuples of alternatives are written {"__tuple__": [...]}. Returns
            {"headline": {...}, "rows": [{...}, ...], "signature": "..."}.
            """
            head, rows, sig = score(
                spec, _untag(predictions), _untag(references), variant or None, params
            )
            return {"headline": head, "rows": rows, "signature": sig}

        gr.api(compute, api_name="compute")

        gr.Markdown("---")
        gr.Markdown(spec.card(), latex_delimiters=[{"left": "$$", "right": "$$", "display": True}])
    return demo


def launch(spec_or_app: SpaceSpec | gr.Blocks, **kwargs: Any) -> None:
    """Serve on ``GRADIO_SERVER_NAME``:``GRADIO_SERVER_PORT`` (default 127.0.0.1:7860), no share link."""
    demo = build_app(spec_or_app) if isinstance(spec_or_app, SpaceSpec) else spec_or_app
    options: dict[str, Any] = {
        "server_name": os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1",
        "server_port": int(os.environ.get("GRADIO_SERVER_PORT") or 7860),
        "share": False,
        "ssr_mode": False,
        "mcp_server": False,
        "max_file_size": MAX_UPLOAD_BYTES,
        "footer_links": ["api"],
        # System fonts: the default theme would fetch Google Fonts from the browser.
        "theme": gr.themes.Default(
            font=["ui-sans-serif", "system-ui", "sans-serif"],
            font_mono=["ui-monospace", "monospace"],
        ),
    }
    options.update(kwargs)
    demo.queue(default_concurrency_limit=4).launch(**options)
