"""The one builder of every metric's Space, from its spec (:mod:`metricore.registry`).

``spaces/<name>/app.py`` is ``demo = metric_app("<name>", __file__)``: the title, summary,
configs, controls (from the options), worked examples, the per-sample table (from the
result's :meth:`~metricore.core.result.MetricResult.per_item` and the spec's explanations),
the histogram (the spec's score range, the result's main headline), the bootstrap intervals
(the spec's statistics) and the data a config prepares once per machine all come from the
spec; the card is the metric card beside the app. A metric whose input is not one prediction
and its references per row (the challenge score) lays itself out as a :class:`CustomSpace`.
"""

from __future__ import annotations

import math
import os
import re
import runpy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

from metricore import registry
from metricore.core.spec import BoundMetric, Config, MetricSpec
from metricore.core.structured import MAX_DEPTH, check_depth, jsonable, nesting_depth, untag
from metricore_hf.space.controls import Control, controls_of
from metricore_hf.space.display import (
    HEADLINE_CSS,
    headline_html,
    histogram_svg,
    table_value,
    with_intervals,
)
from metricore_hf.space.inputs import file_columns, jsonl_columns, table_columns, table_rows, value_to_cell
from metricore_hf.space.limits import (
    CONCURRENCY,
    MAX_BODY_BYTES,
    MAX_CHARS,
    MAX_QUEUE,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    STATE_SESSIONS,
    BodyLimit,
    check_limits,
    check_work,
    fail,
)
from metricore_hf.space.runner import (
    Preparation,
    compiled_paths_note,
    guarded,
    isolated,
    run_metric,
    start_workers,
)
from metricore_hf.workers import Scored, ScoreRequest, score_rows

__all__ = [
    "CONFIDENCE",
    "CustomSpace",
    "MetricSpace",
    "Rendered",
    "build_app",
    "build_custom_app",
    "build_index",
    "card_markdown",
    "index_spaces",
    "launch",
    "load_space",
    "metric_app",
    "metric_card",
    "metric_space",
    "render",
    "score",
    "system_theme",
]

#: the level of the interval the checkbox asks for
CONFIDENCE = 0.95
_SOURCES = ("table", "JSONL", "file")
_YAML_HEADER = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)


# ----------------------------------------------------------------------------- the Space of a spec


@dataclass(frozen=True, eq=False)
class MetricSpace:
    """A metric's Space: its spec, its card, its controls and its one-time data."""

    metric: MetricSpec
    card_path: Path | None = None
    controls: tuple[Control, ...] = field(init=False)
    data: Preparation | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "controls", controls_of(self.metric))
        need = self.metric.data
        data = None
        if need is not None and need.available():
            # built in a process of its own: its peak memory is given back when it ends
            data = Preparation(need.what, isolated(need.prepare), need.prepared)
        object.__setattr__(self, "data", data)

    @property
    def name(self) -> str:
        return self.metric.name

    @property
    def label(self) -> str:
        return self.metric.label or self.metric.name

    @property
    def title(self) -> str:
        return self.metric.title

    @property
    def confidence(self) -> bool:
        return self.metric.statistics is not None or self.metric.intervals is not None

    def card(self) -> str:
        return card_markdown(self.card_path, self.name)

    def description(self) -> str:
        """The spec's summary, each config with its reference, and its notes."""
        configs = "; ".join(f"`{c.name}`: {c.reference}" for c in self.metric.configs)
        notes = f" {self.metric.notes}" if self.metric.notes else ""
        return f"{self.metric.summary} Variants: {configs}.{notes}"

    def start_data(self) -> None:
        """Build the one-time data (if any) in the background, from start-up on."""
        if self.data is not None:
            self.data.start()


def metric_space(name: str, app_file: str | Path | None = None) -> MetricSpace:
    """The Space of metric ``name`` (its card found from ``app_file``, see :func:`metric_card`)."""
    return MetricSpace(registry.get(name), None if app_file is None else metric_card(app_file, name))


def metric_app(name: str, app_file: str | Path | None = None) -> gr.Blocks:
    """The whole app of metric ``name``: ``spaces/<name>/app.py`` is this call."""
    space = metric_space(name, app_file)
    space.start_data()
    start_workers([name])
    return build_app(space)


# ----------------------------------------------------------------------------- scoring


def _check_confidence(space: MetricSpace, confidence: Any) -> float | None:
    if confidence is None or confidence is False or confidence == 0:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise fail(
            f"`confidence` must be a level in (0, 1) such as 0.95, or 0 for none; got {confidence!r:.60}."
        )
    if not space.confidence:
        raise fail(f"The {space.name} Space offers no confidence interval.")
    return float(confidence)


def _with_data(
    space: MetricSpace, config: Config, options: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """``options``, or the config's fallback while its one-time data is being prepared (with
    the note that says so); a config that cannot do without the data is refused until it is
    there."""
    need, data = space.metric.data, space.data
    if need is None or data is None or config.name not in need.configs:
        return options, None
    data.start()
    if data.ready():
        return options, None
    fallback = need.fallback.get(config.name)
    if fallback is None:
        raise ValueError(
            f"{need.what} is being prepared (a few seconds, once per machine); score again shortly"
        )
    given = {**config.defaults, **options}
    if all(given.get(k) == v for k, v in fallback.items()):  # asked for nothing the data gives
        return options, None
    note = (
        f"{need.what} is being prepared (a few seconds, once per machine): this result is scored without "
        "it; score again shortly"
    )
    return {**options, **fallback}, note


def _bind(
    space: MetricSpace, config: str | None, params: Mapping[str, Any]
) -> tuple[BoundMetric, str | None]:
    metric = space.metric
    try:
        chosen = metric.config(config or None)
        by_name = {c.name: c for c in space.controls}
        options = {k: by_name[k].value_for_core(v) if k in by_name else v for k, v in params.items()}
        options, note = _with_data(space, chosen, options)
        return metric.bind_options(chosen.name, options), note
    except (TypeError, ValueError) as err:
        raise fail(str(err)) from None


def _request(
    bound: BoundMetric, predictions: list[Any], references: list[Any], confidence: float | None
) -> ScoreRequest:
    """What the worker scores: the metric by its registry name (its spec itself when it is
    not the registry's), the config, the bound options and the rows."""
    spec = bound.spec
    try:
        same = registry.get(spec.name) is spec
    except ValueError:
        same = False
    return ScoreRequest(
        spec.name if same else spec,
        bound.config.name,
        dict(bound.options),
        predictions,
        references,
        confidence,
    )


def score(
    space: MetricSpace,
    predictions: Sequence[Any],
    references: Sequence[Any],
    config: str | None = None,
    params: Mapping[str, Any] | None = None,
    confidence: float | None = None,
) -> Scored:
    """Check the limits, bind the config and options (the spec's one check), check the work
    budget, then score in a worker process with the time and memory limits
    (:func:`~.runner.run_metric`): the headline, the per-sample rows and the signature as
    plain data (:class:`~metricore_hf.workers.Scored`).

    Every problem with the input, and any error of the metric, is raised as ``gr.Error`` with
    the message only; the metric's ``UserWarning``s become ``gr.Warning`` toasts.
    """
    if isinstance(predictions, (str, bytes, Mapping)) or isinstance(references, (str, bytes, Mapping)):
        raise fail("`predictions` and `references` must be lists (one entry per sample).")
    predictions, references = list(predictions), list(references)
    check_limits(predictions, references)
    if params is not None and not isinstance(params, Mapping):
        raise fail("`params` must be an object mapping option names to values.")
    level = _check_confidence(space, confidence)
    bound, note = _bind(space, config, params or {})
    work = _check_budget(bound, predictions, references, level)
    scored = run_metric(space.name, score_rows, _request(bound, predictions, references, level), work=work)
    if note is not None:
        gr.Warning(note)
    return scored


def _check_budget(
    bound: BoundMetric, predictions: list[Any], references: list[Any], level: float | None
) -> float | None:
    """The request's estimated work (``None`` for a malformed request, whose problem the
    metric's own checks name), refused over the budget."""
    from metricore.specs._cost import bootstrap_cost, describe

    try:
        work = bound.cost(predictions, references)
    except (TypeError, ValueError, LookupError):
        return None
    if level is not None:
        work += bootstrap_cost(bound.spec.name, bound.config.name, predictions, references)
    check_work(work, describe(predictions, references))
    return work


def _marker(scored: Scored) -> tuple[str, float, tuple[float, float] | None] | None:
    """The main headline number on the per-item scores' scale, and its interval."""
    key = scored.main_key
    if key is None:
        return None
    value = scored.headline.get(key)
    if not isinstance(value, float) or not math.isfinite(value):
        return None
    scale = scored.item_scale
    ci = dict((k, c) for k, _, c in with_intervals(scored.headline)).get(key)
    return key, value / scale, None if ci is None else (ci[0] / scale, ci[1] / scale)


# ----------------------------------------------------------------------------- the app


def _input_help(space: MetricSpace) -> str:
    text = (
        "**Input.** One row per sample: `prediction` and `references`. References as a JSON "
        'list (`["a", "b"]`) give several gold answers; other text is one answer (`[""]` is an '
        'empty gold). JSONL: one `{"prediction": ..., "references": ...}` per line (an `id` is kept); a '
        "file (.jsonl, .json, .csv, .tsv) has the fields or columns `prediction` and `references`. "
        f"Limits: {MAX_ROWS:,} rows, {MAX_CHARS:,} characters per string."
    )
    structured = [c.name for c in space.metric.configs if c.structured]
    if structured:
        text += (
            f" For {', '.join(f'`{v}`' for v in structured)} every cell is read as "
            'JSON when it parses (tuples of alternatives as `{"__tuple__": [...]}`).'
        )
    return text


def _example_inputs(space: MetricSpace, index: int) -> list[Any]:
    """``[config, source, table cells, *control values]`` for one worked example."""
    ex = space.metric.examples[index]
    config = space.metric.config(ex.config)
    cells = [
        [value_to_cell(p, config.structured, False), value_to_cell(r, config.structured, True)]
        for p, r in zip(ex.predictions, ex.references)
    ]
    values = [ex.options.get(c.name, c.default_for(config.name)) for c in space.controls]
    return [config.name, "table", cells, *values]


@dataclass(frozen=True)
class Rendered:
    """The scoring event of a rendered Space, to run it on page load or on a tab switch."""

    fn: Callable[..., Any]
    inputs: list[Any]
    outputs: list[Any]


def _ui_columns(space: MetricSpace, config: str, source: str, table: Any, jsonl: str, file: Any) -> tuple:
    structured = space.metric.config(config).structured
    if source == "JSONL":
        return jsonl_columns(jsonl or "")
    if source == "file":
        return file_columns(file, structured)
    return table_columns(table_rows(table), structured)


def render(space: MetricSpace, *, api_prefix: str = "") -> Rendered:
    """Lay out ``space`` inside the current ``gr.Blocks`` (or tab) and wire its events; the API
    endpoints are ``/<api_prefix>compute`` and ``/<api_prefix>compute_ui``."""
    metric = space.metric
    examples = [_example_inputs(space, i) for i in range(len(metric.examples))]
    first_config, _, first_cells, *_ = (
        examples[0] if examples else (metric.default_config, "table", [["", ""]] * 3)
    )
    gr.Markdown(f"# {space.title}\n\n{space.description()}")
    with gr.Row():
        config_box = gr.Dropdown(
            list(metric.config_names), value=first_config, label="Variant", visible=len(metric.configs) > 1
        )
        controls = [c.component(first_config) for c in space.controls]
        interval = gr.Checkbox(
            value=False,
            label=f"{CONFIDENCE:.0%} bootstrap interval",
            info="resample the samples: an interval for each headline number",
            visible=space.confidence,
        )
    examples_slot = gr.Column()
    gr.Markdown(_input_help(space))
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
        file_types=[".jsonl", ".json", ".csv", ".tsv"],
        label="JSONL, JSON or CSV file",
        visible=False,
        elem_classes=["mc-upload"],
    )
    source.change(
        lambda s: [gr.update(visible=s == name) for name in _SOURCES],
        source,
        [table, jsonl, upload],
        api_visibility="private",
    )
    if controls:
        # `.input`, not `.change`: loading an example sets the config and its own values
        config_box.input(
            lambda v: [gr.update(visible=c.applies_to(v), value=c.default_for(v)) for c in space.controls],
            config_box,
            controls,
            api_visibility="private",
        )
        config_box.change(
            lambda v: [gr.update(visible=c.applies_to(v)) for c in space.controls],
            config_box,
            controls,
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

    @guarded(space.name)
    def run_ui(config_value, source_value, table_value_, jsonl_value, file_value, interval_value, *values):
        config = metric.config(config_value or None).name
        preds, refs = _ui_columns(space, config, source_value, table_value_, jsonl_value, file_value)
        params = {c.name: v for c, v in zip(space.controls, values) if c.applies_to(config)}
        level = CONFIDENCE if interval_value and space.confidence else None
        scored = score(space, preds, refs, config, params, level)
        return (
            headline_html(jsonable(scored.headline), len(scored.rows), level),
            table_value(scored.rows),
            histogram_svg(scored.scores, metric.score_range, _marker(scored)),
            scored.signature,
        )

    ui_inputs = [config_box, source, table, jsonl, upload, interval, *controls]
    ui_outputs = [headline, per_sample, histogram, signature]
    button.click(
        run_ui, ui_inputs, ui_outputs, api_name=f"{api_prefix}compute_ui", api_visibility="undocumented"
    )
    interval.input(run_ui, ui_inputs, ui_outputs, api_visibility="private")
    if examples:
        with examples_slot:
            loaded = gr.Examples(
                examples,
                inputs=[config_box, source, table, *controls],
                cache_examples=False,
                example_labels=[ex.title for ex in metric.examples],
                label="Worked examples from the metric card (one click loads and scores)",
                examples_per_page=20,
                api_visibility="private",
            )
        loaded.load_input_event.then(run_ui, ui_inputs, ui_outputs, api_visibility="private")

    @guarded(space.name)
    def compute(
        predictions: list,
        references: list,
        variant: str = "",
        params: dict | None = None,
        confidence: float = 0.0,
    ) -> dict:
        """Score `predictions` against `references` (one entry each per sample) with config
        `variant` (empty: the default) and its options `params`.

        Tuples of alternatives are written {"__tuple__": [...]}. `confidence` (e.g. 0.95)
        adds `<headline>_ci_low`/`_ci_high`. Returns {"headline": {...}, "rows": [{...}, ...],
        "signature": "..."}; non-finite numbers are the strings "nan", "inf", "-inf".
        """
        for column, name in ((predictions, "predictions"), (references, "references")):
            _check_tagged_depth(column, name)
        scored = score(
            space, untag(predictions), untag(references), variant or None, params, confidence or None
        )
        return {
            "headline": jsonable(scored.headline),
            "rows": jsonable(scored.rows),
            "signature": scored.signature,
        }

    gr.api(compute, api_name=f"{api_prefix}compute")

    gr.Markdown("---")
    gr.Markdown(space.card(), latex_delimiters=[{"left": "$$", "right": "$$", "display": True}])
    return Rendered(run_ui, ui_inputs, ui_outputs)


def _check_tagged_depth(column: Any, name: str) -> None:
    """The core's message for an API item nested deeper than the core allows, before the
    (recursive) untagging could end in a RecursionError: a tuple travels as two levels
    (``{"__tuple__": [...]}``), so only an item past twice the core's depth is surely too deep
    here; the core names the others."""
    if not isinstance(column, list):
        return
    for i, value in enumerate(column):
        if nesting_depth(value, 2 * MAX_DEPTH + 1) > 2 * MAX_DEPTH + 1:
            try:
                check_depth(value, f"{name}[{i}]")
            except ValueError as err:
                raise fail(str(err)) from None


def build_app(space: MetricSpace) -> gr.Blocks:
    """The Space for ``space``: UI plus the ``/compute`` API endpoint; the page opens with the
    first worked example loaded and scored."""
    with gr.Blocks(title=space.title, analytics_enabled=False) as demo:
        rendered = render(space)
        if space.metric.examples:
            demo.load(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


# ----------------------------------------------------------------------------- custom Spaces, the index


@dataclass(frozen=True)
class CustomSpace:
    """A Space that lays itself out: ``render(api_prefix)`` builds its components inside the
    current Blocks (API endpoints under ``/<api_prefix>...``) and returns the event to run
    when the page or its tab opens, or ``None``. For metrics whose input is not one
    prediction/reference pair per sample (the challenge score); :func:`build_custom_app`
    and :func:`build_index` serve it like a :class:`MetricSpace`."""

    name: str
    title: str
    render: Callable[[str], Rendered | None]
    label: str = ""

    def start_data(self) -> None:
        """Nothing to prepare."""


def build_custom_app(space: CustomSpace) -> gr.Blocks:
    start_workers([space.name])
    with gr.Blocks(title=space.title, analytics_enabled=False) as demo:
        rendered = space.render("")
        if rendered is not None:
            demo.load(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


def load_space(app_file: str | Path) -> CustomSpace:
    """The ``SPEC`` (a :class:`CustomSpace`) of a Space's ``app.py`` that lays itself out (run
    by path; Space folders are not packages)."""
    namespace = runpy.run_path(str(app_file), run_name="metricore_space")
    spec = namespace.get("SPEC")
    if not isinstance(spec, CustomSpace):
        raise TypeError(f"{app_file}: defines no SPEC (a CustomSpace)")
    return spec


def index_spaces(folder: str | Path) -> list[MetricSpace | CustomSpace]:
    """Every registered metric's Space whose app is in this deployment (``<folder>/<name>/app.py``
    in a bundle, ``<folder>/../<name>/app.py`` in the repository), in the registry's order."""
    here = Path(folder).resolve()
    out: list[MetricSpace | CustomSpace] = []
    for name in registry.names():
        app = next((f for f in (here / name / "app.py", here.parent / name / "app.py") if f.is_file()), None)
        if app is None:
            continue
        metric = registry.get(name)
        out.append(metric_space(name, app) if metric.rows else load_space(app))
    return out


def build_index(spaces: Sequence[MetricSpace | CustomSpace], *, title: str, intro: str) -> gr.Blocks:
    """One app with a tab per Space (the index Space). Each tab is the metric's own app,
    with its API under ``/<name>_compute``; a tab scores its first example when first shown."""
    if not spaces:
        raise ValueError("build_index: no Space to show")
    start_workers(s.name for s in spaces)
    with gr.Blocks(title=title, analytics_enabled=False) as demo:
        gr.Markdown(intro)
        with gr.Tabs():
            for i, space in enumerate(spaces):
                space.start_data()
                with gr.Tab(space.label or space.name, id=space.name) as tab:
                    if isinstance(space, MetricSpace):
                        rendered: Rendered | None = render(space, api_prefix=f"{space.name}_")
                        rendered = rendered if space.metric.examples else None  # nothing to score on opening
                    else:
                        rendered = space.render(f"{space.name}_")
                if rendered is not None:
                    event = demo.load if i == 0 else tab.select
                    event(rendered.fn, rendered.inputs, rendered.outputs, api_visibility="private")
    return demo


# ----------------------------------------------------------------------------- cards, serving


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


def system_theme() -> Any:
    """Gradio's default theme on system fonts (the default fetches Google Fonts from the browser)."""
    return gr.themes.Default(
        font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
    )


def launch(app: MetricSpace | CustomSpace | gr.Blocks, **kwargs: Any) -> Any:
    """Serve on ``GRADIO_SERVER_NAME``:``GRADIO_SERVER_PORT`` (default 127.0.0.1:7860), no
    share link, no analytics, no MCP server, system fonts (nothing fetched by the page), with
    the limits of :mod:`metricore_hf.space.limits`: :data:`CONCURRENCY` requests per event at
    once and :data:`MAX_QUEUE` waiting, bodies up to :data:`MAX_BODY_BYTES`, the state of at
    most :data:`STATE_SESSIONS` sessions kept, every error's message shown; the scoring
    workers start warming up at once (:mod:`.runner`)."""
    if isinstance(app, MetricSpace):
        app.start_data()
        start_workers([app.name])
        demo = build_app(app)
    elif isinstance(app, CustomSpace):
        start_workers([app.name])
        demo = build_custom_app(app)
    else:
        demo = app
    start_workers(now=True)  # warm workers from start-up on, in the background
    print(f"metricore Space: {compiled_paths_note()}", flush=True)
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
        "state_session_capacity": STATE_SESSIONS,
        "app_kwargs": {"middleware": [Middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)]},
    }
    options.update(kwargs)
    return demo.queue(default_concurrency_limit=CONCURRENCY, max_size=MAX_QUEUE).launch(**options)
