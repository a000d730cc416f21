"""The one Gradio UI builder behind every ``spaces/<name>/app.py`` (and the index Space).

A metric's Space is built from its spec (:mod:`metricore.registry`): ``spaces/<name>/app.py``
is ``demo = metric_app("<name>", __file__)``. Every Space has the same app: config selector,
option controls, input as an editable table, pasted JSONL or an uploaded JSONL/JSON/CSV file
(the CLI's reader), one-click worked examples, headline numbers (with a bootstrap interval),
a sortable per-sample table whose *why* column says how each sample scored, a score
histogram, the reproducibility signature and the metric card. The scoring is also the API
endpoint ``/compute`` for ``gradio_client``::

    Client(url).predict(predictions=[...], references=[...], variant="docvqa",
                        params={"threshold": 0.5}, confidence=0, api_name="/compute")
    -> {"headline": {...}, "rows": [{...}, ...], "signature": "..."}

Modules: :mod:`.builder` (the app of a spec, the index), :mod:`.controls` (controls from
options), :mod:`.inputs` (the three input sources), :mod:`.display` (headline, histogram,
table), :mod:`.limits` (what a request may cost, refusals), :mod:`.runner` (scoring in a
worker with a time limit; one-time data). This is the only package of the project that
imports ``gradio`` (with the challenge Space, which lays itself out).
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from metricore_hf.space.builder import (  # noqa: E402
    CONFIDENCE,
    CustomSpace,
    MetricSpace,
    Rendered,
    build_app,
    build_custom_app,
    build_index,
    card_markdown,
    index_spaces,
    launch,
    load_space,
    metric_app,
    metric_card,
    metric_space,
    render,
    score,
    system_theme,
)
from metricore_hf.space.display import HEADLINE_CSS, display, headline_html  # noqa: E402
from metricore_hf.space.limits import (  # noqa: E402
    CONCURRENCY,
    MAX_BODY_BYTES,
    MAX_CHARS,
    MAX_QUEUE,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    MAX_WORK,
    TIME_LIMIT,
    check_strings_limit,
    check_work,
    fail,
)
from metricore_hf.space.runner import Preparation, guarded, run_metric  # noqa: E402

__all__ = [
    "CONCURRENCY",
    "CONFIDENCE",
    "HEADLINE_CSS",
    "MAX_BODY_BYTES",
    "MAX_CHARS",
    "MAX_QUEUE",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "MAX_WORK",
    "TIME_LIMIT",
    "CustomSpace",
    "MetricSpace",
    "Preparation",
    "Rendered",
    "build_app",
    "build_custom_app",
    "build_index",
    "card_markdown",
    "check_strings_limit",
    "check_work",
    "display",
    "fail",
    "guarded",
    "headline_html",
    "index_spaces",
    "launch",
    "load_space",
    "metric_app",
    "metric_card",
    "metric_space",
    "render",
    "run_metric",
    "score",
    "system_theme",
]
