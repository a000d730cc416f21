"""Hugging Face Space for 1-NED (ICDAR 2019 scene-text recognition); the UI is
metricore_hf.space, every fact about the metric comes from metricore.registry."""

from metricore.registry import get
from metricore_hf.space import (
    SpaceSpec,
    add_intervals,
    build_app,
    explain,
    launch,
    metric_card,
    spec_description,
    spec_examples,
    spec_params,
)

METRIC = get("one_minus_ned")


def score(predictions, references, variant, empty_pair, nfkc, lowercase=None, confidence=None):
    options = {"empty_pair": empty_pair, "nfkc": nfkc}
    if lowercase is not None:  # a config that lowercases itself has no such control
        options["lowercase"] = lowercase
    r = METRIC.run(variant, predictions, references, **options)
    why = explain(METRIC, variant, predictions, references, options, r)
    rows = [
        {"prediction": p, "best gold": g, "score": s, "distance": d, "why": w}
        for p, g, s, d, w in zip(predictions, r.closest, r.scores, r.distances, why)
    ]
    labels = {"1-NED": "one_minus_ned", "CER": "cer", "accuracy": "accuracy"}
    headline = {label: v for label, key in labels.items() if (v := r.headline().get(key)) is not None}
    return add_intervals(headline, r, {k: labels[k] for k in headline}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="one_minus_ned",
    label="1-NED",
    title=METRIC.title,
    description=spec_description(METRIC),
    variants=METRIC.config_names,
    params=spec_params(
        METRIC,
        {
            "empty_pair": {
                "label": "both empty scores",
                "info": "zero: ICDAR 2019 (default); one: empty vs empty is a match",
            },
            "lowercase": {"label": "lowercase"},
            "nfkc": {"label": "NFKC"},
        },
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "one_minus_ned"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
