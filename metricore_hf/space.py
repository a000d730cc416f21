"""The one Gradio UI builder behind every ``spaces/<name>/app.py`` (and the index Space).

A Space declares *what* its metric needs in a :class:`SpaceSpec` (variants, keyword controls,
worked examples, a scoring function, the metric card) and gets the same app as every other
metric: variant selector, parameter controls, input as an editable table, pasted JSONL or an
uploaded JSONL/CSV file, one-click examples, headline numbers (with a bootstrap interval when
the spec offers one), a sortable per-sample table whose *why* column says how each sample
scored, a score histogram, the reproducibility signature and the metric card. The scoring
is also exposed as the API endpoint ``/compute`` for ``gradio_client``::

    Client(url).predict(predictions=[...], references=[...], variant="docvqa",
                        params={"threshold": 0.5}, confidence=0, api_name="/compute")
    -> {"headline": {...}, "rows": [{...}, ...], "signature": "..."}

Limits (issue 17: no request may pin a Space). Before scoring, a request must have at most
:data:`MAX_ROWS` rows and :data:`MAX_CHARS` characters per string, and the metric's estimate
of its work (``metricore.registry.get(name).cost``: rows, characters, references per row,
list lengths, feature dimensions; units of about a microsecond of one core) must stay under
:data:`MAX_WORK`; a refusal names the limit and the measured size. The scoring then runs in a
worker thread of its own for at most :data:`TIME_LIMIT` seconds of wall-clock time (past it
the request gets an error and the worker is interrupted at its next Python instruction), so
the server thread is never held; Gradio's queue runs :data:`CONCURRENCY` requests per event
at once and holds at most :data:`MAX_QUEUE` waiting, and no global lock serialises scoring,
so a small request is answered while a large one runs. Request bodies over
:data:`MAX_BODY_BYTES` are refused (HTTP 413) before they are read. Breaking a limit, or any
error from the metric, is shown as a ``gr.Error`` carrying the message (never a stack trace,
never an empty error); the metric's ``UserWarning``s become ``gr.Warning`` toasts of the
request that raised them.

Cell and JSONL formats. A table or CSV row has a ``prediction`` and a ``references`` cell.
``references`` holding a JSON list (``["Coca Cola", "Coca Cola Company"]``) gives several gold
answers; any other text is one gold answer (write ``[""]`` for an empty gold: fully blank rows
are skipped). For the variants listed in ``SpaceSpec.structured_variants`` both cells are read
as JSON when they parse (tuples written ``{"__tuple__": [...]}``, see
:mod:`metricore.core.structured`) and as plain text otherwise. A JSONL line is an object
``{"prediction": ..., "references": ...}`` whose values are used as they are.

Confidence intervals. A headline ``"X"`` that comes with ``"X_ci_low"`` and ``"X_ci_high"``
is shown as ``X 0.7340 [0.7120, 0.7550]``, and the interval of the plotted headline is drawn
as a band on the histogram. With ``SpaceSpec.confidence`` the app has a "95% bootstrap
interval" checkbox that passes ``confidence=0.95`` to ``score_fn``.

This is the only module of the packages that imports ``gradio`` (a Space that lays itself
out, a :class:`CustomSpace`, imports it too).
"""

from __future__ import annotations

import contextvars
import csv
import ctypes
import functools
import html
import io
import json
import math
import os
import re
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from metricore.core.spec import MetricSpec  # noqa: E402
from metricore.core.structured import parse_text_cell, to_json, untag  # noqa: E402
from metricore.text.levenshtein import explain_edits  # noqa: E402

__all__ = [
    "MAX_ROWS",
    "MAX_CHARS",
    "CONFIDENCE",
    "Param",
    "Example",
    "explain",
    "spec_description",
    "spec_examples",
    "spec_params",
    "SpaceSpec",
    "ScoreFn",
    "build_app",
    "build_index",
    "build_custom_app",
    "CustomSpace",
    "Rendered",
    "headline_html",
    "HEADLINE_CSS",
    "MAX_UPLOAD_BYTES",
    "MAX_BODY_BYTES",
    "MAX_WORK",
    "TIME_LIMIT",
    "CONCURRENCY",
    "MAX_QUEUE",
    "check_work",
    "system_theme",
    "run_metric",
    "Preparation",
    "guarded",
    "fail",
    "check_strings_limit",
    "render",
    "launch",
    "score",
    "display",
    "explain_edits",
    "add_intervals",
    "metric_card",
    "card_markdown",
    "load_spec",
]

MAX_ROWS = 5_000
MAX_CHARS = 2_000
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: largest HTTP request body (an uploaded file plus the form around it)
MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 4 * 1024 * 1024
#: largest estimated work of one request (the registry's ``cost``, ~microseconds of one core)
MAX_WORK = 8_000_000
#: wall-clock seconds one scoring may take
TIME_LIMIT = 30.0
#: requests of one event scored at once (Gradio's queue), and how many may wait
CONCURRENCY = 4
MAX_QUEUE = 64
#: the level of the interval the checkbox asks for
CONFIDENCE = 0.95
_HIST_BINS = 10
_SOURCES = ("table", "JSONL", "file")
_CI_LOW, _CI_HIGH = "_ci_low", "_ci_high"
_YAML_HEADER = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)

#: ``score_fn(predictions, references, variant, **params) -> (headline, rows, signature)``.
#: ``headline`` maps a label to a number (``<label>_ci_low``/``_ci_high`` give its interval);
#: ``rows`` has one dict per sample whose keys are the table columns (the
#: ``SpaceSpec.score_column`` key, default ``"score"``, feeds the histogram); ``variant`` is
#: ``None`` when the spec has no variants. With ``SpaceSpec.confidence`` it also receives
#: ``confidence=<level>`` when the user asks for an interval.
ScoreFn = Callable[..., tuple[Mapping[str, Any], list[dict[str, Any]], str]]


ParamKind = Literal["slider", "checkbox", "dropdown"]
#: the control of an option type (any other type: a slider)
_PARAM_KINDS: dict[str, ParamKind] = {"bool": "checkbox", "choice": "dropdown"}


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
    kind: ParamKind
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
        if variant is None:  # variant_defaults is keyed by variant names only
            return self.default
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
        label = self.label or self.name
        if self.kind == "slider":
            return gr.Slider(
                self.minimum,
                self.maximum,
                value=value,
                step=self.step,
                label=label,
                info=self.info,
                visible=visible,
            )
        if self.kind == "checkbox":
            return gr.Checkbox(value=value, label=label, info=self.info, visible=visible)
        return gr.Dropdown(list(self.choices), value=value, label=label, info=self.info, visible=visible)


@dataclass(frozen=True)
class Example:
    """A worked example loaded into the table in one click (then scored)."""

    label: str
    predictions: Sequence[Any]
    references: Sequence[Any]
    variant: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


def spec_params(
    metric: MetricSpec, hints: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[Param, ...]:
    """One control per interactive option of the metric's spec (:mod:`metricore.registry`):
    a slider for a bounded number, a checkbox for a bool, a dropdown for a choice; shown for
    the configs that take it, reset to a config's own default. ``hints`` add labels, infos,
    slider bounds (``maximum`` for an unbounded number) or a narrower ``choices`` per option,
    and their order is the controls' order (the others follow in the spec's order)."""
    out = []
    names: list[str] = []
    for config in metric.configs:
        names.extend(o.name for o in config.options if o.interactive and o.name not in names)
    # the hints' order first: the controls' positions are the Space's API (``/compute_ui``)
    names.sort(key=lambda n: list(hints or {}).index(n) if n in (hints or {}) else len(hints or {}))
    for name in names:
        having = [c for c in metric.configs if name in c.option_names]
        first = having[0].option(name)
        hint = dict((hints or {}).get(name, {}))
        kind = _PARAM_KINDS.get(first.type, "slider")
        default = (
            first.default if first.default is not None else (first.choices[0] if first.choices else None)
        )
        extra: dict[str, Any] = {}
        if kind == "slider":
            extra = {
                "minimum": first.low,
                "maximum": first.high,
                "step": 1 if first.type == "integer" else 0.01,
            }
        elif kind == "dropdown":
            extra = {"choices": tuple(first.choices)}
        extra.update(hint)
        variants = () if len(having) == len(metric.configs) else tuple(c.name for c in having)
        own = tuple(
            (c.name, c.option(name).default)
            for c in having[1:]
            if c.option(name).default not in (None, default)
        )
        out.append(
            Param(
                name,
                kind,
                default,
                info=extra.pop("info", first.doc),
                variants=variants,
                variant_defaults=own,
                **extra,
            )
        )
    return tuple(out)


def spec_examples(metric: MetricSpec) -> tuple[Example, ...]:
    """The worked examples of the metric's spec, as Space examples."""
    return tuple(
        Example(e.title, e.predictions, e.references, e.config, dict(e.options)) for e in metric.examples
    )


def spec_description(metric: MetricSpec, more: str = "") -> str:
    """The spec's summary, each config with its reference, and ``more``."""
    configs = "; ".join(f"`{c.name}`: {c.reference}" for c in metric.configs)
    return f"{metric.summary} Variants: {configs}." + (f" {more}" if more else "")


def explain(
    metric: MetricSpec,
    config: str | None,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    result: Any,
) -> list[str]:
    """The *why* texts of the metric's spec (empty strings where it has none)."""
    if metric.explain is None:
        return [""] * len(result.scores)
    return metric.explain(metric.config(config).name, predictions, references, options, result)


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
    #: headline keys drawn on the histogram, the first one present wins (default: the first
    #: headline); it should be the mean of the ``score_column``
    plotted: tuple[str, ...] = ()
    #: ``score_fn`` accepts ``confidence=`` and returns ``<headline>_ci_low/_ci_high``
    confidence: bool = False
    #: short name for the index Space's tab (default: ``name``)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.score_range[0] < self.score_range[1]:
            raise ValueError(f"{self.name}: score_range must be (low, high) with low < high")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate parameter names in {names}")
        if "confidence" in names:
            raise ValueError(
                f"{self.name}: `confidence` is the builder's own control; set SpaceSpec.confidence"
            )
        for p in self.params:
            p.check(p.default)
            for _, value in p.variant_defaults:
                p.check(value)
            unknown = (set(p.variants) | {v for v, _ in p.variant_defaults}) - set(self.variants)
            if unknown:
                raise ValueError(
                    f"{self.name}: parameter {p.name!r} names unknown variants {sorted(unknown)}"
                )
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
        return card_markdown(self.card_path, self.name)


def card_markdown(path: str | Path | None, name: str) -> str:
    """The card at ``path`` without its YAML header (a note when the file is missing)."""
    if path is None or not Path(path).is_file():
        return f"*The metric card of `{name}` is not available in this deployment.*"
    return _YAML_HEADER.sub("", Path(path).read_text(encoding="utf-8"), count=1).strip()


def metric_card(app_file: str | Path, name: str) -> Path:
    """Where the card of metric ``name`` is for the app at ``app_file``: in this repository
    ``metrics/<name>/README.md``; in a bundle (:mod:`metricore_hf.bundle`) the ``README.md``
    beside the app, which is then the metric card."""
    here = Path(app_file).resolve().parent
    in_repo = here.parents[1] / "metrics" / name / "README.md"
    return in_repo if in_repo.is_file() else here / "README.md"


def load_spec(app_file: str | Path) -> Any:
    """The ``SPEC`` (a :class:`SpaceSpec` or :class:`CustomSpace`) of a Space's ``app.py``
    (run by path; Space folders are not packages)."""
    import runpy

    namespace = runpy.run_path(str(app_file), run_name="metricore_space")
    spec = namespace.get("SPEC")
    if not isinstance(spec, (SpaceSpec, CustomSpace)):
        raise TypeError(f"{app_file}: defines no SPEC (a SpaceSpec or CustomSpace)")
    return spec


# ----------------------------------------------------------------------------- helpers for score_fn


def display(value: Any) -> str:
    """A table cell for any answer: strings as they are, structures as tagged JSON."""
    return value if isinstance(value, str) else to_json(value)


def add_intervals(
    headline: Mapping[str, Any], result: Any, keys: Mapping[str, str], confidence: float | None
) -> dict[str, Any]:
    """``headline`` plus ``<label>_ci_low``/``_ci_high`` for each ``label -> result key`` of
    ``keys``: the core's percentile bootstrap intervals of a core ``result``
    (:func:`metricore.intervals.confidence_intervals`, 1000 resamples, seed 0). Nothing is
    added when ``confidence`` is ``None``; NaN bounds (an empty subgroup) are left out."""
    out = dict(headline)
    if confidence is None:
        return out
    from metricore.intervals import confidence_intervals

    intervals = confidence_intervals(result, confidence=confidence)
    for label, key in keys.items():
        ci = intervals.get(key)
        if ci is not None and math.isfinite(ci.low) and math.isfinite(ci.high):
            out[label + _CI_LOW], out[label + _CI_HIGH] = ci.low, ci.high
    return out


# ----------------------------------------------------------------------------- input parsing


def fail(message: str) -> gr.Error:
    """A ``gr.Error`` showing ``message`` (HTML-escaped), without a stack trace in the log."""
    # gr.Error renders HTML; escape user text but keep quotes readable for API clients.
    return gr.Error(html.escape(message, quote=False), print_exception=False)


def check_strings_limit(value: Any, where: str) -> None:
    """``gr.Error`` naming the place and the limit when a string anywhere in ``value`` (lists,
    tuples, dicts and their keys) is longer than :data:`MAX_CHARS`. Iterative (any nesting
    depth), and numbers cost one type check each (FID features hold millions)."""
    containers = (list, tuple, dict)
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        v, at = stack.pop()
        if isinstance(v, str):
            if len(v) > MAX_CHARS:
                raise fail(
                    f"String too long at {at}: {len(v):,} characters "
                    f"(limit: {MAX_CHARS:,} characters per string)."
                )
        elif isinstance(v, (list, tuple)):
            stack.extend(
                (x, f"{at}[{i}]")
                for i, x in reversed(list(enumerate(v)))
                if isinstance(x, containers) or (isinstance(x, str) and len(x) > MAX_CHARS)
            )
        elif isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                stack.append((x, f"{at}[{k!r:.30}]"))
                stack.append((k, f"{at} (key)"))


def _check_limits(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    n = max(len(predictions), len(references))
    if n > MAX_ROWS:
        raise fail(f"Too many rows: {n:,} (limit: {MAX_ROWS:,} rows per request).")
    for name, column in (("predictions", predictions), ("references", references)):
        for i, value in enumerate(column):
            check_strings_limit(value, f"{name}[{i}]")


def _cell_text(cell: Any) -> str:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    return cell if isinstance(cell, str) else str(cell)


def _value_to_cell(value: Any, structured: bool, is_reference: bool) -> str:
    """The inverse of :func:`metricore.core.structured.parse_text_cell`, used to load examples into the table."""
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
        raise fail(f"Too many rows in the {what}: {len(cells):,} (limit: {MAX_ROWS:,} rows per request).")
    if not cells:
        raise fail(f"The {what} has no rows: fill in at least one prediction and its references.")
    return (
        [parse_text_cell(p, structured=structured, list_cell=False) for p, _ in cells],
        [parse_text_cell(r, structured=structured, list_cell=True) for _, r in cells],
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
        raise fail(f"Too many rows in the {what}: {len(lines):,} (limit: {MAX_ROWS:,} rows per request).")
    if not lines:
        raise fail(f"The {what} is empty: give one JSON object per line.")
    preds, refs = [], []
    for n, line in lines:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise fail(f"{what}, line {n}: not valid JSON ({err.msg}).") from None
        except ValueError as err:  # not a JSONDecodeError: an integer beyond int_max_str_digits
            raise fail(f"{what}, line {n}: not valid JSON ({err}).") from None
        except RecursionError:
            raise fail(f"{what}, line {n}: JSON nested too deeply.") from None
        if not isinstance(obj, dict):
            raise fail(f'{what}, line {n}: expected an object {{"prediction": ..., "references": ...}}.')
        ref_key = "references" if "references" in obj else "reference"
        if "prediction" not in obj or ref_key not in obj:
            raise fail(f'{what}, line {n}: needs the keys "prediction" and "references".')
        preds.append(untag(obj["prediction"]))
        refs.append(untag(obj[ref_key]))
    return preds, refs


def _file_columns(path: str | None, structured: bool) -> tuple[list, list]:
    if not path:
        raise fail("No file uploaded: choose a .jsonl or .csv file.")
    if os.path.getsize(path) > MAX_UPLOAD_BYTES:
        raise fail(f"File too large (limit: {MAX_UPLOAD_BYTES // 2**20} MB).")
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise fail("The file is not UTF-8 text.") from None
    if Path(path).suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return _jsonl_columns(text, "uploaded file")
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    ref_key = "references" if "references" in header else "reference"
    if "prediction" not in header or ref_key not in header:
        raise fail(f"The CSV needs the columns 'prediction' and 'references'; it has {header}.")
    reader.fieldnames = header
    rows = [[r.get("prediction"), r.get(ref_key)] for r in reader]
    return _rows_to_columns(rows, structured, "uploaded file")


# ----------------------------------------------------------------------------- scoring


def _finite(value: Any) -> float | str:
    value = float(value)
    return value if math.isfinite(value) else str(value)


def _check_confidence(spec: SpaceSpec, confidence: Any) -> float | None:
    if confidence is None or confidence is False or confidence == 0:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise fail(
            f"`confidence` must be a level in (0, 1) such as 0.95, or 0 for none; got {confidence!r:.60}."
        )
    if not spec.confidence:
        raise fail(f"The {spec.name} Space offers no confidence interval.")
    return float(confidence)


def score(
    spec: SpaceSpec,
    predictions: Sequence[Any],
    references: Sequence[Any],
    variant: str | None = None,
    params: Mapping[str, Any] | None = None,
    confidence: float | None = None,
) -> tuple[dict[str, float | str], list[dict[str, Any]], str]:
    """Check the limits, the variant and the parameters, then call ``spec.score_fn``.

    Every problem with the input, and any error of the metric, is raised as ``gr.Error``
    with the message only; the metric's ``UserWarning``s become ``gr.Warning`` toasts.
    Non-finite headline numbers are returned as strings (``"inf"``) so that the result stays
    valid JSON.
    """
    if isinstance(predictions, (str, bytes, Mapping)) or isinstance(references, (str, bytes, Mapping)):
        raise fail("`predictions` and `references` must be lists (one entry per sample).")
    predictions, references = list(predictions), list(references)
    _check_limits(predictions, references)
    if spec.variants:
        variant = variant or spec.default_variant
        if variant not in spec.variants:
            raise fail(f"Unknown variant {variant!r:.60}; choose one of {', '.join(spec.variants)}.")
    else:
        variant = None
    if params is not None and not isinstance(params, Mapping):
        raise fail("`params` must be an object mapping parameter names to values.")
    given = dict(params or {})
    unknown = sorted(set(given) - {p.name for p in spec.params})
    if unknown:
        raise fail(f"Unknown parameter(s) {unknown}; allowed: {[p.name for p in spec.params]}.")
    level = _check_confidence(spec, confidence)
    kwargs: dict[str, Any] = {} if level is None else {"confidence": level}
    try:
        for p in spec.params:
            if p.applies_to(variant):
                kwargs[p.name] = p.check(given.get(p.name, p.default_for(variant)))
    except (TypeError, ValueError) as err:
        raise fail(str(err)) from None
    options = {k: v for k, v in kwargs.items() if k != "confidence"}
    _check_budget(spec.name, variant, predictions, references, options, level)
    headline, rows, signature = run_metric(
        spec.name, spec.score_fn, predictions, references, variant, **kwargs
    )
    return {k: _finite(v) for k, v in headline.items()}, list(rows), signature


def guarded(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate an event handler so that any error that is not already a ``gr.Error`` shows
    as one with its message (Gradio would show a bare "Error" and log a stack trace)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as err:
                raise fail(f"{name}: unexpected {type(err).__name__}: {err}") from None

        return wrapper

    return decorate


def check_work(work: float, size: str) -> None:
    """``gr.Error`` naming the limit and the request's size when ``work`` (an estimate in
    units of about a microsecond, see :data:`MAX_WORK`) is over the budget."""
    if work > MAX_WORK:
        raise fail(
            f"Request too large to score here: {size}, an estimated {work / 1e6:,.1f} s of work "
            f"(limit: {MAX_WORK / 1e6:,.0f} s of estimated work per request). Score it in parts, "
            "or run metricore locally, which has no limit."
        )


def _check_budget(
    name: str,
    variant: str | None,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    confidence: float | None,
) -> None:
    """The registry's cost of the request against :data:`MAX_WORK` (a Space whose name is not
    a registered metric has the row and character limits only)."""
    from metricore.registry import METRICS
    from metricore.specs._cost import bootstrap_cost, describe

    if name not in METRICS:
        return
    metric = METRICS[name]
    try:
        config = metric.config(variant).name
        work = metric.cost(config, predictions, references, options)
    except (TypeError, ValueError, LookupError):
        return  # a malformed request: the metric's own checks name the problem
    if confidence is not None:
        work += bootstrap_cost(name, config, predictions, references)
    if work > MAX_WORK:
        check_work(work, describe(predictions, references))


class Preparation:
    """One-time data a Space builds on a new machine, in a background thread of its own.

    METEOR 1.5's paraphrase index takes about a minute of CPU (1.4 GB at its peak) the first
    time on a machine. Built inside a request, the request's time limit would interrupt it and
    every next request would start it again, so no request ever got METEOR. Here it is built
    once, outside any request (:meth:`start`, at start-up or on first need); requests ask
    :meth:`ready` and, until then, score without it or say it is being prepared."""

    def __init__(self, what: str, build: Callable[[], Any], prepared: Callable[[], bool]) -> None:
        self.what = what
        self._build = build
        self._prepared = prepared
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Start the build unless the data is already there or a build runs (idempotent)."""
        with self._lock:
            if self._thread is None and not self._prepared():
                self._thread = threading.Thread(target=self._run, name=f"prepare: {self.what}", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._build()
        except Exception as err:  # reported to every request that needs the data
            self._error = err

    def ready(self) -> bool:
        """Whether the data can be used now; a failed build raises its error (clear text)."""
        if self._error is not None:
            raise ValueError(f"{self.what} could not be prepared: {self._error}")
        thread = self._thread
        if thread is None:
            return self._prepared()
        return not thread.is_alive()

    def require(self) -> None:
        """For a request that cannot do without the data: start the build if needed and, until
        it is done, refuse with a message saying so (instead of timing out)."""
        self.start()
        if not self.ready():
            raise ValueError(
                f"{self.what} is being prepared (once per machine, about a minute); score again shortly"
            )


class _Interrupted(BaseException):
    """Raised inside a scoring thread that ran past :data:`TIME_LIMIT` (a ``BaseException``,
    so no ``except Exception`` of a metric swallows it)."""


#: the warnings list of the scoring running in this thread (None: not a scoring thread)
_CAPTURE = threading.local()
_HOOK_LOCK = threading.Lock()


def _install_warning_hook() -> None:
    """Route warnings raised in scoring threads to that request's list.

    ``warnings.catch_warnings`` swaps process-wide state, so two requests scored at once
    would see each other's warnings (or lose them); instead a ``showwarning`` hook appends
    to the list of the thread that raised the warning and leaves every other thread's
    warnings to the hook it replaced. ``UserWarning``s are shown every time (not once per
    location), so every request that triggers one gets its toast. Installed again whenever
    someone else's ``catch_warnings`` (a test runner's) restored the previous hook."""
    with _HOOK_LOCK:
        if getattr(warnings.showwarning, "metricore_capture", False):
            return
        previous = warnings.showwarning

        def showwarning(
            message: Any, category: Any, filename: Any, lineno: Any, *args: Any, **kw: Any
        ) -> None:
            caught = getattr(_CAPTURE, "caught", None)
            if caught is None:
                previous(message, category, filename, lineno, *args, **kw)
            else:
                caught.append(warnings.WarningMessage(message, category, filename, lineno))

        showwarning.metricore_capture = True  # type: ignore[attr-defined]
        warnings.showwarning = showwarning
        warnings.filterwarnings("always", category=UserWarning)


class _Scoring(threading.Thread):
    """One request's scoring, in a daemon thread of its own (see :func:`run_metric`)."""

    def __init__(self, fn: Callable[..., Any], args: Any, kwargs: Any) -> None:
        super().__init__(name="metricore-scoring", daemon=True)
        self.call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        self.result: Any = None
        self.error: BaseException | None = None
        self.caught: list[warnings.WarningMessage] = []

    def run(self) -> None:
        _CAPTURE.caught = self.caught
        try:
            self.result = self.call()
        except BaseException as err:  # handed to the requesting thread
            self.error = err
        finally:
            _CAPTURE.caught = None

    def interrupt(self) -> None:
        """Raise :class:`_Interrupted` in the thread at its next Python instruction (a call
        into C, e.g. one LAPACK routine, finishes first; the budget keeps those short)."""
        if self.ident is not None and self.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.ident), ctypes.py_object(_Interrupted)
            )


def run_metric(name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker thread limited to :data:`TIME_LIMIT` seconds, with
    every error turned into a ``gr.Error`` carrying only its message, and the ``UserWarning``s
    it raises shown as ``gr.Warning`` toasts of this request."""
    _install_warning_hook()
    job = _Scoring(fn, args, kwargs)
    job.start()
    job.join(TIME_LIMIT)
    if job.is_alive():
        job.interrupt()
        raise fail(
            f"{name}: scoring took longer than the limit of {TIME_LIMIT:g} s (wall clock) and was "
            "stopped; score a smaller request, or run metricore locally."
        )
    err = job.error
    if err is not None:
        if isinstance(err, gr.Error):
            raise err
        if isinstance(err, (TypeError, ValueError, LookupError, ImportError)):
            raise fail(str(err)) from None
        if isinstance(err, RecursionError):
            raise fail(f"{name}: the input is nested too deeply to score") from None
        if isinstance(err, MemoryError):
            raise fail(f"{name}: the request needs more memory than this Space has") from None
        if isinstance(err, Exception):  # a bug must not show a stack trace (or an empty error)
            raise fail(f"{name}: unexpected {type(err).__name__}: {err}") from None
        raise err
    for w in job.caught:
        if issubclass(w.category, UserWarning):
            gr.Warning(html.escape(str(w.message), quote=False))
    return job.result


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def _intervals(headline: Mapping[str, Any]) -> list[tuple[str, Any, tuple[float, float] | None]]:
    """``(key, value, (low, high) or None)`` for each headline number, its interval attached."""
    out = []
    for key, value in headline.items():
        for suffix in (_CI_LOW, _CI_HIGH):
            if key.endswith(suffix) and key[: -len(suffix)] in headline:
                break
        else:
            low, high = headline.get(key + _CI_LOW), headline.get(key + _CI_HIGH)
            ci = (low, high) if isinstance(low, float) and isinstance(high, float) else None
            out.append((key, value, ci))
    return out


def headline_html(headline: Mapping[str, Any], n: int, level: float | None) -> str:
    esc = html.escape
    cells = []
    for key, value, ci in _intervals(headline):
        text = _fmt(value) + (f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "")
        data = f'data-key="{esc(key)}" data-value="{esc(repr(value))}"'
        if ci:
            data += f' data-ci-low="{ci[0]!r}" data-ci-high="{ci[1]!r}"'
        cells.append(
            f'<div class="mc-stat" {data}><div class="mc-label">{esc(key)}</div>'
            f'<div class="mc-value">{esc(text)}</div></div>'
        )
    note = f"{n:,} sample{'s' if n != 1 else ''}"
    if level is not None and any(ci for _, _, ci in _intervals(headline)):
        note += f" · [low, high]: {level:.0%} bootstrap interval (resampling the samples)"
    return f'<div class="mc-headline">{"".join(cells)}</div><p class="mc-note">{note}</p>'


HEADLINE_CSS = """
.mc-headline { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 4px; }
.mc-stat { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 14px; min-width: 110px; }
.mc-label { font-size: 0.85em; opacity: 0.75; }
.mc-value { font-size: 1.45em; font-weight: 600; font-variant-numeric: tabular-nums; }
.mc-note { font-size: 0.85em; opacity: 0.75; margin: 6px 0 0; }
"""


def _bin_counts(scores: Sequence[float], score_range: tuple[float, float]) -> list[int]:
    """Counts in ten equal bins over ``score_range``; scores outside go to the end bins."""
    lo, hi = score_range
    counts = [0] * _HIST_BINS
    for s in scores:
        counts[min(max(int((s - lo) / (hi - lo) * _HIST_BINS), 0), _HIST_BINS - 1)] += 1
    return counts


def _histogram_svg(
    scores: Sequence[float],
    score_range: tuple[float, float],
    marker: tuple[str, float, tuple[float, float] | None] | None = None,
) -> str:
    """The score histogram as inline SVG; ``marker`` = (label, headline value, interval or
    None) is drawn as a dashed line over a band (no plotting library, nothing fetched)."""
    lo, hi = score_range
    counts = _bin_counts(scores, score_range)
    width, height, left, right, top, bottom = 640, 236, 40, 18, 34, 40
    pw, ph = width - left - right, height - top - bottom
    tallest = max(counts) or 1
    bw = pw / _HIST_BINS

    def x(v: float) -> float:
        return left + (min(max(v, lo), hi) - lo) / (hi - lo) * pw

    esc = html.escape
    out = [
        f'<svg class="mc-hist" viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
        f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Score histogram" '
        f'data-counts="{",".join(map(str, counts))}" font-family="ui-sans-serif, system-ui, sans-serif" '
        f'font-size="11" fill="currentColor">',
        f'<text x="{left}" y="14" font-size="13" font-weight="600">Score histogram ({len(scores):,} samples)</text>',
    ]
    if marker is not None and marker[2] is not None:
        c_lo, c_hi = marker[2]
        out.append(
            f'<rect class="mc-ci" x="{x(c_lo):.1f}" y="{top}" width="{max(x(c_hi) - x(c_lo), 1.5):.1f}" '
            f'height="{ph}" fill="#f97316" fill-opacity="0.22" data-low="{c_lo!r}" data-high="{c_hi!r}"/>'
        )
    for i, c in enumerate(counts):
        h = c / tallest * ph
        x0 = left + i * bw
        edge_lo, edge_hi = lo + i * (hi - lo) / _HIST_BINS, lo + (i + 1) * (hi - lo) / _HIST_BINS
        out.append(
            f'<rect x="{x0 + 1.5:.1f}" y="{top + ph - h:.1f}" width="{bw - 3:.1f}" height="{h:.1f}" '
            f'fill="#6366f1" fill-opacity="0.85"><title>{edge_lo:.4g}–{edge_hi:.4g}: {c}</title></rect>'
        )
        if c:  # inside the bar when it fits, so the marker's label above the plot stays clear
            inside = h >= 16
            y = top + ph - h + (12 if inside else -3)
            fill = ' fill="white"' if inside else ""
            out.append(f'<text x="{x0 + bw / 2:.1f}" y="{y:.1f}" text-anchor="middle"{fill}>{c}</text>')
    out.append(
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="currentColor" stroke-opacity="0.5"/>'
    )
    for i in range(_HIST_BINS + 1):
        tx = left + i * bw
        out.append(
            f'<text x="{tx:.1f}" y="{top + ph + 14}" text-anchor="middle">{lo + i * (hi - lo) / _HIST_BINS:.4g}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle" opacity="0.75">per-sample score</text>'
    )
    if marker is not None:
        label, value, ci = marker
        mx = x(value)
        text = f"{label} {_fmt(value)}" + (f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "")
        anchor = "start" if mx < left + pw * 0.2 else "end" if mx > left + pw * 0.8 else "middle"
        out.append(
            f'<line class="mc-mean" x1="{mx:.1f}" y1="{top - 4}" x2="{mx:.1f}" y2="{top + ph}" stroke="#ea580c" '
            f'stroke-width="2" stroke-dasharray="5 3" data-value="{value!r}"/>'
            f'<text x="{mx:.1f}" y="{top - 8}" text-anchor="{anchor}" fill="#ea580c" font-weight="600">{esc(text)}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _marker(
    spec: SpaceSpec, headline: Mapping[str, Any]
) -> tuple[str, float, tuple[float, float] | None] | None:
    entries = {key: (value, ci) for key, value, ci in _intervals(headline)}
    for key in spec.plotted or tuple(entries)[:1]:
        if key in entries and isinstance(entries[key][0], float):
            return key, entries[key][0], entries[key][1]
    return None


def _table_value(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.insert(0, "#", range(len(rows)))
    return frame.round(4)


# ----------------------------------------------------------------------------- the app


def _input_help(spec: SpaceSpec) -> str:
    text = (
        f"**Input.** One row per sample: `prediction` and `references`. References as a JSON "
        f'list (`["a", "b"]`) give several gold answers; other text is one answer (`[""]` is an '
        f'empty gold). JSONL: one `{{"prediction": ..., "references": ...}}` per line; a CSV '
        f"file has the columns `prediction` and `references`. "
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


@dataclass(frozen=True)
class Rendered:
    """The scoring event of a rendered Space, to run it on page load or on a tab switch."""

    fn: Callable[..., Any]
    inputs: list[Any]
    outputs: list[Any]


def render(spec: SpaceSpec, *, api_prefix: str = "") -> Rendered:
    """Lay out the Space for ``spec`` inside the current ``gr.Blocks`` (or tab) and wire its
    events; the API endpoints are ``/<api_prefix>compute`` and ``/<api_prefix>compute_ui``."""
    examples = [_example_inputs(spec, ex) for ex in spec.examples]
    first_variant, _, first_cells, *first_params = (
        examples[0]
        if examples
        else (
            spec.default_variant or "",
            "table",
            [["", ""]] * 3,
            *(p.default_for(spec.default_variant) for p in spec.params),
        )
    )
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
        interval = gr.Checkbox(
            value=False,
            label=f"{CONFIDENCE:.0%} bootstrap interval",
            info="resample the samples: an interval for each headline number",
            visible=spec.confidence,
        )

    examples_slot = gr.Column()
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
        elem_classes=["mc-input-table"],
    )
    jsonl = gr.Code(
        value='{"prediction": "...", "references": ["...", "..."]}\n',
        language="json",
        label="JSONL (one object per line)",
        visible=False,
        elem_classes=["mc-jsonl"],
    )
    upload = gr.File(
        file_types=[".jsonl", ".json", ".csv"],
        label="JSONL or CSV file",
        visible=False,
        elem_classes=["mc-upload"],
    )
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
    button = gr.Button("Compute", variant="primary", elem_classes=["mc-compute"])
    headline = gr.HTML(css_template=HEADLINE_CSS, js_on_load=None, elem_classes=["mc-headline-box"])
    per_sample = gr.Dataframe(
        label="Per sample (sort or filter from a column header's ⋮ menu)",
        interactive=False,
        wrap=True,
        max_height=420,
        show_search="search",
        elem_classes=["mc-per-sample"],
    )
    histogram = gr.HTML(js_on_load=None, elem_classes=["mc-histogram"])
    signature = gr.Textbox(
        label="Signature", interactive=False, buttons=["copy"], elem_classes=["mc-signature"]
    )

    @guarded(spec.name)
    def run_ui(variant_value, source_value, table_value, jsonl_value, file_value, interval_value, *values):
        v = variant_value if spec.variants else None
        structured = v in spec.structured_variants
        if source_value == "JSONL":
            preds, refs = _jsonl_columns(jsonl_value or "", "JSONL")
        elif source_value == "file":
            preds, refs = _file_columns(file_value, structured)
        else:
            preds, refs = _rows_to_columns(_table_rows(table_value), structured, "table")
        params = {p.name: val for p, val in zip(spec.params, values) if p.applies_to(v)}
        level = CONFIDENCE if interval_value and spec.confidence else None
        head, rows, sig = score(spec, preds, refs, v, params, level)
        key = spec.score_column
        scores = [float(r[key]) for r in rows if isinstance(r.get(key), (int, float))]
        return (
            headline_html(head, len(rows), level),
            _table_value(rows),
            _histogram_svg(scores, spec.score_range, _marker(spec, head)),
            sig,
        )

    ui_inputs = [variant, source, table, jsonl, upload, interval, *controls]
    ui_outputs = [headline, per_sample, histogram, signature]
    button.click(
        run_ui, ui_inputs, ui_outputs, api_name=f"{api_prefix}compute_ui", api_visibility="undocumented"
    )
    interval.input(run_ui, ui_inputs, ui_outputs, api_visibility="private")
    if examples:
        with examples_slot:
            loaded = gr.Examples(
                examples,
                inputs=[variant, source, table, *controls],
                cache_examples=False,
                example_labels=[ex.label for ex in spec.examples],
                label="Worked examples from the metric card (one click loads and scores)",
                examples_per_page=20,
                api_visibility="private",
            )
        loaded.load_input_event.then(run_ui, ui_inputs, ui_outputs, api_visibility="private")

    @guarded(spec.name)
    def compute(
        predictions: list,
        references: list,
        variant: str = "",
        params: dict | None = None,
        confidence: float = 0.0,
    ) -> dict:
        """Score `predictions` against `references` (one entry each per sample).

        Tuples of alternatives are written {"__tuple__": [...]}. `confidence` (e.g. 0.95)
        adds `<headline>_ci_low`/`_ci_high` where the Space offers intervals. Returns
        {"headline": {...}, "rows": [{...}, ...], "signature": "..."}.
        """
        head, rows, sig = score(
            spec, untag(predictions), untag(references), variant or None, params, confidence or None
        )
        return {"headline": head, "rows": rows, "signature": sig}

    gr.api(compute, api_name=f"{api_prefix}compute")

    gr.Markdown("---")
    gr.Markdown(spec.card(), latex_delimiters=[{"left": "$$", "right": "$$", "display": True}])
    return Rendered(run_ui, ui_inputs, ui_outputs)


def build_app(spec: SpaceSpec) -> gr.Blocks:
    """The Space for ``spec``: UI plus the ``/compute`` API endpoint; the page opens with
    the first worked example loaded and scored."""
    with gr.Blocks(title=spec.title, analytics_enabled=False) as demo:
        rendered = render(spec)
        if spec.examples:
            demo.load(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


@dataclass(frozen=True)
class CustomSpace:
    """A Space that lays itself out: ``render(api_prefix)`` builds its components inside the
    current Blocks (API endpoints under ``/<api_prefix>...``) and returns the event to run
    when the page or its tab opens, or ``None``. For metrics whose input is not one
    prediction/reference pair per sample (the challenge score); :func:`build_custom_app`
    and :func:`build_index` serve it like a :class:`SpaceSpec`."""

    name: str
    title: str
    render: Callable[[str], Rendered | None]
    label: str = ""


def build_custom_app(space: CustomSpace) -> gr.Blocks:
    with gr.Blocks(title=space.title, analytics_enabled=False) as demo:
        rendered = space.render("")
        if rendered is not None:
            demo.load(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


def build_index(specs: Sequence[SpaceSpec | CustomSpace], *, title: str, intro: str) -> gr.Blocks:
    """One app with a tab per Space (the index Space). Each tab is the metric's own app,
    with its API under ``/<name>_compute``; a tab scores its first example when first shown."""
    if not specs:
        raise ValueError("build_index: no Space to show")
    with gr.Blocks(title=title, analytics_enabled=False) as demo:
        gr.Markdown(intro)
        with gr.Tabs():
            for i, spec in enumerate(specs):
                with gr.Tab(spec.label or spec.name, id=spec.name) as tab:
                    if isinstance(spec, SpaceSpec):
                        rendered: Rendered | None = render(spec, api_prefix=f"{spec.name}_")
                        rendered = rendered if spec.examples else None  # nothing to score on opening
                    else:
                        rendered = spec.render(f"{spec.name}_")
                if rendered is not None:
                    event = demo.load if i == 0 else tab.select
                    event(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


def system_theme() -> Any:
    """Gradio's default theme on system fonts (the default fetches Google Fonts from the browser)."""
    return gr.themes.Default(
        font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
    )


class BodyLimit:
    """ASGI middleware: HTTP 413 for a request whose body is over ``max_bytes``, from its
    ``Content-Length`` before anything is read, or while a body without one streams in."""

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", ()):
            if key == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(send, int(value))
                return
        seen, over, answered = 0, False, False

        async def limited() -> Any:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True  # the app sees a client that went away, and stops reading
                    return {"type": "http.disconnect"}
            return message

        async def checked_send(message: Any) -> None:
            nonlocal answered
            if not over:
                await send(message)
            elif not answered:
                answered = True
                await self._refuse(send, seen)

        try:
            await self.app(scope, limited, checked_send)
        except Exception:
            if not over:
                raise
        if over and not answered:
            await self._refuse(send, seen)

    async def _refuse(self, send: Any, size: int) -> None:
        body = json.dumps(
            {
                "error": f"Request body too large: {size:,} bytes or more "
                f"(limit: {self.max_bytes:,} bytes = {self.max_bytes / 2**20:g} MB)."
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def launch(spec_or_app: SpaceSpec | CustomSpace | gr.Blocks, **kwargs: Any) -> Any:
    """Serve on ``GRADIO_SERVER_NAME``:``GRADIO_SERVER_PORT`` (default 127.0.0.1:7860), no
    share link, no analytics, no MCP server, system fonts (nothing fetched by the page), with
    the limits of the module docstring: :data:`CONCURRENCY` requests per event at once and
    :data:`MAX_QUEUE` waiting, bodies up to :data:`MAX_BODY_BYTES`, every error's message
    shown."""
    if isinstance(spec_or_app, SpaceSpec):
        demo = build_app(spec_or_app)
    elif isinstance(spec_or_app, CustomSpace):
        demo = build_custom_app(spec_or_app)
    else:
        demo = spec_or_app
    options: dict[str, Any] = {
        "server_name": os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1",
        "server_port": int(os.environ.get("GRADIO_SERVER_PORT") or 7860),
        "share": False,
        "ssr_mode": False,
        "mcp_server": False,
        "max_file_size": MAX_UPLOAD_BYTES,
        "footer_links": ["api"],
        "theme": system_theme(),
        "show_error": True,
        "app_kwargs": {"middleware": [Middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)]},
    }
    options.update(kwargs)
    return demo.queue(default_concurrency_limit=CONCURRENCY, max_size=MAX_QUEUE).launch(**options)
