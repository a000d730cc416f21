"""Hugging Face Space for ANLS (docvqa, stvqa_paper, anls_star, dude); the UI is
metricore_hf.space, every fact about the metric comes from metricore.registry."""

from metricore.registry import get
from metricore_hf.space import (
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    explain,
    launch,
    metric_card,
    spec_description,
    spec_examples,
    spec_params,
)

METRIC = get("anls")


def score(predictions, references, variant, threshold, confidence=None):
    options = {"threshold": threshold}
    r = METRIC.run(variant, predictions, references, **options)
    why = explain(METRIC, variant, predictions, references, options, r)
    rows = [
        {"prediction": display(p), "best gold": display(g), "score": s, "why": w}
        for p, g, s, w in zip(predictions, r.closest, r.scores, why)
    ]
    return add_intervals({"ANLS": r.anls}, r, {"ANLS": "anls"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="anls",
    label="ANLS",
    title=METRIC.title,
    description=spec_description(METRIC),
    variants=METRIC.config_names,
    structured_variants=tuple(c.name for c in METRIC.configs if c.json_cells),
    params=spec_params(METRIC, {"threshold": {"label": "threshold τ", "step": 0.05}}),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "anls"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
