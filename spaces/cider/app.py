"""Hugging Face Space for CIDEr-D (COCO caption evaluation) and plain CIDEr; the UI is
metricore_hf.space."""

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

METRIC = get("cider")
LABELS = {"cider_d": "CIDEr-D", "cider": "CIDEr"}


def score(predictions, references, variant, n, tokenize, sigma=None, confidence=None):
    n = int(n) if isinstance(n, float) and n.is_integer() else n  # a UI slider sends 4.0
    options = {"n": n, "tokenize": tokenize, **({"sigma": sigma} if sigma is not None else {})}
    r = METRIC.run(variant, predictions, references, **options)
    why = explain(METRIC, variant, predictions, references, options, r)
    rows = [
        {"prediction": p, "score": s, "why": w, "references": display([x] if isinstance(x, str) else list(x))}
        for p, x, s, w in zip(predictions, references, r.scores, why)
    ]
    label = LABELS[variant]
    return add_intervals({label: r.cider}, r, {label: "cider"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="cider",
    label="CIDEr",
    title=METRIC.title,
    description=spec_description(
        METRIC,
        "Scores depend on which images are scored together: score the whole test set at once. The *why* "
        "column counts the candidate's n-grams (after PTB tokenization) that some reference of the image "
        "contains, before tf-idf weighting, clipping and the length penalty.",
    ),
    variants=METRIC.config_names,
    params=spec_params(
        METRIC,
        {
            "n": {"label": "n (longest n-gram)", "maximum": 8},
            "tokenize": {"label": "PTB tokenization"},
            "sigma": {"label": "sigma σ", "minimum": 0.5, "maximum": 20.0, "step": 0.5},
        },
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    score_range=(0.0, 10.0),
    card_path=metric_card(__file__, "cider"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
