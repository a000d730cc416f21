"""Hugging Face Space for the combined challenge score (built in: the AIJ 2022 FusionBrain
Challenge 2.0 integral score); the UI is this file on top of metricore_hf.space.

The input is a whole submission, not one prediction/reference pair per sample, so the app
lays itself out (a CustomSpace): the whole-submission example in one click, the submission
as JSON (typed in or uploaded), a per-task table with eligibility, and the integral score.
"""

import html
import json
from pathlib import Path

import gradio as gr
import pandas as pd

from metricore.challenge import WHOLE_SUBMISSION_EXAMPLE, load_challenge, score_challenge, score_submission
from metricore.challenge.score import submission_inputs, task_rows
from metricore.core.structured import jsonable, loads_strict
from metricore.registry import get
from metricore.specs._cost import array_shape, describe
from metricore.specs.challenge_score import ARRAYS
from metricore_hf.space import (
    HEADLINE_CSS,
    MAX_CHARS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    MAX_WORK,
    TIME_LIMIT,
    CustomSpace,
    Rendered,
    build_custom_app,
    card_markdown,
    check_strings_limit,
    check_work,
    fail,
    guarded,
    headline_html,
    launch,
    metric_card,
    run_metric,
)

SUBMISSION_KEYS = {"predictions", "references", "task_ids"}
EXAMPLE_JSON = json.dumps(WHOLE_SUBMISSION_EXAMPLE, ensure_ascii=False, indent=1)
CARD = metric_card(__file__, "challenge_score")
METRIC = get("challenge_score")
DESCRIPTION = (
    "The integral score of a multi-task challenge: each task is scored with its metric (or "
    "given as a score), **S = Σ weight · score**, and a task is *eligible* when its score reaches "
    "its threshold. Built in: the AIJ 2022 FusionBrain Challenge 2.0, S = (1/15) Σ open + "
    "(1/10) Σ hidden; thresholds TextQA 0.2, MathQA 0.25, ImageGeneration 0.21, "
    "ImageCaptioning 0.15, VisualQA 0.24, TRitW 0.13.\n\n"
    "**Input**: one JSON object, either the challenge's whole submission "
    '`{"predictions": {id: answer parts}, "references": {id: answer parts}, "task_ids": {id: task '
    'number}, "extra": {task: inputs the files cannot carry}}` (the example), or per-task inputs '
    '`{"TextQA": {"predictions": [...], "references": [...]}, "Hidden1": 0.31, ...}`. '
    f"Limits: {MAX_ROWS:,} samples, {MAX_CHARS:,} characters per string, "
    f"{MAX_UPLOAD_BYTES // 2**20} MB per file, an estimated {MAX_WORK / 1e6:g} s of work "
    f"(FID features: fewer samples than dimensions, or up to about 1,000 dimensions) and "
    f"{TIME_LIMIT:g} s of scoring per request (in a process of its own, stopped at the limit)."
)


def _check_limits(submission):
    if SUBMISSION_KEYS <= set(submission):
        n = len(submission["predictions"]) if isinstance(submission["predictions"], dict) else 0
    else:
        n = sum(len(v.get("predictions") or []) for v in submission.values() if isinstance(v, dict))
    if n > MAX_ROWS:
        raise fail(f"Too many samples: {n:,} (limit: {MAX_ROWS:,} samples per request).")
    for key, value in submission.items():
        check_strings_limit(value, str(key))


def _check_budget(inputs):
    """The challenge spec's cost of the per-task inputs against the Space's work budget: the
    estimated work (``None`` when malformed: scoring names the problem)."""
    try:
        rows, refs = task_rows(inputs)
    except (TypeError, ValueError, LookupError):
        return None
    work = METRIC.bind("fbc2").cost(rows, refs)
    if work <= MAX_WORK:
        return work
    texts = [{k: v for k, v in row.items() if k not in ARRAYS} for row in rows]
    size = describe(texts, refs).replace("rows", "tasks", 1)
    for row in rows:
        shapes = [array_shape(row.get(k)) for k in ("generated_features", "real_features")]
        if all(n for n, _ in shapes):
            size += (
                f", FID features {shapes[0][0]:,} x {shapes[0][1]:,} and {shapes[1][0]:,} x {shapes[1][1]:,}"
            )
    check_work(work, size)
    return work


def score(submission, missing="error"):
    """The :class:`~metricore.challenge.ChallengeResult` of ``submission`` (either form)."""
    if not isinstance(submission, dict):
        raise fail("The submission must be one JSON object (see the input formats above).")
    try:  # the spec's one check of the option
        missing = METRIC.bind("fbc2", missing=missing).options["missing"]
    except (TypeError, ValueError) as err:
        raise fail(str(err)) from None
    _check_limits(submission)
    if SUBMISSION_KEYS <= set(submission):
        unknown = sorted(set(submission) - SUBMISSION_KEYS - {"extra"})
        if unknown:
            raise fail(
                f"Unknown key(s) {unknown} in the whole submission; allowed: {sorted(SUBMISSION_KEYS | {'extra'})}."
            )
        try:
            inputs = submission_inputs(**submission)
        except (TypeError, ValueError, LookupError):
            inputs = {}  # malformed: scoring names the problem
        work = _check_budget(inputs)
        return run_metric("challenge_score", score_submission, **submission, missing=missing, work=work)
    work = _check_budget(submission)
    return run_metric("challenge_score", score_challenge, submission, missing=missing, work=work)


def _eligibility(task):
    if task.threshold is None:
        return "—"
    return f"✓ ≥ {task.threshold:g}" if task.eligible else f"✗ < {task.threshold:g}"


def task_table(result):
    rows = []
    for name, t in result.tasks.items():
        details = " · ".join(f"{k} {v:.4g}" for k, v in t.components.items())
        if t.n is not None:
            details = f"{t.n} sample{'s' if t.n != 1 else ''}" + (f" · {details}" if details else "")
        rows.append(
            {
                "task": name,
                "group": t.group,
                "metric": t.metric + (f" ({t.config})" if t.config else ""),
                "score": round(t.score, 4),
                "weight": round(t.weight, 4),
                "contribution": round(t.contribution, 4),
                "eligible": _eligibility(t),
                "source": t.source,
                "details": details,
            }
        )
    return pd.DataFrame(rows)


def task_chart(result):
    """Each task's score as a bar (0-1) with its threshold as a tick, as inline SVG."""
    tasks = list(result.tasks.values())
    width, row, left = 640, 22, 130
    height = 28 + row * len(tasks)
    pw = width - left - 60
    out = [
        f'<svg class="mc-tasks" viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
        'xmlns="http://www.w3.org/2000/svg" font-family="ui-sans-serif, system-ui, sans-serif" font-size="11" '
        'fill="currentColor"><text x="0" y="14" font-size="13" font-weight="600">Task scores and thresholds</text>'
    ]
    for i, t in enumerate(tasks):
        y = 24 + i * row
        colour = "#6366f1" if t.eligible is not False else "#dc2626"
        w = max(0.0, min(t.score, 1.0)) * pw
        out.append(
            f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{html.escape(t.task)}</text>'
            f'<rect x="{left}" y="{y + 3}" width="{w:.1f}" height="{row - 8}" fill="{colour}" fill-opacity="0.85"/>'
            f'<text x="{left + w + 4:.1f}" y="{y + 13}">{t.score:.3f}</text>'
        )
        if t.threshold is not None:
            tx = left + t.threshold * pw
            out.append(
                f'<line x1="{tx:.1f}" y1="{y + 1}" x2="{tx:.1f}" y2="{y + row - 3}" stroke="#ea580c" stroke-width="2"/>'
            )
    out.append("</svg>")
    return "".join(out)


def _read_submission(source, text, file):
    if source == "file":
        if not file:
            raise fail("No file uploaded: choose a .json file.")
        if Path(file).stat().st_size > MAX_UPLOAD_BYTES:
            raise fail(f"File too large (limit: {MAX_UPLOAD_BYTES // 2**20} MB).")
        try:
            text = Path(file).read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise fail("The file is not UTF-8 text.") from None
    try:
        return loads_strict(text or "")
    except ValueError as err:
        raise fail(f"The submission is not valid JSON: {err}.") from None
    except RecursionError:
        raise fail("The submission's JSON is nested too deeply.") from None


def render(api_prefix):
    spec = load_challenge("fbc2")
    gr.Markdown(f"# Challenge score: {spec.name} integral score\n\n{DESCRIPTION}")
    with gr.Row():
        example = gr.Button(
            "Load the whole-submission example (from the metric card)", elem_classes=["mc-example"]
        )
        option = METRIC.config("fbc2").option("missing")
        missing = gr.Dropdown(
            list(option.choices),
            value=option.default,
            label="a task without input",
            info="error, or score it 0 (the leaderboard's view of an unsolved task)",
        )
    source = gr.Radio(["JSON", "file"], value="JSON", label="Input from")
    editor = gr.Code(
        value=EXAMPLE_JSON,
        language="json",
        label="Submission (JSON)",
        max_lines=16,
        elem_classes=["mc-jsonl"],
    )
    upload = gr.File(file_types=[".json"], label="JSON file", visible=False, elem_classes=["mc-upload"])
    source.change(
        lambda s: [gr.update(visible=s == "JSON"), gr.update(visible=s == "file")],
        source,
        [editor, upload],
        api_visibility="private",
    )
    button = gr.Button("Compute", variant="primary", elem_classes=["mc-compute"])
    headline = gr.HTML(css_template=HEADLINE_CSS, js_on_load=None, elem_classes=["mc-headline-box"])
    tasks = gr.Dataframe(label="Per task", interactive=False, wrap=True, elem_classes=["mc-per-sample"])
    chart = gr.HTML(js_on_load=None, elem_classes=["mc-histogram"])
    signature = gr.Textbox(
        label="Signature", interactive=False, buttons=["copy"], elem_classes=["mc-signature"]
    )

    @guarded("challenge_score")
    def run_ui(source_value, text, file, missing_value):
        r = score(_read_submission(source_value, text, file), missing_value)
        head = {
            "integral": r.integral,
            **{f"{g} sum": v for g, v in r.group_sums.items()},
            "eligible": "yes" if r.eligible else "no",
        }
        n = len(r.tasks)
        page = headline_html(head, n, None).replace(f"{n:,} samples", f"{n} tasks")
        return page, task_table(r), task_chart(r), r.signature

    inputs, outputs = [source, editor, upload, missing], [headline, tasks, chart, signature]
    button.click(run_ui, inputs, outputs, api_name=f"{api_prefix}compute_ui", api_visibility="undocumented")
    example.click(lambda: ("JSON", EXAMPLE_JSON), None, [source, editor], api_visibility="private").then(
        run_ui, inputs, outputs, api_visibility="private"
    )

    @guarded("challenge_score")
    def compute(submission: dict, missing: str = "error") -> dict:
        """Score a whole submission or per-task inputs; returns the result as a dict
        (integral, <group>_sum, scores, eligibility, eligible, tasks, signature)."""
        return jsonable(score(submission, missing).as_dict())

    gr.api(compute, api_name=f"{api_prefix}compute")
    gr.Markdown("---")
    gr.Markdown(card_markdown(CARD, "challenge_score"))
    return Rendered(run_ui, inputs, outputs)


SPEC = CustomSpace(
    name="challenge_score",
    title="Challenge score (FusionBrain Challenge 2.0)",
    render=render,
    label="Challenge",
)
demo = build_custom_app(SPEC)

if __name__ == "__main__":
    launch(demo)
